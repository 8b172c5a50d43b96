// The demo's shop: `npm start` (scripts/lib/demo-shop.mjs) and the docs suite (test/docs/docs.global.ts)
// run the stand-in shops on a local port, with one WooCommerce shop holding order 1201, and point the
// demo account's dry-run connection "Demo WooCommerce shop" at it. The demo account has the same
// order (source "Demo WooCommerce", the connection's one source), shipped by Keukenhuis with a
// tracking number, so a newcomer sees what would be written into the shop; the shop also has the
// products of the demo's Tuinhout feed, and the connection's stock sync (dry run) has run once. The stand-in shop lives
// in memory: every start makes it afresh, on a new port, and the connection follows it.
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

export type DemoAccount = { base: string; accountId: number; apiKey: string; supplierKey: string };
export type DemoShop = { standInsUrl: string; shopUrl: string; connectionId: number; close: () => Promise<void> };

/** Starts the stand-in shops and wires the demo account's connection to a fresh demo shop. */
export async function startDemoShop(demo: DemoAccount): Promise<DemoShop> {
  const standIns = await startStandIns(platforms);
  try {
    const created = await fetch(`${standIns.url}/__shops`, { method: "POST", body: JSON.stringify({ platform: "woocommerce", seed: { orders: [SHOP_ORDER], products: SHOP_PRODUCTS } }) });
    if (created.status !== 201) throw new Error(`the demo shop was not created: ${created.status} ${await created.text()}`);
    const shop = (await created.json()) as { base_url: string; credentials: Record<string, string> };
    const connectionId = await wire(demo, shop);
    return { standInsUrl: standIns.url, shopUrl: shop.base_url, connectionId, close: standIns.close };
  } catch (error) {
    await standIns.close();
    throw error;
  }
}

async function wire(demo: DemoAccount, shop: { base_url: string; credentials: Record<string, string> }): Promise<number> {
  const headers = { "api-key": demo.apiKey, "account-id": String(demo.accountId), "content-type": "application/json", accept: "application/json" };
  const api = async (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) => {
    const res = await fetch(`${demo.base}${path}`, { method, headers: { ...headers, ...extra }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
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
