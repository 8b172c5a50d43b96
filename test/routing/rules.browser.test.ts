// The shop's routing rules in a real browser, each action checked afterwards through the API: a new
// rule whose condition rows are checked as they are typed (and on submit without JavaScript), "try
// it" against a stored and a pasted order before saving, reordering with buttons, edit and delete;
// another account's rule is the same 404 page as an unknown one; a forged CSRF token changes nothing.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, columnTexts, createShop, expectAccessible, newPage, screenshot, signInShop, type Shop } from "../browser/console";

let shop: Shop;
let page: Page;
let garden: { id: number; name: string };
let reference: string;

const order = (category: string) => ({
  external_id: `R-${category}-${Date.now()}`,
  source: "test",
  total: 99,
  shipping_address: { first_name: "A", last_name: "B", address1: "Street 1", postcode: "1000AA", city: "Amsterdam", country: "NL" },
  products: [{ external_id: "chair", name: "Garden chair", quantity: 1, price: 99, category }],
});

beforeAll(async () => {
  shop = await createShop();
  garden = (await api(shop, "POST", "/api/v1/suppliers", { name: "Tuinhout", channel: "manual" })).json;
  reference = String((await api(shop, "POST", "/api/v1/orders", order("garden"))).json.reference);
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(closeBrowser);

const flash = () => page.locator(".flash").innerText();
const rules = async () => (await api(shop, "GET", "/api/v1/routing-rules")).json.data as { id: number; name: string; conditions: unknown[]; action: unknown; active: boolean }[];

describe("the routing rules pages", () => {
  it("check each condition as it is typed, try the draft on an order, and save it", async () => {
    await page.goto("/console/rules");
    expect(await page.getByRole("heading", { name: "No routing rules yet" }).isVisible()).toBe(true);
    await expectAccessible(page);
    await page.getByRole("button", { name: "New rule" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Garden from Tuinhout");
    await page.getByLabel("Variable").fill("line.colour");
    const variableError = page.locator("#condition-0-variable-error");
    await variableError.waitFor();
    expect(await variableError.innerText()).toMatch(/^The selected Variable of condition 1 is invalid/);
    expect(await page.getByLabel("Variable").inputValue()).toBe("line.colour");
    await page.getByLabel("Variable").fill("line.category");
    await page.getByLabel("Operator").selectOption("greater_than");
    await page.getByLabel("Value", { exact: true }).fill("garden");
    await page.locator("#condition-0-operator-error").waitFor();
    expect(await page.locator("#condition-0-operator-error").innerText()).toBe("The Operator of condition 1 greater_than does not fit the text variable line.category.");
    await page.getByLabel("Operator").selectOption("is");
    await page.locator("#condition-0-operator-error").waitFor({ state: "detached" });
    expect(await page.locator("#condition-0 .field-error").count()).toBe(0);
    await page.getByLabel("Supplier", { exact: true }).selectOption({ label: "Tuinhout" });

    await page.getByLabel("Order reference").fill(reference);
    await page.getByRole("button", { name: "Try it" }).click();
    const decision = page.locator("#try-result .explain-line p").first();
    await decision.waitFor();
    expect(await decision.innerText()).toBe("Decision: Matched to supplier Tuinhout by the draft rule 'Garden from Tuinhout'");
    expect(await rules()).toEqual([]);
    await screenshot(page, "rule-try-it");
    await expectAccessible(page);

    await page.getByRole("button", { name: "Create rule" }).click();
    await page.waitForURL("**/console/rules");
    expect(await flash()).toBe("Rule “Garden from Tuinhout” created. Waiting lines are matched again.");
    expect(await rules()).toEqual([
      expect.objectContaining({
        name: "Garden from Tuinhout",
        conditions: [{ variable: "line.category", operator: "is", value: "garden" }],
        action: { type: "assign_supplier", supplier_id: garden.id },
        active: true,
      }),
    ]);
  });

  it("work without JavaScript: conditions are added and checked on submit, keeping what was typed", async () => {
    const plain = await newPage({ javaScriptEnabled: false });
    await signInShop(plain, shop);
    await plain.goto("/console/rules/new");
    await plain.getByLabel("Name", { exact: true }).fill("Big orders");
    await plain.getByLabel("Variable").fill("order.total");
    await plain.getByLabel("Operator").selectOption("greater_than");
    await plain.getByLabel("Value", { exact: true }).fill("a lot");
    await plain.getByRole("button", { name: "Add a condition" }).click();
    expect(await plain.locator("fieldset.condition-row").count()).toBe(2);
    expect(await plain.locator("#condition-0-value").inputValue()).toBe("a lot");
    await plain.getByRole("radio", { name: "Block the whole order for review" }).check();
    await plain.getByRole("button", { name: "Remove condition 2" }).click();
    expect(await plain.locator("fieldset.condition-row").count()).toBe(1);
    await plain.getByRole("radio", { name: "Block the whole order for review" }).check();
    await plain.getByRole("button", { name: "Create rule" }).click();
    expect(await plain.locator("#condition-0-value-error").innerText()).toBe("The Value of condition 1 field must be a number.");
    expect(await plain.locator("#condition-0-value").inputValue()).toBe("a lot");
    await plain.locator("#condition-0-value").fill("2500");
    await plain.getByRole("button", { name: "Create rule" }).click();
    expect(new URL(plain.url()).pathname).toBe("/console/rules");
    expect((await rules()).find((r) => r.name === "Big orders")).toMatchObject({
      conditions: [{ variable: "order.total", operator: "greater_than", value: 2500 }],
      action: { type: "block" },
    });
  });

  it("reorder with the buttons, as the API's order then shows", async () => {
    await api(shop, "POST", "/api/v1/routing-rules", { name: "Gift wrap is a service", conditions: [{ variable: "line.name", operator: "contains", value: "gift" }], action: { type: "skip" } });
    await page.goto("/console/rules");
    expect(await columnTexts(page, "Rule")).toEqual(["Garden from Tuinhout", "Big orders", "Gift wrap is a service"]);
    await page.getByRole("button", { name: "Move Gift wrap is a service up" }).click();
    await page.waitForURL("**/console/rules");
    expect(await flash()).toBe("Moved “Gift wrap is a service”. Waiting lines are matched again in the new order.");
    expect((await rules()).map((r) => r.name)).toEqual(["Garden from Tuinhout", "Gift wrap is a service", "Big orders"]);
    await page.getByRole("button", { name: "Move Garden from Tuinhout down" }).click();
    await page.waitForURL("**/console/rules");
    expect((await rules()).map((r) => r.name)).toEqual(["Gift wrap is a service", "Garden from Tuinhout", "Big orders"]);
    expect(await columnTexts(page, "Rule")).toEqual(["Gift wrap is a service", "Garden from Tuinhout", "Big orders"]);
    await screenshot(page, "rules");
    await expectAccessible(page);
  });

  it("edit a rule, try the edit on a pasted order, and delete it", async () => {
    const rule = (await rules()).find((r) => r.name === "Garden from Tuinhout")!;
    await page.goto(`/console/rules/${rule.id}`);
    await page.locator("#condition-0-value").fill("outdoor");
    await page.getByLabel("Or paste an order (JSON)").fill("{ not json");
    await page.getByRole("button", { name: "Try it" }).click();
    await page.locator("#try-result .form-error").waitFor();
    expect(await page.locator("#try-result .form-error").innerText()).toBe("The Order (JSON) field must be valid JSON: an order as POST /api/v1/orders takes it.");
    await page.getByLabel("Or paste an order (JSON)").fill(JSON.stringify(order("outdoor")));
    await page.getByRole("button", { name: "Try it" }).click();
    await page.locator("#try-result .explain-line").waitFor();
    expect(await page.locator("#try-result .explain-line p").first().innerText()).toBe(`Decision: Matched to supplier Tuinhout by rule #${rule.id} 'Garden from Tuinhout'`);
    expect((await rules()).find((r) => r.id === rule.id)!.conditions).toEqual([{ variable: "line.category", operator: "is", value: "garden" }]);

    await page.getByRole("checkbox", { name: /^Active/ }).uncheck();
    await page.getByRole("button", { name: "Save rule" }).click();
    await page.waitForURL("**/console/rules");
    expect((await rules()).find((r) => r.id === rule.id)).toMatchObject({ conditions: [{ variable: "line.category", operator: "is", value: "outdoor" }], active: false });

    await page.goto(`/console/rules/${rule.id}`);
    await page.getByText("Delete…").click();
    await page.getByRole("button", { name: "Delete the rule" }).click();
    await page.waitForURL("**/console/rules");
    expect(await flash()).toBe("Rule “Garden from Tuinhout” deleted.");
    expect((await rules()).map((r) => r.id)).not.toContain(rule.id);
  });

  it("shows another account's rule as the same 404 page as an unknown one, refuses a forged CSRF token, and fits 360 px", async () => {
    const other = await createShop();
    const theirs = (await api(other, "POST", "/api/v1/routing-rules", { name: "Theirs", conditions: [], action: { type: "skip" } })).json;
    const res = await page.goto(`/console/rules/${theirs.id}`);
    const text = await page.locator("main").innerText();
    const unknown = await page.goto("/console/rules/999999999");
    expect([res!.status(), unknown!.status()]).toEqual([404, 404]);
    expect(text).toBe(await page.locator("main").innerText());

    await page.goto("/console/rules");
    const before = (await rules()).map((r) => r.name);
    await page.locator("form.inline-action input[name=_csrf]").first().evaluate((input) => ((input as HTMLInputElement).value = "forged"));
    await page.locator("form.inline-action button").first().click();
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Request refused");
    expect((await rules()).map((r) => r.name)).toEqual(before);

    const phone = await newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await signInShop(phone, shop);
    for (const path of ["/console/rules", "/console/rules/new"]) {
      await phone.goto(path);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(360);
      await expectAccessible(phone);
    }
  });
});
