// The D1 cost of write-backs, counted as the benchmark counts it (statements and round trips do not
// swing with the machine's load): the supplier's answer gains no statement from the account's shop
// connection, and each write_back message (one per write-back) costs 5 statements in 2 round trips,
// within the 5 in 3: into WooCommerce as into Shopify (issue 33: a Shopify write-back makes
// several GraphQL calls, none of them a D1 statement).
import { describe, expect, it } from "vitest";
import type { PipelineMessage } from "../../src/lib/queue";
import { createAccount, orderPayload, recordEvents, rows } from "../helpers/factories";
import { authHeaders, call, type Credentials } from "../helpers/http";
import { benchEnv, consume, request, type ConsumedGroup } from "../helpers/metered-app";
import { shopConnection } from "../helpers/shops";
import { supplierChain } from "../helpers/suppliers";
import { fullScans } from "../helpers/statements";
import { createStandInShop, standInShop, type StandInShopHandle } from "./stand-ins/client";
import type { ShopifyState } from "./stand-ins/shopify";
import type { WooState } from "./stand-ins/woocommerce";

const PRODUCTS = [
  { external_id: "31", name: "Blue mug", reference: "MUG-BLUE", quantity: 2, price: 12.5 },
  { external_id: "32", name: "Red plate", reference: "PLATE-RED-L", quantity: 1, price: 20 },
];

/** An order routed to a pull supplier, then shipped in full in one answer; the answer's count and every message the pipeline was sent after it. */
async function shippedOrder(creds: Credentials) {
  const [{ key }] = await supplierChain(creds, [{ channel: "pull" }]);
  const { env: view, sent } = benchEnv();
  const created = await request(view, "POST", "/api/v1/orders", authHeaders(creds), orderPayload({ external_id: "4711", source: "WooCommerce", products: PRODUCTS }));
  expect(created.status).toBe(200);
  await consume(view, sent.splice(0));
  const reference = String(created.json.reference);
  const lines = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines.map((l: { id: number }) => l.id) as number[];
  const shipped = await request(view, "POST", "/api/v1/supplier/answers", { authorization: `Bearer ${key}` }, {
    answers: lines.map((id, i) => ({ line_id: id, action: "ship", carrier: "PostNL", tracking_number: `3SABC12${i}` })),
  });
  expect(shipped.status).toBe(200);
  return { view, sent, reference, answer: shipped.counted };
}

/** The two-line order of shippedOrder in each platform's stand-in shop, and what the completion becomes there. */
const SHOPS = {
  woocommerce: {
    seed: { orders: [{ id: 4711, line_items: [{ id: 31, product_id: 501, sku: "MUG-BLUE", quantity: 2 }, { id: 32, product_id: 502, sku: "PLATE-RED-L", quantity: 1 }] }] },
    complete: "done",
    landed: async (shop: StandInShopHandle) => expect((await standInShop<WooState>(shop)).state.orders[0].status).toBe("completed"),
  },
  // Shopify marks the order fulfilled itself: the completion is skipped, in words, after the same reads.
  shopify: {
    seed: { orders: [{ id: 4711, lineItems: [{ id: 31, sku: "MUG-BLUE", variantId: 531, title: "Blue mug", quantity: 2, price: "12.50" }, { id: 32, sku: "PLATE-RED-L", variantId: 532, title: "Red plate", quantity: 1, price: "20.00" }] }] },
    complete: "skipped",
    landed: async (shop: StandInShopHandle) => expect((await standInShop<ShopifyState>(shop)).state.orders[0].fulfillments.map((f) => f.lines)).toEqual([[{ lineItemId: 31, quantity: 2 }], [{ lineItemId: 32, quantity: 1 }]]),
  },
} as const;

describe("write-backs' D1 budget", () => {
  it.each(["woocommerce", "shopify"] as const)("%s: the answer costs the same with a shop connection; each write-back is one message of 5 statements in 2 round trips, without scans", async (platform) => {
    // The same answer for an account that records events for a webhook only.
    const webhookOnly = await createAccount();
    await recordEvents(webhookOnly.accountId);
    const baseline = await shippedOrder(webhookOnly);

    const creds = await createAccount();
    const shop = await createStandInShop(platform, SHOPS[platform].seed);
    await shopConnection(creds.accountId, platform, shop);
    const { view, sent, reference, answer } = await shippedOrder(creds);
    expect(answer).toEqual(baseline.answer);

    // The publish run after the answer sent one message: the first write-back of the order (the
    // others wait for it, and each gets its message when the one before it is done).
    const consumed: ConsumedGroup[] = [];
    for (let round = 0; round < 10; round++) {
      const next = sent.splice(0).filter((m): m is Extract<PipelineMessage, { type: "write_back" }> => m.type === "write_back");
      if (next.length === 0) break;
      expect(next).toHaveLength(1);
      consumed.push(...(await consume(view, next)));
    }
    const kinds = await rows<{ kind: string; status: string }>(
      "SELECT kind, status FROM shop_write_backs WHERE order_id = (SELECT id FROM orders WHERE reference = ?) ORDER BY id",
      reference,
    );
    expect(kinds).toEqual([
      { kind: "shipment", status: "done" },
      { kind: "shipment", status: "done" },
      { kind: "complete", status: SHOPS[platform].complete },
    ]);
    const counts = consumed.map(({ type, messages, queries, roundTrips }) => ({ type, messages, queries, roundTrips }));
    console.log(`write-backs of a two-line order shipped in full into ${platform}: ${JSON.stringify(counts)}`);
    // The claim, the skip of a deleted connection's and the read; then the attempt and the outcome.
    expect(counts).toEqual(Array(3).fill({ type: "write_back", messages: 1, queries: 5, roundTrips: 2 }));
    expect(await fullScans(consumed.flatMap((m) => m.statements), ["shop_connections", "shop_write_backs", "shop_write_back_attempts", "events", "orders", "order_lines"])).toEqual([]);
    await SHOPS[platform].landed(shop);
  });
});
