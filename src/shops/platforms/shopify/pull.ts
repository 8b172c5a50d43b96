// The reconciliation pull (docs/shops/shopify.md, "Webhooks can be missed"): Shopify's webhooks are
// delivered at least once, but a delivery can still be lost (our outage past Shopify's retries, a
// subscription a shop owner deleted). From the cron, each connection reads the orders Shopify changed
// since its cursor, oldest first (`orders(query: "updated_at:>='…'", sortKey: UPDATED_AT)`), and
// reads and maps each one that is not ours yet like its orders/create webhook; taking them in is idempotent by the order's id, so an
// order the webhooks brought already is found, not made twice.
//
// The cursor is { since, after }: `since` the updated_at the current walk started from, `after`
// Shopify's page cursor within that walk (so orders sharing one updated_at are never skipped, and a
// walk never stalls on them). A walk that reaches its end starts the next one from the newest
// updated_at it saw; that order comes back once more (>=), which is harmless.
import type { ShopHttp } from "../http";
import type { PullCursor, PulledOrder, PulledPage } from "../platform";
import { gql, numericId, toGid, type ShopifyConn } from "./client";
import { orderRequestOf, type ShopifyOrderJson } from "./intake";

/**
 * Changed orders a page: only their ids are read (a few points each), since most are ours already
 * (our own fulfillments and notes change them too); the whole order is read only for one that is not.
 */
export const PULL_PAGE = 10;
/** Line items a read: 50 × 4 points keeps one order's read near 220 points, far under the 1,000 ceiling, and a refill wait under the client's in-line limit. */
const PULL_LINES = 50;

const LIST_QUERY = `query Pulled($first: Int!, $after: String, $query: String!) {
  orders(first: $first, after: $after, query: $query, sortKey: UPDATED_AT) {
    nodes { legacyResourceId updatedAt cancelledAt }
    pageInfo { hasNextPage endCursor }
  }
}`;

const money = `shopMoney { amount }`;
const ORDER_QUERY = `query PulledOrder($id: ID!, $after: String) {
  order(id: $id) {
    legacyResourceId name email test currencyCode
    totalPriceSet { ${money} }
    shippingAddress { firstName lastName company address1 address2 city zip province countryCodeV2 phone }
    shippingLines(first: 5) { nodes { title originalPriceSet { ${money} } } }
    lineItems(first: ${PULL_LINES}, after: $after) { nodes { id sku title quantity variant { legacyResourceId } originalUnitPriceSet { ${money} } } pageInfo { hasNextPage endCursor } }
  }
}`;

type Money = { shopMoney: { amount: string } } | null;
type LineJson = { id: string; sku: string | null; title: string; quantity: number; variant: { legacyResourceId: string } | null; originalUnitPriceSet: Money };
type OrderJson = {
  legacyResourceId: string;
  name: string;
  email: string | null;
  test: boolean;
  currencyCode: string;
  totalPriceSet: Money;
  shippingAddress: { firstName: string | null; lastName: string | null; company: string | null; address1: string | null; address2: string | null; city: string | null; zip: string | null; province: string | null; countryCodeV2: string | null; phone: string | null } | null;
  shippingLines: { nodes: { title: string; originalPriceSet: Money }[] };
  lineItems: { nodes: LineJson[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
};
type ListData = { orders: { nodes: { legacyResourceId: string; updatedAt: string; cancelledAt: string | null }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } };

type Cursor = { since: string; after: string | null; newest: string };

/** The GraphQL order as its webhook carries it (the REST shape orderRequestOf maps), so both ways in map alike. */
function asWebhookOrder(o: OrderJson, lines: LineJson[]): ShopifyOrderJson {
  const a = o.shippingAddress;
  return {
    id: o.legacyResourceId,
    name: o.name,
    email: o.email,
    test: o.test,
    currency: o.currencyCode,
    total_price: o.totalPriceSet?.shopMoney.amount,
    shipping_address: a && { first_name: a.firstName, last_name: a.lastName, company: a.company, address1: a.address1, address2: a.address2, city: a.city, zip: a.zip, province: a.province, country_code: a.countryCodeV2, phone: a.phone },
    shipping_lines: o.shippingLines.nodes.map((l) => ({ title: l.title, price: l.originalPriceSet?.shopMoney.amount })),
    line_items: lines.map((l) => ({ id: Number(numericId(l.id)), variant_id: l.variant ? Number(l.variant.legacyResourceId) : null, sku: l.sku, title: l.title, quantity: l.quantity, price: l.originalUnitPriceSet?.shopMoney.amount })),
  };
}

function cursorOf(raw: PullCursor | null, since: string): Cursor {
  const c = (raw ?? {}) as Partial<Cursor>;
  const start = typeof c.since === "string" ? c.since : since;
  return { since: start, after: typeof c.after === "string" ? c.after : null, newest: typeof c.newest === "string" ? c.newest : start };
}

export async function pullShopifyOrders(conn: ShopifyConn, http: ShopHttp, raw: PullCursor | null, since: string): Promise<PulledPage> {
  const cursor = cursorOf(raw, since);
  // Intake off: Shopify's orders are not ours to take; the cursor stays where it is.
  if (conn.settings.intake === false) return { orders: [], cursor, more: false, off: true };
  const { data } = await gql<ListData>(conn, http, LIST_QUERY, { first: PULL_PAGE, after: cursor.after, query: `updated_at:>='${cursor.since}'` });
  const page = data.orders;
  const newest = page.nodes.reduce((max, o) => (o.updatedAt > max ? o.updatedAt : max), cursor.newest);
  const orders: PulledOrder[] = page.nodes.map((o) => ({ externalId: o.legacyResourceId, cancelled: o.cancelledAt !== null }));
  const next: Cursor = page.pageInfo.hasNextPage && page.pageInfo.endCursor ? { since: cursor.since, after: page.pageInfo.endCursor, newest } : { since: newest, after: null, newest };
  return { orders, cursor: next, more: page.pageInfo.hasNextPage };
}

/** The whole order, every line item (50 a read), mapped like its orders/create webhook; null when Shopify has it no more. */
export async function pulledShopifyOrder(conn: ShopifyConn, http: ShopHttp, externalId: string, name: string): Promise<Record<string, unknown> | null> {
  const lines: LineJson[] = [];
  let order: OrderJson | null = null;
  let after: string | null = null;
  // Bounded: an order has at most a few thousand line items; 100 reads is past any real one.
  for (let read = 0; read < 100; read++) {
    const got: { data: { order: OrderJson | null } } = await gql<{ order: OrderJson | null }>(conn, http, ORDER_QUERY, { id: toGid("Order", externalId), after });
    const read: OrderJson | null = got.data.order;
    if (!read) return null;
    order = read;
    lines.push(...read.lineItems.nodes);
    if (!read.lineItems.pageInfo.hasNextPage || !read.lineItems.pageInfo.endCursor) break;
    after = read.lineItems.pageInfo.endCursor;
  }
  return orderRequestOf(asWebhookOrder(order!, lines), { id: conn.id, name });
}
