// Credits per supplier and month (src/returns/credits.service.ts, the supplier page's "Credits for
// returns"): credited returns summed per month and currency, this month and the 11 before it: the
// first instant of the 12th month back counted, the instant before it not; another supplier's not.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { creditsSince, supplierCredits } from "../../src/returns/credits.service";
import { exec } from "../helpers/factories";
import { answerReturn, requestReturn, shippedOrder } from "./support";

/** A return of one line credited by its supplier through the API. */
async function credited(s: Awaited<ReturnType<typeof shippedOrder>>, supplier: { key: string }, lineId: number, amount: number, currency: string) {
  const created = await requestReturn(s.creds, s.reference, { lines: [{ line_id: lineId, quantity: 1 }] });
  expect(created.status, created.text).toBe(201);
  const id = created.json.data[0].id as number;
  for (const answer of [
    { action: "authorise", rma: `RMA-${id}`, return_address: "Returns, Dock 1" },
    { action: "receive", lines: [{ line_id: lineId, quantity: 1, condition: "new" }] },
    { action: "credit", amount, currency },
  ]) {
    const res = await answerReturn(supplier.key, id, answer);
    expect(res.status, res.text).toBe(200);
  }
  return id;
}

describe("credits per supplier and month", () => {
  it("sums per month and currency over the last 12 months, the first instant of the 12th month back in, the one before it out", async () => {
    const s = await shippedOrder();
    const db = createDb(env.DB);
    const now = new Date();
    const month = (d: Date) => d.toISOString().slice(0, 7);
    const first = await credited(s, s.cups, s.mugs, 10, "EUR");
    await credited(s, s.cups, s.mugs, 2.5, "EUR");
    await credited(s, s.plates, s.plate, 7, "USD");

    expect(await supplierCredits(db, s.creds.accountId, s.cups.id, now)).toEqual([{ month: month(now), currency: "EUR", amount: 12.5, returns: 2 }]);
    expect(await supplierCredits(db, s.creds.accountId, s.plates.id, now)).toEqual([{ month: month(now), currency: "USD", amount: 7, returns: 1 }]);

    // This month and the 11 before it: the 12th month back begins the range.
    const since = `${new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1)).toISOString().slice(0, 10)}T00:00:00.000000Z`;
    expect(creditsSince(now)).toBe(since);
    await exec("UPDATE returns SET updated_at = ? WHERE id = ?", since, first);
    expect(await supplierCredits(db, s.creds.accountId, s.cups.id, now)).toEqual([
      { month: month(now), currency: "EUR", amount: 2.5, returns: 1 },
      { month: since.slice(0, 7), currency: "EUR", amount: 10, returns: 1 },
    ]);
    const before = new Date(Date.parse(since) - 1).toISOString().replace(/\.(\d{3})Z$/, ".$1999Z");
    await exec("UPDATE returns SET updated_at = ? WHERE id = ?", before, first);
    expect(await supplierCredits(db, s.creds.accountId, s.cups.id, now)).toEqual([{ month: month(now), currency: "EUR", amount: 2.5, returns: 1 }]);

    // Another account asking for this supplier sums nothing.
    const other = await shippedOrder();
    expect(await supplierCredits(db, other.creds.accountId, s.cups.id, now)).toEqual([]);
  });
});
