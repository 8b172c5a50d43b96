// The demo's shop: `npm start` (scripts/lib/demo-shop.mjs) and the docs suite (test/docs/docs.global.ts)
// run the stand-in shops on a local port, with one WooCommerce shop holding order 1201, and point the
// demo account's dry-run connection "Demo WooCommerce shop" at it. The demo account has the same
// order (source "Demo WooCommerce", the connection's one source), shipped by Keukenhuis with a
// tracking number, so a newcomer sees what would be written into the shop; the shop also has the
// products of the demo's Tuinhout feed, and the connection's stock sync (dry run) has run once. The stand-in shop lives
// in memory: every start makes it afresh, on a new port, and the connection follows it.
// Beside it, a stand-in Shopify shop (docs/shops/shopify.md) with a dry-run connection "Demo Shopify
// shop": its order #1001 arrives as Shopify delivers it (a signed orders/create webhook), is routed
// by the catalogue to Tuinhout, whose feed offers its SKU, and what would be written back into
// Shopify (the order held while a person acts on its line, the stock) is recorded, not sent.
import { startStandIns } from "./harness";
import { platforms } from "./stand-ins.global";

export const DEMO_CONNECTION_NAME = "Demo WooCommerce shop";
export const DEMO_SOURCE = "Demo WooCommerce";

/** The order as the WooCommerce shop holds it: the plugin sends the order id and each line item's id. */
const SHOP_ORDER = {
  id: 1201,
  number: "1201",
  status: "processing",
  line_items: [
    { id: 9001, product_id: 71, sku: "WOO-MUG", name: "Green mug", quantity: 2 },
    { id: 9002, product_id: 72, sku: "WOO-BOWL", name: "Serving bowl", quantity: 1 },
  ],
};

/** The shop's products that the demo's Tuinhout feed offers (scripts/lib/demo-data.mjs), with the shop's own stock. */
const SHOP_PRODUCTS = [
  { id: 81, sku: "TH-CHAIR", stock_quantity: 30, manage_stock: true },
  { id: 82, sku: "TH-TABLE", stock_quantity: 2, manage_stock: true },
];

/** The same order as the official plugin sends it to us. */
const OUR_ORDER = {
  external_id: String(SHOP_ORDER.id),
  source: DEMO_SOURCE,
  total: 2 * 14.5 + 32,
  email: "anna@example.com",
  shipping_address: { first_name: "Anna", last_name: "de Vries", address1: "Lijnbaansgracht 10", postcode: "1015GN", city: "Amsterdam", country: "NL" },
  products: [
    { external_id: "9001", reference: "WOO-MUG", name: "Green mug", category: "kitchen", quantity: 2, price: 14.5 },
    { external_id: "9002", reference: "WOO-BOWL", name: "Serving bowl", category: "kitchen", quantity: 1, price: 32 },
  ],
};

export const DEMO_SHOPIFY_NAME = "Demo Shopify shop";

/** The Shopify shop's order #1001, for a garden table that Tuinhout's feed offers (TH-TABLE). */
const SHOPIFY_ORDER = {
  id: 5_500_001,
  name: "#1001",
  email: "sanne@example.com",
  shippingAddress: { first_name: "Sanne", last_name: "Bakker", address1: "Oudegracht 12", city: "Utrecht", zip: "3511AR", country_code: "NL" },
  lineItems: [{ id: 8_800_001, sku: "TH-TABLE", variantId: 4_400_002, productId: 4_300_002, title: "Garden table", quantity: 1, price: "149.00" }],
};
/** The Shopify shop's variants of the Tuinhout feed's products, with their stock at the primary location. */
const SHOPIFY_VARIANTS = [
  { id: 4_400_001, sku: "TH-CHAIR", barcode: null, inventoryItemId: 6_600_001, productId: 4_300_001, price: "79.50" },
  { id: 4_400_002, sku: "TH-TABLE", barcode: null, inventoryItemId: 6_600_002, productId: 4_300_002, price: "149.00" },
];

export type DemoAccount = { base: string; accountId: number; apiKey: string; supplierKey: string };
export type DemoShop = { standInsUrl: string; shopUrl: string; connectionId: number; shopifyUrl: string; shopifyConnectionId: number; close: () => Promise<void> };

/** Starts the stand-in shops and wires the demo account's connection to a fresh demo shop. */
export async function startDemoShop(demo: DemoAccount): Promise<DemoShop> {
  const standIns = await startStandIns(platforms);
  try {
    const shop = await createShop(standIns.url, "woocommerce", { orders: [SHOP_ORDER], products: SHOP_PRODUCTS });
    const connectionId = await wire(demo, shop);
    const shopify = await createShop(standIns.url, "shopify", { orders: [SHOPIFY_ORDER], variants: SHOPIFY_VARIANTS, available: { "6600001@71000001": 12, "6600002@71000001": 1 } });
    const shopifyConnectionId = await wireShopify(demo, shopify);
    return { standInsUrl: standIns.url, shopUrl: shop.base_url, connectionId, shopifyUrl: shopify.base_url, shopifyConnectionId, close: standIns.close };
  } catch (error) {
    await standIns.close();
    throw error;
  }
}

type Shop = { base_url: string; credentials: Record<string, string> };

