// The PrestaShop adapter against the stand-in webservice (test/shops/stand-ins/prestashop.ts):
// testing a connection, finding the order by reference, shipments (the tracking number on the
// order's carrier, the shipped state once the order shipped in full), private messages, completion,
// dry run, a write applied but never answered, rate limiting. Each test asserts what the stand-in
// received and what it holds afterwards.
import { describe, expect, inject, it } from "vitest";
import type { LineRef, OrderRef, ShipmentWrite } from "../../../src/shops/platforms/platform";
import { prestashop } from "../../../src/shops/platforms/prestashop";
import { createStandInShop, injectFault, standInShop, type StandInShopHandle } from "../stand-ins/client";
import { PRESTASHOP_NEEDED, type PrestaShopSeed, type PrestaShopState } from "../stand-ins/prestashop";
import { adapterAt, expectRefused, failure } from "./adapter-at";

const ORDER: OrderRef = { externalId: "XKBKNABJK", reference: "DD-2001" };
const MUG: LineRef = { lineId: 1, productId: "1", sku: "demo_1", name: "Mug", quantity: 3 };
/** Two combinations of one product: the plugin sends the product id and each combination's reference. */
const SHIRT_S: LineRef = { lineId: 2, productId: "5", sku: "demo_5-S", name: "Shirt S", quantity: 1 };
const SHIRT_M: LineRef = { lineId: 3, productId: "5", sku: "demo_5-M", name: "Shirt M", quantity: 2 };

const SEED: PrestaShopSeed = {
  orders: [
    {
      id: 7,
      reference: "XKBKNABJK",
      id_carrier: 2,
      rows: [
        { id: 11, product_id: 1, product_reference: "demo_1", product_quantity: 3 },
        { id: 12, product_id: 5, product_attribute_id: 19, product_reference: "demo_5-S", product_quantity: 1 },
        { id: 13, product_id: 5, product_attribute_id: 20, product_reference: "demo_5-M", product_quantity: 2 },
      ],
      carrier: { id: 31 },
    },
  ],
};

async function prestaShop(seed: PrestaShopSeed = SEED, settings: Record<string, unknown> = {}) {
  const shop = await createStandInShop("prestashop", seed);
  return { shop, ...adapterAt("prestashop", shop.base_url, shop.credentials, settings) };
}

const held = async (shop: StandInShopHandle) => (await standInShop<PrestaShopState>(shop)).state;
const received = async (shop: StandInShopHandle) =>
  (await standInShop(shop)).received.map((r) => `${r.method} ${r.path}${Object.keys(r.query).length ? `?${new URLSearchParams(r.query)}` : ""}`.replaceAll("%5B", "[").replaceAll("%5D", "]").replaceAll("%7C", "|"));
const bodies = async (shop: StandInShopHandle) => (await standInShop(shop)).received.filter((r) => r.body).map((r) => r.body);

const shipment = (lines: [LineRef, number][], numbers: string[], orderShippedInFull: boolean): ShipmentWrite => ({
  order: ORDER,
  lines: lines.map(([line, quantity]) => ({ line, quantity })),
  trackings: numbers.map((number) => ({ carrier: "PostNL", number, url: null })),
  orderShippedInFull,
});
const ALL: [LineRef, number][] = [[MUG, 3], [SHIRT_S, 1], [SHIRT_M, 2]];

const xml = (resource: string, fields: string) => `<?xml version="1.0" encoding="UTF-8"?><prestashop xmlns:xlink="http://www.w3.org/1999/xlink"><${resource}>${fields}</${resource}></prestashop>`;
const carrierXml = (tracking: string) =>
  xml("order_carrier", `<id>31</id><id_order>7</id_order><id_carrier>2</id_carrier><id_order_invoice>0</id_order_invoice><weight>0.500000</weight><shipping_cost_tax_excl>5.000000</shipping_cost_tax_excl><shipping_cost_tax_incl>6.050000</shipping_cost_tax_incl><tracking_number>${tracking}</tracking_number>`);
const CARRIERS = "GET /api/order_carriers?filter[id_order]=[7]&display=full&output_format=JSON";
const HISTORIES = "GET /api/order_histories?filter[id_order]=[7]&display=full&output_format=JSON";
const FIND = "GET /api/orders?filter[reference]=[XKBKNABJK]&display=full&output_format=JSON";

