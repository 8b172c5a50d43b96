// The Magento 2 adapter against the stand-in Magento (test/shops/stand-ins/magento.ts): testing a
// connection, finding the order by increment_id, shipments (full, partial, several tracking
// numbers), private comments, dry run, a write applied but never answered, rate limiting. Each
// test asserts what the stand-in received and what it holds afterwards.
import { describe, expect, inject, it } from "vitest";
import { magento } from "../../../src/shops/platforms/magento";
import type { LineRef, OrderRef, ShipmentWrite } from "../../../src/shops/platforms/platform";
import { createStandInShop, injectFault, standInShop, type StandInShopHandle } from "../stand-ins/client";
import type { MagentoSeed, MagentoState } from "../stand-ins/magento";
import { adapterAt, expectRefused, failure } from "./adapter-at";

const ORDER: OrderRef = { externalId: "000000123", reference: "DD-1001" };
const MUG: LineRef = { lineId: 1, productId: "11", sku: "MUG-1", name: "Blue mug", quantity: 3 };
/** The official plugin sends a configurable product's own id and the simple's SKU. */
const TEE: LineRef = { lineId: 2, productId: "20", sku: "TEE-M-BLUE", name: "T-shirt M blue", quantity: 2 };

const SEED: MagentoSeed = {
  orders: [
    {
      entity_id: 41,
      increment_id: "000000123",
      items: [
        { item_id: 1, product_id: 11, sku: "MUG-1", qty_ordered: 3 },
        { item_id: 2, product_id: 20, sku: "TEE-M-BLUE", qty_ordered: 2, product_type: "configurable" },
        { item_id: 3, product_id: 21, sku: "TEE-M-BLUE", qty_ordered: 2, parent_item_id: 2 },
      ],
    },
  ],
};

async function magentoShop(seed: MagentoSeed = SEED, settings: Record<string, unknown> = {}) {
  const shop = await createStandInShop("magento", seed);
  return { shop, ...adapterAt("magento", shop.base_url, shop.credentials, settings) };
}

const held = async (shop: StandInShopHandle) => (await standInShop<MagentoState>(shop)).state;
const received = async (shop: StandInShopHandle) => (await standInShop(shop)).received.map((r) => ({ method: r.method, path: r.path, body: r.body ? JSON.parse(r.body) : null }));

const shipment = (lines: [LineRef, number][], numbers: string[], carrier: string | null = "DHL", orderShippedInFull = false): ShipmentWrite => ({
  order: ORDER,
  lines: lines.map(([line, quantity]) => ({ line, quantity })),
  trackings: numbers.map((number) => ({ carrier, number, url: `https://track.example/${number}` })),
  orderShippedInFull,
});

describe("Magento: testing a connection", () => {
  it("a good token with every ACL resource: reachable, credentials and permissions all pass", async () => {
    const { conn, http } = await magentoShop();
    expect(await magento.test(conn, http)).toEqual([
      { name: "reachable", ok: true, message: "Magento's REST API answers at base_url." },
      { name: "credentials", ok: true, message: "The access token is accepted and reads orders (Magento_Sales::actions_view (Sales > Operations > Orders > Actions > View))." },
      { name: "permissions", ok: true, message: "The integration may look up shipments, ship orders and comment on them." },
    ]);
  });

  it("a wrong token: the credentials check says so and the permissions are not checked", async () => {
    const { shop } = await magentoShop();
    const { conn, http } = adapterAt("magento", shop.base_url, { access_token: "not-the-token" });
    expect(await magento.test(conn, http)).toEqual([
      { name: "reachable", ok: true, message: "Magento's REST API answers at base_url." },
      {
        name: "credentials",
        ok: false,
        message:
          "Magento refused the access token (401 on GET /rest/V1/orders): the token is wrong, the integration is not active or lacks Magento_Sales::actions_view (Sales > Operations > Orders > Actions > View), or the shop takes no integration token as a Bearer token (Stores > Configuration > Services > OAuth > Consumer Settings); Magento answers all of these alike.",
      },
      { name: "permissions", ok: false, message: "Not checked: the access token was refused." },
    ]);
  });

  it("an integration without Ship and Comment: the permissions check names both, and the probes created nothing", async () => {
    const { shop, conn, http } = await magentoShop({ ...SEED, acl: ["Magento_Sales::actions_view", "Magento_Sales::shipment"] });
    const checks = await magento.test(conn, http);
    expect(checks[2]).toEqual({
      name: "permissions",
      ok: false,
      message:
        "The integration lacks Magento_Sales::ship (Sales > Operations > Orders > Actions > Ship); Magento_Sales::comment (Sales > Operations > Orders > Actions > Comment). Grant it under System > Extensions > Integrations, the integration's API tab, then reactivate the integration.",
    });
    const state = await held(shop);
    expect(state.shipments).toEqual([]);
    expect(state.orders[0]!.status_histories).toEqual([]);
  });

  it("a refused port: not reachable, in words, and nothing else checked", async () => {
    const { conn, http } = adapterAt("magento", inject("closedPortUrl"), { access_token: "t0ken" });
    expectRefused(await magento.test(conn, http), "Magento");
  });
});

