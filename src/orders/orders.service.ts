// The order domain: creating an order atomically and idempotently, listing and fetching orders.
import { and, asc, eq, getTableColumns, sql, type SQL } from "drizzle-orm";
import { D1_MAX_QUERIES_PER_INVOCATION, rawBatch, rowMapper, toStatement, type Db, type Row } from "../db";
import {
  dispatches,
  orderLines,
  orders,
  suppliers,
  type Dispatch,
  type Order,
  type OrderLine,
  type Channel,
  type OrderLineLog,
} from "../db/schema";
import { orderCreatedEvent } from "../events/outbox";
import { newOrderReference } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import type { Pipeline } from "../lib/queue";
import { numberToUnits } from "../lib/money";
import { toSupplierInvoice, type SupplierInvoiceRow } from "./supplier-invoice";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { isoMicro } from "../lib/time";
import { listQuery, NEWEST_FIRST, plan, sortOrder, type Window } from "./list.query";
import type { CreateOrderInput, ExportOrdersFilters, ListOrdersFilters } from "./orders.schemas";

export type CreateOrderResult = { created: boolean; reference: string; orderId: number };

/**
 * Writes the order, its lines and each line's first log entry in one D1 batch (one transaction).
 * Idempotency lives in the database: the order insert does nothing when (account, external_id)
 * exists, the line and log inserts select through the new reference and so insert nothing then,
 * and the last statement reads whichever order won. Safe under any number of concurrent repeats.
 * A new order is handed to the pipeline for matching without holding up the caller: a lost message
 * is the sweeper's case (routed_at stays null), as a failed one already is.
 */
export async function createOrder(db: Db, pipeline: Pipeline, accountId: number, input: CreateOrderInput, shard = 0): Promise<CreateOrderResult> {
  for (let attempt = 0; ; attempt++) {
    try {
      const result = await insertOrderBatch(db, accountId, input, newOrderReference(shard));
      if (result.created) pipeline.sendAfterResponse([{ type: "route_order", orderId: result.orderId }]);
      return result;
    } catch (error) {
      // A reference collision (13 random digits within the shard's own) is astronomically rare; draw another.
      if (attempt < 3 && /UNIQUE constraint failed: orders\.reference/.test(String(error))) continue;
      throw error;
    }
  }
}

/** What an order stores of a create-order request (explain builds its subject from this too). */
export function orderColumns(input: CreateOrderInput) {
  const address = input.shipping_address;
  return {
    externalId: input.external_id,
    source: input.source,
    test: input.test ?? false,
    total: input.total,
    currency: input.currency ?? null,
    email: input.email ?? address.email ?? null,
    shippingCost: input.shipping?.cost ?? input.shipping_cost ?? null,
    shippingName: input.shipping?.name ?? null,
    shippingDescription: input.shipping?.description ?? null,
    shippingNote: input.shipping?.note ?? null,
    shippingDeliveryDate: input.shipping?.delivery_date ?? null,
    firstName: address.first_name,
    lastName: address.last_name,
    companyName: address.company_name ?? null,
    address1: address.address1,
    address2: address.address2 ?? null,
    postcode: address.postcode,
    city: address.city,
    state: address.state ?? null,
    country: address.country,
    phone: address.phone ?? null,
    custom: input.custom ?? null,
  };
}

/** What a line stores of a product in the request. */
export function lineColumns(line: CreateOrderInput["products"][number]) {
  return {
    externalId: line.external_id,
    name: line.name,
    ean13: line.ean13 ?? null,
    reference: line.reference ?? null,
    quantity: line.quantity,
    stockQuantity: line.stock_quantity ?? null,
    price: line.price,
    purchasePrice: line.purchase_price ?? null,
    brand: line.brand ?? null,
    category: line.category ?? null,
    supplier: line.supplier ?? null,
    imageUrl: line.image_url ?? null,
    custom: line.custom ?? null,
    height: line.height ?? null,
    width: line.width ?? null,
    length: line.length ?? null,
    weight: line.weight ?? null,
  };
}

