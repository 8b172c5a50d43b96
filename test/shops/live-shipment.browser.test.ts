// Issue 24's "Done when", in a real browser against the real Worker: a shop owner creates a LIVE
// WooCommerce connection on the console's Shop connections page, pointed at a stand-in WooCommerce
// shop (test/shops/stand-ins, started here on loopback), and tests it: every check passes. A
// supplier then ships the order's line with a tracking number through the supplier API, and the
// tracking reaches the stand-in shop within seconds (polled, never slept for); the order page's
// "In the shop" shows it written. axe on every page; no page shows the credentials.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, createShop, expectAccessible, newPage, pullSupplier, screenshot, signInShop, supplierApi, until, type Shop } from "../browser/console";
import { startStandIns } from "./stand-ins/harness";
import { woocommerceStandIn, type WooState } from "./stand-ins/woocommerce";

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

type Handle = { id: string; base_url: string; credentials: { consumer_key: string; consumer_secret: string } };
const standIn = async (path: string, body?: unknown) => {
  const res = await fetch(`${standIns.url}${path}`, { method: body === undefined ? "GET" : "POST", body: body === undefined ? undefined : JSON.stringify(body) });
  return res.json();
};
const held = async (wc: Handle) => ((await standIn(`/__shops/${wc.id}`)) as { state: WooState }).state.orders[0];

/** The cells of one column of the order page's In the shop table. */
async function shopColumn(header: string): Promise<string[]> {
  const table = page.locator("#in-the-shop table");
  const index = (await table.locator("thead th").allTextContents()).indexOf(header);
  if (index < 0) throw new Error(`no column ${header}`);
  return table.locator(`tbody tr td:nth-child(${index + 1})`).allTextContents();
}

describe("a live WooCommerce connection made in the console", () => {
  it("is created and tested on the Shop connections page; a supplier's shipment then reaches the shop with its tracking within seconds, and the order page shows it written", async () => {
    // The shop's order 5120 (one teapot, line item 41), as the WooCommerce plugin will send it.
    const wc = (await standIn("/__shops", {
      platform: "woocommerce",
      seed: { orders: [{ id: 5120, line_items: [{ id: 41, product_id: 601, sku: "TEA-POT", name: "Teapot", quantity: 1 }] }] },
    })) as Handle;

    await page.goto("/console");
    await page.getByRole("link", { name: "Shop connections" }).click();
    await page.getByRole("button", { name: "New shop connection" }).click();
    await page.getByLabel("Platform").selectOption("woocommerce");
    await page.getByLabel("Consumer key").waitFor();
    await page.getByLabel("Name").fill("Our live WooCommerce");
    await page.getByLabel("Shop address").fill(wc.base_url);
    await page.getByLabel("Consumer key").fill(wc.credentials.consumer_key);
    await page.getByLabel("Consumer secret").fill(wc.credentials.consumer_secret);
    await page.getByLabel("Mode").selectOption("live");
    await page.getByRole("button", { name: "Create shop connection" }).click();
    await page.waitForURL(/\/console\/shop-connections\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split("/").pop());
    expect((await api(shop, "GET", `/api/v1/shop-connections/${id}`)).json).toMatchObject({ platform: "woocommerce", base_url: wc.base_url, settings: { mode: "live" }, active: true });

    await page.getByRole("button", { name: "Test the connection" }).click();
    await page.waitForURL(`**/console/shop-connections/${id}`);
    expect(await page.locator(".flash").innerText()).toBe("Test passed: every check is fine.");
    const checks = await page.locator("ul.checks li").allInnerTexts();
    // Every check passes: the server answers, it is WooCommerce, the key reads and may write, the Shipment Tracking extension is there.
    expect(checks.map((c) => c.split(":")[0])).toEqual(["Passed connection", "Passed reachable", "Passed credentials", "Passed write", "Passed tracking"]);
    expect(checks.at(-1)).toBe("Passed tracking: The Shipment Tracking extension is installed: tracking numbers are added to it.");
    await expectAccessible(page);
    const tested = (await standIn(`/__shops/${wc.id}`)) as { received: unknown[] };
    expect(tested.received.length).toBeGreaterThan(0);

    // The order arrives from the shop's plugin, and reaches its supplier.
    const supplier = await pullSupplier(shop, "Teapots & Co", "Kitchen");
    const created = await api(shop, "POST", "/api/v1/orders", {
      external_id: "5120",
      source: "WooCommerce",
      total: 39,
      shipping_address: { first_name: "A", last_name: "B", address1: "Street 1", postcode: "1000AA", city: "Amsterdam", country: "NL" },
      products: [{ external_id: "41", name: "Teapot", reference: "TEA-POT", category: "Kitchen", quantity: 1, price: 39 }],
    });
    expect(created.status).toBe(200);
    const reference = String(created.json.reference);
    const [line] = await until(async () => {
      const lines = (await api(shop, "GET", `/api/v1/orders/${reference}`)).json.order_lines as { id: number; current_status: string }[];
      return lines[0]?.current_status === "ruled" ? lines : null;
    }, "the order to reach its supplier");

    // The supplier ships it; the shop holds the tracking within seconds.
    const answeredAt = Date.now();
    const shipped = await supplierApi(supplier.key, "POST", "/api/v1/supplier/answers", {
      answers: [{ line_id: line.id, action: "ship", quantity: 1, carrier: "PostNL", tracking_number: "3STEA5120", tracking_url: "https://track.example.com/3STEA5120" }],
    });
    expect(shipped.status).toBe(200);
    const tracking = await until(async () => (await held(wc)).trackings.find((t) => t.tracking_number === "3STEA5120"), "the tracking to reach the shop", 10_000);
    const tookMs = Date.now() - answeredAt;
    expect(tookMs).toBeLessThan(10_000);
    console.log(`live write-back: the tracking reached the stand-in shop ${tookMs} ms after the supplier's answer`);
    expect([tracking.tracking_provider, tracking.tracking_link]).toEqual(["PostNL", "https://track.example.com/3STEA5120"]);
    await until(async () => ((await held(wc)).status === "completed" ? true : null), "the shop's order to be completed");
    expect((await held(wc)).trackings).toHaveLength(1);

    // The order page says so.
    await until(async () => {
      const list = (await api(shop, "GET", `/api/v1/orders/${reference}/shop-sync`)).json.data as { status: string }[];
      return list.length === 2 && list.every((w) => w.status === "done") ? list : null;
    }, "the write-backs to be done");
    await page.goto(`/console/orders/${reference}`);
    expect(await page.getByRole("heading", { name: "In the shop" }).isVisible()).toBe(true);
    expect(await shopColumn("Connection")).toEqual(["Our live WooCommerce (woocommerce)", "Our live WooCommerce (woocommerce)"]);
    expect(await shopColumn("What")).toEqual(["Shipment order_line.shipped", expect.stringMatching(/^Order completed order/)]);
    expect(await shopColumn("Status")).toEqual(["Written", "Written"]);
    const section = page.getByRole("region", { name: "What was written into the shop for this order, oldest first" });
    await section.getByText("1 attempt").first().click();
    expect(await section.getByText("POST /wp-json/wc-shipment-tracking/v3/orders/5120/shipment-trackings", { exact: true }).isVisible()).toBe(true);
    await screenshot(page, "order-in-the-shop-live");
    await expectAccessible(page);
    const html = await page.content();
    for (const secret of Object.values(wc.credentials)) expect(html).not.toContain(secret);
  });
});
