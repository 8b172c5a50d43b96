// Setting a feed up in the console, each step checked through the API: a new feed whose column
// mapping is tried on a pasted sample first (htmx swaps in the rows as they would import, nothing
// saved), an edit of the mapping previewed on the url's first rows, an uploaded file's unmapped
// columns shown as a warning on the feed page, a file that maps nothing but the SKU refused; the
// form refuses bad input beside its fields, the preview works without JavaScript, and both forms fit 360 px.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, columnTexts, createShop, expectAccessible, newPage, screenshot, signInShop, type Shop } from "../browser/console";

let shop: Shop;
let page: Page;
let supplier: { id: number };
let server: Server;
let fileUrl: string;

beforeAll(async () => {
  shop = await createShop();
  supplier = (await api(shop, "POST", "/api/v1/suppliers", { name: "Acme", channel: "manual" })).json;
  // The supplier's file server: a CSV with its own column names.
  server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/csv" }).end("Code;Title;Prijs\nB-1;Bowl;2,50\nB-2;Cup;1,25\n"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fileUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stock.csv`;
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await closeBrowser();
});

const flash = () => page.locator(".flash").innerText();
const feeds = async () => (await api(shop, "GET", "/api/v1/product-feeds")).json.data;
const preview = () => page.locator("#feed-preview");

async function showPreview(button: string) {
  const before = await page.locator("#feed-preview").innerHTML();
  await page.getByRole("button", { name: button }).click();
  await page.waitForFunction((html) => document.querySelector("#feed-preview")?.innerHTML !== html, before);
}

