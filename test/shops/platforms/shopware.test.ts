// The Shopware 6 adapter (src/shops/platforms/shopware.ts) against the stand-in Shopware
// (test/shops/stand-ins/shopware.ts): each test creates its own shop, calls the adapter directly
// through a ShopHttp, and asserts what the shop received and what it now holds.
import { describe, expect, inject, it } from "vitest";
import { ShopError, ShopHttp } from "../../../src/shops/platforms/http";
import type { LineRef, OrderRef, ShipmentWrite, ShopConnection } from "../../../src/shops/platforms/platform";
import type { Credentials, Settings } from "../../../src/shops/platforms/settings";
import { shopware } from "../../../src/shops/platforms/shopware";
import { createStandInShop, injectFault, standInShop, type StandInShopHandle } from "../stand-ins/client";
import type { ShopwareSeed, ShopwareState } from "../stand-ins/shopware";

type Conn = ShopConnection<Credentials<"shopware">, Settings<"shopware">>;

const MUG = "0190a7c1d2e34f5a8b9c0d1e2f3a4b5c";
const CUP = "0190a7c1d2e34f5a8b9c0d1e2f3a4b6d";
const ORDER: OrderRef = { externalId: "10001", reference: "ORD-1" };
const MUG_LINE: LineRef = { lineId: 1, productId: MUG, sku: "SW-MUG", name: "Blue mug", quantity: 2 };
const CUP_LINE: LineRef = { lineId: 2, productId: CUP, sku: "SW-CUP", name: "Cup", quantity: 1 };

/** A shop with order 10001 (a mug and a cup, one open delivery), plus whatever the seed says. */
async function shopWith(seed: ShopwareSeed = {}): Promise<StandInShopHandle> {
  return createStandInShop("shopware", {
    orders: [
      {
        orderNumber: "10001",
        lineItems: [
          { productId: MUG, productNumber: "SW-MUG", quantity: 2, label: "Blue mug" },
          { productId: CUP, productNumber: "SW-CUP", quantity: 1, label: "Cup" },
        ],
      },
    ],
    ...seed,
  });
}

let connections = 0;
/** A connection to the shop, and a fresh ShopHttp per attempt (as the write-back makes one per attempt). */
function connect(shop: StandInShopHandle, options: { dryRun?: boolean; timeoutMs?: number; baseUrl?: string; credentials?: Credentials<"shopware"> } = {}) {
  const conn: Conn = {
    id: 1_000_000 + ++connections,
    platform: "shopware",
    baseUrl: options.baseUrl ?? shop.base_url,
    credentials: options.credentials ?? (shop.credentials as Credentials<"shopware">),
    settings: { mode: options.dryRun ? "dry_run" : "live" },
  };
  const http = () => new ShopHttp({ baseUrl: conn.baseUrl, timeoutMs: options.timeoutMs ?? 5000, dryRun: options.dryRun ?? false, secrets: Object.values(conn.credentials) });
  return { conn, http };
}

const held = async (shop: StandInShopHandle) => standInShop<ShopwareState>(shop);
/** What the shop received, as method, path and body (the token request's body holds the credentials). */
const calls = async (shop: StandInShopHandle) => (await held(shop)).received.map((r) => [r.method, r.path, r.body]);
const TOKEN = (shop: StandInShopHandle) => [
  "POST",
  "/api/oauth/token",
  JSON.stringify({ grant_type: "client_credentials", client_id: shop.credentials.client_id, client_secret: shop.credentials.client_secret }),
];
const FIND_DELIVERY = (id: string) => ["POST", "/api/search/order-delivery", JSON.stringify({ filter: [{ type: "equals", field: "id", value: id }], limit: 1, associations: { stateMachineState: {} } })];

const shipment = (trackings: string[], inFull: boolean, lines: ShipmentWrite["lines"] = [{ line: MUG_LINE, quantity: 2 }]): ShipmentWrite => ({
  order: ORDER,
  lines,
  trackings: trackings.map((number) => ({ carrier: "DHL", number, url: null })),
  orderShippedInFull: inFull,
});

