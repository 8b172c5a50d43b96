// The one place where event payloads are built: every event's `data`, the JSON the shop's webhooks
// receive, is made here and nowhere else. Callers pass what happened (lines, suppliers, reasons);
// the payload's fields, their names and their order are decided here.
//
// The event outbox: statements that record an event in the same batch as the change it reports,
// so an event exists exactly when its change happened. Events are only recorded for accounts with
// someone to tell: an active webhook subscription, or a shop connection (paused ones too: their
// write-backs wait for them, src/shops/write-backs.ts). The events capability publishes and delivers them.
import { sql, type SQL } from "drizzle-orm";
import type { Actor, EventType } from "../db/schema";

const newEventId = sql`'evt_' || lower(hex(randomblob(12)))`;
const hasSubscribers = (accountId: SQL) =>
  sql`(EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.account_id = ${accountId} AND s.active = 1)
    OR EXISTS (SELECT 1 FROM shop_connections c WHERE c.account_id = ${accountId} AND c.deleted_at IS NULL))`;
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

/**
 * order_line.status_changed for lines split off in this batch (lifecycle.ts splitStatements): the new
 * line's status, previous_status null (it did not exist), its split_from_line_id, and the message of
 * its last log entry.
 */
export function linesSplitEvents(splitsJson: string, token: string, now: string): SQL {
  return sql`INSERT INTO events (id, account_id, type, data, created_at)
    SELECT ${newEventId}, n.account_id, 'order_line.status_changed',
      json_object('order', ${orderRef}, 'line', json_object('id', n.id, 'external_id', n.external_id, 'status', n.current_status,
        'previous_status', NULL, 'split_from_line_id', n.split_from_line_id), 'message', j.value ->> '$.l[#-1].message'), ${now}
    FROM json_each(${splitsJson}) AS j
    JOIN order_lines n ON n.order_id = j.value ->> '$.o' AND n.split_from_line_id = j.value ->> '$.p' AND n.move_token = ${token}
    JOIN orders o ON o.id = n.order_id
    WHERE ${hasSubscribers(sql`n.account_id`)}
    ORDER BY j.key`;
}

/**
 * Which line a line event is about: the line `i` of order `o`, or the line split off `p` in this
 * batch (found by its token `t`). `t` on a line of its own: the event is written only if this batch
 * changed the line (it carries the token); without one it always is.
 */
export type LineRef = { o: number; i?: number; p?: number; t?: string };

/** A supplier as line events name it. */
export type SupplierRef = { id: number; name: string };
const supplierOf = (s: SupplierRef) => ({ id: s.id, name: s.name });

/** A line event's reference with its own fields `d` (built by one of the builders below). */
const entry = (line: LineRef, d: Record<string, unknown>) => ({ o: line.o, i: line.i, p: line.p, t: line.t, d });

/**
 * Events about lines, any number in one statement: `{order, line: {id, external_id, quantity,
 * split_from_line_id}, ...d}` for each entry whose line this batch changed (it carries the entry's
 * token `t` in `gate`; entries without one always apply). A line split off in this batch is found
 * by its parent `p` and token. Every entry's `d` has the same fields in the same order (one builder
 * makes them all): they follow `order` and `line` in that order.
 */
function lineEvents(type: EventType, entries: ReturnType<typeof entry>[], now: string, gate: "move_token" | "deadline_token" = "move_token"): SQL {
  const keys = Object.keys(entries[0]?.d ?? {});
  const fields = sql.raw(keys.map((k) => `, '${k}', json(j.value -> '$.d.${k}')`).join(""));
  const gateColumn = sql.raw(`l.${gate}`);
  return sql`INSERT INTO events (id, account_id, type, data, created_at)
    SELECT ${newEventId}, l.account_id, ${type},
      json_object('order', ${orderRef}, 'line', json_object('id', l.id, 'external_id', l.external_id, 'quantity', l.quantity,
        'split_from_line_id', l.split_from_line_id)${fields}), ${now}
    FROM json_each(${JSON.stringify(entries)}) AS j
    JOIN order_lines l ON l.order_id = j.value ->> '$.o'
      AND (l.id = j.value ->> '$.i' OR (l.split_from_line_id = j.value ->> '$.p' AND l.move_token = j.value ->> '$.t'))
    JOIN orders o ON o.id = l.order_id
    WHERE (j.value ->> '$.t' IS NULL OR ${gateColumn} = j.value ->> '$.t' OR j.value ->> '$.p' IS NOT NULL) AND ${hasSubscribers(sql`l.account_id`)}
    ORDER BY j.key`;
}

/**
 * The message of a retry by hand (POST /orders/{reference}/retry): its order_line.status_changed
 * events (failed to ruled) carry it, and the shop's write-backs know a retry by it (a follow-up note).
 */
export const RETRIED_BY_HAND = "Retry requested: sending again";

/** A line re-routed (or its unconfirmed rest split off to) another supplier. */
export type Rerouted = LineRef & { from: SupplierRef; to: SupplierRef; cause: string; reason: string; attempt: number; maxAttempts: number | null };

/** order_line.rerouted for each line: `{from_supplier, to_supplier, cause, reason, attempt, max_attempts}`. */
export function lineReroutedEvents(lines: Rerouted[], now: string): SQL {
  return lineEvents(
    "order_line.rerouted",
    lines.map((e) =>
      entry(e, { from_supplier: supplierOf(e.from), to_supplier: supplierOf(e.to), cause: e.cause, reason: e.reason, attempt: e.attempt, max_attempts: e.maxAttempts }),
    ),
    now,
  );
}

