// Write-backs end to end: an order created through the API and routed to a pull supplier, the
// supplier's answer through the supplier API, the pipeline on the real local queue, and the
// stand-in WooCommerce shop (test/shops/stand-ins/woocommerce.ts) receiving. Each test asserts what
// the shop received and holds, and what GET /api/v1/orders/{reference}/shop-sync answers.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { needsAttention } from "../../src/attention/attention.service";
import { sweepEvents } from "../../src/events/publish.service";
import { carrierPipeline } from "../../src/lib/queue";
import { listFailingWriteBacks } from "../../src/pipeline/health.service";
import { deliverWriteBack, kickWriteBacks, recentWriteBacks } from "../../src/shops/write-back.service";
import { createAccount, createOrder, exec, rows } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { send, signIn } from "../helpers/console-http";
import { answered, handPickedSupplier, sendByHand, ship, shopConnection, setActive, writeBacksSettled, type ConnectionOptions } from "../helpers/shops";
import { awaitingPickup, orderSettled, supplierChain, supplierWithRule } from "../helpers/suppliers";
import { remoteUrl } from "../helpers/fake-remote";
import { move } from "../helpers/moves";
import { pipelineIdle, waitFor } from "../helpers/wait";
import { createStandInShop, injectFault, standInShop, type StandInShopHandle } from "./stand-ins/client";
import type { WooState } from "./stand-ins/woocommerce";
import { authorization } from "../../src/shops/platforms/woocommerce";

const TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
const TRACKING_ID = expect.stringMatching(/^[0-9a-f]{32}$/);
const ORDER_PATH = "/wp-json/wc/v3/orders/4711";
const TRACKINGS = "/wp-json/wc-shipment-tracking/v3/orders/4711/shipment-trackings";

/** The shop's order 4711 (two mugs, line item 31; one plate, line item 32), and ours as its plugin sends it. */
async function setUp(options: ConnectionOptions & { shopSeed?: Record<string, unknown> } = {}) {
  const creds = await createAccount();
  const shop = await createStandInShop("woocommerce", {
    orders: [
      {
        id: 4711,
        line_items: [
          { id: 31, product_id: 501, sku: "MUG-BLUE", name: "Blue mug", quantity: 2 },
          { id: 32, product_id: 502, sku: "PLATE-RED-L", name: "Red plate", quantity: 1 },
        ],
      },
    ],
    ...options.shopSeed,
  });
  const connection = await shopConnection(creds.accountId, "woocommerce", shop, options);
  const [{ key }] = await supplierChain(creds, [{ channel: "pull" }]);
  const { reference } = await createOrder(creds, {
    external_id: "4711",
    source: "WooCommerce",
    products: [
      { external_id: "31", name: "Blue mug", reference: "MUG-BLUE", quantity: 2, price: 12.5 },
      { external_id: "32", name: "Red plate", reference: "PLATE-RED-L", quantity: 1, price: 20 },
    ],
  });
  await awaitingPickup(key!, reference);
  const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
  const [mugs, plate] = order.order_lines.map((l: { id: number }) => l.id) as number[];
  const orderId = (await rows<{ id: number }>("SELECT id FROM orders WHERE reference = ?", reference))[0].id;
  return { creds, shop, connection, key: key!, reference, orderId, mugs, plate };
}

/** What the shop received: method and path (without the OAuth query), oldest first. */
async function receivedBy(shop: StandInShopHandle): Promise<string[]> {
  return (await standInShop<WooState>(shop)).received.map((r) => `${r.method} ${r.path}`);
}
const held = async (shop: StandInShopHandle) => (await standInShop<WooState>(shop)).state.orders[0];
const shopSync = async (creds: Credentials, reference: string) => call("GET", `/api/v1/orders/${reference}/shop-sync`, { creds });

