// The shop's order pages in a real browser: the list with the API's filters in the URL, the order
// page with lines, timelines, shipments, dispatches and the explain, on the demo data of npm start.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo, type DemoReferences } from "../../scripts/lib/demo-data.mjs";
import { BASE, closeBrowser, columnTexts, createShop, expectAccessible, newPage, screenshot, signInShop, type Shop } from "../browser/console";

let shop: Shop;
let refs: DemoReferences;
let page: Page;

beforeAll(async () => {
  shop = await createShop("Demo shop");
  refs = (await seedDemo(BASE, shop)).references;
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(closeBrowser);

describe("the orders page", () => {
  it("lists the orders newest first, each reference linking to its order", async () => {
    await page.goto("/console/orders");
    await expect(page.getByRole("heading", { level: 1 })).toBeDefined();
    const references = await columnTexts(page, "Reference");
    expect(references).toEqual([refs.awaitingPickup, refs.failed, refs.blocked, refs.pending, refs.answered, refs.completed, refs.ruled]);
    await screenshot(page, "orders");
    await expectAccessible(page);
    await page.getByRole("link", { name: refs.answered }).click();
    await page.waitForURL(`**/console/orders/${refs.answered}`);
    await screenshot(page, "order");
    await expectAccessible(page);
  });
});
