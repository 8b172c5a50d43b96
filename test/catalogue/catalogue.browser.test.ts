// The shop's catalogue in a real browser, each action checked afterwards through the API: the feeds
// with schedule and latest import, uploading CSV, JSON and XML files from the browser (streamed into
// the same import as the API's push), the import history with each rejected row and its reason,
// pulling the URL now, the product search with the API's filters; another account's feed is the
// same 404 page as an unknown one; a forged CSRF token on the upload imports nothing; a file server
// feed's login shown without its secret.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, BASE, closeBrowser, columnTexts, createShop, expectAccessible, newPage, screenshot, signInShop, type Shop } from "../browser/console";

let shop: Shop;
let page: Page;
let feed: { id: number };

beforeAll(async () => {
  shop = await createShop();
  const supplier = (await api(shop, "POST", "/api/v1/suppliers", { name: "Tuinhout", channel: "manual" })).json;
  feed = (await api(shop, "POST", "/api/v1/product-feeds", { supplier_id: supplier.id, name: "Garden stock", format: "csv", url: `${BASE}/no-such-feed.csv`, schedule: "daily" })).json;
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(closeBrowser);

const flash = () => page.locator(".flash").innerText();
const imports = async () => (await api(shop, "GET", `/api/v1/product-feeds/${feed.id}/imports`)).json.data;

async function upload(name: string, mimeType: string, content: string, replace = false) {
  await page.goto(`/console/catalogue/feeds/${feed.id}`);
  if (replace) await page.getByRole("checkbox", { name: /^Full sync/ }).check();
  await page.getByLabel(/^File/).setInputFiles({ name, mimeType, buffer: Buffer.from(content) });
  await page.getByRole("button", { name: "Upload and import" }).click();
  await page.waitForURL(`**/console/catalogue/feeds/${feed.id}`);
}

describe("the catalogue pages", () => {
  it("upload a CSV with a bad row: imported, the rejected row listed with its reason, as the API shows", async () => {
    await upload("stock.csv", "text/csv", "sku,name,purchase_price,stock_quantity\nCHAIR-1,Garden chair,39.50,12\n,No SKU,1.00,1\nTABLE-1,Garden table,abc,3\n");
    expect(await flash()).toBe("stock.csv imported: 3 read: 1 new, 0 changed, 0 unchanged, 0 deactivated, 2 rejected.");
    const [record] = await imports();
    expect(record).toMatchObject({ trigger: "push", status: "succeeded", created: 1, rejected: 2, source: "upload (csv)" });
    const card = page.locator("article.import").first();
    expect(await card.locator("tbody tr").allInnerTexts()).toEqual(
      record.rejections.map((r: { line: number; sku: string | null; reason: string }) => `${r.line}\t${r.sku ?? "—"}\t${r.reason}`),
    );
    expect(record.rejections.map((r: { line: number }) => r.line)).toEqual([3, 4]);
    await screenshot(page, "catalogue-feed");
    await expectAccessible(page);
  });

  it("upload JSON and XML files, a full sync deactivating what the file no longer lists", async () => {
    await upload("stock.json", "application/json", JSON.stringify([{ sku: "CHAIR-1", name: "Garden chair", purchase_price: 41 }, { sku: "BENCH-1", name: "Bench", purchase_price: 120 }]));
    expect(await flash()).toBe("stock.json imported: 2 read: 1 new, 1 changed, 0 unchanged, 0 deactivated, 0 rejected.");
    await upload("stock.xml", "text/xml", "<products><product><sku>BENCH-1</sku><name>Bench</name><purchase_price>120</purchase_price></product></products>", true);
    expect(await flash()).toBe("stock.xml imported: 1 read: 0 new, 0 changed, 1 unchanged, 1 deactivated, 0 rejected.");
    const products = (await api(shop, "GET", "/api/v1/products")).json.data.map((p: { sku: string; active: number }) => [p.sku, p.active]);
    expect(products).toEqual([
      ["CHAIR-1", 0],
      ["BENCH-1", 1],
    ]);
  });

  it("says why a file or a pull fails, changing nothing", async () => {
    await upload("broken.json", "application/json", "{ not json");
    expect(await flash()).toMatch(/^broken\.json was not imported: /);
    await page.getByRole("button", { name: "Pull the URL now" }).click();
    await page.waitForURL(`**/console/catalogue/feeds/${feed.id}`);
    expect(await flash()).toMatch(/^The URL was not imported: .*404/);
    expect((await imports()).slice(0, 2).map((i: { status: string; trigger: string }) => [i.trigger, i.status])).toEqual([
      ["manual", "failed"],
      ["push", "failed"],
    ]);
    expect((await api(shop, "GET", "/api/v1/products?active=true")).json.total).toBe(1);
  });

  it("lists the feeds with schedule and latest import", async () => {
    await page.goto("/console/catalogue");
    expect(await columnTexts(page, "Feed")).toEqual(["Garden stock"]);
    expect(await columnTexts(page, "Schedule")).toEqual(["daily"]);
    expect((await columnTexts(page, "Latest import"))[0]).toMatch(/^Failed/);
    await screenshot(page, "catalogue");
    await expectAccessible(page);
  });

  it("searches products with the API's filters, and refuses a bad one beside its field", async () => {
    await page.goto("/console/catalogue/products?search=garden");
    expect(await columnTexts(page, "SKU")).toEqual(["CHAIR-1"]);
    await page.goto(`/console/catalogue/products?active=true&product_feed_id=${feed.id}`);
    expect(await columnTexts(page, "SKU")).toEqual(["BENCH-1"]);
    expect(await page.getByLabel("Feed").inputValue()).toBe(String(feed.id));
    await page.getByLabel("SKU").fill("CHAIR-1");
    await page.getByLabel("State").selectOption("");
    await page.getByRole("button", { name: "Search" }).click();
    expect(await columnTexts(page, "SKU")).toEqual(["CHAIR-1"]);
    const res = await page.goto("/console/catalogue/products?ean13=12");
    expect(res!.status()).toBe(422);
    expect(await page.locator("#field-ean13-error").innerText()).toBe("The EAN field must be 8 to 14 digits.");
    expect(await page.getByLabel("EAN").inputValue()).toBe("12");
    await expectAccessible(page);
  });

  it("shows a file server feed's login without its secret", async () => {
    const fingerprint = "SHA256:" + "A".repeat(43);
    const sftpFeed = (
      await api(shop, "POST", "/api/v1/product-feeds", {
        supplier_id: (await api(shop, "GET", `/api/v1/product-feeds/${feed.id}`)).json.supplier_id,
        name: "Garden stock by SFTP",
        format: "csv",
        url: "sftp://sftp.tuinhout.example/out/stock.csv",
        credentials: { username: "stock", password: "feed-hunter2", host_key_fingerprint: fingerprint },
      })
    ).json;
    await page.goto(`/console/catalogue/feeds/${sftpFeed.id}`);
    const facts = page.locator("dl.facts");
    expect(await facts.locator("dt", { hasText: "Login" }).locator("xpath=following-sibling::dd[1]").innerText()).toBe(
      `stock (password stored, never shown), host key ${fingerprint}`,
    );
    expect(await page.content()).not.toContain("feed-hunter2");
    await page.goto(`/console/catalogue/feeds/${sftpFeed.id}/edit`);
    expect(await page.content()).not.toContain("feed-hunter2");
    await expectAccessible(page);
  });

  it("shows another account's feed as the same 404 page as an unknown one, refuses a forged CSRF token, and fits 360 px", async () => {
    const other = await createShop();
    const s = (await api(other, "POST", "/api/v1/suppliers", { name: "Theirs", channel: "manual" })).json;
    const theirs = (await api(other, "POST", "/api/v1/product-feeds", { supplier_id: s.id, name: "Theirs", format: "csv" })).json;
    const res = await page.goto(`/console/catalogue/feeds/${theirs.id}`);
    const text = await page.locator("main").innerText();
    const unknown = await page.goto("/console/catalogue/feeds/999999999");
    expect([res!.status(), unknown!.status()]).toEqual([404, 404]);
    expect(text).toBe(await page.locator("main").innerText());

    const before = (await imports()).length;
    await page.goto(`/console/catalogue/feeds/${feed.id}`);
    await page.locator('form[enctype] input[name="_csrf"]').evaluate((input) => ((input as HTMLInputElement).value = "forged"));
    await page.getByLabel(/^File/).setInputFiles({ name: "x.csv", mimeType: "text/csv", buffer: Buffer.from("sku,name\nX,Y\n") });
    await page.getByRole("button", { name: "Upload and import" }).click();
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Request refused");
    expect((await imports()).length).toBe(before);

    const phone = await newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await signInShop(phone, shop);
    for (const path of ["/console/catalogue", `/console/catalogue/feeds/${feed.id}`, "/console/catalogue/products"]) {
      await phone.goto(path);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(360);
    }
    await expectAccessible(phone);
  });
});
