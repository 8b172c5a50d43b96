// Stock and price settings set, previewed and guarded in the console, in a real browser against a
// stand-in WooCommerce shop (issue 31): a bad buffer named beside its field and nothing saved; price
// sync turned on with a minimum price and a maximum price drop, previewed before saving (old → new,
// read from the shop, the guards' verdict, nothing written); saved, the full sync queued by itself
// stops before writing as "Needs confirmation" with what it would write; Confirm writes it, old → new
// on the sync's page. With axe.
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, columnTexts, createShop, expectAccessible, newPage, signInShop, type Shop } from "../browser/console";
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
type Held = { state: { products: { id: number; stock_quantity: number; regular_price: string }[] }; received: { method: string }[] };
const shopNow = async (id: string) => (await admin(`/__shops/${id}`)) as Held;

/** A column's cells in one table (the connection's page holds several). */
async function columnIn(table: Locator, header: string): Promise<string[]> {
  const headers = await table.locator("thead th").allTextContents();
  const index = headers.indexOf(header);
  if (index < 0) throw new Error(`no column ${header}: ${headers.join(", ")}`);
  return table.locator(`tbody tr td:nth-child(${index + 1})`).allTextContents();
}

async function waitForApi<T>(read: () => Promise<T | null>): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = await read();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("timed out");
}

