// What happened to a line, in a person's words: the API's seven states stay as they are, but
// "completed" is the contract's word for "sent", and it also covers a line the supplier accepted and
// one it shipped. The console says which (src/orders/progress-badge.tsx, LineProgressBadge), from what the pages
// already read: the line, its shipments, and its log or its dispatch's channel.
import type { Channel, LineStatus } from "../db/schema";
import { channelFor } from "../forwarding/channels";

export type LineProgress =
  /** Any state that says enough on its own: pending, ruled, failed, declined, skipped. */
  | { kind: "state"; status: LineStatus }
  /** completed: handed to the supplier, no answer from it yet. */
  | { kind: "sent"; status: LineStatus }
  /** completed: the supplier accepted it (or, pulling, acknowledged the order), nothing shipped yet. */
  | { kind: "accepted"; status: LineStatus }
  | { kind: "by_hand"; status: LineStatus }
  | { kind: "dry_run"; status: LineStatus }
  /** partially_completed before any shipment: the supplier confirmed part of the quantity. */
  | { kind: "confirmed"; status: LineStatus; confirmed: number; of: number }
  /** Some or all of the quantity shipped. */
  | { kind: "shipped"; status: LineStatus; shipped: number; of: number };

type Line = { currentStatus: LineStatus; quantity: number; confirmedQuantity: number | null };
type Log = { status: LineStatus; message: string };

// The log entries the supplier's answers write (src/forwarding/answers.service.ts) and the moves of
// src/forwarding/forwarding.service.ts (completeByHand, dryRunMessage).
const ACCEPTED = /^(Accepted|Acknowledged) by supplier /;
const BY_HAND = "Completed by hand";
const DRY_RUN = /^Test order: dry run/;

/**
 * A line's progress. `logs`: the line's log, oldest first (the order page reads it): the entries since
 * it last became completed say whether it was accepted. Without a log, `channel` decides: on the pull
 * and manual channels a line is completed only by the supplier's answer (or by hand), so it was
 * accepted; on the push channels, completed is sent.
 */
export function lineProgress(line: Line, shipped: number, from: { logs: Log[] } | { channel: Channel | null }): LineProgress {
  const status = line.currentStatus;
  if (status !== "completed" && status !== "partially_completed") return { kind: "state", status };
  if (shipped > 0) return { kind: "shipped", status, shipped, of: line.quantity };
  if (status === "partially_completed") return { kind: "confirmed", status, confirmed: line.confirmedQuantity ?? 0, of: line.quantity };
  if ("logs" in from) {
    const lastOther = from.logs.findLastIndex((l) => l.status !== "completed");
    const run = from.logs.slice(lastOther + 1);
    if (run.some((l) => ACCEPTED.test(l.message))) return { kind: "accepted", status };
    if (run.some((l) => l.message === BY_HAND)) return { kind: "by_hand", status };
    if (run.some((l) => DRY_RUN.test(l.message))) return { kind: "dry_run", status };
    return { kind: "sent", status };
  }
  // A channel that sends nothing (the supplier fetches, or the shop places the order) was answered, not sent to.
  return { kind: from.channel && channelFor(from.channel).starts !== "sending" ? "accepted" : "sent", status };
}

export const shippedOf = (shipments: { quantity: number }[]) => shipments.reduce((sum, s) => sum + s.quantity, 0);

/**
 * How far an order has got, from its lines: the one place that says it (the console's list and
 * header, the CSV export). Lines cancelled (skipped) drop out; `attention`: lines failed or declined,
 * which a person (or re-routing) must still move, whatever the rest did. Furthest first: any item
 * shipped makes the order "shipped k of n" (items, over the lines still wanted), else any line the
 * supplier accepted "accepted", else any line handed over "sent"; `lines` of `of` say how many of
 * the wanted lines got there. Never "completed": the contract's word for handed over
 * (docs/console.md, "How far an order has got").
 */
export type OrderProgress =
  | { kind: "no_lines"; attention: 0 }
  /** Every line cancelled. */
  | { kind: "cancelled"; attention: 0 }
  /** Nothing handed over yet: being matched, waiting to be sent or fetched, or stuck (attention > 0). */
  | { kind: "waiting"; attention: number }
  | { kind: "sent"; attention: number; lines: number; of: number }
  | { kind: "accepted"; attention: number; lines: number; of: number }
  /** shipped = of: shipped in full. `lastAt`: the latest shipment. */
  | { kind: "shipped"; attention: number; shipped: number; of: number; lastAt: string | null };

type OrderLine = Line & { shipments: { quantity: number; created_at: string }[] };

/** `from`: per line, its log (the order page) or its send's channel (the list and the export): see lineProgress. */
export function orderProgress<L extends OrderLine>(lines: L[], from: (line: L) => { logs: Log[] } | { channel: Channel | null }): OrderProgress {
  if (lines.length === 0) return { kind: "no_lines", attention: 0 };
  const wanted = lines.filter((l) => l.currentStatus !== "skipped");
  if (wanted.length === 0) return { kind: "cancelled", attention: 0 };
  const attention = wanted.filter((l) => l.currentStatus === "failed" || l.currentStatus === "declined").length;
  let shipped = 0;
  let items = 0;
  let lastAt: string | null = null;
  let sent = 0;
  let accepted = 0;
  for (const line of wanted) {
    const own = shippedOf(line.shipments);
    // A supplier's report of more than the line holds ships the line, no more.
    shipped += Math.min(own, line.quantity);
    items += line.quantity;
    for (const s of line.shipments) if (lastAt === null || s.created_at > lastAt) lastAt = s.created_at;
    const p = lineProgress(line, own, from(line));
    if (p.kind !== "state") sent++;
    if (p.kind === "accepted" || p.kind === "confirmed" || p.kind === "shipped") accepted++;
  }
  if (shipped > 0) return { kind: "shipped", attention, shipped, of: items, lastAt };
  if (accepted > 0) return { kind: "accepted", attention, lines: accepted, of: wanted.length };
  if (sent > 0) return { kind: "sent", attention, lines: sent, of: wanted.length };
  return { kind: "waiting", attention };
}

/** The order's state in words, as the console and the export say it. */
export function orderProgressWords(p: OrderProgress): string {
  switch (p.kind) {
    case "no_lines":
      return "No lines";
    case "cancelled":
      return "Cancelled";
    case "waiting":
      return p.attention > 0 ? "Needs attention" : "Not sent yet";
    case "sent":
      return p.lines === p.of ? "Sent to suppliers" : `Sent ${p.lines} of ${p.of} lines`;
    case "accepted":
      return p.lines === p.of ? "Accepted" : `Accepted ${p.lines} of ${p.of} lines`;
    case "shipped":
      return p.shipped >= p.of ? "Shipped in full" : `Shipped ${p.shipped} of ${p.of}`;
  }
}

/**
 * Whether the pipeline still owes the order work the page would show once done: routing (an order
 * not blocked, not parked, whose routed_at is cleared: since it was created, unblocked, retried or
 * matched by hand) or a send under way (a dispatch queued or sending). The order page polls its lines
 * while this holds (docs/console.md).
 */
export function workPending(order: { blocked: boolean; routedAt: string | null; parkedAt: string | null }, dispatches: { status: string }[]): boolean {
  return (!order.blocked && order.parkedAt === null && order.routedAt === null) || dispatches.some((d) => d.status === "queued" || d.status === "sending");
}
