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
  // Money is stored in ten-thousandths (src/lib/money.ts); the event carries the amount.
  return sql`INSERT INTO events (id, account_id, type, data, created_at)
    SELECT ${newEventId}, o.account_id, 'order.created',
      json_object('order', json_object('reference', o.reference, 'external_id', o.external_id, 'source', o.source,
        'test', json(CASE WHEN o.test THEN 'true' ELSE 'false' END), 'total', o.total / 10000.0)), ${now}
    FROM orders o WHERE o.reference = ${reference} AND ${hasSubscribers(sql`o.account_id`)}`;
}

/**
 * order_line.status_changed for each move of a lifecycle batch (a JSON array of {i: line, f: from,
 * s: to, m: message}) whose line carries the batch's token, i.e. was changed by this batch.
 */
export function linesStatusChangedEvents(movesJson: string, token: string, now: string): SQL {
  return sql`INSERT INTO events (id, account_id, type, data, created_at)
    SELECT ${newEventId}, l.account_id, 'order_line.status_changed',
      json_object('order', ${orderRef}, 'line', json_object('id', l.id, 'external_id', l.external_id,
        'status', j.value ->> '$.s', 'previous_status', j.value ->> '$.f'), 'message', j.value ->> '$.m'), ${now}
    FROM json_each(${movesJson}) AS j
    JOIN order_lines l ON l.id = j.value ->> '$.i' AND l.order_id = j.value ->> '$.o'
    JOIN orders o ON o.id = l.order_id
    WHERE l.move_token IS ${token} AND ${hasSubscribers(sql`l.account_id`)}
    ORDER BY j.key`;
}

/** order.blocked: must directly follow the block's log insert (gated by changes() > 0). */
export function orderBlockedEvent(orderId: number, message: string, now: string): SQL {
  return sql`INSERT INTO events (id, account_id, type, data, created_at)
    SELECT ${newEventId}, o.account_id, 'order.blocked', json_object('order', ${orderRef}, 'reason', ${message}), ${now}
    FROM orders o WHERE o.id = ${orderId} AND changes() > 0 AND ${hasSubscribers(sql`o.account_id`)}`;
}

/** order.parked: must directly follow the park's log insert (gated by changes() > 0). */
export function orderParkedEvent(orderId: number, message: string, now: string): SQL {
  return sql`INSERT INTO events (id, account_id, type, data, created_at)
    SELECT ${newEventId}, o.account_id, 'order.parked', json_object('order', ${orderRef}, 'reason', ${message}), ${now}
    FROM orders o WHERE o.id = ${orderId} AND changes() > 0 AND ${hasSubscribers(sql`o.account_id`)}`;
}

/** order.completed for each of the orders (a JSON array of ids) about to get completed_at: run before it is set. */
export function ordersCompletedEvent(orderIdsJson: string, openStates: readonly string[], now: string): SQL {
  return sql`INSERT INTO events (id, account_id, type, data, created_at)
    SELECT ${newEventId}, o.account_id, 'order.completed',
      json_object('order', json_object('reference', o.reference, 'external_id', o.external_id, 'completed_at', ${now})), ${now}
    FROM orders o WHERE o.id IN (SELECT value FROM json_each(${orderIdsJson})) AND o.completed_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM order_lines WHERE order_id = o.id
        AND current_status IN (${sql.join(openStates.map((s) => sql`${s}`), sql`, `)}))
      AND ${hasSubscribers(sql`o.account_id`)}`;
}

export type ShipmentRecord = {
  lineId: number;
  orderId: number;
  accountId: number;
  quantity: number;
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  /** The supplier's id of the shipment (or its tracking number): a repeat is recorded once. */
  externalId: string | null;
};

/**
 * The shipments and their order_line.shipped events, any number in two statements: each new
 * shipment carries the batch's random token, and the events follow exactly the rows this batch
 * inserted (a repeated report inserts nothing, so announces nothing).
 */
export function shipmentStatements(shipments: ShipmentRecord[], now: string): SQL[] {
  if (shipments.length === 0) return [];
  const token = crypto.randomUUID();
  return [
    sql`INSERT INTO shipments (account_id, order_id, order_line_id, quantity, carrier, tracking_number, tracking_url, external_id, batch_token, created_at)
      SELECT j.value ->> '$.accountId', j.value ->> '$.orderId', j.value ->> '$.lineId', j.value ->> '$.quantity', j.value ->> '$.carrier',
        j.value ->> '$.trackingNumber', j.value ->> '$.trackingUrl', j.value ->> '$.externalId', ${token}, ${now}
      FROM json_each(${JSON.stringify(shipments)}) AS j WHERE true ORDER BY j.key
      ON CONFLICT (order_line_id, external_id) DO NOTHING`,
    sql`INSERT INTO events (id, account_id, type, data, created_at)
      SELECT ${newEventId}, l.account_id, 'order_line.shipped',
        json_object('order', ${orderRef}, 'line', json_object('id', l.id, 'external_id', l.external_id),
          'shipment', json_object('quantity', sh.quantity, 'carrier', sh.carrier,
            'tracking_number', sh.tracking_number, 'tracking_url', sh.tracking_url)), ${now}
      FROM shipments sh JOIN order_lines l ON l.id = sh.order_line_id JOIN orders o ON o.id = l.order_id
      WHERE sh.order_id IN (SELECT DISTINCT j.value ->> '$.orderId' FROM json_each(${JSON.stringify(shipments)}) AS j)
        AND sh.batch_token = ${token} AND ${hasSubscribers(sql`l.account_id`)}
      ORDER BY sh.id`,
  ];
}
