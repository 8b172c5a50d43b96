// Issue 33's "Done when", end to end against the stand-in Shopify (held to Shopify's published Admin
// schema), through the real queues: a signed orders/create webhook becomes an order that is routed
// and dispatched like a plugin's; the supplier's partial then full shipment (its answers through the
// supplier API) reach Shopify as exactly two fulfillments; a supplier's feed sets Shopify's
// inventory; a 429, a THROTTLED answer and a hang come in between, and nothing is written twice.
import { describe, expect, it } from "vitest";
import { rows } from "../helpers/factories";
import { call } from "../helpers/http";
import { answered, ship, writeBacksSettled } from "../helpers/shops";
import { GRAPHQL, postDelivery, shopifyState, shopifyWithConnection, signedDelivery, throttled } from "../helpers/shopify";
import { pushOffers, STOCK_ON, supplierFeed, syncsEnded } from "../helpers/stock";
import { awaitingPickup, supplierChain } from "../helpers/suppliers";
import { injectFault, standInShop, type StandInShopHandle } from "./stand-ins/client";

const ORDER = { id: 6_600_001, name: "#1001", lineItems: [{ id: 21, sku: "MUG-BLUE", variantId: 4401, title: "Blue mug", quantity: 3, price: "12.50" }] };
const SEED = {
  orders: [ORDER],
  variants: [
    { id: 4401, sku: "MUG-BLUE", barcode: null, inventoryItemId: 8801 },
    { id: 4402, sku: "PLATE-RED", barcode: null, inventoryItemId: 8802 },
  ],
  available: { "8801@71000001": 1, "8802@71000001": 0 },
  // A bucket that holds this test's reads: the THROTTLED answers are the injected ones, not the
  // stand-in's own bucket running dry on a loaded machine (the client's refill waits: shopify.test.ts).
  bucket: { maximumAvailable: 20_000 },
};

/** Each request whose body names `operation`, with the status it was answered (null: never answered). */
async function sent(shop: StandInShopHandle, operation: string) {
  return (await standInShop(shop)).received.filter((r) => r.body.includes(operation)).map((r) => r.answered);
}

describe("Shopify, both ways (issue 33's Done when)", () => {
  it("a signed order is routed and dispatched; a partial then the full shipment are two fulfillments; a feed's stock is Shopify's inventory; through a 429, THROTTLED and a hang, nothing twice", async () => {
    const { creds, shop, connection } = await shopifyWithConnection(SEED, STOCK_ON);
    const [{ key, supplier }] = await supplierChain(creds, [{ channel: "pull" }]);

    // In: the delivery as Shopify signs it, taken in before any routing.
    const d = await signedDelivery(shop, "orders/create", ORDER.id);
    const created = await postDelivery(d.uris[0], d.headers, d.body);
    expect([created.status, created.json]).toEqual([200, { message: "Order created", reference: expect.any(Number) }]);
    const reference = String(created.json.reference);
    // Routed and dispatched like a plugin's order: the supplier's pull list has it, line by line.
    const dispatch = await awaitingPickup(key!, reference);
    expect(dispatch.lines.map((l: Record<string, unknown>) => [l.reference, l.name, l.quantity])).toEqual([["MUG-BLUE", "Blue mug", 3]]);
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    expect(order.order_lines.map((l: Record<string, unknown>) => [l.external_id, l.current_status, l.matched_supplier])).toEqual([["4401", "ruled", { id: supplier.id, name: supplier.name }]]);
    const line = order.order_lines[0].id as number;
    const orderId = (await rows<{ id: number }>("SELECT id FROM orders WHERE reference = ?", reference))[0].id;

    // The partial shipment meets a 429 (its Retry-After honoured by the write-back's retry), then a spent cost bucket (waited out in-line).
    await injectFault(shop, { path: GRAPHQL, sent: "fulfillmentCreate", status: 429, headers: { "retry-after": "1" }, body: { errors: "Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service." } });
    await injectFault(shop, { path: GRAPHQL, sent: "fulfillmentCreate", status: 200, body: throttled() });
    await answered(key!, [ship(line, 1, "3SFIRST")]);
    await writeBacksSettled(orderId, 1);

    // The full shipment's fulfillment is applied by Shopify, but its answer never comes: the next attempt looks and finds it.
    await injectFault(shop, { path: GRAPHQL, sent: "fulfillmentCreate", hangAfterApplying: true });
    await answered(key!, [ship(line, 2, "3SSECOND")]);
    const settled = await writeBacksSettled(orderId, 3);
    expect(settled.map((w) => [w.kind, w.status])).toEqual([
      ["shipment", "done"],
      ["shipment", "done"],
      ["complete", "skipped"],
    ]);

    const state = await shopifyState(shop);
    expect(state.orders[0].fulfillments.map((f) => ({ lines: f.lines, tracking: f.tracking, notify: f.notifyCustomer }))).toEqual([
      { lines: [{ lineItemId: 21, quantity: 1 }], tracking: [{ company: "PostNL", number: "3SFIRST", url: "https://track.example.com/3SFIRST" }], notify: true },
      { lines: [{ lineItemId: 21, quantity: 2 }], tracking: [{ company: "PostNL", number: "3SSECOND", url: "https://track.example.com/3SSECOND" }], notify: true },
    ]);
    expect(state.orders[0].fulfillmentOrders.map((f) => f.status)).toEqual(["CLOSED"]);
    // Sent four times, applied twice: refused (429), throttled (not run), taken, taken but never answered; never again after that.
    expect(await sent(shop, "fulfillmentCreate")).toEqual([429, 200, 200, null]);
    const sync = (await call("GET", `/api/v1/orders/${reference}/shop-sync`, { creds })).json.data as { status: string; shop_ids: string[]; attempts: { error: string | null }[] }[];
    expect(sync.map((w) => [w.status, w.attempts.map((a) => a.error)])).toEqual([
      ["done", [expect.stringContaining("429"), null]],
      ["done", [expect.stringMatching(/did not answer within 1 s$/), null]],
      ["skipped", [null]],
    ]);
    expect(sync[1].shop_ids).toEqual([`gid://shopify/Fulfillment/${state.orders[0].fulfillments[1].id}`]);

    // Stock: a supplier's feed, into Shopify's inventory through a 429, THROTTLED and a hang.
    await injectFault(shop, { path: GRAPHQL, sent: "query Levels", status: 200, body: throttled() });
    await injectFault(shop, { path: GRAPHQL, sent: "inventorySetQuantities", status: 429, headers: { "retry-after": "1" }, body: { errors: "Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service." } });
    await injectFault(shop, { path: GRAPHQL, sent: "inventorySetQuantities", hangAfterApplying: true });
    const { feedId } = await supplierFeed(creds);
    await pushOffers(creds, feedId, [
      { sku: "MUG-BLUE", stock_quantity: 7 },
      { sku: "PLATE-RED", stock_quantity: 4 },
    ]);
    const [stock] = await syncsEnded(creds, connection.id);
    expect(stock).toMatchObject({ status: "succeeded", total: 2, counts: { updated: 2, failed: 0 }, error: null });
    expect((await shopifyState(shop)).available).toEqual({ "8801@71000001": 7, "8802@71000001": 4 });
    // Refused once (429), applied once and never answered; read again after that, not written again.
    expect(await sent(shop, "inventorySetQuantities")).toEqual([429, null]);
    expect((await shopifyState(shop)).operations.every((o) => o.valid)).toBe(true);
  });
});