describe("PrestaShop: testing a connection", () => {
  it("a good key with every permission: reachable, credentials and permissions all pass", async () => {
    const { shop, conn, http } = await prestaShop();
    expect(await prestashop.test(conn, http)).toEqual([
      { name: "reachable", ok: true, message: "PrestaShop's webservice answers at base_url/api/." },
      { name: "credentials", ok: true, message: "The webservice key is accepted." },
      { name: "permissions", ok: true, message: "The key may read orders, read and update order carriers, and read and add order histories and messages." },
    ]);
    expect(await received(shop)).toEqual(["GET /api"]); // the stand-ins record paths without a trailing slash
  });

  it("a wrong key: PrestaShop's own words (its XML errors), and the permissions are not checked", async () => {
    const { shop } = await prestaShop();
    const { conn, http } = adapterAt("prestashop", shop.base_url, { webservice_key: "A".repeat(32) });
    expect(await prestashop.test(conn, http)).toEqual([
      { name: "reachable", ok: true, message: "PrestaShop's webservice answers at base_url/api/." },
      {
        name: "credentials",
        ok: false,
        message: "PrestaShop refused the webservice key (401: Authentification key is not active; No permission for this authentication key): check the key, and that it is enabled under Advanced Parameters > Webservice.",
      },
      { name: "permissions", ok: false, message: "Not checked: the webservice key was refused." },
    ]);
  });

  it("a key of the wrong shape (not 32 characters, not ASCII): PrestaShop's words, sent as typed", async () => {
    const { shop } = await prestaShop();
    const { conn, http } = adapterAt("prestashop", shop.base_url, { webservice_key: "ключ" });
    expect((await prestashop.test(conn, http))[1]).toEqual({
      name: "credentials",
      ok: false,
      message: "PrestaShop refused the webservice key (401: Invalid authentication key format): check the key, and that it is enabled under Advanced Parameters > Webservice.",
    });
  });

  it("a key without PUT on order_carriers and without messages: the permissions check names both", async () => {
    const { orders, order_carriers, order_histories } = PRESTASHOP_NEEDED;
    const { conn, http } = await prestaShop({ ...SEED, permissions: { orders, order_carriers: order_carriers.filter((m) => m !== "PUT"), order_histories } });
    expect((await prestashop.test(conn, http))[2]).toEqual({
      name: "permissions",
      ok: false,
      message: "The webservice key lacks order_carriers: PUT (to read and write the tracking number); messages: GET, POST (to write private notes). Tick them for the key under Advanced Parameters > Webservice.",
    });
  });

  it("a refused port: not reachable, in words, and nothing else checked", async () => {
    const { conn, http } = adapterAt("prestashop", inject("closedPortUrl"), { webservice_key: "K".repeat(32) });
    expectRefused(await prestashop.test(conn, http), "PrestaShop");
  });
});

