// The shop's order pages in a real browser, on the demo data of npm start: the list with the API's
// filters in the URL, pagination, the order page (lines, timelines, shipments, dispatches, explain),
// reading without JavaScript, times in the viewer's zone, a phone-width pass, axe on every page.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo, type DemoReferences } from "../../scripts/lib/demo-data.mjs";
import { api, BASE, closeBrowser, columnTexts, createShop, expectAccessible, newPage, screenshot, signInShop, until, type Shop } from "../browser/console";

let shop: Shop;
let refs: DemoReferences;
let page: Page;

beforeAll(async () => {
  shop = await createShop("Demo shop");
  refs = (await seedDemo(BASE, shop)).references;
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(closeBrowser);

const newestFirst = () => [refs.awaitingPickup, refs.failed, refs.blocked, refs.pending, refs.answered, refs.completed, refs.ruled];

describe("the orders page", () => {
  it("lists the orders newest first with their line states, each reference linking to its order", async () => {
    await page.goto("/console/orders");
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Orders");
    expect(await columnTexts(page, "Reference")).toEqual(newestFirst());
    const row = page.locator("tbody tr", { hasText: refs.answered });
    // How far the order has got (its first line shipped 4 of its 8 items), then its lines' states.
    expect(await row.locator(".badge").allInnerTexts()).toEqual(["Shipped 4 of 8", "1 × Sent", "1 × Partly confirmed", "1 × Declined"]);
    expect(await page.locator("tbody tr", { hasText: refs.blocked }).locator("td").last().innerText()).toBe("Blocked");
    await screenshot(page, "orders");
    await expectAccessible(page);
    await page.getByRole("link", { name: refs.answered }).click();
    await page.waitForURL(`**/console/orders/${refs.answered}`);
  });

  it("filters like the API, keeps the filters in the URL, and agrees with GET /api/v1/orders", async () => {
    await page.goto("/console/orders");
    await page.getByText("More filters").click();
    await page.getByRole("checkbox", { name: "Declined" }).check();
    await page.getByRole("checkbox", { name: "Failed" }).check();
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(/statuses=failed/);
    await page.waitForFunction(() => document.querySelectorAll("tbody tr").length === 2);
    expect(new URL(page.url()).searchParams.getAll("statuses").sort()).toEqual(["declined", "failed"]);
    const apiList = await api(shop, "GET", "/api/v1/orders?statuses=declined,failed");
    expect(await columnTexts(page, "Reference")).toEqual(apiList.json.data.map((o: { reference: string }) => o.reference));
    expect(await columnTexts(page, "Reference")).toEqual([refs.failed, refs.answered]);

    // A shared URL shows the same view; every other filter of the API works from the URL too.
    const shared = await newPage();
    await signInShop(shared, shop);
    await shared.goto(`/console/orders?external_id=DEMO-100&blocked=true`);
    expect(await columnTexts(shared, "Reference")).toEqual([refs.blocked]);
    await shared.goto(`/console/orders?total_min=300&total_max=400`);
    expect(await columnTexts(shared, "Reference")).toEqual([refs.answered, refs.completed]);
    await shared.goto(`/console/orders?source=demo%20WEBSHOP&per_page=2`);
    expect(await columnTexts(shared, "Reference")).toEqual([refs.awaitingPickup, refs.failed]);
    expect(await shared.getByLabel("Source").inputValue()).toBe("demo WEBSHOP");
    await shared.goto(`/console/orders?source=another%20shop`);
    expect(await shared.locator("table").count()).toBe(0);
    await shared.goto(`/console/orders?external_id=DEMO-1007`);
    expect(await shared.getByRole("heading", { name: "No orders match these filters" }).isVisible()).toBe(true);
    await shared.goto(`/console/orders?external_id=DEMO-1007&include_test=true`);
    expect(await columnTexts(shared, "Reference")).toEqual([refs.test]);
    const suppliers = await api(shop, "GET", "/api/v1/suppliers");
    const keukenhuis = suppliers.json.data.find((s: { name: string }) => s.name === "Keukenhuis").id;
    await shared.goto(`/console/orders?supplier_ids=${keukenhuis}`);
    expect(await columnTexts(shared, "Reference")).toEqual([refs.awaitingPickup, refs.answered]);
    expect(await shared.getByRole("checkbox", { name: "Keukenhuis" }).isChecked()).toBe(true);
  });

  it("shows a bad filter's error beside its field, in the API's words", async () => {
    const res = await page.goto("/console/orders?total_min=abc&date_from=2026-02-30");
    expect(res!.status()).toBe(422);
    expect(await page.locator("#field-total_min-error").innerText()).toBe("The Total from field must be a number.");
    expect(await page.locator("#field-date_from-error").innerText()).toBe("The Created from field must be a valid ISO 8601 date.");
    expect(await page.getByLabel("Total from").getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("table").count()).toBe(0);
    await expectAccessible(page);
  });

  it("pages through the orders, keeping the filters", async () => {
    await page.goto("/console/orders?per_page=3&blocked=false");
    expect(await columnTexts(page, "Reference")).toEqual([refs.awaitingPickup, refs.failed, refs.pending]);
    expect(await page.locator(".pagination p").innerText()).toBe("1–3 of 6 orders · page 1 of 2");
    await page.getByRole("link", { name: "Older →" }).click();
    expect(new URL(page.url()).search).toBe("?per_page=3&blocked=false&page=2");
    expect(await columnTexts(page, "Reference")).toEqual([refs.answered, refs.completed, refs.ruled]);
    expect(await page.getByRole("link", { name: "Older →" }).count()).toBe(0);
    await expectAccessible(page);
  });

  it("tells a shop without orders what to do next", async () => {
    const empty = await newPage();
    await signInShop(empty, await createShop());
    await empty.goto("/console/orders");
    expect(await empty.getByRole("heading", { name: "No orders yet" }).isVisible()).toBe(true);
    expect(await empty.locator(".empty-state").innerText()).toContain("POST /api/v1/orders");
    await empty.goto("/console/orders?statuses=failed");
    expect(await empty.getByRole("heading", { name: "No orders match these filters" }).isVisible()).toBe(true);
    await expectAccessible(empty);
  });
});

describe("an order's page", () => {
  it("shows shipping, each line with status, supplier, confirmed quantity, shipments and timeline, and the dispatch", async () => {
    await page.goto(`/console/orders/${refs.answered}`);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe(`Order ${refs.answered}`);
    expect(await page.locator("address").first().innerText()).toBe("Jan Jansen\nDamrak 1\n1012LG Amsterdam\nNetherlands (NL)\nPhone 0612345678\njan@example.com");
    const mug = page.locator("article.line", { hasText: "Blue mug" });
    expect(await mug.locator("header .badge").innerText()).toBe("Shipped 4 of 4");
    const tracking = mug.getByRole("link", { name: "3SDEMO1234567" });
    expect(await tracking.getAttribute("href")).toBe("https://postnl.nl/tracktrace/3SDEMO1234567");
    expect(await mug.locator(".timeline li").allInnerTexts()).toEqual([
      expect.stringMatching(/Pending Order line created$/),
      expect.stringMatching(/Ruled Matched to supplier Keukenhuis by rule #\d+ 'Kitchen from Keukenhuis'$/),
      expect.stringMatching(/Ruled Waiting for supplier Keukenhuis to fetch and acknowledge the order$/),
      expect.stringMatching(/Sent Accepted by supplier Keukenhuis$/),
      expect.stringMatching(/Sent Shipped 4 by supplier Keukenhuis via PostNL \(tracking 3SDEMO1234567\)$/),
    ]);
    const knife = page.locator("article.line", { hasText: "Chef's knife" });
    expect(await knife.locator("header .badge").innerText()).toBe("Confirmed 2 of 3");
    expect(await knife.locator("dd").nth(4).innerText()).toBe("2 of 3");
    expect(await page.locator("article.line", { hasText: "Frying pan" }).locator("header .badge").innerText()).toBe("Declined");
    const dispatch = page.locator("#dispatches-heading + .table-wrap tbody tr");
    expect(await dispatch.locator("td").allInnerTexts()).toEqual(["Keukenhuis", "pull", "Acknowledged", "1", "MUG-1, PAN-1, KNIFE-1", "Accepted", expect.any(String), "—", expect.any(String)]);
    await screenshot(page, "order");
    await expectAccessible(page);
  });

  it("shows why an order is blocked, a failed send with the supplier's answer, and a line that found no supplier", async () => {
    await page.goto(`/console/orders/${refs.blocked}`);
    expect(await page.locator(".callout").innerText()).toMatch(/^Blocked: Order blocked by rule #\d+ 'Hold big orders for review'\. Nothing of this order/);
    await expectAccessible(page);

    await page.goto(`/console/orders/${refs.failed}`);
    const row = page.locator("#dispatches-heading + .table-wrap tbody tr");
    expect(await row.locator("td").nth(2).innerText()).toBe("Failed");
    expect(await row.locator("td").nth(5).innerText()).toMatch(/^Supplier Lampenlab rejected the order: HTTP 404: /);

    await page.goto(`/console/orders/${refs.pending}`);
    expect(await page.locator("article.line .timeline li").last().innerText()).toMatch(/No supplier matched: .*no active supplier named 'Tapijtfabriek'/);
    expect(await page.locator("#dispatches-heading + p").innerText()).toContain("Nothing has been sent yet");
  });

  it("shows the events sent to the shop about the order, each with its deliveries", async () => {
    // The demo's webhook (order.created, to an endpoint that refuses) came after the first orders.
    await page.goto(`/console/orders/${refs.answered}`);
    expect(await page.locator("#events-heading + p").innerText()).toMatch(/^No events about this order\./);

    await page.goto(`/console/orders/${refs.awaitingPickup}`);
    const row = (type: string) => page.locator("#events-heading ~ .table-wrap tbody tr", { has: page.locator("code", { hasText: type }) });
    const created = await until(async () => {
      await page.reload();
      const text = await row("order.created").locator("td").nth(3).innerText();
      return /HTTP 404$/.test(text) ? text : null;
    }, "the refused delivery of order.created");
    expect(created).toMatch(/^Webhook #\d+: (Waiting|Sending|Failed) · \d+ attempts? · HTTP 404$/);
    expect(await row("order.created").getByRole("link").getAttribute("href")).toMatch(/^\/console\/webhooks\/\d+$/);
    // Events the webhook does not subscribe to are recorded, and delivered to no one.
    const cancelled = await row("order.cancelled").locator("td").allInnerTexts();
    expect(cancelled.slice(2)).toEqual(["customer wants one board", "no webhook takes this event"]);
    expect(await row("order_line.status_changed").first().locator("td").nth(2).innerText()).toMatch(/^Line BOARD-1 (Pending|Ruled) → (Ruled|Sent) /);
    await expectAccessible(page);
  });

  it("explains inline why each line went to its supplier, from the explain service", async () => {
    // (axe needs JavaScript: the explanation's own page is checked here, with it.)
    await page.goto(`/console/orders/${refs.ruled}/explain`);
    await expectAccessible(page);
    await page.goto(`/console/orders/${refs.ruled}`);
    await page.getByText("Show how each line is matched now").click();
    const result = page.locator(".explain-body .explain-result");
    await result.waitFor();
    expect(await result.locator("article").first().locator("p").first().innerText()).toMatch(/^Decision: Matched to supplier Tuinhout by rule #\d+ 'Garden furniture from Tuinhout'$/);
    expect(await result.locator("article").nth(1).locator("p").first().innerText()).toMatch(/^Decision: Skipped by rule #\d+ 'Gift wrap is a service'/);
    await screenshot(page, "order-explain");
    await expectAccessible(page);
  });

  it("reads without JavaScript: the list, the order in UTC, and the explain as a page of its own", async () => {
    const plain = await newPage({ javaScriptEnabled: false });
    await signInShop(plain, shop);
    await plain.goto("/console/orders");
    expect(await columnTexts(plain, "Reference")).toEqual(newestFirst());
    expect(await plain.locator("tbody tr").first().locator("time").innerText()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    await plain.goto(`/console/orders/${refs.ruled}`);
    await plain.getByText("Show how each line is matched now").click();
    await plain.getByRole("link", { name: "Open the explanation" }).click();
    expect(await plain.getByRole("heading", { level: 1 }).innerText()).toBe(`Why these suppliers: order ${refs.ruled}`);
    expect(await plain.locator(".explain-result article").count()).toBe(2);
  });

  it("shows times in the viewer's time zone, with UTC in the title", async () => {
    const tokyo = await newPage({ timezoneId: "Asia/Tokyo", locale: "en-GB" });
    await signInShop(tokyo, shop);
    await tokyo.goto(`/console/orders/${refs.ruled}`);
    const time = tokyo.locator("hgroup time").first();
    const iso = (await time.getAttribute("datetime"))!;
    const expected = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "Asia/Tokyo" }).format(new Date(iso));
    expect(await time.innerText()).toBe(expected);
    expect(await time.getAttribute("title")).toMatch(/ UTC$/);
  });

  it("fits a 360 px wide screen: no sideways scrolling of the page, tables scroll in their own box", async () => {
    const phone = await newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await signInShop(phone, shop);
    for (const path of ["/console", "/console/orders", `/console/orders/${refs.answered}`]) {
      await phone.goto(path);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(360);
      await expectAccessible(phone);
    }
    await phone.goto("/console/orders");
    await screenshot(phone, "orders-360");
  });
});
