// The WooCommerce adapter (src/shops/platforms/woocommerce.ts) against the stand-in WooCommerce
// shop (test/shops/stand-ins/woocommerce.ts), a real HTTP server on loopback that checks OAuth 1.0a
// signatures as WooCommerce does over plain http. Each test asserts what the shop received and
// what it now holds.
import { describe, expect, inject, it } from "vitest";
import { ShopError, ShopHttp } from "../../../src/shops/platforms/http";
import type { LineRef, OrderRef, ShipmentWrite, ShopConnection } from "../../../src/shops/platforms/platform";
import { SETTINGS, type Credentials, type Settings } from "../../../src/shops/platforms/settings";
import { authorization, woocommerce } from "../../../src/shops/platforms/woocommerce";
import { createStandInShop, injectFault, standInShop, type StandInShopHandle } from "../stand-ins/client";
import type { WooSeed, WooState } from "../stand-ins/woocommerce";

type Conn = ShopConnection<Credentials<"woocommerce">, Settings<"woocommerce">>;

const TODAY = new Date().toISOString().slice(0, 10);

/** Order 4711: two mugs (line item 31) and one large red plate, a variation (line item 32). */
const ORDER_SEED: WooSeed["orders"] = [
  {
    id: 4711,
    line_items: [
      { id: 31, product_id: 501, sku: "MUG-BLUE", name: "Blue mug", quantity: 2 },
      { id: 32, product_id: 502, variation_id: 610, sku: "PLATE-RED-L", name: "Red plate - Large", quantity: 1 },
    ],
  },
];

/** Our order as the plugin sent it: external_id the order id, products[].external_id the line item id. */
const ORDER: OrderRef = { externalId: "4711", reference: "DD-1001" };
const MUGS: LineRef = { lineId: 1, productId: "31", sku: "MUG-BLUE", name: "Blue mug", quantity: 2 };
const PLATE: LineRef = { lineId: 2, productId: "32", sku: "PLATE-RED-L", name: "Red plate - Large", quantity: 1 };

async function connect(seed: WooSeed = { orders: ORDER_SEED }, settings: Record<string, unknown> = {}, timeoutMs = 5000) {
  const shop = await createStandInShop("woocommerce", seed);
  const conn: Conn = {
    id: 1,
    platform: "woocommerce",
    baseUrl: shop.base_url,
    credentials: shop.credentials as Credentials<"woocommerce">,
    settings: SETTINGS.woocommerce.parse(settings),
  };
  const http = new ShopHttp({ baseUrl: shop.base_url, timeoutMs, dryRun: conn.settings.mode === "dry_run", secrets: Object.values(shop.credentials) });
  return { shop, conn, http };
}

/** What the shop received: method, path (with its query), and the JSON body. */
async function received(shop: StandInShopHandle) {
  const { received } = await standInShop<WooState>(shop);
  return received.map((r) => {
    const query = new URLSearchParams(r.query).toString();
    return [r.method, r.path + (query ? `?${query}` : ""), r.body ? JSON.parse(r.body) : null];
  });
}

async function held(shop: StandInShopHandle) {
  return (await standInShop<WooState>(shop)).state.orders[0];
}

const TRACKING_ID = expect.stringMatching(/^[0-9a-f]{32}$/);
const TRACKINGS = "/wp-json/wc-shipment-tracking/v3/orders/4711/shipment-trackings";

const twoParcels: ShipmentWrite = {
  order: ORDER,
  lines: [
    { line: MUGS, quantity: 2 },
    { line: PLATE, quantity: 1 },
  ],
  trackings: [
    { carrier: "DHL", number: "00340434161094042557", url: "https://www.dhl.de/track?piececode=00340434161094042557" },
    { carrier: "DHL", number: "00340434161094042564", url: "https://www.dhl.de/track?piececode=00340434161094042564" },
  ],
  orderShippedInFull: true,
};

describe("WooCommerce: finding the order", () => {
  it("reads the order by the id the plugin sent, its items matched by line item id, signed with OAuth 1.0a over http", async () => {
    const { shop, conn, http } = await connect();
    const order = await woocommerce.findOrder(conn, http, ORDER);
    expect(order).toEqual({
      id: "4711",
      number: "4711",
      items: [
        { id: "31", productIds: ["31"], sku: "MUG-BLUE", quantity: 2 },
        { id: "32", productIds: ["32"], sku: "PLATE-RED-L", quantity: 1 },
      ],
      extra: { status: "processing" },
    });
    expect(await received(shop)).toEqual([["GET", "/wp-json/wc/v3/orders/4711", null]]);
    const [request] = (await standInShop(shop)).received;
    expect(request.headers.authorization).toMatch(
      new RegExp(`^OAuth oauth_consumer_key="${conn.credentials.consumer_key}", oauth_nonce="[A-Za-z0-9]{32}", oauth_signature_method="HMAC-SHA256", oauth_timestamp="\\d+", oauth_signature="[A-Za-z0-9%]+"$`),
    );
  });

  it("an order the shop does not have: ShopError not_found with WooCommerce's words", async () => {
    const { shop, conn, http } = await connect();
    const error = await woocommerce.findOrder(conn, http, { externalId: "999", reference: "DD-2" }).catch((e) => e);
    expect(error).toBeInstanceOf(ShopError);
    expect(error).toMatchObject({ kind: "not_found", status: 404 });
    expect(error.message).toBe(
      'Not found (404 on GET /wp-json/wc/v3/orders/999): {"code":"woocommerce_rest_shop_order_invalid_id","message":"Invalid ID.","data":{"status":404}}',
    );
    expect(await received(shop)).toEqual([["GET", "/wp-json/wc/v3/orders/999", null]]);
  });

  it("an external_id that is not a number is no WooCommerce order: not_found, and nothing is asked", async () => {
    const { shop, conn, http } = await connect();
    const error = await woocommerce.findOrder(conn, http, { externalId: "ORD-12", reference: "DD-3" }).catch((e) => e);
    expect(error).toMatchObject({ kind: "not_found", message: '"ORD-12" is not a WooCommerce order id (the plugin sends the order id, a number)' });
    expect(await received(shop)).toEqual([]);
  });
});