describe("PrestaShop: finding the order", () => {
  it("by reference: the order's id, its rows, two combinations of one product matched by their references only", async () => {
    const { shop, conn, http } = await prestaShop();
    expect(await prestashop.findOrder(conn, http, ORDER)).toEqual({
      id: "7",
      number: "XKBKNABJK",
      items: [
        { id: "11", productIds: ["1"], sku: "demo_1", quantity: 3 },
        { id: "12", productIds: [], sku: "demo_5-S", quantity: 1 },
        { id: "13", productIds: [], sku: "demo_5-M", quantity: 2 },
      ],
      extra: { orders: [{ id: "7", id_carrier: "2", rows: ["11", "12", "13"] }] },
    });
    const [request] = (await standInShop(shop)).received;
    expect(await received(shop)).toEqual([FIND]);
    expect(request!.headers.authorization).toBe(`Basic ${btoa(`${shop.credentials.webservice_key}:`)}`);
  });

  it("a reference the shop does not have (the webservice's empty [] in JSON): not_found, in words", async () => {
    const { conn, http } = await prestaShop();
    const error = await failure(prestashop.findOrder(conn, http, { externalId: "NOSUCHREF", reference: "DD-9" }));
    expect(error.kind).toBe("not_found");
    expect(error.message).toBe("PrestaShop has no order with reference NOSUCHREF (our order DD-9)");
  });

  it("a reference holding the webservice's filter operators is never searched: it could match other orders", async () => {
    const { shop, conn, http } = await prestaShop();
    const error = await failure(prestashop.findOrder(conn, http, { externalId: "XKBKNABJK|OTHER", reference: "DD-9" }));
    expect(error.kind).toBe("not_found");
    expect(error.message).toBe("PrestaShop order references hold no | , [ ] or %: there is no order with reference XKBKNABJK|OTHER (our order DD-9)");
    expect(await received(shop)).toEqual([]);
  });

  it("a cart split across carriers (two orders, one reference): found together; each shipment goes to the order holding its rows", async () => {
    const lamp = { id: 8, reference: "XKBKNABJK", id_carrier: 3, rows: [{ id: 21, product_id: 9, product_reference: "demo_9", product_quantity: 1 }], carrier: { id: 32 } };
    const { shop, conn, http } = await prestaShop({ orders: [SEED.orders![0]!, lamp] });
    const order = await prestashop.findOrder(conn, http, ORDER);
    expect(order).toMatchObject({
      id: "7",
      items: [{ id: "11" }, { id: "12" }, { id: "13" }, { id: "21", productIds: ["9"], sku: "demo_9", quantity: 1 }],
      extra: { orders: [{ id: "7", id_carrier: "2", rows: ["11", "12", "13"] }, { id: "8", id_carrier: "3", rows: ["21"] }] },
    });
    // Our order of the lamp (the plugin sent PrestaShop's order 8 with the same reference) ships in full.
    const LAMP: LineRef = { lineId: 4, productId: "9", sku: "demo_9", name: "Lamp", quantity: 1 };
    expect(await prestashop.writeShipment(conn, http, order, shipment([[LAMP, 1]], ["LAMP-1"], true), { look: false })).toEqual({
      outcome: "written",
      shopIds: ["order_carrier/32", "order_history/500"],
    });
    let state = await held(shop);
    expect(state.order_carriers.map((c) => [c.id, c.tracking_number])).toEqual([[31, ""], [32, "LAMP-1"]]);
    expect(state.order_histories.map((h) => [h.id_order, h.id_order_state])).toEqual([["8", "4"]]);
    expect((await received(shop)).slice(1)).toEqual([
      "GET /api/order_carriers?filter[id_order]=[8]&display=full&output_format=JSON",
      "PUT /api/order_carriers/32?output_format=JSON",
      "GET /api/order_histories?filter[id_order]=[8]&display=full&output_format=JSON",
      "POST /api/order_histories?sendemail=1&output_format=JSON",
    ]);
    // Completing looks at both orders in one call each, and gives the state only to one that shipped.
    expect(await prestashop.complete(conn, http, order, ORDER, { look: false })).toEqual({ outcome: "found", shopIds: ["order_history/500"] });
    expect((await received(shop)).slice(5)).toEqual(["GET /api/order_carriers?filter[id_order]=[7|8]&display=full&output_format=JSON", "GET /api/order_histories?filter[id_order]=[8]&display=full&output_format=JSON"]);
    state = await held(shop);
    expect(state.order_histories).toHaveLength(1);
  });

  it("429 with Retry-After: rate_limited, with the seconds to wait", async () => {
    const { shop, conn, http } = await prestaShop();
    await injectFault(shop, { method: "GET", path: "^/api/orders$", status: 429, headers: { "Retry-After": "12" }, body: "Too Many Requests" });
    const error = await failure(prestashop.findOrder(conn, http, ORDER));
    expect(error).toMatchObject({ kind: "rate_limited", status: 429, retryAfterSeconds: 12 });
  });
});