async function insertOrderBatch(db: Db, accountId: number, input: CreateOrderInput, reference: string) {
  const now = isoMicro();
  const insertOrder = db
    .insert(orders)
    .values({ ...orderColumns(input), accountId, reference, routeRequestedAt: now, createdAt: now, updatedAt: now })
    .onConflictDoNothing({ target: [orders.accountId, orders.externalId] });

  // All lines in one statement, whatever their number: the lines travel as one JSON parameter
  // (far below D1's 100 bound parameters and its statements-per-invocation limit). Raw SQL, so the
  // money columns get their stored form (ten-thousandths) here.
  const lineDocs = input.products.map((p) => {
    const line = lineColumns(p);
    return { ...line, price: numberToUnits(line.price), purchasePrice: line.purchasePrice === null ? null : numberToUnits(line.purchasePrice) };
  });
  const insertLines = sql`
    INSERT INTO order_lines (order_id, account_id, position, external_id, name, ean13, reference, quantity,
      stock_quantity, price, purchase_price, brand, category, supplier, image_url, custom,
      height, width, length, weight, current_status, created_at, updated_at)
    SELECT o.id, o.account_id, j.key, j.value ->> '$.externalId', j.value ->> '$.name', j.value ->> '$.ean13',
      j.value ->> '$.reference', j.value ->> '$.quantity', j.value ->> '$.stockQuantity', j.value ->> '$.price',
      j.value ->> '$.purchasePrice', j.value ->> '$.brand', j.value ->> '$.category', j.value ->> '$.supplier',
      j.value ->> '$.imageUrl', CASE WHEN j.value ->> '$.custom' IS NULL THEN NULL ELSE j.value -> '$.custom' END,
      j.value ->> '$.height', j.value ->> '$.width', j.value ->> '$.length', j.value ->> '$.weight',
      'pending', o.created_at, o.created_at
    FROM orders o, json_each(${JSON.stringify(lineDocs)}) AS j
    WHERE o.reference = ${reference}
    ORDER BY j.key`;

  const insertLogs = sql`
    INSERT INTO order_line_logs (order_line_id, order_id, status, message, created_at)
    SELECT l.id, l.order_id, 'pending', 'Order line created', l.created_at
    FROM orders o JOIN order_lines l ON l.order_id = o.id
    WHERE o.reference = ${reference}
    ORDER BY l.position`;

  // The live order, or the archived one (src/archive: a trigger skips the insert when there is one).
  const winner = sql`SELECT id, reference FROM orders WHERE account_id = ${accountId} AND external_id = ${input.external_id}
    UNION ALL SELECT id, reference FROM archived_orders WHERE account_id = ${accountId} AND external_id = ${input.external_id}`;

  // Raw D1 batch: Drizzle's batch() cannot carry raw INSERT ... SELECT statements.
  const results = await db.$client.batch<{ id: number; reference: string }>(
    [insertOrder, insertLines, insertLogs, orderCreatedEvent(reference, now), winner].map((q) => toStatement(db, q)),
  );
  const [row] = results[results.length - 1].results;
  return { created: row.reference === reference, reference: row.reference, orderId: row.id };
}

// ---- Reads ----------------------------------------------------------------

/** The 409 of a change to an archived order (docs/archive.md, "Late answers"). */
export const archivedConflict = (reference: string) =>
  ApiError.conflict(`Order ${reference} is archived: it was finished (every line final), so it cannot change any more. GET /api/v1/orders/${reference} still reads it.`);

/**
 * The order with this reference in this account; another account's answers exactly like an unknown
 * one; an archived one is a 409 (the callers change the order).
 */
export async function findOrder(db: Db, accountId: number, reference: string): Promise<Order> {
  const order = await db.query.orders.findFirst({ where: and(eq(orders.reference, reference), eq(orders.accountId, accountId)) });
  if (!order) {
    // An archived order (src/archive) was finished: every change to it is refused, as to a final line.
    const [archived] = await rawBatch(db, [sql`SELECT 1 AS one FROM archived_orders WHERE reference = ${reference} AND account_id = ${accountId}`]);
    if (archived.length > 0) throw archivedConflict(reference);
    throw ApiError.notFound(`Order with reference '${reference}' not found`);
  }
  return order;
}

type AddressColumns = Pick<
  Order,
  "email" | "firstName" | "lastName" | "companyName" | "phone" | "address1" | "address2" | "city" | "postcode" | "state" | "country"
>;

/**
 * The shipping address in the contract's field names: what the API shows, what routing rules test
 * (order.shipping_address.<field>) and what suppliers receive.
 */
