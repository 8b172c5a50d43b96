// A stock sync under failure: a 429 puts the page off until Retry-After, a write whose answer never
// came is looked for before it is made again, a sync whose Worker died mid-page is resumed by the
// sweeper without writing anything twice, a product the shop refuses fails with the shop's words,
// and credentials refused end the sync saying so.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { enqueue } from "../../src/lib/queue";
import { syncsToResume } from "../../src/shops/stock/stock-sync.service";
import { createAccount, exec, isoNow } from "../helpers/factories";
import { call } from "../helpers/http";
import { pushOffers, received, shopStock, STOCK_ON, supplierFeed, syncsEnded, syncWithProducts, wooShop } from "../helpers/stock";
import { waitFor } from "../helpers/wait";
import { injectFault, standInShop } from "./stand-ins/client";

const WC = "/wp-json/wc/v3";
const PRODUCTS = [
  { id: 501, sku: "MUG-1" },
  { id: 502, sku: "CUP-1" },
  { id: 600, sku: "PLATE", type: "variable" as const, variations: [{ id: 610, sku: "PLATE-L" }] },
];

/** An account whose connection has had its first sync: MUG-1 7, CUP-1 2, PLATE-L 4 written. */
async function synced(products = PRODUCTS) {
  const creds = await createAccount();
  const { shop, connectionId } = await wooShop(creds, products, STOCK_ON);
  const { feedId } = await supplierFeed(creds);
  await pushOffers(creds, feedId, [
    { sku: "MUG-1", stock_quantity: 7 },
    { sku: "CUP-1", stock_quantity: 2 },
    { sku: "PLATE-L", stock_quantity: 4 },
  ]);
  await syncsEnded(creds, connectionId);
  return { creds, shop, connectionId, feedId, seen: (await received(shop)).length };
}