describe("PrestaShop: shipments", () => {
  it("a full shipment: the tracking number on the order's carrier, then the Shipped state (4) with its e-mail", async () => {
    const { shop, conn, http } = await prestaShop();
    const order = await prestashop.findOrder(conn, http, ORDER);
    expect(await prestashop.writeShipment(conn, http, order, shipment(ALL, ["JVGL0001"], true), { look: false })).toEqual({
      outcome: "written",
      shopIds: ["order_carrier/31", "order_history/500"],
    });
    expect(await received(shop)).toEqual([FIND, CARRIERS, "PUT /api/order_carriers/31?output_format=JSON", HISTORIES, "POST /api/order_histories?sendemail=1&output_format=JSON"]);
    expect(await bodies(shop)).toEqual([carrierXml("JVGL0001"), xml("order_history", "<id_order>7</id_order><id_order_state>4</id_order_state>")]);
    const state = await held(shop);
    expect(state.order_carriers[0]!.tracking_number).toBe("JVGL0001");
    expect(state.order_histories).toEqual([{ id: 500, id_order: "7", id_order_state: "4", id_employee: "0", date_add: "2026-11-25 12:00:00" }]);
    expect(state.orders[0]!.current_state).toBe("4");
    expect(state.flags).toEqual([
      { method: "PUT", resource: "order_carriers", id: 31, sendemail: null },
      { method: "POST", resource: "order_histories", id: 500, sendemail: "1" },
    ]);
  });

  it("a partial shipment puts its tracking number and leaves the state; the shipment completing the order adds its number and the configured state", async () => {
    const { shop, conn, http } = await prestaShop(SEED, { shipped_state_id: 15 });
    const order = await prestashop.findOrder(conn, http, ORDER);
    expect(await prestashop.writeShipment(conn, http, order, shipment([[MUG, 1]], ["PN-1"], false), { look: false })).toEqual({ outcome: "written", shopIds: ["order_carrier/31"] });
    let state = await held(shop);
    expect(state.order_carriers[0]!.tracking_number).toBe("PN-1");
    expect(state.order_histories).toEqual([]);
    expect(await prestashop.writeShipment(conn, http, order, shipment([[MUG, 2], [SHIRT_S, 1], [SHIRT_M, 2]], ["PN-2"], true), { look: false })).toEqual({
      outcome: "written",
      shopIds: ["order_carrier/31", "order_history/500"],
    });
    state = await held(shop);
    expect(state.order_carriers[0]!.tracking_number).toBe("PN-1, PN-2");
    expect(state.order_histories.map((h) => [h.id_order, h.id_order_state])).toEqual([["7", "15"]]);
    expect((await bodies(shop))[1]).toBe(carrierXml("PN-1, PN-2"));
  });

  it("several tracking numbers on one line: joined on the carrier's one field; the order that had the state does not get it twice", async () => {
    const { shop, conn, http } = await prestaShop();
    const order = await prestashop.findOrder(conn, http, ORDER);
    await prestashop.writeShipment(conn, http, order, shipment([[MUG, 3]], ["3S001", "3S002", "3S003"], true), { look: false });
    expect(await prestashop.writeShipment(conn, http, order, shipment([[SHIRT_S, 1]], ["3S004"], true), { look: false })).toEqual({
      outcome: "written",
      shopIds: ["order_carrier/31", "order_history/500"],
    });
    const state = await held(shop);
    expect(state.order_carriers[0]!.tracking_number).toBe("3S001, 3S002, 3S003, 3S004");
    expect(state.order_histories.map((h) => h.id)).toEqual([500]);
    expect((await received(shop)).slice(-3)).toEqual([CARRIERS, "PUT /api/order_carriers/31?output_format=JSON", HISTORIES]);
  });

  it("tracking numbers filling the carrier field's 64 characters are written; one character more is refused in words, before anything is written", async () => {
    const { shop, conn, http } = await prestaShop();
    const order = await prestashop.findOrder(conn, http, ORDER);
    const fits = ["0123456789ABCDEFGHIJ", "0123456789ABCDEFGHIK", "0123456789ABCDEFGHIL"];
    expect(await prestashop.writeShipment(conn, http, order, shipment([[MUG, 1]], fits, false), { look: false })).toMatchObject({ outcome: "written" });
    expect((await held(shop)).order_carriers[0]!.tracking_number).toHaveLength(64);

    const other = await prestaShop();
    const error = await failure(prestashop.writeShipment(other.conn, other.http, order, shipment([[MUG, 1]], [...fits.slice(0, 2), "0123456789ABCDEFGHIJK"], false), { look: false }));
    expect(error.kind).toBe("invalid");
    expect(error.message).toBe(
      'PrestaShop keeps one tracking number field of at most 64 characters per order; with 0123456789ABCDEFGHIJ, 0123456789ABCDEFGHIK, 0123456789ABCDEFGHIJK it would hold "0123456789ABCDEFGHIJ, 0123456789ABCDEFGHIK, 0123456789ABCDEFGHIJK" (65 characters): nothing was written',
    );
    expect(await received(other.shop)).toEqual([CARRIERS]);
    expect((await held(other.shop)).order_carriers[0]!.tracking_number).toBe("");
  });

  it("a tracking number PrestaShop finds invalid: its 400 in its words, and nothing changed", async () => {
    const { shop, conn, http } = await prestaShop();
    const order = await prestashop.findOrder(conn, http, ORDER);
    const error = await failure(prestashop.writeShipment(conn, http, order, shipment([[MUG, 3]], ["ABC*1"], true), { look: false }));
    expect(error.kind).toBe("invalid");
    expect(error.message).toBe(
      'The shop refused what we sent (400 on PUT /api/order_carriers/31?output_format=JSON): {"errors":[{"code":85,"message":"Validation error: \\"Property OrderCarrier->tracking_number is not valid\\""}]}',
    );
    const state = await held(shop);
    expect(state.order_carriers[0]!.tracking_number).toBe("");
    expect(state.order_histories).toEqual([]);
  });

  it("a shipped state applied but never answered: the retry looks, finds the number and the state, and writes neither twice", async () => {
    const { shop, conn, http } = await prestaShop();
    const order = await prestashop.findOrder(conn, http, ORDER);
    await injectFault(shop, { method: "POST", path: "^/api/order_histories$", hangAfterApplying: true });
    const write = shipment(ALL, ["JVGL0001"], true);
    const error = await failure(prestashop.writeShipment(conn, http, order, write, { look: false }));
    expect(error.kind).toBe("timeout");
    expect(error.unclear).toBe(true);
    const retry = adapterAt("prestashop", shop.base_url, shop.credentials);
    expect(await prestashop.writeShipment(retry.conn, retry.http, order, write, { look: true })).toEqual({ outcome: "found", shopIds: ["order_carrier/31", "order_history/500"] });
    const state = await held(shop);
    expect(state.order_carriers[0]!.tracking_number).toBe("JVGL0001");
    expect(state.order_histories.map((h) => h.id)).toEqual([500]);
    expect((await received(shop)).slice(5)).toEqual([CARRIERS, HISTORIES]);
  });

  it("a tracking number applied but never answered: the retry puts no second copy and goes on to the state", async () => {
    const { shop, conn, http } = await prestaShop();
    const order = await prestashop.findOrder(conn, http, ORDER);
    await injectFault(shop, { method: "PUT", path: "^/api/order_carriers/31$", hangAfterApplying: true });
    const write = shipment(ALL, ["JVGL0001"], true);
    expect((await failure(prestashop.writeShipment(conn, http, order, write, { look: false }))).kind).toBe("timeout");
    const retry = adapterAt("prestashop", shop.base_url, shop.credentials);
    expect(await prestashop.writeShipment(retry.conn, retry.http, order, write, { look: true })).toEqual({ outcome: "written", shopIds: ["order_carrier/31", "order_history/500"] });
    expect((await held(shop)).order_carriers[0]!.tracking_number).toBe("JVGL0001");
    expect((await received(shop)).slice(3)).toEqual([CARRIERS, HISTORIES, "POST /api/order_histories?sendemail=1&output_format=JSON"]);
  });

  it("an order without a carrier record (virtual): refused in words", async () => {
    const { conn, http } = await prestaShop({ orders: [{ ...SEED.orders![0]!, carrier: null }] });
    const order = await prestashop.findOrder(conn, http, ORDER);
    const error = await failure(prestashop.writeShipment(conn, http, order, shipment([[MUG, 3]], ["X1"], true), { look: false }));
    expect(error).toMatchObject({ kind: "invalid", message: "The shop's order XKBKNABJK (id 7) has no carrier record (order_carriers) to hold a tracking number: nothing was written" });
  });
});

