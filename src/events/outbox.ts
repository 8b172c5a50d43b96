// The event outbox: statements that record an event in the same batch as the change it reports,
// so an event exists exactly when its change happened. Events are only recorded for accounts with
// an active webhook subscription. The events capability publishes and delivers them.
import { sql, type SQL } from "drizzle-orm";

const newEventId = sql`'evt_' || lower(hex(randomblob(12)))`;
const hasSubscribers = (accountId: SQL) =>
  sql`EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.account_id = ${accountId} AND s.active = 1)`;
const orderRef = sql`json_object('reference', o.reference, 'external_id', o.external_id)`;

/** order.created: only when the order with this (fresh) reference exists, i.e. was just inserted. */
export function orderCreatedEvent(reference: string, now: string): SQL {
  return sql`INSERT INTO events (id, account_id, type, data, created_at)
    SELECT ${newEventId}, o.account_id, 'order.created',
      json_object('order', json_object('reference', o.reference, 'external_id', o.external_id, 'source', o.source,
        'test', json(CASE WHEN o.test THEN 'true' ELSE 'false' END), 'total', o.total)), ${now}
    FROM orders o WHERE o.reference = ${reference} AND ${hasSubscribers(sql`o.account_id`)}`;
}

/** order_line.status_changed: must directly follow the move's log insert (gated by changes() = 1). */
export function statusChangedEvent(lineId: number, from: string, to: string, message: string, now: string): SQL {
  return sql`INSERT INTO events (id, account_id, type, data, created_at)
    SELECT ${newEventId}, l.account_id, 'order_line.status_changed',
      json_object('order', ${orderRef}, 'line', json_object('id', l.id, 'external_id', l.external_id,
        'status', ${to}, 'previous_status', ${from}), 'message', ${message}), ${now}
    FROM order_lines l JOIN orders o ON o.id = l.order_id
    WHERE l.id = ${lineId} AND changes() = 1 AND ${hasSubscribers(sql`l.account_id`)}`;
}

/** order.blocked: must directly follow the block's log insert (gated by changes() > 0). */
export function orderBlockedEvent(orderId: number, message: string, now: string): SQL {
  return sql`INSERT INTO events (id, account_id, type, data, created_at)
    SELECT ${newEventId}, o.account_id, 'order.blocked', json_object('order', ${orderRef}, 'reason', ${message}), ${now}
    FROM orders o WHERE o.id = ${orderId} AND changes() > 0 AND ${hasSubscribers(sql`o.account_id`)}`;
}

/** order.completed: runs before completed_at is set, and only when it is about to be. */
export function orderCompletedEvent(orderId: number, openStates: readonly string[], now: string): SQL {
  return sql`INSERT INTO events (id, account_id, type, data, created_at)
    SELECT ${newEventId}, o.account_id, 'order.completed',
      json_object('order', json_object('reference', o.reference, 'external_id', o.external_id, 'completed_at', ${now})), ${now}
    FROM orders o WHERE o.id = ${orderId} AND o.completed_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM order_lines WHERE order_id = o.id
        AND current_status IN (${sql.join(openStates.map((s) => sql`${s}`), sql`, `)}))
      AND ${hasSubscribers(sql`o.account_id`)}`;
}

/** order_line.shipped: must directly follow the shipment insert (gated by changes() = 1). */
export function lineShippedEvent(lineId: number, shipment: { quantity: number; carrier: string | null; trackingNumber: string | null; trackingUrl: string | null }, now: string): SQL {
  return sql`INSERT INTO events (id, account_id, type, data, created_at)
    SELECT ${newEventId}, l.account_id, 'order_line.shipped',
      json_object('order', ${orderRef}, 'line', json_object('id', l.id, 'external_id', l.external_id),
        'shipment', json_object('quantity', ${shipment.quantity}, 'carrier', ${shipment.carrier},
          'tracking_number', ${shipment.trackingNumber}, 'tracking_url', ${shipment.trackingUrl})), ${now}
    FROM order_lines l JOIN orders o ON o.id = l.order_id
    WHERE l.id = ${lineId} AND changes() = 1 AND ${hasSubscribers(sql`l.account_id`)}`;
}