async function thrown(promise: Promise<unknown>): Promise<ShopError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ShopError) return error;
    throw error;
  }
  throw new Error("expected a ShopError");
}

/** The shop's order (findOrder) and what the shop received up to there, forgotten for the next assertions. */
async function found(shop: StandInShopHandle, c: ReturnType<typeof connect>) {
  const order = await shopware.findOrder(c.conn, c.http(), ORDER);
  return { order, before: (await held(shop)).received.length };
}

describe("Shopware: test()", () => {
  it("good credentials: reachable, a token, orders readable, deliveries and orders updatable; nothing changed in the shop", async () => {
    const shop = await shopWith();
    const c = connect(shop);
    const checks = await shopware.test(c.conn, c.http());
    expect(checks).toEqual([
      { name: "Reachable", ok: true, message: `${shop.base_url} answers as a Shopware Admin API` },
      { name: "Credentials", ok: true, message: "Shopware accepted the integration's access key and secret and handed out a token" },
      { name: "Read orders", ok: true, message: "Orders, their line items and deliveries can be read (the newest is 10001)" },
      { name: "Update deliveries", ok: true, message: "The integration may write tracking codes and ship deliveries (order_delivery:update)" },
      { name: "Update orders", ok: true, message: "The integration may write private notes and complete orders (order:update)" },
    ]);
    const { state, received } = await held(shop);
    expect(received.map((r) => [r.method, r.path, r.answered])).toEqual([
      ["POST", "/api/oauth/token", 200],
      ["POST", "/api/search/order", 200],
      ["POST", `/api/_action/order_delivery/${state.orders[0].deliveries[0].id}/state/order_intake_privilege_check`, 400],
      ["POST", `/api/_action/order/${state.orders[0].id}/state/order_intake_privilege_check`, 400],
    ]);
    expect(state.history).toEqual([]);
    expect(state.orders[0]).toMatchObject({ state: "open", deliveries: [{ state: "open", trackingCodes: [] }] });
  });

  it("wrong credentials: reachable, the credentials refused, the rest not checked", async () => {
    const shop = await shopWith();
    const c = connect(shop, { credentials: { client_id: shop.credentials.client_id, client_secret: "wrong-secret" } });
    expect(await shopware.test(c.conn, c.http())).toEqual([
      { name: "Reachable", ok: true, message: `${shop.base_url} answers as a Shopware Admin API` },
      {
        name: "Credentials",
        ok: false,
        message: "Shopware refused the integration's access key ID or secret access key (401): copy both from Settings > System > Integrations (the secret is shown once; create a new one if it is lost)",
      },
      { name: "Read orders", ok: false, message: "not checked: the credentials were refused" },
      { name: "Update deliveries", ok: false, message: "not checked: the credentials were refused" },
      { name: "Update orders", ok: false, message: "not checked: the credentials were refused" },
    ]);
    expect((await held(shop)).received.map((r) => [r.path, r.answered])).toEqual([["/api/oauth/token", 401]]);
  });

  it("a role without the update privileges: says which privilege is missing, for what", async () => {
    const shop = await shopWith({ privileges: ["order:read", "order_line_item:read", "order_delivery:read", "state_machine_state:read"] });
    const c = connect(shop);
    const checks = await shopware.test(c.conn, c.http());
    const hint = "give the integration's role the permission (Settings > System > Users & permissions > Roles), or make the integration an administrator";
    expect(checks.slice(2)).toEqual([
      { name: "Read orders", ok: true, message: "Orders, their line items and deliveries can be read (the newest is 10001)" },
      { name: "Update deliveries", ok: false, message: `The integration lacks the privilege order_delivery:update, needed to write tracking codes and ship deliveries: ${hint}` },
      { name: "Update orders", ok: false, message: `The integration lacks the privilege order:update, needed to write private notes and complete orders: ${hint}` },
    ]);
  });

  it("a role that cannot read deliveries: the read check names the privilege", async () => {
    const shop = await shopWith({ privileges: ["order:read", "order_line_item:read", "state_machine_state:read", "order_delivery:update", "order:update"] });
    const c = connect(shop);
    const checks = await shopware.test(c.conn, c.http());
    expect(checks.slice(2)).toEqual([
      {
        name: "Read orders",
        ok: false,
        message:
          "The Shopware integration lacks the privilege order_delivery:read (403 on POST /api/search/order): give the integration's role the permission (Settings > System > Users & permissions > Roles), or make the integration an administrator",
      },
      { name: "Update deliveries", ok: false, message: "not checked: orders cannot be read" },
      { name: "Update orders", ok: false, message: "not checked: orders cannot be read" },
    ]);
  });

  it("a refused port: not reachable, in words, the rest not checked", async () => {
    const shop = await shopWith();
    const closed = new URL(inject("closedPortUrl"));
    const c = connect(shop, { baseUrl: closed.origin });
    expect(await shopware.test(c.conn, c.http())).toEqual([
      { name: "Reachable", ok: false, message: `The connection to ${closed.host} was refused: nothing listens on port ${closed.port} there` },
      { name: "Credentials", ok: false, message: "not checked: the shop is not reachable" },
      { name: "Read orders", ok: false, message: "not checked: the shop is not reachable" },
      { name: "Update deliveries", ok: false, message: "not checked: the shop is not reachable" },
      { name: "Update orders", ok: false, message: "not checked: the shop is not reachable" },
    ]);
  });
});

