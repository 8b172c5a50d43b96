// The shop console's landing page: everything that waits for a person, counted, newest first,
// each item linking to where it is dealt with.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo, type DemoReferences } from "../../scripts/lib/demo-data.mjs";
import { ageRows, api, BASE, closeBrowser, createShop, expectAccessible, newPage, screenshot, signInShop, type Shop } from "../browser/console";

let shop: Shop;
let refs: DemoReferences;

beforeAll(async () => {
  shop = await createShop("Demo shop");
  refs = (await seedDemo(BASE, shop)).references;
  // Time passes: the unmatched line has waited an hour, the pulled order two days.
  ageRows("UPDATE order_lines SET updated_at = '2020-01-01T00:00:00.000000Z' WHERE account_id = ? AND current_status = 'pending'", [shop.accountId]);
  ageRows("UPDATE dispatches SET created_at = '2020-01-01T00:00:00.000000Z' WHERE account_id = ? AND status = 'awaiting_pickup'", [shop.accountId]);
  // A webhook endpoint that refuses every event, and a feed file with a bad row.
  await api(shop, "POST", "/api/v1/webhooks", { url: `${BASE}/a-shop-endpoint-that-refuses`, events: ["order.created"] });
  await api(shop, "POST", "/api/v1/orders", {
    external_id: "DEMO-2001",
    source: "Demo webshop",
    total: 5,
    shipping_address: { first_name: "Ann", last_name: "Smit", address1: "Markt 2", postcode: "3511AA", city: "Utrecht", country: "NL" },
    products: [{ external_id: "GIFT-CARD", name: "Gift card", quantity: 1, price: 5 }],
  });
  const suppliers = await api(shop, "GET", "/api/v1/suppliers");
  const feed = await api(shop, "POST", "/api/v1/product-feeds", { supplier_id: suppliers.json.data[0].id, name: "Garden stock", format: "csv" });
  await fetch(`${BASE}/api/v1/product-feeds/${feed.json.id}/products`, {
    method: "PUT",
    headers: { "api-key": shop.apiKey, "account-id": String(shop.accountId), "content-type": "text/csv" },
    body: "sku,name,purchase_price\nCHAIR-1,Garden chair,39.50\n,No SKU,1.00\n",
  });
});
afterAll(closeBrowser);

describe("needs attention", () => {
  it("counts what waits for a person, newest first, each linking to where it is fixed", async () => {
    const page = await newPage();
    await signInShop(page, shop);
    expect(new URL(page.url()).pathname).toBe("/console");
    // The failing webhook has had its first attempt by now.
    for (let i = 0; i < 40 && !(await page.locator("#webhooks-heading").count()); i++) {
      await new Promise((r) => setTimeout(r, 250));
      await page.reload();
    }
    const sections = await page.locator("section.attention h2").allInnerTexts();
    expect(sections).toEqual([
      "Blocked orders 1",
      "Lines that found no supplier 1",
      "Failed sends 1",
      "Declined or partly confirmed lines 2",
      "Orders suppliers have not fetched 2",
      "Failing webhook deliveries 1",
      "Feed imports with problems 1",
    ]);
    const blocked = page.locator("section.attention", { has: page.locator("#blocked-heading") });
    expect(await blocked.locator("li").innerText()).toMatch(/Order blocked by rule #\d+ 'Hold big orders for review'/);
    expect(await page.locator("section.attention", { has: page.locator("#pending-heading") }).locator("li").innerText()).toContain("no active supplier named 'Tapijtfabriek'");
    expect(await page.locator("section.attention", { has: page.locator("#imports-heading") }).locator("li").innerText()).toContain("1 row rejected");
    await screenshot(page, "needs-attention");
    await expectAccessible(page);

    await page.locator("section.attention", { has: page.locator("#failed-heading") }).getByRole("link", { name: `Order ${refs.failed}` }).click();
    await page.waitForURL(`**/console/orders/${refs.failed}`);
  });

  it("says all is clear when nothing waits", async () => {
    const page = await newPage();
    await signInShop(page, await createShop());
    expect(await page.getByRole("heading", { name: "All clear" }).isVisible()).toBe(true);
    await expectAccessible(page);
  });
});
