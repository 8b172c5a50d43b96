// Shopify both ways, against the stand-in Shopify (test/shops/stand-ins/shopify.ts), which holds
// every GraphQL operation to Shopify's published Admin schema: the connection (its 422s, /test in
// words, its webhook subscriptions made and removed), orders coming in as signed webhooks (and
// every way a delivery is refused with nothing stored), and shipments going back as fulfillments
// through THROTTLED and a hang, never twice.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../src/index";
import { PULL_PAGES } from "../../../src/shops/order-pull.service";
import { PULL_PAGE } from "../../../src/shops/platforms/shopify/pull";
import { createAccount, rows } from "../../helpers/factories";
import { getPage, signIn } from "../../helpers/console-http";
import { countsDiff } from "../../helpers/counts";
import { call, type Credentials } from "../../helpers/http";
import { answered, ship, writeBacksSettled } from "../../helpers/shops";
import { awaitingPickup, supplierChain } from "../../helpers/suppliers";
import { STOCK_ON, syncWithProducts } from "../../helpers/stock";
import { syncedShop } from "../../helpers/stock-platforms";
import { shopify } from "../../../src/shops/platforms/shopify/adapter";
import { adapterAt, failure } from "./adapter-at";
import { createStandInShop, injectFault, standInShop, type StandInShopHandle } from "../stand-ins/client";
import type { ShopifyState } from "../stand-ins/shopify";

const ORDER = {
  id: 5_550_001,
  name: "#1001",
  lineItems: [
    { id: 11, sku: "MUG-BLUE", variantId: 4401, title: "Blue mug", quantity: 3, price: "12.50" },
    { id: 12, sku: "PLATE-RED", variantId: 4402, title: "Red plate", quantity: 1, price: "20.00" },
  ],
};
const GRAPHQL = "^/admin/api/2026-10/graphql\\.json$";

async function shopWithConnection(seed: Record<string, unknown> = { orders: [ORDER] }, settings: Record<string, unknown> = {}) {
  const creds = await createAccount();
  const shop = await createStandInShop("shopify", seed);
  const res = await call("POST", "/api/v1/shop-connections", { creds, body: { platform: "shopify", name: "My Shopify", base_url: shop.base_url, credentials: shop.credentials, settings } });
  expect(res.status, res.text).toBe(201);
  return { creds, shop, connection: res.json as { id: number; settings: Record<string, unknown> } };
}

const held = async (shop: StandInShopHandle) => (await standInShop<ShopifyState>(shop)).state;

/** A delivery as the stand-in signs it (Shopify's headers and body), for us to post. */
async function signedDelivery(shop: StandInShopHandle, topic: string, orderId = ORDER.id, extra: Record<string, unknown> = {}) {
  const res = await fetch(`${shop.base_url}/__webhook`, { method: "POST", body: JSON.stringify({ topic, order_id: orderId, ...extra }) });
  expect(res.status).toBe(200);
  return (await res.json()) as { uris: string[]; headers: Record<string, string>; body: string };
}

const post = (uri: string, headers: Record<string, string>, body: string) => call("POST", new URL(uri).pathname + new URL(uri).search, { headers, rawBody: body });

async function ordersOf(creds: Credentials) {
  return (await call("GET", "/api/v1/orders", { creds })).json.data as { reference: number; external_id: string }[];
}

