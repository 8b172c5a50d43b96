// What a supplier credited the shop for returns, summed per month and currency over the last 12
// months (this month and the 11 before it, UTC): the supplier page's "Credits for returns". A
// credited return is not changed after its credit, so its updated_at is when it was credited; the
// sums are read from returns_supplier_updated_idx (supplier, status, updated_at) as one range, and
// the same range of archived_returns (archived_returns_supplier_status_updated_idx): an archived
// order's credited return still counts (docs/archive.md, "Returns").
import { sql } from "drizzle-orm";
import { toStatement, type Db } from "../db";
import { unitsToNumber } from "../lib/money";

export type MonthlyCredit = { month: string; currency: string; amount: number; returns: number };

/** The first instant of the month 11 months before `now`'s, in isoMicro's shape. */
export function creditsSince(now: Date): string {
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1));
  return from.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** Newest month first; within a month, by currency. Another account's supplier sums nothing. */
export async function supplierCredits(db: Db, accountId: number, supplierId: number, now = new Date()): Promise<MonthlyCredit[]> {
  const { results } = await toStatement(
    db,
    sql`SELECT substr(updated_at, 1, 7) AS month, credit_currency AS currency, sum(credit_amount) AS units, count(*) AS n FROM (
        SELECT updated_at, credit_currency, credit_amount
          FROM returns WHERE supplier_id = ${supplierId} AND status = 'credited' AND updated_at >= ${creditsSince(now)} AND account_id = ${accountId}
        UNION ALL SELECT updated_at, credit_currency, credit_amount
          FROM archived_returns WHERE supplier_id = ${supplierId} AND status = 'credited' AND updated_at >= ${creditsSince(now)} AND account_id = ${accountId})
      GROUP BY month, currency ORDER BY month DESC, currency`,
  ).all<{ month: string; currency: string; units: number; n: number }>();
  return results.map((r) => ({ month: r.month, currency: r.currency, amount: unitsToNumber(Number(r.units)), returns: Number(r.n) }));
}
