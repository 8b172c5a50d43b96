// Shop connections in a real browser, each step checked through the API too: a new connection
// with no platform chosen for the owner (Create without one names it), the chosen platform's fields
// shown at once (htmx), every missing field refused at once beside it, its page showing the
// credentials' hints and never the secret, a test that says the connection was refused, then one
// that reads as a pass when the shop answers, pause and resume, delete behind its confirmation.
// With axe on every page.
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, columnTexts, createShop, expectAccessible, expectRefusedBeside, newPage, screenshot, signInShop, type Shop } from "../browser/console";

let shop: Shop;
let page: Page;
let closedPort: number;
/** A shop's web server that answers every path 404, as many shops answer a bare client on /. */
let answering: Server;
let answeringUrl: string;

const SECRET = "cs_browser_0a9b8c7d6e5f4a3b2c1d0e9f8a7bWX56";
const KEY = "ck_browser_1b2c3d4e5f6a7b8c9d0e1f2a3b4cYZ78";

/** A loopback port nothing listens on: taken, then given back. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  closedPort = await freePort();
  answering = createHttpServer((_, res) => res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>"));
  await new Promise<void>((resolve) => answering.listen(0, "127.0.0.1", resolve));
  answeringUrl = `http://127.0.0.1:${(answering.address() as { port: number }).port}`;
  shop = await createShop();
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(async () => {
  await closeBrowser();
  await new Promise((resolve) => answering.close(resolve));
});

const flash = () => page.locator(".flash").innerText();

describe("the shop-connection pages", () => {
  let id: number;

  it("choose no platform for the owner: Create without one names it, and nothing is created", async () => {
    await page.goto("/console");
    await page.getByRole("link", { name: "Shop connections" }).click();
    expect(await page.getByRole("heading", { name: "No shop connections yet" }).isVisible()).toBe(true);
    await expectAccessible(page);
    await page.getByRole("button", { name: "New shop connection" }).click();
    expect(await page.getByLabel("Platform").inputValue()).toBe("");
    expect(await page.locator("#platform-fields").innerText()).toBe("Choose the shop's platform above: its credentials and settings appear here.");
    await page.getByRole("button", { name: "Create shop connection" }).click();
    await expectRefusedBeside(page, "field-platform", "The Platform field is required: choose WooCommerce, Shopware 6, Magento 2, PrestaShop or Shopify.");
    await expectRefusedBeside(page, "field-name", "The Name field is required.");
    await expectRefusedBeside(page, "field-base_url", "The Shop address field is required.");
    expect((await api(shop, "GET", "/api/v1/shop-connections")).json.data).toEqual([]);
    await expectAccessible(page);
  });

  it("show the chosen platform's fields at once, and name every missing credential in one answer", async () => {
    await page.getByLabel("Platform").selectOption("magento");
    await page.getByLabel("Access token").waitFor();
    expect(await page.getByRole("group", { name: "Magento 2 credentials" }).isVisible()).toBe(true);
    expect(await page.getByLabel("How stock is written").isVisible()).toBe(true);
    expect(await page.getByLabel("Consumer key").count()).toBe(0);
    await expectAccessible(page);
    await page.getByLabel("Platform").selectOption("woocommerce");
    await page.getByLabel("Consumer secret").waitFor();
    expect(await page.getByLabel("Access token").count()).toBe(0);

    await page.getByLabel("Name").fill("Our WooCommerce");
    await page.getByLabel("Shop address").fill("http://shop.example.com");
    await page.getByRole("button", { name: "Create shop connection" }).click();
    await expectRefusedBeside(
      page,
      "field-base_url",
      "The Shop address field must be an https URL; plain http is taken only for a shop on this machine (localhost, 127.0.0.0/8 or [::1]), as in local development.",
    );
    await expectRefusedBeside(page, "field-credentials-consumer_key", "The Consumer key field is required.");
    await expectRefusedBeside(page, "field-credentials-consumer_secret", "The Consumer secret field is required.");
    expect(await page.getByLabel("Platform").inputValue()).toBe("woocommerce");
    expect((await api(shop, "GET", "/api/v1/shop-connections")).json.data).toEqual([]);
    await expectAccessible(page);
  });

  it("create a WooCommerce connection and show the hints, never the secret", async () => {
    await page.getByLabel("Shop address").fill("http://shop.example.com");
    await page.getByLabel("Consumer key").fill(KEY);
    await page.getByLabel("Consumer secret").fill(SECRET);
    await page.getByRole("button", { name: "Create shop connection" }).click();
    await page.locator("#field-base_url-error").waitFor();
    expect(await page.content()).not.toContain(SECRET);

    await page.getByLabel("Shop address").fill(`http://127.0.0.1:${closedPort}/`);
    await page.getByLabel("Consumer key").fill(KEY);
    await page.getByLabel("Consumer secret").fill(SECRET);
    await page.getByLabel("Mode").selectOption("dry_run");
    await page.getByRole("button", { name: "Create shop connection" }).click();
    await page.waitForURL(/\/console\/shop-connections\/\d+$/);
    id = Number(new URL(page.url()).pathname.split("/").pop());
    expect(await flash()).toBe("Shop connection created. Test it to see that the shop answers and takes the credentials.");
    expect(await page.locator("dl.facts").innerText()).toContain("Consumer key …YZ78 · Consumer secret …WX56");
    const html = await page.content();
    expect(html).not.toContain(SECRET);
    expect(html).not.toContain(KEY);
    expect((await api(shop, "GET", `/api/v1/shop-connections/${id}`)).json).toMatchObject({
      platform: "woocommerce",
      base_url: `http://127.0.0.1:${closedPort}`,
      credentials: { consumer_key: "…YZ78", consumer_secret: "…WX56" },
      settings: { mode: "dry_run" },
      active: true,
    });
    await expectAccessible(page);
  });

  it("tests the connection and says the connection was refused", async () => {
    await page.getByRole("button", { name: "Test the connection" }).click();
    await page.waitForURL(`**/console/shop-connections/${id}`);
    expect(await flash()).toBe("Test failed: see the checks below.");
    expect(await page.locator("ul.checks").innerText()).toBe(`Failed connection: The connection to 127.0.0.1:${closedPort} was refused: nothing listens on port ${closedPort} there.`);
    await screenshot(page, "shop-connection");
    await expectAccessible(page);
  });

  it("says a shop that answers was reached, in words that read as a pass", async () => {
    await page.getByLabel("Shop address").fill(answeringUrl);
    await page.getByRole("button", { name: "Save shop connection" }).click();
    await page.waitForURL(`**/console/shop-connections/${id}`);
    await page.getByRole("button", { name: "Test the connection" }).click();
    await page.waitForURL(`**/console/shop-connections/${id}`);
    const checks = await page.locator("ul.checks li").allInnerTexts();
    expect(checks[0]).toBe(`Passed connection: Reached ${answeringUrl}: the shop's server answered (404 on its home page is expected here; its API is checked next).`);
    await expectAccessible(page);
  });

  it("pauses and resumes, as the list and the API show", async () => {
    await page.getByRole("button", { name: "Pause the shop connection" }).click();
    await page.waitForURL(`**/console/shop-connections/${id}`);
    expect(await flash()).toBe("Shop connection paused: nothing is written to the shop until it is resumed.");
    expect((await api(shop, "GET", `/api/v1/shop-connections/${id}`)).json.active).toBe(false);
    await page.goto("/console/shop-connections");
    expect(await columnTexts(page, "State")).toEqual(["Paused"]);
    expect(await columnTexts(page, "Mode")).toEqual(["Dry run"]);
    expect(await columnTexts(page, "Sources")).toEqual(["Every order"]);
    await expectAccessible(page);
    await page.getByRole("link", { name: "Our WooCommerce" }).click();
    await page.getByRole("button", { name: "Resume the shop connection" }).click();
    await page.waitForURL(`**/console/shop-connections/${id}`);
    expect((await api(shop, "GET", `/api/v1/shop-connections/${id}`)).json.active).toBe(true);
  });

  it("deletes behind its confirmation: gone from the list and the API", async () => {
    await page.getByRole("button", { name: "Delete…" }).click();
    await page.getByRole("button", { name: "Delete the shop connection" }).click();
    await page.waitForURL(/\/console\/shop-connections$/);
    expect(await flash()).toBe("Shop connection deleted: nothing more is written through it.");
    expect(await page.getByRole("heading", { name: "No shop connections yet" }).isVisible()).toBe(true);
    expect((await api(shop, "GET", `/api/v1/shop-connections/${id}`)).status).toBe(404);
    const gone = await page.goto(`/console/shop-connections/${id}`);
    expect(gone!.status()).toBe(404);
  });
});
