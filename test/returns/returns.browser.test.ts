// Returns in a real browser (docs/returns.md, "The console"): an order shipped by two suppliers;
// "Return items…" past what shipped is refused beside the line with nothing written; a good request
// makes one return per supplier on the order page; the customer's tracking is added there; the
// Returns page lists them by state; a credit given through the supplier API is summed on the
// supplier's page, where its return terms are set. axe on each page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, columnTexts, createShop, expectAccessible, expectRefusedBeside, newPage, penOrder, pullSupplier, screenshot, signInShop, supplierApi, unique, until, type Shop } from "../browser/console";

let shop: Shop;
let kitchen: Awaited<ReturnType<typeof pullSupplier>>;
let garden: Awaited<ReturnType<typeof pullSupplier>>;
let reference: string;
let mug: number;
let rake: number;

/** The supplier fetches its order and ships every line of it in full. */
async function shipAll(key: string) {
  const dispatch = await until(async () => (await supplierApi(key, "GET", "/api/v1/supplier/orders")).json.data.find((d: { order: { reference: string } }) => d.order.reference === reference), "the order awaiting pickup");
  const answers = dispatch.lines.map((l: { id: number; quantity: number }) => ({ line_id: l.id, action: "ship", quantity: l.quantity, carrier: "PostNL", tracking_number: `3S${l.id}` }));
  const res = await supplierApi(key, "POST", "/api/v1/supplier/answers", { answers });
  expect(res.status, res.text).toBe(200);
}

beforeAll(async () => {
  shop = await createShop(unique("Returning shop"));
  kitchen = await pullSupplier(shop, unique("Kitchen BV"), "kitchen");
  garden = await pullSupplier(shop, unique("Garden BV"), "garden");
  const created = await api(shop, "POST", "/api/v1/orders", {
    ...penOrder(unique("RET"), { total: 45 }),
    products: [
      { external_id: "M1", name: "Blue mug", quantity: 2, price: 12.5, category: "kitchen" },
      { external_id: "R1", name: "Rake", quantity: 1, price: 20, category: "garden" },
    ],
  });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  reference = String(created.json.reference);
  await shipAll(kitchen.key);
  await shipAll(garden.key);
  const lines = (await api(shop, "GET", `/api/v1/orders/${reference}`)).json.order_lines as { id: number; name: string }[];
  mug = lines.find((l) => l.name === "Blue mug")!.id;
  rake = lines.find((l) => l.name === "Rake")!.id;
});
afterAll(closeBrowser);

