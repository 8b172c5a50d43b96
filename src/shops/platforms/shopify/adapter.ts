// Shopify, through its Admin GraphQL API (./client.ts). docs/shops/shopify.md says all of it for a
// shop owner. An order came in from Shopify's orders/create webhook (./intake.ts): its external_id
// is the Shopify order's numeric id and each line's product id the variant's numeric id, so the
// order is read by its global id, gid://shopify/Order/<id>.
// - A shipment is a fulfillment, one per tracking number (./fulfillments.ts).
// - A note is a line appended to the order's staff note (orderUpdate's note: staff only, never shown
//   to the customer).
// - Hold and release: a fulfillment hold with our own handle on each open fulfillment order
//   (fulfillmentOrderHold / fulfillmentOrderReleaseHold), so that staff do not ship what waits.
// - Complete: nothing to set. Shopify marks an order Fulfilled itself once every item is, and
//   archiving (closing) it is the shop's own setting.
import { explainShopFailure, messageIn, type PlatformWords } from "../explain";
import { ShopError } from "../http";
import type { Check, ShopItem, ShopPlatform } from "../platform";
import { CREDENTIALS, SETTINGS, type Credentials, type Settings } from "../settings";
import { gql, numericId, refusedBy, toGid, type ShopifyConn, type UserError } from "./client";
import { SHOPIFY_API_VERSION, shopifyBaseUrlProblem } from "./settings";
import { fulfillmentOrders, writeShopifyShipment } from "./fulfillments";
import { pulledShopifyOrder, pullShopifyOrders } from "./pull";
import { shopifyStock } from "./stock";
import { callbackUrl, ensureWebhooks, removeWebhooks } from "./webhook-subscriptions";

/** Our fulfillment holds' handle: ours alone to release (shopify.dev: a handle is unique per app and fulfillment order). */
export const HOLD_HANDLE = "order-intake";

type OrderJson = {
  id: string;
  name: string;
  note: string | null;
  cancelledAt: string | null;
  lineItems: { nodes: { id: string; sku: string | null; quantity: number; variant: { legacyResourceId: string } | null }[] };
};

const ORDER_QUERY = `query Order($id: ID!) {
  order(id: $id) { id name note cancelledAt lineItems(first: 250) { nodes { id sku quantity variant { legacyResourceId } } } }
}`;
const NOTE_QUERY = `query Note($id: ID!) { order(id: $id) { id note } }`;
const ORDER_UPDATE = `mutation Note($input: OrderInput!) { orderUpdate(input: $input) { order { id } userErrors { field message } } }`;
const HOLD = `mutation Hold($id: ID!, $hold: FulfillmentOrderHoldInput!) {
  fulfillmentOrderHold(id: $id, fulfillmentHold: $hold) { fulfillmentOrder { id status } userErrors { field message code } }
}`;
const RELEASE = `mutation Release($id: ID!, $holdIds: [ID!]) {
  fulfillmentOrderReleaseHold(id: $id, holdIds: $holdIds) { fulfillmentOrder { id status } userErrors { field message code } }
}`;
const SHOP_QUERY = `query Shop { shop { name myshopifyDomain } currentAppInstallation { accessScopes { handle } } }`;

const orderGid = (externalId: string) => {
  if (!/^\d{1,20}$/.test(externalId)) throw new ShopError("not_found", `Shopify order ids are numbers; "${externalId}" is not one, so this order did not come from Shopify`);
  return toGid("Order", externalId);
};

