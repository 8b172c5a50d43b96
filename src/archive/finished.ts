// Which orders are finished (nothing can still happen to them), and an order's fingerprint: the
// archive reads an order, writes it to R2, and deletes its rows only if both still hold at the delete
// (docs/archive.md, "Finished" and "Crash-safe").
import { sql, type SQL } from "drizzle-orm";

/** The line states that can still change: a line in one of them keeps its order live. */
export const FINAL_LINE = sql`(l.current_status IN ('completed', 'skipped') OR (l.current_status IN ('declined', 'failed') AND l.reroute_reason IS NULL))`;

/**
 * No return still open: every return of the order has ended (declined, cancelled, credited, closed:
 * src/returns' states with nothing left to happen), and no notice of one is still on its way to the
 * supplier. An ended return goes into the archived object with its order (docs/archive.md, "Returns").
 * Read through returns_order_idx and return_notices_return_idx.
 */
const NO_OPEN_RETURN = sql`NOT EXISTS (SELECT 1 FROM returns r WHERE r.order_id = o.id AND r.status NOT IN ('declined', 'cancelled', 'credited', 'closed'))
  AND NOT EXISTS (SELECT 1 FROM returns r JOIN return_notices n ON n.return_id = r.id WHERE r.order_id = o.id AND n.status IN ('queued', 'sending'))`;

/**
 * An order (alias o) is finished when it has lines and every one is final (shipped in full, skipped:
 * cancelled or never sent, declined or failed with no re-route owed), it is neither blocked nor parked,
 * the pipeline owes it nothing (routed), and nothing about it is still on its way: no send queued or
 * sending, no cancellation waiting for a supplier, no write-back to the shop pending or being
 * delivered, no event not yet published (its write-backs and webhooks come from it), and no return.
 */
export const finished: SQL = sql`(o.blocked = 0 AND o.parked_at IS NULL AND o.routed_at IS NOT NULL
  AND EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = o.id)
  AND NOT EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = o.id AND NOT ${FINAL_LINE})
  AND NOT EXISTS (SELECT 1 FROM dispatches d WHERE d.order_id = o.id AND d.status IN ('queued', 'sending'))
  AND NOT EXISTS (SELECT 1 FROM cancellations c WHERE c.order_id = o.id AND c.status IN ('queued', 'sending', 'requested'))
  AND NOT EXISTS (SELECT 1 FROM shop_write_backs w WHERE w.order_id = o.id AND w.status IN ('pending', 'delivering'))
  AND NOT EXISTS (SELECT 1 FROM events e WHERE e.account_id = o.account_id AND json_extract(e.data, '$.order.reference') = o.reference AND e.published_at IS NULL)
  AND ${NO_OPEN_RETURN})`;

/**
 * Everything about an order (alias o) that a change would touch, as one string: the order's own
 * updated_at, its lines' latest, its newest log entry and shipment, its sends', cancellations' and
 * write-backs' latest, and its returns' (how many, their latest change, newest log entry and notice).
 * Every status change writes a log entry (src/orders/lifecycle.ts), so a late
 * answer always changes it. Each part is read through the table's order_id index.
 */
export const fingerprint: SQL = sql`(o.updated_at
  || '|' || coalesce((SELECT max(l.updated_at) FROM order_lines l WHERE l.order_id = o.id), '')
  || '|' || coalesce((SELECT max(g.id) FROM order_line_logs g WHERE g.order_id = o.id), 0)
  || '|' || coalesce((SELECT max(s.id) FROM shipments s WHERE s.order_id = o.id), 0)
  || '|' || coalesce((SELECT max(d.updated_at) FROM dispatches d WHERE d.order_id = o.id), '')
  || '|' || coalesce((SELECT max(c.updated_at) FROM cancellations c WHERE c.order_id = o.id), '')
  || '|' || coalesce((SELECT max(w.id) || ':' || max(w.updated_at) FROM shop_write_backs w WHERE w.order_id = o.id), '')
  || '|' || coalesce((SELECT count(*) || ':' || max(r.updated_at) FROM returns r WHERE r.order_id = o.id), '')
  || '|' || coalesce((SELECT max(g.id) FROM returns r JOIN return_logs g ON g.return_id = r.id WHERE r.order_id = o.id), 0)
  || '|' || coalesce((SELECT max(n.updated_at) FROM returns r JOIN return_notices n ON n.return_id = r.id WHERE r.order_id = o.id), ''))`;
