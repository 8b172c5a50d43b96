// What a routing decision reads: the subject (an order and one of its lines, in the rule language's
// names) and the account's rules, suppliers and the catalogue products the lines could match.
import { and, eq, like, sql, type SQL } from "drizzle-orm";
import { jsonRow, ofAccount, rowMapper, runBatch, type Db, type Row } from "../db";
import { orderLineLogs, orderLines, orders, products, routingRules, suppliers, type Order, type OrderLine, type Supplier } from "../db/schema";
import { shippingAddressOf } from "../orders/orders.service";
import type { RoutingContext } from "./matching";
import type { RoutingSubject } from "./rules.language";

export type LineLike = Pick<
  OrderLine,
  "externalId" | "ean13" | "name" | "reference" | "quantity" | "stockQuantity" | "price" | "purchasePrice" | "brand" | "category" | "supplier" | "custom" | "height" | "width" | "length" | "weight"
>;
export type OrderLike = Pick<
  Order,
  "externalId" | "source" | "test" | "total" | "shippingCost" | "email" | "firstName" | "lastName" | "companyName" | "address1" | "address2" | "postcode" | "city" | "state" | "country" | "phone"
>;

export function subjectOf(order: OrderLike, line: LineLike): RoutingSubject {
  return {
    order: {
      external_id: order.externalId,
      source: order.source,
      test: order.test,
      total: order.total,
      shipping_cost: order.shippingCost,
      email: order.email,
      shipping_address: shippingAddressOf(order),
    },
    line: {
      external_id: line.externalId,
      ean13: line.ean13,
      name: line.name,
      reference: line.reference,
      quantity: line.quantity,
      stock_quantity: line.stockQuantity,
      price: line.price,
      purchase_price: line.purchasePrice,
      brand: line.brand,
      category: line.category,
      supplier: line.supplier,
      custom: line.custom ?? null,
      height: line.height,
      width: line.width,
      length: line.length,
      weight: line.weight,
    },
  };
}

export type ReroutePolicy = { enabled: boolean; maxAttempts: number };

/** The bounds of the per-account cap (suppliers per line, the first one included). */
export const MAX_ATTEMPTS_RANGE = { min: 1, max: 10 } as const;

/**
 * Rules, suppliers and the catalogue products these lines could match, and the account's re-routing
 * settings: one statement (accountContexts). With `orderIds`, the account's orders with those ids
 * come in the same round trip.
 */
export async function loadRoutingContext(
  db: Db,
  accountId: number,
  lines: LineLike[],
  orderIds: number[] = [],
): Promise<AccountContext & { orders: Map<number, Order> }> {
  const eans = [...new Set(lines.map((l) => l.ean13).filter((v): v is string => !!v))];
  const skus = [...new Set(lines.map((l) => l.reference).filter((v): v is string => !!v))];
  // Each set travels as one JSON parameter, whatever the number of lines.
  const [contexts, ...rest] = await runBatch(db, [
    accountContexts(sql`SELECT ${accountId}`, sql`SELECT value FROM json_each(${JSON.stringify(eans)})`, sql`SELECT value FROM json_each(${JSON.stringify(skus)})`),
    ...(orderIds.length
      ? [sql`SELECT * FROM orders WHERE id IN (SELECT value FROM json_each(${JSON.stringify(orderIds)})) AND ${ofAccount("orders", accountId)}`]
      : []),
  ]);
  const orderRows = rest.length ? (rest[0].results as Row[]).map(orderRow) : [];
  return { ...toAccountContext((contexts.results as Row[])[0]), orders: new Map(orderRows.map((o) => [o.id, o])) };
}

/** The log message of an unblock by hand; an order that has one is no longer blocked by rules. */
export const UNBLOCKED_BY_HAND = "Order unblocked";

/** Whether the order was unblocked by hand: one row if it was. */
export const unblockedByHand = (db: Db, orderId: number) =>
  db
    .select({ id: orderLineLogs.id })
    .from(orderLineLogs)
    .where(and(eq(orderLineLogs.orderId, orderId), like(orderLineLogs.message, `${UNBLOCKED_BY_HAND}%`)))
    .limit(1);

/** An order as the pipeline routes it: its lines, whether it was unblocked by hand, its dispatches waiting to be sent. */
export type OrderToRoute = { order: Order; lines: OrderLine[]; unblockedByHand: boolean; queuedDispatchIds: number[] };

/** An account's routing context, with its suppliers' whole rows (what a send needs) and its re-routing settings. */
export type AccountContext = RoutingContext & { policy: ReroutePolicy; supplierRows: Map<number, Supplier> };

const orderRow = rowMapper(orders);
const lineRow = rowMapper(orderLines);
const ruleRow = rowMapper(routingRules);
const supplierRow = rowMapper(suppliers);
const byPosition = (a: OrderLine, b: OrderLine) => a.position - b.position || a.id - b.id;

/**
 * Everything the pipeline needs to route any number of orders (of any accounts), in one round trip of
 * two statements: the orders, each with its lines packed in the same row, and each of their accounts
 * with its rules, suppliers and the catalogue products that the orders' pending lines could match.
 * `countAttempt`: orders whose routing attempts go up by one first (a redelivered message), in the
 * same transaction, before anything can fail.
 */