describe("a Shopify connection", () => {
  it("refuses what Shopify cannot take, naming the field", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/shop-connections", {
      creds,
      body: { platform: "shopify", name: "S", base_url: "https://shop.example.com", credentials: { access_token: "shpat_x" }, settings: { api_version: "2026-05", notify_customer: "yes" } },
    });
    expect(res.status).toBe(422);
    expect(res.json.errors).toEqual({
      base_url: ["The base_url field must be the shop's own address https://{shop}.myshopify.com (Settings > Domains shows it), not a custom domain: Shopify's Admin API answers there only."],
      "credentials.api_secret": ["The credentials.api_secret field is required."],
      "settings.api_version": ["The settings.api_version field must be a stable Admin API version: YYYY-MM with MM 01, 04, 07 or 10 (e.g. 2026-10)."],
      "settings.notify_customer": ["The settings.notify_customer field must be true or false."],
    });
    expect(await rows("SELECT id FROM shop_connections WHERE account_id = ?", creds.accountId)).toEqual([]);
  });

  it("takes a myshopify.com address with the defaults, subscribes its webhooks on create, tests in words, and removes them on delete", async () => {
    const ok = await call("POST", "/api/v1/shop-connections", {
      creds: await createAccount(),
      // Paused: nothing is set up in a shop this suite cannot reach.
      body: { platform: "shopify", name: "S", base_url: "https://my-shop.myshopify.com", credentials: { access_token: "shpat_x", api_secret: "s" }, active: false },
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json.settings).toEqual({ mode: "live", api_version: "2026-10", location_id: null, intake: true, notify_customer: true });

    const { creds, shop, connection } = await shopWithConnection();
    const uri = `http://orders.test/shopify/webhooks/${connection.id}?account=${creds.accountId}`;
    expect((await held(shop)).webhooks.map((w) => [w.topic, w.uri])).toEqual([
      ["ORDERS_CREATE", uri],
      ["ORDERS_CANCELLED", uri],
    ]);
    const test = await call("POST", `/api/v1/shop-connections/${connection.id}/test`, { creds });
    expect(test.status).toBe(200);
    expect(test.json.checks.slice(1)).toEqual([
      { name: "Access token", ok: true, message: expect.stringMatching(/^The token opens the Admin API of Stand-in Shopify \(stand-in-[0-9a-f]{6}\.myshopify\.com\)\.$/) },
      { name: "API version", ok: true, message: "Shopify serves API version 2026-10, the one this service is built against." },
      { name: "Scopes", ok: true, message: "The app has the scopes the connection needs (read_orders, read_merchant_managed_fulfillment_orders, write_merchant_managed_fulfillment_orders, write_orders)." },
      { name: "Webhooks", ok: true, message: `Shopify sends new and cancelled orders to http://orders.test/shopify/webhooks/${connection.id} (subscribed to ORDERS_CREATE and ORDERS_CANCELLED).` },
    ]);
    expect(test.json.ok).toBe(true);
    const state = await held(shop);
    expect(state.operations.every((o) => o.valid)).toBe(true);

    expect((await call("DELETE", `/api/v1/shop-connections/${connection.id}`, { creds })).status).toBe(204);
    expect((await held(shop)).webhooks).toEqual([]);
    expect((await held(shop)).operations.every((o) => o.valid)).toBe(true);
  });

  it("/test says which scopes are missing and that a version Shopify no longer serves answered as another", async () => {
    const { creds, connection } = await shopWithConnection({ orders: [], scopes: ["read_orders"] }, { api_version: "2024-07", stock_sync: { enabled: true }, price_sync: { enabled: true } });
    const test = await call("POST", `/api/v1/shop-connections/${connection.id}/test`, { creds });
    expect(test.json.ok).toBe(false);
    expect(test.json.checks.slice(2)).toEqual([
      { name: "API version", ok: false, message: "Shopify no longer serves API version 2024-07: it answered with 2025-10 instead. Set settings.api_version to 2026-10." },
      {
        name: "Scopes",
        ok: false,
        message:
          "The app lacks the scopes read_merchant_managed_fulfillment_orders, write_merchant_managed_fulfillment_orders, write_orders, read_products, write_inventory, write_products: in Shopify, Settings > Apps and sales channels > Develop apps > the app > Configuration > Admin API integration, tick them, save, and install the app again.",
      },
    ]);
  });

  it("/test says a wrong token in Shopify's words", async () => {
    const { creds, connection } = await shopWithConnection();
    const patch = await call("PATCH", `/api/v1/shop-connections/${connection.id}`, { creds, body: { credentials: { access_token: "shpat_wrong", api_secret: "x" } } });
    expect(patch.status, patch.text).toBe(200);
    const test = await call("POST", `/api/v1/shop-connections/${connection.id}/test`, { creds });
    expect(test.json.checks.slice(1)).toEqual([
      { name: "platform", ok: false, message: "Shopify refused the access token (401 on POST /admin/api/2026-10/graphql.json): copy the Admin API access token again from Settings > Apps and sales channels > Develop apps > the app > API credentials" },
    ]);
  });
});

describe("the stand-in's cost bucket, as Shopify's", () => {
  it("takes a query's requested cost before it runs and refunds what the nodes really returned did not use", async () => {
    const shop = await createStandInShop("shopify", { orders: [ORDER] });
    const res = await fetch(`${shop.base_url}/admin/api/2026-10/graphql.json`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-shopify-access-token": shop.credentials.access_token },
      body: JSON.stringify({ query: "{ orders(first: 50) { nodes { id } } }" }),
    });
    const body = (await res.json()) as { data: { orders: { nodes: unknown[] } }; extensions: { cost: { requestedQueryCost: number; actualQueryCost: number; throttleStatus: { currentlyAvailable: number } } } };
    expect(body.data.orders.nodes).toHaveLength(1);
    // 2 for the connection plus 50 nodes of 1 asked; 2 plus the one node returned used.
    expect([body.extensions.cost.requestedQueryCost, body.extensions.cost.actualQueryCost]).toEqual([52, 3]);
    // A full bucket of 2,000 less the actual 3: without the refund it would hold 1,948 (plus a few ms of refill).
    expect(body.extensions.cost.throttleStatus.currentlyAvailable).toBeGreaterThanOrEqual(1997);
  });
});