async function createShop(standIns: string, platform: string, seed: unknown): Promise<Shop> {
  const created = await fetch(`${standIns}/__shops`, { method: "POST", body: JSON.stringify({ platform, seed }) });
  if (created.status !== 201) throw new Error(`the demo's ${platform} shop was not created: ${created.status} ${await created.text()}`);
  return (await created.json()) as Shop;
}

/** The demo account's API: the JSON of each call, or an error naming it. */
function demoApi(demo: DemoAccount) {
  const headers = { "api-key": demo.apiKey, "account-id": String(demo.accountId), "content-type": "application/json", accept: "application/json" };
  return async (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) => {
    const res = await fetch(`${demo.base}${path}`, { method, headers: { ...headers, ...extra }, body: body === undefined || typeof body === "string" ? body : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
}

/** Asks `check` every 250 ms until it answers true, for at most 30 s. */
async function until(check: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`the demo: ${what} did not happen within 30 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * The dry-run Shopify connection (made once, pointed at this start's shop on later starts), and on
 * the first start its order #1001 delivered as Shopify delivers it: the stand-in signs the
 * orders/create webhook with the app's secret, posted here to the connection's callback address
 * (a dry-run connection registers no webhook subscription in the shop: that call is recorded).
 */
async function wireShopify(demo: DemoAccount, shop: Shop): Promise<number> {
  const api = demoApi(demo);
  const list = (await api("GET", "/api/v1/shop-connections?per_page=100")).data as { id: number; name: string }[];
  const existing = list.find((c) => c.name === DEMO_SHOPIFY_NAME);
  if (existing) {
    await api("PATCH", `/api/v1/shop-connections/${existing.id}`, { base_url: shop.base_url, credentials: shop.credentials });
    return existing.id;
  }
  const connection = await api("POST", "/api/v1/shop-connections", {
    platform: "shopify",
    name: DEMO_SHOPIFY_NAME,
    base_url: shop.base_url,
    credentials: shop.credentials,
    settings: { mode: "dry_run", stock_sync: { enabled: true } },
  });
  const signed = await fetch(`${shop.base_url}/__webhook`, { method: "POST", body: JSON.stringify({ topic: "orders/create", order_id: SHOPIFY_ORDER.id }) });
  const delivery = (await signed.json()) as { headers: Record<string, string>; body: string };
  const delivered = await fetch(`${demo.base}/shopify/webhooks/${connection.id}?account=${demo.accountId}`, { method: "POST", headers: delivery.headers, body: delivery.body });
  if (!delivered.ok) throw new Error(`the demo's Shopify order was refused: ${delivered.status} ${await delivered.text()}`);
  await until(async () => {
    const { data } = (await api("GET", `/api/v1/orders?external_id=${SHOPIFY_ORDER.id}`)) as { data: { reference: string }[] };
    if (data.length === 0) return false;
    const { order_lines } = (await api("GET", `/api/v1/orders/${data[0].reference}`)) as { order_lines: { current_status: string }[] };
    return order_lines.every((l) => l.current_status !== "pending");
  }, "the Shopify order's routing");
  await api("POST", `/api/v1/shop-connections/${connection.id}/stock-syncs`);
  return connection.id;
}

async function wire(demo: DemoAccount, shop: Shop): Promise<number> {
  const api = demoApi(demo);
  const list = (await api("GET", "/api/v1/shop-connections?per_page=100")).data as { id: number; name: string }[];
  const existing = list.find((c) => c.name === DEMO_CONNECTION_NAME);
  // A later start: the same connection, pointed at this start's shop.
  if (existing) {
    await api("PATCH", `/api/v1/shop-connections/${existing.id}`, { base_url: shop.base_url, credentials: shop.credentials });
    return existing.id;
  }
  const connection = await api("POST", "/api/v1/shop-connections", {
    platform: "woocommerce",
    name: DEMO_CONNECTION_NAME,
    base_url: shop.base_url,
    credentials: shop.credentials,
    sources: [DEMO_SOURCE],
    settings: { mode: "dry_run", stock_sync: { enabled: true } },
  });
  // Its first stock sync, on demand (the demo's feed was imported before the connection existed):
  // in dry run, the writes the Tuinhout feed's stock would make are recorded, not sent.
  await api("POST", `/api/v1/shop-connections/${connection.id}/stock-syncs`);
  // The first start: the shop's order arrives, goes to Keukenhuis (kitchen), which ships it.
  const { reference, message } = await api("POST", "/api/v1/orders", OUR_ORDER);
  // The connection was deleted by hand and is made again: the order is there, shipped already.
  if (message === "Order already exists") return connection.id;
  const deadline = Date.now() + 30_000;
  let lines: { id: number; current_status: string }[];
  for (;;) {
    lines = (await api("GET", `/api/v1/orders/${reference}`)).order_lines;
    if (lines.every((l) => l.current_status !== "pending")) break;
    if (Date.now() > deadline) throw new Error(`demo order ${reference} was not routed: ${lines.map((l) => l.current_status).join(", ")}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const answers = lines.map((l, i) => ({
    line_id: l.id,
    action: "ship",
    quantity: OUR_ORDER.products[i].quantity,
    carrier: "PostNL",
    tracking_number: "3SWOO1201",
    tracking_url: "https://postnl.nl/tracktrace/3SWOO1201",
  }));
  await api("POST", "/api/v1/supplier/answers", { answers }, { authorization: `Bearer ${demo.supplierKey}` });
  return connection.id;
}