describe("Magento: finding the order", () => {
  it("by increment_id: the entity_id and the visible items, a configurable item carrying its simple's product id", async () => {
    const { shop, conn, http } = await magentoShop();
    expect(await magento.findOrder(conn, http, ORDER)).toEqual({
      id: "41",
      number: "000000123",
      items: [
        { id: "1", productIds: ["11"], sku: "MUG-1", quantity: 3 },
        { id: "2", productIds: ["20", "21"], sku: "TEE-M-BLUE", quantity: 2 },
      ],
      extra: {},
    });
    const [request] = (await standInShop(shop)).received;
    expect(request).toMatchObject({
      method: "GET",
      path: "/rest/V1/orders",
      query: {
        "searchCriteria[filter_groups][0][filters][0][field]": "increment_id",
        "searchCriteria[filter_groups][0][filters][0][value]": "000000123",
        "searchCriteria[filter_groups][0][filters][0][condition_type]": "eq",
      },
    });
    expect(request!.headers.authorization).toBe(`Bearer ${shop.credentials.access_token}`);
  });

  it("an increment_id the shop does not have: not_found, in words", async () => {
    const { conn, http } = await magentoShop();
    const error = await failure(magento.findOrder(conn, http, { externalId: "000000999", reference: "DD-9" }));
    expect(error.kind).toBe("not_found");
    expect(error.message).toBe("Magento has no order with increment_id 000000999 (our order DD-9)");
  });

  it("429 with Retry-After: rate_limited, with the seconds to wait", async () => {
    const { shop, conn, http } = await magentoShop();
    await injectFault(shop, { method: "GET", path: "^/rest/V1/orders$", status: 429, headers: { "Retry-After": "30" }, body: { message: "Too many requests" } });
    const error = await failure(magento.findOrder(conn, http, ORDER));
    expect(error).toMatchObject({ kind: "rate_limited", status: 429, retryAfterSeconds: 30 });
  });
});