describe("setting a feed up in the console", () => {
  it("creates a feed whose mapping was first tried on a pasted sample", async () => {
    await page.goto("/console/catalogue");
    await page.getByRole("button", { name: "New feed" }).click();
    await page.waitForURL("**/console/catalogue/feeds/new");
    await page.getByLabel("Supplier").selectOption({ label: "Acme" });
    await page.getByLabel("Name", { exact: true }).fill("Acme stock");
    await page.getByLabel("Sample: the file's first lines").fill("sku;name;ean;price;stock\nA-1;Mug;8712345678906;4,95;12\nA-2;Plate;;abc;0\n");

    await showPreview("Preview the sample");
    expect(await preview().locator(".callout.warning").innerText()).toBe(
      "Not imported: the file's columns 'ean', 'price', 'stock' map to no product field. Product fields the file left empty: ean13, purchase_price, stock_quantity, active; name their columns in the feed's mapping.",
    );
    expect(await columnTexts(page, "SKU")).toEqual(["A-1", "A-2"]);
    expect(await columnTexts(page, "Purchase price")).toEqual(["—", "—"]);

    await page.getByLabel("EAN from").fill("ean");
    await page.getByLabel("Purchase price from").fill("price");
    await page.getByLabel("Stock from").fill("stock");
    await showPreview("Preview the sample");
    expect(await preview().locator(".callout").count()).toBe(0);
    expect(await columnTexts(page, "EAN")).toEqual(["8712345678906", ""]);
    expect(await columnTexts(page, "Purchase price")).toEqual(["4.95 EUR", ""]);
    expect(await columnTexts(page, "Stock")).toEqual(["12", ""]);
    expect(await columnTexts(page, "Rejected because")).toEqual(["", "The column 'price' (purchase_price) must be a number."]);
    expect(await feeds()).toEqual([]);
    await screenshot(page, "catalogue-feed-preview");
    await expectAccessible(page);

    await page.getByRole("button", { name: "Create feed" }).click();
    await page.waitForURL(/\/console\/catalogue\/feeds\/\d+$/);
    expect(await flash()).toBe("Feed “Acme stock” created.");
    expect(await feeds()).toEqual([
      expect.objectContaining({
        supplier_id: supplier.id,
        name: "Acme stock",
        format: "csv",
        mapping: { ean13: "ean", purchase_price: "price", stock_quantity: "stock" },
        url: null,
        schedule: null,
        active: true,
      }),
    ]);
  });

  it("shows an upload's unmapped columns on the feed page, then edits the mapping previewed on the url's first rows", async () => {
    const feed = (await api(shop, "POST", "/api/v1/product-feeds", { supplier_id: supplier.id, name: "Acme pull", format: "csv", mapping: { sku: "Code", name: "Title" } })).json;
    await page.goto(`/console/catalogue/feeds/${feed.id}`);
    await page.getByLabel(/^File/).setInputFiles({ name: "stock.csv", mimeType: "text/csv", buffer: Buffer.from("Code;Title;Prijs\nB-1;Bowl;2,50\n") });
    await page.getByRole("button", { name: "Upload and import" }).click();
    await page.waitForURL(`**/console/catalogue/feeds/${feed.id}`);
    const warning =
      "Not imported: the file's column 'Prijs' maps to no product field. Product fields the file left empty: ean13, purchase_price, stock_quantity, active; name their columns in the feed's mapping.";
    expect(await flash()).toBe(`stock.csv imported: 1 read: 1 new, 0 changed, 0 unchanged, 0 deactivated, 0 rejected. ${warning}`);
    const card = page.locator("article.import").first();
    expect(await card.locator(".callout.warning").innerText()).toBe(warning);
    expect(await card.locator(".badges").innerText()).toMatch(/^Succeeded\s+1 not mapped$/);
    const [record] = (await api(shop, "GET", `/api/v1/product-feeds/${feed.id}/imports`)).json.data;
    expect([record.unmapped_columns, record.warnings]).toEqual([["Prijs"], [warning]]);
    await expectAccessible(page);

    await page.getByRole("button", { name: "Edit settings and mapping" }).click();
    await page.waitForURL(`**/console/catalogue/feeds/${feed.id}/edit`);
    expect(await page.getByLabel("SKU from").inputValue()).toBe("Code");
    await page.getByLabel("Purchase price from").fill("Prijs");
    await page.getByLabel("URL", { exact: true }).fill(fileUrl);
    await showPreview("Preview the URL's first rows");
    expect(await columnTexts(page, "SKU")).toEqual(["B-1", "B-2"]);
    expect(await columnTexts(page, "Name")).toEqual(["Bowl", "Cup"]);
    expect(await columnTexts(page, "Purchase price")).toEqual(["2.50 EUR", "1.25 EUR"]);
    expect((await api(shop, "GET", `/api/v1/product-feeds/${feed.id}`)).json.mapping).toEqual({ sku: "Code", name: "Title" });
    await expectAccessible(page);

    await page.getByLabel("Schedule", { exact: true }).fill("6h");
    await page.getByRole("button", { name: "Save feed" }).click();
    await page.waitForURL(`**/console/catalogue/feeds/${feed.id}`);
    expect(await flash()).toBe("Feed “Acme pull” saved.");
    expect(await api(shop, "GET", `/api/v1/product-feeds/${feed.id}`)).toMatchObject({
      status: 200,
      json: { mapping: { sku: "Code", name: "Title", purchase_price: "Prijs" }, url: fileUrl, schedule: "6h" },
    });
  });

  it("refuses a file that maps nothing but the SKU, saying which columns it expected", async () => {
    const feed = (await api(shop, "POST", "/api/v1/product-feeds", { supplier_id: supplier.id, name: "Acme refused", format: "csv" })).json;
    await page.goto(`/console/catalogue/feeds/${feed.id}`);
    await page.getByLabel(/^File/).setInputFiles({ name: "own.csv", mimeType: "text/csv", buffer: Buffer.from("sku;ean;price;stock\nA-1;8712345678906;4,95;12\n") });
    await page.getByRole("button", { name: "Upload and import" }).click();
    await page.waitForURL(`**/console/catalogue/feeds/${feed.id}`);
    const error =
      "No column of the file maps to a product field other than sku, so its products would have no name, price or stock; nothing was changed. " +
      "Expected columns: 'sku', 'ean13', 'name', 'purchase_price', 'stock_quantity', 'active'; or set the feed's mapping to the file's own names. Columns found: 'sku', 'ean', 'price', 'stock'.";
    expect(await flash()).toBe(`own.csv was not imported: ${error}`);
    expect(await page.locator("article.import").first().locator(".callout").innerText()).toBe(error);
    expect((await api(shop, "GET", `/api/v1/products?product_feed_id=${feed.id}`)).json.total).toBe(0);
  });

  it("refuses bad input beside its fields, keeping what was typed, and previews without JavaScript", async () => {
    await page.goto("/console/catalogue/feeds/new");
    await page.getByLabel("Name", { exact: true }).fill("No supplier");
    await page.getByLabel("Schedule", { exact: true }).fill("every day");
    const response = page.waitForResponse((r) => r.request().method() === "POST");
    await page.getByRole("button", { name: "Create feed" }).click();
    expect((await response).status()).toBe(422);
    await page.waitForLoadState();
    expect(await page.locator("#field-supplier_id-error").innerText()).toBe("The Supplier field is required.");
    expect(await page.locator("#field-schedule-error").innerText()).toBe(
      "The Schedule field must be hourly, daily, weekly or an interval such as 30m, 6h or 2d (from 15m to 30d).",
    );
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("No supplier");
    expect((await feeds()).map((f: { name: string }) => f.name)).not.toContain("No supplier");
    await expectAccessible(page);

    const plain = await newPage({ javaScriptEnabled: false });
    await signInShop(plain, shop);
    await plain.goto("/console/catalogue/feeds/new");
    await plain.getByLabel("Format").selectOption("json");
    await plain.getByLabel("Sample: the file's first lines").fill('[{"sku": "J-1", "title": "Jug", "price": {"net": 3.5}}]');
    await plain.getByLabel("Name from").fill("title");
    await plain.getByLabel("Purchase price from").fill("price.net");
    await plain.getByRole("button", { name: "Preview the sample" }).click();
    await plain.waitForLoadState();
    expect(await columnTexts(plain, "Name")).toEqual(["Jug"]);
    expect(await columnTexts(plain, "Purchase price")).toEqual(["3.50 EUR"]);
    expect(await plain.getByLabel("Name from").inputValue()).toBe("title");

    const phone = await newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await signInShop(phone, shop);
    const [feed] = await feeds();
    for (const path of ["/console/catalogue/feeds/new", `/console/catalogue/feeds/${feed.id}/edit`]) {
      await phone.goto(path);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(360);
    }
    await expectAccessible(phone);
  });

  it("a sample larger than a form may be is said in the preview's place, and the next preview still lands there", async () => {
    await page.goto("/console/catalogue/feeds/new");
    const sample = page.getByLabel("Sample: the file's first lines");
    // 1.2 MB of rows, pasted (typing them would take minutes): past the 1 MiB a console form may be.
    await sample.evaluate((area) => ((area as HTMLTextAreaElement).value = "sku,name\n" + "A1,Lamp\n".repeat(150_000)));
    const [refused] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/feeds/new") && r.request().method() === "POST"), page.getByRole("button", { name: "Preview the sample" }).click()]);
    expect(refused.status()).toBe(413);
    await preview().locator(".callout").waitFor();
    expect(await preview().innerText()).toBe("Too large: What the form sent is larger than 1 MiB, more than the console takes: nothing was saved.");
    expect(await page.getByRole("heading", { level: 1 }).allInnerTexts()).toEqual(["New feed"]);
    await expectAccessible(page);

    await sample.fill("sku,name\nA1,Lamp\n");
    await showPreview("Preview the sample");
    expect(await columnTexts(page, "SKU")).toEqual(["A1"]);
  });
});
