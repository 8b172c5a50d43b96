// The stock sync into a stand-in Magento 2: products found by SKU through GET /V1/products with a
// searchCriteria `in` filter, the stock written with MSI into the "default" source's items
// (POST /V1/inventory/source-items) or, with settings.inventory "legacy", into each product's stock
// item; prices through POST /V1/products/base-prices (its refusals inside the 200); the next import
// writing only what changed; a 429 honoured; match_by ean13 through settings.ean_attribute.
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { send, signIn } from "../helpers/console-http";
import { call } from "../helpers/http";
import { pushOffers, STOCK_ON, supplierFeed, syncsEnded, syncWithProducts } from "../helpers/stock";
import { platformShop, receivedFrom, shopState, syncAgain, syncedShop } from "../helpers/stock-platforms";
import { injectFault, standInShop } from "./stand-ins/client";
import type { MagentoState } from "./stand-ins/magento";

const PRODUCTS = [
  { id: 11, sku: "MUG-1", price: 9, qty: 1, ean: "8712345678913" },
  { id: 12, sku: "PLATE-L", price: 5, qty: 2 },
];
const F = "searchCriteria[filter_groups][0][filters][0]";
const LIST = "/rest/V1/products?searchCriteria[pageSize]=300&searchCriteria[currentPage]=1";
const bySku = (skus: string[]) => `/rest/V1/products?${F}[field]=sku&${F}[value]=${skus.join(",")}&${F}[condition_type]=in&searchCriteria[pageSize]=${skus.length}&searchCriteria[currentPage]=1`;

const stockOf = async (shop: Parameters<typeof receivedFrom>[0]) => {
  const state = await shopState<MagentoState>(shop);
  return {
    sources: Object.fromEntries(state.sourceItems.map((s) => [s.sku, [s.quantity, s.status]])),
    legacy: Object.fromEntries(state.products.map((p) => [p.sku, [p.qty, p.price]])),
  };
};