describe("Magento: shipments", () => {
  it("a full shipment: one shipment of both items with its track, the customer notified, the order complete", async () => {
    const { shop, conn, http } = await magentoShop();
    const order = await magento.findOrder(conn, http, ORDER);
    const result = await magento.writeShipment(conn, http, order, shipment([[MUG, 3], [TEE, 2]], ["JVGL0001"], "DHL", true), { look: false });
    expect(result).toEqual({ outcome: "written", shopIds: ["1000"] });
    expect((await received(shop))[1]).toEqual({
      method: "POST",
      path: "/rest/V1/order/41/ship",
      body: {
        items: [
          { order_item_id: 1, qty: 3 },
          { order_item_id: 2, qty: 2 },
        ],
        notify: true,
        tracks: [{ track_number: "JVGL0001", title: "DHL", carrier_code: "dhl" }],
      },
    });
    const state = await held(shop);
    expect(state.shipments).toEqual([
      {
        entity_id: 1000,
        increment_id: "000001000",
        order_id: 41,
        email_sent: 1,
        items: [
          { entity_id: 1001, parent_id: 1000, order_item_id: 1, product_id: 11, sku: "MUG-1", qty: 3 },
          { entity_id: 1002, parent_id: 1000, order_item_id: 2, product_id: 20, sku: "TEE-M-BLUE", qty: 2 },
        ],
        tracks: [{ entity_id: 1003, parent_id: 1000, order_id: 41, track_number: "JVGL0001", title: "DHL", carrier_code: "dhl" }],
      },
    ]);
    expect(state.orders[0]!.status).toBe("complete");
  });

  it("partial shipments list only what shipped; the rest ships later; notify off is honoured; a carrier Magento does not know is custom", async () => {
    const { shop, conn, http } = await magentoShop(SEED, { notify: false });
    const order = await magento.findOrder(conn, http, ORDER);
    expect(await magento.writeShipment(conn, http, order, shipment([[MUG, 1]], ["PN-1"], "PostNL"), { look: false })).toEqual({ outcome: "written", shopIds: ["1000"] });
    let state = await held(shop);
    expect(state.orders[0]!.status).toBe("processing");
    expect(state.orders[0]!.items.map((i) => [i.item_id, i.qty_shipped])).toEqual([[1, 1], [2, 0], [3, 0]]);
    // The rad-works module sends the simple's product id (21) for the configurable item.
    const tee = { ...TEE, productId: "21" };
    expect(await magento.writeShipment(conn, http, order, shipment([[MUG, 2], [tee, 2]], ["PN-2"], null, true), { look: false })).toEqual({ outcome: "written", shopIds: ["1003"] });
    state = await held(shop);
    expect(state.shipments.map((s) => ({ email_sent: s.email_sent, items: s.items.map((i) => [i.order_item_id, i.qty]), tracks: s.tracks.map((t) => [t.track_number, t.title, t.carrier_code]) }))).toEqual([
      { email_sent: null, items: [[1, 1]], tracks: [["PN-1", "PostNL", "custom"]] },
      { email_sent: null, items: [[1, 2], [2, 2]], tracks: [["PN-2", "Tracking", "custom"]] },
    ]);
    expect(state.orders[0]!.status).toBe("complete");
  });

  it("several tracking numbers on one line: one shipment with one track each", async () => {
    const { shop, conn, http } = await magentoShop();
    const order = await magento.findOrder(conn, http, ORDER);
    await magento.writeShipment(conn, http, order, shipment([[MUG, 3]], ["1Z001", "1Z002", "1Z003"], "UPS"), { look: false });
    const state = await held(shop);
    expect(state.shipments).toHaveLength(1);
    expect(state.shipments[0]!.tracks.map((t) => [t.track_number, t.title, t.carrier_code])).toEqual([
      ["1Z001", "UPS", "ups"],
      ["1Z002", "UPS", "ups"],
      ["1Z003", "UPS", "ups"],
    ]);
  });

  it("more than is left to ship: Magento's 400 becomes invalid with its words, and nothing is shipped", async () => {
    const { shop, conn, http } = await magentoShop();
    const order = await magento.findOrder(conn, http, ORDER);
    const error = await failure(magento.writeShipment(conn, http, order, shipment([[MUG, 4]], ["X1"]), { look: false }));
    expect(error.kind).toBe("invalid");
    expect(error.message).toBe(
      'The shop refused what we sent (400 on POST /rest/V1/order/41/ship): {"message":"Shipment Document Validation Error(s):\\nThe order does not allow a shipment to be created."}',
    );
    expect((await held(shop)).shipments).toEqual([]);
  });

  it("a line the shop's order does not have: refused in words before anything is sent", async () => {
    const { shop, conn, http } = await magentoShop();
    const order = await magento.findOrder(conn, http, ORDER);
    const stranger: LineRef = { lineId: 9, productId: "99", sku: "NOPE", name: "Red kettle", quantity: 1 };
    const error = await failure(magento.writeShipment(conn, http, order, shipment([[stranger, 1]], ["X1"]), { look: false }));
    expect(error.kind).toBe("invalid");
    expect(error.message).toBe(`The shop's order 000000123 has no item with product id 99 or SKU NOPE (our line "Red kettle" of order DD-1001): nothing was written`);
    expect((await received(shop)).map((r) => r.method)).toEqual(["GET"]);
  });

  it("a shipment applied but never answered: the attempt times out (unclear); the retry looks, finds it and creates nothing twice", async () => {
    const { shop, conn, http } = await magentoShop();
    const order = await magento.findOrder(conn, http, ORDER);
    await injectFault(shop, { method: "POST", path: "/ship$", hangAfterApplying: true });
    const write = shipment([[MUG, 3]], ["JVGL0001", "JVGL0002"]);
    const error = await failure(magento.writeShipment(conn, http, order, write, { look: false }));
    expect(error.kind).toBe("timeout");
    expect(error.unclear).toBe(true);
    const retry = adapterAt("magento", shop.base_url, shop.credentials);
    expect(await magento.writeShipment(retry.conn, retry.http, order, write, { look: true })).toEqual({ outcome: "found", shopIds: ["1000"] });
    expect((await held(shop)).shipments.map((s) => s.entity_id)).toEqual([1000]);
    expect((await received(shop)).slice(2).map((r) => `${r.method} ${r.path}`)).toEqual(["GET /rest/V1/shipments"]);
  });

  it("one parcel, two shipments: a retry that looks tells them apart by their items, and creates the one that never reached Magento", async () => {
    const { shop, conn, http } = await magentoShop();
    const order = await magento.findOrder(conn, http, ORDER);
    await magento.writeShipment(conn, http, order, shipment([[MUG, 3]], ["PARCEL-1"]), { look: false });
    await injectFault(shop, { method: "POST", path: "/ship$", hang: true });
    const tee = shipment([[TEE, 2]], ["PARCEL-1"]);
    expect((await failure(magento.writeShipment(conn, http, order, tee, { look: false }))).kind).toBe("timeout");
    const retry = adapterAt("magento", shop.base_url, shop.credentials);
    expect(await magento.writeShipment(retry.conn, retry.http, order, tee, { look: true })).toEqual({ outcome: "written", shopIds: ["1003"] });
    // And once more, as after a second unclear outcome: now it is found.
    expect(await magento.writeShipment(retry.conn, retry.http, order, tee, { look: true })).toEqual({ outcome: "found", shopIds: ["1003"] });
    expect((await held(shop)).shipments.map((s) => s.items.map((i) => [i.order_item_id, i.qty]))).toEqual([[[1, 3]], [[2, 2]]]);
  });

  it("look finds no shipment with our tracking: the shipment is created", async () => {
    const { shop, conn, http } = await magentoShop();
    const order = await magento.findOrder(conn, http, ORDER);
    await magento.writeShipment(conn, http, order, shipment([[MUG, 1]], ["OTHER-1"]), { look: false });
    expect(await magento.writeShipment(conn, http, order, shipment([[MUG, 2]], ["MINE-1"]), { look: true })).toEqual({ outcome: "written", shopIds: ["1003"] });
    expect((await held(shop)).shipments.map((s) => s.tracks[0]!.track_number)).toEqual(["OTHER-1", "MINE-1"]);
  });
});