export function shippingAddressOf(order: AddressColumns) {
  return {
    email: order.email,
    first_name: order.firstName,
    last_name: order.lastName,
    company_name: order.companyName,
    phone: order.phone,
    address1: order.address1,
    address2: order.address2,
    city: order.city,
    postcode: order.postcode,
    state: order.state,
    country: order.country,
  };
}

export type ShipmentJson = {
  id: number;
  quantity: number;
  carrier: string | null;
  tracking_number: string | null;
  tracking_url: string | null;
  created_at: string;
};
/**
 * A line with its supplier's name, its shipments and the channel of the send that carries it (null
 * before one): on the pull and manual channels a completed line was answered, so accepted
 * (src/orders/progress.ts).
 */
export type LineWithSupplier = OrderLine & { supplierName: string | null; shipments: ShipmentJson[]; dispatchChannel: Channel | null };
/** A cancellation of the line that waits for its supplier's answer (the single-order read only). */
export type PendingCancellation = { id: number; quantity: number; supplier_id: number; requested_at: string };

// Rows of the reads are mapped by these (built once per isolate), not by Drizzle's per-field mapping.
const toOrder = rowMapper(orders);
const toOrderLine = rowMapper(orderLines);

const toLine = (row: Row): LineWithSupplier => ({
  ...toOrderLine(row),
  supplierName: row.matched_supplier_name as string | null,
  shipments: JSON.parse(row.shipments_json as string) as ShipmentJson[],
  dispatchChannel: row.dispatch_channel as Channel | null,
});

/** The channel of the line's send: one primary-key read per line. */
const dispatchChannel = sql`(SELECT d.channel FROM dispatches d WHERE d.id = ${orderLines.dispatchId})`;

const shipmentsJson = sql`(SELECT json_group_array(json_object('id', s.id, 'quantity', s.quantity, 'carrier', s.carrier,
        'tracking_number', s.tracking_number, 'tracking_url', s.tracking_url, 'created_at', s.created_at))
        FROM (SELECT * FROM shipments s WHERE s.order_id = ${orderLines.orderId} AND s.order_line_id = ${orderLines.id} ORDER BY s.id) s)`;

const linesWithSupplier = <X extends Record<string, SQL.Aliased>>(db: Db, extra?: X) =>
  db
    // Aliased: D1 answers rows keyed by column name, and suppliers.name would overwrite
    // order_lines.name.
    .select({
      ...(extra as X),
      line: orderLines,
      supplierName: sql<string | null>`${suppliers.name}`.as("matched_supplier_name"),
      // The line's shipments as one JSON array: no extra query per page or per line.
      shipmentsJson: shipmentsJson.as("shipments_json"),
      dispatchChannel: sql<Channel | null>`${dispatchChannel}`.as("dispatch_channel"),
    })
    .from(orderLines)
    .leftJoin(suppliers, eq(suppliers.id, orderLines.matchedSupplierId));

/**
 * An order's lines (position order) with their supplier's name and shipments, as one JSON array
 * per order: the list's page statement carries them, so the page's ids are picked only once.
 */
const linesJson = sql`(SELECT json_group_array(json(line)) FROM (SELECT json_object(${sql.raw(
  Object.values(getTableColumns(orderLines))
    .map((c) => `'${c.name}', order_lines.${c.name}`)
    .join(", "),
)}, 'matched_supplier_name', suppliers.name, 'shipments', json(${shipmentsJson}), 'dispatch_channel', ${dispatchChannel}) AS line
    FROM order_lines LEFT JOIN suppliers ON suppliers.id = order_lines.matched_supplier_id
    WHERE order_lines.order_id = o.id ORDER BY order_lines.position, order_lines.id))`;

const toJsonLine = (row: Row): LineWithSupplier => ({
  ...toOrderLine(row),
  supplierName: row.matched_supplier_name as string | null,
  shipments: row.shipments as ShipmentJson[],
  dispatchChannel: row.dispatch_channel as Channel | null,
});

/** Past this offset, a page of a list whose count is exact and cheap is read from the nearer end. */
const DEEP_OFFSET = 1000;