describe("stock sync into Magento 2", () => {
  it("with MSI: an import writes the default source's items in one request, an unknown SKU reported; the next import writes only what changed", async () => {
    const { creds, shop, connectionId, feedId, sync } = await syncedShop("magento", { products: PRODUCTS }, STOCK_ON, [
      { sku: "MUG-1", stock_quantity: 7, purchase_price: 3 },
      { sku: "PLATE-L", stock_quantity: 0 },
      { sku: "GHOST-1", stock_quantity: 5 },
    ]);
    expect(sync).toMatchObject({ status: "succeeded", total: 3, done: 3, counts: { updated: 2, unchanged: 0, unknown: 1, skipped: 0, failed: 0 }, error: null });
    expect(await receivedFrom(shop)).toEqual([
      ["GET", LIST, null],
      ["GET", bySku(["GHOST-1"]), null],
      ["POST", "/rest/V1/inventory/source-items", { sourceItems: [{ sku: "MUG-1", source_code: "default", quantity: 7, status: 1 }, { sku: "PLATE-L", source_code: "default", quantity: 0, status: 0 }] }],
    ]);
    expect(await stockOf(shop)).toEqual({ sources: { "MUG-1": [7, 1], "PLATE-L": [0, 0] }, legacy: { "MUG-1": [1, 9], "PLATE-L": [2, 5] } });
    expect((await syncWithProducts(creds, connectionId, sync.id)).products.data).toEqual([
      { key: "GHOST-1", outcome: "unknown", quantity: 5, price: null, old_quantity: null, old_price: null, shop_product_id: null, reason: "The shop has no product with SKU GHOST-1." },
      { key: "MUG-1", outcome: "updated", quantity: 7, price: null, old_quantity: null, old_price: null, shop_product_id: "MUG-1", reason: null },
      { key: "PLATE-L", outcome: "updated", quantity: 0, price: null, old_quantity: null, old_price: null, shop_product_id: "PLATE-L", reason: null },
    ]);

    const { sync: second, received: again } = await syncAgain(creds, shop, connectionId, feedId, [
      { sku: "MUG-1", stock_quantity: 9, purchase_price: 3 },
      { sku: "PLATE-L", stock_quantity: 0 },
    ]);
    expect(second).toMatchObject({ status: "succeeded", full: false, total: 1, counts: { updated: 1, unchanged: 0, unknown: 0, skipped: 0, failed: 0 } });
    expect(again).toEqual([["POST", "/rest/V1/inventory/source-items", { sourceItems: [{ sku: "MUG-1", source_code: "default", quantity: 9, status: 1 }] }]]);
  });

  it("legacy stock items and price sync on: a PUT per product with its item id, base prices in one request; a 429 waited out", async () => {
    const settings = { inventory: "legacy", ...STOCK_ON, price_sync: { enabled: true, markup_percent: 50, round_to: 0.99 } };
    const { creds, shop, connectionId, sync } = await syncedShop("magento", { products: PRODUCTS }, settings, [
      { sku: "MUG-1", stock_quantity: 7, purchase_price: 10 },
      { sku: "PLATE-L", stock_quantity: 4, purchase_price: 2 },
    ], (shop) => injectFault(shop, { method: "POST", path: "^/rest/V1/products/base-prices$", status: 429, headers: { "retry-after": "1" }, body: { message: "Too many requests" } }));
    expect(sync).toMatchObject({ status: "succeeded", counts: { updated: 2, unchanged: 0, unknown: 0, skipped: 0, failed: 0 }, retry_at: expect.any(String) });
    const prices = { prices: [{ sku: "MUG-1", price: 15.99, store_id: 0 }, { sku: "PLATE-L", price: 3.99, store_id: 0 }] };
    // Each stock item read where Magento serves it (the product list carries none: magento/magento2#36533), then written.
    const writeBoth = [
      ["GET", "/rest/V1/stockItems/MUG-1", null],
      ["PUT", "/rest/V1/products/MUG-1/stockItems/5000", { stockItem: { qty: 7, is_in_stock: true } }],
      ["GET", "/rest/V1/stockItems/PLATE-L", null],
      ["PUT", "/rest/V1/products/PLATE-L/stockItems/5001", { stockItem: { qty: 4, is_in_stock: true } }],
      ["POST", "/rest/V1/products/base-prices", prices],
    ];
    expect(await receivedFrom(shop)).toEqual([
      ["GET", LIST, null],
      ...writeBoth,
      // After Retry-After: what was sent is read back (prices from the products, quantities from their stock items: stock written, prices not), then written again.
      ["GET", bySku(["MUG-1", "PLATE-L"]), null],
      ["GET", "/rest/V1/stockItems/MUG-1", null],
      ["GET", "/rest/V1/stockItems/PLATE-L", null],
      ...writeBoth,
    ]);
    const posts = (await standInShop(shop)).received.filter((r) => r.path.endsWith("/base-prices"));
    expect(posts.map((r) => r.answered)).toEqual([429, 200]);
    expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(1000);
    expect((await stockOf(shop)).legacy).toEqual({ "MUG-1": [7, 15.99], "PLATE-L": [4, 3.99] });
  });

  it("legacy: a product deleted since the map was built is reported unknown in Magento's own 404 words; the others are written", async () => {
    const creds = await createAccount();
    const { shop, connectionId } = await platformShop(creds, "magento", { products: PRODUCTS }, { inventory: "legacy", ...STOCK_ON });
    const { feedId } = await supplierFeed(creds);
    await pushOffers(creds, feedId, [{ sku: "PLATE-L", stock_quantity: 1, purchase_price: 2 }]);
    await syncsEnded(creds, connectionId);
    const deleted = await fetch(`${shop.base_url}/rest/V1/products/MUG-1`, { method: "DELETE", headers: { authorization: `Bearer ${shop.credentials.access_token}` } });
    expect(deleted.status).toBe(200);
    const { sync: second, received: again } = await syncAgain(creds, shop, connectionId, feedId, [
      { sku: "MUG-1", stock_quantity: 8, purchase_price: 3 },
      { sku: "PLATE-L", stock_quantity: 6, purchase_price: 2.5 },
    ]);
    expect(second).toMatchObject({ status: "succeeded", counts: { updated: 1, unchanged: 0, unknown: 1, failed: 0 } });
    expect(again).toEqual([
      ["GET", "/rest/V1/stockItems/MUG-1", null],
      ["GET", "/rest/V1/stockItems/PLATE-L", null],
      ["PUT", "/rest/V1/products/PLATE-L/stockItems/5001", { stockItem: { qty: 6, is_in_stock: true } }],
    ]);
    expect((await stockOf(shop)).legacy).toEqual({ "PLATE-L": [6, 5] });
    expect((await syncWithProducts(creds, connectionId, second.id)).products.data[0]).toEqual({
      key: "MUG-1",
      outcome: "unknown",
      quantity: 8,
      price: null,
      old_quantity: null,
      old_price: null,
      shop_product_id: "MUG-1",
      reason: 'The shop no longer has product MUG-1 (Magento has no stock item for it (404): The Product with the "MUG-1" SKU doesn\'t exist.); it is looked up again at the next sync.',
    });
  });

  it("price sync off writes no price; match_by ean13 finds products by settings.ean_attribute", async () => {
    const creds = await createAccount();
    const ean = { stock_sync: { enabled: true, match_by: "ean13" }, price_sync: { enabled: false }, ean_attribute: "ean" };
    const { shop, connectionId } = await platformShop(creds, "magento", { products: PRODUCTS }, ean);
    const { feedId } = await supplierFeed(creds);
    await pushOffers(creds, feedId, [{ sku: "OUR-MUG", ean13: "8712345678913", stock_quantity: 6, purchase_price: 3 }]);
    const [sync] = await syncsEnded(creds, connectionId);
    expect(sync).toMatchObject({ status: "succeeded", counts: { updated: 1, unchanged: 0, unknown: 0, skipped: 0, failed: 0 } });
    expect(await receivedFrom(shop)).toEqual([
      ["GET", LIST, null],
      ["POST", "/rest/V1/inventory/source-items", { sourceItems: [{ sku: "MUG-1", source_code: "default", quantity: 6, status: 1 }] }],
    ]);
    expect((await stockOf(shop)).legacy["MUG-1"]).toEqual([1, 9]);

  });

  it("Magento's stock settings: inventory, source_code and ean_attribute validated at their limits, match_by ean13 refused without an EAN attribute", async () => {
    const creds = await createAccount();
    const base = { platform: "magento", name: "Magento", base_url: "https://magento.example.com", credentials: { access_token: "t0k3n" } };
    const cases: [Record<string, unknown>, Record<string, string[]> | null][] = [
      [{ source_code: "s".repeat(255), ean_attribute: "e".repeat(60), inventory: "legacy" }, null],
      [{ source_code: "s".repeat(256) }, { "settings.source_code": ["The settings.source_code field must not be greater than 255 characters."] }],
      [{ ean_attribute: "e".repeat(61) }, { "settings.ean_attribute": ["The settings.ean_attribute field must not be greater than 60 characters."] }],
      [{ ean_attribute: "EAN-13" }, { "settings.ean_attribute": ["The settings.ean_attribute field must be an attribute code (a-z, 0-9, _)."] }],
      [{ inventory: "both" }, { "settings.inventory": ["The selected settings.inventory is invalid. Allowed values: msi, legacy."] }],
      [
        { stock_sync: { enabled: true, match_by: "ean13" } },
        { "settings.ean_attribute": ["The settings.ean_attribute field is required when settings.stock_sync.match_by is ean13: Magento has no EAN attribute of its own."] },
      ],
      [{ stock_sync: { enabled: true, match_by: "ean13" }, ean_attribute: "ean" }, null],
    ];
    for (const [settings, errors] of cases) {
      const res = await call("POST", "/api/v1/shop-connections", { creds, body: { ...base, settings } });
      const given = Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, typeof v === "object" ? expect.objectContaining(v) : v]));
      if (errors === null) expect([res.status, res.json.settings]).toEqual([201, expect.objectContaining(given)]);
      else expect({ settings, status: res.status, json: res.json }).toEqual({ settings, status: 422, json: { message: "Errors", errors } });
    }
  });

  it("a price base-prices refuses inside its 200 (a product deleted since the map was built) is reported unknown in Magento's words; the others are written", async () => {
    const creds = await createAccount();
    const settings = { ...STOCK_ON, price_sync: { enabled: true } };
    const { shop, connectionId } = await platformShop(creds, "magento", { products: PRODUCTS }, settings);
    const { feedId } = await supplierFeed(creds);
    await pushOffers(creds, feedId, [{ sku: "PLATE-L", stock_quantity: 1, purchase_price: 2 }]);
    await syncsEnded(creds, connectionId);
    const deleted = await fetch(`${shop.base_url}/rest/V1/products/MUG-1`, { method: "DELETE", headers: { authorization: `Bearer ${shop.credentials.access_token}` } });
    expect(deleted.status).toBe(200);
    const { sync: second, received: again } = await syncAgain(creds, shop, connectionId, feedId, [
      { sku: "MUG-1", stock_quantity: 8, purchase_price: 3 },
      { sku: "PLATE-L", stock_quantity: 6, purchase_price: 2.5 },
    ]);
    expect(second).toMatchObject({ status: "succeeded", counts: { updated: 1, unchanged: 0, unknown: 1, skipped: 0, failed: 0 } });
    expect(again).toEqual([
      ["POST", "/rest/V1/inventory/source-items", { sourceItems: [{ sku: "MUG-1", source_code: "default", quantity: 8, status: 1 }, { sku: "PLATE-L", source_code: "default", quantity: 6, status: 1 }] }],
      ["POST", "/rest/V1/products/base-prices", { prices: [{ sku: "MUG-1", price: 3, store_id: 0 }, { sku: "PLATE-L", price: 2.5, store_id: 0 }] }],
    ]);
    expect((await stockOf(shop)).legacy).toEqual({ "PLATE-L": [2, 2.5] });
    expect((await syncWithProducts(creds, connectionId, second.id)).products.data).toEqual([
      {
        key: "MUG-1",
        outcome: "unknown",
        quantity: 8,
        price: 3,
        old_quantity: null,
        old_price: null,
        shop_product_id: "MUG-1",
        reason: "The shop no longer has product MUG-1 (Magento refused the price: Requested product doesn't exist. SKU: MUG-1.); it is looked up again at the next sync.",
      },
      // Old: what the first sync wrote (the last values this connection wrote, docs/shops-stock.md).
      { key: "PLATE-L", outcome: "updated", quantity: 6, price: 2.5, old_quantity: 1, old_price: 2, shop_product_id: "PLATE-L", reason: null },
    ]);
  });
});

describe("Magento's stock settings in the console", () => {
  it("the connection's page shows them labelled, an unset EAN attribute as an empty field (saving the form again keeps it unset)", async () => {
    const creds = await createAccount();
    const { connectionId } = await platformShop(creds, "magento", { products: PRODUCTS }, STOCK_ON);
    const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
    const res = await send(`/console/shop-connections/${connectionId}`, { jar });
    expect(res.status).toBe(200);
    const html = await res.text();
    const input = /<input[^>]*name="settings\.ean_attribute"[^>]*>/.exec(html)?.[0] ?? "";
    expect(input).not.toBe("");
    expect(input).not.toContain('value="null"');
    expect(html).toContain("EAN attribute");
    expect(html).toContain("How stock is written");
    expect(html).toContain("MSI source");
  });
});
