// Write-backs end to end into Shopware, Magento and PrestaShop (WooCommerce: write-backs.test.ts),
// each through the real path: a connection created through POST /api/v1/shop-connections pointing
// at the platform's stand-in shop (test/shops/stand-ins/), seeded with the order as the platform's
// plugin sends it (docs/shops/<platform>.md); the order through the API with that external_id; the
// supplier's answers through the supplier API; the real local queue. Each test asserts what the
// stand-in shop holds and received, and what GET /api/v1/orders/{reference}/shop-sync answers.
import { describe, expect, it } from "vitest";
import { createAccount, createOrder, rows } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { answered, handPickedSupplier, sendByHand, ship, writeBacksSettled } from "../helpers/shops";
import { awaitingPickup, supplierChain } from "../helpers/suppliers";
import { createStandInShop, injectFault, standInShop, type StandInFault, type StandInShopHandle } from "./stand-ins/client";
import type { MagentoState } from "./stand-ins/magento";
import type { PrestaShopState } from "./stand-ins/prestashop";
import type { ShopwareState } from "./stand-ins/shopware";
import { createConnection } from "./support";

const TIMEOUT = expect.stringMatching(/^127\.0\.0\.1:\d+ did not answer within 1 s$/);
const SOURCE = { shopware: "Shopware", magento: "Magento", prestashop: "PrestaShop" } as const;
type Platform = keyof typeof SOURCE;
type Product = { external_id: string; reference: string; name: string; quantity: number; price: number };

/** A shop of the platform holding `seed`, a connection to it made through the API, and our order as its plugin sends it, at the supplier. */
async function setUp(platform: Platform, seed: unknown, externalId: string, products: Product[], settings: Record<string, unknown> = {}) {
  const creds = await createAccount();
  const shop = await createStandInShop(platform, seed);
  const connection = await createConnection(creds, { platform, name: `My ${SOURCE[platform]}`, base_url: shop.base_url, credentials: shop.credentials, sources: [SOURCE[platform]], settings });
  const [{ key }] = await supplierChain(creds, [{ channel: "pull" }]);
  const { reference } = await createOrder(creds, { external_id: externalId, source: SOURCE[platform], products });
  await awaitingPickup(key!, reference);
  const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
  const [mugs, plate] = order.order_lines.map((l: { id: number }) => l.id) as number[];
  const orderId = (await rows<{ id: number }>("SELECT id FROM orders WHERE reference = ?", reference))[0].id;
  return { creds, shop, connection, key: key!, reference, orderId, mugs, plate };
}

const decline = (line: number) => ({ line_id: line, action: "decline", reason: "discontinued" });

/** Magento and PrestaShop plugins send each line's product id and SKU (reference): our order of two mugs (product 501) and a plate (502). */
const BY_PRODUCT_ID = [
  { external_id: "501", reference: "MUG-BLUE", name: "Blue mug", quantity: 2, price: 12.5 },
  { external_id: "502", reference: "PLATE-RED-L", name: "Red plate", quantity: 1, price: 20 },
];

type SyncCall = { method: string; path: string; sent: string | null; status: number | null; answer: string | null };
type Sync = { kind: string; event: { type: string }; status: string; dry_run: boolean; shop_ids: string[]; last_error: string | null; attempts: { error: string | null; calls: SyncCall[] }[] };

async function shopSync(creds: Credentials, reference: string): Promise<Sync[]> {
  const res = await call("GET", `/api/v1/orders/${reference}/shop-sync`, { creds });
  expect(res.status).toBe(200);
  return res.json.data;
}
/** Each write-back as kind, event, status, dry run, the shop's ids, and per attempt its error and its calls (method, path without the query, the shop's status). */
const summary = (list: Sync[]) =>
  list.map((w) => ({
    kind: w.kind,
    event: w.event.type,
    status: w.status,
    dry_run: w.dry_run,
    shop_ids: w.shop_ids,
    last_error: w.last_error,
    attempts: w.attempts.map((a) => ({ error: a.error, calls: a.calls.map((c) => `${c.method} ${c.path.split("?")[0]} ${c.status}`) })),
  }));
const once = (...calls: string[]) => [{ error: null, calls }];
const sync = (kind: string, event: string, shopIds: unknown, attempts: unknown, extra: { status?: string; last_error?: string | null; dry_run?: boolean } = {}) => ({
  kind,
  event,
  status: "done",
  dry_run: false,
  shop_ids: shopIds,
  last_error: null,
  attempts,
  ...extra,
});
const COMPLETE_EVENT = "order.completed";

/** What the shop received: method and path (without the query), oldest first. */
const received = async (shop: StandInShopHandle) => (await standInShop(shop)).received.map((r) => `${r.method} ${r.path}`);
const writes = async (shop: StandInShopHandle) => (await received(shop)).filter((r) => !r.startsWith("GET ") && !r.startsWith("POST /api/search/") && r !== "POST /api/oauth/token");