describe("Shopify's orders in", () => {
  it("a signed orders/create is an order, mapped like a plugin's; the same delivery again makes no second", async () => {
    const { creds, shop } = await shopWithConnection();
    const d = await signedDelivery(shop, "orders/create");
    expect(d.uris).toHaveLength(1);
    const first = await post(d.uris[0], d.headers, d.body);
    expect(first.status, first.text).toBe(200);
    expect(first.json).toEqual({ message: "Order created", reference: expect.any(Number) });
    const again = await post(d.uris[0], d.headers, d.body);
    expect(again.json).toEqual({ message: "Order already exists", reference: first.json.reference });
    // A new delivery of the same order (another webhook id) is the same order too.
    const other = await signedDelivery(shop, "orders/create");
    expect((await post(other.uris[0], other.headers, other.body)).json.reference).toBe(first.json.reference);

    expect((await ordersOf(creds)).map((o) => o.external_id)).toEqual(["5550001"]);
    const order = (await call("GET", `/api/v1/orders/${first.json.reference}`, { creds })).json;
    expect({ source: order.source, email: order.shipping_address.email, test: order.test, custom: order.custom, country: order.shipping_address.country, city: order.shipping_address.city }).toEqual({
      source: "My Shopify",
      email: "customer@example.com",
      test: false,
      custom: { shopify_name: "#1001", shopify_connection_id: expect.any(Number) },
      country: "NL",
      city: "Amsterdam",
    });
    expect(order.order_lines.map((l: Record<string, unknown>) => [l.external_id, l.reference, l.name, l.quantity, l.price])).toEqual([
      ["4401", "MUG-BLUE", "Blue mug", 3, 12.5],
      ["4402", "PLATE-RED", "Red plate", 1, 20],
    ]);

    // Its name in Shopify is found by the list's one search, with or without the '#', and shown on its console page.
    const found = async (q: string) => ((await call("GET", `/api/v1/orders?q=${encodeURIComponent(q)}`, { creds })).json.data as { reference: string }[]).map((o) => o.reference);
    expect([await found("#1001"), await found("1001"), await found(" #1001 "), await found("#1002"), await found("#100")]).toEqual([[String(first.json.reference)], [String(first.json.reference)], [String(first.json.reference)], [], []]);
    // The search's keys are exactly what the base tables say (test/helpers/counts.ts recomputes them).
    expect(await countsDiff(env.DB, [creds.accountId])).toEqual({ counters: [], facets: [], fts: [] });
    const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
    const page = await getPage(`/console/orders/${first.json.reference}`, jar);
    expect(page.html).toContain("External ID <strong>5550001</strong> (Shopify order <strong>#1001</strong>) from My Shopify");
  });

  it("refuses a wrong signature, a body changed after signing, an unknown or deleted connection, a paused one, and a huge body: nothing stored", async () => {
    const { creds, shop, connection } = await shopWithConnection();
    const d = await signedDelivery(shop, "orders/create");
    const uri = d.uris[0];
    const wrong = await post(uri, { ...d.headers, "X-Shopify-Hmac-Sha256": btoa("x".repeat(32)) }, d.body);
    expect([wrong.status, wrong.json]).toEqual([401, { message: "Unauthorized", error: "The X-Shopify-Hmac-Sha256 signature does not match the body: it must be the base64 HMAC-SHA256 of the raw body with the app's API secret key." }]);
    expect((await post(uri, { ...d.headers, "X-Shopify-Hmac-Sha256": "" }, d.body)).status).toBe(401);
    expect((await post(uri, d.headers, d.body.replace('"quantity":3', '"quantity":30'))).status).toBe(401);
    const unknown = await post(uri.replace(`/webhooks/${connection.id}?`, `/webhooks/${connection.id + 100000}?`), d.headers, d.body);
    expect(unknown.status).toBe(404);
    const otherAccount = await post(uri.replace(/account=\d+/, `account=${creds.accountId + 100000}`), d.headers, d.body);
    expect(otherAccount.status).toBe(404);
    const huge = await post(uri, d.headers, JSON.stringify({ id: ORDER.id, pad: "x".repeat(1024 * 1024) }));
    expect(huge.status).toBe(413);

    expect((await call("PATCH", `/api/v1/shop-connections/${connection.id}`, { creds, body: { active: false } })).status).toBe(200);
    const paused = await post(uri, d.headers, d.body);
    expect([paused.status, paused.json.error]).toEqual([409, `Shop connection ${connection.id} is paused: nothing is taken in until it is resumed.`]);
    expect(await ordersOf(creds)).toEqual([]);

    // Resumed, the delivery Shopify tries again is taken in; deleted, nothing is.
    expect((await call("PATCH", `/api/v1/shop-connections/${connection.id}`, { creds, body: { active: true } })).status).toBe(200);
    expect((await post(uri, d.headers, d.body)).status).toBe(200);
    expect((await call("DELETE", `/api/v1/shop-connections/${connection.id}`, { creds })).status).toBe(204);
    const second = await signedDelivery(shop, "orders/create", ORDER.id, { body: { ...JSON.parse(d.body), id: 5_550_002 } });
    expect((await post(uri, second.headers, second.body)).status).toBe(404);
    expect((await ordersOf(creds)).map((o) => o.external_id)).toEqual(["5550001"]);
  });

  it("an order Shopify sends without what an order needs is a 422 naming the field, nothing stored", async () => {
    const { creds, shop } = await shopWithConnection();
    const d = await signedDelivery(shop, "orders/create", ORDER.id, { body: { id: 5_550_003, name: "#1003", line_items: [], shipping_address: null, total_price: "0.00" } });
    const res = await post(d.uris[0], d.headers, d.body);
    expect(res.status).toBe(422);
    expect(Object.keys(res.json.errors)).toEqual(expect.arrayContaining(["shipping_address", "products"]));
    expect(await ordersOf(creds)).toEqual([]);
  });
});

