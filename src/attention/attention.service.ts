// "Needs attention": everything of an account that waits for a person, newest first, with counts.
// A read model across capabilities (orders, forwarding, events, shops, catalogue), answered in one
// round trip of ten statements, each a count (a window over the matches) and its five newest items.
import { sql, type SQL } from "drizzle-orm";
import { toStatement, type Db, type Row } from "../db";
import type { LineStatus } from "../db/schema";
import { FAILING_DELIVERY } from "../events/delivery.service";
import { isoMicro } from "../lib/time";
import { FAILING_WRITE_BACK } from "../shops/write-backs";

/** A line still pending this long after it became pending did not match: someone must look. */
export const PENDING_AFTER_MS = 15 * 60 * 1000;
/** A pulled order the supplier has not fetched for this long is overdue. */
export const PICKUP_OVERDUE_MS = 24 * 60 * 60 * 1000;
const SHOWN = 5;

export type LineItem = {
  reference: string;
  externalId: string;
  lineId: number;
  lineName: string;
  status: LineStatus;
  /** The supplier that declined it or could not be sent to (null: it never had one). */
  matchedSupplierId: number | null;
  /** The line's quantity and what its supplier confirmed of it (a partly confirmed line's rest is acted on here). */
  quantity: number;
  confirmedQuantity: number | null;
  since: string;
  reason: string | null;
};
export type Group<T> = { count: number; items: T[] };

export type Attention = {
  blocked: Group<{ reference: string; externalId: string; createdAt: string; reason: string | null }>;
  pending: Group<LineItem>;
  failed: Group<LineItem>;
  answered: Group<LineItem>;
  overduePickups: Group<{ reference: string; supplierName: string; dispatchId: number; createdAt: string }>;
  /** Lines whose supplier let a deadline pass (src/forwarding/deadlines.ts), until it answers or ships. */
  overdue: Group<LineItem & { deadline: "acknowledgement" | "shipping" }>;
  /** Cancellations a person must carry to the supplier (manual channel), or that could not be sent. */
  cancellations: Group<{
    reference: string;
    supplierName: string;
    cancellationId: number;
    purpose: "cancel" | "withdraw";
    status: "requested" | "failed";
    channel: string;
    lastError: string | null;
    openLines: number;
    createdAt: string;
  }>;
  webhooks: Group<{ deliveryId: number; subscriptionId: number; url: string; eventType: string; status: string; lastError: string | null; updatedAt: string }>;
  /** Write-backs into the shop parked after their last attempt, or waiting for a retry. */
  shops: Group<{ writeBackId: number; reference: string; connectionName: string; kind: string; status: string; lastError: string | null; updatedAt: string }>;
  imports: Group<{ feedId: number; feedName: string; importId: number; status: string; rejected: number; error: string | null; startedAt: string }>;
};

const lastLog = sql`(SELECT g.message FROM order_line_logs g WHERE g.order_id = l.order_id AND g.order_line_id = l.id ORDER BY g.id DESC LIMIT 1)`;

/** Lines of live (not test, not blocked) orders in these states, newest change first. */
const lines = (accountId: number, statuses: LineStatus[], before?: string) => sql`
  SELECT o.reference, o.external_id, l.id AS line_id, l.name AS line_name, l.current_status AS status, l.matched_supplier_id, l.quantity, l.confirmed_quantity, l.updated_at AS since, ${lastLog} AS reason, count(*) OVER () AS total
  FROM order_lines l JOIN orders o ON o.id = l.order_id
  WHERE l.account_id = ${accountId} AND l.current_status IN (${sql.join(statuses.map((s) => sql`${s}`), sql`, `)})
    AND o.test = 0 AND o.blocked = 0 ${before ? sql`AND l.updated_at < ${before}` : sql``}
  ORDER BY l.updated_at DESC, l.id DESC LIMIT ${SHOWN}`;