describe("stock sync: failures and resumes", () => {
  it("429 with Retry-After: the page waits that long, reads what it had sent (a page may span requests), then writes it", async () => {
    const { creds, shop, connectionId, feedId, seen } = await synced();
    await injectFault(shop, { method: "POST", path: "/products/batch$", status: 429, headers: { "retry-after": "1" }, body: { code: "woocommerce_rest_too_many_requests", message: "Too many requests." } });
    await pushOffers(creds, feedId, [{ sku: "MUG-1", stock_quantity: 8 }]);
    const [sync] = await syncsEnded(creds, connectionId, 2);
    expect(sync).toMatchObject({ status: "succeeded", counts: { updated: 1, unchanged: 0, unknown: 0, skipped: 0, failed: 0 }, retry_at: expect.any(String) });
    const body = { update: [{ id: 501, manage_stock: true, stock_quantity: 8 }] };
    expect((await received(shop)).slice(seen)).toEqual([
      ["POST", `${WC}/products/batch`, body],
      ["GET", `${WC}/products?include=501&per_page=100`, null],
      ["POST", `${WC}/products/batch`, body],
    ]);
    const [refused, read] = (await standInShop(shop)).received.slice(seen);
    expect(refused.answered).toBe(429);
    expect(read.at - refused.at).toBeGreaterThanOrEqual(1000);
    expect((await shopStock(shop))[501]).toEqual([8, "", true]);
  });

  it("a write applied but never answered (timeout): the retry reads the product, finds it written, and does not write it again", async () => {
    const { creds, shop, connectionId, feedId, seen } = await synced();
    await injectFault(shop, { method: "POST", path: "/products/batch$", hangAfterApplying: true });
    await pushOffers(creds, feedId, [{ sku: "MUG-1", stock_quantity: 9 }]);
    const [sync] = await syncsEnded(creds, connectionId, 2);
    expect(sync).toMatchObject({ status: "succeeded", counts: { updated: 1, unchanged: 0, unknown: 0, skipped: 0, failed: 0 } });
    expect((await received(shop)).slice(seen)).toEqual([
      ["POST", `${WC}/products/batch`, { update: [{ id: 501, manage_stock: true, stock_quantity: 9 }] }],
      ["GET", `${WC}/products?include=501&per_page=100`, null],
    ]);
    expect((await shopStock(shop))[501]).toEqual([9, "", true]);
  });

  it("a Worker that died mid-page (its lease ran out): the sweeper resumes the sync; what was written is not written again", async () => {
    const { creds, shop, connectionId, seen } = await synced();
    // The dead Worker's page: PLATE-L written (5) and recorded; MUG-1's write (10) sent, its
    // outcome never recorded (the shop did not get it); CUP-1 not reached. CUP-1's offer changed meanwhile.
    await exec("UPDATE products SET stock_quantity = 6 WHERE account_id = ? AND sku = 'CUP-1'", creds.accountId);
    const started = isoNow(new Date(Date.now() - 5 * 60_000));
    const { id } = (await env.DB.prepare(
      `INSERT INTO stock_syncs (account_id, connection_id, status, "trigger", from_seq, to_seq, total, done, updated, lease_until, created_at, started_at)
       VALUES (?, ?, 'running', 'manual', 0, 0, 3, 1, 1, ?, ?, ?) RETURNING id`,
    )
      .bind(creds.accountId, connectionId, isoNow(new Date(Date.now() - 60_000)), started, started)
      .first<{ id: number }>())!;
    await env.DB.batch([
      env.DB.prepare("INSERT INTO stock_sync_items (sync_id, match_key, outcome, quantity, shop_id) VALUES (?, 'PLATE-L', 'updated', 5, '610')").bind(id),
      env.DB.prepare("INSERT INTO stock_sync_items (sync_id, match_key, outcome, quantity, shop_id) VALUES (?, 'MUG-1', 'sending', 10, '501')").bind(id),
      env.DB.prepare("INSERT INTO stock_sync_items (sync_id, match_key, outcome) VALUES (?, 'CUP-1', 'pending')").bind(id),
    ]);
    // The cron's sweeper finds it (lease run out) and sends it to the queue again.
    const due = await syncsToResume(createDb(env.DB), new Date());
    expect(due).toContain(id);
    await enqueue(env, [{ type: "stock_sync", syncId: id }]);
    await waitFor(async () => (await syncWithProducts(creds, connectionId, id)).status === "succeeded");
    expect((await received(shop)).slice(seen)).toEqual([
      ["GET", `${WC}/products?include=501&per_page=100`, null],
      ["POST", `${WC}/products/batch`, { update: [{ id: 501, manage_stock: true, stock_quantity: 10 }, { id: 502, manage_stock: true, stock_quantity: 6 }] }],
    ]);
    const detail = await syncWithProducts(creds, connectionId, id);
    expect(detail).toMatchObject({ total: 3, done: 3, counts: { updated: 3, unchanged: 0, unknown: 0, skipped: 0, failed: 0 } });
    expect(detail.products.data.map((p: any) => [p.key, p.outcome, p.quantity])).toEqual([
      ["CUP-1", "updated", 6],
      ["MUG-1", "updated", 10],
      ["PLATE-L", "updated", 5],
    ]);
    // A second message for the finished sync does nothing.
    await enqueue(env, [{ type: "stock_sync", syncId: id }]);
    expect(await syncsToResume(createDb(env.DB), new Date(Date.now() + 3600_000))).not.toContain(id);
  });

  it("a product the shop refuses fails with the shop's words; the others of its batch are written; the next sync tries it again", async () => {
    const { creds, shop, connectionId, feedId, seen } = await synced([
      { id: 501, sku: "MUG-1" },
      { id: 502, sku: "CUP-1", refuse: "Stock of this product is managed by the ERP." } as never,
      { id: 600, sku: "PLATE", type: "variable" as const, variations: [{ id: 610, sku: "PLATE-L" }] },
    ]);
    const [first] = await syncsEnded(creds, connectionId);
    expect(first.counts).toEqual({ updated: 2, unchanged: 0, unknown: 0, skipped: 0, failed: 1 });
    const detail = await syncWithProducts(creds, connectionId, first.id);
    expect(detail.products.data[0]).toEqual({
      key: "CUP-1",
      outcome: "failed",
      quantity: 2,
      price: null,
      old_quantity: null,
      old_price: null,
      shop_product_id: "502",
      reason: "Stock of this product is managed by the ERP. (woocommerce_rest_product_not_updated)",
    });
    await pushOffers(creds, feedId, [{ sku: "MUG-1", stock_quantity: 3 }]);
    const [second] = await syncsEnded(creds, connectionId, 2);
    expect(second).toMatchObject({ total: 2, counts: { updated: 1, unchanged: 0, unknown: 0, skipped: 0, failed: 1 } });
    expect((await received(shop)).slice(seen)).toEqual([
      ["POST", `${WC}/products/batch`, { update: [{ id: 502, manage_stock: true, stock_quantity: 2 }, { id: 501, manage_stock: true, stock_quantity: 3 }] }],
    ]);
  });

  it("credentials the shop refuses end the sync as failed, saying so; nothing is written", async () => {
    const creds = await createAccount();
    const { shop, connectionId } = await wooShop(creds, PRODUCTS, STOCK_ON);
    const wrong = { consumer_key: "ck_wrong_key", consumer_secret: "cs_wrong" };
    const patched = await call("PATCH", `/api/v1/shop-connections/${connectionId}`, { creds, body: { credentials: wrong } });
    expect(patched.status).toBe(200);
    const { feedId } = await supplierFeed(creds);
    await pushOffers(creds, feedId, [{ sku: "MUG-1", stock_quantity: 7 }]);
    const [sync] = await syncsEnded(creds, connectionId);
    expect(sync).toMatchObject({ status: "failed", done: 0, total: 1 });
    expect(sync.error).toBe(
      'The shop refused the credentials (401 on GET /wp-json/wc/v3/products?per_page=100&page=1): {"code":"woocommerce_rest_authentication_error","message":"Consumer key is invalid.","data":{"status":401}}',
    );
    expect((await received(shop)).map(([m]) => m)).toEqual(["GET"]);
  });
});