describe("back into Shopify", () => {
  it("a partial then the full shipment reach Shopify as two fulfillments with their quantities and tracking, through THROTTLED and a hang, never twice", async () => {
    // A bucket that holds this test's reads: the THROTTLED answers are the injected ones, not the stand-in's own bucket running dry on a loaded machine.
    const { creds, shop } = await shopWithConnection({ orders: [ORDER], bucket: { maximumAvailable: 20_000 } });
    const [{ key }] = await supplierChain(creds, [{ channel: "pull" }]);
    const d = await signedDelivery(shop, "orders/create");
    const { reference } = (await post(d.uris[0], d.headers, d.body)).json;
    await awaitingPickup(key!, String(reference));
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    const [mugs, plate] = order.order_lines.map((l: { id: number }) => l.id) as number[];
    const orderId = (await rows<{ id: number }>("SELECT id FROM orders WHERE reference = ?", String(reference)))[0].id;

    // The first fulfillment meets a spent cost bucket twice, then goes.
    const throttled = { errors: [{ message: "Throttled", extensions: { code: "THROTTLED" } }], extensions: { cost: { requestedQueryCost: 50, actualQueryCost: null, throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 0, restoreRate: 500 } } } };
    await injectFault(shop, { path: GRAPHQL, sent: "fulfillmentCreate", status: 200, body: throttled, times: 2 });
    await answered(key!, [ship(mugs, 1, "3SFIRST")]);
    await writeBacksSettled(orderId, 1);

    // The second is applied by Shopify, but its answer never comes: the next attempt finds it.
    await injectFault(shop, { path: GRAPHQL, sent: "fulfillmentCreate", hangAfterApplying: true });
    await answered(key!, [ship(mugs, 2, "3SSECOND"), ship(plate, 1, "3SSECOND")]);
    // One write-back per shipped line (the mugs' second part, the plate), then the completion.
    const settled = await writeBacksSettled(orderId, 4);
    expect(settled.map((w) => [w.kind, w.status])).toEqual([
      ["shipment", "done"],
      ["shipment", "done"],
      ["shipment", "done"],
      ["complete", "skipped"],
    ]);

    const state = await held(shop);
    const o = state.orders[0];
    expect(o.fulfillments.map((f) => ({ lines: f.lines, tracking: f.tracking, notify: f.notifyCustomer }))).toEqual([
      { lines: [{ lineItemId: 11, quantity: 1 }], tracking: [{ company: "PostNL", number: "3SFIRST", url: "https://track.example.com/3SFIRST" }], notify: true },
      { lines: [{ lineItemId: 11, quantity: 2 }], tracking: [{ company: "PostNL", number: "3SSECOND", url: "https://track.example.com/3SSECOND" }], notify: true },
      { lines: [{ lineItemId: 12, quantity: 1 }], tracking: [{ company: "PostNL", number: "3SSECOND", url: "https://track.example.com/3SSECOND" }], notify: true },
    ]);
    // The hung fulfillmentCreate was applied; the next attempt looked and found it: one fulfillmentCreate per shipment reached Shopify's data.
    const sync = (await call("GET", `/api/v1/orders/${reference}/shop-sync`, { creds })).json.data as { shop_ids: string[]; attempts: { error: string | null }[] }[];
    expect(sync[1].attempts.map((a) => a.error)).toEqual([expect.stringMatching(/did not answer within 1 s$/), null]);
    expect(sync[1].shop_ids).toEqual([expect.stringMatching(/^gid:\/\/shopify\/Fulfillment\/\d+$/)]);
    expect(o.fulfillmentOrders[0].status).toBe("CLOSED");
    expect(state.operations.every((op) => op.valid)).toBe(true);
  });

  it("several tracking numbers for one shipment are several fulfillments, the units split without inventing any; one made before a failure is found, not made again", async () => {
    // A bucket that holds this test's reads (the waits for a refill are the client's, tested above).
    const shop = await createStandInShop("shopify", { orders: [ORDER], bucket: { maximumAvailable: 20_000 } });
    const { conn, http } = adapterAt("shopify", shop.base_url, shop.credentials);
    const ref = { externalId: String(ORDER.id), reference: "R-1" };
    const shopOrder = await shopify.findOrder(conn, http, ref);
    const line = (i: number) => ({ lineId: i + 1, productId: String(ORDER.lineItems[i].variantId), sku: ORDER.lineItems[i].sku, name: ORDER.lineItems[i].title, quantity: ORDER.lineItems[i].quantity });
    const tracking = (number: string) => ({ carrier: "DHL", number, url: `https://track.example.com/${number}` });
    const write = (i: number, quantity: number, numbers: string[]) => ({ order: ref, lines: [{ line: line(i), quantity }], trackings: numbers.map(tracking), orderShippedInFull: false });

    // Three mugs in two parcels: 2 + 1. The second fulfillment meets a 429: the first is made, the write fails.
    await injectFault(shop, { path: GRAPHQL, sent: "fulfillmentCreate[\\s\\S]*JD02", status: 429, headers: { "retry-after": "1" }, body: { errors: "Exceeded 2 calls per second for api client." } });
    const first = await shopify.writeShipment(conn, http, shopOrder, write(0, 3, ["JD01", "JD02"]), { look: false }).catch((e: unknown) => e);
    // A clear failure, so the retry is not asked to look; it looks anyway, finds the first and makes the second.
    expect(first).toMatchObject({ kind: "rate_limited" });
    const again = await shopify.writeShipment(conn, http, shopOrder, write(0, 3, ["JD01", "JD02"]), { look: false });
    const o = (await held(shop)).orders[0];
    expect(o.fulfillments.map((f) => [f.lines, f.tracking.map((t) => t.number)])).toEqual([
      [[{ lineItemId: 11, quantity: 2 }], ["JD01"]],
      [[{ lineItemId: 11, quantity: 1 }], ["JD02"]],
    ]);
    expect(again).toEqual({ outcome: "written", shopIds: o.fulfillments.map((f) => `gid://shopify/Fulfillment/${f.id}`) });
    // Asked again: both found, nothing made.
    expect(await shopify.writeShipment(conn, http, shopOrder, write(0, 3, ["JD01", "JD02"]), { look: false })).toEqual({ outcome: "found", shopIds: again.outcome === "written" ? again.shopIds : [] });

    // One plate, two numbers: one unit cannot be split, so both numbers go on its one fulfillment.
    await shopify.writeShipment(conn, http, shopOrder, write(1, 1, ["JD03", "JD04"]), { look: false });
    const after = (await held(shop)).orders[0];
    expect(after.fulfillments.slice(2).map((f) => [f.lines, f.tracking])).toEqual([
      [[{ lineItemId: 12, quantity: 1 }], [tracking("JD03"), tracking("JD04")].map((t) => ({ company: t.carrier, number: t.number, url: t.url }))],
    ]);
    // Never more than is left: nothing written.
    const error = await failure(shopify.writeShipment(conn, http, shopOrder, write(0, 2, ["JD05", "JD06"]), { look: false }));
    expect(error.message).toBe("Shopify order #1001 has 0 of MUG-BLUE left to fulfill, not 2: nothing was written");
    expect((await held(shop)).orders[0].fulfillments).toHaveLength(3);
    expect((await held(shop)).operations.every((op) => op.valid)).toBe(true);
  });

  it("a declined line with no re-route left is a line of the staff note and a hold on the fulfillment order; orders/cancelled cancels the rest through the supplier", async () => {
    const { creds, shop } = await shopWithConnection();
    const [{ key }] = await supplierChain(creds, [{ channel: "pull" }]);
    const d = await signedDelivery(shop, "orders/create");
    const { reference } = (await post(d.uris[0], d.headers, d.body)).json;
    await awaitingPickup(key!, String(reference));
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    const plate = order.order_lines[1].id as number;
    const orderId = (await rows<{ id: number }>("SELECT id FROM orders WHERE reference = ?", String(reference)))[0].id;
    await answered(key!, [{ line_id: plate, action: "decline", reason: "discontinued" }]);
    const settled = await writeBacksSettled(orderId, 2);
    expect(settled.map((w) => [w.kind, w.status])).toEqual([
      ["note", "done"],
      ["hold", "done"],
    ]);
    const state = await held(shop);
    expect(state.orders[0].note).toMatch(/^Red plate \(4402, SKU PLATE-RED\) × 1 was declined, and no other supplier takes it\. Declined by supplier S1-[\w-]+: discontinued$/);
    expect(state.orders[0].fulfillmentOrders.map((f) => [f.status, f.holds.map((h) => h.handle)])).toEqual([["ON_HOLD", ["order-intake"]]]);

    const cancelled = await signedDelivery(shop, "orders/cancelled");
    const res = await post(cancelled.uris[0], cancelled.headers, cancelled.body);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ message: "Cancellation requested", reference });
    const again = await post(cancelled.uris[0], cancelled.headers, cancelled.body);
    expect([again.status, again.json.reference]).toEqual([200, reference]);
    const list = (await call("GET", `/api/v1/orders/${reference}/cancellations`, { creds })).json.data;
    expect(list).toHaveLength(1);
    expect((await held(shop)).operations.every((o) => o.valid)).toBe(true);
  });
});