describe("Magento: notes and completion", () => {
  it("a note is a private order comment; a retry that looks finds it and adds none", async () => {
    const { shop, conn, http } = await magentoShop();
    const order = await magento.findOrder(conn, http, ORDER);
    const note = { order: ORDER, text: "Line Blue mug declined by Keukenhuis: out of stock" };
    expect(await magento.writeNote(conn, http, order, note, { look: false })).toEqual({ outcome: "written", shopIds: [] });
    expect((await received(shop))[1]).toEqual({
      method: "POST",
      path: "/rest/V1/orders/41/comments",
      body: { statusHistory: { comment: note.text, is_customer_notified: 0, is_visible_on_front: 0, parent_id: 41 } },
    });
    expect(await magento.writeNote(conn, http, order, note, { look: true })).toEqual({ outcome: "found", shopIds: ["1000"] });
    expect((await held(shop)).orders[0]!.status_histories).toEqual([
      { entity_id: 1000, parent_id: 41, comment: note.text, is_customer_notified: 0, is_visible_on_front: 0, status: "processing", entity_name: "order" },
    ]);
  });

  it("complete is skipped: Magento completes an invoiced order itself once it has shipped", async () => {
    const { shop, conn, http } = await magentoShop();
    const order = await magento.findOrder(conn, http, ORDER);
    expect(await magento.complete(conn, http, order, ORDER, { look: false })).toEqual({
      outcome: "skipped",
      reason: "Magento completes an order itself once it is invoiced and shipped in full; there is no status to set.",
    });
    expect(await received(shop)).toHaveLength(1);
  });
});