/** order_line.assigned: the shop sent the line to a supplier by hand (`from`: the one it had, if any). `{from_supplier, to_supplier, by}`. */
export function lineAssignedEvent(line: LineRef, from: SupplierRef | null, to: SupplierRef, by: Actor, now: string): SQL {
  return lineEvents("order_line.assigned", [entry(line, { from_supplier: from && supplierOf(from), to_supplier: supplierOf(to), by })], now);
}

/**
 * order_line.cancellation_confirmed for lines (or parts) the shop cancelled that no supplier had been
 * sent: confirmed at once, by no supplier. `{quantity, reason, supplier: null, confirmed_by: null}`.
 */
export function cancelledUnsentLineEvents(lines: (LineRef & { quantity: number; reason: string | null })[], now: string): SQL {
  return lineEvents(
    "order_line.cancellation_confirmed",
    lines.map((e) => entry(e, { quantity: e.quantity, reason: e.reason, supplier: null, confirmed_by: null })),
    now,
  );
}

/** A supplier's answer to a cancellation (or withdrawal) request, given by `by`. */
export type CancellationAnswer = LineRef & {
  quantity: number;
  reason: string | null;
  supplier: SupplierRef;
  by: "supplier" | "shop" | "shipment";
  purpose: "cancel" | "withdraw";
};

/**
 * order_line.cancellation_confirmed or order_line.cancellation_refused for each answer:
 * `{quantity, reason, supplier, confirmed_by (null when refused), purpose}`.
 */
export function cancellationAnswerEvents(outcome: "confirmed" | "refused", answers: CancellationAnswer[], now: string): SQL {
  return lineEvents(
    outcome === "confirmed" ? "order_line.cancellation_confirmed" : "order_line.cancellation_refused",
    answers.map((e) =>
      entry(e, { quantity: e.quantity, reason: e.reason, supplier: supplierOf(e.supplier), confirmed_by: outcome === "confirmed" ? e.by : null, purpose: e.purpose }),
    ),
    now,
  );
}

/** A line whose supplier missed a deadline. */
export type Overdue = LineRef & { deadline: "acknowledgement" | "shipping"; dueAt: string; supplier: SupplierRef; reroute: boolean };

/** order_line.overdue for each line this batch marked overdue (gated by its deadline_token): `{deadline, due_at, supplier, reroute}`. */
export function lineOverdueEvents(lines: Overdue[], now: string): SQL {
  return lineEvents(
    "order_line.overdue",
    lines.map((e) => entry(e, { deadline: e.deadline, due_at: e.dueAt, supplier: supplierOf(e.supplier), reroute: e.reroute })),
    now,
    "deadline_token",
  );
}

/**
 * order.cancelled: the shop cancelled the whole order or some of its lines; `lines` says what became
 * of each ({id, external_id, quantity, outcome: "cancelled" | "requested"}).
 */
export function orderCancelledEvent(orderId: number, scope: "order" | "lines", reason: string | null, lines: unknown[], now: string): SQL {
  return sql`INSERT INTO events (id, account_id, type, data, created_at)
    SELECT ${newEventId}, o.account_id, 'order.cancelled',
      json_object('order', ${orderRef}, 'scope', ${scope}, 'reason', ${reason}, 'lines', json(${JSON.stringify(lines)})), ${now}
    FROM orders o WHERE o.id = ${orderId} AND ${hasSubscribers(sql`o.account_id`)}`;
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

/**
 * return.<status>: a return (src/returns/) as the batch that changed it left it, with its order, its
 * supplier and its lines (what was asked back, what arrived and in what condition). `returnIds`
 * selects the returns (an id, or a subquery on the request keys within the same batch), one event each.
 */
export function returnEvent(type: EventType & `return.${string}`, returnIds: SQL, now: string): SQL {
  return sql`INSERT INTO events (id, account_id, type, data, created_at)
    SELECT ${newEventId}, r.account_id, ${type},
      json_object('order', ${orderRef}, 'return', json_object('id', r.id, 'status', r.status,
        'supplier', json_object('id', s.id, 'name', s.name), 'rma', r.rma, 'return_address', r.return_address, 'label_url', r.label_url,
        'decline_reason', r.decline_reason, 'customer_tracking', r.customer_tracking,
        'credit', json(CASE WHEN r.credit_amount IS NULL THEN NULL ELSE json_object('amount', r.credit_amount / 10000.0, 'currency', r.credit_currency) END),
        'close_reason', r.close_reason, 'cancel_reason', r.cancel_reason,
        'lines', json((SELECT json_group_array(json_object('line_id', rl.order_line_id, 'external_id', l.external_id, 'name', l.name, 'quantity', rl.quantity,
            'reason', rl.reason, 'received_quantity', rl.received_quantity, 'condition', rl.condition))
          FROM return_lines rl JOIN order_lines l ON l.id = rl.order_line_id WHERE rl.return_id = r.id)))), ${now}
    FROM returns r JOIN orders o ON o.id = r.order_id JOIN suppliers s ON s.id = r.supplier_id
    WHERE r.id IN (${returnIds}) AND ${hasSubscribers(sql`r.account_id`)}
    ORDER BY r.id`;
}
