// Magento's stock settings on a shop connection's page in a real browser: labelled, an unset EAN
// attribute shown empty (not "null"), and saving the form changes what was changed and keeps the
// EAN attribute unset. With axe.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, createShop, expectAccessible, newPage, signInShop, type Shop } from "../browser/console";

let shop: Shop;
let page: Page;

beforeAll(async () => {
  shop = await createShop();
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(async () => {
  await closeBrowser();
});

describe("Magento's stock settings in the console", () => {
  it("shows them labelled, the unset EAN attribute empty, and a save keeps it unset", async () => {
    const created = await api(shop, "POST", "/api/v1/shop-connections", {
      platform: "magento",
      name: "Our Magento",
      base_url: "https://magento.example.com",
      credentials: { access_token: "magento-browser-token-0123456789" },
      settings: { stock_sync: { enabled: true } },
    });
    expect(created.status).toBe(201);
    const id = created.json.id as number;
    await page.goto(`/console/shop-connections/${id}`);
    expect(await page.getByLabel("How stock is written").inputValue()).toBe("msi");
    expect(await page.getByLabel("MSI source").inputValue()).toBe("default");
    expect(await page.getByLabel("EAN attribute").inputValue()).toBe("");
    await expectAccessible(page);
    await page.getByLabel("How stock is written").selectOption("legacy");
    await page.getByRole("button", { name: "Save shop connection" }).click();
    await page.waitForURL(`**/console/shop-connections/${id}`);
    expect((await api(shop, "GET", `/api/v1/shop-connections/${id}`)).json.settings).toMatchObject({ inventory: "legacy", source_code: "default", ean_attribute: null });
    expect(await page.getByLabel("EAN attribute").inputValue()).toBe("");
    await expectAccessible(page);
  });
});