describe("stock and price settings in the console", () => {
  it("are set with errors beside their fields, previewed old → new before saving, and a sync past a guard waits for Confirm", async () => {
    const wc = (await admin("/__shops", {
      platform: "woocommerce",
      seed: {
        products: [
          { id: 11, sku: "A", stock_quantity: 1, manage_stock: true, regular_price: "12.50" },
          { id: 12, sku: "B", stock_quantity: 1, manage_stock: true, regular_price: "30.00" },
          { id: 13, sku: "C", stock_quantity: 1, manage_stock: true, regular_price: "99.00" },
        ],
      },
    })) as StandInShopHandle;
    const supplier = (await api(shop, "POST", "/api/v1/suppliers", { name: "Tuinhout", channel: "pull" })).json;
    const feed = await api(shop, "POST", "/api/v1/product-feeds", { supplier_id: supplier.id, name: "Tuinhout feed", format: "csv" });
    await api(shop, "PUT", `/api/v1/product-feeds/${feed.json.id}/products`, [
      { name: "A", sku: "A", stock_quantity: 5, purchase_price: 5.95, active: true },
      { name: "B", sku: "B", stock_quantity: 6, purchase_price: 20.95, active: true },
      { name: "C", sku: "C", stock_quantity: 7, purchase_price: 55.95, active: true },
    ]);
    const created = await api(shop, "POST", "/api/v1/shop-connections", {
      platform: "woocommerce",
      name: "Guarded shop",
      base_url: wc.base_url,
      credentials: wc.credentials,
      settings: { mode: "live", stock_sync: { enabled: true } },
    });
    expect(created.status).toBe(201);
    const id = created.json.id as number;
    const syncsOf = async () => (await api(shop, "GET", `/api/v1/shop-connections/${id}/stock-syncs`)).json.data as { id: number; status: string; trigger: string }[];
    // The stock goes first, prices off.
    await api(shop, "POST", `/api/v1/shop-connections/${id}/stock-syncs`);
    await waitForApi(async () => ((await syncsOf())[0]?.status === "succeeded" ? true : null));

    await page.goto(`/console/shop-connections/${id}`);
    expect(await page.getByLabel("Sync stock into the shop").inputValue()).toBe("true");
    expect(await page.getByLabel("Sync prices too").inputValue()).toBe("false");
    expect(await page.getByLabel("Buffer").inputValue()).toBe("0");
    expect(await page.getByLabel("Minimum price").inputValue()).toBe("");
    await expectAccessible(page);

    // A bad buffer: named beside its field, nothing saved.
    await page.getByLabel("Buffer").fill("-1");
    await page.getByRole("button", { name: "Save shop connection" }).click();
    expect(await page.locator("#field-settings-stock_sync-buffer-error").innerText()).toBe("The Buffer field must be at least 0.");
    expect(await page.getByLabel("Buffer").getAttribute("aria-invalid")).toBe("true");
    expect((await api(shop, "GET", `/api/v1/shop-connections/${id}`)).json.settings.stock_sync.buffer).toBe(0);
    await expectAccessible(page);

    // Price sync on, a minimum price and a maximum drop: previewed before saving.
    await page.getByLabel("Buffer").fill("0");
    await page.getByLabel("Sync prices too").selectOption("true");
    await page.getByLabel("Minimum price").fill("10");
    await page.getByLabel("Maximum price drop per product (%)").fill("40");
    await page.getByRole("button", { name: "Preview the next sync" }).click();
    const preview = page.locator("#stock-preview");
    await preview.waitFor();
    const table = preview.locator("table");
    expect(await columnIn(table, "Product")).toEqual(["A", "B", "C"]);
    expect(await columnIn(table, "Outcome")).toEqual(["Skipped", "Would write", "Would write"]);
    expect(await columnIn(table, "Stock")).toEqual(["5 → 5", "6 → 6", "7 → 7"]);
    expect(await columnIn(table, "Price")).toEqual(["12.50 → 5.95", "30.00 → 20.95", "99.00 → 55.95 Drop past the maximum"]);
    expect(await columnIn(table, "Reason")).toEqual(["The price 5.95 is under the minimum price 10.00: not written.", "", ""]);
    expect(await preview.locator(".needs-confirmation").innerText()).toBe(
      "The guards would stop this sync and ask you first: 1 price drops by more than the maximum; 2 of the shop's 3 products would change.",
    );
    // Nothing saved, nothing written; the form keeps what was typed.
    expect((await api(shop, "GET", `/api/v1/shop-connections/${id}`)).json.settings.price_sync).toBeUndefined();
    expect((await shopNow(wc.id)).state.products.map((p) => p.regular_price)).toEqual(["12.50", "30.00", "99.00"]);
    expect(await page.getByLabel("Sync prices too").inputValue()).toBe("true");
    await expectAccessible(page);

    // Saved: the settings reach every product, so a full sync runs by itself; the guard stops it before any write.
    await page.getByRole("button", { name: "Save shop connection" }).click();
    await page.waitForURL(`**/console/shop-connections/${id}`);
    const stopped = await waitForApi(async () => (await syncsOf()).find((s) => s.status === "needs_confirmation") ?? null);
    expect(stopped.trigger).toBe("settings");
    await page.reload();
    expect((await columnTexts(page, "Trigger"))[0]).toBe("After a settings change");
    await page.getByRole("link", { name: `#${stopped.id}` }).click();
    await page.waitForURL(`**/stock-syncs/${stopped.id}`);
    expect(await page.locator(".needs-confirmation").innerText()).toContain(
      "Needs confirmation. Stopped before writing: 1 product's price would drop by more than 40% (the most: C from 99.00 to 55.95).",
    );
    expect(await columnTexts(page, "Outcome")).toEqual(["Skipped", "Planned", "Planned"]);
    expect(await columnTexts(page, "Price")).toEqual(["12.50 → 5.95", "30.00 → 20.95", "99.00 → 55.95"]);
    expect(await columnTexts(page, "Stock")).toEqual(["5 → 5", "6 → 6", "7 → 7"]);
    expect((await shopNow(wc.id)).state.products.map((p) => p.regular_price)).toEqual(["12.50", "30.00", "99.00"]);
    await expectAccessible(page);

    await page.getByRole("button", { name: "Confirm and write" }).click();
    await page.waitForURL(`**/stock-syncs/${stopped.id}`);
    expect(await page.locator(".flash").innerText()).toBe("Confirmed: the sync writes what it planned.");
    await page.locator("#stock-sync-live:not([hx-trigger]) .stock-sync-counts", { hasText: "Updated 2" }).waitFor({ timeout: 30_000 });
    expect(await page.locator(".stock-sync-counts").innerText()).toBe("Updated 2 · Unchanged 0 · Unknown 0 · Skipped 1 · Failed 0");
    expect(await columnTexts(page, "Outcome")).toEqual(["Skipped", "Updated", "Updated"]);
    expect((await shopNow(wc.id)).state.products.map((p) => [p.id, p.stock_quantity, p.regular_price])).toEqual([
      [11, 5, "12.50"],
      [12, 6, "20.95"],
      [13, 7, "55.95"],
    ]);
    await expectAccessible(page);
  });
});
