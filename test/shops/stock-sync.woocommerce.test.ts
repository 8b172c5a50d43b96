// The stock sync into a stand-in WooCommerce shop, end to end: a feed import queues the sync in its
// own batch, the queue runs it, the shop's products and variations get their stock through the
// batch endpoints; the next import writes only what changed. Each test asserts the exact requests
// the shop received and the sync as GET /stock-syncs shows it.
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { call } from "../helpers/http";
import { pushOffers, received, shopStock, STOCK_ON, supplierFeed, syncs, syncsEnded, syncWithProducts, wooShop } from "../helpers/stock";
import { ISO } from "./support";

const WC = "/wp-json/wc/v3";

/** A simple product (501), a variable one (600) with two variations (610, 611). */
const PRODUCTS = [
  { id: 501, sku: "MUG-1", stock_quantity: 1, manage_stock: true, regular_price: "9.00" },
  { id: 600, sku: "PLATE", type: "variable" as const, variations: [{ id: 610, sku: "PLATE-L" }, { id: 611, sku: "PLATE-S", stock_quantity: 2, manage_stock: true }] },
];

/** An account connected to a shop of PRODUCTS, whose supplier's feed then pushes these offers. */
async function pushedInto(offers: { sku: string; stock_quantity: number }[]) {
  const creds = await createAccount();
  const { shop, connectionId } = await wooShop(creds, PRODUCTS, STOCK_ON);
  const { feedId } = await supplierFeed(creds);
  await pushOffers(creds, feedId, offers);
  return { creds, shop, connectionId, feedId };
}

describe("stock sync into WooCommerce", () => {
  it("a feed import moves the shop's stock: products and variations through their batch endpoints, an unknown SKU reported", async () => {
    const { creds, shop, connectionId } = await pushedInto([
      { sku: "MUG-1", stock_quantity: 7 },
      { sku: "PLATE-L", stock_quantity: 4 },
      { sku: "GHOST-1", stock_quantity: 5 },
    ]);
    const [sync] = await syncsEnded(creds, connectionId);
    expect(sync).toEqual({
      id: expect.any(Number),
      connection_id: connectionId,
      status: "succeeded",
      trigger: "import",
      full: true,
      total: 3,
      done: 3,
      counts: { updated: 2, unchanged: 0, unknown: 1, skipped: 0, failed: 0 },
      error: null,
      guard_reason: null,
      confirmed_at: null,
      retry_at: null,
      created_at: ISO,
      started_at: ISO,
      finished_at: ISO,
    });
    // The map is listed once (products, then the variable product's variations); the SKU it lacks is looked up.
    expect(await received(shop)).toEqual([
      ["GET", `${WC}/products?per_page=100&page=1`, null],
      ["GET", `${WC}/products/600/variations?per_page=100&page=1`, null],
      ["GET", `${WC}/products?sku=GHOST-1&per_page=100`, null],
      ["POST", `${WC}/products/batch`, { update: [{ id: 501, manage_stock: true, stock_quantity: 7 }] }],
      ["POST", `${WC}/products/600/variations/batch`, { update: [{ id: 610, manage_stock: true, stock_quantity: 4 }] }],
    ]);
    expect(await shopStock(shop)).toEqual({ 501: [7, "9.00", true], 600: [null, "", false], 610: [4, "", true], 611: [2, "", true] });
    const detail = await syncWithProducts(creds, connectionId, sync.id);
    expect(detail.products.data).toEqual([
      { key: "GHOST-1", outcome: "unknown", quantity: 5, price: null, old_quantity: null, old_price: null, shop_product_id: null, reason: "The shop has no product with SKU GHOST-1." },
      { key: "MUG-1", outcome: "updated", quantity: 7, price: null, old_quantity: null, old_price: null, shop_product_id: "501", reason: null },
      { key: "PLATE-L", outcome: "updated", quantity: 4, price: null, old_quantity: null, old_price: null, shop_product_id: "610", reason: null },
    ]);
    expect(detail.products.meta).toMatchObject({ current_page: 1, total: 3, per_page: 50, last_page: 1 });
  });

  it("the next import writes only the products whose stock changed; an import that changes nothing queues no sync", async () => {
    const { creds, shop, connectionId, feedId } = await pushedInto([
      { sku: "MUG-1", stock_quantity: 7 },
      { sku: "PLATE-L", stock_quantity: 4 },
    ]);
    await syncsEnded(creds, connectionId);
    const before = (await received(shop)).length;
    // MUG-1 changes; PLATE-L is sent again unchanged; PLATE-S is new to the catalogue but the shop's stock already matches it.
    await pushOffers(creds, feedId, [
      { sku: "MUG-1", stock_quantity: 9 },
      { sku: "PLATE-L", stock_quantity: 4 },
      { sku: "PLATE-S", stock_quantity: 2 },
    ]);
    const [second] = await syncsEnded(creds, connectionId, 2);
    expect(second).toMatchObject({ status: "succeeded", trigger: "import", full: false, total: 2, done: 2, counts: { updated: 2, unchanged: 0, unknown: 0, skipped: 0, failed: 0 } });
    expect((await received(shop)).slice(before)).toEqual([
      ["POST", `${WC}/products/batch`, { update: [{ id: 501, manage_stock: true, stock_quantity: 9 }] }],
      ["POST", `${WC}/products/600/variations/batch`, { update: [{ id: 611, manage_stock: true, stock_quantity: 2 }] }],
    ]);
    // The same file again changes no product: no sync is queued (the import's own batch decides).
    const after = (await received(shop)).length;
    await pushOffers(creds, feedId, [{ sku: "MUG-1", stock_quantity: 9 }]);
    expect(await syncs(creds, connectionId)).toHaveLength(2);
    expect(await received(shop)).toHaveLength(after);
  });

  it("150 changed products go in two batch requests, 100 and 50 (WooCommerce's limit per request)", async () => {
    const creds = await createAccount();
    const skus = Array.from({ length: 150 }, (_, i) => `SKU-${String(i).padStart(3, "0")}`);
    const { shop, connectionId } = await wooShop(creds, skus.map((sku, i) => ({ id: 1000 + i, sku })), STOCK_ON);
    const { feedId } = await supplierFeed(creds);
    await pushOffers(creds, feedId, skus.map((sku, i) => ({ sku, stock_quantity: i })));
    const [sync] = await syncsEnded(creds, connectionId);
    expect(sync).toMatchObject({ status: "succeeded", total: 150, done: 150, counts: { updated: 150, unchanged: 0, unknown: 0, skipped: 0, failed: 0 } });
    const posts = (await received(shop)).filter(([method]) => method === "POST");
    expect(posts.map(([, path, body]) => [path, body.update.length])).toEqual([
      [`${WC}/products/batch`, 100],
      [`${WC}/products/batch`, 50],
    ]);
    expect(posts[1][2].update[49]).toEqual({ id: 1149, manage_stock: true, stock_quantity: 149 });
  });
});