describe("Shopware: findOrder", () => {
  it("finds the order by its number, with its product line items (productId, productNumber) and its delivery", async () => {
    const shop = await shopWith();
    const c = connect(shop);
    const order = await shopware.findOrder(c.conn, c.http(), ORDER);
    const { state, received } = await held(shop);
    const o = state.orders[0];
    expect(order).toEqual({
      id: o.id,
      number: "10001",
      items: [
        { id: o.lineItems[0].id, productIds: [MUG, o.lineItems[0].id], sku: "SW-MUG", quantity: 2 },
        { id: o.lineItems[1].id, productIds: [CUP, o.lineItems[1].id], sku: "SW-CUP", quantity: 1 },
      ],
      extra: { deliveryIds: [o.deliveries[0].id], internalComment: true },
    });
    expect(received.map((r) => [r.method, r.path, r.body])[1]).toEqual([
      "POST",
      "/api/search/order",
      JSON.stringify({ filter: [{ type: "equals", field: "orderNumber", value: "10001" }], limit: 2, associations: { lineItems: {}, deliveries: {} } }),
    ]);
  });

  it("an order with two deliveries: the primary one (Shopware 6.7's primaryOrderDeliveryId) comes first, and gets the tracking", async () => {
    const shop = await shopWith({
      orders: [{ orderNumber: "10001", lineItems: [{ productId: MUG, quantity: 2 }], deliveries: [{}, {}], primaryDelivery: 1 }],
    });
    const c = connect(shop);
    const order = await shopware.findOrder(c.conn, c.http(), ORDER);
    const [first, second] = (await held(shop)).state.orders[0].deliveries;
    expect(order.extra).toEqual({ deliveryIds: [second.id, first.id], internalComment: true });
    await shopware.writeShipment(c.conn, c.http(), order, shipment(["P1"], true), { look: false });
    expect((await held(shop)).state.orders[0].deliveries).toEqual([
      { id: first.id, state: "open", trackingCodes: [] },
      { id: second.id, state: "shipped", trackingCodes: ["P1"] },
    ]);
  });

  it("an unknown order number: not_found, in words", async () => {
    const shop = await shopWith();
    const c = connect(shop);
    const error = await thrown(shopware.findOrder(c.conn, c.http(), { externalId: "99999", reference: "ORD-9" }));
    expect([error.kind, error.message]).toEqual(["not_found", "Shopware has no order number 99999 (our order ORD-9)"]);
  });
});