async function scopesCheck(conn: ShopifyConn, granted: string[]): Promise<Check> {
  const need = ["read_orders", "read_merchant_managed_fulfillment_orders", "write_merchant_managed_fulfillment_orders", "write_orders"];
  if (conn.settings.stock_sync?.enabled) need.push("read_products", "write_inventory");
  // Prices go with the stock sync (productVariantsBulkUpdate).
  if (conn.settings.stock_sync?.enabled && conn.settings.price_sync?.enabled) need.push("write_products");
  // write_x implies read_x (shopify.dev/docs/api/usage/access-scopes).
  const has = (s: string) => granted.includes(s) || (s.startsWith("read_") && granted.includes(`write_${s.slice(5)}`));
  const missing = need.filter((s) => !has(s));
  if (missing.length === 0) return { name: "Scopes", ok: true, message: `The app has the scopes the connection needs (${need.join(", ")}).` };
  return { name: "Scopes", ok: false, message: `The app lacks the scope${missing.length > 1 ? "s" : ""} ${missing.join(", ")}: in Shopify, Settings > Apps and sales channels > Develop apps > the app > Configuration > Admin API integration, tick ${missing.length > 1 ? "them" : "it"}, save, and install the app again.` };
}

export const shopifyWords: PlatformWords = {
  label: "Shopify",
  credentials: "Admin API access token",
  credentialsWhere: "Shopify's Settings > Apps and sales channels > Develop apps > the app > API credentials",
  grant: "tick the missing scope under Configuration > Admin API integration and install the app again",
  orderName: (externalId) => `order with id ${externalId}`,
  subjectOf: (_call, answer) => {
    if (answer && /fulfillment/i.test(answer)) return { what: "shipment" };
    if (answer && /note/i.test(answer)) return { what: "note" };
    return { what: "other" };
  },
  said: (answer) => {
    try {
      const body = JSON.parse(answer) as { errors?: unknown };
      if (typeof body.errors === "string") return body.errors;
    } catch {
      // not JSON
    }
    return messageIn(answer);
  },
};