describe("WooCommerce: shipments", () => {
  it("with the Shipment Tracking extension: one tracking per tracking number (two parcels for one line)", async () => {
    const { shop, conn, http } = await connect();
    const order = await woocommerce.findOrder(conn, http, ORDER);
    const write: ShipmentWrite = { ...twoParcels, lines: [{ line: MUGS, quantity: 2 }], orderShippedInFull: false };
    const result = await woocommerce.writeShipment(conn, http, order, write, { look: false });

    const { trackings, notes } = await held(shop);
    expect(trackings).toEqual([
      { tracking_id: TRACKING_ID, tracking_provider: "DHL", tracking_link: "https://www.dhl.de/track?piececode=00340434161094042557", tracking_number: "00340434161094042557", date_shipped: TODAY },
      { tracking_id: TRACKING_ID, tracking_provider: "DHL", tracking_link: "https://www.dhl.de/track?piececode=00340434161094042564", tracking_number: "00340434161094042564", date_shipped: TODAY },
    ]);
    expect(result).toEqual({ outcome: "written", shopIds: trackings.map((t) => t.tracking_id) });
    expect(notes).toEqual([]);
    expect(await received(shop)).toEqual([
      ["GET", "/wp-json/wc/v3/orders/4711", null],
      ["GET", TRACKINGS, null],
      ["POST", TRACKINGS, { tracking_number: "00340434161094042557", date_shipped: TODAY, custom_tracking_provider: "DHL", custom_tracking_link: "https://www.dhl.de/track?piececode=00340434161094042557" }],
      ["POST", TRACKINGS, { tracking_number: "00340434161094042564", date_shipped: TODAY, custom_tracking_provider: "DHL", custom_tracking_link: "https://www.dhl.de/track?piececode=00340434161094042564" }],
    ]);
  });

  it("completing the order: PUT status completed (the default), which WooCommerce notes as a status change", async () => {
    const { shop, conn, http } = await connect();
    const order = await woocommerce.findOrder(conn, http, ORDER);
    expect(await woocommerce.complete(conn, http, order, ORDER, { look: false })).toEqual({ outcome: "written", shopIds: ["4711"] });
    const { status, notes } = await held(shop);
    expect(status).toBe("completed");
    expect(notes.map((n) => [n.note, n.customer_note, n.author])).toEqual([["Order status changed from Processing to Completed.", false, "system"]]);
    expect((await received(shop)).slice(1)).toEqual([["PUT", "/wp-json/wc/v3/orders/4711", { status: "completed" }]]);
  });

  it("the status set on completion is configurable (a status a plugin registered)", async () => {
    const { shop, conn, http } = await connect({ orders: ORDER_SEED, statuses: ["shipped"] }, { complete_status: "shipped" });
    const order = await woocommerce.findOrder(conn, http, ORDER);
    await woocommerce.complete(conn, http, order, ORDER, { look: false });
    expect((await held(shop)).status).toBe("shipped");
    expect((await received(shop)).slice(1)).toEqual([["PUT", "/wp-json/wc/v3/orders/4711", { status: "shipped" }]]);
  });
});

describe("WooCommerce: authentication", () => {
  it("over https the key and secret go as HTTP Basic; over http as an OAuth 1.0a signature, never in the URL", async () => {
    const creds = { consumer_key: "ck_abc", consumer_secret: "cs_def" };
    expect(await authorization("GET", "https://shop.example/wp-json/wc/v3/orders/1", creds)).toBe(`Basic ${btoa("ck_abc:cs_def")}`);
    expect(await authorization("GET", "http://shop.example/wp-json/wc/v3/orders/1", creds)).toMatch(/^OAuth oauth_consumer_key="ck_abc", /);
    expect(await authorization("GET", "http://shop.example/wp-json/wc/v3/orders/1", creds)).not.toContain("cs_def");
  });

  it("a closed port (inject closedPortUrl) is unreachable, in words", async () => {
    const conn: Conn = { id: 1, platform: "woocommerce", baseUrl: inject("closedPortUrl"), credentials: { consumer_key: "ck_x", consumer_secret: "cs_y" }, settings: SETTINGS.woocommerce.parse({}) };
    const http = new ShopHttp({ baseUrl: conn.baseUrl, timeoutMs: 5000, dryRun: false, secrets: ["ck_x", "cs_y"] });
    const error = await woocommerce.findOrder(conn, http, ORDER).catch((e) => e);
    expect(error).toMatchObject({ kind: "unreachable" });
    expect(error.message).toMatch(/^The connection to 127\.0\.0\.1:\d+ was refused: nothing listens on port \d+ there$/);
  });
});
