// How far an order has got (src/orders/progress.ts, orderProgress): the one place the console's list
// and header and the CSV export take it from, furthest first, cancelled lines dropped, and never the
// contract's "completed" for handed over.
import { describe, expect, it } from "vitest";
import type { LineStatus } from "../../src/db/schema";
import { orderProgress, orderProgressWords } from "../../src/orders/progress";

type L = { currentStatus: LineStatus; quantity: number; confirmedQuantity: number | null; shipments: { quantity: number; created_at: string }[]; channel: "webhook" | "pull" | null };
const line = (currentStatus: LineStatus, quantity: number, shipped: number[] = [], channel: L["channel"] = "webhook"): L => ({
  currentStatus,
  quantity,
  confirmedQuantity: null,
  shipments: shipped.map((q, i) => ({ quantity: q, created_at: `2026-11-28T10:0${i}:00.000000Z` })),
  channel,
});
const said = (lines: L[]) => {
  const p = orderProgress(lines, (l) => ({ channel: l.channel }));
  return [orderProgressWords(p), p.attention];
};

describe("orderProgress", () => {
  it("says the furthest real state of the order's lines", () => {
    expect(said([])).toEqual(["No lines", 0]);
    expect(said([line("pending", 1), line("ruled", 2)])).toEqual(["Not sent yet", 0]);
    expect(said([line("failed", 1), line("ruled", 1)])).toEqual(["Needs attention", 1]);
    expect(said([line("completed", 1), line("completed", 2)])).toEqual(["Sent to suppliers", 0]);
    expect(said([line("completed", 1), line("declined", 2)])).toEqual(["Sent 1 of 2 lines", 1]);
    // On the pull channel a completed line was answered: accepted.
    expect(said([line("completed", 1, [], "pull"), line("completed", 1)])).toEqual(["Accepted 1 of 2 lines", 0]);
    expect(said([line("completed", 3, [], "pull")])).toEqual(["Accepted", 0]);
    // Items shipped over the lines still wanted: 2 of 3 on one line, or one line of two in full.
    expect(said([line("completed", 3, [2], "pull")])).toEqual(["Shipped 2 of 3", 0]);
    expect(said([line("completed", 1, [1], "pull"), line("completed", 2, [], "pull")])).toEqual(["Shipped 1 of 3", 0]);
    expect(said([line("completed", 1, [1]), line("completed", 2, [1, 1])])).toEqual(["Shipped in full", 0]);
    // A cancelled line drops out; every line cancelled is a cancelled order.
    expect(said([line("completed", 2, [2]), line("skipped", 5)])).toEqual(["Shipped in full", 0]);
    expect(said([line("skipped", 1), line("skipped", 2)])).toEqual(["Cancelled", 0]);
    // More reported than the line holds ships the line, no more.
    expect(said([line("completed", 1, [3]), line("failed", 1)])).toEqual(["Shipped 1 of 2", 1]);
  });

  it("keeps the latest shipment's time for the header", () => {
    const p = orderProgress([line("completed", 3, [1, 2])], (l) => ({ channel: l.channel }));
    expect(p).toEqual({ kind: "shipped", attention: 0, shipped: 3, of: 3, lastAt: "2026-11-28T10:01:00.000000Z" });
  });

  it("reads acceptance from the log where the page has it", () => {
    const accepted = orderProgress([line("completed", 1)], () => ({ logs: [{ status: "completed", message: "Accepted by supplier Mokkenhuis" }] }));
    const sent = orderProgress([line("completed", 1)], () => ({ logs: [{ status: "completed", message: "Sent to supplier Mokkenhuis" }] }));
    expect([orderProgressWords(accepted), orderProgressWords(sent)]).toEqual(["Accepted", "Sent to suppliers"]);
  });
});
