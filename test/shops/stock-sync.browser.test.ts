// A stock sync from the console in a real browser: a connection with stock sync on against a
// stand-in WooCommerce shop (test/shops/stand-ins, started here on loopback) whose batch endpoint
// first answers 429, "Sync stock now" pressed, the sync's page showing it under way and then its
// progress reaching done of total without a reload (htmx polls the section), each product's
// outcome, and the run listed on the connection's page. With axe.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, columnTexts, createShop, expectAccessible, newPage, screenshot, signInShop, type Shop } from "../browser/console";
import { standInAdmin } from "./stand-ins/admin";
import type { StandInShopHandle } from "./stand-ins/client";
import { startStandIns } from "./stand-ins/harness";
import { woocommerceStandIn } from "./stand-ins/woocommerce";

let standIns: Awaited<ReturnType<typeof startStandIns>>;
let shop: Shop;
let page: Page;

beforeAll(async () => {
  standIns = await startStandIns([woocommerceStandIn]);
  shop = await createShop();
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(async () => {
  await closeBrowser();
  await standIns.close();
});

const admin = (path: string, body?: unknown) => standInAdmin(standIns.url)(path, body);

describe("a stock sync in the console", () => {
  it("Sync stock now: the progress reaches done of total on the sync's page without a reload, then the outcomes", async () => {
    const wc = (await admin("/__shops", {
      platform: "woocommerce",
      seed: {
        products: [
          { id: 501, sku: "MUG-1", stock_quantity: 1, manage_stock: true },
          { id: 502, sku: "MUG-2", stock_quantity: 5, manage_stock: true },
        ],
      },
    })) as StandInShopHandle;
    // A first sync writes every product it knows (no value was written before), MUG-2 too.
    // The catalogue first (no connection yet, so no sync after the import), then the connection.
    const supplier = (await api(shop, "POST", "/api/v1/suppliers", { name: "Mugs & Co", channel: "pull" })).json;
    const feed = await api(shop, "POST", "/api/v1/product-feeds", { supplier_id: supplier.id, name: "Mugs feed", format: "csv" });
    expect(feed.status).toBe(201);
    const pushed = await api(shop, "PUT", `/api/v1/product-feeds/${feed.json.id}/products`, [
      { name: "Mug 1", sku: "MUG-1", stock_quantity: 7, active: true },
      { name: "Mug 2", sku: "MUG-2", stock_quantity: 5, active: true },
      { name: "Ghost", sku: "GHOST-1", stock_quantity: 3, active: true },
    ]);
    expect(pushed.status).toBe(200);
    const created = await api(shop, "POST", "/api/v1/shop-connections", {
      platform: "woocommerce",
      name: "Stock WooCommerce",
      base_url: wc.base_url,
      credentials: wc.credentials,
      settings: { mode: "live", stock_sync: { enabled: true } },
    });
    expect(created.status).toBe(201);
    const id = created.json.id as number;
    // The shop asks us to wait once: the sync is seen under way before it ends.
    await admin(`/__shops/${wc.id}/faults`, { method: "POST", path: "^/wp-json/wc/v3/products/batch$", status: 429, headers: { "retry-after": "2" }, body: { code: "too_many_requests" } });

    await page.goto(`/console/shop-connections/${id}`);
    expect(await page.getByText("No stock sync has run yet.").isVisible()).toBe(true);
    await expectAccessible(page);
    await page.getByRole("button", { name: "Sync stock now" }).click();
    await page.waitForURL(/\/console\/shop-connections\/\d+\/stock-syncs\/\d+$/);
    const syncPath = new URL(page.url()).pathname;
    expect(await page.locator(".flash").innerText()).toBe("Stock sync queued: its progress shows here.");
    const live = page.locator("#stock-sync-live");
    expect(await live.locator("dd .badge").first().innerText()).toMatch(/^(Queued|Running)$/);
    expect(await live.getAttribute("hx-trigger")).toBe("every 1s");
    await expectAccessible(page);
    // A mark on this document: still there at the end, so the page was never loaded again.
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));

    await live.locator("output", { hasText: "3 of 3" }).waitFor({ timeout: 30_000 });
    await page.locator("#stock-sync-live:not([hx-trigger])").waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    expect(new URL(page.url()).pathname).toBe(syncPath);
    expect(await page.locator("#stock-sync-progress").getAttribute("value")).toBe("3");
    expect(await page.locator("#stock-sync-progress").getAttribute("max")).toBe("3");
    expect(await live.locator("dd .badge").first().innerText()).toBe("Succeeded");
    expect(await live.locator(".stock-sync-counts").innerText()).toBe("Updated 2 · Unchanged 0 · Unknown 1 · Skipped 0 · Failed 0");
    expect(await columnTexts(page, "Product")).toEqual(["GHOST-1", "MUG-1", "MUG-2"]);
    expect(await columnTexts(page, "Outcome")).toEqual(["Unknown", "Updated", "Updated"]);
    expect(await columnTexts(page, "Reason")).toEqual(["The shop has no product with SKU GHOST-1.", "", ""]);
    await screenshot(page, "stock-sync");
    await expectAccessible(page);
    // The shop has the new stock.
    const held = (await admin(`/__shops/${wc.id}`)) as { state: { products: { id: number; stock_quantity: number }[] } };
    expect(held.state.products.map((p) => [p.id, p.stock_quantity])).toEqual([
      [501, 7],
      [502, 5],
    ]);

    // The connection's page lists the run.
    await page.getByRole("link", { name: "Stock WooCommerce" }).click();
    await page.waitForURL(`**/console/shop-connections/${id}`);
    const syncId = syncPath.split("/").pop();
    expect(await columnTexts(page, "Sync")).toEqual([`#${syncId}`]);
    expect(await columnTexts(page, "Trigger")).toEqual(["On demand"]);
    expect(await columnTexts(page, "Done")).toEqual(["3 of 3"]);
    await expectAccessible(page);
  });
});
