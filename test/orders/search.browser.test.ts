// The orders page's search box, sortable columns and CSV export in a real browser, on the demo data
// of npm start, each agreeing with GET /api/v1/orders (q, sort) and GET /api/v1/orders/export; axe on each view.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo, type DemoReferences } from "../../scripts/lib/demo-data.mjs";
import { api, BASE, closeBrowser, columnTexts, createShop, expectAccessible, newPage, signInShop, type Shop } from "../browser/console";

let shop: Shop;
let refs: DemoReferences;
let page: Page;

beforeAll(async () => {
  shop = await createShop("Demo shop");
  refs = (await seedDemo(BASE, shop)).references;
  // One more customer, to be found by name, e-mail and postcode.
  const other = { first_name: "Anna", last_name: "de Vries", address1: "Oudegracht 1", postcode: "3511 AB", city: "Utrecht", country: "NL" };
  const created = await api(shop, "POST", "/api/v1/orders", {
    external_id: "SHOP-9001",
    source: "Demo webshop",
    total: 15,
    email: "Anna.de.Vries@example.com",
    shipping_address: other,
    products: [{ external_id: "CARD-1", name: "Card", quantity: 1, price: 15 }],
  });
  refs = { ...refs, anna: String(created.json.reference) } as DemoReferences & { anna: string };
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(closeBrowser);

const anna = () => (refs as DemoReferences & { anna: string }).anna;
const references = async (query: string) => (await api(shop, "GET", `/api/v1/orders?${query}`)).json.data.map((o: { reference: string }) => o.reference) as string[];

describe("the orders page's search", () => {
  it("finds an order by its reference, a customer's name, e-mail or postcode from one box labelled Search", async () => {
    await page.goto("/console/orders");
    const search = page.getByLabel("Search", { exact: true });
    await search.fill(refs.failed);
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(/[?&]q=/);
    await page.waitForFunction(() => document.querySelectorAll("tbody tr").length === 1);
    expect(await columnTexts(page, "Reference")).toEqual([refs.failed]);
    expect(new URL(page.url()).searchParams.get("q")).toBe(refs.failed);
    await expectAccessible(page);

    for (const [typed, found] of [
      ["anna de vries", [anna()]],
      ["ANNA.DE.VRIES@EXAMPLE.COM", [anna()]],
      ["3511ab", [anna()]],
      ["DEMO-1003", [refs.answered]],
    ] as const) {
      await page.goto("/console/orders");
      await page.getByLabel("Search", { exact: true }).fill(typed);
      await page.getByRole("button", { name: "Apply filters" }).click();
      await page.waitForURL((url) => url.searchParams.get("q") === typed);
      await page.waitForFunction((n) => document.querySelectorAll("tbody tr").length === n, found.length);
      expect(await columnTexts(page, "Reference"), typed).toEqual([...found]);
      expect(await references(`q=${encodeURIComponent(typed)}`)).toEqual([...found]);
    }
    // Jansen is every demo order's customer: the search agrees with the API, page for page.
    await page.goto("/console/orders?q=Jansen");
    expect(await columnTexts(page, "Reference")).toEqual(await references("q=Jansen"));
    expect(await page.getByLabel("Search", { exact: true }).inputValue()).toBe("Jansen");
  });

  it("finds an order by the start of a customer's name or e-mail, and says so about the search when it finds nothing", async () => {
    for (const [typed, found] of [
      ["Anna de", [anna()]],
      ["anna.de.v", [anna()]],
      ["de vri", [anna()]],
      ["utrec", [anna()]],
    ] as const) {
      await page.goto("/console/orders");
      await page.getByLabel("Search", { exact: true }).fill(typed);
      await page.getByRole("button", { name: "Apply filters" }).click();
      await page.waitForURL((url) => url.searchParams.get("q") === typed);
      await page.waitForFunction((n) => document.querySelectorAll("tbody tr").length === n, found.length);
      expect(await columnTexts(page, "Reference"), typed).toEqual([...found]);
      expect(await references(`q=${encodeURIComponent(typed)}`)).toEqual([...found]);
    }
    await page.goto("/console/orders?q=Zzqx");
    expect(await page.getByRole("heading", { name: "No order matches “Zzqx”", exact: true }).isVisible()).toBe(true);
    expect(await page.locator(".empty-state").innerText()).toContain("by the start (3 characters or more) of its customer's name, company, city or e-mail");
    expect(await page.getByRole("heading", { name: "No orders match these filters" }).count()).toBe(0);
    await expectAccessible(page);
    // With another filter, the way out is the same search over every order.
    await page.goto(`/console/orders?q=${encodeURIComponent("Anna de")}&statuses=skipped`);
    expect(await page.getByRole("heading", { name: "No order matches “Anna de” with these filters" }).isVisible()).toBe(true);
    await page.getByRole("link", { name: "search all orders" }).click();
    await page.waitForURL((url) => url.search === `?q=${encodeURIComponent("Anna de").replace(/%20/g, "+")}`);
    expect(await columnTexts(page, "Reference")).toEqual([anna()]);
  });

  it("shows a search that is too long beside the box, in the API's words", async () => {
    const res = await page.goto(`/console/orders?q=${"x".repeat(256)}`);
    expect(res!.status()).toBe(422);
    expect(await page.locator("#field-q-error").innerText()).toBe("The Search field must not be greater than 255 characters.");
    expect(await page.getByLabel("Search", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await expectAccessible(page);
  });

  it("sorts by Created and Total from the column headers, as the API's sort does, keeping the filters", async () => {
    await page.goto("/console/orders?q=Jansen");
    expect(await page.locator("th", { hasText: "Created" }).getAttribute("aria-sort")).toBe("descending");
    expect(await page.locator("th", { hasText: "Total" }).getAttribute("aria-sort")).toBe("none");
    await page.getByRole("link", { name: "Total", exact: true }).click();
    await page.waitForURL(/sort=-total/);
    expect(new URL(page.url()).searchParams.get("q")).toBe("Jansen");
    expect(await page.locator("th", { hasText: "Total" }).getAttribute("aria-sort")).toBe("descending");
    expect(await page.locator("th", { hasText: "Created" }).getAttribute("aria-sort")).toBe("none");
    expect(await columnTexts(page, "Reference")).toEqual(await references("q=Jansen&sort=-total"));
    // The blocked order (2,999) is the largest.
    expect((await columnTexts(page, "Reference"))[0]).toBe(refs.blocked);
    await expectAccessible(page);

    await page.getByRole("link", { name: "Total", exact: true }).click();
    await page.waitForURL(/sort=total/);
    expect(await page.locator("th", { hasText: "Total" }).getAttribute("aria-sort")).toBe("ascending");
    expect(await columnTexts(page, "Reference")).toEqual(await references("q=Jansen&sort=total"));
    expect(await columnTexts(page, "Reference")).toEqual((await references("q=Jansen&sort=-total")).reverse());

    await page.getByRole("link", { name: "Created", exact: true }).click();
    await page.waitForURL(/sort=-created_at/);
    await page.getByRole("link", { name: "Created", exact: true }).click();
    await page.waitForURL(/sort=created_at/);
    expect(await page.locator("th", { hasText: "Created" }).getAttribute("aria-sort")).toBe("ascending");
    expect(await columnTexts(page, "Reference")).toEqual(await references("q=Jansen&sort=created_at"));
    // Applying another filter keeps the sort.
    await page.getByText("More filters").click();
    await page.getByRole("checkbox", { name: "Include test orders" }).check();
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(/include_test=true/);
    await page.waitForFunction(() => document.querySelectorAll("tbody tr").length === 8);
    expect(new URL(page.url()).searchParams.get("sort")).toBe("created_at");
    expect(await columnTexts(page, "Reference")).toEqual(await references("q=Jansen&sort=created_at&include_test=true"));
    await expectAccessible(page);
  });

  it("exports the filtered list as CSV from its link, the API's export of the same filters", async () => {
    await page.goto("/console/orders?q=Jansen&blocked=false&sort=-total&per_page=2");
    const link = page.getByRole("link", { name: "Export CSV" });
    expect(await link.getAttribute("href")).toBe("/console/orders/export?q=Jansen&blocked=false");
    const res = await page.request.get(`${BASE}${await link.getAttribute("href")}`);
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toBe("text/csv; charset=utf-8");
    const fromApi = await fetch(`${BASE}/api/v1/orders/export?q=Jansen&blocked=false`, { headers: { "api-key": shop.apiKey, "account-id": String(shop.accountId) } });
    const csv = await res.text();
    expect(csv).toBe(await fromApi.text());
    expect(csv.split("\r\n").slice(1, -1).map((row) => row.split(",")[0])).toEqual(await references("q=Jansen&blocked=false"));
  });
});