describe("stock into Shopify", () => {
  it("a feed's stock is set with inventorySetQuantities at the primary location, the compare value read first; a stale compare is read again, never overwritten blindly", async () => {
    const seed = {
      variants: [
        { id: 4401, sku: "MUG-1", barcode: null, inventoryItemId: 8801 },
        { id: 4402, sku: "PLATE", barcode: null, inventoryItemId: 8802 },
      ],
      available: { "8801@71000001": 1, "8802@71000001": 0 },
    };
    const stale = { data: { inventorySetQuantities: { inventoryAdjustmentGroup: null, userErrors: [{ field: ["input", "quantities", "0", "changeFromQuantity"], message: "The specified compare quantity does not match the current quantity.", code: "CHANGE_FROM_QUANTITY_STALE" }] } } };
    const { shop, sync } = await syncedShop("shopify", seed, STOCK_ON, [
      { sku: "MUG-1", stock_quantity: 7 },
      { sku: "PLATE", stock_quantity: 4 },
      { sku: "GHOST-1", stock_quantity: 5 },
    ], (s) => injectFault(s, { path: GRAPHQL, sent: "inventorySetQuantities", status: 200, body: stale }));
    expect(sync).toMatchObject({ status: "succeeded", total: 3, counts: { updated: 2, unchanged: 0, unknown: 1, skipped: 0, failed: 0 }, error: null });
    const state = await held(shop);
    expect(state.available).toEqual({ "8801@71000001": 7, "8802@71000001": 4 });
    const writes = state.operations.filter((o) => o.query.includes("inventorySetQuantities"));
    // Sent twice: refused as stale, then again after reading the quantities once more; only the second was taken.
    expect((await standInShop(shop)).received.filter((r) => r.body.includes("inventorySetQuantities"))).toHaveLength(2);
    expect(writes.map((w) => w.variables)).toEqual([
      { input: { name: "available", reason: "correction", referenceDocumentUri: expect.stringMatching(/^gid:\/\/order-intake\/StockSync\/\d+$/), quantities: [
        { inventoryItemId: "gid://shopify/InventoryItem/8801", locationId: "gid://shopify/Location/71000001", quantity: 7, changeFromQuantity: 1 },
        { inventoryItemId: "gid://shopify/InventoryItem/8802", locationId: "gid://shopify/Location/71000001", quantity: 4, changeFromQuantity: 0 },
      ] } },
    ]);
    expect(state.operations.filter((o) => o.query.includes("query Levels"))).toHaveLength(2);
    expect(state.operations.every((o) => o.valid)).toBe(true);
  });
});

