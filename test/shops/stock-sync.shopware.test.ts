// The stock sync into a stand-in Shopware 6: products and variants found by productNumber through
// POST /api/search/product, written by POST /api/_action/sync (an upsert by id), the next import
// writing only what changed, prices as the default currency's gross with the net from the tax rate,
// a product Shopware refuses failing in its words, and a 429 honoured. Token requests are left out
// of the request lists (the adapter keeps its token; test/shops/platforms/shopware.test.ts covers them).
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { pushOffers, STOCK_ON, supplierFeed, syncsEnded, syncWithProducts } from "../helpers/stock";
import { platformShop, receivedFrom, shopState, syncAgain, syncedShop } from "../helpers/stock-platforms";
import { injectFault, standInShop } from "./stand-ins/client";
import type { ShopwareState } from "./stand-ins/shopware";

const EUR = "b7d2554b0ce847cd82f3ac9bd1c0dfca";
const USD = "0190a1b2c3d4e5f60718293a4b5c6d7e";
const MUG = "aa000000000000000000000000000501";
const PLATE = "aa000000000000000000000000000600";
const PLATE_L = "aa000000000000000000000000000610";
const PRODUCTS = [
  { id: MUG, productNumber: "MUG-1", stock: 1, price: [{ currencyId: EUR, gross: 9, net: 7.44, linked: true }, { currencyId: USD, gross: 10, net: 8.26, linked: true }] },
  { id: PLATE, productNumber: "PLATE", stock: 0, taxRate: 9, price: [{ currencyId: EUR, gross: 5, net: 4.59, linked: true }] },
  { id: PLATE_L, productNumber: "PLATE-L", parentId: PLATE, stock: 2 },
];

const withoutTokens = async (shop: Parameters<typeof receivedFrom>[0], from = 0) => (await receivedFrom(shop, from)).filter(([, path]) => path !== "/api/oauth/token");
const stockOf = async (shop: Parameters<typeof receivedFrom>[0]) =>
  Object.fromEntries((await shopState<ShopwareState>(shop)).products.map((p) => [p.productNumber, [p.stock, p.price]]));
const LIST = { page: 1, limit: 500, includes: { product: ["id", "parentId", "productNumber", "ean"] } };