describe("write-backs into a Shopware 6 shop", () => {
  const MUG = "0190a7c1d2e34f5a8b9c0d1e2f3a4b5c";
  const PLATE = "0190a7c1d2e34f5a8b9c0d1e2f3a4b6d";
  const SEED = {
    orders: [
      {
        orderNumber: "10001",
        lineItems: [
          { productId: MUG, productNumber: "SW-MUG", quantity: 2, label: "Blue mug" },
          { productId: PLATE, productNumber: "SW-PLATE", quantity: 1, label: "Red plate" },
        ],
      },
    ],
  };
  // The Shopware plugin: the order number, each line item's productId and product number.
  const PRODUCTS = [
    { external_id: MUG, reference: "SW-MUG", name: "Blue mug", quantity: 2, price: 12.5 },
    { external_id: PLATE, reference: "SW-PLATE", name: "Red plate", quantity: 1, price: 20 },
  ];
  const open = (settings?: Record<string, unknown>) => setUp("shopware", SEED, "10001", PRODUCTS, settings);
  const held = async (shop: StandInShopHandle) => {
    const { state } = await standInShop<ShopwareState>(shop);
    const order = state.orders[0];
    return { order, delivery: order.deliveries[0], history: state.history.map((h) => `${h.entity} ${h.transition}: ${h.from} -> ${h.to}`) };
  };
  const SEARCH = ["POST /api/search/order 200", "POST /api/search/order-delivery 200"];

  it("a shipment of every line: the tracking codes on the delivery, shipped, then the order done; shop-sync answers each with its calls", async () => {
    const { creds, shop, key, reference, orderId, mugs, plate } = await open();
    await answered(key, [ship(mugs, 2, "3SABC123"), ship(plate, 1, "JJD000123", "DHL")]);
    await writeBacksSettled(orderId, 3);

    const { order, delivery, history } = await held(shop);
    expect([delivery.trackingCodes, delivery.state, order.state]).toEqual([["3SABC123", "JJD000123"], "shipped", "completed"]);
    expect(history).toEqual(["order_delivery ship: open -> shipped", "order process: open -> in_progress", "order complete: in_progress -> completed"]);
    const d = delivery.id;
    const o = order.id;
    expect(await writes(shop)).toEqual([
      `PATCH /api/order-delivery/${d}`,
      `POST /api/_action/order_delivery/${d}/state/ship`,
      `PATCH /api/order-delivery/${d}`,
      `POST /api/_action/order/${o}/state/process`,
      `POST /api/_action/order/${o}/state/complete`,
    ]);

    const list = await shopSync(creds, reference);
    expect(summary(list)).toEqual([
      sync("shipment", "order_line.shipped", [d], once("POST /api/oauth/token 200", ...SEARCH, `PATCH /api/order-delivery/${d} 204`, `POST /api/_action/order_delivery/${d}/state/ship 200`)),
      sync("shipment", "order_line.shipped", [d], once(...SEARCH, `PATCH /api/order-delivery/${d} 204`)),
      sync("complete", COMPLETE_EVENT, [o], once("POST /api/search/order 200", "POST /api/search/order 200", `POST /api/_action/order/${o}/state/process 200`, `POST /api/_action/order/${o}/state/complete 200`)),
    ]);
    // Shopware replaces the list whole: the second shipment sends the codes already there and its own.
    expect(list[1].attempts[0].calls[2].sent).toBe('{"trackingCodes":["3SABC123","JJD000123"]}');
    // The token's answer is not kept.
    expect(list[0].attempts[0].calls[0].answer).toBe("[redacted]");
  });

  it("partial shipments and several tracking numbers on one line: shipped partially, each code once, then shipped and done", async () => {
    const { shop, key, orderId, mugs, plate } = await open();
    await answered(key, [ship(mugs, 1, "PARCEL-A")]);
    await writeBacksSettled(orderId, 1);
    let now = await held(shop);
    expect([now.delivery.trackingCodes, now.delivery.state, now.order.state]).toEqual([["PARCEL-A"], "shipped_partially", "open"]);

    await answered(key, [ship(mugs, 1, "PARCEL-B"), ship(plate, 1, "PARCEL-C")]);
    const settled = await writeBacksSettled(orderId, 4);
    expect(settled.map((w) => [w.kind, w.status])).toEqual([
      ["shipment", "done"],
      ["shipment", "done"],
      ["shipment", "done"],
      ["complete", "done"],
    ]);
    now = await held(shop);
    expect([now.delivery.trackingCodes, now.delivery.state, now.order.state]).toEqual([["PARCEL-A", "PARCEL-B", "PARCEL-C"], "shipped", "completed"]);
    expect(now.history).toEqual([
      "order_delivery ship_partially: open -> shipped_partially",
      "order_delivery ship: shipped_partially -> shipped",
      "order process: open -> in_progress",
      "order complete: in_progress -> completed",
    ]);
  });

  it("a line declined with no other supplier: a private note, no on-hold state to set; sent on by hand, a follow-up note, done only once it shipped", async () => {
    const { creds, shop, key, reference, orderId, mugs, plate } = await open();
    await answered(key, [decline(plate)]);
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    await writeBacksSettled(orderId, 3);
    let now = await held(shop);
    expect(now.order.internalComment).toMatch(new RegExp(`^Red plate \\(${PLATE}, SKU SW-PLATE\\) × 1 was declined, and no other supplier takes it\\. .*discontinued$`));
    // The plate waits for a person: the mugs' shipment ships the delivery in part, and the order is not completed.
    expect([now.delivery.trackingCodes, now.delivery.state, now.order.state]).toEqual([["3SABC123"], "shipped_partially", "open"]);

    const other = await handPickedSupplier(creds);
    await sendByHand(creds, reference, plate, other.id);
    await awaitingPickup(other.key, reference);
    await answered(other.key, [ship(plate, 1, "JJD000123", "DHL")]);
    await writeBacksSettled(orderId, 7);
    now = await held(shop);
    expect(now.order.internalComment!.split("\n\n").at(-1)).toBe(`Red plate (${PLATE}, SKU SW-PLATE) × 1 is now with supplier ${other.name}, sent there by hand.`);
    expect([now.delivery.trackingCodes, now.delivery.state, now.order.state]).toEqual([["3SABC123", "JJD000123"], "shipped", "completed"]);
    expect(now.history).toEqual([
      "order_delivery ship_partially: open -> shipped_partially",
      "order_delivery ship: shipped_partially -> shipped",
      "order process: open -> in_progress",
      "order complete: in_progress -> completed",
    ]);
    const NO_HOLD = "Shopware has no on-hold state for orders: order 10001 is left as it is, the private note says what waits";
    const NO_RELEASE = "Shopware has no on-hold state for orders: order 10001 was left as it was, nothing to release";
    expect(summary(await shopSync(creds, reference)).map((w) => [w.kind, w.event, w.status, w.last_error])).toEqual([
      ["note", "order_line.status_changed", "done", null],
      ["hold", "order_line.status_changed", "skipped", NO_HOLD],
      ["shipment", "order_line.shipped", "done", null],
      ["note", "order_line.assigned", "done", null],
      ["release", expect.any(String), "skipped", NO_RELEASE],
      ["shipment", "order_line.shipped", "done", null],
      ["complete", COMPLETE_EVENT, "done", null],
    ]);
  });

  it("a transition applied but never answered: the retry finds the delivery shipped partially and its code there, and writes nothing again", async () => {
    const { creds, shop, key, reference, orderId, mugs } = await open();
    await injectFault(shop, { method: "POST", path: "/state/ship_partially$", hangAfterApplying: true });
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    await writeBacksSettled(orderId, 1);
    const { delivery, history } = await held(shop);
    expect([delivery.trackingCodes, delivery.state]).toEqual([["3SABC123"], "shipped_partially"]);
    expect(history).toEqual(["order_delivery ship_partially: open -> shipped_partially"]);
    expect(await writes(shop)).toEqual([`PATCH /api/order-delivery/${delivery.id}`, `POST /api/_action/order_delivery/${delivery.id}/state/ship_partially`]);
    const [w] = summary(await shopSync(creds, reference));
    expect([w.status, w.shop_ids, w.attempts.map((a) => a.error)]).toEqual(["done", [delivery.id], [TIMEOUT, null]]);
    // The retry kept the order found the first time and read the delivery: nothing left to do.
    expect(w.attempts[1].calls).toEqual(["POST /api/search/order-delivery 200"]);
  });

  it("dry run: the token and the lookups go out, the writes are recorded and not sent", async () => {
    const { creds, shop, key, reference, orderId, mugs } = await open({ mode: "dry_run" });
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    await writeBacksSettled(orderId, 1);
    expect(await received(shop)).toEqual(["POST /api/oauth/token", "POST /api/search/order", "POST /api/search/order-delivery"]);
    const { delivery, history } = await held(shop);
    expect([delivery.trackingCodes, delivery.state, history]).toEqual([[], "open", []]);
    const [w] = await shopSync(creds, reference);
    expect([w.status, w.dry_run]).toEqual(["done", true]);
    expect(w.attempts[0].calls.slice(3).map((c) => [c.method, c.path, c.sent, c.status, c.answer])).toEqual([
      ["PATCH", `/api/order-delivery/${delivery.id}`, '{"trackingCodes":["3SABC123"]}', null, null],
      ["POST", `/api/_action/order_delivery/${delivery.id}/state/ship_partially`, null, null, null],
    ]);
  });
});

