// The order page's "In the shop" in a real browser: a supplier's shipment written into a stand-in
// WooCommerce shop (test/shops/stand-ins, started here on loopback), the first refused and parked,
// shown with its calls and a "Try again" button (and on Needs attention and the operator's failing
// writes), replayed from the page, then written; every page passes axe, none shows the credentials.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sealForWorker } from "../../scripts/lib/seal.mjs";
import {
  api,
  closeBrowser,
  createShop,
  expectAccessible,
  newPage,
  onWorkerDb,
  pullSupplier,
  readWorkerDb,
  screenshot,
  signInOperator,
  signInShop,
  supplierApi,
  until,
  type Shop,
} from "../browser/console";
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

type Handle = { id: string; base_url: string; credentials: Record<string, string> };
const admin = async (path: string, body?: unknown) => {
  const res = await fetch(`${standIns.url}${path}`, { method: body === undefined ? "GET" : "POST", body: body === undefined ? undefined : JSON.stringify(body) });
  return res.status === 204 ? null : res.json();
};
/** The cells of one column of the In the shop table. */
async function shopColumn(page: Page, header: string): Promise<string[]> {
  const table = page.locator("#in-the-shop table");
  const index = (await table.locator("thead th").allTextContents()).indexOf(header);
  if (index < 0) throw new Error(`no column ${header}`);
  return table.locator(`tbody tr td:nth-child(${index + 1})`).allTextContents();
}

const held = async (wc: Handle) => ((await admin(`/__shops/${wc.id}`)) as { state: WooState }).state.orders[0];