describe("prices into Shopify", () => {
  it("price sync on: the stock, then one productVariantsBulkUpdate per product with its variants' prices; a refused variant fails in Shopify's words, the rest are written", async () => {
    const seed = {
      variants: [
        { id: 4401, sku: "MUG-1", barcode: null, inventoryItemId: 8801, productId: 601, price: "9.00" },
        { id: 4402, sku: "MUG-2", barcode: null, inventoryItemId: 8802, productId: 601, price: "9.00" },
        { id: 4403, sku: "PLATE", barcode: null, inventoryItemId: 8803, productId: 602, price: "5.00" },
      ],
      available: { "8801@71000001": 1, "8802@71000001": 1, "8803@71000001": 1 },
    };
    const settings = { ...STOCK_ON, price_sync: { enabled: true, markup_percent: 50, round_to: 0.99 } };
    const refusal = { data: { productVariantsBulkUpdate: { product: null, productVariants: null, userErrors: [{ field: ["variants", "0", "price"], message: "Price must be less than 1000000000000000000", code: "INVALID" }] } } };
    const { creds, shop, connectionId, sync } = await syncedShop("shopify", seed, settings, [
      { sku: "MUG-1", stock_quantity: 7, purchase_price: 10 },
      { sku: "MUG-2", stock_quantity: 3, purchase_price: 12 },
      { sku: "PLATE", stock_quantity: 4, purchase_price: 2 },
    ], (s) => injectFault(s, { path: GRAPHQL, sent: "productVariantsBulkUpdate[\\s\\S]*Product/602", status: 200, body: refusal }));
    expect(sync).toMatchObject({ status: "succeeded", total: 3, counts: { updated: 2, failed: 1 } });
    const products = (await syncWithProducts(creds, connectionId, sync.id)).products.data;
    expect(products.map((p: Record<string, unknown>) => [p.key, p.outcome, p.price, p.reason])).toEqual([
      ["MUG-1", "updated", 15.99, null],
      ["MUG-2", "updated", 18.99, null],
      ["PLATE", "failed", 3.99, "Shopify refused the price: Price must be less than 1000000000000000000"],
    ]);
    const state = await held(shop);
    expect(state.available).toEqual({ "8801@71000001": 7, "8802@71000001": 3, "8803@71000001": 4 });
    expect(state.variants.map((v) => [v.sku, v.price])).toEqual([
      ["MUG-1", "15.99"],
      ["MUG-2", "18.99"],
      ["PLATE", "5.00"],
    ]);
    const bulk = (await standInShop(shop)).received.filter((r) => r.body.includes("productVariantsBulkUpdate")).map((r) => JSON.parse(r.body).variables);
    expect(bulk).toEqual([
      { productId: "gid://shopify/Product/601", variants: [{ id: "gid://shopify/ProductVariant/4401", price: "15.99" }, { id: "gid://shopify/ProductVariant/4402", price: "18.99" }] },
      { productId: "gid://shopify/Product/602", variants: [{ id: "gid://shopify/ProductVariant/4403", price: "3.99" }] },
    ]);
    expect(state.operations.every((o) => o.valid)).toBe(true);
  });
});