describe("stock sync into Shopware 6", () => {
  it("an import writes the stock of products and variants in one sync request, an unknown SKU reported; the next import writes only what changed", async () => {
    const { creds, shop, connectionId, feedId, sync } = await syncedShop("shopware", { products: PRODUCTS }, STOCK_ON, [
      { sku: "MUG-1", stock_quantity: 7, purchase_price: 3 },
      { sku: "PLATE-L", stock_quantity: 4 },
      { sku: "GHOST-1", stock_quantity: 5 },
    ]);
    expect(sync).toMatchObject({ status: "succeeded", total: 3, done: 3, counts: { updated: 2, unchanged: 0, unknown: 1, skipped: 0, failed: 0 }, error: null });
    expect(await withoutTokens(shop)).toEqual([
      ["POST", "/api/search/product", LIST],
      ["POST", "/api/search/product", { limit: 1, filter: [{ type: "equalsAny", field: "productNumber", value: ["GHOST-1"] }], includes: { product: ["id", "parentId", "productNumber", "ean"] } }],
      ["POST", "/api/_action/sync", { "stock-sync": { entity: "product", action: "upsert", payload: [{ id: MUG, stock: 7 }, { id: PLATE_L, stock: 4 }] } }],
    ]);
    const sent = (await standInShop(shop)).received.find((r) => r.path === "/api/_action/sync")!;
    expect(sent.headers["indexing-behavior"]).toBe("use-queue-indexing");
    expect(await stockOf(shop)).toEqual({ "MUG-1": [7, PRODUCTS[0]!.price], PLATE: [0, PRODUCTS[1]!.price], "PLATE-L": [4, null] });
    expect((await syncWithProducts(creds, connectionId, sync.id)).products.data).toEqual([
      { key: "GHOST-1", outcome: "unknown", quantity: 5, price: null, old_quantity: null, old_price: null, shop_product_id: null, reason: "The shop has no product with SKU GHOST-1." },
      { key: "MUG-1", outcome: "updated", quantity: 7, price: null, old_quantity: null, old_price: null, shop_product_id: MUG, reason: null },
      { key: "PLATE-L", outcome: "updated", quantity: 4, price: null, old_quantity: null, old_price: null, shop_product_id: PLATE_L, reason: null },
    ]);

    const { sync: second, received: again } = await syncAgain(creds, shop, connectionId, feedId, [
      { sku: "MUG-1", stock_quantity: 9, purchase_price: 3 },
      { sku: "PLATE-L", stock_quantity: 4 },
    ]);
    expect(second).toMatchObject({ status: "succeeded", full: false, total: 1, counts: { updated: 1, unchanged: 0, unknown: 0, skipped: 0, failed: 0 } });
    expect(again.filter(([, path]) => path !== "/api/oauth/token")).toEqual([["POST", "/api/_action/sync", { "stock-sync": { entity: "product", action: "upsert", payload: [{ id: MUG, stock: 9 }] } }]]);
  });

  it("price sync on: the default currency's gross is ours and its net is from the tax rate (a variant's from its parent), other currencies kept; a 429 is waited out", async () => {
    const settings = { ...STOCK_ON, price_sync: { enabled: true, markup_percent: 50, round_to: 0.99 } };
    const { creds, shop, connectionId, sync } = await syncedShop("shopware", { products: PRODUCTS }, settings, [
      { sku: "MUG-1", stock_quantity: 7, purchase_price: 10 },
      { sku: "PLATE-L", stock_quantity: 4, purchase_price: 2 },
    ], (shop) => injectFault(shop, { method: "POST", path: "^/api/_action/sync$", status: 429, headers: { "retry-after": "1" }, body: { errors: [{ status: "429", code: "FRAMEWORK__TOO_MANY_REQUESTS", title: "Too Many Requests", detail: "Too many requests." }] } }));
    expect(sync).toMatchObject({ status: "succeeded", counts: { updated: 2, unchanged: 0, unknown: 0, skipped: 0, failed: 0 }, retry_at: expect.any(String) });
    // 10.00 + 50% = 15.00, raised to 15.99; 2.00 + 50% = 3.00, raised to 3.99. Net: 15.99 / 1.21 and 3.99 / 1.09.
    const mugPrice = [{ currencyId: EUR, gross: 15.99, net: 13.2149, linked: true }, PRODUCTS[0]!.price![1]];
    const platePrice = [{ currencyId: EUR, gross: 3.99, net: 3.6606, linked: true }];
    const write = { "stock-sync": { entity: "product", action: "upsert", payload: [{ id: MUG, stock: 7, price: mugPrice }, { id: PLATE_L, stock: 4, price: platePrice }] } };
    const lookup = { ids: [MUG, PLATE_L], limit: 2, associations: { tax: {} }, includes: { product: ["id", "price", "tax"], tax: ["taxRate"] } };
    const received = await withoutTokens(shop);
    expect(received.slice(1)).toEqual([
      ["POST", "/api/search/product", lookup],
      ["POST", "/api/_action/sync", write],
      // After the 429's second: what the refused request would have written is read first, then written.
      ["POST", "/api/search/product", { ids: [MUG, PLATE_L], limit: 2, includes: { product: ["id", "stock", "price"] } }],
      ["POST", "/api/search/product", lookup],
      ["POST", "/api/_action/sync", write],
    ]);
    const all = (await standInShop(shop)).received.filter((r) => r.path === "/api/_action/sync");
    expect(all.map((r) => r.answered)).toEqual([429, 200]);
    expect(all[1]!.at - all[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(await stockOf(shop)).toMatchObject({ "MUG-1": [7, mugPrice], "PLATE-L": [4, platePrice] });
    expect((await syncWithProducts(creds, connectionId, sync.id)).products.data.map((p: { key: string; price: number }) => [p.key, p.price])).toEqual([
      ["MUG-1", 15.99],
      ["PLATE-L", 3.99],
    ]);
  });

  it("price sync off writes no price; a product deleted in Shopware since the map was built is refused with the request, reported unknown, and the rest is written again", async () => {
    const creds = await createAccount();
    const { shop, connectionId } = await platformShop(creds, "shopware", { products: PRODUCTS }, { ...STOCK_ON, price_sync: { enabled: false } });
    // The map is built, then MUG-1 is deleted in the shop: its upsert becomes an insert without the required fields.
    const { feedId } = await supplierFeed(creds);
    await pushOffers(creds, feedId, [{ sku: "PLATE-L", stock_quantity: 1, purchase_price: 2 }]);
    await syncsEnded(creds, connectionId);
    const state = await shopState<ShopwareState>(shop);
    expect(state.products.find((p) => p.id === PLATE_L)).toMatchObject({ stock: 1, price: null });
    await fetchDelete(shop, MUG);
    const { sync: second, received: again } = await syncAgain(creds, shop, connectionId, feedId, [
      { sku: "MUG-1", stock_quantity: 8, purchase_price: 3 },
      { sku: "PLATE-L", stock_quantity: 6, purchase_price: 2 },
    ]);
    expect(second).toMatchObject({ status: "succeeded", counts: { updated: 1, unchanged: 0, unknown: 1, skipped: 0, failed: 0 } });
    const received = again.filter(([, path]) => path !== "/api/oauth/token");
    // Shopware refuses the upsert of the deleted id as an insert the integration may not make (product:create).
    expect(received).toEqual([
      ["POST", "/api/_action/sync", { "stock-sync": { entity: "product", action: "upsert", payload: [{ id: MUG, stock: 8 }, { id: PLATE_L, stock: 6 }] } }],
      ["POST", "/api/search/product", { ids: [MUG, PLATE_L], limit: 2, includes: { product: ["id"] } }],
      ["POST", "/api/_action/sync", { "stock-sync": { entity: "product", action: "upsert", payload: [{ id: PLATE_L, stock: 6 }] } }],
    ]);
    const products = (await syncWithProducts(creds, connectionId, second.id)).products.data;
    expect(products).toEqual([
      { key: "MUG-1", outcome: "unknown", quantity: 8, price: null, old_quantity: null, old_price: null, shop_product_id: MUG, reason: `The shop no longer has product ${MUG} (Shopware has no product with id ${MUG}); it is looked up again at the next sync.` },
      // Old: what the first sync wrote (the last values this connection wrote, docs/shops-stock.md).
      { key: "PLATE-L", outcome: "updated", quantity: 6, price: null, old_quantity: 1, old_price: null, shop_product_id: PLATE_L, reason: null },
    ]);
  });

  it("a product Shopware refuses (its 400 pointing at the item) fails in Shopware's words; the rest of the request is written again", async () => {
    const refusal = {
      errors: [{ status: "400", code: "ba785a8c-82cb-4283-967c-3cf342181b40", title: "Bad Request", detail: "This value should be of type int.", source: { pointer: "/stock-sync/0/stock" } }],
    };
    const offers = [
      { sku: "MUG-1", stock_quantity: 7 },
      { sku: "PLATE-L", stock_quantity: 4 },
    ];
    const { creds, shop, connectionId, sync } = await syncedShop("shopware", { products: PRODUCTS }, STOCK_ON, offers, (shop) =>
      injectFault(shop, { method: "POST", path: "^/api/_action/sync$", status: 400, body: refusal }),
    );
    expect(sync).toMatchObject({ status: "succeeded", counts: { updated: 1, unchanged: 0, unknown: 0, skipped: 0, failed: 1 } });
    expect((await withoutTokens(shop)).slice(1)).toEqual([
      ["POST", "/api/_action/sync", { "stock-sync": { entity: "product", action: "upsert", payload: [{ id: MUG, stock: 7 }, { id: PLATE_L, stock: 4 }] } }],
      ["POST", "/api/search/product", { ids: [MUG], limit: 1, includes: { product: ["id"] } }],
      ["POST", "/api/_action/sync", { "stock-sync": { entity: "product", action: "upsert", payload: [{ id: PLATE_L, stock: 4 }] } }],
    ]);
    expect(await stockOf(shop)).toMatchObject({ "MUG-1": [1, PRODUCTS[0]!.price], "PLATE-L": [4, null] });
    expect((await syncWithProducts(creds, connectionId, sync.id)).products.data).toEqual([
      { key: "MUG-1", outcome: "failed", quantity: 7, price: null, old_quantity: null, old_price: null, shop_product_id: MUG, reason: "Shopware refused it: stock: This value should be of type int." },
      { key: "PLATE-L", outcome: "updated", quantity: 4, price: null, old_quantity: null, old_price: null, shop_product_id: PLATE_L, reason: null },
    ]);
  });

  it("the product listing refused for good (400): the page's products fail with Shopware's words and the sync ends failed, saying so", async () => {
    const creds = await createAccount();
    const { shop, connectionId } = await platformShop(creds, "shopware", { products: PRODUCTS }, STOCK_ON);
    const refusal = { errors: [{ status: "400", code: "FRAMEWORK__INVALID_CRITERIA", title: "Bad Request", detail: "The criteria is invalid." }] };
    await injectFault(shop, { method: "POST", path: "^/api/search/product$", status: 400, body: refusal, times: 2 });
    const { feedId } = await supplierFeed(creds);
    await pushOffers(creds, feedId, [{ sku: "MUG-1", stock_quantity: 7 }]);
    const [sync] = await syncsEnded(creds, connectionId);
    const words = `The shop refused what we sent (400 on POST /api/search/product): ${JSON.stringify(refusal)}`;
    expect(sync).toMatchObject({ status: "failed", total: 1, done: 1, counts: { updated: 0, unchanged: 0, unknown: 0, skipped: 0, failed: 1 }, error: words });
    expect((await syncWithProducts(creds, connectionId, sync.id)).products.data).toEqual([{ key: "MUG-1", outcome: "failed", quantity: null, price: null, old_quantity: null, old_price: null, shop_product_id: null, reason: words }]);
    expect((await withoutTokens(shop)).map(([method, path]) => `${method} ${path}`)).toEqual(["POST /api/search/product", "POST /api/search/product"]);
    expect((await shopState<ShopwareState>(shop)).products.find((p) => p.id === MUG)!.stock).toBe(1);
  });
});

/** Deletes a product through the shop's own Admin API, as a shop owner's tool would. */
async function fetchDelete(shop: Parameters<typeof receivedFrom>[0], id: string) {
  const token = await fetch(`${shop.base_url}/api/oauth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ grant_type: "client_credentials", ...shop.credentials }) });
  const { access_token } = (await token.json()) as { access_token: string };
  const res = await fetch(`${shop.base_url}/api/product/${id}`, { method: "DELETE", headers: { authorization: `Bearer ${access_token}` } });
  expect(res.status).toBe(204);
}