describe("returns in the console", () => {
  it("Return items… refused past what shipped, then one return per supplier; tracking; the Returns page by state; the credit and the return terms on the supplier's page", async () => {
    const page = await newPage();
    await signInShop(page, shop);
    await page.goto(`/console/orders/${reference}`);
    expect(await page.locator("#returns").getByText("No returns yet.").count()).toBe(1);

    // Three mugs back of two shipped: the 422 beside the mug's quantity, what was typed kept, nothing written.
    await page.getByText("Return items…").click();
    await page.getByLabel(`Quantity of Blue mug (line #${mug}) to return, at most 2`).fill("3");
    await page.getByLabel(`Why Blue mug (line #${mug}) comes back`).fill("Chipped");
    await page.getByRole("button", { name: "Request the return" }).click();
    await page.waitForLoadState("domcontentloaded");
    await expectRefusedBeside(page, `return-quantity-${mug}`, `The Quantity field must not be greater than 2, what is shipped of line ${mug} and not returned yet (2 shipped, 0 returned).`);
    expect(await page.getByLabel(`Why Blue mug (line #${mug}) comes back`).inputValue()).toBe("Chipped");
    expect((await api(shop, "GET", `/api/v1/orders/${reference}/returns`)).json.data).toEqual([]);

    // One mug and the rake: two returns, one per supplier, on the order page.
    await page.getByLabel(`Quantity of Blue mug (line #${mug}) to return, at most 2`).fill("1");
    await page.getByLabel(`Quantity of Rake (line #${rake}) to return, at most 1`).fill("1");
    await page.getByLabel("Note for the suppliers (optional)").fill("Customer 4711");
    await page.getByRole("button", { name: "Request the return" }).click();
    await page.waitForURL(`**/console/orders/${reference}#returns`);
    const returns = (await api(shop, "GET", `/api/v1/orders/${reference}/returns`)).json.data as { id: number; supplier: { name: string } }[];
    expect(returns.map((r) => r.supplier.name)).toEqual([kitchen.name, garden.name]);
    const [mugs, rakes] = returns.map((r) => r.id);
    expect(await page.locator(".flash").innerText()).toBe(`2 returns requested, one per supplier: #${mugs}, #${rakes}.`);
    expect(await page.locator("article.return h3").allInnerTexts()).toEqual([`Return #${mugs} to ${kitchen.name}`, `Return #${rakes} to ${garden.name}`]);
    expect(await page.locator("article.return header .badge").allInnerTexts()).toEqual(["Requested", "Requested"]);
    expect(await page.locator(`#return-${mugs} tbody tr`).innerText()).toMatch(new RegExp(`^Blue mug line #${mug}\\s+1\\s+—\\s+—\\s+Chipped$`));
    expect(await page.locator(`#return-${mugs} .timeline li`).last().innerText()).toMatch(/Line #\d+: Return requested of 1: Chipped by shop \(console, API key #\d+\)$/);
    // What is asked back is no longer offered: one mug left, the rake gone.
    expect(await page.getByLabel(`Quantity of Blue mug (line #${mug}) to return, at most 1`).count()).toBe(1);
    expect(await page.getByLabel(`Quantity of Rake (line #${rake}) to return`, { exact: false }).count()).toBe(0);
    await expectAccessible(page);

    // The kitchen supplier authorises; the customer's tracking is added on the order page.
    const authorised = await supplierApi(kitchen.key, "POST", `/api/v1/supplier/returns/${mugs}/answer`, { action: "authorise", rma: "RMA-K1", return_address: "Kitchen BV, Dock 1, Rotterdam", label_url: "https://labels.example.com/k1.pdf" });
    expect(authorised.status, authorised.text).toBe(200);
    await page.reload();
    await page.getByLabel(`The customer's tracking for return #${mugs}`).fill("3SRET1");
    await page.locator(`#return-${mugs}`).getByRole("button", { name: "Add the customer's tracking" }).click();
    await page.waitForURL(`**/console/orders/${reference}#return-${mugs}`);
    const card = page.locator(`#return-${mugs}`);
    expect(await card.locator("header .badge").innerText()).toBe("In transit");
    expect(await card.locator("dl.facts").innerText()).toMatch(/RMA\s+RMA-K1\s+Return address\s+Kitchen BV, Dock 1, Rotterdam\s+Return label\s+Label of return #\d+\s+Customer's tracking\s+3SRET1\s+Credit\s+—/);
    await screenshot(page, "order-returns");

    // Received and credited through the supplier API; the garden return still waits.
    for (const answer of [
      { action: "receive", lines: [{ line_id: mug, quantity: 1, condition: "opened" }] },
      { action: "credit", amount: 12.5, currency: "EUR" },
    ]) {
      const res = await supplierApi(kitchen.key, "POST", `/api/v1/supplier/returns/${mugs}/answer`, answer);
      expect(res.status, res.text).toBe(200);
    }

    // The Returns page: the open ones first (the garden's), the credited under their tab.
    await page.goto("/console/returns");
    expect(await columnTexts(page, "Return")).toEqual([`#${rakes}`]);
    expect(await columnTexts(page, "State")).toEqual(["Requested"]);
    await page.getByRole("link", { name: "Credited 1" }).click();
    await page.waitForURL("**/console/returns?status=credited");
    expect(await columnTexts(page, "Return")).toEqual([`#${mugs}`]);
    expect(await columnTexts(page, "Supplier")).toEqual([kitchen.name]);
    expect(await columnTexts(page, "Credit")).toEqual(["12.50 EUR"]);
    expect(await page.getByRole("link", { name: reference }).getAttribute("href")).toBe(`/console/orders/${reference}`);
    await expectAccessible(page);

    // The kitchen supplier's page sums its credits of this month.
    await page.goto(`/console/suppliers/${kitchen.id}`);
    const month = new Intl.DateTimeFormat("en", { month: "long", year: "numeric", timeZone: "UTC" }).format(new Date());
    expect(await page.locator("#credits tbody tr").allInnerTexts()).toEqual([`${month}\t1 return\t12.50 EUR`]);
    await expectAccessible(page);

    // Its return terms, there too: a window past the most is refused beside it, nothing saved; then saved.
    await page.getByLabel("Return window in days").fill("5000");
    await page.getByLabel("Answer returns within (hours)").fill("48");
    await page.getByRole("button", { name: "Save return terms" }).click();
    await page.waitForLoadState("domcontentloaded");
    await expectRefusedBeside(page, "field-window_days", "The Return window in days field must not be greater than 3650.");
    expect((await api(shop, "GET", `/api/v1/suppliers/${kitchen.id}/returns-settings`)).json).toEqual({ auto_authorise: false, return_address: null, window_days: 30, answer_within_hours: null });
    await page.getByLabel("Return window in days").fill("14");
    await page.getByRole("button", { name: "Save return terms" }).click();
    await page.waitForURL(`**/console/suppliers/${kitchen.id}#returns-settings`);
    expect(await page.locator(".flash").innerText()).toBe("Return terms saved.");
    expect(await page.getByLabel("Answer returns within (hours)").inputValue()).toBe("48");
    expect((await api(shop, "GET", `/api/v1/suppliers/${kitchen.id}/returns-settings`)).json).toEqual({ auto_authorise: false, return_address: null, window_days: 14, answer_within_hours: 48 });
  });
});