describe("the order page's In the shop", () => {
  it("shows a parked write-back with its calls, replays it from the page, and shows it written", async () => {
    const wc = (await admin("/__shops", {
      platform: "woocommerce",
      seed: { orders: [{ id: 4711, line_items: [{ id: 31, product_id: 501, sku: "MUG-BLUE", name: "Blue mug", quantity: 2 }] }] },
    })) as Handle;
    const sealed = sealForWorker(inject("secretsKey"), JSON.stringify(wc.credentials), `shop_connection:${shop.accountId}:woocommerce`);
    const now = new Date().toISOString();
    onWorkerDb(
      `INSERT INTO shop_connections (account_id, platform, name, base_url, credentials_sealed, credentials_hint, sources, settings, active, created_at, updated_at)
       VALUES (${shop.accountId}, 'woocommerce', 'My WooCommerce', '${wc.base_url}', '${sealed}', '{}', NULL, '{"mode":"live","complete_status":"completed","tracking":"auto"}', 1, '${now}', '${now}')`,
    );
    const supplier = await pullSupplier(shop, "Mugs & Co", "Kitchen");
    const created = await api(shop, "POST", "/api/v1/orders", {
      external_id: "4711",
      source: "WooCommerce",
      total: 25,
      shipping_address: { first_name: "A", last_name: "B", address1: "Street 1", postcode: "1000AA", city: "Amsterdam", country: "NL" },
      products: [{ external_id: "31", name: "Blue mug", reference: "MUG-BLUE", category: "Kitchen", quantity: 2, price: 12.5 }],
    });
    expect(created.status).toBe(200);
    const reference = String(created.json.reference);
    const [line] = await until(async () => {
      const lines = (await api(shop, "GET", `/api/v1/orders/${reference}`)).json.order_lines as { id: number; current_status: string }[];
      return lines[0]?.current_status === "ruled" ? lines : null;
    }, "the order to reach its supplier");

    // The shop refuses the first tracking it is sent (a 401 another attempt cannot change): parked at once.
    await admin(`/__shops/${wc.id}/faults`, { method: "POST", path: "shipment-trackings", status: 401, body: { code: "woocommerce_rest_authentication_error", message: "Consumer key is invalid." } });
    const shipped = await supplierApi(supplier.key, "POST", "/api/v1/supplier/answers", {
      answers: [{ line_id: line.id, action: "ship", quantity: 2, carrier: "PostNL", tracking_number: "3SABC123", tracking_url: "https://track.example.com/3SABC123" }],
    });
    expect(shipped.status).toBe(200);
    const [parked] = await until(async () => {
      const list = (await api(shop, "GET", `/api/v1/orders/${reference}/shop-sync`)).json.data as { id: number; status: string }[];
      return list[0]?.status === "failed" ? list : null;
    }, "the write-back to be parked");

    await page.goto(`/console/orders/${reference}`);
    const section = page.getByRole("region", { name: "What was written into the shop for this order, oldest first" });
    expect(await page.getByRole("heading", { name: "In the shop" }).isVisible()).toBe(true);
    expect(await shopColumn(page, "Connection")).toEqual(["My WooCommerce (woocommerce)", "My WooCommerce (woocommerce)"]);
    expect(await shopColumn(page, "What")).toEqual(["Shipment order_line.shipped", expect.stringMatching(/^Order completed order/)]);
    const [status, waiting] = await shopColumn(page, "Status");
    expect(waiting).toBe("Waiting");
    expect(status).toMatch(/^Failed The shop refused the credentials \(401 on POST \/wp-json\/wc-shipment-tracking\/v3\/orders\/4711\/shipment-trackings\)/);
    await section.getByText("1 attempt").click();
    expect(await section.getByText("POST /wp-json/wc-shipment-tracking/v3/orders/4711/shipment-trackings", { exact: true }).isVisible()).toBe(true);
    expect(await section.getByText("GET /wp-json/wc/v3/orders/4711", { exact: true }).isVisible()).toBe(true);
    await screenshot(page, "order-in-the-shop");
    await expectAccessible(page);
    const html = await page.content();
    for (const secret of Object.values(wc.credentials)) expect(html).not.toContain(secret);

    // Needs attention lists it, linking to the order's section.
    await page.goto("/console");
    const attention = page.locator("section.attention", { has: page.getByRole("heading", { name: /^Failing writes into the shop/ }) });
    expect(await attention.locator("h2 .count").innerText()).toBe("1");
    expect(await attention.locator(".cause-words").innerText()).toBe(
      'WooCommerce refused our consumer key and secret ("Consumer key is invalid."): they were changed, revoked or mistyped. Enter them again on the shop connection (they are made in WooCommerce > Settings > Advanced > REST API).',
    );
    expect(await attention.locator("li li").innerText()).toMatch(new RegExp(`^Order ${reference} \\(4711\\) · shipment to My WooCommerce · Failed · `));
    expect(await attention.getByRole("link", { name: `Order ${reference}` }).getAttribute("href")).toBe(`/console/orders/${reference}#in-the-shop`);
    await expectAccessible(page);

    // So does the operator's list of failing writes into shops, counted on the pipeline page.
    const operator = await newPage();
    await signInOperator(operator);
    await operator.goto("/operator/shop-write-backs");
    const row = operator.locator("tbody tr", { hasText: reference });
    expect(await row.locator("td").allInnerTexts()).toEqual([
      shop.name,
      "My WooCommerce (woocommerce)",
      reference,
      "shipment",
      "Given up",
      "1",
      expect.stringMatching(/^The shop refused the credentials \(401 on POST/),
      expect.any(String),
      "0",
    ]);
    await expectAccessible(operator);
    await operator.goto("/operator/pipeline");
    expect(await operator.getByRole("link", { name: "Failing writes into shops" }).isVisible()).toBe(true);
    await expectAccessible(operator);
    await page.goto(`/console/orders/${reference}`);

    await page.getByRole("button", { name: `Try again: write-back #${parked.id}` }).click();
    await page.waitForURL(`**/console/orders/${reference}#in-the-shop`);
    expect(await page.locator(".flash").innerText()).toBe(`Write-back #${parked.id} will be tried again.`);
    await until(async () => {
      const list = (await api(shop, "GET", `/api/v1/orders/${reference}/shop-sync`)).json.data as { status: string }[];
      return list.length === 2 && list.every((w) => w.status === "done") ? list : null;
    }, "the write-backs to be written");
    await page.reload();
    expect(await shopColumn(page, "Status")).toEqual(["Written", "Written"]);
    expect(await page.getByRole("button", { name: /^Try again/ }).count()).toBe(0);
    expect((await held(wc)).trackings.map((t) => t.tracking_number)).toEqual(["3SABC123"]);
    expect((await held(wc)).status).toBe("completed");
    await expectAccessible(page);
    expect(readWorkerDb<{ n: number }>("SELECT count(*) AS n FROM shop_write_backs WHERE account_id = ?", [shop.accountId])[0].n).toBe(2);
  });
});
