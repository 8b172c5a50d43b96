// What an account still has under way when the operator deletes it (src/shards/delete.ts): a shop
// owner leaving mid-order must not leave suppliers with unanswered sends unsaid. Open is what the
// archive calls not finished (src/archive/finished.ts: something can still happen to the order).
import { sql } from "drizzle-orm";
import { rawBatch, type Db } from "../db";
import { FINAL_LINE, finished } from "../archive/finished";
import { deleteAccountArchive } from "../archive/archive.service";

/** Counts stop here: the answer says "at least" past it, and the count stays one bounded read. */
export const OPEN_COUNT_CAP = 1000;

export type OpenWork = {
  orders: number;
  returns: number;
  /** Sends a supplier took (or is about to) with lines still open: they wait for its answer. */
  sends: { supplier_id: number; supplier_name: string; dispatches: number }[];
};

export async function openWorkOf(db: Db, accountId: number): Promise<OpenWork> {
  const [orders, returns, sends] = await rawBatch(db, [
    sql`SELECT count(*) AS n FROM (SELECT 1 FROM orders o WHERE o.account_id = ${accountId} AND NOT ${finished} LIMIT ${OPEN_COUNT_CAP})`,
    sql`SELECT count(*) AS n FROM (SELECT 1 FROM returns WHERE account_id = ${accountId}
      AND status NOT IN ('declined', 'credited', 'closed', 'cancelled') LIMIT ${OPEN_COUNT_CAP})`,
    sql`SELECT d.supplier_id, s.name AS supplier_name, count(*) AS dispatches FROM dispatches d JOIN suppliers s ON s.id = d.supplier_id
      WHERE d.account_id = ${accountId} AND d.status IN ('queued', 'sending', 'sent', 'awaiting_pickup', 'acknowledged')
        AND EXISTS (SELECT 1 FROM order_lines l WHERE l.dispatch_id = d.id AND NOT ${FINAL_LINE})
      GROUP BY d.supplier_id ORDER BY d.supplier_id LIMIT 100`,
  ]);
  return {
    orders: Number(orders[0].n),
    returns: Number(returns[0].n),
    sends: sends.map((r) => ({ supplier_id: Number(r.supplier_id), supplier_name: String(r.supplier_name), dispatches: Number(r.dispatches) })),
  };
}

/** The open work in words (the 409 that asks for `force`). */
export function describeOpenWork(open: OpenWork): string {
  const count = (n: number, what: string) => `${n >= OPEN_COUNT_CAP ? `at least ${n}` : n} ${what}${n === 1 ? "" : "s"}`;
  const parts = [];
  if (open.orders > 0) parts.push(count(open.orders, "open order"));
  if (open.returns > 0) parts.push(count(open.returns, "open return"));
  for (const s of open.sends) parts.push(`${count(s.dispatches, "send")} awaiting an answer from supplier ${s.supplier_id} (${s.supplier_name})`);
  return parts.join(", ");
}

/** Nothing is open: the account can go without `force`. */
export const nothingOpen = (open: OpenWork) => open.orders === 0 && open.returns === 0 && open.sends.length === 0;

/**
 * What a deletion asks of the account's domain (src/shards/delete.ts's hooks), the same for the
 * operator's command and the cron that carries a deletion on: the open work, and its archive's
 * objects a listing page at a time.
 */
export const deletionHooks = (archive: R2Bucket) => ({
  openWork: openWorkOf,
  describe: describeOpenWork,
  deleteObjects: (accountId: number) => deleteAccountArchive(archive, accountId, 1),
});
