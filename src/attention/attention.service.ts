// "Needs attention": everything of an account that waits for a person, newest first, with counts.
// A read model across capabilities (orders, forwarding, events, shops, catalogue), answered in one
// round trip of twelve statements, each a count (a window over the matches) and its five newest items.
// Failures with a cause outside (a supplier's webhook, the shop's endpoint, the shop's API) are one
// item per cause, not per order: the cause said in words by the adapter that met it, the orders it
// affects counted and the newest five listed. An item set aside (dismissed or snoozed, ./set-aside.ts)
// is left out by each statement itself, so counts and pages stay right.
import { sql, type SQL } from "drizzle-orm";
import { toStatement, type Db, type Row } from "../db";
import type { AttemptRecord, LineStatus, ShopPlatformName, Supplier } from "../db/schema";
import { explainDeliveryFailure, FAILING_DELIVERY } from "../events/delivery.service";
import { channelFor, channelsStarting, isChannel } from "../forwarding/channels";
import { isoMicro } from "../lib/time";
import { restWaits } from "../orders/lifecycle";
import type { ShopFailure } from "../shops/platforms/explain";
import type { ShopErrorKind } from "../shops/platforms/http";
import { platformFor } from "../shops/platforms/index";
import { FAILING_WRITE_BACK } from "../shops/write-backs";
import { waitingReturnsStatement, type WaitingReturn } from "../returns/waiting";
import { notSetAside } from "./set-aside";

/** A line still pending this long after it became pending did not match: someone must look. */
export const PENDING_AFTER_MS = 15 * 60 * 1000;
/** A pulled order the supplier has not fetched for this long is overdue. */
export const PICKUP_OVERDUE_MS = 24 * 60 * 60 * 1000;
const SHOWN = 5;

