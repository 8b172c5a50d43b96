// What a routing decision reads: the subject (an order and one of its lines, in the rule language's
// names) and the account's rules, suppliers and the catalogue products the lines could match.
import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db";
import { accounts, orders, productFeeds, products, routingRules, suppliers, type Order, type OrderLine } from "../db/schema";
import { shippingAddressOf } from "../orders/orders.service";
import type { CatalogueCandidate, RoutingContext, SupplierRef } from "./matching";
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

/**
 * Rules, suppliers and the catalogue products these lines could match: one round trip. With
 * `orderIds`, the account's orders with those ids come in the same round trip; with `policy`, its
 * re-routing settings.
 */
export async function loadRoutingContext(
  db: Db,
  accountId: number,
  lines: LineLike[],
  orderIds: number[] = [],
  options: { policy?: boolean } = {},
): Promise<RoutingContext & { orders: Map<number, Order>; policy?: ReroutePolicy }> {
  const eans = [...new Set(lines.map((l) => l.ean13).filter((v): v is string => !!v))];
  const skus = [...new Set(lines.map((l) => l.reference).filter((v): v is string => !!v))];
  // One query per column (in the same batch): with an OR of both lists SQLite reads every
  // product of the account through products_account_id_idx instead of the ean13 / sku indexes.
  const catalogueQuery = (match: SQL) =>
    db
      .select({
        productId: products.id,
        sku: products.sku,
        ean13: products.ean13,
        purchasePrice: products.purchasePrice,
        stockQuantity: products.stockQuantity,
        supplierId: productFeeds.supplierId,
      })
      .from(products)
      .innerJoin(productFeeds, eq(productFeeds.id, products.productFeedId))
      .where(and(eq(products.accountId, accountId), eq(products.active, 1), eq(productFeeds.active, true), match));
  // Each set travels as one JSON parameter, whatever the number of lines.
  const catalogueQueries = [
    ...(eans.length ? [catalogueQuery(sql`${products.ean13} IN (SELECT value FROM json_each(${JSON.stringify(eans)}))`)] : []),
    ...(skus.length ? [catalogueQuery(sql`${products.sku} IN (SELECT value FROM json_each(${JSON.stringify(skus)}))`)] : []),
  ];
  const ordersQuery = db
    .select()
    .from(orders)
    .where(and(eq(orders.accountId, accountId), sql`${orders.id} IN (SELECT value FROM json_each(${JSON.stringify(orderIds)}))`));
  const [ruleRows, supplierRows, ...rest] = await db.batch([
    db
      .select()
      .from(routingRules)
      .where(and(eq(routingRules.accountId, accountId), eq(routingRules.active, true)))
      .orderBy(asc(routingRules.priority), asc(routingRules.id)),
    db
      .select({ id: suppliers.id, name: suppliers.name, code: suppliers.code, active: suppliers.active, priority: suppliers.priority, channel: suppliers.channel })
      .from(suppliers)
      .where(eq(suppliers.accountId, accountId)),
    ...catalogueQueries,
    ...(orderIds.length ? [ordersQuery] : []),
    ...(options.policy
      ? [db.select({ enabled: accounts.rerouteEnabled, maxAttempts: accounts.rerouteMaxAttempts }).from(accounts).where(eq(accounts.id, accountId))]
      : []),
  ] as const);
  const catalogueRows = rest.slice(0, catalogueQueries.length);
  const orderRows = (orderIds.length ? rest[catalogueQueries.length] : []) as Order[];
  const policy = options.policy ? (rest[rest.length - 1] as ReroutePolicy[])[0] : undefined;
  const catalogue = new Map<number, CatalogueCandidate>();
  for (const rows of catalogueRows as CatalogueCandidate[][]) for (const row of rows) catalogue.set(row.productId, row);
  return {
    policy,
    orders: new Map(orderRows.map((o) => [o.id, o])),
    rules: ruleRows,
    suppliers: new Map<number, SupplierRef>(supplierRows.map((s) => [s.id, s])),
    catalogue: [...catalogue.values()],
  };
}
