// Cancelling in a real browser: the shop cancels lines on the order page (at once for what no
// supplier has, as a request for what one has), the supplier confirms and refuses in its portal's
// cancellation requests, and the shop records a manual supplier's answer; axe on every page.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, createShop, expectAccessible, newPage, screenshot, signInShop, signInSupplier, unique, type Shop } from "../browser/console";

let shop: Shop;
let supplierKey: string;
let supplierName: string;

async function until<T>(check: () => Promise<T | null | undefined | false>, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** An order for the given category, once its lines wait at their supplier (ruled, dispatched). */
async function orderFor(category: string, products: { name: string; quantity: number }[]) {
  const created = await api(shop, "POST", "/api/v1/orders", {
    external_id: unique("CANCEL"),
    source: "Browser test",
    total: 10,
    shipping_address: { first_name: "Jan", last_name: "Jansen", address1: "Damrak 1", postcode: "1012LG", city: "Amsterdam", country: "NL" },
    products: products.map((p, i) => ({ external_id: `${category}-${i}`, name: p.name, quantity: p.quantity, price: 1, category })),
  });
  const reference = String(created.json.reference);
  const order = await until(async () => {
    const dispatches = (await api(shop, "GET", `/api/v1/orders/${reference}/dispatches`)).json.data;
    return dispatches.length > 0 && dispatches[0].status !== "queued" && dispatches[0].status !== "sending" ? (await api(shop, "GET", `/api/v1/orders/${reference}`)).json : null;
  }, `order ${reference} to be sent`);
  return { reference, lineIds: order.order_lines.map((l: { id: number }) => l.id) as number[] };
}

beforeAll(async () => {
  shop = await createShop(unique("Cancelling shop"));
  const pull = await api(shop, "POST", "/api/v1/suppliers", { name: unique("Pull supplier"), channel: "pull" });
  supplierName = pull.json.name;
  supplierKey = (await api(shop, "POST", `/api/v1/suppliers/${pull.json.id}/keys`, { name: "portal" })).json.key;
  const manual = await api(shop, "POST", "/api/v1/suppliers", { name: unique("By hand"), channel: "manual" });
  const rule = (category: string, supplierId: number) =>
    api(shop, "POST", "/api/v1/routing-rules", { name: `${category} rule`, conditions: [{ variable: "line.category", operator: "is", value: category }], action: { type: "assign_supplier", supplier_id: supplierId } });
  await rule("kitchen", pull.json.id);
  await rule("garden", manual.json.id);
});
afterAll(closeBrowser);

const lineCard = (page: Page, lineId: number) => page.locator(`article.line:has(h3#line-${lineId})`);

describe("cancelling on the order page, answering in the portal", () => {
  it("the shop asks; the supplier confirms one line and refuses another; the order page shows each outcome", async () => {
    const { reference, lineIds } = await orderFor("kitchen", [
      { name: "Frying pan", quantity: 4 },
      { name: "Kettle", quantity: 1 },
    ]);
    const page = await newPage();
    await signInShop(page, shop);
    await page.goto(`/console/orders/${reference}`);
    await page.getByText("Cancel lines of this order").click();
    await page.getByRole("checkbox", { name: `Frying pan line #${lineIds[0]}` }).check();
    await page.getByLabel(`Quantity of Frying pan (line #${lineIds[0]}) to cancel, at most 4`).fill("3");
    await page.getByRole("checkbox", { name: `Kettle line #${lineIds[1]}` }).check();
    await page.getByLabel("Why they are cancelled (optional; the suppliers see it)").fill("Customer moved house");
    await screenshot(page, "order-cancel-form");
    await page.getByRole("button", { name: "Cancel the ticked lines" }).click();
    await page.waitForURL(`**/console/orders/${reference}#cancel`);
    expect(await page.locator(".flash").innerText()).toBe("2 lines wait for the supplier's answer.");
    const waiting = page.locator(".cancellations-waiting > li");
    expect(await waiting.locator("p").allInnerTexts()).toEqual([
      expect.stringMatching(new RegExp(`^Supplier ${supplierName} is asked to cancel 3 of 4 × Frying pan \\(line #${lineIds[0]}\\) since `)),
      expect.stringMatching(new RegExp(`^Supplier ${supplierName} is asked to cancel 1 of 1 × Kettle \\(line #${lineIds[1]}\\) since `)),
    ]);
    expect(await lineCard(page, lineIds[0]).locator("ol li").last().innerText()).toContain(`Cancellation of 3 of 4 requested from supplier ${supplierName}: Customer moved house`);
    await expectAccessible(page);

    const portal = await newPage();
    await signInSupplier(portal, supplierKey);
    await portal.getByRole("link", { name: "Cancellation requests" }).click();
    await portal.waitForURL("**/supplier/cancellations");
    const card = portal.locator("article.cancellation", { hasText: `Order ${reference}` });
    expect(await card.locator(".dispatch-lines > li strong").allInnerTexts()).toEqual(["3 of 4 ×", "1 of 1 ×"]);
    expect(await card.innerText()).toContain("Reason: Customer moved house");
    await screenshot(portal, "supplier-cancellations");
    await expectAccessible(portal);
    // Refusing needs a reason.
    const [refused] = await Promise.all([
      portal.waitForResponse((r) => r.url().endsWith("/supplier/cancellations/answer")),
      card.locator(".dispatch-lines > li").nth(1).getByRole("button", { name: "Refuse" }).click(),
    ]);
    expect(refused.status()).toBe(422);
    expect(await portal.locator(`#refuse-reason-${lineIds[1]}-error`).innerText()).toBe(`Say what happened to line #${lineIds[1]} when you refuse its cancellation.`);
    await portal.getByLabel(`If you refuse for line #${lineIds[1]}: what happened (for example, it has shipped)`).fill("Already on its way");
    await portal.locator("article.cancellation", { hasText: `Order ${reference}` }).locator(".dispatch-lines > li").nth(1).getByRole("button", { name: "Refuse" }).click();
    await portal.waitForURL("**/supplier/cancellations");
    expect(await portal.locator(".flash").innerText()).toBe(`Cancellation of line #${lineIds[1]} refused.`);
    await portal.locator("article.cancellation", { hasText: `Order ${reference}` }).getByRole("button", { name: "Confirm cancellation" }).click();
    await portal.waitForURL("**/supplier/cancellations");
    expect(await portal.locator(".flash").innerText()).toBe(`Cancellation of line #${lineIds[0]} confirmed.`);
    expect(await portal.locator("article.cancellation", { hasText: `Order ${reference}` }).count()).toBe(0);

    await page.goto(`/console/orders/${reference}`);
    expect(await page.locator(".cancellations-waiting").count()).toBe(0);
    // The pan keeps 1; the 3 cancelled are a skipped line split off it, right after it.
    const titles = await page.locator("article.line h3").allInnerTexts();
    expect(titles).toEqual(["Frying pan × 1", "Frying pan × 3", "Kettle × 1"]);
    const split = page.locator("article.line").nth(1);
    expect(await split.locator("header .badge").innerText()).toBe("Skipped");
    expect(await split.innerText()).toContain(`Split from\nline #${lineIds[0]}`);
    expect(await lineCard(page, lineIds[1]).locator("header .badge").innerText()).toBe("Ruled");
    expect(await lineCard(page, lineIds[1]).locator("ol li").last().innerText()).toContain(`Cancellation of 1 refused by supplier ${supplierName}: Already on its way`);
    await expectAccessible(page);
  });

  it("what no supplier has yet is cancelled at once; a manual supplier's answer is recorded by the shop, from the attention list", async () => {
    const { reference, lineIds } = await orderFor("garden", [{ name: "Garden bench", quantity: 1 }]);
    const pending = await api(shop, "POST", "/api/v1/orders", {
      external_id: unique("UNMATCHED"),
      source: "Browser test",
      total: 5,
      shipping_address: { first_name: "Jan", last_name: "Jansen", address1: "Damrak 1", postcode: "1012LG", city: "Amsterdam", country: "NL" },
      products: [{ external_id: "rug", name: "Wool rug", quantity: 2, price: 5, category: "textile" }],
    });
    const page = await newPage();
    await signInShop(page, shop);
    await page.goto(`/console/orders/${pending.json.reference}`);
    await page.getByText("Cancel lines of this order").click();
    await page.getByRole("checkbox", { name: /^Wool rug line #/ }).check();
    await page.getByRole("button", { name: "Cancel the ticked lines" }).click();
    await page.waitForURL(`**#cancel`);
    expect(await page.locator(".flash").innerText()).toBe("1 line cancelled.");
    expect(await page.locator("article.line header .badge").innerText()).toBe("Skipped");
    expect(await page.locator("#cancel").innerText()).toContain("Nothing of this order can be cancelled any more");

    await page.goto(`/console/orders/${reference}`);
    await page.getByText("Cancel lines of this order").click();
    await page.getByRole("checkbox", { name: `Garden bench line #${lineIds[0]}` }).check();
    await page.getByRole("button", { name: "Cancel the ticked lines" }).click();
    await page.waitForURL(`**#cancel`);
    await page.goto("/console");
    const section = page.locator("section.attention", { has: page.getByRole("heading", { name: /^Cancellations to carry to a supplier/ }) });
    expect(await section.locator("li").innerText()).toMatch(new RegExp(`^Order ${reference} · By hand-.* · cancellation of 1 line · Tell the supplier · `));
    await expectAccessible(page);
    await section.getByRole("link", { name: `Order ${reference}` }).click();
    await page.waitForURL(`**/console/orders/${reference}`);
    await page.getByRole("button", { name: "Supplier confirmed" }).click();
    await page.waitForURL(`**#cancel`);
    expect(await page.locator(".flash").innerText()).toBe(`Recorded: the supplier confirmed the cancellation of line #${lineIds[0]}.`);
    expect(await lineCard(page, lineIds[0]).locator("header .badge").innerText()).toBe("Skipped");
    await page.goto("/console");
    expect(await page.getByRole("heading", { name: /^Cancellations to carry to a supplier/ }).count()).toBe(0);
  });
});