/**
 * The count and one page of the account's orders, newest first, with the page's lines. The SQL
 * (list.query.ts) reads the count from counters and the page's ids from an index, about a page's
 * worth; one round trip after authentication, two when several filters combine (their counts pick
 * the index to read) or the page is deep (the count picks the nearer end). `alongside`: one value of
 * the caller's own (a scalar subquery: the console's supplier choices) selected beside the count,
 * so that it costs neither a statement nor a round trip of its own (one statement when the filters
 * can match nothing and the list reads nothing); answered as read, null without one.
 */
export async function listOrders(db: Db, accountId: number, filters: ListOrdersFilters, page: PageRequest, alongside?: SQL) {
  const extra = alongside ? sql`, ${alongside} AS alongside` : sql``;
  const besides = (row: Row | undefined) => (alongside ? (row?.alongside ?? null) : null);
  const query = listQuery(accountId, filters);
  const chosen = plan(query);
  if (chosen.kind === "empty") {
    const read = alongside ? (await rawBatch(db, [sql`SELECT ${alongside} AS alongside`]))[0][0] : undefined;
    return { total: 0, orders: [], lines: [], alongside: besides(read) };
  }
  let count: SQL;
  let pageOf: (w: Window) => SQL;
  if (chosen.kind === "combined") {
    const [[row]] = await rawBatch(db, [chosen.counts]);
    ({ count, page: pageOf } = chosen.choose(Object.values(row).map(Number)));
  } else {
    ({ count, page: pageOf } = chosen);
  }
  const offset = offsetOf(page);
  // The sort's own direction ("newest": descending), flipped below for a deep page.
  const direction = query.sort.descending ? "newest" : "oldest";
  let window: Window = { limit: page.perPage, offset, direction };
  let known: Row | null = null;
  if (chosen.kind === "direct" && chosen.countIsConstant && offset >= DEEP_OFFSET) {
    [[known]] = await rawBatch(db, [sql`SELECT ${count} AS total${extra}`]);
    const total = Number(known.total);
    if (offset * 2 + page.perPage > total) {
      // Past the middle: the same rows, counted from the oldest end.
      const end = total - offset;
      if (end <= 0) return { total, orders: [], lines: [], alongside: besides(known) };
      const start = Math.max(0, end - page.perPage);
      window = { limit: end - start, offset: start, direction: direction === "newest" ? "oldest" : "newest" };
    }
  }
  const results = await rawBatch(db, [
    ...(known === null ? [sql`SELECT ${count} AS total${extra}`] : []),
    pageWithLines(pageOf(window), sortOrder(query.sort.by, direction, sql`o.`)),
  ]);
  const counted = known ?? results[0][0];
  return { total: Number(counted?.total ?? 0), ...ordersOf(results[results.length - 1]), alongside: besides(counted) };
}

/**
 * The live list's parts as SQL, for a caller that merges them with another source in one statement
 * (archived=include: src/archive/list.ts): the count, and the ids (created_at, id) of a window in
 * the sort. One round trip when several filters combine (their counts pick the index); null when
 * the filters can match nothing.
 */
export async function liveListParts(db: Db, accountId: number, filters: ListOrdersFilters): Promise<{ count: SQL; page: (w: Window) => SQL } | null> {
  const chosen = plan(listQuery(accountId, filters));
  if (chosen.kind === "empty") return null;
  if (chosen.kind === "direct") return chosen;
  const [[row]] = await rawBatch(db, [chosen.counts]);
  return chosen.choose(Object.values(row).map(Number));
}

/** The orders with these ids (a statement selecting `id`), each with its lines, in `order` (sortOrder over `o.`). */
export const ordersWithLines = (ids: SQL, order: SQL) => pageWithLines(ids, order);
/** The rows of ordersWithLines as orders and their lines. */
export const ordersWithLinesOf = (rows: Row[]) => ordersOf(rows);

/** A page's orders (its ids from `page`) with their lines as one JSON array each, in `order`. */
const pageWithLines = (page: SQL, order: SQL) =>
  sql`WITH page AS (${page}) SELECT o.*, ${linesJson} AS lines_json FROM page CROSS JOIN orders o ON o.id = page.id ${order}`;

const ordersOf = (rows: Row[]) => ({
  orders: rows.map(toOrder),
  lines: rows.flatMap((row) => (JSON.parse(row.lines_json as string) as Row[]).map(toJsonLine)),
});