describe("Shopware: writeShipment", () => {
  it("shipped in full: the tracking code on the delivery, then the transition ship", async () => {
    const shop = await shopWith();
    const c = connect(shop);
    const { order, before } = await found(shop, c);
    const deliveryId = (order.extra as { deliveryIds: string[] }).deliveryIds[0];
    expect(await shopware.writeShipment(c.conn, c.http(), order, shipment(["JJD0001"], true), { look: false })).toEqual({ outcome: "written", shopIds: [deliveryId] });
    const { state, received } = await held(shop);
    expect(received.slice(before).map((r) => [r.method, r.path, r.body])).toEqual([
      FIND_DELIVERY(deliveryId),
      ["PATCH", `/api/order-delivery/${deliveryId}`, JSON.stringify({ trackingCodes: ["JJD0001"] })],
      ["POST", `/api/_action/order_delivery/${deliveryId}/state/ship`, ""],
    ]);
    expect(state.orders[0].deliveries).toEqual([{ id: deliveryId, state: "shipped", trackingCodes: ["JJD0001"] }]);
    expect(state.history).toEqual([{ entity: "order_delivery", id: deliveryId, transition: "ship", from: "open", to: "shipped" }]);
  });

  it("partial shipments: ship_partially once, a second partial adds its code without a transition, the last one ships", async () => {
    const shop = await shopWith();
    const c = connect(shop);
    const { order } = await found(shop, c);
    const deliveryId = (order.extra as { deliveryIds: string[] }).deliveryIds[0];
    const mugOnly = [{ line: MUG_LINE, quantity: 1 }];
    expect(await shopware.writeShipment(c.conn, c.http(), order, shipment(["P1"], false, mugOnly), { look: false })).toEqual({ outcome: "written", shopIds: [deliveryId] });
    expect(await shopware.writeShipment(c.conn, c.http(), order, shipment(["P2"], false, mugOnly), { look: false })).toEqual({ outcome: "written", shopIds: [deliveryId] });
    expect((await held(shop)).state.orders[0].deliveries[0]).toEqual({ id: deliveryId, state: "shipped_partially", trackingCodes: ["P1", "P2"] });
    const rest = [{ line: CUP_LINE, quantity: 1 }];
    expect(await shopware.writeShipment(c.conn, c.http(), order, shipment(["P3"], true, rest), { look: false })).toEqual({ outcome: "written", shopIds: [deliveryId] });
    const { state, received } = await held(shop);
    expect(state.orders[0].deliveries[0]).toEqual({ id: deliveryId, state: "shipped", trackingCodes: ["P1", "P2", "P3"] });
    expect(state.history.map((h) => [h.transition, h.from, h.to])).toEqual([
      ["ship_partially", "open", "shipped_partially"],
      ["ship", "shipped_partially", "shipped"],
    ]);
    expect(received.filter((r) => r.method === "PATCH").map((r) => r.body)).toEqual([
      JSON.stringify({ trackingCodes: ["P1"] }),
      JSON.stringify({ trackingCodes: ["P1", "P2"] }),
      JSON.stringify({ trackingCodes: ["P1", "P2", "P3"] }),
    ]);
  });

  it("several tracking numbers on one line: all added, the codes already on the delivery kept, none twice", async () => {
    const shop = await shopWith({
      orders: [{ orderNumber: "10001", lineItems: [{ productId: MUG, productNumber: "SW-MUG", quantity: 2 }], deliveries: [{ trackingCodes: ["BY-HAND-1", "P2"] }] }],
    });
    const c = connect(shop);
    const { order } = await found(shop, c);
    await shopware.writeShipment(c.conn, c.http(), order, shipment(["P1", "P2", "P1"], true), { look: false });
    const { state, received } = await held(shop);
    expect(state.orders[0].deliveries[0]).toMatchObject({ state: "shipped", trackingCodes: ["BY-HAND-1", "P2", "P1"] });
    expect(received.filter((r) => r.method === "PATCH").map((r) => r.body)).toEqual([JSON.stringify({ trackingCodes: ["BY-HAND-1", "P2", "P1"] })]);
  });

  it("a cancelled delivery: refused in words, nothing written", async () => {
    const shop = await shopWith({
      orders: [{ orderNumber: "10001", lineItems: [{ productId: MUG, quantity: 2 }], deliveries: [{ state: "cancelled" }] }],
    });
    const c = connect(shop);
    const { order, before } = await found(shop, c);
    const error = await thrown(shopware.writeShipment(c.conn, c.http(), order, shipment(["P1"], true), { look: false }));
    expect([error.kind, error.message]).toEqual([
      "invalid",
      "The delivery of Shopware order 10001 is cancelled: Shopware ships a delivery only from open or shipped (partially), so nothing was written",
    ]);
    const { state, received } = await held(shop);
    expect(received.slice(before).map((r) => r.method)).toEqual(["POST"]);
    expect(state.orders[0].deliveries[0]).toMatchObject({ state: "cancelled", trackingCodes: [] });
  });

  it("a role without order_delivery:update: an auth error naming the privilege", async () => {
    const shop = await shopWith({ privileges: ["order:read", "order_line_item:read", "order_delivery:read", "state_machine_state:read"] });
    const c = connect(shop);
    const { order } = await found(shop, c);
    const deliveryId = (order.extra as { deliveryIds: string[] }).deliveryIds[0];
    const error = await thrown(shopware.writeShipment(c.conn, c.http(), order, shipment(["P1"], true), { look: false }));
    expect([error.kind, error.status, error.retryable, error.message]).toEqual([
      "auth",
      403,
      false,
      `The Shopware integration lacks the privilege order_delivery:update (403 on PATCH /api/order-delivery/${deliveryId}): give the integration's role the permission (Settings > System > Users & permissions > Roles), or make the integration an administrator`,
    ]);
  });

  it("429 with Retry-After: rate_limited, with the seconds to wait", async () => {
    const shop = await shopWith();
    const c = connect(shop);
    const { order } = await found(shop, c);
    await injectFault(shop, {
      method: "PATCH",
      path: "^/api/order-delivery/",
      status: 429,
      headers: { "Retry-After": "30" },
      body: { errors: [{ status: "429", code: "FRAMEWORK__RATE_LIMIT_EXCEEDED", title: "Too Many Requests", detail: "Too many requests, try again in 30 seconds." }] },
    });
    const error = await thrown(shopware.writeShipment(c.conn, c.http(), order, shipment(["P1"], true), { look: false }));
    expect([error.kind, error.retryAfterSeconds, error.retryable]).toEqual(["rate_limited", 30, true]);
    expect((await held(shop)).state.orders[0].deliveries[0]).toMatchObject({ state: "open", trackingCodes: [] });
  });
});

