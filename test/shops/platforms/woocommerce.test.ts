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

  it("a tracking without a URL: the extension's predefined provider of that name when it has one (it links the number), else a custom one", async () => {
    const { shop, conn, http } = await connect();
    const order = await woocommerce.findOrder(conn, http, ORDER);
    const write: ShipmentWrite = {
      order: ORDER,
      lines: [{ line: PLATE, quantity: 1 }],
      trackings: [
        { carrier: "dpd", number: "01234567890123", url: null },
        { carrier: "Bpost", number: "323299999999", url: null },
      ],
      orderShippedInFull: false,
    };
    await woocommerce.writeShipment(conn, http, order, write, { look: false });
    expect((await held(shop)).trackings).toEqual([
      { tracking_id: TRACKING_ID, tracking_provider: "DPD", tracking_link: "https://tracking.dpd.de/parcelstatus?query=01234567890123", tracking_number: "01234567890123", date_shipped: TODAY },
      { tracking_id: TRACKING_ID, tracking_provider: "Bpost", tracking_link: "", tracking_number: "323299999999", date_shipped: TODAY },
    ]);
    expect((await received(shop)).slice(2)).toEqual([
      ["GET", `${TRACKINGS}/providers`, null],
      ["POST", TRACKINGS, { tracking_number: "01234567890123", date_shipped: TODAY, tracking_provider: "DPD" }],
      ["POST", TRACKINGS, { tracking_number: "323299999999", date_shipped: TODAY, custom_tracking_provider: "Bpost" }],
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

describe("WooCommerce: the shop refuses", () => {
  it("a completion status the shop does not have: 400 rest_invalid_param, ShopError invalid (not retried), nothing changed", async () => {
    const { shop, conn, http } = await connect(undefined, { complete_status: "shipped" });
    const order = await woocommerce.findOrder(conn, http, ORDER);
    const error = await woocommerce.complete(conn, http, order, ORDER, { look: false }).catch((e) => e);
    expect(error).toMatchObject({ kind: "invalid", status: 400, retryable: false });
    expect(error.message).toMatch(/^The shop refused what we sent \(400 on PUT \/wp-json\/wc\/v3\/orders\/4711\): \{"code":"rest_invalid_param","message":"Invalid parameter\(s\): status"/);
    expect((await held(shop)).status).toBe("processing");
  });

  it("a read-only key writing: 401 from WooCommerce's key check, ShopError auth, nothing written", async () => {
    const { shop, conn, http } = await connect({ orders: ORDER_SEED, permissions: "read" });
    const order = await woocommerce.findOrder(conn, http, ORDER);
    const error = await woocommerce.writeNote(conn, http, order, { order: ORDER, text: "x" }, { look: false }).catch((e) => e);
    expect(error).toMatchObject({ kind: "auth", status: 401 });
    expect(error.message).toContain('"message":"The API key provided does not have write permissions."');
    expect((await held(shop)).notes).toEqual([]);
  });

  it("a shop that never answers: ShopError timeout within the time box", async () => {
    const { shop, conn, http } = await connect(undefined, {}, 500);
    await injectFault(shop, { method: "GET", hang: true });
    const error = await woocommerce.findOrder(conn, http, ORDER).catch((e) => e);
    expect(error).toMatchObject({ kind: "timeout", unclear: true });
    expect(error.message).toMatch(/^127\.0\.0\.1:\d+ did not answer within 0\.5 s$/);
  });
});

describe("WooCommerce: authentication", () => {
  it("over https the key and secret go as HTTP Basic; over http as an OAuth 1.0a signature, never in the URL", async () => {
    const creds = { consumer_key: "ck_abc", consumer_secret: "cs_def" };
    expect(await authorization("GET", "https://shop.example/wp-json/wc/v3/orders/1", creds)).toBe(`Basic ${btoa("ck_abc:cs_def")}`);
    expect(await authorization("GET", "http://shop.example/wp-json/wc/v3/orders/1", creds)).toMatch(/^OAuth oauth_consumer_key="ck_abc", /);
    expect(await authorization("GET", "http://shop.example/wp-json/wc/v3/orders/1", creds)).not.toContain("cs_def");
  });

  it("the stand-in checks as WooCommerce over http: a replayed signature (its nonce used) and HTTP Basic are refused", async () => {
    const { shop, conn, http } = await connect();
    await woocommerce.findOrder(conn, http, ORDER);
    const [signed] = (await standInShop(shop)).received;
    const replay = await fetch(`${shop.base_url}/wp-json/wc/v3/orders/4711`, { headers: { authorization: signed.headers.authorization } });
    expect([replay.status, await replay.json()]).toEqual([401, { code: "woocommerce_rest_authentication_error", message: "Invalid nonce - nonce has already been used.", data: { status: 401 } }]);
    const basic = await fetch(`${shop.base_url}/wp-json/wc/v3/orders/4711`, { headers: { authorization: `Basic ${btoa(`${conn.credentials.consumer_key}:${conn.credentials.consumer_secret}`)}` } });
    expect([basic.status, await basic.json()]).toEqual([401, { code: "woocommerce_rest_cannot_view", message: "Sorry, you cannot view this resource.", data: { status: 401 } }]);
  });

  it("a closed port (inject closedPortUrl) is unreachable, in words", async () => {
    const conn: Conn = { id: 1, platform: "woocommerce", baseUrl: inject("closedPortUrl"), credentials: { consumer_key: "ck_x", consumer_secret: "cs_y" }, settings: SETTINGS.woocommerce.parse({}) };
    const http = new ShopHttp({ baseUrl: conn.baseUrl, timeoutMs: 5000, dryRun: false, secrets: ["ck_x", "cs_y"] });
    const error = await woocommerce.findOrder(conn, http, ORDER).catch((e) => e);
    expect(error).toMatchObject({ kind: "unreachable" });
    expect(error.message).toMatch(/^The connection to 127\.0\.0\.1:\d+ was refused: nothing listens on port \d+ there$/);
  });
});

describe("WooCommerce: tracking without the extension, and notes", () => {
  const NOTE_TEXT = [
    "Your order has shipped: 2 × Blue mug, 1 × Red plate - Large.",
    "Tracking: DHL 00340434161094042557 https://www.dhl.de/track?piececode=00340434161094042557",
    "Tracking: DHL 00340434161094042564 https://www.dhl.de/track?piececode=00340434161094042564",
  ].join("\n");

  it("without the Shipment Tracking extension (tracking: auto): one customer note carrying carriers, numbers, links and what shipped", async () => {
    const { shop, conn, http } = await connect({ orders: ORDER_SEED, extension: false });
    const order = await woocommerce.findOrder(conn, http, ORDER);
    const result = await woocommerce.writeShipment(conn, http, order, twoParcels, { look: false });
    const { notes, trackings } = await held(shop);
    expect(notes).toEqual([{ id: 101, author: "system", date_created: expect.any(String), date_created_gmt: expect.any(String), note: NOTE_TEXT, customer_note: true }]);
    expect(trackings).toEqual([]);
    expect(result).toEqual({ outcome: "written", shopIds: ["101"] });
    expect((await received(shop)).slice(1)).toEqual([
      ["GET", TRACKINGS, null],
      ["POST", "/wp-json/wc/v3/orders/4711/notes", { note: NOTE_TEXT, customer_note: true }],
    ]);
  });

  it("a partial shipment as a note (tracking: note, the extension installed but not used): only what shipped, no tracking entry", async () => {
    const { shop, conn, http } = await connect({ orders: ORDER_SEED }, { tracking: "note" });
    const order = await woocommerce.findOrder(conn, http, ORDER);
    const write: ShipmentWrite = { order: ORDER, lines: [{ line: PLATE, quantity: 1 }], trackings: [{ carrier: null, number: "JJD000390007", url: null }], orderShippedInFull: false };
    const result = await woocommerce.writeShipment(conn, http, order, write, { look: false });
    const text = "Part of your order has shipped: 1 × Red plate - Large.\nTracking: JJD000390007";
    const { notes, trackings } = await held(shop);
    expect(notes.map((n) => [n.id, n.note, n.customer_note])).toEqual([[101, text, true]]);
    expect(trackings).toEqual([]);
    expect(result).toEqual({ outcome: "written", shopIds: ["101"] });
    expect((await received(shop)).slice(1)).toEqual([["POST", "/wp-json/wc/v3/orders/4711/notes", { note: text, customer_note: true }]]);
  });

  it("tracking: extension, and the extension is missing: not_found in words, nothing written", async () => {
    const { shop, conn, http } = await connect({ orders: ORDER_SEED, extension: false }, { tracking: "extension" });
    const order = await woocommerce.findOrder(conn, http, ORDER);
    const error = await woocommerce.writeShipment(conn, http, order, twoParcels, { look: false }).catch((e) => e);
    expect(error).toMatchObject({ kind: "not_found", status: 404, message: 'The Shipment Tracking extension is not installed in the shop (settings.tracking is "extension"): install it, or set tracking to "auto" or "note"' });
    expect((await held(shop)).notes).toEqual([]);
    expect((await received(shop)).slice(1)).toEqual([["POST", TRACKINGS, expect.any(Object)]]);
  });

  it("a private note (declined line): customer_note false", async () => {
    const { shop, conn, http } = await connect();
    const order = await woocommerce.findOrder(conn, http, ORDER);
    const text = "Red plate - Large (1): declined by the supplier, out of stock; no other supplier left.";
    const result = await woocommerce.writeNote(conn, http, order, { order: ORDER, text }, { look: false });
    expect(result).toEqual({ outcome: "written", shopIds: ["101"] });
    expect((await held(shop)).notes.map((n) => [n.id, n.note, n.customer_note, n.author])).toEqual([[101, text, false, "system"]]);
    expect((await received(shop)).slice(1)).toEqual([["POST", "/wp-json/wc/v3/orders/4711/notes", { note: text, customer_note: false }]]);
  });
});

describe("WooCommerce: never twice", () => {
  it("a tracking applied but never answered, then retried with look: the shop keeps one tracking per number", async () => {
    const { shop, conn, http } = await connect(undefined, {}, 1000);
    const order = await woocommerce.findOrder(conn, http, ORDER);
    // The first tracking is created, its answer never comes: the attempt times out (unclear).
    await injectFault(shop, { method: "POST", path: "shipment-trackings$", hangAfterApplying: true });
    const error = await woocommerce.writeShipment(conn, http, order, twoParcels, { look: false }).catch((e) => e);
    expect(error).toMatchObject({ kind: "timeout", unclear: true });
    expect((await held(shop)).trackings.map((t) => t.tracking_number)).toEqual(["00340434161094042557"]);

    const retry = await woocommerce.writeShipment(conn, http, order, twoParcels, { look: true });
    const { trackings } = await held(shop);
    expect(trackings.map((t) => t.tracking_number)).toEqual(["00340434161094042557", "00340434161094042564"]);
    expect(retry).toEqual({ outcome: "written", shopIds: trackings.map((t) => t.tracking_id) });
    // And once more after that: everything is there, nothing is created.
    expect(await woocommerce.writeShipment(conn, http, order, twoParcels, { look: true })).toEqual({ outcome: "found", shopIds: trackings.map((t) => t.tracking_id) });
    expect((await received(shop)).slice(1).map(([method, path, body]) => [method, path, (body as { tracking_number?: string } | null)?.tracking_number ?? null])).toEqual([
      ["GET", TRACKINGS, null],
      ["POST", TRACKINGS, "00340434161094042557"],
      ["GET", TRACKINGS, null],
      ["POST", TRACKINGS, "00340434161094042564"],
      ["GET", TRACKINGS, null],
    ]);
    expect((await held(shop)).trackings).toHaveLength(2);
  });

  it("a note applied but never answered, then retried with look: found, no second note", async () => {
    const { shop, conn, http } = await connect(undefined, {}, 1000);
    const order = await woocommerce.findOrder(conn, http, ORDER);
    const text = "Blue mug (2): the supplier refused the cancellation; the line ships.";
    await injectFault(shop, { method: "POST", path: "/notes$", hangAfterApplying: true });
    const error = await woocommerce.writeNote(conn, http, order, { order: ORDER, text }, { look: false }).catch((e) => e);
    expect(error).toMatchObject({ kind: "timeout", unclear: true });
    expect(await woocommerce.writeNote(conn, http, order, { order: ORDER, text }, { look: true })).toEqual({ outcome: "found", shopIds: ["101"] });
    expect((await held(shop)).notes.map((n) => [n.id, n.note, n.customer_note])).toEqual([[101, text, false]]);
    expect((await received(shop)).slice(1)).toEqual([
      ["POST", "/wp-json/wc/v3/orders/4711/notes", { note: text, customer_note: false }],
      ["GET", "/wp-json/wc/v3/orders/4711/notes?type=internal", null],
    ]);
  });

  it("a customer note for a shipment (no extension), unanswered, then retried with look: found among the customer notes", async () => {
    const { shop, conn, http } = await connect({ orders: ORDER_SEED, extension: false }, {}, 1000);
    const order = await woocommerce.findOrder(conn, http, ORDER);
    await injectFault(shop, { method: "POST", path: "/notes$", hangAfterApplying: true });
    expect(await woocommerce.writeShipment(conn, http, order, twoParcels, { look: false }).catch((e) => e)).toMatchObject({ kind: "timeout" });
    expect(await woocommerce.writeShipment(conn, http, order, twoParcels, { look: true })).toEqual({ outcome: "found", shopIds: ["101"] });
    expect((await held(shop)).notes.map((n) => n.id)).toEqual([101]);
    expect((await received(shop)).slice(1).map(([method, path]) => [method, path])).toEqual([
      ["GET", TRACKINGS],
      ["POST", "/wp-json/wc/v3/orders/4711/notes"],
      ["GET", TRACKINGS],
      ["GET", "/wp-json/wc/v3/orders/4711/notes?type=customer"],
    ]);
  });

  it("completion applied but never answered, then retried with look: the status is there, no second PUT", async () => {
    const { shop, conn, http } = await connect(undefined, {}, 1000);
    const order = await woocommerce.findOrder(conn, http, ORDER);
    await injectFault(shop, { method: "PUT", hangAfterApplying: true });
    expect(await woocommerce.complete(conn, http, order, ORDER, { look: false }).catch((e) => e)).toMatchObject({ kind: "timeout" });
    expect(await woocommerce.complete(conn, http, order, ORDER, { look: true })).toEqual({ outcome: "found", shopIds: ["4711"] });
    const { status, notes } = await held(shop);
    expect([status, notes.length]).toEqual(["completed", 1]);
    expect((await received(shop)).slice(1)).toEqual([
      ["PUT", "/wp-json/wc/v3/orders/4711", { status: "completed" }],
      ["GET", "/wp-json/wc/v3/orders/4711", null],
    ]);
  });
});

describe("WooCommerce: on hold while a line waits for a person", () => {
  it("hold: PUT status on-hold after reading the status now; a second hold finds it there and sends nothing", async () => {
    const { shop, conn, http } = await connect();
    const order = await woocommerce.findOrder(conn, http, ORDER);
    expect(await woocommerce.hold(conn, http, order, ORDER, { look: false })).toEqual({ outcome: "written", shopIds: ["4711"] });
    expect(await woocommerce.hold(conn, http, order, ORDER, { look: false })).toEqual({ outcome: "found", shopIds: ["4711"] });
    expect((await held(shop)).status).toBe("on-hold");
    expect((await received(shop)).slice(1)).toEqual([
      ["GET", "/wp-json/wc/v3/orders/4711", null],
      ["PUT", "/wp-json/wc/v3/orders/4711", { status: "on-hold" }],
      ["GET", "/wp-json/wc/v3/orders/4711", null],
    ]);
  });

  it("an order the shop has finished with (completed, cancelled, refunded) is not put on hold: skipped, in words", async () => {
    for (const status of ["completed", "cancelled", "refunded"]) {
      const { shop, conn, http } = await connect({ orders: [{ ...ORDER_SEED![0]!, status }] });
      const order = await woocommerce.findOrder(conn, http, ORDER);
      expect(await woocommerce.hold(conn, http, order, ORDER, { look: false })).toEqual({
        outcome: "skipped",
        reason: `WooCommerce order 4711 is ${status} in the shop: it is left as it is, not put on hold`,
      });
      expect((await held(shop)).status).toBe(status);
    }
  });

  it("release: back to processing only while on hold; an order moved meanwhile is left as it is; a retry that looks finds it released", async () => {
    const { shop, conn, http } = await connect({ orders: [{ ...ORDER_SEED![0]!, status: "on-hold" }] }, {}, 1000);
    const order = await woocommerce.findOrder(conn, http, ORDER);
    await injectFault(shop, { method: "PUT", hangAfterApplying: true });
    expect(await woocommerce.release(conn, http, order, ORDER, { look: false }).catch((e) => e)).toMatchObject({ kind: "timeout" });
    expect(await woocommerce.release(conn, http, order, ORDER, { look: true })).toEqual({ outcome: "found", shopIds: ["4711"] });
    expect(await woocommerce.release(conn, http, order, ORDER, { look: false })).toEqual({
      outcome: "skipped",
      reason: "WooCommerce order 4711 is processing in the shop, no longer on hold: it is left as it is",
    });
    expect((await held(shop)).status).toBe("processing");
    expect((await received(shop)).filter((r) => r[0] === "PUT")).toEqual([["PUT", "/wp-json/wc/v3/orders/4711", { status: "processing" }]]);
  });

  it("dry run: the status is read, the PUT recorded and not sent", async () => {
    const { shop, conn, http } = await connect(undefined, { mode: "dry_run" });
    const order = await woocommerce.findOrder(conn, http, ORDER);
    expect(await woocommerce.hold(conn, http, order, ORDER, { look: false })).toEqual({ outcome: "written", shopIds: [] });
    expect((await held(shop)).status).toBe("processing");
    expect(http.calls.map((c) => [c.method, c.sent, c.dryRun])).toEqual([
      ["GET", null, false],
      ["GET", null, false],
      ["PUT", '{"status":"on-hold"}', true],
    ]);
  });
});

describe("WooCommerce: dry run, rate limits, credentials", () => {
  it("dry run: the lookups go out, the writes are recorded and not sent; the shop holds nothing new", async () => {
    const { shop, conn, http } = await connect(undefined, { mode: "dry_run" });
    const order = await woocommerce.findOrder(conn, http, ORDER);
    expect(await woocommerce.writeShipment(conn, http, order, twoParcels, { look: false })).toEqual({ outcome: "written", shopIds: [] });
    expect(await woocommerce.writeNote(conn, http, order, { order: ORDER, text: "A private note." }, { look: false })).toEqual({ outcome: "written", shopIds: [] });
    expect(await woocommerce.complete(conn, http, order, ORDER, { look: false })).toEqual({ outcome: "written", shopIds: [] });

    const { trackings, notes, status } = await held(shop);
    expect([trackings, notes, status]).toEqual([[], [], "processing"]);
    expect(await received(shop)).toEqual([
      ["GET", "/wp-json/wc/v3/orders/4711", null],
      ["GET", TRACKINGS, null],
    ]);
    expect(http.calls.map((c) => [c.method, c.path, c.sent, c.status, c.dryRun])).toEqual([
      ["GET", "/wp-json/wc/v3/orders/4711", null, 200, false],
      ["GET", TRACKINGS, null, 200, false],
      ["POST", TRACKINGS, JSON.stringify({ tracking_number: "00340434161094042557", date_shipped: TODAY, custom_tracking_provider: "DHL", custom_tracking_link: "https://www.dhl.de/track?piececode=00340434161094042557" }), null, true],
      ["POST", TRACKINGS, JSON.stringify({ tracking_number: "00340434161094042564", date_shipped: TODAY, custom_tracking_provider: "DHL", custom_tracking_link: "https://www.dhl.de/track?piececode=00340434161094042564" }), null, true],
      ["POST", "/wp-json/wc/v3/orders/4711/notes", JSON.stringify({ note: "A private note.", customer_note: false }), null, true],
      ["PUT", "/wp-json/wc/v3/orders/4711", JSON.stringify({ status: "completed" }), null, true],
    ]);
  });

  it("429 with Retry-After: ShopError rate_limited with retryAfterSeconds", async () => {
    const { shop, conn, http } = await connect();
    await injectFault(shop, { method: "GET", path: "/orders/4711$", status: 429, headers: { "retry-after": "30" }, body: { code: "too_many_requests", message: "Too many requests.", data: { status: 429 } } });
    const error = await woocommerce.findOrder(conn, http, ORDER).catch((e) => e);
    expect(error).toMatchObject({ kind: "rate_limited", status: 429, retryAfterSeconds: 30, message: "The shop is rate limiting us (429 on GET /wp-json/wc/v3/orders/4711); it asks us to wait 30 s" });
  });

  it("a 500 from the shop is a server error, unclear for a write", async () => {
    const { shop, conn, http } = await connect();
    const order = await woocommerce.findOrder(conn, http, ORDER);
    await injectFault(shop, { method: "POST", status: 500, body: { code: "internal_server_error", message: "There has been a critical error on this website.", data: { status: 500 } } });
    const error = await woocommerce.writeNote(conn, http, order, { order: ORDER, text: "x" }, { look: false }).catch((e) => e);
    expect(error).toMatchObject({ kind: "server", status: 500, unclear: true });
    expect((await held(shop)).notes).toEqual([]);
  });

  it("wrong credentials on a lookup: ShopError auth with WooCommerce's words", async () => {
    const { conn, http } = await connect();
    const error = await woocommerce.findOrder(conn, http, ORDER).then(() => null);
    expect(error).toBeNull();
    const wrong: Conn = { ...conn, credentials: { ...conn.credentials, consumer_secret: "cs_wrong" } };
    const refused = await woocommerce.findOrder(wrong, http, ORDER).catch((e) => e);
    expect(refused).toMatchObject({ kind: "auth", status: 401 });
    expect(refused.message).toContain("Invalid signature - provided signature does not match.");
  });

  it("the credentials never appear in the calls ShopHttp records", async () => {
    const { conn, http } = await connect({ orders: ORDER_SEED, extension: false });
    await woocommerce.test(conn, http);
    const order = await woocommerce.findOrder(conn, http, ORDER);
    await woocommerce.writeShipment(conn, http, order, twoParcels, { look: true });
    await woocommerce.writeNote(conn, http, order, { order: ORDER, text: "note" }, { look: true });
    await woocommerce.complete(conn, http, order, ORDER, { look: true });
    expect(http.calls.length).toBe(11);
    const recorded = JSON.stringify(http.calls);
    expect(recorded).not.toContain(conn.credentials.consumer_key);
    expect(recorded).not.toContain(conn.credentials.consumer_secret);
    expect(recorded).not.toContain("oauth_");
  });
});

describe("WooCommerce: testing a connection", () => {
  const ok = (base: string) => [
    { name: "reachable", ok: true, message: `${base} answers with WooCommerce's REST API (wc/v3).` },
    { name: "credentials", ok: true, message: "The consumer key and secret are accepted, and the key may read orders." },
    { name: "write", ok: true, message: "The key has write permission (checked without writing anything)." },
    { name: "tracking", ok: true, message: "The Shipment Tracking extension is installed: tracking numbers are added to it." },
  ];

  it("good read/write keys with the extension: every check passes, and nothing is written", async () => {
    const { shop, conn, http } = await connect();
    expect(await woocommerce.test(conn, http)).toEqual(ok(conn.baseUrl));
    expect(await received(shop)).toEqual([
      ["GET", "/wp-json", null],
      ["GET", "/wp-json/wc/v3/orders?per_page=1", null],
      ["POST", "/wp-json/wc/v3/orders/0/notes", {}],
    ]);
    const { notes, trackings, status } = await held(shop);
    expect([notes, trackings, status]).toEqual([[], [], "processing"]);
  });

  it("in dry-run mode the test asks the same (it writes nothing either way)", async () => {
    const { shop, conn, http } = await connect(undefined, { mode: "dry_run" });
    expect(await woocommerce.test(conn, http)).toEqual(ok(conn.baseUrl));
    expect((await received(shop)).map(([m, p]) => [m, p])).toEqual([
      ["GET", "/wp-json"],
      ["GET", "/wp-json/wc/v3/orders?per_page=1"],
      ["POST", "/wp-json/wc/v3/orders/0/notes"],
    ]);
  });

  it("a wrong secret, a wrong key: said in words; write is then not checked", async () => {
    const { conn, http } = await connect();
    const wrongSecret = await woocommerce.test({ ...conn, credentials: { ...conn.credentials, consumer_secret: "cs_wrong" } }, http);
    expect(wrongSecret.slice(1)).toEqual([
      { name: "credentials", ok: false, message: "The consumer secret does not belong to this consumer key: copy the secret shown when the key was created (or create a new key)." },
      { name: "write", ok: false, message: "Not checked: the credentials are not accepted." },
      ok(conn.baseUrl)[3],
    ]);
    const wrongKey = await woocommerce.test({ ...conn, credentials: { ...conn.credentials, consumer_key: "ck_unknown" } }, http);
    expect(wrongKey[1]).toEqual({ name: "credentials", ok: false, message: "The shop does not know this consumer key: copy it again from WooCommerce > Settings > Advanced > REST API (or create a new key)." });
  });

  it("a read-only key: reading passes, writing is refused, and nothing is written", async () => {
    const { shop, conn, http } = await connect({ orders: ORDER_SEED, permissions: "read" });
    const checks = await woocommerce.test(conn, http);
    expect(checks[1].ok).toBe(true);
    expect(checks[2]).toEqual({ name: "write", ok: false, message: "The key is read-only: give it Read/Write in WooCommerce > Settings > Advanced > REST API, or nothing can be written." });
    expect((await held(shop)).notes).toEqual([]);
  });

  it("no Shipment Tracking extension: fine with tracking auto (notes instead), a failure with tracking extension", async () => {
    const auto = await connect({ orders: ORDER_SEED, extension: false });
    expect((await woocommerce.test(auto.conn, auto.http))[3]).toEqual({ name: "tracking", ok: true, message: "The Shipment Tracking extension is not installed: tracking numbers are written as customer notes." });
    const strict = await connect({ orders: ORDER_SEED, extension: false }, { tracking: "extension" });
    expect((await woocommerce.test(strict.conn, strict.http))[3]).toEqual({
      name: "tracking",
      ok: false,
      message: 'The Shipment Tracking extension is not installed, and settings.tracking is "extension": install it, or set tracking to "auto" or "note".',
    });
  });

  it("an index closed to anonymous requests (a security plugin): WooCommerce and the extension are asked with the credentials", async () => {
    const { shop, conn, http } = await connect({ orders: ORDER_SEED, closed_index: true });
    expect(await woocommerce.test(conn, http)).toEqual([
      { name: "reachable", ok: true, message: `${conn.baseUrl} answers; its REST API index is closed to anonymous requests (a security plugin), so WooCommerce is looked for with the credentials.` },
      ...ok(conn.baseUrl).slice(1),
    ]);
    expect((await received(shop)).map(([m, p]) => [m, p])).toEqual([
      ["GET", "/wp-json"],
      ["GET", "/wp-json/wc/v3/orders?per_page=1"],
      ["POST", "/wp-json/wc/v3/orders/0/notes"],
      ["GET", "/wp-json/wc-shipment-tracking/v3/orders/0/shipment-trackings"],
    ]);
    const without = await connect({ orders: ORDER_SEED, closed_index: true, extension: false }, { tracking: "extension" });
    expect((await woocommerce.test(without.conn, without.http))[3]).toEqual({
      name: "tracking",
      ok: false,
      message: 'The Shipment Tracking extension is not installed, and settings.tracking is "extension": install it, or set tracking to "auto" or "note".',
    });
  });

  it("a refused port: unreachable in words, the rest not checked", async () => {
    const base = inject("closedPortUrl");
    const conn: Conn = { id: 1, platform: "woocommerce", baseUrl: base, credentials: { consumer_key: "ck_x", consumer_secret: "cs_y" }, settings: SETTINGS.woocommerce.parse({}) };
    const checks = await woocommerce.test(conn, new ShopHttp({ baseUrl: base, timeoutMs: 5000, dryRun: false, secrets: ["ck_x", "cs_y"] }));
    expect(checks).toEqual([
      { name: "reachable", ok: false, message: expect.stringMatching(/^The connection to 127\.0\.0\.1:\d+ was refused: nothing listens on port \d+ there$/) },
      { name: "credentials", ok: false, message: "Not checked: the shop is not reachable." },
      { name: "write", ok: false, message: "Not checked: the shop is not reachable." },
      { name: "tracking", ok: false, message: "Not checked: the shop is not reachable." },
    ]);
  });

  it("a base_url that is no WordPress: said so", async () => {
    const { conn } = await connect();
    const base = `${conn.baseUrl}/shop`;
    const checks = await woocommerce.test({ ...conn, baseUrl: base }, new ShopHttp({ baseUrl: base, timeoutMs: 5000, dryRun: false, secrets: [] }));
    expect(checks[0]).toEqual({ name: "reachable", ok: false, message: `There is no WordPress REST API at ${base}/wp-json/ (is base_url the shop's address, with pretty permalinks?)` });
  });
});
