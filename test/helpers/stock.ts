// Stock-sync tests' set-up: a stand-in WooCommerce shop with products, a connection to it through
// the public API, suppliers' feeds pushed as JSON, and the syncs as a client reads them.
import { expect } from "vitest";
import { createStandInShop, standInShop, type StandInShopHandle } from "../shops/stand-ins/client";
import type { WooSeed, WooState } from "../shops/stand-ins/woocommerce";
import { createFeed, pushJson } from "./catalogue";
import { exec } from "./factories";
import { call, type Credentials } from "./http";
import { waitFor } from "./wait";

export type Offer = { sku: string; ean13?: string; stock_quantity?: number | null; purchase_price?: number | null; active?: boolean; name?: string };

/** A supplier of the account with its feed, at a priority (lower first). */
export async function supplierFeed(creds: Credentials, priority = 100) {
  const { feed, supplier } = await createFeed(creds);
  await exec("UPDATE suppliers SET priority = ? WHERE id = ?", priority, supplier.id);
  return { feedId: feed.id as number, supplierId: supplier.id };
}

/** Pushes the supplier's offers (a partial import: products not listed stay as they are). */
export async function pushOffers(creds: Credentials, feedId: number, offers: Offer[]) {
  const rows = offers.map((o) => ({ name: o.name ?? `Product ${o.sku}`, active: o.active ?? true, ...o }));
  const res = await pushJson(creds, feedId, rows);
  if (res.status !== 200) throw new Error(`push: ${res.status} ${res.text}`);
  return res.json;
}

/** A stand-in WooCommerce shop and a connection to it with these settings. */
export async function wooShop(creds: Credentials, products: WooSeed["products"], settings: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const shop = await createStandInShop("woocommerce", { products });
  const res = await call("POST", "/api/v1/shop-connections", {
    creds,
    body: { platform: "woocommerce", name: "Stock shop", base_url: shop.base_url, credentials: shop.credentials, settings, ...extra },
  });
  if (res.status !== 201) throw new Error(`connection: ${res.status} ${res.text}`);
  return { shop, connectionId: res.json.id as number };
}

/** The connection's syncs as GET /stock-syncs answers them (newest first). */
export async function syncs(creds: Credentials, connectionId: number) {
  const res = await call("GET", `/api/v1/shop-connections/${connectionId}/stock-syncs`, { creds });
  expect(res.status).toBe(200);
  return res.json.data as any[];
}

/** Waits until the connection has `count` syncs, every one ended; answers them (newest first). */
export async function syncsEnded(creds: Credentials, connectionId: number, count = 1) {
  return waitFor(async () => {
    const list = await syncs(creds, connectionId);
    return list.length === count && list.every((s) => s.status === "succeeded" || s.status === "failed") ? list : null;
  });
}

/** One sync with its products, as GET /stock-syncs/{id} answers. */
export async function syncWithProducts(creds: Credentials, connectionId: number, syncId: number) {
  const res = await call("GET", `/api/v1/shop-connections/${connectionId}/stock-syncs/${syncId}`, { creds });
  expect(res.status).toBe(200);
  return res.json;
}

/** What the shop received: method, path with its query, the JSON body. */
export async function received(shop: StandInShopHandle) {
  const { received } = await standInShop<WooState>(shop);
  return received.map((r) => {
    const query = new URLSearchParams(r.query).toString();
    return [r.method, r.path + (query ? `?${query}` : ""), r.body ? JSON.parse(r.body) : null];
  });
}

/** The shop's products now: id -> [stock_quantity, regular_price], variations included. */
export async function shopStock(shop: StandInShopHandle) {
  const { state } = await standInShop<WooState>(shop);
  const out: Record<number, [number | null, string, boolean]> = {};
  for (const p of state.products) {
    out[p.id] = [p.stock_quantity, p.regular_price, p.manage_stock];
    for (const v of p.variations) out[v.id] = [v.stock_quantity, v.regular_price, v.manage_stock];
  }
  return out;
}

export const STOCK_ON = { stock_sync: { enabled: true } };