describe("PrestaShop: notes and completion", () => {
  it("a note is a private order message; a retry that looks finds it and adds none", async () => {
    const { shop, conn, http } = await prestaShop();
    const order = await prestashop.findOrder(conn, http, ORDER);
    const note = { order: ORDER, text: "Line Mug declined by Keukenhuis: out of stock & discontinued" };
    expect(await prestashop.writeNote(conn, http, order, note, { look: false })).toEqual({ outcome: "written", shopIds: ["message/500"] });
    expect(await prestashop.writeNote(conn, http, order, note, { look: true })).toEqual({ outcome: "found", shopIds: ["message/500"] });
    expect(await bodies(shop)).toEqual([xml("message", "<id_order>7</id_order><message>Line Mug declined by Keukenhuis: out of stock &amp; discontinued</message><private>1</private>")]);
    expect((await held(shop)).messages).toEqual([{ id: 500, id_order: "7", message: note.text, private: "1", date_add: "2026-11-25 12:00:00" }]);
  });

  it("complete: an order that shipped something gets the shipped state once; one that shipped nothing gets none", async () => {
    const { shop, conn, http } = await prestaShop();
    const order = await prestashop.findOrder(conn, http, ORDER);
    expect(await prestashop.complete(conn, http, order, ORDER, { look: false })).toEqual({
      outcome: "skipped",
      reason: "Nothing of the order was shipped (its carrier holds no tracking number): PrestaShop gets no shipped state.",
    });
    await prestashop.writeShipment(conn, http, order, shipment([[MUG, 3]], ["PN-1"], false), { look: false });
    expect((await held(shop)).order_histories).toEqual([]);
    expect(await prestashop.complete(conn, http, order, ORDER, { look: false })).toEqual({ outcome: "written", shopIds: ["order_history/500"] });
    expect(await prestashop.complete(conn, http, order, ORDER, { look: true })).toEqual({ outcome: "found", shopIds: ["order_history/500"] });
    expect((await held(shop)).order_histories.map((h) => [h.id, h.id_order_state])).toEqual([[500, "4"]]);
  });
});