type Cursor = { createdAt: string; id: number };

/** Orders per statement of an export: the API's largest page first, doubling up to EXPORT_MAX_CHUNK. */
export const EXPORT_CHUNK = 100;
export const EXPORT_MAX_CHUNK = 1000;
/** D1's statements per invocation, less what authentication and the stream's start may take. */
const EXPORT_MAX_STATEMENTS = D1_MAX_QUERIES_PER_INVOCATION - 100;

/**
 * Every order the list's filters match, newest first, in chunks with their lines, read one chunk
 * at a time as the caller asks (an export streams them). Keyset pagination: each chunk is the
 * list's own page read (the same plan and indexes) with created_at bounded by the last order sent,
 * so a chunk costs what a list page of its size costs however far the export has come; the orders
 * of that last instant already sent (ties, by id) are skipped. Orders created during the export
 * are newer than its first chunk and not in it. Chunks grow from 100 to 1,000 orders, so that D1's
 * 1,000 statements per invocation carry some 900,000 orders (450,000 with several filters, which
 * read their counts first); past that the stream fails (the download breaks off) rather than end short.
 */
export async function* exportOrders(db: Db, accountId: number, filters: ExportOrdersFilters): AsyncGenerator<{ orders: Order[]; lines: LineWithSupplier[] }> {
  const base = listQuery(accountId, { ...filters, sort: NEWEST_FIRST, per_page: EXPORT_CHUNK });
  let last: Cursor | null = null;
  // Orders of the last instant already sent: the next read starts at that instant.
  let sentAtLast = 0;
  let chunk = EXPORT_CHUNK;
  let statements = 0;
  for (;; chunk = Math.min(chunk * 2, EXPORT_MAX_CHUNK)) {
    const to = last === null ? base.to : base.to !== null && base.to < last.createdAt ? base.to : last.createdAt;
    const chosen = plan({ ...base, to, empty: base.empty || (base.from !== null && to !== null && base.from > to) });
    if (chosen.kind === "empty") return;
    statements += chosen.kind === "combined" ? 2 : 1;
    if (statements > EXPORT_MAX_STATEMENTS) throw new Error(`export_too_large: more orders than one export reads within D1's ${D1_MAX_QUERIES_PER_INVOCATION} statements`);
    let pageOf = chosen.kind === "direct" ? chosen.page : null;
    if (chosen.kind === "combined") {
      const [[row]] = await rawBatch(db, [chosen.counts]);
      pageOf = chosen.choose(Object.values(row).map(Number)).page;
    }
    const window: Window = { limit: chunk + sentAtLast, offset: 0, direction: "newest" };
    const [rows] = await rawBatch(db, [pageWithLines(pageOf!(window), sortOrder("created", "newest", sql`o.`))]);
    const read = ordersOf(rows);
    const at: Cursor | null = last;
    const fresh: Order[] = read.orders.filter((o) => at === null || o.createdAt < at.createdAt || o.id < at.id);
    if (fresh.length > 0) {
      const ids = new Set(fresh.map((o) => o.id));
      yield { orders: fresh, lines: read.lines.filter((l) => ids.has(l.orderId)) };
      const end: Order = fresh[fresh.length - 1];
      const atEnd = fresh.filter((o) => o.createdAt === end.createdAt).length;
      sentAtLast = end.createdAt === at?.createdAt ? sentAtLast + atEnd : atEnd;
      last = { createdAt: end.createdAt, id: end.id };
    }
    if (read.orders.length < window.limit) return;
  }
}

export type DispatchWithSupplier = Dispatch & { supplierName: string };

const toDispatch = rowMapper(dispatches);

/**
 * One round trip of two statements: the order, and its lines with their supplier, shipments and
 * logs (oldest first; each line's logs as one JSON array, like its shipments). With `dispatches`,
 * a third statement in the same round trip: the order's sends to its suppliers (the console's
 * order page shows them beside the lines). `alongside`: statements of the caller's own (each
 * bound to this account and reference) read in the same round trip, their rows answered as read.
 */
