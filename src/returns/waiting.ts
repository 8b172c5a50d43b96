// Needs attention's "Returns waiting on the supplier": returns whose supplier owes an answer
// (requested: authorise or decline; received: credit or close) for longer than the supplier's
// returns.answer_within_hours. A supplier without the setting is never listed (nobody said how long
// is too long). In transit is not here: it waits on the customer's parcel, not on the supplier.
// One statement for src/attention/attention.service.ts's batch: driven by the account's suppliers
// that have the setting, each one's overdue returns read from returns_supplier_waiting_idx
// (supplier, status, waiting_since) as a range, so its cost follows what is listed, not the history.
// CROSS JOIN fixes that order (SQLite keeps it): left to itself, without statistics, the planner
// starts from the account's open returns instead (returns_account_status_idx).
import { sql, type SQL } from "drizzle-orm";
import type { ReturnStatus } from "../db/schema";

/** The states in which the supplier owes the next answer, and the clock Needs attention reads. */
export const ANSWER_OWED: ReturnStatus[] = ["requested", "received"];

export type WaitingReturn = {
  key: string;
  returnId: number;
  reference: string;
  supplierName: string;
  status: ReturnStatus;
  since: string;
  answerWithinHours: number;
};

/**
 * The statement: `total` (a window over the matches), then the newest `shown` returns not set aside
 * (`notSetAside(key, latest)` is Needs attention's condition; key `return:<id>`, its time the moment
 * the return began waiting, so a dismissed return comes back when it waits again, e.g. once received).
 */
export function waitingReturnsStatement(accountId: number, now: string, shown: number, notSetAside: (key: SQL, latest: SQL) => SQL): SQL {
  // The cutoff in isoMicro's own shape (…SS.ffffffZ), so that it compares with waiting_since as text.
  const cutoff = sql`strftime('%Y-%m-%dT%H:%M:%f', ${now}, '-' || rs.answer_within_hours || ' hours') || '000Z'`;
  return sql`SELECT count(*) OVER () AS total, 'return:' || r.id AS item_key, r.id AS return_id, o.reference, sp.name AS supplier_name, r.status,
      r.waiting_since AS since, rs.answer_within_hours
    FROM suppliers sp CROSS JOIN supplier_return_settings rs CROSS JOIN returns r JOIN orders o ON o.id = r.order_id
    WHERE sp.account_id = ${accountId} AND rs.supplier_id = sp.id AND rs.answer_within_hours IS NOT NULL
      AND r.supplier_id = sp.id AND r.status IN (${sql.join(ANSWER_OWED.map((s) => sql`${s}`), sql`, `)}) AND r.waiting_since < ${cutoff} AND r.account_id = ${accountId}
      AND ${notSetAside(sql`'return:' || r.id`, sql`r.waiting_since`)}
    ORDER BY r.waiting_since ASC, r.id ASC LIMIT ${shown}`;
}