describe("Shopware: the token", () => {
  it("is fetched once for two writes, and again once it has expired, never used expired", async () => {
    const shop = await shopWith({ token_lifetime_seconds: 2 });
    const c = connect(shop);
    const { order } = await found(shop, c);
    await shopware.writeShipment(c.conn, c.http(), order, shipment(["P1"], false), { look: false });
    const tokenRequests = async () => (await held(shop)).received.filter((r) => r.path === "/api/oauth/token").length;
    expect(await tokenRequests()).toBe(1);
    const expiresAt = Math.max(...Object.values((await held(shop)).state.tokens));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 50));
    await shopware.writeShipment(c.conn, c.http(), order, shipment(["P2"], true), { look: false });
    const { received } = await held(shop);
    expect(await tokenRequests()).toBe(2);
    expect(received.filter((r) => r.answered === 401)).toEqual([]);
  });

  it("the shop hands out 10 tokens a minute (Shopware SaaS's limit); the 11th request is a 429 with Retry-After, which the write reports as rate limited; a connection keeps its token", async () => {
    const shop = await shopWith();
    // Ten connections to one shop (ten token requests: its maximum), each reading twice on one token.
    for (let i = 0; i < 10; i++) {
      const c = connect(shop);
      await found(shop, c);
      expect(await shopware.findOrder(c.conn, c.http(), ORDER)).toMatchObject({ number: "10001" });
    }
    const tokenAnswers = async () => (await held(shop)).received.filter((r) => r.path === "/api/oauth/token").map((r) => r.answered);
    expect(await tokenAnswers()).toEqual(Array(10).fill(200));
    // One past it: the eleventh connection's token request.
    const eleventh = connect(shop);
    const error = await thrown(shopware.findOrder(eleventh.conn, eleventh.http(), ORDER));
    expect([error.kind, error.status, error.retryable]).toEqual(["rate_limited", 429, true]);
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(await tokenAnswers()).toEqual([...Array(10).fill(200), 429]);
  });

  it("a 401 on a cached token (revoked in the shop) fetches a new one, once, and the call goes through", async () => {
    const shop = await shopWith();
    const c = connect(shop);
    const { order } = await found(shop, c);
    await injectFault(shop, {
      path: "^/api/search/order-delivery$",
      status: 401,
      body: { errors: [{ code: "9", status: "401", title: "The resource owner or authorization server denied the request.", detail: "Access token could not be verified" }] },
    });
    expect(await shopware.writeShipment(c.conn, c.http(), order, shipment(["P1"], true), { look: false })).toMatchObject({ outcome: "written" });
    const { received } = await held(shop);
    expect(received.map((r) => [r.path, r.answered])).toEqual([
      ["/api/oauth/token", 200],
      ["/api/search/order", 200],
      ["/api/search/order-delivery", 401],
      ["/api/oauth/token", 200],
      ["/api/search/order-delivery", 200],
      [expect.stringMatching(/^\/api\/order-delivery\//), 204],
      [expect.stringMatching(/\/state\/ship$/), 200],
    ]);
  });
});