export type LineItem = {
  /** The item's key for setting it aside (./set-aside.ts). */
  key: string;
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

/** The answer behind a cause: the call that failed, its status and what came back, kept as they were. */
export type RawAnswer = { call: string | null; status: number | null; answer: string | null };

/**
 * One cause of failures (a supplier's endpoint refusing with one status, a shop refusing our
 * credentials): what it means in words, the answer behind it, how many it affects and the newest
 * ones (at most five). `count` counts the failures (lines, deliveries, write-backs); `orders` the
 * distinct orders among them.
 */
export type Cause<T> = { key: string; latest: string; words: string; raw: RawAnswer | null; count: number; orders: number; items: T[] };

export type FailedSends = Cause<Omit<LineItem, "key">> & { supplierId: number | null; supplierName: string | null };
export type FailingDeliveries = Cause<{ deliveryId: number; reference: string | null; eventType: string; status: string; since: string }> & { subscriptionId: number; url: string };
export type FailingWriteBacks = Cause<{ writeBackId: number; reference: string; externalId: string; kind: string; status: string; since: string }> & { connectionName: string };

export type Attention = {
  blocked: Group<{ key: string; reference: string; externalId: string; createdAt: string; reason: string | null }>;
  pending: Group<LineItem>;
  /** Failed sends, one item per supplier and cause. */
  failed: Group<FailedSends>;
  answered: Group<LineItem>;
  overduePickups: Group<{ key: string; reference: string; supplierName: string; dispatchId: number; createdAt: string }>;
  /** Lines whose supplier let a deadline pass (src/forwarding/deadlines.ts), until it answers or ships. */
  overdue: Group<LineItem & { deadline: "acknowledgement" | "shipping" }>;
  /** Cancellations a person must carry to the supplier (manual channel), or that could not be sent. */
  cancellations: Group<{
    key: string;
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
  /** Failing webhook deliveries, one item per endpoint and cause. */
  webhooks: Group<FailingDeliveries>;
  /** Write-backs into the shop parked after their last attempt, or waiting for a retry: one item per connection and cause. */
  shops: Group<FailingWriteBacks>;
  imports: Group<{ key: string; feedId: number; feedName: string; importId: number; status: string; rejected: number; error: string | null; startedAt: string }>;
  /** Lines a supplier invoiced (an X12 810) at another unit price than the purchase price we expected, or in another currency than the order's. */
  invoices: Group<{
    key: string;
    reference: string;
    lineId: number;
    lineName: string;
    supplierName: string;
    invoiceNumber: string;
    unitPrice: number;
    /** Null: none was known (listed for its currency only). */
    expectedUnitPrice: number | null;
    currency: string | null;
    /** The invoice's own (CUR02), null when it names none. */
    invoiceCurrency: string | null;
    createdAt: string;
  }>;
  /** Returns whose supplier owes an answer longer than its returns.answer_within_hours (src/returns/waiting.ts). */
  returns: Group<WaitingReturn>;
};

const lastLog = sql`(SELECT g.message FROM order_line_logs g WHERE g.order_id = l.order_id AND g.order_line_id = l.id ORDER BY g.id DESC LIMIT 1)`;

/**
 * Lines of live (not test, not blocked) orders in these states, newest change first. A partly
 * confirmed line is listed only while its rest waits for a person: once the rest went on (sent to a
 * supplier, re-routed) or was cancelled, its supplier delivers what it confirmed and nothing waits.
 */
const lines = (accountId: number, now: string, statuses: LineStatus[], before?: string) => sql`
  SELECT count(*) OVER () AS total, 'line:' || l.id AS item_key, o.reference, o.external_id, l.id AS line_id, l.name AS line_name, l.current_status AS status, l.matched_supplier_id, l.quantity, l.confirmed_quantity, l.updated_at AS since, ${lastLog} AS reason
    FROM order_lines l JOIN orders o ON o.id = l.order_id
    WHERE l.account_id = ${accountId} AND l.current_status IN (${sql.join(statuses.map((s) => sql`${s}`), sql`, `)})
      AND (l.current_status <> 'partially_completed' OR ${restWaits("l")})
      AND o.test = 0 AND o.blocked = 0 ${before ? sql`AND l.updated_at < ${before}` : sql``}
      AND ${notSetAside(accountId, now, sql`'line:' || l.id`, sql`l.updated_at`)}
  ORDER BY since DESC, line_id DESC LIMIT ${SHOWN}`;

/**
 * Causes over `failures` (a query with the columns cause, reference, since and the items' own), the
 * newest SHOWN causes not set aside, each with its count, its distinct orders and its newest SHOWN
 * items: at most SHOWN x SHOWN rows, whatever the number of failures.
 */
const causes = (accountId: number, now: string, failures: SQL) => sql`
  WITH f AS (${failures}),
  groups AS (SELECT cause, count(*) AS n, count(DISTINCT reference) AS orders, max(since) AS latest FROM f GROUP BY cause),
  shown AS (SELECT groups.*, count(*) OVER () AS total FROM groups WHERE ${notSetAside(accountId, now, sql`groups.cause`, sql`groups.latest`)}
    ORDER BY latest DESC, cause LIMIT ${SHOWN}),
  items AS (SELECT f.*, row_number() OVER (PARTITION BY f.cause ORDER BY f.since DESC, f.item_id DESC) AS rn FROM f WHERE f.cause IN (SELECT cause FROM shown))
  SELECT shown.n AS cause_count, shown.orders AS cause_orders, shown.latest AS cause_latest, shown.total, items.*
  FROM shown JOIN items ON items.cause = shown.cause WHERE items.rn <= ${SHOWN}
  ORDER BY shown.latest DESC, shown.cause, items.rn`;

export async function needsAttention(db: Db, accountId: number, now = new Date()): Promise<Attention> {
  const at = isoMicro(now);
  const statements: SQL[] = [
    sql`SELECT count(*) OVER () AS total, 'blocked:' || o.reference AS item_key, o.reference, o.external_id, o.created_at,
          (SELECT g.message FROM order_line_logs g WHERE g.order_id = o.id AND g.message LIKE 'Order blocked%' ORDER BY g.id DESC LIMIT 1) AS reason
        FROM orders o WHERE o.account_id = ${accountId} AND o.test = 0 AND o.blocked = 1
          AND ${notSetAside(accountId, at, sql`'blocked:' || o.reference`, sql`o.updated_at`)}
        ORDER BY o.created_at DESC, o.id DESC LIMIT ${SHOWN}`,
    lines(accountId, at, ["pending"], isoMicro(new Date(now.getTime() - PENDING_AFTER_MS))),
    // A failed line's cause: its dispatch's supplier and the last attempt's outcome and status.
    causes(
      accountId,
      at,
      sql`SELECT 'send:' || coalesce(d.supplier_id, 0) || ':' || coalesce(d.attempt_log ->> '$[#-1].outcome', 'unknown') || ':' || coalesce(d.attempt_log ->> '$[#-1].http_status', '') AS cause,
          l.id AS item_id, o.reference, o.external_id, l.id AS line_id, l.name AS line_name, l.current_status AS status, l.matched_supplier_id, l.quantity, l.confirmed_quantity, l.updated_at AS since, ${lastLog} AS reason,
          d.supplier_id, s.name AS supplier_name, s.channel AS supplier_channel, d.attempt_log -> '$[#-1]' AS last_attempt
        FROM order_lines l JOIN orders o ON o.id = l.order_id LEFT JOIN dispatches d ON d.id = l.dispatch_id LEFT JOIN suppliers s ON s.id = d.supplier_id
        WHERE l.account_id = ${accountId} AND l.current_status = 'failed' AND o.test = 0 AND o.blocked = 0`,
    ),
    lines(accountId, at, ["declined", "partially_completed"]),
    sql`SELECT count(*) OVER () AS total, 'pickup:' || d.id AS item_key, o.reference, s.name AS supplier_name, d.id AS dispatch_id, d.created_at
        FROM dispatches d JOIN suppliers s ON s.id = d.supplier_id JOIN orders o ON o.id = d.order_id
        WHERE d.supplier_id IN (SELECT id FROM suppliers WHERE account_id = ${accountId}) AND d.status = 'awaiting_pickup'
          AND d.created_at < ${isoMicro(new Date(now.getTime() - PICKUP_OVERDUE_MS))}
          AND ${notSetAside(accountId, at, sql`'pickup:' || d.id`, sql`d.created_at`)}
        ORDER BY dispatch_id DESC LIMIT ${SHOWN}`,
    sql`SELECT count(*) OVER () AS total, 'overdue:' || l.id AS item_key, o.reference, o.external_id, l.id AS line_id, l.name AS line_name, l.current_status AS status, l.matched_supplier_id, l.quantity, l.confirmed_quantity, l.overdue_at AS since, l.overdue_deadline AS deadline,
          ${lastLog} AS reason
        FROM order_lines l JOIN orders o ON o.id = l.order_id
        WHERE l.account_id = ${accountId} AND l.overdue_at IS NOT NULL AND l.current_status IN ('ruled', 'completed', 'partially_completed') AND o.test = 0
          AND ${notSetAside(accountId, at, sql`'overdue:' || l.id`, sql`l.overdue_at`)}
        ORDER BY since DESC, line_id DESC LIMIT ${SHOWN}`,
    sql`SELECT count(*) OVER () AS total, 'cancellation:' || c.id AS item_key, o.reference, s.name AS supplier_name, c.id AS cancellation_id, c.purpose, c.status, c.channel, c.last_error, c.created_at,
          (SELECT count(*) FROM cancellation_lines cl WHERE cl.cancellation_id = c.id AND cl.status = 'requested') AS open_lines
        FROM cancellations c JOIN suppliers s ON s.id = c.supplier_id JOIN orders o ON o.id = c.order_id
        WHERE c.account_id = ${accountId} AND (c.status = 'failed' OR (c.status = 'requested' AND c.channel IN (${sql.join(channelsStarting("manual").map((ch) => sql`${ch}`), sql`, `)})))
          AND ${notSetAside(accountId, at, sql`'cancellation:' || c.id`, sql`c.updated_at`)}
        ORDER BY cancellation_id DESC LIMIT ${SHOWN}`,
    // Failing (given up, or waiting for a retry after a failed attempt), by endpoint and what it answered.
    causes(
      accountId,
      at,
      sql`SELECT 'webhook:' || d.subscription_id || ':' || coalesce(d.last_status_code, CASE WHEN d.last_error LIKE 'Timed out%' THEN 'timeout' ELSE 'network' END) AS cause,
          d.id AS item_id, d.id AS delivery_id, d.subscription_id, w.url, e.type AS event_type, d.status, d.last_status_code, d.last_error, d.updated_at AS since,
          e.data ->> '$.order.reference' AS reference
        FROM webhook_deliveries d JOIN webhook_subscriptions w ON w.id = d.subscription_id JOIN events e ON e.id = d.event_id
        WHERE d.account_id = ${accountId} AND ${FAILING_DELIVERY}`,
    ),
    causes(
      accountId,
      at,
      sql`SELECT 'shop:' || w.connection_id || ':' || coalesce(w.last_failure ->> '$.kind', 'other') || ':' || coalesce(w.last_failure ->> '$.status', '') AS cause,
          w.id AS item_id, w.id AS write_back_id, o.reference, o.external_id, c.name AS connection_name, c.platform, w.kind, w.status, w.last_error, w.last_failure, w.updated_at AS since
        FROM shop_write_backs w JOIN shop_connections c ON c.id = w.connection_id JOIN orders o ON o.id = w.order_id
        WHERE w.account_id = ${accountId} AND ${FAILING_WRITE_BACK}`,
    ),
    // Each feed's latest import, when it failed or rejected rows (a later good import settles it).
    sql`SELECT count(*) OVER () AS total, 'feed:' || f.id AS item_key, f.id AS feed_id, f.name AS feed_name, i.id AS import_id, i.status, i.rows_rejected AS rejected, i.error, i.started_at
        FROM product_feeds f JOIN product_imports i ON i.id = (SELECT max(id) FROM product_imports WHERE product_feed_id = f.id)
        WHERE f.account_id = ${accountId} AND (i.status = 'failed' OR i.rows_rejected > 0)
          AND ${notSetAside(accountId, at, sql`'feed:' || f.id`, sql`i.started_at`)}
        ORDER BY import_id DESC LIMIT ${SHOWN}`,
    // Money columns are ten-thousandths (src/db/schema/columns.ts): read as amounts here.
    sql`SELECT count(*) OVER () AS total, 'invoice:' || i.id AS item_key, o.reference, l.id AS line_id, l.name AS line_name, s.name AS supplier_name, i.invoice_number,
          i.unit_price / 10000.0 AS unit_price, i.expected_unit_price / 10000.0 AS expected_unit_price, o.currency, i.currency AS invoice_currency, i.created_at
        FROM supplier_invoice_lines i JOIN order_lines l ON l.id = i.line_id JOIN orders o ON o.id = l.order_id JOIN suppliers s ON s.id = i.supplier_id
          JOIN accounts a ON a.id = o.account_id
        WHERE i.account_id = ${accountId} AND o.test = 0
          AND ((i.expected_unit_price IS NOT NULL AND i.unit_price <> i.expected_unit_price) OR (i.currency IS NOT NULL AND i.currency <> coalesce(o.currency, a.currency)))
          AND ${notSetAside(accountId, at, sql`'invoice:' || i.id`, sql`i.created_at`)}
        ORDER BY i.id DESC LIMIT ${SHOWN}`,
    waitingReturnsStatement(accountId, at, SHOWN, (key, latest) => notSetAside(accountId, at, key, latest)),
  ];
  const results = await db.$client.batch<Row>(statements.map((s) => toStatement(db, s)));
  const [blocked, pending, failed, answered, pickups, overdue, cancellations, webhooks, shops, imports, invoices, returns] = results.map((r) => r.results);
  return {
    blocked: group(blocked),
    pending: group(pending),
    failed: causeGroup(failed, failedSends),
    answered: group(answered),
    overduePickups: group(pickups),
    overdue: group(overdue),
    cancellations: group(cancellations),
    webhooks: causeGroup(webhooks, failingDeliveries),
    shops: causeGroup(shops, failingWriteBacks),
    imports: group(imports),
    invoices: group(invoices),
    returns: group(returns),
  };
}

/** A row's snake_case columns as camelCase fields (item_key as key), the window's columns left out. */
function fields<T>(row: Row, leave: string[] = []): T {
  return Object.fromEntries(
    Object.entries(row)
      .filter(([k]) => k !== "total" && !leave.includes(k))
      .map(([k, v]) => [k === "item_key" ? "key" : k.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()), v]),
  ) as T;
}

/** A statement's rows as items with the window's count. */
function group<T>(rows: Row[]): Group<T> {
  return { count: Number(rows[0]?.total ?? 0), items: rows.map((row) => fields<T>(row)) };
}

/** The rows of a `causes` statement (several per cause, newest cause first) as causes, each made by `make` from its rows. */
function causeGroup<T>(rows: Row[], make: (rows: Row[]) => T): Group<T> {
  const byCause = new Map<string, Row[]>();
  for (const row of rows) {
    const list = byCause.get(String(row.cause)) ?? [];
    list.push(row);
    byCause.set(String(row.cause), list);
  }
  return { count: Number(rows[0]?.total ?? 0), items: [...byCause.values()].map(make) };
}

const CAUSE_COLUMNS = ["cause", "cause_count", "cause_orders", "cause_latest", "rn", "item_id"];

function causeOf<T>(rows: Row[], words: string, raw: RawAnswer | null, leave: string[]): Cause<T> {
  const first = rows[0]!;
  return {
    key: String(first.cause),
    latest: String(first.cause_latest),
    words,
    raw,
    count: Number(first.cause_count),
    orders: Number(first.cause_orders),
    items: rows.map((r) => fields<T>(r, [...CAUSE_COLUMNS, ...leave])),
  };
}

/** Failed lines of one supplier and cause, said by the supplier's channel (the newest failure's record). */
function failedSends(rows: Row[]): FailedSends {
  const first = rows[0]!;
  const record = first.last_attempt ? (JSON.parse(String(first.last_attempt)) as AttemptRecord) : null;
  const supplierName = (first.supplier_name as string | null) ?? null;
  const explain = isChannel(first.supplier_channel) ? channelFor(first.supplier_channel).explainFailure : undefined;
  const words =
    record && supplierName && explain
      ? explain(record, supplierName)
      : `Sending to ${supplierName ? `supplier ${supplierName}` : "the supplier"} failed: ${String(first.reason ?? "no reason recorded")}`;
  const raw: RawAnswer | null = record ? { call: record.to ? `POST ${record.to}` : null, status: record.http_status, answer: record.response } : null;
  const leave = ["supplier_id", "supplier_name", "supplier_channel", "last_attempt"];
  return { ...causeOf<Omit<LineItem, "key">>(rows, words, raw, leave), supplierId: (first.supplier_id as number | null) ?? null, supplierName };
}

/** Failing deliveries to one endpoint with one cause, said in words. */
function failingDeliveries(rows: Row[]): FailingDeliveries {
  const first = rows[0]!;
  const status = (first.last_status_code as number | null) ?? null;
  const error = (first.last_error as string | null) ?? null;
  const words = explainDeliveryFailure(String(first.url), status, error);
  const leave = ["subscription_id", "url", "last_status_code", "last_error"];
  return {
    ...causeOf(rows, words, { call: `POST ${String(first.url)}`, status, answer: error }, leave),
    subscriptionId: Number(first.subscription_id),
    url: String(first.url),
  };
}

/** Failing write-backs of one connection with one cause, said by its platform's adapter (the newest failure's facts). */
function failingWriteBacks(rows: Row[]): FailingWriteBacks {
  const first = rows[0]!;
  const message = String(first.last_error ?? "");
  const facts = first.last_failure ? (JSON.parse(String(first.last_failure)) as Omit<ShopFailure, "message"> & { kind: ShopErrorKind }) : null;
  // Failures recorded before their facts were kept are said as they were recorded.
  const words = facts ? platformFor(first.platform as ShopPlatformName).explainFailure({ ...facts, message }, { externalId: String(first.external_id) }) : message;
  const raw: RawAnswer = facts ? { call: facts.call, status: facts.status, answer: facts.answer ?? message } : { call: null, status: null, answer: message };
  const leave = ["connection_name", "platform", "last_error", "last_failure"];
  return { ...causeOf(rows, words, raw, leave), connectionName: String(first.connection_name) };
}