describe("write-backs into a Magento 2 shop", () => {
  // Order 000000123 (entity 42): two mugs (item 1, product 501), one plate (item 2, product 502).
  const SEED = {
    orders: [
      {
        entity_id: 42,
        increment_id: "000000123",
        items: [
          { item_id: 1, product_id: 501, sku: "MUG-BLUE", name: "Blue mug", qty_ordered: 2 },
          { item_id: 2, product_id: 502, sku: "PLATE-RED-L", name: "Red plate", qty_ordered: 1 },
        ],
      },
    ],
  };
  // The Magento plugin: the increment_id, each visible item's product id and SKU.
  const PRODUCTS = BY_PRODUCT_ID;
  const open = (settings?: Record<string, unknown>) => setUp("magento", SEED, "000000123", PRODUCTS, settings);
  const held = async (shop: StandInShopHandle) => (await standInShop<MagentoState>(shop)).state;
  /** Each shipment as its items (order item: qty), its tracks (number, title, carrier code) and whether the customer was e-mailed. */
  const shipments = async (shop: StandInShopHandle) =>
    (await held(shop)).shipments.map((s) => ({
      order_id: s.order_id,
      items: s.items.map((i) => `${i.order_item_id}: ${i.qty}`),
      tracks: s.tracks.map((t) => `${t.track_number} ${t.title} ${t.carrier_code}`),
      email_sent: s.email_sent,
    }));
  const SKIPPED = "Magento completes an order itself once it is invoiced and shipped in full; there is no status to set.";

  it("a shipment per line, with its tracks; Magento completes the order itself; shop-sync answers each with its calls", async () => {
    const { creds, shop, key, reference, orderId, mugs, plate } = await open();
    await answered(key, [ship(mugs, 2, "3SABC123"), ship(plate, 1, "JJD000123", "DHL")]);
    await writeBacksSettled(orderId, 3);

    expect(await shipments(shop)).toEqual([
      { order_id: 42, items: ["1: 2"], tracks: ["3SABC123 PostNL custom"], email_sent: 1 },
      { order_id: 42, items: ["2: 1"], tracks: ["JJD000123 DHL dhl"], email_sent: 1 },
    ]);
    const state = await held(shop);
    expect([state.orders[0].state, state.orders[0].status]).toEqual(["complete", "complete"]);
    expect(await writes(shop)).toEqual(["POST /rest/V1/order/42/ship", "POST /rest/V1/order/42/ship"]);

    const list = await shopSync(creds, reference);
    const [first, second] = state.shipments.map((s) => String(s.entity_id));
    expect(summary(list)).toEqual([
      sync("shipment", "order_line.shipped", [first], once("GET /rest/V1/orders 200", "POST /rest/V1/order/42/ship 200")),
      sync("shipment", "order_line.shipped", [second], once("GET /rest/V1/orders 200", "POST /rest/V1/order/42/ship 200")),
      sync("complete", COMPLETE_EVENT, [], once("GET /rest/V1/orders 200"), { status: "skipped", last_error: SKIPPED }),
    ]);
    expect(JSON.parse(list[0].attempts[0].calls[1].sent!)).toEqual({
      items: [{ order_item_id: 1, qty: 2 }],
      notify: true,
      tracks: [{ track_number: "3SABC123", title: "PostNL", carrier_code: "custom" }],
    });
  });

  it("partial shipments and several tracking numbers on one line: each a shipment of what shipped, with its own track", async () => {
    const { shop, key, orderId, mugs, plate } = await open({ notify: false });
    await answered(key, [ship(mugs, 1, "PARCEL-A")]);
    await writeBacksSettled(orderId, 1);
    expect(await shipments(shop)).toEqual([{ order_id: 42, items: ["1: 1"], tracks: ["PARCEL-A PostNL custom"], email_sent: null }]);
    expect((await held(shop)).orders[0].state).toBe("processing");

    await answered(key, [ship(mugs, 1, "PARCEL-B"), ship(plate, 1, "PARCEL-C")]);
    const settled = await writeBacksSettled(orderId, 4);
    expect(settled.map((w) => [w.kind, w.status])).toEqual([
      ["shipment", "done"],
      ["shipment", "done"],
      ["shipment", "done"],
      ["complete", "skipped"],
    ]);
    expect(await shipments(shop)).toEqual([
      { order_id: 42, items: ["1: 1"], tracks: ["PARCEL-A PostNL custom"], email_sent: null },
      { order_id: 42, items: ["1: 1"], tracks: ["PARCEL-B PostNL custom"], email_sent: null },
      { order_id: 42, items: ["2: 1"], tracks: ["PARCEL-C PostNL custom"], email_sent: null },
    ]);
    const order = (await held(shop)).orders[0];
    expect([order.items.map((i) => i.qty_shipped), order.state]).toEqual([[2, 1], "complete"]);
  });

  it("a line declined with no other supplier: a private comment and the order on hold; shipped through the hold; sent on by hand, unheld, complete once shipped", async () => {
    const { creds, shop, key, reference, orderId, mugs, plate } = await open();
    await answered(key, [decline(plate)]);
    await writeBacksSettled(orderId, 2);
    let order = (await held(shop)).orders[0];
    expect([order.state, order.status]).toEqual(["holded", "holded"]);
    expect(order.status_histories.map((h) => [h.comment, h.is_customer_notified, h.is_visible_on_front])).toEqual([
      [expect.stringMatching(/^Red plate \(502, SKU PLATE-RED-L\) × 1 was declined, and no other supplier takes it\. .*discontinued/), 0, 0],
    ]);

    // Magento ships no order on hold: the shipment takes it off hold, ships, and holds it again.
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    await writeBacksSettled(orderId, 3);
    order = (await held(shop)).orders[0];
    expect([order.state, order.items.map((i) => i.qty_shipped)]).toEqual(["holded", [2, 0]]);

    const other = await handPickedSupplier(creds);
    await sendByHand(creds, reference, plate, other.id);
    await writeBacksSettled(orderId, 5);
    order = (await held(shop)).orders[0];
    expect([order.state, order.status_histories[0].comment]).toEqual(["processing", `Red plate (502, SKU PLATE-RED-L) × 1 is now with supplier ${other.name}, sent there by hand.`]);

    await awaitingPickup(other.key, reference);
    await answered(other.key, [ship(plate, 1, "JJD000123", "DHL")]);
    await writeBacksSettled(orderId, 7);
    order = (await held(shop)).orders[0];
    expect([order.state, order.items.map((i) => i.qty_shipped)]).toEqual(["complete", [2, 1]]);
    expect(await writes(shop)).toEqual([
      "POST /rest/V1/orders/42/comments",
      "POST /rest/V1/orders/42/hold",
      "POST /rest/V1/order/42/ship",
      "POST /rest/V1/orders/42/unhold",
      "POST /rest/V1/order/42/ship",
      "POST /rest/V1/orders/42/hold",
      "POST /rest/V1/orders/42/comments",
      "POST /rest/V1/orders/42/unhold",
      "POST /rest/V1/order/42/ship",
    ]);
    const [first, second] = (await held(shop)).shipments.map((s) => String(s.entity_id));
    expect(summary(await shopSync(creds, reference)).map((w) => [w.kind, w.event, w.status, w.shop_ids])).toEqual([
      ["note", "order_line.status_changed", "done", []],
      ["hold", "order_line.status_changed", "done", ["42"]],
      ["shipment", "order_line.shipped", "done", [first]],
      ["note", "order_line.assigned", "done", []],
      ["release", expect.any(String), "done", ["42"]],
      ["shipment", "order_line.shipped", "done", [second]],
      ["complete", COMPLETE_EVENT, "skipped", []],
    ]);
  });

  it("Magento refuses to hold an order it has finished with: the hold is skipped, saying why", async () => {
    // The shop owner cancelled order 000000123 in Magento.
    const { creds, shop, key, reference, orderId, plate } = await setUp("magento", { orders: [{ ...SEED.orders[0], state: "canceled" }] }, "000000123", PRODUCTS);
    await answered(key, [decline(plate)]);
    await writeBacksSettled(orderId, 2);
    expect(summary(await shopSync(creds, reference)).map((w) => [w.kind, w.status, w.last_error])).toEqual([
      ["note", "done", null],
      ["hold", "skipped", "Magento order 000000123 is canceled: Magento holds only an order it has not finished with, so it is left as it is"],
    ]);
    expect((await writes(shop)).filter((w) => w.endsWith("/hold"))).toEqual([]);
  });

  it("a shipment applied but never answered: the retry looks at the order's shipments, finds it and ships nothing twice", async () => {
    const { creds, shop, key, reference, orderId, mugs } = await open();
    await injectFault(shop, { method: "POST", path: "/ship$", hangAfterApplying: true });
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    await writeBacksSettled(orderId, 1);
    expect(await shipments(shop)).toEqual([{ order_id: 42, items: ["1: 2"], tracks: ["3SABC123 PostNL custom"], email_sent: 1 }]);
    expect(await writes(shop)).toEqual(["POST /rest/V1/order/42/ship"]);
    const [w] = summary(await shopSync(creds, reference));
    expect([w.status, w.shop_ids, w.attempts.map((a) => a.error)]).toEqual(["done", [String((await held(shop)).shipments[0].entity_id)], [TIMEOUT, null]]);
    expect(w.attempts[1].calls).toEqual(["GET /rest/V1/shipments 200"]);
  });

  it("dry run: the order is looked up, the shipment recorded and not sent", async () => {
    const { creds, shop, key, reference, orderId, mugs } = await open({ mode: "dry_run" });
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    await writeBacksSettled(orderId, 1);
    expect(await received(shop)).toEqual(["GET /rest/V1/orders"]);
    expect((await held(shop)).shipments).toEqual([]);
    const [w] = await shopSync(creds, reference);
    expect([w.status, w.dry_run, w.shop_ids]).toEqual(["done", true, []]);
    expect(w.attempts[0].calls.map((c) => [c.method, c.path.split("?")[0], c.status])).toEqual([
      ["GET", "/rest/V1/orders", 200],
      ["POST", "/rest/V1/order/42/ship", null],
    ]);
    expect(w.attempts[0].calls[1].sent).toContain('"track_number":"3SABC123"');
  });
});