describe("Shopware: never twice, dry run, secrets", () => {
  it("a 401 that persists on a new token (the integration deleted): one renewal, then an auth error", async () => {
    const shop = await shopWith();
    const c = connect(shop);
    const { order, before } = await found(shop, c);
    const unauthorized = { errors: [{ code: "9", status: "401", title: "The resource owner or authorization server denied the request.", detail: "Access token could not be verified" }] };
    await injectFault(shop, { path: "^/api/search/order-delivery$", status: 401, body: unauthorized, times: 2 });
    const error = await thrown(shopware.writeShipment(c.conn, c.http(), order, shipment(["P1"], true), { look: false }));
    expect([error.kind, error.status, error.message]).toEqual([
      "auth",
      401,
      `The shop refused the credentials (401 on POST /api/search/order-delivery): ${JSON.stringify(unauthorized)}`,
    ]);
    expect((await held(shop)).received.slice(before).map((r) => [r.path, r.answered])).toEqual([
      ["/api/search/order-delivery", 401],
      ["/api/oauth/token", 200],
      ["/api/search/order-delivery", 401],
    ]);
  });

  it("the tracking write applied but never answered: the retry that looks adds no second code, and ships once", async () => {
    const shop = await shopWith();
    const c = connect(shop, { timeoutMs: 700 });
    const { order } = await found(shop, c);
    await injectFault(shop, { method: "PATCH", path: "^/api/order-delivery/", hangAfterApplying: true });
    const timeout = await thrown(shopware.writeShipment(c.conn, c.http(), order, shipment(["P1"], true), { look: false }));
    expect([timeout.kind, timeout.unclear]).toEqual(["timeout", true]);
    expect(await shopware.writeShipment(c.conn, c.http(), order, shipment(["P1"], true), { look: true })).toMatchObject({ outcome: "written" });
    const { state, received } = await held(shop);
    expect(state.orders[0].deliveries[0]).toMatchObject({ state: "shipped", trackingCodes: ["P1"] });
    expect(state.history.map((h) => h.transition)).toEqual(["ship"]);
    expect(received.filter((r) => r.method === "PATCH")).toHaveLength(1);
  });

  it("the transition applied but never answered: the retry that looks finds everything there and writes nothing", async () => {
    const shop = await shopWith();
    const c = connect(shop, { timeoutMs: 700 });
    const { order } = await found(shop, c);
    const deliveryId = (order.extra as { deliveryIds: string[] }).deliveryIds[0];
    await injectFault(shop, { method: "POST", path: "/state/ship$", hangAfterApplying: true });
    expect((await thrown(shopware.writeShipment(c.conn, c.http(), order, shipment(["P1"], true), { look: false }))).kind).toBe("timeout");
    const before = (await held(shop)).received.length;
    expect(await shopware.writeShipment(c.conn, c.http(), order, shipment(["P1"], true), { look: true })).toEqual({ outcome: "found", shopIds: [deliveryId] });
    const { state, received } = await held(shop);
    expect(received.slice(before).map((r) => [r.method, r.path, r.body])).toEqual([FIND_DELIVERY(deliveryId)]);
    expect(state.history.map((h) => h.transition)).toEqual(["ship"]);
    expect(state.orders[0].deliveries[0]).toMatchObject({ state: "shipped", trackingCodes: ["P1"] });
  });

  it("dry run: only the lookups reach the shop; the writes are recorded, not sent", async () => {
    const shop = await shopWith();
    const c = connect(shop, { dryRun: true });
    const { order } = await found(shop, c);
    const deliveryId = (order.extra as { deliveryIds: string[] }).deliveryIds[0];
    const http = c.http();
    expect(await shopware.writeShipment(c.conn, http, order, shipment(["P1", "P2"], true), { look: false })).toEqual({ outcome: "written", shopIds: [deliveryId] });
    const { state, received } = await held(shop);
    expect(received.map((r) => [r.method, r.path])).toEqual([
      ["POST", "/api/oauth/token"],
      ["POST", "/api/search/order"],
      ["POST", "/api/search/order-delivery"],
    ]);
    expect(state.orders[0].deliveries[0]).toMatchObject({ state: "open", trackingCodes: [] });
    expect(http.calls.map((call) => [call.method, call.path, call.sent, call.status, call.dryRun])).toEqual([
      ["POST", "/api/search/order-delivery", FIND_DELIVERY(deliveryId)[2], 200, false],
      ["PATCH", `/api/order-delivery/${deliveryId}`, JSON.stringify({ trackingCodes: ["P1", "P2"] }), null, true],
      ["POST", `/api/_action/order_delivery/${deliveryId}/state/ship`, null, null, true],
    ]);
  });

  it("the credentials and the access token never appear in the calls recorded", async () => {
    const shop = await shopWith();
    const c = connect(shop);
    const http = c.http();
    await shopware.test(c.conn, http);
    const order = await shopware.findOrder(c.conn, http, ORDER);
    await shopware.writeShipment(c.conn, http, order, shipment(["P1"], true), { look: false });
    const { state } = await held(shop);
    const recorded = JSON.stringify(http.calls);
    for (const secret of [shop.credentials.client_id, shop.credentials.client_secret, ...Object.keys(state.tokens)]) expect(recorded).not.toContain(secret);
    expect(http.calls[0]).toMatchObject({
      method: "POST",
      path: "/api/oauth/token",
      sent: JSON.stringify({ grant_type: "client_credentials", client_id: "[redacted]", client_secret: "[redacted]" }),
      status: 200,
      answer: "[redacted]",
    });
  });
});