describe("Shopify's orders the webhooks missed", () => {
  /** One cron tick, as Cloudflare fires it; a time no other file's cron uses. */
  async function tick() {
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: Date.now() + Math.floor(Math.random() * 1000) }), env, ctx);
    await waitOnExecutionContext(ctx);
  }
  const pulledAt = async (id: number) => (await rows<{ p: string | null }>("SELECT pulled_at AS p FROM shop_connections WHERE id = ?", id))[0].p;
  /** Ticks until this connection's turn came (other files' connections share the tick's bound), at most a few. */
  async function tickUntilPulled(id: number) {
    const before = await pulledAt(id);
    for (let i = 0; i < 5; i++) {
      await tick();
      if ((await pulledAt(id)) !== before) return;
    }
    throw new Error(`connection ${id} was not pulled in 5 ticks`);
  }
  const externalIds = async (accountId: number) => (await rows<{ e: string }>("SELECT external_id AS e FROM orders WHERE account_id = ? ORDER BY external_id", accountId)).map((r) => r.e);

  it("a connection whose pull fails on our side (its credentials cannot be opened) goes to the back of the queue, recorded on the run; the others are still pulled", async () => {
    const broken = await shopWithConnection({ orders: [] });
    // First in the queue (never pulled), and its sealed credentials unreadable, as after a botched key rotation.
    await env.DB.prepare("UPDATE shop_connections SET credentials_sealed = 'not sealed', pulled_at = NULL WHERE id = ?").bind(broken.connection.id).run();
    const { creds, connection } = await shopWithConnection({ orders: [{ ...ORDER, id: 7_200_001, updatedAt: new Date(Date.now() + 60_000).toISOString() }] });
    try {
      await tickUntilPulled(connection.id);
      expect(await externalIds(creds.accountId)).toEqual(["7200001"]);
      expect(await pulledAt(broken.connection.id)).not.toBeNull();
      const [run] = await rows<{ errors: string }>("SELECT errors FROM sweeper_runs WHERE errors LIKE ? ORDER BY id DESC LIMIT 1", `%Connection ${broken.connection.id}: %`);
      expect(JSON.parse(run.errors).orders_pulled).toMatch(new RegExp(`^Error: (.*; )?Connection ${broken.connection.id}: not a sealed value`));
    } finally {
      // The shard's later ticks (other files' tests) must not meet it: the shop owner deletes it.
      const gone = await call("DELETE", `/api/v1/shop-connections/${broken.connection.id}`, { creds: broken.creds });
      expect(gone.status, gone.text).toBe(204);
    }
  });

  it("the cron takes in what no webhook brought, a page bound per tick, once; a cancellation missed cancels; one cancelled before it came in is not taken", async () => {
    // Changed in Shopify after the connection was made (its pull starts there); no webhook delivered.
    const later = (s: number) => new Date(Date.now() + 60_000 + s * 1000).toISOString();
    const missed = Array.from({ length: PULL_PAGE * PULL_PAGES + 1 }, (_, i) => ({ ...ORDER, id: 7_000_001 + i, updatedAt: later(i % 3) }));
    const cancelledMissed = { ...ORDER, id: 7_100_001, updatedAt: later(5), cancelledAt: later(5) };
    const neverCame = { ...ORDER, id: 7_100_002, updatedAt: later(6), cancelledAt: later(6) };
    // A bucket that holds this test's reads (the waits for a refill are the client's, tested above).
    const { creds, shop, connection } = await shopWithConnection({ orders: [cancelledMissed, ...missed, neverCame], bucket: { maximumAvailable: 20_000 } });
    // The order whose cancellation was missed came in by its webhook, and its supplier has it.
    const [{ key }] = await supplierChain(creds, [{ channel: "pull" }]);
    const d = await signedDelivery(shop, "orders/create", cancelledMissed.id);
    const { reference } = (await post(d.uris[0], d.headers, d.body)).json;
    await awaitingPickup(key!, String(reference));

    await tickUntilPulled(connection.id);
    // One tick: PULL_PAGES pages of PULL_PAGE changed orders, oldest first; the last missed one waits for the next tick.
    expect((await externalIds(creds.accountId)).length).toBe(1 + PULL_PAGE * PULL_PAGES);
    await tickUntilPulled(connection.id);
    const all = [String(cancelledMissed.id), ...missed.map((o) => String(o.id))].sort();
    expect(await externalIds(creds.accountId)).toEqual(all);
    await tickUntilPulled(connection.id);
    expect(await externalIds(creds.accountId)).toEqual(all);

    // Mapped as its webhook maps it, and its webhook arriving late finds it.
    const late = await signedDelivery(shop, "orders/create", missed[0].id);
    const again = await post(late.uris[0], late.headers, late.body);
    expect(again.json).toMatchObject({ message: "Order already exists" });
    const order = (await call("GET", `/api/v1/orders/${again.json.reference}`, { creds })).json;
    expect({ source: order.source, custom: order.custom, country: order.shipping_address.country, lines: order.order_lines.map((l: Record<string, unknown>) => [l.external_id, l.reference, l.quantity, l.price]) }).toEqual({
      source: "My Shopify",
      custom: { shopify_name: expect.stringMatching(/^#10\d\d$/), shopify_connection_id: connection.id },
      country: "NL",
      lines: [
        ["4401", "MUG-BLUE", 3, 12.5],
        ["4402", "PLATE-RED", 1, 20],
      ],
    });
    // The missed orders/cancelled: one cancellation, through the same flow its webhook takes, not one a tick.
    const cancellations = (await call("GET", `/api/v1/orders/${reference}/cancellations`, { creds })).json.data as unknown[];
    expect(cancellations).toHaveLength(1);
    const ops = (await held(shop)).operations;
    expect(ops.every((o) => o.valid)).toBe(true);
    // The whole order is read once for each order taken in, never for one that is ours already or cancelled before it came.
    expect(ops.filter((o) => o.query.startsWith("query PulledOrder")).map((o) => o.variables.id).sort()).toEqual(missed.map((o) => `gid://shopify/Order/${o.id}`).sort());
  });
});
