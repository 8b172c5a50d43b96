// The stock sync into a stand-in PrestaShop: products and combinations found by reference, their
// stock_availables read for the page and each changed one PUT whole (XML), the next import writing
// only what changed, a product's price (before tax) PUT with the product resource read just before,
// a combination's price refused in words, and a 429 honoured.
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { pushOffers, STOCK_ON, supplierFeed, syncsEnded, syncWithProducts } from "../helpers/stock";
import { platformShop, receivedFrom, shopState, syncAgain, syncedShop } from "../helpers/stock-platforms";
import { injectFault, standInShop } from "./stand-ins/client";
import type { PrestaShopState } from "./stand-ins/prestashop";

const PRODUCTS = [
  { id: 11, reference: "MUG-1", price: "9.000000", quantity: 1 },
  { id: 12, reference: "PLATE", combinations: [{ id: 41, reference: "PLATE-L", quantity: 2 }] },
];
const LIST_PRODUCTS = "/api/products?display=[id,reference,ean13]&limit=0,1000&output_format=JSON";
const LIST_COMBINATIONS = "/api/combinations?display=[id,id_product,reference,ean13]&limit=0,1000&output_format=JSON";
const stockXml = (id: number, product: number, attribute: number, quantity: number) =>
  `<?xml version="1.0" encoding="UTF-8"?><prestashop xmlns:xlink="http://www.w3.org/1999/xlink"><stock_available><id>${id}</id><id_product>${product}</id_product><id_product_attribute>${attribute}</id_product_attribute><id_shop>1</id_shop><id_shop_group>0</id_shop_group><quantity>${quantity}</quantity><depends_on_stock>0</depends_on_stock><out_of_stock>2</out_of_stock><location></location></stock_available></prestashop>`;

const stockOf = async (shop: Parameters<typeof receivedFrom>[0]) => {
  const state = await shopState<PrestaShopState>(shop);
  return {
    stock: Object.fromEntries(state.stock_availables.map((s) => [`${s.id_product}:${s.id_product_attribute}`, s.quantity])),
    prices: Object.fromEntries(state.products.map((p) => [p.reference as string, p.price])),
  };
};

