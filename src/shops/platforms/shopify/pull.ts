// The reconciliation pull (docs/shops/shopify.md, "Webhooks can be missed"): Shopify's webhooks are
// delivered at least once, but a delivery can still be lost (our outage past Shopify's retries, a
// subscription a shop owner deleted). From the cron, each connection reads the orders Shopify changed
// since its cursor, oldest first (`orders(query: "updated_at:>='…'", sortKey: UPDATED_AT)`), and
// maps each like its orders/create webhook; taking them in is idempotent by the order's id, so an
// order the webhooks brought already is found, not made twice.
//
// The cursor is { since, after }: `since` the updated_at the current walk started from, `after`
// Shopify's page cursor within that walk (so orders sharing one updated_at are never skipped, and a
// walk never stalls on them). A walk that reaches its end starts the next one from the newest
// updated_at it saw; that order comes back once more (>=), which is harmless.
import type { ShopHttp } from "../http";
import type { PullCursor, PulledOrder, PulledPage } from "../platform";
import { gql, type ShopifyConn } from "./client";
import { orderRequestOf, type ShopifyOrderJson } from "./intake";

/**
 * Orders a page, line items an order: a query's cost is about first × (its nested firsts), and
 * must stay under Shopify's 1,000-point ceiling (shopify.dev/docs/api/usage/limits): 8 × (100 + 5 + 3) ≈ 870.
 */
export const PULL_PAGE = 8;
const PULL_LINES = 100;

const money = `shopMoney { amount }`;
export const PULL_QUERY = `query Pull($first: Int!, $after: String, $query: String!) {
  orders(first: $first, after: $after, query: $query, sortKey: UPDATED_AT) {
    nodes {
      legacyResourceId name email test currencyCode updatedAt cancelledAt
      totalPriceSet { ${money} }
      shippingAddress { firstName lastName company address1 address2 city zip province countryCodeV2 phone }
      shippingLines(first: 5) { nodes { title originalPriceSet { ${money} } } }
      lineItems(first: ${PULL_LINES}) { nodes { id sku title quantity variant { legacyResourceId } originalUnitPriceSet { ${money} } } pageInfo { hasNextPage } }
    }
    pageInfo { hasNextPage endCursor }
  }
}`;

type Money = { shopMoney: { amount: string } } | null;
type PulledJson = {
  legacyResourceId: string;
  name: string;
  email: string | null;
  test: boolean;
  currencyCode: string;
  updatedAt: string;
  cancelledAt: string | null;
  totalPriceSet: Money;
  shippingAddress: { firstName: string | null; lastName: string | null; company: string | null; address1: string | null; address2: string | null; city: string | null; zip: string | null; province: string | null; countryCodeV2: string | null; phone: string | null } | null;
  shippingLines: { nodes: { title: string; originalPriceSet: Money }[] };
  lineItems: { nodes: { id: string; sku: string | null; title: string; quantity: number; variant: { legacyResourceId: string } | null; originalUnitPriceSet: Money }[]; pageInfo: { hasNextPage: boolean } };
};
type PullData = { orders: { nodes: PulledJson[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } };

type Cursor = { since: string; after: string | null; newest: string };

const numeric = (gid: string) => Number(gid.slice(gid.lastIndexOf("/") + 1));

/** The GraphQL order as its webhook carries it (the REST shape orderRequestOf maps), so both ways in map alike. */
function asWebhookOrder(o: PulledJson): ShopifyOrderJson {
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
    line_items: o.lineItems.nodes.map((l) => ({ id: numeric(l.id), variant_id: l.variant ? Number(l.variant.legacyResourceId) : null, sku: l.sku, title: l.title, quantity: l.quantity, price: l.originalUnitPriceSet?.shopMoney.amount })),
  };
}

function cursorOf(raw: PullCursor | null, since: string): Cursor {
  const c = (raw ?? {}) as Partial<Cursor>;
  const start = typeof c.since === "string" ? c.since : since;
  return { since: start, after: typeof c.after === "string" ? c.after : null, newest: typeof c.newest === "string" ? c.newest : start };
}

export async function pullShopifyOrders(conn: ShopifyConn, http: ShopHttp, raw: PullCursor | null, from: { since: string; name: string }): Promise<PulledPage> {
  const cursor = cursorOf(raw, from.since);
  // Intake off: Shopify's orders are not ours to take; the cursor stays where it is.
  if (conn.settings.intake === false) return { orders: [], cursor, more: false, off: true };
  const { data } = await gql<PullData>(conn, http, PULL_QUERY, { first: PULL_PAGE, after: cursor.after, query: `updated_at:>='${cursor.since}'` });
  const page = data.orders;
  const newest = page.nodes.reduce((max, o) => (o.updatedAt > max ? o.updatedAt : max), cursor.newest);
  const orders: PulledOrder[] = page.nodes.map((o) => ({
    externalId: o.legacyResourceId,
    request: orderRequestOf(asWebhookOrder(o), { id: conn.id, name: from.name }),
    cancelled: o.cancelledAt !== null,
    ...(o.lineItems.pageInfo.hasNextPage
      ? { skipped: `Shopify order ${o.name} has more than ${PULL_LINES} line items: the pull does not take it in (its orders/create webhook does).` }
      : {}),
  }));
  const next: Cursor = page.pageInfo.hasNextPage && page.pageInfo.endCursor ? { since: cursor.since, after: page.pageInfo.endCursor, newest } : { since: newest, after: null, newest };
  return { orders, cursor: next, more: page.pageInfo.hasNextPage };
}
