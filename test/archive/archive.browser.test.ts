// Archived orders in the console, in a real browser (docs/archive.md, "The console"): the orders list
// shows them beside the live ones when asked, marked "Archived" and without a bulk checkbox, and the
// order page opens one read-only from R2 with the same lines and sends as its live page showed.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { admin, api, closeBrowser, createShop, expectAccessible, newPage, pulledOrder, pullSupplier, signInShop, supplierApi, until, type Shop } from "../browser/console";

let shop: Shop;
let page: Page;

beforeAll(async () => {
  shop = await createShop();
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(closeBrowser);

describe("archived orders in the console", () => {
  it("lists them marked when asked, and opens one read-only with what its live page showed", async () => {
    const supplier = await pullSupplier(shop, "Vazenhuis", "vases");
    const finished = await pulledOrder(shop, "vases", [{ name: "Vase", quantity: 2 }]);
    const shipped = await supplierApi(supplier.key, "POST", "/api/v1/supplier/answers", {
      answers: [{ line_id: finished.lineIds[0], action: "ship", quantity: 2, carrier: "PostNL", tracking_number: "3SVASE" }],
    });
    expect(shipped.status, shipped.text).toBe(200);
    await until(async () => (await api(shop, "GET", `/api/v1/orders/${finished.reference}`)).json.order_lines[0].current_status === "completed", "the vase shipped");
    // A live order (awaiting pickup: not finished), created after it.
    const open = await pulledOrder(shop, "vases", [{ name: "Jug", quantity: 1 }]);

    // The live page, as it was before the archive.
    await page.goto(`/console/orders/${finished.reference}`);
    const before = { line: await page.locator("article.line").innerText(), sends: await page.locator("#order-dispatches").innerText() };

    const run = await admin("POST", `/accounts/${shop.accountId}/archive`, { older_than_days: 0 });
    expect(run.json).toMatchObject({ archived: 1 });

    // The list: live ones by default; with "Live and archived", both, the archived one marked and not selectable.
    await page.goto("/console/orders?archived=include");
    expect(await page.locator("#field-archived").inputValue()).toBe("include");
    const row = (reference: string) => page.locator("tbody tr", { has: page.getByRole("link", { name: reference, exact: true }) });
    expect(await page.locator("tbody tr").count()).toBe(2);
    expect(await row(finished.reference).locator(".badge", { hasText: "Archived" }).count()).toBe(1);
    expect(await row(finished.reference).locator("input[type=checkbox]").count()).toBe(0);
    expect(await row(open.reference).locator(".badge", { hasText: "Archived" }).count()).toBe(0);
    expect(await row(open.reference).locator("input[type=checkbox]").count()).toBe(1);
    // A bulk action over the filters would act on the live order alone, and says so by its count.
    expect(await page.getByText("Every order matching the filters (1)").count()).toBe(1);
    await expectAccessible(page);

    // The archived order's page: read-only, saying so, with its line and sends as the live page showed them.
    await row(finished.reference).getByRole("link", { name: finished.reference, exact: true }).click();
    await page.waitForURL(`**/console/orders/${finished.reference}`);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe(`Order ${finished.reference}`);
    expect(await page.locator("main .badges .badge", { hasText: "Archived" }).count()).toBe(1);
    expect(await page.locator("#archived-note").innerText()).toContain("shown read-only");
    expect(await page.locator("main button, main form[method=post]").count()).toBe(0);
    expect(await page.locator("article.line").innerText()).toBe(before.line);
    expect(await page.locator("#order-dispatches").innerText()).toBe(before.sends);
    await expectAccessible(page);
  });
});