describe("stock sync into PrestaShop", () => {
  it("an import PUTs each changed stock_available whole, combinations too, an unknown reference reported; the next import writes only what changed", async () => {
    const { creds, shop, connectionId, feedId, sync } = await syncedShop("prestashop", { products: PRODUCTS }, STOCK_ON, [
      { sku: "MUG-1", stock_quantity: 7, purchase_price: 3 },
      { sku: "PLATE-L", stock_quantity: 4 },
      { sku: "GHOST-1", stock_quantity: 5 },
    ]);
    expect(sync).toMatchObject({ status: "succeeded", total: 3, done: 3, counts: { updated: 2, unchanged: 0, unknown: 1, skipped: 0, failed: 0 }, error: null });
    expect(await receivedFrom(shop)).toEqual([
      ["GET", LIST_PRODUCTS, null],
      ["GET", LIST_COMBINATIONS, null],
      ["GET", "/api/products?filter[reference]=[GHOST-1]&display=[id,reference,ean13]&output_format=JSON", null],
      ["GET", "/api/combinations?filter[reference]=[GHOST-1]&display=[id,id_product,reference,ean13]&output_format=JSON", null],
      ["GET", "/api/stock_availables?filter[id_product]=[11|12]&display=full&output_format=JSON", null],
      ["PUT", "/api/stock_availables/900", stockXml(900, 11, 0, 7)],
      ["PUT", "/api/stock_availables/902", stockXml(902, 12, 41, 4)],
    ]);
    expect(await stockOf(shop)).toEqual({ stock: { "11:0": "7", "12:0": "0", "12:41": "4" }, prices: { "MUG-1": "9.000000", PLATE: "0.000000" } });
    expect((await syncWithProducts(creds, connectionId, sync.id)).products.data).toEqual([
      { key: "GHOST-1", outcome: "unknown", quantity: 5, price: null, old_quantity: null, old_price: null, shop_product_id: null, reason: "The shop has no product with SKU GHOST-1." },
      { key: "MUG-1", outcome: "updated", quantity: 7, price: null, old_quantity: null, old_price: null, shop_product_id: "11", reason: null },
      { key: "PLATE-L", outcome: "updated", quantity: 4, price: null, old_quantity: null, old_price: null, shop_product_id: "12:41", reason: null },
    ]);

    const { sync: second, received: again } = await syncAgain(creds, shop, connectionId, feedId, [
      { sku: "MUG-1", stock_quantity: 9, purchase_price: 3 },
      { sku: "PLATE-L", stock_quantity: 4 },
    ]);
    expect(second).toMatchObject({ status: "succeeded", full: false, total: 1, counts: { updated: 1, unchanged: 0, unknown: 0, skipped: 0, failed: 0 } });
    expect(again).toEqual([
      ["GET", "/api/stock_availables?filter[id_product]=[11]&display=full&output_format=JSON", null],
      ["PUT", "/api/stock_availables/900", stockXml(900, 11, 0, 9)],
    ]);
  });

  it("price sync on: a product's price PUT with its resource (read-only fields left out), a combination's refused in words; a 429 waited out", async () => {
    const settings = { ...STOCK_ON, price_sync: { enabled: true, markup_percent: 50, round_to: 0.99 } };
    const { creds, shop, connectionId, sync } = await syncedShop("prestashop", { products: PRODUCTS }, settings, [
      { sku: "MUG-1", stock_quantity: 7, purchase_price: 10 },
      { sku: "PLATE-L", stock_quantity: 4, purchase_price: 2 },
    ], (shop) => injectFault(shop, { method: "PUT", path: "^/api/stock_availables/900$", status: 429, headers: { "retry-after": "1" }, body: "Too Many Requests" }));
    expect(sync).toMatchObject({ status: "succeeded", counts: { updated: 1, unchanged: 0, unknown: 0, skipped: 0, failed: 1 }, retry_at: expect.any(String) });
    const received = await receivedFrom(shop);
    expect(received.slice(2).map(([method, path]) => `${method} ${path}`)).toEqual([
      "GET /api/stock_availables?filter[id_product]=[11|12]&display=full&output_format=JSON",
      "PUT /api/stock_availables/900",
      // After Retry-After: the page's products read back (stock and price), then written.
      "GET /api/stock_availables?filter[id_product]=[11|12]&display=full&output_format=JSON",
      "GET /api/products?filter[id]=[11]&display=[id,price]&output_format=JSON",
      "GET /api/stock_availables?filter[id_product]=[11|12]&display=full&output_format=JSON",
      "PUT /api/stock_availables/900",
      "PUT /api/stock_availables/902",
      "GET /api/products/11",
      "PUT /api/products/11",
    ]);
    const put = received.at(-1)![2] as string;
    expect(put).toContain("<price><![CDATA[15.99]]></price>");
    expect(put).not.toMatch(/<quantity>|<manufacturer_name>/);
    const puts = (await standInShop(shop)).received.filter((r) => r.path === "/api/stock_availables/900");
    expect(puts.map((r) => r.answered)).toEqual([429, 200]);
    expect(puts[1]!.at - puts[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(await stockOf(shop)).toEqual({ stock: { "11:0": "7", "12:0": "0", "12:41": "4" }, prices: { "MUG-1": "15.99", PLATE: "0.000000" } });
    expect((await syncWithProducts(creds, connectionId, sync.id)).products.data).toEqual([
      { key: "MUG-1", outcome: "updated", quantity: 7, price: 15.99, old_quantity: null, old_price: null, shop_product_id: "11", reason: null },
      {
        key: "PLATE-L",
        outcome: "failed",
        quantity: 4,
        price: 3.99,
        old_quantity: null,
        old_price: null,
        shop_product_id: "12:41",
        reason: "Stock written; a combination's price is an impact on its product's price in PrestaShop, and price sync writes products' prices only",
      },
    ]);
  });
});