export async function loadOrdersToRoute(
  db: Db,
  orderIds: number[],
  countAttempt: number[] = [],
): Promise<{ orders: Map<number, OrderToRoute>; accounts: Map<number, AccountContext> }> {
  const ids = JSON.stringify([...new Set(orderIds)]);
  const pendingOf = (column: "ean13" | "reference") =>
    sql`SELECT l.${sql.raw(column)} AS value FROM order_lines l WHERE l.order_id IN (SELECT value FROM json_each(${ids})) AND l.account_id = a.id
        AND l.current_status = 'pending' AND l.${sql.raw(column)} IS NOT NULL`;
  const statements: SQL[] = [
    ...(countAttempt.length
      ? [sql`UPDATE orders SET routing_attempts = routing_attempts + 1 WHERE id IN (SELECT value FROM json_each(${JSON.stringify(countAttempt)})) AND parked_at IS NULL`]
      : []),
    sql`SELECT o.*,
          (SELECT json_group_array(${jsonRow(orderLines, "l")}) FROM order_lines l WHERE l.order_id = o.id) AS lines_json,
          EXISTS (SELECT 1 FROM order_line_logs g WHERE g.order_id = o.id AND g.message LIKE ${`${UNBLOCKED_BY_HAND}%`}) AS unblocked_by_hand,
          (SELECT json_group_array(d.id) FROM dispatches d WHERE d.order_id = o.id AND d.status = 'queued') AS queued_json
        FROM orders o WHERE o.id IN (SELECT value FROM json_each(${ids}))`,
    accountContexts(sql`SELECT o.account_id FROM orders o WHERE o.id IN (SELECT value FROM json_each(${ids}))`, pendingOf("ean13"), pendingOf("reference")),
  ];
  const results = await runBatch(db, statements);
  const [orderRows, accountRows] = results.slice(-2).map((r) => r.results as Row[]);
  const loaded = new Map<number, OrderToRoute>();
  for (const row of orderRows) {
    const order = orderRow(row);
    loaded.set(order.id, {
      order,
      lines: (JSON.parse(row.lines_json as string) as Row[]).map(lineRow).sort(byPosition),
      unblockedByHand: Boolean(row.unblocked_by_hand),
      queuedDispatchIds: JSON.parse(row.queued_json as string) as number[],
    });
  }
  const contexts = new Map(accountRows.map((row) => [row.id as number, toAccountContext(row)]));
  return { orders: loaded, accounts: contexts };
}

/**
 * One row per account of `accountIds` (a query of ids): its re-routing settings, and packed as JSON
 * its active rules, its suppliers, and the catalogue products whose EAN-13 is among `eans` or whose
 * SKU is among `skus` (queries of one column named `value`, which may refer to the account as a.id).
 * One query per column, joined by a UNION: an OR of both would read the account's whole catalogue
 * instead of the two indexes. Each starts from its values (CROSS JOIN keeps that order) and looks
 * each one up in (account_id, ean13) or (account_id, sku): written as `column IN (values)`, SQLite
 * preferred (account_id, id), whose order the UNION's merge wants, and read the whole catalogue.
 */
function accountContexts(accountIds: SQL, eans: SQL, skus: SQL): SQL {
  const candidates = (column: "ean13" | "sku", values: SQL) =>
    sql`SELECT p.id, p.sku, p.ean13, p.purchase_price, p.stock_quantity, f.supplier_id
        FROM (${values}) AS v CROSS JOIN products p JOIN product_feeds f ON f.id = p.product_feed_id
        WHERE p.account_id = a.id AND p.${sql.raw(column)} = v.value AND p.active = 1 AND f.active = 1`;
  return sql`SELECT a.id, a.reroute_enabled, a.reroute_max_attempts,
      (SELECT json_group_array(${jsonRow(routingRules, "r")}) FROM routing_rules r WHERE r.account_id = a.id AND r.active = 1) AS rules_json,
      (SELECT json_group_array(${jsonRow(suppliers, "s")}) FROM suppliers s WHERE s.account_id = a.id) AS suppliers_json,
      (SELECT json_group_array(json_object('productId', c.id, 'sku', c.sku, 'ean13', c.ean13, 'purchasePrice', c.purchase_price,
          'stockQuantity', c.stock_quantity, 'supplierId', c.supplier_id))
        FROM (${candidates("ean13", eans)} UNION ${candidates("sku", skus)}) AS c) AS catalogue_json
    FROM accounts a WHERE a.id IN (${accountIds})`;
}

function toAccountContext(row: Row): AccountContext {
  const supplierRows = (JSON.parse(row.suppliers_json as string) as Row[]).map(supplierRow);
  return {
    rules: (JSON.parse(row.rules_json as string) as Row[]).map(ruleRow).sort((a, b) => a.priority - b.priority || a.id - b.id),
    suppliers: new Map(supplierRows.map((s) => [s.id, { id: s.id, name: s.name, code: s.code, active: s.active, priority: s.priority, channel: s.channel }])),
    supplierRows: new Map(supplierRows.map((s) => [s.id, s])),
    catalogue: (JSON.parse(row.catalogue_json as string) as Row[]).map((c) => ({
      productId: c.productId as number,
      sku: c.sku as string,
      ean13: c.ean13 as string | null,
      purchasePrice: c.purchasePrice === null ? null : (products.purchasePrice.mapFromDriverValue(c.purchasePrice as number) as number),
      stockQuantity: c.stockQuantity as number | null,
      supplierId: c.supplierId as number,
    })),
    policy: { enabled: Boolean(row.reroute_enabled), maxAttempts: row.reroute_max_attempts as number },
  };
}