describe("Shopware: notes and completion", () => {
  it("a note goes into the order's internal comment, after what is there; looking again finds it", async () => {
    const shop = await shopWith({
      orders: [{ orderNumber: "10001", internalComment: "Call before delivery", lineItems: [{ productId: MUG, quantity: 2 }] }],
    });
    const c = connect(shop);
    const { order, before } = await found(shop, c);
    const note = { order: ORDER, text: "Blue mug (x2) declined by Keukenhuis: out of stock" };
    expect(await shopware.writeNote(c.conn, c.http(), order, note, { look: false })).toEqual({ outcome: "written", shopIds: [order.id] });
    expect(await shopware.writeNote(c.conn, c.http(), order, note, { look: true })).toEqual({ outcome: "found", shopIds: [order.id] });
    const { state, received } = await held(shop);
    expect(state.orders[0].internalComment).toBe("Call before delivery\n\nBlue mug (x2) declined by Keukenhuis: out of stock");
    expect(received.slice(before).map((r) => [r.method, r.path])).toEqual([
      ["POST", "/api/search/order"],
      ["PATCH", `/api/order/${order.id}`],
      ["POST", "/api/search/order"],
    ]);
  });

  it("a note applied but never answered: the retry that looks finds it and adds it no second time", async () => {
    const shop = await shopWith();
    const c = connect(shop, { timeoutMs: 700 });
    const { order } = await found(shop, c);
    const note = { order: ORDER, text: "Cup (x1) failed at Keukenhuis, no other supplier" };
    await injectFault(shop, { method: "PATCH", path: "^/api/order/", hangAfterApplying: true });
    expect((await thrown(shopware.writeNote(c.conn, c.http(), order, note, { look: false }))).kind).toBe("timeout");
    expect(await shopware.writeNote(c.conn, c.http(), order, note, { look: true })).toEqual({ outcome: "found", shopIds: [order.id] });
    const { state, received } = await held(shop);
    expect(state.orders[0].internalComment).toBe("Cup (x1) failed at Keukenhuis, no other supplier");
    expect(received.filter((r) => r.method === "PATCH")).toHaveLength(1);
  });

  it("a Shopware before 6.7 (no internal comment): the note is skipped, in words, and nothing is sent", async () => {
    const shop = await shopWith({ internal_comment: false });
    const c = connect(shop);
    const { order, before } = await found(shop, c);
    expect(await shopware.writeNote(c.conn, c.http(), order, { order: ORDER, text: "declined" }, { look: false })).toEqual({
      outcome: "skipped",
      reason: "This Shopware has no private order note: the order's internal comment came with Shopware 6.7, and nothing else in its Admin API is hidden from the customer",
    });
    expect((await held(shop)).received.length).toBe(before);
  });

  it("complete: an open order is processed, then completed; done already is found; cancelled is left alone", async () => {
    const shop = await shopWith({
      orders: [
        { orderNumber: "10001", lineItems: [{ productId: MUG, quantity: 1 }] },
        { orderNumber: "10002", state: "completed", lineItems: [{ productId: MUG, quantity: 1 }] },
        { orderNumber: "10003", state: "cancelled", lineItems: [{ productId: MUG, quantity: 1 }] },
      ],
    });
    const c = connect(shop);
    const [open, done, cancelled] = await Promise.all(
      ["10001", "10002", "10003"].map((externalId) => shopware.findOrder(c.conn, c.http(), { externalId, reference: `ORD-${externalId}` })),
    );
    expect(await shopware.complete(c.conn, c.http(), open, ORDER, { look: false })).toEqual({ outcome: "written", shopIds: [open.id] });
    expect(await shopware.complete(c.conn, c.http(), open, ORDER, { look: true })).toEqual({ outcome: "found", shopIds: [open.id] });
    expect(await shopware.complete(c.conn, c.http(), done, ORDER, { look: false })).toEqual({ outcome: "found", shopIds: [done.id] });
    expect(await shopware.complete(c.conn, c.http(), cancelled, ORDER, { look: false })).toEqual({
      outcome: "skipped",
      reason: "Shopware order 10003 is cancelled in the shop: it is left as it is",
    });
    const { state } = await held(shop);
    expect(state.orders.map((o) => o.state)).toEqual(["completed", "completed", "cancelled"]);
    expect(state.history).toEqual([
      { entity: "order", id: open.id, transition: "process", from: "open", to: "in_progress" },
      { entity: "order", id: open.id, transition: "complete", from: "in_progress", to: "completed" },
    ]);
  });

  it("complete after an unclear outcome (process applied, complete never answered): the retry completes, once", async () => {
    const shop = await shopWith();
    const c = connect(shop, { timeoutMs: 700 });
    const { order } = await found(shop, c);
    await injectFault(shop, { method: "POST", path: "/state/process$", hangAfterApplying: true });
    expect((await thrown(shopware.complete(c.conn, c.http(), order, ORDER, { look: false }))).kind).toBe("timeout");
    expect(await shopware.complete(c.conn, c.http(), order, ORDER, { look: true })).toEqual({ outcome: "written", shopIds: [order.id] });
    const { state } = await held(shop);
    expect(state.history.map((h) => [h.transition, h.from, h.to])).toEqual([
      ["process", "open", "in_progress"],
      ["complete", "in_progress", "completed"],
    ]);
  });
});
