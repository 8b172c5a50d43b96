// Where a connection may point, in the console: every form that takes an outbound address (a shop
// connection, a feed and its URL preview, a supplier's webhook, an event webhook) refuses the
// metadata address, its numeric forms and private networks beside the field, with the API's words,
// keeping what was typed and storing nothing. With axe on every refused form.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, createShop, expectAccessible, expectRefusedBeside, newPage, signInShop, type Shop } from "../browser/console";

let shop: Shop;
let page: Page;

const METADATA = "points to 169.254.169.254, a cloud metadata address, which is never reached.";
const PRIVATE =
  "a private network address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7, fec0::/10, or a name only a private network resolves), reached only where the operator set ALLOW_PRIVATE_NETWORKS.";

beforeAll(async () => {
  shop = await createShop();
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(async () => {
  await closeBrowser();
});

const count = async (path: string) => (await api(shop, "GET", path)).json.data.length as number;

describe("outbound addresses in the console", () => {
  it("a shop connection's address", async () => {
    await page.goto("/console/shop-connections");
    await page.getByRole("button", { name: "New shop connection" }).click();
    await page.getByLabel("Platform").selectOption("woocommerce");
    await page.getByLabel("Consumer key").waitFor();
    await page.getByLabel("Name").fill("Metadata");
    await page.getByLabel("Shop address").fill("https://169.254.169.254");
    await page.getByLabel("Consumer key").fill("ck_x");
    await page.getByLabel("Consumer secret").fill("cs_x");
    await page.getByRole("button", { name: "Create shop connection" }).click();
    await expectRefusedBeside(page, "field-base_url", `The Shop address field ${METADATA}`);
    expect(await page.getByLabel("Shop address").inputValue()).toBe("https://169.254.169.254");
    await expectAccessible(page);
    expect(await count("/api/v1/shop-connections")).toBe(0);
  });

  it("a feed's URL, saved or previewed: the preview fetches nothing", async () => {
    const supplier = (await api(shop, "POST", "/api/v1/suppliers", { name: "Acme", channel: "manual" })).json;
    await page.goto("/console/catalogue/feeds/new");
    await page.getByLabel("Supplier").selectOption(String(supplier.id));
    await page.getByLabel("Name", { exact: true }).fill("Metadata feed");
    await page.getByLabel("URL", { exact: true }).fill("http://169.254.169.254/latest/meta-data/");
    await page.getByRole("button", { name: "Preview the URL's first rows" }).click();
    await expect.poll(() => page.locator("#feed-preview .form-error").count()).toBe(1);
    expect(await page.locator("#feed-preview .form-error").innerText()).toBe(`The URL field ${METADATA}`);
    await page.getByRole("button", { name: "Create feed" }).click();
    await page.waitForLoadState();
    await expectRefusedBeside(page, "field-url", `The URL field ${METADATA}`);
    await expectAccessible(page);
    expect(await count("/api/v1/product-feeds")).toBe(0);
  });

  it("a supplier's webhook URL, in decimal", async () => {
    await page.goto("/console/suppliers");
    await page.getByRole("button", { name: "New supplier" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Decimal hook");
    await page.getByRole("radio", { name: /^Webhook/ }).check();
    await page.getByLabel("Webhook URL").fill("https://2852039166/orders");
    await page.getByRole("button", { name: "Create supplier" }).click();
    await expectRefusedBeside(page, "field-webhook_url", `The Webhook URL field ${METADATA}`);
    expect(await page.getByLabel("Webhook URL").inputValue()).toBe("https://2852039166/orders");
    await expectAccessible(page);
    expect((await api(shop, "GET", "/api/v1/suppliers")).json.data.map((s: { name: string }) => s.name)).not.toContain("Decimal hook");
  });

  it("an event webhook's endpoint on a private network", async () => {
    await page.goto("/console/webhooks");
    await page.getByRole("button", { name: "New webhook" }).click();
    await page.getByLabel("Endpoint URL").fill("https://10.0.0.1/hooks");
    await page.getByRole("checkbox", { name: "order.created" }).check();
    await page.getByRole("button", { name: "Create webhook" }).click();
    await expectRefusedBeside(page, "field-url", `The Endpoint URL field points to 10.0.0.1, ${PRIVATE}`);
    await expectAccessible(page);
    expect(await count("/api/v1/webhooks")).toBe(0);
  });
});
