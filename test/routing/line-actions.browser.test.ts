// Acting on a stuck line in a real browser, checked afterwards through the API: "Send to a
// supplier…" and "Re-route now" on the order page and on Needs attention (a refusal said, nothing
// changed; a missing choice beside its field), the hand-made choice in "Why these suppliers"; and the
// Settings page (re-routing, and every supplier's deadlines).
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo, type DemoReferences } from "../../scripts/lib/demo-data.mjs";
import { ageRows, api, BASE, closeBrowser, createShop, expectAccessible, newPage, screenshot, signInShop, supplierApi, until, type Shop } from "../browser/console";

let shop: Shop;
let refs: DemoReferences;
let page: Page;
let supplierKey: string;

beforeAll(async () => {
  shop = await createShop();
  ({ references: refs, supplierKey } = await seedDemo(BASE, shop));
  // The unmatched line has waited an hour: Needs attention lists it.
  ageRows("UPDATE order_lines SET updated_at = '2020-01-01T00:00:00.000000Z' WHERE account_id = ? AND current_status = 'pending'", [shop.accountId]);
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(closeBrowser);

type Line = { id: number; name: string; current_status: string; matched_supplier: { id: number; name: string } | null; logs: { message: string }[] };
const order = async (ref: string) => (await api(shop, "GET", `/api/v1/orders/${ref}`)).json as { order_lines: Line[] };
const lineNamed = async (ref: string, name: string) => (await order(ref)).order_lines.find((l) => l.name === name)!;
const flash = () => page.locator(".flash").innerText();
const card = (lineId: number) => page.locator("article.line", { has: page.locator(`#line-${lineId}`) });
/** The suppliers "Send to a supplier…" offers, in its order, as read (name, offer, and what it did with the line before). */
const choices = () => page.locator("fieldset.supplier-choices label").allInnerTexts();
const choose = (name: string) => page.getByRole("radio", { name: new RegExp(`^${name} ·`) }).check();

describe("a stuck line on the order page", () => {
  it("offers the actions only on the declined line; Re-route now says why it cannot, changing nothing", async () => {
    const declined = await lineNamed(refs.answered, "Frying pan");
    const shipped = await lineNamed(refs.answered, "Blue mug");
    await page.goto(`/console/orders/${refs.answered}`);
    expect(await page.locator(".order-actions p.muted").innerText()).toBe("A supplier declined some lines: send each to another supplier, or re-route it now, under Lines.");
    expect(await card(declined.id).getByRole("button", { name: `Send to a supplier… (line #${declined.id})` }).innerText()).toBe("Send to a supplier…");
    expect(await card(declined.id).getByRole("button", { name: `Re-route now (line #${declined.id})` }).isVisible()).toBe(true);
    expect(await card(shipped.id).locator(".line-actions").count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, "order-stuck-line");

    await card(declined.id).getByRole("button", { name: `Re-route now (line #${declined.id})` }).click();
    await page.waitForURL(`**/console/orders/${refs.answered}#line-${declined.id}`);
    expect(await flash()).toBe(`Order line ${declined.id} cannot be re-routed: no other supplier can take it. Send it to a supplier by hand instead.`);
    expect(await lineNamed(refs.answered, "Frying pan")).toEqual(declined);
  });

  it("sends the declined line to the supplier chosen: a missing choice beside its field, only active suppliers offered; the log and Why these suppliers say who chose", async () => {
    const inactive = (await api(shop, "POST", "/api/v1/suppliers", { name: "Oude leverancier", channel: "manual", active: false })).json;
    const declined = await lineNamed(refs.answered, "Frying pan");
    await page.goto(`/console/orders/${refs.answered}`);
    await card(declined.id).getByRole("button", { name: `Send to a supplier… (line #${declined.id})` }).click();
    await page.waitForURL(`**/console/orders/${refs.answered}/lines/${declined.id}/assign`);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe(`Send line #${declined.id} to a supplier`);
    // Every active supplier, the one that declined the line last and marked; none of them has a catalogue offer of this product.
    const options = (await choices()).map((o) => o.replace(/on .+?: (?=[A-Z])/, "on …: "));
    expect(options).toEqual([
      "Lampenlab · no catalogue offer",
      "Tuinhout · no catalogue offer",
      "Keukenhuis · no catalogue offer\ndeclined this line on …: Declined by supplier Keukenhuis: discontinued",
    ]);
    expect(options.join()).not.toContain(inactive.name);
    await expectAccessible(page);

    const [refused] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/assign") && r.request().method() === "POST"), page.getByRole("button", { name: "Send to this supplier" }).click()]);
    expect(refused.status()).toBe(422);
    expect(await page.locator("#field-supplier_id-error").innerText()).toBe("The Supplier field is required.");
    expect(await lineNamed(refs.answered, "Frying pan")).toEqual(declined);
    await expectAccessible(page);

    await choose("Tuinhout");
    await page.getByRole("button", { name: "Send to this supplier" }).click();
    await page.waitForURL(`**/console/orders/${refs.answered}#line-${declined.id}`);
    expect(await flash()).toBe(`Line #${declined.id} of order ${refs.answered} is being sent to supplier Tuinhout.`);
    const line = await lineNamed(refs.answered, "Frying pan");
    expect([line.current_status, line.matched_supplier?.name]).toEqual(["ruled", "Tuinhout"]);
    expect(line.logs.at(-1)!.message).toMatch(new RegExp(`^Sent to supplier Tuinhout by hand \\(console session #\\d+, API key #${shop.apiKeyId}\\)$`));
    // The page shows it (no action left on it), and the explanation says who chose the supplier.
    await page.reload();
    expect(await card(declined.id).locator(".line-actions").count()).toBe(0);
    await page.getByText("Show how each line is matched now").click();
    const chosen = page.locator(".explain-line .callout").first();
    await chosen.waitFor();
    expect(await chosen.innerText()).toMatch(new RegExp(`^Chosen by hand: sent to supplier Tuinhout by hand \\(console session #\\d+, API key #${shop.apiKeyId}\\), `));
    await screenshot(page, "order-line-actions");
    await expectAccessible(page);
  });
});

describe("a partly confirmed line on the order page", () => {
  it("offers what can be done with its rest; Send the rest… lists each supplier's stock and price, asks before the supplier that confirmed only part, and the next supplier receives the rest alone", async () => {
    const knife = { external_id: "KNIFE-2", reference: "KNIFE-2", name: "Bread knife", category: "kitchen", price: 45, quantity: 3 };
    const created = (await api(shop, "POST", "/api/v1/orders", { external_id: `PART-${Date.now()}`, source: "Demo webshop", total: 135, email: "jan@example.com",
      shipping_address: { first_name: "Jan", last_name: "Jansen", address1: "Damrak 1", postcode: "1012LG", city: "Amsterdam", country: "NL" }, products: [knife] })).json;
    const ref = String(created.reference);
    const lineId = await until(async () => {
      const line = await lineNamed(ref, "Bread knife");
      return line.current_status === "ruled" && line.matched_supplier ? line.id : null;
    }, "the knife ruled to Keukenhuis");
    expect((await supplierApi(supplierKey, "POST", "/api/v1/supplier/answers", { answers: [{ line_id: lineId, action: "partial", quantity: 2, reason: "only 2 in stock" }] })).status).toBe(200);
    // Since then the catalogue knows the knife: a new pull supplier has 5, Tuinhout none, Keukenhuis (which confirmed 2) is cheapest.
    const knives = (await api(shop, "POST", "/api/v1/suppliers", { name: "Messenmakers", channel: "pull" })).json;
    const knivesKey = (await api(shop, "POST", `/api/v1/suppliers/${knives.id}/keys`, { name: "portal" })).json.key as string;
    const suppliers = (await api(shop, "GET", "/api/v1/suppliers?per_page=100")).json.data as { id: number; name: string }[];
    for (const [name, row] of [["Messenmakers", "KNIFE-2,,Bread knife,41.00,5"], ["Tuinhout", "KNIFE-2,,Bread knife,35.00,0"], ["Keukenhuis", "KNIFE-2,,Bread knife,30.00,10"]]) {
      const feed = (await api(shop, "POST", "/api/v1/product-feeds", { supplier_id: suppliers.find((s) => s.name === name)!.id, name: `${name} knives`, format: "csv" })).json;
      const upload = await fetch(`${BASE}/api/v1/product-feeds/${feed.id}/products`, {
        method: "PUT",
        headers: { "api-key": shop.apiKey, "account-id": String(shop.accountId), "content-type": "text/csv" },
        body: `sku,ean13,name,purchase_price,stock_quantity\n${row}\n`,
      });
      expect(upload.status, await upload.text()).toBe(200);
    }
    const before = await order(ref);

    await page.goto(`/console/orders/${ref}`);
    const actions = card(lineId).locator(".line-actions");
    expect(await actions.locator("small").innerText()).toBe("2 of 3 confirmed; the other 1 has no supplier.");
    expect(await actions.getByRole("button").allInnerTexts()).toEqual(["Send the rest (1) to a supplier…", "Re-route the rest now", "Cancel the rest (1)"]);
    await expectAccessible(page);

    await actions.getByRole("button", { name: `Send the rest (1) to a supplier… (line #${lineId})` }).click();
    await page.waitForURL(`**/console/orders/${ref}/lines/${lineId}/assign`);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe(`Send the rest of line #${lineId} to a supplier`);
    expect((await choices()).map((o) => o.replace(/on .+?: (?=[A-Z])/, "on …: "))).toEqual([
      "Messenmakers · 5 in stock · purchase price 41.00 EUR",
      "Tuinhout · 0 in stock (1 needed) · purchase price 35.00 EUR",
      "Lampenlab · no catalogue offer",
      "Keukenhuis · 10 in stock · purchase price 30.00 EUR\nconfirmed only part of this line on …: Supplier Keukenhuis confirmed 2 of 3",
    ]);
    await expectAccessible(page);

    // The supplier that confirmed only part may have the rest, once that is confirmed: asked first, nothing changed.
    await choose("Keukenhuis");
    const [asked] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/assign") && r.request().method() === "POST"), page.getByRole("button", { name: "Send to this supplier" }).click()]);
    expect(asked.status()).toBe(422);
    expect(await page.locator("#field-supplier_id-error").innerText()).toBe("Supplier Keukenhuis confirmed only part of this line before (Supplier Keukenhuis confirmed 2 of 3). Tick “Yes, send it to Keukenhuis again” to send it there anyway.");
    expect(await page.getByRole("radio", { name: /^Keukenhuis ·/ }).isChecked()).toBe(true);
    expect(await page.getByLabel("Yes, send it to Keukenhuis again").isChecked()).toBe(false);
    expect(await order(ref)).toEqual(before);
    await expectAccessible(page);

    await choose("Messenmakers");
    await page.getByRole("button", { name: "Send to this supplier" }).click();
    await page.waitForURL(`**/console/orders/${ref}#line-${lineId}`);
    expect(await flash()).toBe(`The other 1 of line #${lineId} of order ${ref} is being sent to supplier Messenmakers.`);
    // What Messenmakers received: the order with the rest alone, 1 knife, as a line of its own.
    type Doc = { order: { reference: string }; lines: { id: number; quantity: number; reference: string }[] };
    const received = await until(async () => ((await supplierApi(knivesKey, "GET", "/api/v1/supplier/orders")).json.data as Doc[]).find((d) => d.order.reference === ref), "Messenmakers' order");
    const lines = (await order(ref)).order_lines as (Line & { quantity: number; confirmed_quantity: number | null })[];
    expect(lines.map((l) => [l.current_status, l.matched_supplier?.name, l.quantity, l.confirmed_quantity])).toEqual([
      ["partially_completed", "Keukenhuis", 2, 2],
      ["ruled", "Messenmakers", 1, null],
    ]);
    expect(received.lines.map((l) => [l.id, l.quantity, l.reference])).toEqual([[lines[1].id, 1, "KNIFE-2"]]);
    expect(lines[1].logs.map((l) => l.message)).toEqual([
      `Split from line #${lineId}: the 1 of 3 supplier Keukenhuis did not confirm`,
      expect.stringMatching(/^Sent to supplier Messenmakers by hand \(console session #\d+, API key #\d+\)$/),
      // Messenmakers pulls its orders: the pipeline's note once its dispatch waits (the flash came before).
      "Waiting for supplier Messenmakers to fetch and acknowledge the order",
    ]);
    // Nothing is left to act on: the line's supplier delivers the 2 it confirmed.
    await page.reload();
    expect(await card(lineId).locator(".line-actions").count()).toBe(0);
    await expectAccessible(page);
  });
});

describe("a stuck line on Needs attention", () => {
  it("re-routes the failed line now to the next eligible supplier, and sends the unmatched one to a supplier chosen, back on Needs attention", async () => {
    // A second lamp supplier: the failed lamp line has somewhere to go now.
    const lights = (await api(shop, "POST", "/api/v1/suppliers", { name: "Lichthuis", channel: "manual" })).json;
    await api(shop, "POST", "/api/v1/routing-rules", {
      name: "Lamps from Lichthuis",
      priority: 1000,
      conditions: [{ variable: "line.category", operator: "is", value: "lamps" }],
      action: { type: "assign_supplier", supplier_id: lights.id },
    });
    const failed = (await order(refs.failed)).order_lines[0];
    const pending = (await order(refs.pending)).order_lines[0];
    await page.goto("/console");
    const failedSection = page.locator("section.attention", { has: page.locator("#failed-heading") });
    await expectAccessible(page);
    await screenshot(page, "needs-attention-line-actions");
    await failedSection.getByRole("button", { name: `Re-route now (line #${failed.id})` }).click();
    await page.waitForURL(/\/console$/);
    expect(await flash()).toBe(`Line #${failed.id} of order ${refs.failed} re-routed to supplier Lichthuis.`);
    const moved = (await order(refs.failed)).order_lines[0];
    expect([moved.current_status, moved.matched_supplier?.name]).toEqual(["ruled", "Lichthuis"]);
    expect(moved.logs.at(-1)!.message).toMatch(/^Re-routed by hand \(console session #\d+, API key #\d+\): Matched to supplier Lichthuis by rule #\d+ 'Lamps from Lichthuis' \(re-routed: supplier 2 of at most 3\)$/);
    expect(await page.locator("#failed-heading").count()).toBe(0);

    const pendingSection = page.locator("section.attention", { has: page.locator("#pending-heading") });
    await pendingSection.getByRole("button", { name: `Send to a supplier… (line #${pending.id})` }).click();
    await page.waitForURL(`**/console/orders/${refs.pending}/lines/${pending.id}/assign?back=attention`);
    await choose("Lichthuis");
    await page.getByRole("button", { name: "Send to this supplier" }).click();
    await page.waitForURL(/\/console$/);
    expect(await flash()).toBe(`Line #${pending.id} of order ${refs.pending} is being sent to supplier Lichthuis.`);
    expect((await order(refs.pending)).order_lines[0]).toMatchObject({ current_status: "ruled", matched_supplier: { id: lights.id, name: "Lichthuis" } });
    expect(await page.locator("#pending-heading").count()).toBe(0);
    await expectAccessible(page);
  });
});

describe("the Settings page", () => {
  it("changes re-routing as PATCH /api/v1/settings does, refuses a cap past 10 beside its field, and lists every supplier's deadlines", async () => {
    await page.goto("/console");
    await page.getByRole("link", { name: "Settings" }).click();
    await page.waitForURL("**/console/settings");
    expect(await page.getByLabel("Re-route a line its supplier cannot deliver to the next eligible supplier").isChecked()).toBe(true);
    expect(await page.getByLabel("Suppliers per line, at most").inputValue()).toBe("3");
    const rows = await page.locator("table tbody tr").allInnerTexts();
    expect(rows.map((r) => r.split("\t").slice(0, 4))).toContainEqual(["Tuinhout", "24 hours", "show under Needs attention", "no deadline"]);
    await expectAccessible(page);

    await page.getByLabel("Suppliers per line, at most").fill("11");
    const [refused] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/settings") && r.request().method() === "POST"), page.getByRole("button", { name: "Save settings" }).click()]);
    expect(refused.status()).toBe(422);
    expect(await page.locator("#field-reroute_max_attempts-error").innerText()).toBe("The Suppliers per line, at most field must not be greater than 10.");
    expect(await page.getByLabel("Suppliers per line, at most").inputValue()).toBe("11");
    expect((await api(shop, "GET", "/api/v1/settings")).json).toEqual({ reroute_enabled: true, reroute_max_attempts: 3, currency: "EUR", archive_after_days: 90 });
    await expectAccessible(page);

    await page.getByLabel("Suppliers per line, at most").fill("10");
    await page.getByLabel("Re-route a line its supplier cannot deliver to the next eligible supplier").uncheck();
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.waitForURL("**/console/settings");
    expect(await flash()).toBe("Settings saved: re-routing is off; a declined line stays declined until you act on it. Amounts are in EUR.");
    expect((await api(shop, "GET", "/api/v1/settings")).json).toEqual({ reroute_enabled: false, reroute_max_attempts: 10, currency: "EUR", archive_after_days: 90 });
    expect(await page.getByLabel("Suppliers per line, at most").inputValue()).toBe("10");
    await screenshot(page, "settings");
  });

  it("sets the account's currency as PATCH /api/v1/settings does: any case, kept in capitals; a code ISO does not list, one letter too many or none is refused beside its field", async () => {
    await page.goto("/console/settings");
    const currency = page.getByLabel("Currency", { exact: true });
    expect(await currency.inputValue()).toBe("EUR");
    const save = () => Promise.all([page.waitForResponse((r) => r.url().endsWith("/settings") && r.request().method() === "POST"), page.getByRole("button", { name: "Save settings" }).click()]);
    const invalid = "The selected Currency is invalid. Send an ISO 4217 currency code, such as EUR or USD.";
    // One letter past a code's three; a withdrawn code (the kuna); gold, no shop's money; blank.
    for (const [typed, message] of [["EURO", invalid], ["HRK", invalid], ["XAU", invalid], ["  ", "The Currency field is required."]]) {
      await currency.fill(typed);
      const [refused] = await save();
      expect(refused.status(), typed).toBe(422);
      expect(await page.locator("#field-currency-error").innerText()).toBe(message);
      expect(await currency.inputValue()).toBe(typed);
      expect(await page.locator(".flash").count()).toBe(0);
      expect((await api(shop, "GET", "/api/v1/settings")).json).toEqual({ reroute_enabled: false, reroute_max_attempts: 10, currency: "EUR", archive_after_days: 90 });
    }
    await expectAccessible(page);

    await currency.fill(" usd ");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.waitForURL("**/console/settings");
    expect(await flash()).toBe("Settings saved: re-routing is off; a declined line stays declined until you act on it. Amounts are in USD.");
    expect((await api(shop, "GET", "/api/v1/settings")).json).toEqual({ reroute_enabled: false, reroute_max_attempts: 10, currency: "USD", archive_after_days: 90 });
    expect(await currency.inputValue()).toBe("USD");
    // Every amount of the console now carries it: the order list's totals.
    await page.goto("/console/orders");
    expect(await page.locator("table tbody tr td.numeric").first().innerText()).toMatch(/^[\d,]+\.\d{2}\sUSD$/);
    await expectAccessible(page);
  });
});