describe("PrestaShop: dry run and secrets", () => {
  it("a dry run looks up the order, its carrier and its states, but sends no write: the calls record the XML it would have sent", async () => {
    const { shop, conn, http } = await prestaShop(SEED, { mode: "dry_run" });
    const order = await prestashop.findOrder(conn, http, ORDER);
    expect(await prestashop.writeShipment(conn, http, order, shipment(ALL, ["JVGL0001"], true), { look: false })).toEqual({ outcome: "written", shopIds: ["order_carrier/31"] });
    expect(await prestashop.writeNote(conn, http, order, { order: ORDER, text: "Declined" }, { look: false })).toEqual({ outcome: "written", shopIds: [] });
    expect(await received(shop)).toEqual([FIND, CARRIERS, HISTORIES]);
    const state = await held(shop);
    expect([state.order_carriers[0]!.tracking_number, state.order_histories, state.messages]).toEqual(["", [], []]);
    expect(http.calls.filter((c) => c.dryRun).map((c) => [c.method, c.path, c.sent, c.status])).toEqual([
      ["PUT", "/api/order_carriers/31?output_format=JSON", carrierXml("JVGL0001"), null],
      ["POST", "/api/order_histories?sendemail=1&output_format=JSON", xml("order_history", "<id_order>7</id_order><id_order_state>4</id_order_state>"), null],
      ["POST", "/api/messages?output_format=JSON", xml("message", "<id_order>7</id_order><message>Declined</message><private>1</private>"), null],
    ]);
  });

  it("the webservice key is sent to the shop but never appears in the recorded calls", async () => {
    const { shop, conn, http } = await prestaShop();
    await prestashop.test(conn, http);
    const order = await prestashop.findOrder(conn, http, ORDER);
    await prestashop.writeShipment(conn, http, order, shipment(ALL, ["JVGL0001"], true), { look: true });
    await prestashop.writeNote(conn, http, order, { order: ORDER, text: "Declined" }, { look: true });
    const key = shop.credentials.webservice_key!;
    expect((await standInShop(shop)).received.every((r) => r.headers.authorization === `Basic ${btoa(`${key}:`)}`)).toBe(true);
    expect(http.calls.length).toBe(8);
    expect(JSON.stringify(http.calls)).not.toContain(key);
    expect(JSON.stringify(http.calls)).not.toContain(btoa(`${key}:`));
  });
});
