// The supplier's side of "states a person can read", in a real browser and through the supplier
// API: a pulled order whose every line is answered leaves the open dispatches (the API's open list
// and the portal agree); a refused cancellation without what happened is said beside its field; at
// 360 px the portal's header stays small and an order number is never broken in the middle; a
// line's purchase price carries its currency.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, createShop, expectAccessible, expectRefusedBeside, newPage, pulledOrder, pullSupplier, screenshot, signInSupplier, supplierApi, type Shop } from "../browser/console";

let shop: Shop;
let supplier: { id: number; name: string; key: string };

beforeAll(async () => {
  shop = await createShop();
  supplier = await pullSupplier(shop, "Lampenhuis", "lamps");
});
afterAll(closeBrowser);

/** An order of lamp lines, two of each, sent to the pull supplier; waits until it awaits pickup. */
const lampOrder = (names: string[]) => pulledOrder(shop, "lamps", names.map((name) => ({ name, quantity: 2 })));

const openIds = async (status = "") => ((await supplierApi(supplier.key, "GET", `/api/v1/supplier/orders${status}`)).json.data as { dispatch_id: number }[]).map((d) => d.dispatch_id);

describe("a pulled order answered line by line", () => {
  it("stays open while a line waits for its answer, and is closed (acknowledged) once every line is answered, in the API and the portal alike", async () => {
    const { reference, dispatchId, lineIds } = await lampOrder(["Desk lamp", "Floor lamp"]);
    const page = await newPage();
    await signInSupplier(page, supplier.key);

    const answer = async (body: unknown) => {
      const res = await supplierApi(supplier.key, "POST", "/api/v1/supplier/answers", body);
      expect(res.status, res.text).toBe(200);
    };
    await answer({ answers: [{ line_id: lineIds[0], action: "accept" }] });
    expect(await openIds()).toContain(dispatchId);
    await page.goto("/supplier");
    expect(await page.locator("article.dispatch h2").allInnerTexts()).toContain(`Order ${reference} dispatch #${dispatchId}`);

    await answer({ answers: [{ line_id: lineIds[1], action: "decline", reason: "out of stock" }] });
    expect(await openIds()).not.toContain(dispatchId);
    expect(await openIds("?status=acknowledged")).toContain(dispatchId);
    const [dispatch] = (await api(shop, "GET", `/api/v1/orders/${reference}/dispatches`)).json.data;
    expect([dispatch.status, typeof dispatch.acknowledged_at]).toEqual(["acknowledged", "string"]);

    await page.goto("/supplier");
    expect(await page.locator("article.dispatch h2").allInnerTexts()).not.toContain(`Order ${reference} dispatch #${dispatchId}`);
    await page.goto("/supplier/history");
    const item = page.locator("article.history-item", { hasText: `Order ${reference}` });
    expect(await item.locator("header .badge").innerText()).toBe("Acknowledged");
    // Acknowledging it now changes nothing.
    expect((await supplierApi(supplier.key, "POST", `/api/v1/supplier/orders/${dispatchId}/ack`)).status).toBe(200);
    await expectAccessible(page);
  });
});

describe("prices in the portal", () => {
  it("a line's purchase price carries the order's own currency, else the account's, in the open list and on the dispatch page", async () => {
    expect((await api(shop, "PATCH", "/api/v1/settings", { currency: "gbp" })).status).toBe(200);
    const dollars = await pulledOrder(shop, "lamps", [{ name: "Dollar lamp", quantity: 2, purchase_price: 12.5 }], { currency: " usd " });
    const pounds = await pulledOrder(shop, "lamps", [{ name: "Pound lamp", quantity: 2, purchase_price: 12.5 }]);
    const page = await newPage();
    await signInSupplier(page, supplier.key);
    const priceOf = (name: string) => page.locator(".dispatch-lines li", { hasText: name }).locator("small.muted").innerText();
    await page.goto("/supplier");
    expect(await priceOf("Dollar lamp")).toMatch(/ · purchase price 12\.50 USD · /);
    expect(await priceOf("Pound lamp")).toMatch(/ · purchase price 12\.50 GBP · /);
    await page.goto(`/supplier/dispatches/${dollars.dispatchId}`);
    expect(await priceOf("Dollar lamp")).toMatch(/ · purchase price 12\.50 USD · /);
    await page.goto(`/supplier/dispatches/${pounds.dispatchId}`);
    expect(await priceOf("Pound lamp")).toMatch(/ · purchase price 12\.50 GBP · /);
    await expectAccessible(page);
    expect((await api(shop, "PATCH", "/api/v1/settings", { currency: "EUR" })).status).toBe(200);
  });
});

describe("refusing a cancellation in the portal", () => {
  it("without saying what happened: the message beside that line's field, what was typed elsewhere untouched, nothing answered", async () => {
    const { reference, lineIds } = await lampOrder(["Wall lamp"]);
    expect((await api(shop, "POST", `/api/v1/orders/${reference}/cancel`, { line_ids: lineIds })).status).toBe(200);
    const page = await newPage();
    await signInSupplier(page, supplier.key);
    await page.goto("/supplier/cancellations");
    const card = page.locator("article.cancellation", { hasText: `Order ${reference}` });
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/cancellations/answer")), card.getByRole("button", { name: "Refuse" }).click()]);
    expect(response.status()).toBe(422);
    await expectRefusedBeside(page, `refuse-reason-${lineIds[0]}`, `Say what happened to line #${lineIds[0]} when you refuse its cancellation.`);
    const [request] = (await api(shop, "GET", `/api/v1/orders/${reference}/cancellations`)).json.data;
    expect(request.lines.map((l: { status: string }) => l.status)).toEqual(["requested"]);
    await expectAccessible(page);
  });
});

describe("the portal on a phone", () => {
  it("at 360 px: a compact header, and an order number never broken in the middle", async () => {
    const { reference, dispatchId } = await lampOrder(["Reading lamp with a rather long name"]);
    const phone = await newPage({ viewport: { width: 360, height: 740 }, isMobile: true });
    await signInSupplier(phone, supplier.key);
    for (const path of ["/supplier", "/supplier/history", "/supplier/cancellations", `/supplier/dispatches/${dispatchId}`]) {
      await phone.goto(path);
      const height = await phone.getByRole("banner").evaluate((e) => e.getBoundingClientRect().height);
      expect(height, path).toBeLessThanOrEqual(130);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(360);
    }
    // Each heading that names the order: on how many rows its number's digits sit (one).
    for (const path of ["/supplier", `/supplier/dispatches/${dispatchId}`]) {
      await phone.goto(path);
      const headings = phone.locator("h1, h2").filter({ hasText: reference });
      expect(await headings.count(), path).toBeGreaterThan(0);
      const rows = await headings.evaluateAll((hs, ref) => {
        return hs.map((h) => {
          const text = [h, ...Array.from(h.querySelectorAll("*"))].flatMap((e) => Array.from(e.childNodes)).find((n) => n.nodeType === 3 && n.textContent!.includes(ref))!;
          const range = document.createRange();
          const start = text.textContent!.indexOf(ref);
          range.setStart(text, start);
          range.setEnd(text, start + ref.length);
          return new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size;
        });
      }, reference);
      expect(rows, path).toEqual(rows.map(() => 1));
    }
    await phone.goto("/supplier");
    await screenshot(phone, "supplier-portal-360-header");
    await expectAccessible(phone);
  });
});