describe("write-backs into a PrestaShop shop", () => {
  // Order 7, reference XKBKNABJK: two mugs (row 11, product 501), one plate (row 12, product 502); its carrier record 107.
  const SEED = {
    orders: [
      {
        id: 7,
        reference: "XKBKNABJK",
        rows: [
          { id: 11, product_id: 501, product_reference: "MUG-BLUE", product_name: "Blue mug", product_quantity: 2 },
          { id: 12, product_id: 502, product_reference: "PLATE-RED-L", product_name: "Red plate", product_quantity: 1 },
        ],
      },
    ],
  };
  // The PrestaShop plugin: the order's reference, each row's product id and reference.
  const PRODUCTS = BY_PRODUCT_ID;
  const open = (settings?: Record<string, unknown>) => setUp("prestashop", SEED, "XKBKNABJK", PRODUCTS, settings);
  const held = async (shop: StandInShopHandle) => {
    const { state } = await standInShop<PrestaShopState>(shop);
    return {
      tracking: state.order_carriers[0].tracking_number,
      state: state.orders[0].current_state,
      histories: state.order_histories.map((h) => `${h.id_order}: ${h.id_order_state}`),
      messages: state.messages.map((m) => [m.id_order, m.private, m.message]),
      flags: state.flags.map((f) => `${f.method} ${f.resource} sendemail=${f.sendemail}`),
      historyIds: state.order_histories.map((h) => String(h.id)),
    };
  };
  const CARRIERS = "GET /api/order_carriers 200";
  const HISTORIES = "GET /api/order_histories 200";

  it("a shipment of every line: the tracking numbers on the order's carrier, the Shipped state once; shop-sync answers each with its calls", async () => {
    const { creds, shop, key, reference, orderId, mugs, plate } = await open();
    await answered(key, [ship(mugs, 2, "3SABC123"), ship(plate, 1, "JJD000123", "DHL")]);
    await writeBacksSettled(orderId, 3);

    const now = await held(shop);
    expect([now.tracking, now.state, now.histories]).toEqual(["3SABC123, JJD000123", "4", ["7: 4"]]);
    expect(now.flags).toEqual(["PUT order_carriers sendemail=null", "POST order_histories sendemail=1", "PUT order_carriers sendemail=null"]);
    expect(await writes(shop)).toEqual(["PUT /api/order_carriers/107", "POST /api/order_histories", "PUT /api/order_carriers/107"]);

    const list = await shopSync(creds, reference);
    const history = `order_history/${now.historyIds[0]}`;
    expect(summary(list)).toEqual([
      sync("shipment", "order_line.shipped", ["order_carrier/107", history], once("GET /api/orders 200", CARRIERS, "PUT /api/order_carriers/107 200", HISTORIES, "POST /api/order_histories 201")),
      sync("shipment", "order_line.shipped", ["order_carrier/107", history], once("GET /api/orders 200", CARRIERS, "PUT /api/order_carriers/107 200", HISTORIES)),
      sync("complete", COMPLETE_EVENT, [history], once("GET /api/orders 200", CARRIERS, HISTORIES)),
    ]);
    expect(list[1].attempts[0].calls[2].sent).toContain("<tracking_number>3SABC123, JJD000123</tracking_number>");
  });

  it("partial shipments and several tracking numbers on one line: the numbers joined, the Shipped state once the order shipped in full", async () => {
    const { shop, key, orderId, mugs, plate } = await open({ shipped_state_id: 5 });
    await answered(key, [ship(mugs, 1, "PARCEL-A")]);
    await writeBacksSettled(orderId, 1);
    let now = await held(shop);
    expect([now.tracking, now.state, now.histories]).toEqual(["PARCEL-A", "2", []]);

    await answered(key, [ship(mugs, 1, "PARCEL-B"), ship(plate, 1, "PARCEL-C")]);
    const settled = await writeBacksSettled(orderId, 4);
    expect(settled.map((w) => [w.kind, w.status])).toEqual([
      ["shipment", "done"],
      ["shipment", "done"],
      ["shipment", "done"],
      ["complete", "done"],
    ]);
    now = await held(shop);
    expect([now.tracking, now.state, now.histories]).toEqual(["PARCEL-A, PARCEL-B, PARCEL-C", "5", ["7: 5"]]);
  });

  it("a line declined with no other supplier: a private message, no Shipped state while it waits; sent on by hand, a follow-up message, Shipped once it shipped", async () => {
    const { creds, shop, key, reference, orderId, mugs, plate } = await open();
    await answered(key, [decline(plate)]);
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    await writeBacksSettled(orderId, 3);
    let now = await held(shop);
    expect(now.messages).toEqual([["7", "1", expect.stringMatching(/^Red plate \(502, SKU PLATE-RED-L\) × 1 was declined, and no other supplier takes it\. .*discontinued/)]]);
    // The plate waits for a person: the order is not shipped in full, it keeps its state.
    expect([now.tracking, now.state, now.histories]).toEqual(["3SABC123", "2", []]);

    const other = await handPickedSupplier(creds);
    await sendByHand(creds, reference, plate, other.id);
    await awaitingPickup(other.key, reference);
    await answered(other.key, [ship(plate, 1, "JJD000123", "DHL")]);
    await writeBacksSettled(orderId, 7);
    now = await held(shop);
    expect(now.messages.at(-1)).toEqual(["7", "1", `Red plate (502, SKU PLATE-RED-L) × 1 is now with supplier ${other.name}, sent there by hand.`]);
    expect([now.tracking, now.state, now.histories]).toEqual(["3SABC123, JJD000123", "4", ["7: 4"]]);
    const NO_HOLD = "PrestaShop has no on-hold order state of its own and none is set (settings.hold_state_id): order XKBKNABJK is left in its state, the private message says what waits";
    const NO_RELEASE = "PrestaShop has no on-hold order state of its own and none is set (settings.hold_state_id): order XKBKNABJK was left in its state, nothing to release";
    expect(summary(await shopSync(creds, reference)).map((w) => [w.kind, w.event, w.status, w.last_error])).toEqual([
      ["note", "order_line.status_changed", "done", null],
      ["hold", "order_line.status_changed", "skipped", NO_HOLD],
      ["shipment", "order_line.shipped", "done", null],
      ["note", "order_line.assigned", "done", null],
      ["release", expect.any(String), "skipped", NO_RELEASE],
      ["shipment", "order_line.shipped", "done", null],
      ["complete", COMPLETE_EVENT, "done", null],
    ]);
  });

  // A shop that made an order state of its own for orders on hold (id 20), set as hold_state_id; the
  // order came in awaiting a bank wire (10) and was paid (2), as its history says.
  const ON_HOLD = 20;
  const openHeld = () => setUp("prestashop", { orders: [{ ...SEED.orders[0], history: [10, 2] }] }, "XKBKNABJK", PRODUCTS, { hold_state_id: ON_HOLD });
  /** The histories our write-backs added (the seeded ones have ids below 500), and the write flags. */
  const added = async (shop: StandInShopHandle) => {
    const { state } = await standInShop<PrestaShopState>(shop);
    return {
      state: state.orders[0].current_state,
      histories: state.order_histories.filter((h) => h.id >= 500).map((h) => `${h.id_order}: ${h.id_order_state}`),
      flags: state.flags.filter((f) => f.resource === "order_histories").map((f) => `POST sendemail=${f.sendemail}`),
    };
  };
  const STATES = "GET /api/orders 200";

  it("with hold_state_id: the order on hold while a declined line waits, back to the state before once it is sent on by hand, Shipped once it shipped", async () => {
    const { creds, shop, key, reference, orderId, mugs, plate } = await openHeld();
    await answered(key, [decline(plate)]);
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    await writeBacksSettled(orderId, 3);
    // On hold in the hold state, with its e-mail (the state's own, if the shop gave it one); the mugs' tracking written meanwhile.
    expect(await added(shop)).toEqual({ state: "20", histories: ["7: 20"], flags: ["POST sendemail=1"] });
    expect((await held(shop)).tracking).toBe("3SABC123");

    const other = await handPickedSupplier(creds);
    await sendByHand(creds, reference, plate, other.id);
    await awaitingPickup(other.key, reference);
    await answered(other.key, [ship(plate, 1, "JJD000123", "DHL")]);
    await writeBacksSettled(orderId, 7);
    // Released back to Payment accepted (2) without an e-mail, then Shipped (4) with its own.
    expect(await added(shop)).toEqual({ state: "4", histories: ["7: 20", "7: 2", "7: 4"], flags: ["POST sendemail=1", "POST sendemail=null", "POST sendemail=1"] });
    const list = summary(await shopSync(creds, reference));
    expect(list.map((w) => [w.kind, w.status, w.last_error])).toEqual([
      ["note", "done", null],
      ["hold", "done", null],
      ["shipment", "done", null],
      ["note", "done", null],
      ["release", "done", null],
      ["shipment", "done", null],
      ["complete", "done", null],
    ]);
    expect(list[1].attempts).toEqual(once(STATES, STATES, "POST /api/order_histories 201"));
    expect(list[4].attempts).toEqual(once(STATES, STATES, HISTORIES, "POST /api/order_histories 201"));
  });

  it("with hold_state_id: an order the shop owner moved off hold meanwhile is left as they set it", async () => {
    const { creds, shop, key, reference, orderId, plate } = await openHeld();
    await answered(key, [decline(plate)]);
    await writeBacksSettled(orderId, 2);
    expect((await added(shop)).state).toBe("20");
    // The shop owner sets Processing in progress (3) by hand.
    // (through the webservice, as the back office's change does: an order_history entry)
    const res = await fetch(`${shop.base_url}/api/order_histories?output_format=JSON`, {
      method: "POST",
      headers: { authorization: `Basic ${btoa(`${shop.credentials.webservice_key}:`)}`, "content-type": "application/xml" },
      body: `<prestashop><order_history><id_order>7</id_order><id_order_state>3</id_order_state></order_history></prestashop>`,
    });
    expect(res.status).toBe(201);
    const other = await handPickedSupplier(creds);
    await sendByHand(creds, reference, plate, other.id);
    await writeBacksSettled(orderId, 4);
    expect(await added(shop)).toEqual({ state: "3", histories: ["7: 20", "7: 3"], flags: ["POST sendemail=1", "POST sendemail=null"] });
    const list = await shopSync(creds, reference);
    expect(list.map((w) => [w.kind, w.status, w.last_error])).toEqual([
      ["note", "done", null],
      ["hold", "done", null],
      ["note", "done", null],
      ["release", "skipped", "PrestaShop order XKBKNABJK (id 7) is in state 3, no longer on hold (state 20): it is left as the shop set it"],
    ]);
  });

  it("with hold_state_id: an order the shop already set to Shipped is not put on hold, saying why", async () => {
    const { creds, shop, key, reference, orderId, plate } = await setUp("prestashop", { orders: [{ ...SEED.orders[0], history: [2, 4] }] }, "XKBKNABJK", PRODUCTS, { hold_state_id: ON_HOLD });
    await answered(key, [decline(plate)]);
    await writeBacksSettled(orderId, 2);
    expect(await added(shop)).toEqual({ state: "4", histories: [], flags: [] });
    expect((await shopSync(creds, reference)).map((w) => [w.kind, w.status, w.last_error])).toEqual([
      ["note", "done", null],
      ["hold", "skipped", "PrestaShop order XKBKNABJK (id 7) is in state 4 (shipped, delivered, cancelled, refunded or a payment error): it is left as it is"],
    ]);
  });

  it("a tracking number applied but never answered: the retry reads the carrier, finds the number and puts nothing twice", async () => {
    const { creds, shop, key, reference, orderId, mugs } = await open();
    const fault: StandInFault = { method: "PUT", path: "^/api/order_carriers/", hangAfterApplying: true };
    await injectFault(shop, fault);
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    await writeBacksSettled(orderId, 1);
    const now = await held(shop);
    expect([now.tracking, now.histories, now.flags]).toEqual(["3SABC123", [], ["PUT order_carriers sendemail=null"]]);
    expect(await writes(shop)).toEqual(["PUT /api/order_carriers/107"]);
    const [w] = summary(await shopSync(creds, reference));
    expect([w.status, w.shop_ids, w.attempts.map((a) => a.error)]).toEqual(["done", ["order_carrier/107"], [TIMEOUT, null]]);
    expect(w.attempts[1].calls).toEqual([CARRIERS]);
  });

  it("dry run: the order and its carrier are read, the tracking number recorded and not sent", async () => {
    const { creds, shop, key, reference, orderId, mugs } = await open({ mode: "dry_run" });
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    await writeBacksSettled(orderId, 1);
    expect(await received(shop)).toEqual(["GET /api/orders", "GET /api/order_carriers"]);
    const now = await held(shop);
    expect([now.tracking, now.histories, now.flags]).toEqual(["", [], []]);
    const [w] = await shopSync(creds, reference);
    expect([w.status, w.dry_run]).toEqual(["done", true]);
    expect(w.attempts[0].calls.map((c) => [c.method, c.path.split("?")[0], c.status])).toEqual([
      ["GET", "/api/orders", 200],
      ["GET", "/api/order_carriers", 200],
      ["PUT", "/api/order_carriers/107", null],
    ]);
    expect(w.attempts[0].calls[2].sent).toContain("<tracking_number>3SABC123</tracking_number>");
  });
});