describe("write-backs into a WooCommerce shop", () => {
  it("a shipment reaches the shop with its tracking, the completion after it; shop-sync answers each with its calls", async () => {
    const { creds, shop, connection, key, reference, orderId, mugs, plate } = await setUp({ name: "My WooCommerce" });
    await answered(key, [ship(mugs, 2, "3SABC123"), ship(plate, 1, "JJD000123", "DHL")]);
    await writeBacksSettled(orderId, 3);

    const order = await held(shop);
    expect(order.trackings.map((t) => [t.tracking_number, t.tracking_provider, t.tracking_link])).toEqual([
      ["3SABC123", "PostNL", "https://track.example.com/3SABC123"],
      ["JJD000123", "DHL", "https://track.example.com/JJD000123"],
    ]);
    expect(order.status).toBe("completed");
    // In order: each shipment (look up the order, read its trackings, add one), then the completion.
    expect(await receivedBy(shop)).toEqual([
      `GET ${ORDER_PATH}`,
      `GET ${TRACKINGS}`,
      `POST ${TRACKINGS}`,
      `GET ${ORDER_PATH}`,
      `GET ${TRACKINGS}`,
      `POST ${TRACKINGS}`,
      `GET ${ORDER_PATH}`,
      `PUT ${ORDER_PATH}`,
    ]);

    const res = await shopSync(creds, reference);
    expect(res.status).toBe(200);
    const events = await rows<{ id: string; type: string }>(
      "SELECT id, type FROM events WHERE account_id = ? AND type = 'order_line.shipped' ORDER BY json_extract(data, '$.line.id')",
      creds.accountId,
    );
    const lastEvent = await rows<{ event_id: string; type: string }>(
      "SELECT w.event_id, e.type FROM shop_write_backs w JOIN events e ON e.id = w.event_id WHERE w.order_id = ? AND w.kind = 'complete'",
      orderId,
    );
    const call = (method: string, path: string, sent: unknown, status: number | null, answer: unknown) => ({
      method,
      path,
      sent,
      status,
      answer,
      duration_ms: expect.any(Number),
    });
    const conn = { id: connection.id, name: "My WooCommerce", platform: "woocommerce" };
    /** A write-back done in one attempt, with these calls. */
    const done = (kind: string, event: { id: string; type: string }, shopIds: unknown[], calls: unknown[]) => ({
      id: expect.any(Number),
      connection: conn,
      event,
      kind,
      status: "done",
      dry_run: false,
      shop_ids: shopIds,
      last_error: null,
      next_attempt_at: null,
      created_at: TIME,
      done_at: TIME,
      attempts: [{ at: TIME, calls, error: null, duration_ms: expect.any(Number), outcome: "written" }],
    });
    const shipment = (eventId: string, number: string, carrier: string, trackingsBefore: unknown) =>
      done("shipment", { id: eventId, type: "order_line.shipped" }, [TRACKING_ID], [
        call("GET", ORDER_PATH, null, 200, expect.stringContaining('"id":4711')),
        call("GET", TRACKINGS, null, 200, trackingsBefore),
        call("POST", TRACKINGS, expect.stringContaining(`"tracking_number":"${number}"`), 201, expect.stringContaining(`"tracking_provider":"${carrier}"`)),
      ]);
    expect(res.json).toEqual({
      data: [
        shipment(events[0].id, "3SABC123", "PostNL", "[]"),
        shipment(events[1].id, "JJD000123", "DHL", expect.stringMatching(/^\[\{"tracking_id":"[0-9a-f]{32}","tracking_provider":"PostNL",.*"tracking_number":"3SABC123"/)),
        done("complete", { id: lastEvent[0].event_id, type: lastEvent[0].type }, ["4711"], [
          call("GET", ORDER_PATH, null, 200, expect.stringContaining('"status":"processing"')),
          call("PUT", ORDER_PATH, '{"status":"completed"}', 200, expect.stringContaining('"status":"completed"')),
        ]),
      ],
    });
    const ids = res.json.data.map((w: { id: number }) => w.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it("partial shipments and several tracking numbers on one line: each number goes with its shipment, the completion once every line shipped in full", async () => {
    const { shop, key, orderId, mugs, plate } = await setUp();
    await answered(key, [ship(mugs, 1, "PARCEL-A")]);
    await writeBacksSettled(orderId, 1);
    expect((await held(shop)).trackings.map((t) => t.tracking_number)).toEqual(["PARCEL-A"]);
    expect((await held(shop)).status).toBe("processing");

    await answered(key, [ship(mugs, 1, "PARCEL-B"), ship(plate, 1, "PARCEL-C")]);
    const settled = await writeBacksSettled(orderId, 4);
    expect(settled.map((w) => [w.kind, w.status])).toEqual([
      ["shipment", "done"],
      ["shipment", "done"],
      ["shipment", "done"],
      ["complete", "done"],
    ]);
    expect((await held(shop)).trackings.map((t) => t.tracking_number).sort()).toEqual(["PARCEL-A", "PARCEL-B", "PARCEL-C"]);
    expect((await held(shop)).status).toBe("completed");
    expect((await receivedBy(shop)).at(-1)).toBe(`PUT ${ORDER_PATH}`);
  });

  it("a line declined with no other supplier: a private note and the order on hold, never completed while the line waits", async () => {
    const { creds, shop, key, reference, orderId, mugs, plate } = await setUp();
    await answered(key, [{ line_id: plate, action: "decline", reason: "discontinued" }]);
    await writeBacksSettled(orderId, 2);
    expect((await held(shop)).status).toBe("on-hold");

    // The mugs ship: the order is not done (the plate waits for a person), so it stays on hold.
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    const settled = await writeBacksSettled(orderId, 3);
    expect(settled.map((w) => [w.kind, w.status])).toEqual([
      ["note", "done"],
      ["hold", "done"],
      ["shipment", "done"],
    ]);
    const order = await held(shop);
    expect(order.status).toBe("on-hold");
    // Newest first, as WooCommerce lists them: our private note, then WooCommerce's own of the status change.
    expect(order.notes.map((n) => [n.customer_note, n.note])).toEqual([
      [false, "Order status changed from Processing to On hold."],
      [false, expect.stringMatching(/^Red plate \(32, SKU PLATE-RED-L\) × 1 was declined, and no other supplier takes it\. .*discontinued/)],
    ]);
    expect(await receivedBy(shop)).toEqual([
      `GET ${ORDER_PATH}`,
      `POST ${ORDER_PATH}/notes`,
      `GET ${ORDER_PATH}`,
      `GET ${ORDER_PATH}`,
      `PUT ${ORDER_PATH}`,
      `GET ${ORDER_PATH}`,
      `GET ${TRACKINGS}`,
      `POST ${TRACKINGS}`,
    ]);
    const sync = (await shopSync(creds, reference)).json.data;
    expect(sync.map((w: { kind: string; event: { type: string }; shop_ids: string[] }) => [w.kind, w.event.type, w.shop_ids])).toEqual([
      ["note", "order_line.status_changed", [String(order.notes[1].id)]],
      ["hold", "order_line.status_changed", ["4711"]],
      ["shipment", "order_line.shipped", [TRACKING_ID]],
    ]);
    expect(JSON.parse(sync[1].attempts[0].calls.at(-1).sent)).toEqual({ status: "on-hold" });
  });

  it("a declined line sent by hand to another supplier: a follow-up note, off hold, and completed only once that supplier shipped", async () => {
    const { creds, shop, key, reference, orderId, mugs, plate } = await setUp();
    await answered(key, [{ line_id: plate, action: "decline", reason: "discontinued" }, ship(mugs, 2, "3SABC123")]);
    await writeBacksSettled(orderId, 3);
    expect((await held(shop)).status).toBe("on-hold");
    const before = (await standInShop<WooState>(shop)).received.length;

    const other = await handPickedSupplier(creds);
    await sendByHand(creds, reference, plate, other.id);
    await writeBacksSettled(orderId, 5);
    let order = await held(shop);
    expect(order.status).toBe("processing");
    expect(order.notes.slice(0, 2).map((n) => n.note)).toEqual([
      "Order status changed from On hold to Processing.",
      `Red plate (32, SKU PLATE-RED-L) × 1 is now with supplier ${other.name}, sent there by hand.`,
    ]);

    await awaitingPickup(other.key, reference);
    await answered(other.key, [ship(plate, 1, "JJD000123", "DHL")]);
    const settled = await writeBacksSettled(orderId, 7);
    expect(settled.map((w) => w.kind)).toEqual(["note", "shipment", "hold", "note", "release", "shipment", "complete"]);
    order = await held(shop);
    expect(order.status).toBe("completed");
    expect(order.trackings.map((t) => t.tracking_number)).toEqual(["3SABC123", "JJD000123"]);
    // Every note the shop got, oldest first: each was true when written.
    expect(order.notes.map((n) => n.note).reverse()).toEqual([
      expect.stringMatching(/^Red plate \(32, SKU PLATE-RED-L\) × 1 was declined, and no other supplier takes it\. .*discontinued/),
      "Order status changed from Processing to On hold.",
      `Red plate (32, SKU PLATE-RED-L) × 1 is now with supplier ${other.name}, sent there by hand.`,
      "Order status changed from On hold to Processing.",
      "Order status changed from Processing to Completed.",
    ]);
    // After the hand-off: the follow-up note, the release, the plate's tracking, the completion; nothing twice.
    expect((await receivedBy(shop)).slice(before)).toEqual([
      `GET ${ORDER_PATH}`,
      `POST ${ORDER_PATH}/notes`,
      `GET ${ORDER_PATH}`,
      `GET ${ORDER_PATH}`,
      `PUT ${ORDER_PATH}`,
      `GET ${ORDER_PATH}`,
      `GET ${TRACKINGS}`,
      `POST ${TRACKINGS}`,
      `GET ${ORDER_PATH}`,
      `PUT ${ORDER_PATH}`,
    ]);
    const puts = (await standInShop<WooState>(shop)).received.filter((r) => r.method === "PUT").map((r) => JSON.parse(r.body).status);
    expect(puts).toEqual(["on-hold", "processing", "completed"]);
    const sync = (await shopSync(creds, reference)).json.data;
    expect(sync.map((w: { kind: string; event: { type: string } }) => [w.kind, w.event.type])).toEqual([
      ["note", "order_line.status_changed"],
      ["shipment", "order_line.shipped"],
      ["hold", expect.any(String)],
      ["note", "order_line.assigned"],
      ["release", expect.any(String)],
      ["shipment", "order_line.shipped"],
      ["complete", expect.any(String)],
    ]);
  });

  it("a failed line retried by hand (POST …/retry): a follow-up note naming its supplier, then off hold", async () => {
    const creds = await createAccount();
    const shop = await createStandInShop("woocommerce", { orders: [{ id: 4711, line_items: [{ id: 32, product_id: 502, sku: "PLATE-RED-L", name: "Red plate", quantity: 1 }] }] });
    await shopConnection(creds.accountId, "woocommerce", shop);
    // A webhook supplier that refuses the order (400: no retry), and no other supplier: the line fails.
    const { supplier } = await supplierWithRule(creds, { channel: "webhook", webhook_url: remoteUrl("status-400") });
    const { reference } = await createOrder(creds, {
      external_id: "4711",
      source: "WooCommerce",
      products: [{ external_id: "32", name: "Red plate", reference: "PLATE-RED-L", quantity: 1, price: 20 }],
    });
    await orderSettled(creds, reference, ["failed"]);
    const orderId = (await rows<{ id: number }>("SELECT id FROM orders WHERE reference = ?", reference))[0].id;
    await writeBacksSettled(orderId, 2);
    expect((await held(shop)).status).toBe("on-hold");

    // The supplier fixed its end; the person retries the line by hand.
    expect((await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { webhook_url: remoteUrl("ok") } })).status).toBe(200);
    expect((await call("POST", `/api/v1/orders/${reference}/retry`, { creds })).status).toBe(200);
    await orderSettled(creds, reference, ["completed"]);
    const settled = await writeBacksSettled(orderId, 4);
    expect(settled.map((w) => [w.kind, w.status])).toEqual([
      ["note", "done"],
      ["hold", "done"],
      ["note", "done"],
      ["release", "done"],
    ]);
    const order = await held(shop);
    expect(order.status).toBe("processing");
    expect(order.notes.map((n) => [n.customer_note, n.note]).reverse()).toEqual([
      [false, expect.stringMatching(/^Red plate \(32, SKU PLATE-RED-L\) × 1 could not be sent to a supplier, and no other supplier takes it\. .*rejected the order/)],
      [false, "Order status changed from Processing to On hold."],
      [false, `Red plate (32, SKU PLATE-RED-L) × 1 is now with supplier ${supplier.name} again, sent again by hand.`],
      [false, "Order status changed from On hold to Processing."],
    ]);
    const sync = (await shopSync(creds, reference)).json.data;
    expect(sync.map((w: { kind: string; event: { type: string } }) => [w.kind, w.event.type])).toEqual([
      ["note", "order_line.status_changed"],
      ["hold", "order_line.status_changed"],
      ["note", "order_line.status_changed"],
      ["release", "order_line.status_changed"],
    ]);
  });

  it("a declined line re-routed now to the next supplier: the follow-up names it, off hold, completed once it shipped", async () => {
    const creds = await createAccount();
    expect((await call("PATCH", "/api/v1/settings", { creds, body: { reroute_enabled: false } })).status).toBe(200);
    const shop = await createStandInShop("woocommerce", { orders: [{ id: 4711, line_items: [{ id: 32, product_id: 502, sku: "PLATE-RED-L", name: "Red plate", quantity: 1 }] }] });
    await shopConnection(creds.accountId, "woocommerce", shop);
    const [first, next] = await supplierChain(creds, [{ channel: "pull" }, { channel: "pull" }]);
    const { reference } = await createOrder(creds, {
      external_id: "4711",
      source: "WooCommerce",
      products: [{ external_id: "32", name: "Red plate", reference: "PLATE-RED-L", quantity: 1, price: 20 }],
    });
    const doc = await awaitingPickup(first.key!, reference);
    const plate = doc.lines[0].id as number;
    const orderId = (await rows<{ id: number }>("SELECT id FROM orders WHERE reference = ?", reference))[0].id;
    await answered(first.key!, [{ line_id: plate, action: "decline", reason: "discontinued" }]);
    await writeBacksSettled(orderId, 2);
    expect((await held(shop)).status).toBe("on-hold");

    expect((await call("POST", `/api/v1/orders/${reference}/lines/${plate}/reroute`, { creds })).status).toBe(200);
    await writeBacksSettled(orderId, 4);
    expect((await held(shop)).status).toBe("processing");
    await awaitingPickup(next.key!, reference);
    await answered(next.key!, [ship(plate, 1, "JJD000123", "DHL")]);
    const settled = await writeBacksSettled(orderId, 6);
    expect(settled.map((w) => w.kind)).toEqual(["note", "hold", "note", "release", "shipment", "complete"]);
    const order = await held(shop);
    expect(order.status).toBe("completed");
    expect(order.notes.map((n) => n.note).reverse()).toEqual([
      expect.stringMatching(/^Red plate \(32, SKU PLATE-RED-L\) × 1 was declined, and no other supplier takes it\./),
      "Order status changed from Processing to On hold.",
      `Red plate (32, SKU PLATE-RED-L) × 1 is now with supplier ${next.supplier.name}, re-routed.`,
      "Order status changed from On hold to Processing.",
      "Order status changed from Processing to Completed.",
    ]);
  });

  it("a line confirmed in part whose rest no supplier takes: a note and the order on hold, not completed once what was confirmed shipped; the rest sent by hand: a follow-up, off hold, completed once it shipped", async () => {
    const { creds, shop, key, reference, orderId, mugs, plate } = await setUp();
    // The only supplier confirms 1 of the 2 mugs; no other supplier takes the other one.
    await answered(key, [{ line_id: mugs, action: "partial", quantity: 1, reason: "only 1 left" }]);
    await writeBacksSettled(orderId, 2);
    expect((await held(shop)).status).toBe("on-hold");

    // All it confirmed ships, and the plate: the order is still not done (the other mug waits for a person).
    await answered(key, [ship(mugs, 1, "3SMUG1"), ship(plate, 1, "3SPLATE")]);
    expect((await writeBacksSettled(orderId, 4)).map((w) => [w.kind, w.status])).toEqual([
      ["note", "done"],
      ["hold", "done"],
      ["shipment", "done"],
      ["shipment", "done"],
    ]);
    expect((await held(shop)).status).toBe("on-hold");

    const other = await handPickedSupplier(creds);
    await sendByHand(creds, reference, mugs, other.id);
    await writeBacksSettled(orderId, 6);
    expect((await held(shop)).status).toBe("processing");
    const rest = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines.find((l: { split_from_line_id: number | null }) => l.split_from_line_id === mugs).id as number;
    await awaitingPickup(other.key, reference);
    await answered(other.key, [ship(rest, 1, "JJD000124", "DHL")]);
    const settled = await writeBacksSettled(orderId, 8);
    expect(settled.map((w) => w.kind)).toEqual(["note", "hold", "shipment", "shipment", "note", "release", "shipment", "complete"]);
    const order = await held(shop);
    expect(order.status).toBe("completed");
    expect(order.trackings.map((t) => t.tracking_number).sort()).toEqual(["3SMUG1", "3SPLATE", "JJD000124"]);
    // Every note the shop got, oldest first: each was true when written.
    expect(order.notes.map((n) => n.note).reverse()).toEqual([
      expect.stringMatching(/^Blue mug \(31, SKU MUG-BLUE\) × 2 was confirmed in part, and no other supplier takes the rest\. Supplier .* confirmed 1 of 2: only 1 left$/),
      "Order status changed from Processing to On hold.",
      `Blue mug (31, SKU MUG-BLUE) × 1 is now with supplier ${other.name}, sent there by hand.`,
      "Order status changed from On hold to Processing.",
      "Order status changed from Processing to Completed.",
    ]);
    const puts = (await standInShop<WooState>(shop)).received.filter((r) => r.method === "PUT").map((r) => JSON.parse(r.body).status);
    expect(puts).toEqual(["on-hold", "processing", "completed"]);
    const sync = (await shopSync(creds, reference)).json.data;
    expect(sync.map((w: { kind: string; event: { type: string } }) => [w.kind, w.event.type])).toEqual([
      ["note", "order_line.status_changed"],
      ["hold", "order_line.status_changed"],
      ["shipment", "order_line.shipped"],
      ["shipment", "order_line.shipped"],
      ["note", "order_line.assigned"],
      ["release", expect.any(String)],
      ["shipment", "order_line.shipped"],
      ["complete", expect.any(String)],
    ]);
  });

  it("a line confirmed in part whose rest is cancelled (POST …/cancel-rest): the cancellation noted, off hold, completed once what was confirmed shipped", async () => {
    const { creds, shop, key, reference, orderId, mugs, plate } = await setUp();
    await answered(key, [{ line_id: mugs, action: "partial", quantity: 1, reason: "only 1 left" }, ship(plate, 1, "3SPLATE")]);
    await writeBacksSettled(orderId, 3);
    expect((await held(shop)).status).toBe("on-hold");

    expect((await call("POST", `/api/v1/orders/${reference}/lines/${mugs}/cancel-rest`, { creds, body: { reason: "the customer takes one" } })).status).toBe(200);
    await writeBacksSettled(orderId, 5);
    expect((await held(shop)).status).toBe("processing");
    await answered(key, [ship(mugs, 1, "3SMUG1")]);
    const settled = await writeBacksSettled(orderId, 7);
    expect(settled.map((w) => w.kind)).toEqual(["note", "shipment", "hold", "note", "release", "shipment", "complete"]);
    const order = await held(shop);
    expect(order.status).toBe("completed");
    expect(order.notes.map((n) => n.note).reverse()).toEqual([
      expect.stringMatching(/^Blue mug \(31, SKU MUG-BLUE\) × 2 was confirmed in part, and no other supplier takes the rest\. /),
      "Order status changed from Processing to On hold.",
      expect.stringMatching(/^1 of Blue mug \(31, SKU MUG-BLUE\) × 1 cancelled: Supplier .* confirmed 1 of 2; the other 1 cancelled by hand \(API key #\d+\): the customer takes one\.$/),
      "Order status changed from On hold to Processing.",
      "Order status changed from Processing to Completed.",
    ]);
  });

  it("an order the shop owner moved off hold meanwhile is left as they set it: the release is skipped, saying why", async () => {
    const { creds, shop, key, reference, orderId, plate } = await setUp();
    await answered(key, [{ line_id: plate, action: "decline", reason: "discontinued" }]);
    await writeBacksSettled(orderId, 2);
    expect((await held(shop)).status).toBe("on-hold");
    // The shop owner cancels the order in WooCommerce (its REST API, as the admin's screen does).
    const url = `${shop.base_url}${ORDER_PATH}`;
    const put = await fetch(url, {
      method: "PUT",
      headers: { authorization: await authorization("PUT", url, shop.credentials as never), "content-type": "application/json" },
      body: JSON.stringify({ status: "cancelled" }),
    });
    expect(put.status).toBe(200);

    const other = await handPickedSupplier(creds);
    await sendByHand(creds, reference, plate, other.id);
    const settled = await writeBacksSettled(orderId, 4);
    expect(settled.map((w) => [w.kind, w.status])).toEqual([
      ["note", "done"],
      ["hold", "done"],
      ["note", "done"],
      ["release", "skipped"],
    ]);
    expect((await held(shop)).status).toBe("cancelled");
    const sync = (await shopSync(creds, reference)).json.data;
    expect(sync[3].last_error).toBe("WooCommerce order 4711 is cancelled in the shop, no longer on hold: it is left as it is");
    expect((await standInShop<WooState>(shop)).received.filter((r) => r.method === "PUT").map((r) => JSON.parse(r.body).status)).toEqual(["on-hold", "cancelled"]);
  });

  it("a 500 is retried and the retry creates nothing twice", async () => {
    const { creds, shop, key, reference, orderId, mugs } = await setUp();
    await injectFault(shop, { method: "POST", path: "shipment-trackings", status: 500, body: { code: "internal_server_error", message: "Database went away" } });
    await answered(key, [ship(mugs, 1, "3SABC123")]);
    await writeBacksSettled(orderId, 1);
    expect((await held(shop)).trackings.map((t) => t.tracking_number)).toEqual(["3SABC123"]);
    const [w] = (await shopSync(creds, reference)).json.data;
    expect([w.status, w.attempts.length]).toEqual(["done", 2]);
    expect(w.attempts[0].error).toBe(`The shop failed (500 on POST ${TRACKINGS}): {"code":"internal_server_error","message":"Database went away"}`);
    expect(w.attempts[0].calls.at(-1).status).toBe(500);
    // The retry kept the order found the first time, looked for the tracking (the 500 was unclear), then added it once.
    expect(w.attempts[1].calls.map((c: { method: string; status: number }) => [c.method, c.status])).toEqual([
      ["GET", 200],
      ["POST", 201],
    ]);
  });

  it("a timeout after the shop applied the write: the retry looks, finds the tracking and adds none", async () => {
    const { creds, shop, key, reference, orderId, mugs } = await setUp();
    await injectFault(shop, { method: "POST", path: "shipment-trackings", hangAfterApplying: true });
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    await writeBacksSettled(orderId, 1);
    const order = await held(shop);
    expect(order.trackings.map((t) => t.tracking_number)).toEqual(["3SABC123"]);
    const [w] = (await shopSync(creds, reference)).json.data;
    expect(w.status).toBe("done");
    expect(w.shop_ids).toEqual([order.trackings[0].tracking_id]);
    expect(w.attempts.map((a: { error: string | null }) => a.error)).toEqual([expect.stringMatching(/^127\.0\.0\.1:\d+ did not answer within 1 s$/), null]);
    expect(w.attempts[1].calls.map((c: { method: string }) => c.method)).toEqual(["GET"]);
    expect((await receivedBy(shop)).filter((r) => r.startsWith("POST"))).toEqual([`POST ${TRACKINGS}`]);
  });

  it("a 429 waits as long as Retry-After says before the next attempt", async () => {
    const { creds, shop, key, reference, orderId, mugs } = await setUp();
    await injectFault(shop, { method: "POST", path: "shipment-trackings", status: 429, headers: { "retry-after": "2" }, body: { code: "too_many_requests", message: "Slow down" } });
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    await writeBacksSettled(orderId, 1);
    const [w] = (await shopSync(creds, reference)).json.data;
    expect(w.attempts.map((a: { error: string | null }) => a.error)).toEqual([expect.stringContaining("it asks us to wait 2 s"), null]);
    const first = Date.parse(w.attempts[0].at);
    const second = Date.parse(w.attempts[1].at) - w.attempts[1].duration_ms;
    // RETRY_BASE_SECONDS is 0 in the tests: without Retry-After the retry would come at once.
    expect(second - first).toBeGreaterThanOrEqual(2000);
    expect((await held(shop)).trackings).toHaveLength(1);
  });

  it("parked after the last attempt, with the write-backs after it waiting; listed for the shop and the operator; replayed, all go in order", async () => {
    const { creds, shop, connection, key, reference, orderId, mugs, plate } = await setUp();
    await injectFault(shop, { method: "POST", path: "shipment-trackings", status: 500, times: 3 });
    await answered(key, [ship(mugs, 2, "3SABC123"), ship(plate, 1, "JJD000123")]);
    const parked = await waitFor(async () => {
      const list = (await shopSync(creds, reference)).json.data;
      return list.length === 3 && list[0].status === "failed" ? list : null;
    });
    // SEND_MAX_ATTEMPTS is 3 in the tests.
    expect(parked.map((w: { kind: string; status: string; attempts: unknown[] }) => [w.kind, w.status, w.attempts.length])).toEqual([
      ["shipment", "failed", 3],
      ["shipment", "pending", 0],
      ["complete", "pending", 0],
    ]);
    expect((await held(shop)).trackings).toEqual([]);
    const attention = await needsAttention(createDb(env.DB), creds.accountId);
    // One item for the cause, in words, with the shop's answer behind it.
    expect(attention.shops.items.map((c) => [c.words, c.raw?.call, c.raw?.status, c.count, c.items.map((i) => [i.writeBackId, i.reference, i.kind, i.status])])).toEqual([
      [
        "Your shop had an error of its own (HTTP 500) while we wrote a tracking number. Nothing is wrong with what we sent; we try again by ourselves. If it lasts, look at the shop's error log.",
        "POST /wp-json/wc-shipment-tracking/v3/orders/4711/shipment-trackings",
        500,
        1,
        [[parked[0].id, reference, "shipment", "failed"]],
      ],
    ]);
    const operator = await listFailingWriteBacks(createDb(env.DB), { page: 1, perPage: 100 });
    expect(operator.rows.filter((r) => r.reference === reference).map((r) => [r.id, r.status, r.attempts])).toEqual([[parked[0].id, "failed", 3]]);
    // The connection's recent write-backs (its page in the console), newest first, with the failure.
    const recent = await recentWriteBacks(createDb(env.DB), creds.accountId, connection.id);
    expect(recent.map((w) => [w.id, w.kind, w.status, w.attempts.length, w.lastError])).toEqual([
      [parked[2].id, "complete", "pending", 0, null],
      [parked[1].id, "shipment", "pending", 0, null],
      [parked[0].id, "shipment", "failed", 3, "The shop failed (500 on POST /wp-json/wc-shipment-tracking/v3/orders/4711/shipment-trackings)"],
    ]);
    expect(await recentWriteBacks(createDb(env.DB), (await createAccount()).accountId, connection.id)).toEqual([]);
    // The parked one's message held back the others: they wait, no message lost, no attempt made.
    expect(await deliverWriteBack(createDb(env.DB), env, carrierPipeline(env), parked[1].id)).toBe("waiting");

    const replayed = await call("POST", `/api/v1/orders/${reference}/shop-sync/${parked[0].id}/replay`, { creds });
    expect(replayed.status).toBe(202);
    expect([replayed.json.id, replayed.json.status, replayed.json.attempts.length]).toEqual([parked[0].id, "pending", 3]);
    const again = await call("POST", `/api/v1/orders/${reference}/shop-sync/${parked[0].id}/replay`, { creds });
    expect(again.status).toBe(409);
    const settled = await writeBacksSettled(orderId, 3);
    expect(settled.map((w) => w.status)).toEqual(["done", "done", "done"]);
    expect((await held(shop)).trackings.map((t) => t.tracking_number)).toEqual(["3SABC123", "JJD000123"]);
    expect((await held(shop)).status).toBe("completed");
    expect((await receivedBy(shop)).at(-1)).toBe(`PUT ${ORDER_PATH}`);
    expect((await needsAttention(createDb(env.DB), creds.accountId)).shops.count).toBe(0);
  });

  it("a replay of a write-back that is not failed, of another account's order, or of no write-back: 409 and 404s", async () => {
    const { creds, key, reference, orderId, mugs } = await setUp();
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    const [done] = await writeBacksSettled(orderId, 1);
    const res = await call("POST", `/api/v1/orders/${reference}/shop-sync/${done.id}/replay`, { creds });
    expect([res.status, res.json]).toEqual([409, { message: "Conflict", error: `Write-back ${done.id} is done: only a failed write-back can be replayed.` }]);
    const stranger = await createAccount();
    const foreign = await call("POST", `/api/v1/orders/${reference}/shop-sync/${done.id}/replay`, { creds: stranger });
    expect([foreign.status, foreign.json]).toEqual([404, { message: "Not Found", error: `Order with reference '${reference}' not found` }]);
    expect((await shopSync(stranger, reference)).status).toBe(404);
    const unknown = await call("POST", `/api/v1/orders/${reference}/shop-sync/999999999/replay`, { creds });
    expect([unknown.status, unknown.json]).toEqual([404, { message: "Not Found", error: "Shop write-back with id '999999999' not found" }]);
    const word = await call("POST", `/api/v1/orders/${reference}/shop-sync/abc/replay`, { creds });
    expect(word.status).toBe(404);
  });

  it("a paused connection writes nothing: its write-backs wait, and go once it is resumed (kicked at once, or by the cron)", async () => {
    const { creds, shop, connection, key, reference, orderId, mugs, plate } = await setUp({ active: false });
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    const waiting = await waitFor(async () => {
      const list = await rows<{ id: number; status: string; attempts: number }>("SELECT id, status, attempts FROM shop_write_backs WHERE order_id = ?", orderId);
      return list.length === 1 ? list : null;
    });
    expect(waiting).toEqual([{ id: expect.any(Number), status: "pending", attempts: 0 }]);
    // Its message finds the connection paused: nothing is written, nothing counted.
    expect(await deliverWriteBack(createDb(env.DB), env, carrierPipeline(env), waiting[0].id)).toBe("waiting");
    expect(await receivedBy(shop)).toEqual([]);
    expect((await shopSync(creds, reference)).json.data.map((w: { status: string; attempts: unknown[] }) => [w.status, w.attempts])).toEqual([["pending", []]]);

    // Resumed: kickWriteBacks (what resuming calls) sends its message.
    await setActive(connection.id, true);
    expect(await kickWriteBacks(createDb(env.DB), carrierPipeline(env), connection.id)).toEqual([waiting[0].id]);
    await writeBacksSettled(orderId, 1);
    expect((await held(shop)).trackings.map((t) => t.tracking_number)).toEqual(["3SABC123"]);

    // Paused again: the next one waits, and the cron's safety net sends it once the connection is resumed.
    await setActive(connection.id, false);
    await answered(key, [ship(plate, 1, "JJD000123")]);
    const next = await waitFor(async () => {
      const list = await rows<{ id: number }>("SELECT id FROM shop_write_backs WHERE order_id = ? AND status = 'pending' AND kind = 'shipment'", orderId);
      return list.length === 1 ? list : null;
    });
    expect(await deliverWriteBack(createDb(env.DB), env, carrierPipeline(env), next[0].id)).toBe("waiting");
    await setActive(connection.id, true);
    const swept = await sweepEvents(env, carrierPipeline(env), new Date(Date.now() + 3 * 60 * 1000));
    expect(swept.writeBacksRekicked).toBeGreaterThanOrEqual(1);
    await writeBacksSettled(orderId, 3);
    expect((await held(shop)).trackings.map((t) => t.tracking_number)).toEqual(["3SABC123", "JJD000123"]);
    expect((await held(shop)).status).toBe("completed");
  });

  it("a deleted connection writes nothing: what waited for it is skipped", async () => {
    const { creds, shop, connection, key, reference, orderId, mugs } = await setUp({ active: false });
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    const [waiting] = await waitFor(async () => {
      const list = await rows<{ id: number }>("SELECT id FROM shop_write_backs WHERE order_id = ?", orderId);
      return list.length === 1 ? list : null;
    });
    await exec("UPDATE shop_connections SET deleted_at = ?, active = 1 WHERE id = ?", new Date().toISOString(), connection.id);
    expect(await deliverWriteBack(createDb(env.DB), env, carrierPipeline(env), waiting.id)).toBe("skipped");
    const [w] = (await shopSync(creds, reference)).json.data;
    expect([w.status, w.last_error, w.attempts]).toEqual(["skipped", "The shop connection was deleted.", []]);
    expect(await receivedBy(shop)).toEqual([]);
    // Nor does a later event make one for it.
    await call("POST", `/api/v1/orders/${reference}/cancel`, { creds, body: {} });
    await pipelineIdle(creds.accountId);
    expect((await shopSync(creds, reference)).json.data).toHaveLength(1);
  });

  it("dry run: the lookups go out, the writes are recorded and not sent; done, and the JSON says dry_run", async () => {
    const { creds, shop, key, reference, orderId, mugs } = await setUp({ settings: { mode: "dry_run" } });
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    await writeBacksSettled(orderId, 1);
    expect(await receivedBy(shop)).toEqual([`GET ${ORDER_PATH}`, `GET ${TRACKINGS}`]);
    expect((await held(shop)).trackings).toEqual([]);
    const [w] = (await shopSync(creds, reference)).json.data;
    expect([w.status, w.dry_run, w.shop_ids]).toEqual(["done", true, []]);
    expect(w.attempts[0].calls.at(-1)).toEqual({
      method: "POST",
      path: TRACKINGS,
      sent: expect.stringContaining('"tracking_number":"3SABC123"'),
      status: null,
      answer: null,
      duration_ms: 0,
    });
  });

  it("an order whose source no connection serves: nothing is created or sent for it; the connection serving it writes", async () => {
    const { creds, shop, connection, key, orderId, mugs } = await setUp({ sources: ["Other shop"] });
    const serving = await createStandInShop("woocommerce", { orders: [{ id: 4711, line_items: [{ id: 31, product_id: 501, quantity: 2 }] }] });
    await shopConnection(creds.accountId, "woocommerce", serving, { sources: ["WooCommerce"] });
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    await writeBacksSettled(orderId, 1);
    expect(await rows("SELECT id FROM shop_write_backs WHERE order_id = ? AND connection_id = ?", orderId, connection.id)).toEqual([]);
    expect(await receivedBy(shop)).toEqual([]);
    expect((await held(serving)).trackings.map((t) => t.tracking_number)).toEqual(["3SABC123"]);
  });

  it("the credentials appear in no response, page or log line, even when the shop refuses them", async () => {
    const logged: string[] = [];
    const original = { log: console.log, warn: console.warn, error: console.error };
    for (const level of ["log", "warn", "error"] as const) console[level] = (...args: unknown[]) => void logged.push(args.map(String).join(" "));
    try {
      const { creds, shop, key, reference, orderId, mugs } = await setUp();
      await injectFault(shop, { method: "POST", path: "shipment-trackings", status: 401, body: { code: "woocommerce_rest_authentication_error", message: "Consumer key is invalid." }, times: 1 });
      await answered(key, [ship(mugs, 2, "3SABC123")]);
      const [w] = await writeBacksSettled(orderId, 1);
      expect(w.status).toBe("failed");
      const secrets = Object.values(shop.credentials);
      const api = (await shopSync(creds, reference)).text;
      expect(api).toContain("Consumer key is invalid.");
      const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
      const page = await send(`/console/orders/${reference}`, { jar });
      const html = await page.text();
      expect(page.status).toBe(200);
      expect(html).toContain("In the shop");
      const stored = JSON.stringify(await rows("SELECT a.calls, a.error FROM shop_write_back_attempts a JOIN shop_write_backs w ON w.id = a.write_back_id WHERE w.order_id = ?", orderId));
      for (const secret of secrets) {
        expect(api).not.toContain(secret);
        expect(html).not.toContain(secret);
        expect(stored).not.toContain(secret);
        expect(logged.join("\n")).not.toContain(secret);
      }
    } finally {
      Object.assign(console, original);
    }
  });

  it("move with their account to another shard: the connection, the write-backs and their attempts, none left behind", async () => {
    const { creds, key, reference, orderId, mugs } = await setUp();
    await answered(key, [ship(mugs, 2, "3SABC123")]);
    await writeBacksSettled(orderId, 1);
    const before = (await shopSync(creds, reference)).json;
    expect(before.data).toHaveLength(1);
    await move(creds.accountId, { shard: 1 });
    const counts = async (db: D1Database) =>
      db
        .prepare(
          `SELECT (SELECT count(*) FROM shop_connections WHERE account_id = ?1) AS connections, (SELECT count(*) FROM shop_write_backs WHERE account_id = ?1) AS write_backs,
            (SELECT count(*) FROM shop_write_back_attempts WHERE write_back_id IN (SELECT id FROM shop_write_backs WHERE account_id = ?1)) AS attempts`,
        )
        .bind(creds.accountId)
        .first();
    expect(await counts(env.SHARD_1)).toEqual({ connections: 1, write_backs: 1, attempts: 1 });
    expect(await counts(env.DB)).toEqual({ connections: 0, write_backs: 0, attempts: 0 });
    expect((await shopSync(creds, reference)).json).toEqual(before);
  });
});