export async function getOrder(db: Db, accountId: number, reference: string, options: { dispatches?: boolean; alongside?: SQL[] } = {}) {
  const byReference = and(eq(orders.reference, reference), eq(orders.accountId, accountId));
  const orderId = db.select({ id: orders.id }).from(orders).where(byReference);
  const alongside = options.alongside ?? [];
  const results = await rawBatch(db, [
    db.select().from(orders).where(byReference),
    linesWithSupplier(db, {
      logsJson: sql<string>`(SELECT json_group_array(json_object('id', g.id, 'status', g.status, 'message', g.message, 'created_at', g.created_at))
        FROM (SELECT * FROM order_line_logs g WHERE g.order_id = ${orderLines.orderId} AND g.order_line_id = ${orderLines.id} ORDER BY g.id) g)`.as("logs_json"),
      // The cancellation the line waits on (src/orders/cancellations.service.ts), if any.
      cancellationJson: sql<string | null>`(SELECT json_object('id', c.cancellation_id, 'quantity', c.quantity, 'supplier_id', c.supplier_id,
          'requested_at', c.created_at) FROM cancellation_lines c
        WHERE c.order_line_id = ${orderLines.id} AND c.status = 'requested' AND c.purpose = 'cancel' LIMIT 1)`.as("cancellation_json"),
      // The supplier's newest invoice of the line (an 810: src/forwarding/x12/answers.ts), if any.
      invoiceJson: sql<string | null>`(SELECT json_object('invoice_number', i.invoice_number, 'quantity', i.quantity, 'unit_price', i.unit_price,
          'expected_unit_price', i.expected_unit_price, 'invoiced_at', i.created_at, 'currency', i.currency, 'charges', json(i.charges),
          'invoice_charges', json(i.invoice_charges), 'order_currency', (SELECT coalesce(o.currency, a.currency) FROM orders o JOIN accounts a ON a.id = o.account_id
          WHERE o.id = ${orderLines.orderId})) FROM supplier_invoice_lines i
        WHERE i.line_id = ${orderLines.id} ORDER BY i.id DESC LIMIT 1)`.as("invoice_json"),
    })
      .where(eq(orderLines.orderId, orderId))
      .orderBy(asc(orderLines.position), asc(orderLines.id)),
    ...(options.dispatches
      ? [
          db
            .select({ dispatch: dispatches, supplierName: sql<string>`${suppliers.name}`.as("dispatch_supplier_name") })
            .from(dispatches)
            .innerJoin(suppliers, eq(suppliers.id, dispatches.supplierId))
            .where(eq(dispatches.orderId, orderId))
            .orderBy(asc(dispatches.id)),
        ]
      : []),
    ...alongside,
  ]);
  const [orderRows, lineRows] = results;
  const dispatchRows = options.dispatches ? results[2] : [];
  // Another account's reference answers exactly like an unknown one.
  if (!orderRows[0]) throw ApiError.notFound(`Order with reference '${reference}' not found`);
  const order = toOrder(orderRows[0]);
  const lines = lineRows.map((row) => ({
    ...toLine(row),
    pendingCancellation: row.cancellation_json ? (JSON.parse(row.cancellation_json as string) as PendingCancellation) : null,
    supplierInvoice: row.invoice_json ? toSupplierInvoice(JSON.parse(row.invoice_json as string) as SupplierInvoiceRow) : null,
  }));
  const logs: OrderLineLog[] = [];
  lineRows.forEach((row, i) => {
    const entries = JSON.parse(row.logs_json as string) as { id: number; status: OrderLineLog["status"]; message: string; created_at: string }[];
    for (const e of entries) {
      logs.push({ id: e.id, orderLineId: lines[i].id, orderId: order.id, status: e.status, message: e.message, createdAt: e.created_at });
    }
  });
  const sends: DispatchWithSupplier[] = dispatchRows.map((row) => ({ ...toDispatch(row), supplierName: row.dispatch_supplier_name as string }));
  return { order, lines, logs, dispatches: sends, alongside: results.slice(results.length - alongside.length) };
}

export type OrderDetail = Awaited<ReturnType<typeof getOrder>>;

/** Why a blocked order is blocked: the newest block entry of its logs (a rule's or a person's). */
export function blockReasonOf(logs: Pick<OrderLineLog, "message" | "id">[]): string | null {
  let found: Pick<OrderLineLog, "message" | "id"> | null = null;
  for (const log of logs) if (log.message.startsWith("Order blocked") && (!found || log.id > found.id)) found = log;
  return found?.message ?? null;
}

export type { Order };
