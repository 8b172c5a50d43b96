// Shopify tests' set-up against the stand-in (test/shops/stand-ins/shopify.ts): a shop with a
// connection made through the public API, and webhook deliveries signed by the stand-in exactly as
// Shopify signs them, posted to the Worker by the test (the stand-in cannot reach the Worker).
import { expect } from "vitest";
import { createStandInShop, standInShop, type StandInShopHandle } from "../shops/stand-ins/client";
import type { ShopifyState } from "../shops/stand-ins/shopify";
import { createAccount } from "./factories";
import { call, type Credentials } from "./http";

/** The Admin API's one endpoint at the version the adapter targets, as a fault's path. */
export const GRAPHQL = "^/admin/api/2026-10/graphql\\.json$";

/** An account, a stand-in Shopify seeded with `seed`, and a connection to it (201). */
export async function shopifyWithConnection(seed: Record<string, unknown>, settings: Record<string, unknown> = {}, creds?: Credentials) {
  const account = creds ?? (await createAccount());
  const shop = await createStandInShop("shopify", seed);
  const res = await call("POST", "/api/v1/shop-connections", { creds: account, body: { platform: "shopify", name: "My Shopify", base_url: shop.base_url, credentials: shop.credentials, settings } });
  expect(res.status, res.text).toBe(201);
  return { creds: account, shop, connection: res.json as { id: number; settings: Record<string, unknown> } };
}

/** What the stand-in holds now. */
export const shopifyState = async (shop: StandInShopHandle) => (await standInShop<ShopifyState>(shop)).state;

/** A delivery as the stand-in signs it (Shopify's headers and body), for the test to post. */
export async function signedDelivery(shop: StandInShopHandle, topic: string, orderId: number, extra: Record<string, unknown> = {}) {
  const res = await fetch(`${shop.base_url}/__webhook`, { method: "POST", body: JSON.stringify({ topic, order_id: orderId, ...extra }) });
  expect(res.status).toBe(200);
  return (await res.json()) as { uris: string[]; headers: Record<string, string>; body: string };
}

/** Posts a delivery to the address Shopify was given, as Shopify does. */
export const postDelivery = (uri: string, headers: Record<string, string>, body: string) => call("POST", new URL(uri).pathname + new URL(uri).search, { headers, rawBody: body });

/** Shopify's THROTTLED answer: the bucket spent, refilling at `restoreRate` a second. */
export const throttled = (restoreRate = 500) => ({
  errors: [{ message: "Throttled", extensions: { code: "THROTTLED" } }],
  extensions: { cost: { requestedQueryCost: 50, actualQueryCost: null, throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 0, restoreRate } } },
});