export async function needsAttention(db: Db, accountId: number, now = new Date()): Promise<Attention> {
  const statements: SQL[] = [
    sql`SELECT o.reference, o.external_id, o.created_at,
          (SELECT g.message FROM order_line_logs g WHERE g.order_id = o.id AND g.message LIKE 'Order blocked%' ORDER BY g.id DESC LIMIT 1) AS reason,
          count(*) OVER () AS total
        FROM orders o WHERE o.account_id = ${accountId} AND o.test = 0 AND o.blocked = 1
        ORDER BY o.created_at DESC, o.id DESC LIMIT ${SHOWN}`,
    lines(accountId, ["pending"], isoMicro(new Date(now.getTime() - PENDING_AFTER_MS))),
    lines(accountId, ["failed"]),
    lines(accountId, ["declined", "partially_completed"]),
    sql`SELECT o.reference, s.name AS supplier_name, d.id AS dispatch_id, d.created_at, count(*) OVER () AS total
        FROM dispatches d JOIN suppliers s ON s.id = d.supplier_id JOIN orders o ON o.id = d.order_id
        WHERE d.supplier_id IN (SELECT id FROM suppliers WHERE account_id = ${accountId}) AND d.status = 'awaiting_pickup'
          AND d.created_at < ${isoMicro(new Date(now.getTime() - PICKUP_OVERDUE_MS))}
        ORDER BY d.id DESC LIMIT ${SHOWN}`,
    sql`SELECT o.reference, o.external_id, l.id AS line_id, l.name AS line_name, l.current_status AS status, l.matched_supplier_id, l.quantity, l.confirmed_quantity, l.overdue_at AS since, l.overdue_deadline AS deadline,
          ${lastLog} AS reason, count(*) OVER () AS total
        FROM order_lines l JOIN orders o ON o.id = l.order_id
        WHERE l.account_id = ${accountId} AND l.overdue_at IS NOT NULL AND l.current_status IN ('ruled', 'completed', 'partially_completed') AND o.test = 0
        ORDER BY l.overdue_at DESC, l.id DESC LIMIT ${SHOWN}`,
    sql`SELECT o.reference, s.name AS supplier_name, c.id AS cancellation_id, c.purpose, c.status, c.channel, c.last_error, c.created_at,
          (SELECT count(*) FROM cancellation_lines cl WHERE cl.cancellation_id = c.id AND cl.status = 'requested') AS open_lines,
          count(*) OVER () AS total
        FROM cancellations c JOIN suppliers s ON s.id = c.supplier_id JOIN orders o ON o.id = c.order_id
        WHERE c.account_id = ${accountId} AND (c.status = 'failed' OR (c.status = 'requested' AND c.channel = 'manual'))
        ORDER BY c.id DESC LIMIT ${SHOWN}`,
    // Failing: given up, or waiting for a retry after a failed attempt.
    sql`SELECT d.id AS delivery_id, d.subscription_id, w.url, e.type AS event_type, d.status, d.last_error, d.updated_at, count(*) OVER () AS total
        FROM webhook_deliveries d JOIN webhook_subscriptions w ON w.id = d.subscription_id JOIN events e ON e.id = d.event_id
        WHERE d.account_id = ${accountId} AND ${FAILING_DELIVERY}
        ORDER BY d.id DESC LIMIT ${SHOWN}`,
    sql`SELECT w.id AS write_back_id, o.reference, c.name AS connection_name, w.kind, w.status, w.last_error, w.updated_at, count(*) OVER () AS total
        FROM shop_write_backs w JOIN shop_connections c ON c.id = w.connection_id JOIN orders o ON o.id = w.order_id
        WHERE w.account_id = ${accountId} AND ${FAILING_WRITE_BACK}
        ORDER BY w.id DESC LIMIT ${SHOWN}`,
    // Each feed's latest import, when it failed or rejected rows (a later good import settles it).
    sql`SELECT f.id AS feed_id, f.name AS feed_name, i.id AS import_id, i.status, i.rows_rejected AS rejected, i.error, i.started_at, count(*) OVER () AS total
        FROM product_feeds f JOIN product_imports i ON i.id = (SELECT max(id) FROM product_imports WHERE product_feed_id = f.id)
        WHERE f.account_id = ${accountId} AND (i.status = 'failed' OR i.rows_rejected > 0)
        ORDER BY i.id DESC LIMIT ${SHOWN}`,
  ];
  const results = await db.$client.batch<Row>(statements.map((s) => toStatement(db, s)));
  const [blocked, pending, failed, answered, pickups, overdue, cancellations, webhooks, shops, imports] = results.map((r) => r.results);
  return {
    blocked: group(blocked),
    pending: group(pending),
    failed: group(failed),
    answered: group(answered),
    overduePickups: group(pickups),
    overdue: group(overdue),
    cancellations: group(cancellations),
    webhooks: group(webhooks),
    shops: group(shops),
    imports: group(imports),
  };
}

/** A statement's rows as items (snake_case columns become the items' camelCase fields) with the window's count. */
function group<T>(rows: Row[]): Group<T> {
  const items = rows.map(
    (row) => Object.fromEntries(Object.entries(row).filter(([k]) => k !== "total").map(([k, v]) => [k.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()), v])) as T,
  );
  return { count: Number(rows[0]?.total ?? 0), items };
}