describe("Magento: on hold while a line waits for a person", () => {
  it("hold and unhold through Magento's own routes, after reading the state now; each a second time finds it done", async () => {
    const { shop, conn, http } = await magentoShop();
    const order = await magento.findOrder(conn, http, ORDER);
    expect(await magento.hold(conn, http, order, ORDER, { look: false })).toEqual({ outcome: "written", shopIds: ["41"] });
    expect(await magento.hold(conn, http, order, ORDER, { look: false })).toEqual({ outcome: "found", shopIds: ["41"] });
    expect([(await held(shop)).orders[0]!.state, (await held(shop)).orders[0]!.status]).toEqual(["holded", "holded"]);
    expect(await magento.release(conn, http, order, ORDER, { look: false })).toEqual({ outcome: "written", shopIds: ["41"] });
    expect(await magento.release(conn, http, order, ORDER, { look: false })).toEqual({
      outcome: "skipped",
      reason: "Magento order 000000123 is processing, no longer on hold: it is left as it is",
    });
    expect((await held(shop)).orders[0]!.state).toBe("processing");
    expect((await received(shop)).filter((r) => r.method === "POST").map((r) => r.path)).toEqual(["/rest/V1/orders/41/hold", "/rest/V1/orders/41/unhold"]);
  });

  it("the stand-in refuses as Magento does: no hold of a finished order, no unhold of one not held, no shipment while held", async () => {
    const { shop, conn, http } = await magentoShop({ orders: [{ ...SEED.orders![0]!, state: "complete" }] });
    const order = await magento.findOrder(conn, http, ORDER);
    expect(await magento.hold(conn, http, order, ORDER, { look: false })).toEqual({
      outcome: "skipped",
      reason: "Magento order 000000123 is complete: Magento holds only an order it has not finished with, so it is left as it is",
    });
    const post = (path: string) => http.request({ method: "POST", path, headers: { Authorization: `Bearer ${shop.credentials.access_token}` }, json: {}, accept: [400] });
    expect([(await post("/rest/V1/orders/41/hold")).text, (await post("/rest/V1/orders/41/unhold")).text]).toEqual([
      JSON.stringify({ message: "A hold action is not available." }),
      JSON.stringify({ message: "You cannot remove the hold." }),
    ]);
  });

  it("a shipment of an order on hold: unheld, shipped, held again; any other refusal stays the shop's", async () => {
    const { shop, conn, http } = await magentoShop();
    const order = await magento.findOrder(conn, http, ORDER);
    await magento.hold(conn, http, order, ORDER, { look: false });
    const written = await magento.writeShipment(conn, http, order, shipment([[MUG, 3]], ["JVGL0001"]), { look: false });
    const state = await held(shop);
    expect(written).toEqual({ outcome: "written", shopIds: [String(state.shipments[0]!.entity_id)] });
    expect([state.orders[0]!.state, state.orders[0]!.items[0]!.qty_shipped]).toEqual(["holded", 3]);
    expect((await received(shop)).filter((r) => r.method === "POST").map((r) => r.path)).toEqual([
      "/rest/V1/orders/41/hold",
      "/rest/V1/order/41/ship",
      "/rest/V1/orders/41/unhold",
      "/rest/V1/order/41/ship",
      "/rest/V1/orders/41/hold",
    ]);
    // More than is left to ship: Magento's refusal of the shipment itself, and the order held again.
    expect(await magento.writeShipment(conn, http, order, shipment([[MUG, 1]], ["JVGL0002"]), { look: false }).catch((e) => e)).toMatchObject({ kind: "invalid" });
    expect((await held(shop)).orders[0]!.state).toBe("holded");
  });
});

describe("Magento: dry run and secrets", () => {
  it("a dry run looks the order up but sends no write: the calls record what would have been sent", async () => {
    const { shop, conn, http } = await magentoShop(SEED, { mode: "dry_run" });
    const order = await magento.findOrder(conn, http, ORDER);
    expect(await magento.writeShipment(conn, http, order, shipment([[MUG, 3]], ["JVGL0001"]), { look: false })).toEqual({ outcome: "written", shopIds: [] });
    expect(await magento.writeNote(conn, http, order, { order: ORDER, text: "Declined" }, { look: false })).toEqual({ outcome: "written", shopIds: [] });
    expect((await received(shop)).map((r) => `${r.method} ${r.path}`)).toEqual(["GET /rest/V1/orders"]);
    const state = await held(shop);
    expect(state.shipments).toEqual([]);
    expect(state.orders[0]!.status_histories).toEqual([]);
    expect(http.calls.filter((c) => c.dryRun).map((c) => [c.method, c.path, c.sent, c.status])).toEqual([
      ["POST", "/rest/V1/order/41/ship", '{"items":[{"order_item_id":1,"qty":3}],"notify":true,"tracks":[{"track_number":"JVGL0001","title":"DHL","carrier_code":"dhl"}]}', null],
      ["POST", "/rest/V1/orders/41/comments", '{"statusHistory":{"comment":"Declined","is_customer_notified":0,"is_visible_on_front":0,"parent_id":41}}', null],
    ]);
  });

  it("the access token is sent to the shop but never appears in the recorded calls", async () => {
    const { shop, conn, http } = await magentoShop();
    await magento.test(conn, http);
    const order = await magento.findOrder(conn, http, ORDER);
    await magento.writeShipment(conn, http, order, shipment([[MUG, 3]], ["JVGL0001"]), { look: true });
    await magento.writeNote(conn, http, order, { order: ORDER, text: "Declined" }, { look: true });
    const token = shop.credentials.access_token!;
    expect((await standInShop(shop)).received.every((r) => r.headers.authorization === `Bearer ${token}`)).toBe(true);
    expect(http.calls.length).toBe(9);
    expect(JSON.stringify(http.calls)).not.toContain(token);
  });
});