export const shopify: ShopPlatform<Credentials<"shopify">, Settings<"shopify">> = {
  name: "shopify",
  label: "Shopify",
  credentials: CREDENTIALS.shopify,
  settings: SETTINGS.shopify,
  baseUrlProblem: shopifyBaseUrlProblem,
  pullOrders: pullShopifyOrders,
  pulledOrder: pulledShopifyOrder,
  explainFailure: (failure, order) => explainShopFailure(shopifyWords, failure, order),
  // Kept by ./intake.ts; the orders list's `q` finds it too (drizzle/0043).
  orderName: (custom) => (typeof custom?.shopify_name === "string" ? custom.shopify_name : null),

  async test(conn, http) {
    const checks: Check[] = [];
    const { data, apiVersion } = await gql<{ shop: { name: string; myshopifyDomain: string }; currentAppInstallation: { accessScopes: { handle: string }[] } }>(conn, http, SHOP_QUERY);
    checks.push({ name: "Access token", ok: true, message: `The token opens the Admin API of ${data.shop.name} (${data.shop.myshopifyDomain}).` });
    const wanted = conn.settings.api_version;
    checks.push(
      apiVersion === wanted
        ? { name: "API version", ok: true, message: `Shopify serves API version ${wanted}${wanted === SHOPIFY_API_VERSION ? ", the one this service is built against" : ` (this service is built against ${SHOPIFY_API_VERSION})`}.` }
        : { name: "API version", ok: false, message: `Shopify no longer serves API version ${wanted}: it answered with ${apiVersion ?? "no version"} instead. Set settings.api_version to ${SHOPIFY_API_VERSION}.` },
    );
    checks.push(await scopesCheck(conn, data.currentAppInstallation.accessScopes.map((s) => s.handle)));
    return checks;
  },

  async findOrder(conn, http, order) {
    const { data } = await gql<{ order: OrderJson | null }>(conn, http, ORDER_QUERY, { id: orderGid(order.externalId) });
    if (!data.order) throw new ShopError("not_found", `Shopify has no order with id ${order.externalId} (our order ${order.reference})`);
    const items: ShopItem[] = data.order.lineItems.nodes.map((l) => ({
      id: l.id,
      productIds: [l.variant?.legacyResourceId, numericId(l.id)].filter((v): v is string => !!v),
      sku: l.sku,
      quantity: l.quantity,
    }));
    return { id: data.order.id, number: data.order.name, items, extra: {} };
  },

  writeShipment: (conn, http, shopOrder, write, options) => writeShopifyShipment(conn, http, shopOrder, write, options),

  async writeNote(conn, http, shopOrder, write, options) {
    const { data } = await gql<{ order: { note: string | null } | null }>(conn, http, NOTE_QUERY, { id: shopOrder.id });
    if (!data.order) throw new ShopError("not_found", `Shopify order ${shopOrder.number} is no longer in the shop`);
    const current = data.order.note ?? "";
    if (options.look && current.includes(write.text)) return { outcome: "found", shopIds: [shopOrder.id] };
    const note = current ? `${current}\n${write.text}` : write.text;
    const res = await gql<{ orderUpdate: { userErrors: UserError[] } }>(conn, http, ORDER_UPDATE, { input: { id: shopOrder.id, note } }, { mutation: true });
    if (!res.dryRun) {
      const refusal = refusedBy(`the staff note of order ${shopOrder.number}`, res.data.orderUpdate.userErrors);
      if (refusal) throw refusal;
    }
    return { outcome: "written", shopIds: [shopOrder.id] };
  },

  async hold(conn, http, shopOrder) {
    const fos = await fulfillmentOrders(conn, http, shopOrder);
    const open = fos.filter((f) => (f.status === "OPEN" || f.status === "IN_PROGRESS" || f.status === "ON_HOLD") && !f.fulfillmentHolds.some((h) => h.handle === HOLD_HANDLE));
    const ours = fos.filter((f) => f.fulfillmentHolds.some((h) => h.handle === HOLD_HANDLE)).map((f) => f.id);
    if (open.length === 0) return ours.length ? { outcome: "found", shopIds: ours } : { outcome: "skipped", reason: `Shopify order ${shopOrder.number} has nothing left to fulfill: there is nothing to hold` };
    for (const fo of open) {
      const hold = { reason: "OTHER", handle: HOLD_HANDLE, reasonNotes: "A line waits for a person in the order intake service (Needs attention)." };
      const res = await gql<{ fulfillmentOrderHold: { userErrors: UserError[] } }>(conn, http, HOLD, { id: fo.id, hold }, { mutation: true });
      if (!res.dryRun) {
        const refusal = refusedBy(`the hold of order ${shopOrder.number}`, res.data.fulfillmentOrderHold.userErrors);
        if (refusal) throw refusal;
      }
    }
    return { outcome: "written", shopIds: [...ours, ...open.map((f) => f.id)] };
  },

  async release(conn, http, shopOrder) {
    const fos = await fulfillmentOrders(conn, http, shopOrder);
    const held = fos.flatMap((f) => f.fulfillmentHolds.filter((h) => h.handle === HOLD_HANDLE).map((h) => ({ fo: f.id, hold: h.id })));
    if (held.length === 0) return { outcome: "skipped", reason: `Shopify order ${shopOrder.number} has no hold of ours any more (released in Shopify?): nothing to release` };
    for (const h of held) {
      const res = await gql<{ fulfillmentOrderReleaseHold: { userErrors: UserError[] } }>(conn, http, RELEASE, { id: h.fo, holdIds: [h.hold] }, { mutation: true });
      if (!res.dryRun) {
        const refusal = refusedBy(`the release of order ${shopOrder.number}`, res.data.fulfillmentOrderReleaseHold.userErrors);
        if (refusal) throw refusal;
      }
    }
    return { outcome: "written", shopIds: held.map((h) => h.fo) };
  },

  stock: shopifyStock,

  connected: (conn, http, setup) => ensureWebhooks(conn, http, callbackUrl(setup.origin, conn, setup.accountId)),
  disconnected: async (conn, http) => void (await removeWebhooks(conn, http)),

  async complete(_conn, _http, shopOrder) {
    return { outcome: "skipped", reason: `Shopify marks order ${shopOrder.number} Fulfilled by itself once every item is; archiving it is the shop's own setting` };
  },
};
