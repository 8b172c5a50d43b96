// The supplier portal in a real browser: a supplier signs in with its key, sees what waits for it
// (lines, quantities, ship-to) and its history, answers per line and for the whole dispatch
// (accept, decline with a reason, part of a line, a shipment with tracking), acknowledges a pulled
// order and downloads its CSV; every answer checked afterwards through the API, and the shop's
// order page and webhook see it at once. Only its own dispatches, and usable on a phone.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo, type DemoReferences } from "../../scripts/lib/demo-data.mjs";
import {
  api,
  BASE,
  closeBrowser,
  createShop,
  expectAccessible,
  newPage,
  pullSupplier,
  screenshot,
  signInShop,
  signInSupplier,
  supplierApi,
  until,
  webhookReceiver,
  type Shop,
} from "../browser/console";

let shop: Shop;
let refs: DemoReferences;
let supplierKey: string;
let supplier: Page;

beforeAll(async () => {
  shop = await createShop("Demo shop");
  const demo = await seedDemo(BASE, shop);
  refs = demo.references;
  supplierKey = demo.supplierKey;
  supplier = await newPage();
  await signInSupplier(supplier, supplierKey);
});
afterAll(closeBrowser);

type Line = { id: number; name: string; quantity: number; current_status: string; confirmed_quantity: number | null; logs: { message: string }[] };

let orderCounter = 0;
/** An order of kitchen lines: the demo's rules send them to Keukenhuis (pull). Waits until it awaits pickup. */
async function kitchenOrder(products: { name: string; quantity: number }[], account: Shop = shop) {
  const external = `FLOW-${Date.now().toString(36)}-${orderCounter++}`;
  const created = await api(account, "POST", "/api/v1/orders", {
    external_id: external,
    source: "Portal test",
    total: 10,
    shipping_address: { first_name: "Eva", last_name: "Visser", address1: "Kade 5", postcode: "1013AA", city: "Amsterdam", country: "NL" },
    products: products.map((p, i) => ({ external_id: `${external}-${i}`, name: p.name, category: "kitchen", quantity: p.quantity, price: 1 })),
  });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  const reference = String(created.json.reference);
  const dispatch = await until(async () => {
    const d = (await api(account, "GET", `/api/v1/orders/${reference}/dispatches`)).json.data[0];
    return d?.status === "awaiting_pickup" ? d : null;
  }, `order ${reference} to await pickup`);
  return { reference, externalId: external, dispatchId: dispatch.id as number };
}

const linesOf = async (reference: string, account: Shop = shop): Promise<Line[]> => (await api(account, "GET", `/api/v1/orders/${reference}`)).json.order_lines;
const lineNamed = async (reference: string, name: string) => (await linesOf(reference)).find((l) => l.name === name)!;
const lineItem = (page: Page, name: string) => page.locator(".dispatch-lines > li", { hasText: name });
/** One of a line's answer forms that open from a summary ("Decline…", "Confirm part…", "Add shipment…"). */
const answerForm = (page: Page, name: string, summary: string) => lineItem(page, name).locator("details", { has: page.locator("summary", { hasText: summary }) });

/** A summary's text as read aloud: its visually hidden context starts a line of its own in innerText. */
const oneLine = (text: string) => text.replace(/\s+/g, " ");

describe("the supplier's lists", () => {
  it("shows what waits for the supplier, with lines, quantities and ship-to, each opening its dispatch", async () => {
    await supplier.goto("/supplier");
    expect(await supplier.getByRole("heading", { level: 1 }).innerText()).toBe("Open dispatches");
    expect(await supplier.getByRole("banner").innerText()).toContain("Keukenhuis (supplier)");
    const cards = supplier.locator("article.dispatch");
    expect(await cards.locator("h2").allInnerTexts()).toEqual([expect.stringMatching(`^Order ${refs.awaitingPickup} dispatch #\\d+$`)]);
    expect(await cards.locator("header .badge").innerText()).toBe("Awaiting pickup");
    expect(await cards.locator(".dispatch-lines li").innerText()).toMatch(/^2 × Cutting board Ruled\nSKU — · EAN — · purchase price — · line #\d+$/);
    expect(await cards.locator("address").innerText()).toBe("Jan Jansen\nDamrak 1\n1012LG Amsterdam\nNetherlands (NL)\nPhone 0612345678");
    await screenshot(supplier, "supplier-portal");
    await expectAccessible(supplier);
    await cards.getByRole("link", { name: `Order ${refs.awaitingPickup}` }).click();
    await supplier.waitForURL(/\/supplier\/dispatches\/\d+$/);
    expect(await supplier.getByRole("heading", { level: 1 }).innerText()).toBe(`Order ${refs.awaitingPickup}`);
    // The demo shop asked for one board fewer: the request waits under Cancellation requests.
    await supplier.getByRole("link", { name: "Cancellation requests" }).click();
    await supplier.waitForURL("**/supplier/cancellations");
    const request = supplier.locator("article.cancellation");
    expect(await request.locator("h2").allInnerTexts()).toEqual([expect.stringMatching(`^Order ${refs.awaitingPickup} cancellation #\\d+$`)]);
    expect(await request.locator("p").nth(1).innerText()).toBe("Reason: customer wants one board");
    expect(await request.locator(".dispatch-lines li strong").innerText()).toBe("1 of 2 ×");
  });

  it("lists the history newest first: the acknowledged order with its lines' states", async () => {
    await supplier.goto("/supplier");
    await supplier.getByRole("link", { name: "History" }).click();
    await supplier.waitForURL("**/supplier/history");
    const items = supplier.locator("article.history-item");
    expect(await items.count()).toBeGreaterThanOrEqual(1);
    const answered = items.filter({ hasText: `Order ${refs.answered}` });
    expect(await answered.locator("header .badge").innerText()).toBe("Acknowledged");
    expect(await answered.locator("p.badges .badge").allInnerTexts()).toEqual(["Sent", "Declined", "Partly confirmed"]);
    expect(await answered.locator("p.muted").innerText()).toMatch(/ · 3 lines, 8 items · shop order DEMO-1003$/);
    await screenshot(supplier, "supplier-history");
    await expectAccessible(supplier);
  });

  it("pages the history, newest first, and tells a new supplier what to do next", async () => {
    const other = await createShop();
    const { key } = await pullSupplier(other, "History supplier", "kitchen");
    const page = await newPage();
    await signInSupplier(page, key);
    await page.goto("/supplier/history");
    expect(await page.getByRole("heading", { name: "No history yet" }).isVisible()).toBe(true);
    await page.goto("/supplier");
    expect(await page.getByRole("heading", { name: "Nothing waits for you" }).isVisible()).toBe(true);
    await expectAccessible(page);

    // 21 acknowledged orders: one more than a page.
    const orders = await Promise.all(Array.from({ length: 21 }, () => kitchenOrder([{ name: "Whisk", quantity: 1 }], other)));
    for (const o of orders) expect((await supplierApi(key, "POST", `/api/v1/supplier/orders/${o.dispatchId}/ack`)).status).toBe(200);
    const newestFirst = [...orders].sort((a, b) => b.dispatchId - a.dispatchId);
    await page.goto("/supplier/history");
    const headings = () => page.locator("article.history-item h2").allInnerTexts();
    expect(await headings()).toEqual(newestFirst.slice(0, 20).map((o) => `Order ${o.reference} dispatch #${o.dispatchId}`));
    expect(await page.locator(".pagination p").innerText()).toBe("1–20 of 21 dispatches · page 1 of 2");
    await page.getByRole("link", { name: "Older →" }).click();
    await page.waitForURL("**/supplier/history?page=2");
    expect(await headings()).toEqual([`Order ${newestFirst[20].reference} dispatch #${newestFirst[20].dispatchId}`]);
  });
});

describe("answering in the portal", () => {
  it("THE SUPPLIER FLOW: accept, decline with a reason, confirm part, ship with tracking; the shop's page and webhook see it at once", async () => {
    const hooks = await webhookReceiver();
    try {
      const order = await kitchenOrder([
        { name: "Tea pot", quantity: 2 },
        { name: "Sugar bowl", quantity: 1 },
        { name: "Saucer", quantity: 5 },
        { name: "Milk jug", quantity: 1 },
      ]);
      // The shop listens; nothing runs the cron in this suite, so only the console's own publishing can deliver.
      const hook = await api(shop, "POST", "/api/v1/webhooks", { url: hooks.url, events: ["order_line.status_changed", "order_line.shipped"] });
      expect(hook.status).toBe(201);
      const eventsFor = (lineId: number, type: string) =>
        hooks.received.map((r) => JSON.parse(r.body)).filter((e) => e.type === type && JSON.stringify(e.data).includes(`"id":${lineId}`));

      await supplier.goto("/supplier");
      await supplier.getByRole("link", { name: `Order ${order.reference}` }).click();
      await supplier.waitForURL(`**/supplier/dispatches/${order.dispatchId}`);
      await screenshot(supplier, "supplier-dispatch");
      await expectAccessible(supplier);

      // Accept one line: one tap.
      await lineItem(supplier, "Tea pot").getByRole("button", { name: "Accept line Tea pot" }).click();
      await supplier.waitForURL(`**/supplier/dispatches/${order.dispatchId}`);
      expect(await supplier.locator(".flash").innerText()).toBe("Accepted 'Tea pot'.");
      expect(await lineItem(supplier, "Tea pot").locator(".badge").innerText()).toBe("Accepted");
      const teaPot = await lineNamed(order.reference, "Tea pot");
      expect(teaPot.current_status).toBe("completed");
      expect(teaPot.logs.at(-1)!.message).toBe("Accepted by supplier Keukenhuis");
      // The shop's endpoint has the event without any cron.
      // (The line's match to this supplier may arrive too: the subscription is created right after
      // the order reached the supplier, before the pipeline published that batch's events.)
      const [accepted] = await until(async () => {
        const found = eventsFor(teaPot.id, "order_line.status_changed").filter((e) => e.data.line.status === "completed");
        return found.length ? found : null;
      }, "the webhook event of the accepted line", 10_000);
      expect(accepted.data).toEqual({
        order: { reference: order.reference, external_id: order.externalId },
        line: { id: teaPot.id, external_id: `${order.externalId}-0`, status: "completed", previous_status: "ruled" },
        message: "Accepted by supplier Keukenhuis",
      });

      // Decline without a reason: refused beside the field, in the API's words; nothing changed.
      const decline = () => answerForm(supplier, "Sugar bowl", "Decline…");
      await decline().locator("summary").click();
      await decline().getByRole("button", { name: "Decline line Sugar bowl" }).click();
      expect(await decline().locator(".field-error").innerText()).toBe("The Reason field is required when action is decline.");
      expect(await decline().getByLabel("Reason").getAttribute("aria-invalid")).toBe("true");
      await expectAccessible(supplier);
      expect((await lineNamed(order.reference, "Sugar bowl")).current_status).toBe("ruled");
      await decline().getByLabel("Reason").fill("Out of stock until May");
      await decline().getByRole("button", { name: "Decline line Sugar bowl" }).click();
      expect(await supplier.locator(".flash").innerText()).toBe("Declined 'Sugar bowl'.");
      const sugarLine = await lineNamed(order.reference, "Sugar bowl");
      expect([sugarLine.current_status, sugarLine.logs.at(-1)!.message]).toEqual(["declined", "Declined by supplier Keukenhuis: Out of stock until May"]);

      // Part of a line: all of it is refused beside the field (the service's own check), what was typed kept.
      const part = () => answerForm(supplier, "Saucer", "Confirm part…");
      await part().locator("summary").click();
      await part().getByLabel("Quantity").fill("5");
      await part().getByRole("button", { name: "Confirm quantity line Saucer" }).click();
      expect(await part().locator(".field-error").innerText()).toBe("The Quantity field must be less than the line's quantity (5).");
      expect(await part().getByLabel("Quantity").inputValue()).toBe("5");
      expect((await lineNamed(order.reference, "Saucer")).current_status).toBe("ruled");
      await part().getByLabel("Quantity").fill("3");
      await part().getByLabel("Reason").fill("3 left");
      await part().getByRole("button", { name: "Confirm quantity line Saucer" }).click();
      expect(await supplier.locator(".flash").innerText()).toBe("Confirmed part of 'Saucer'.");
      expect(await lineItem(supplier, "Saucer").locator(".line-fact").first().innerText()).toBe("Confirmed: 3 of 5");
      const saucer = await lineNamed(order.reference, "Saucer");
      expect([saucer.current_status, saucer.confirmed_quantity]).toEqual(["partially_completed", 3]);

      // A shipment with carrier, tracking number and URL (accepting the line with it).
      const ship = () => answerForm(supplier, "Milk jug", "Add shipment…");
      await ship().locator("summary").click();
      await ship().getByLabel("Carrier").fill("DHL");
      await ship().getByLabel("Tracking number").fill("JD0146000001");
      await ship().getByLabel("Tracking URL").fill("https://www.dhl.com/track?id=JD0146000001");
      await ship().getByRole("button", { name: "Add shipment line Milk jug" }).click();
      expect(await supplier.locator(".flash").innerText()).toBe("Shipment added to 'Milk jug'.");
      expect(await lineItem(supplier, "Milk jug").locator(".line-fact").innerText()).toMatch(/^Shipped 1 via DHL · tracking JD0146000001 · /);
      const milkJug = await lineNamed(order.reference, "Milk jug");
      expect(milkJug.current_status).toBe("completed");
      await until(async () => eventsFor(milkJug.id, "order_line.shipped").length > 0, "the shipped event", 10_000);

      // The shop's order page shows it all.
      const shopPage = await newPage();
      await signInShop(shopPage, shop);
      await shopPage.goto(`/console/orders/${order.reference}`);
      const badge = (name: string) => shopPage.locator("article.line", { hasText: name }).locator("header .badge").innerText();
      expect([await badge("Tea pot"), await badge("Sugar bowl"), await badge("Saucer"), await badge("Milk jug")]).toEqual(["Accepted", "Declined", "Confirmed 3 of 5", "Shipped 1 of 1"]);
      expect(await shopPage.locator("article.line", { hasText: "Saucer" }).locator("dd").nth(4).innerText()).toBe("3 of 5");
      const tracking = shopPage.locator("article.line", { hasText: "Milk jug" }).getByRole("link", { name: "JD0146000001" });
      expect(await tracking.getAttribute("href")).toBe("https://www.dhl.com/track?id=JD0146000001");
      expect(await shopPage.locator("article.line", { hasText: "Sugar bowl" }).locator(".timeline li").last().innerText()).toMatch(/Declined by supplier Keukenhuis: Out of stock until May$/);
    } finally {
      await hooks.close();
    }
  });

  it("answers the whole dispatch all or nothing, and shows a lost race with every line as it is now", async () => {
    const order = await kitchenOrder([
      { name: "Ladle", quantity: 1 },
      { name: "Colander", quantity: 2 },
      { name: "Grater", quantity: 1 },
    ]);
    await supplier.goto(`/supplier/dispatches/${order.dispatchId}`);
    // Meanwhile the supplier's own integration declines a line through the API.
    const colander = await lineNamed(order.reference, "Colander");
    expect((await supplierApi(supplierKey, "POST", "/api/v1/supplier/answers", { answers: [{ line_id: colander.id, action: "decline", reason: "damaged" }] })).status).toBe(200);
    await supplier.getByRole("button", { name: "Accept 3 lines" }).click();
    expect(await supplier.locator(".callout[role=alert]").innerText()).toBe(
      `Not possible now: The decline of order line ${colander.id} by supplier Keukenhuis is already recorded; the line cannot be given the answer 'accept'. The dispatch below shows every line as it is now.`,
    );
    expect(await lineItem(supplier, "Colander").locator(".badge").innerText()).toBe("Declined");
    expect(await lineItem(supplier, "Ladle").locator(".badge").innerText()).toBe("Ruled");
    await expectAccessible(supplier);
    // Nothing of it was written.
    expect((await linesOf(order.reference)).map((l) => l.current_status)).toEqual(["ruled", "declined", "ruled"]);

    // As it is now: two lines to accept, then one shipment for both.
    await supplier.getByRole("button", { name: "Accept 2 lines" }).click();
    expect(await supplier.locator(".flash").innerText()).toBe("Accepted all 2 lines.");
    expect((await linesOf(order.reference)).map((l) => l.current_status)).toEqual(["completed", "declined", "completed"]);
    await supplier.getByText("Ship 2 lines…").click();
    const whole = supplier.locator("section.whole-dispatch");
    await whole.getByLabel("Carrier").fill("PostNL");
    await whole.getByLabel("Tracking number").fill("3SABC123");
    await whole.getByLabel("Tracking URL").fill("https://postnl.nl/tracktrace/3SABC123");
    await whole.getByRole("button", { name: "Add shipment to 2 lines" }).click();
    expect(await supplier.locator(".flash").innerText()).toBe("Shipment added to all 2 lines.");
    const shipments = (await api(shop, "GET", `/api/v1/orders/${order.reference}`)).json.order_lines.map((l: { shipments: unknown[] }) => l.shipments);
    expect(shipments).toEqual([
      [expect.objectContaining({ quantity: 1, carrier: "PostNL", tracking_number: "3SABC123", tracking_url: "https://postnl.nl/tracktrace/3SABC123" })],
      [],
      [expect.objectContaining({ quantity: 1, carrier: "PostNL", tracking_number: "3SABC123" })],
    ]);
  });

  it("names every bad field of an answer at once, each beside its own field and once; quantity inputs say how many the line takes", async () => {
    const order = await kitchenOrder([
      { name: "Butter dish", quantity: 2 },
      { name: "Egg cup", quantity: 5 },
    ]);
    const butter = await lineNamed(order.reference, "Butter dish");
    await supplier.goto(`/supplier/dispatches/${order.dispatchId}`);
    const ship = () => answerForm(supplier, "Butter dish", "Add shipment…");
    await ship().locator("summary").click();
    expect([await ship().getByLabel("Quantity shipped").getAttribute("min"), await ship().getByLabel("Quantity shipped").getAttribute("max")]).toEqual(["1", "2"]);
    // Three bad fields: 9 of a line of 2, a carrier too long, a tracking URL that is no http(s) one.
    await ship().getByLabel("Quantity shipped").fill("9");
    await ship().getByLabel("Carrier").fill("x".repeat(256));
    await ship().getByLabel("Tracking URL").fill("javascript:alert(1)");
    await ship().getByRole("button", { name: "Add shipment line Butter dish" }).click();
    const errorOf = (name: string) => ship().locator(`#answer-${butter.id}-ship-${name}-error`);
    expect([await errorOf("quantity").innerText(), await errorOf("carrier").innerText(), await errorOf("tracking_url").innerText()]).toEqual([
      `The Quantity shipped field must not be greater than 2, what is left to ship of line ${butter.id} (0 of 2 shipped).`,
      "The Carrier field must not be greater than 255 characters.",
      "The Tracking URL field must be a valid http(s) URL.",
    ]);
    // Each once: three messages on the page, no banner repeating them.
    expect(await supplier.locator(".field-error").count()).toBe(3);
    expect(await supplier.locator(".form-error, .callout, .flash").count()).toBe(0);
    for (const label of ["Quantity shipped", "Carrier", "Tracking URL"]) expect(await ship().getByLabel(label).getAttribute("aria-invalid")).toBe("true");
    expect(await ship().getByLabel("Tracking URL").inputValue()).toBe("javascript:alert(1)");
    await expectAccessible(supplier);
    expect(await lineNamed(order.reference, "Butter dish")).toMatchObject({ current_status: "ruled", shipments: [] });

    // Part of a line: the quantity (below the line's 5) and the reason, both at once.
    const part = () => answerForm(supplier, "Egg cup", "Confirm part…");
    await part().locator("summary").click();
    expect([await part().getByLabel("Quantity").getAttribute("min"), await part().getByLabel("Quantity").getAttribute("max")]).toEqual(["1", "4"]);
    await part().getByLabel("Quantity").fill("5");
    await part().getByLabel("Reason").fill("r".repeat(1001));
    await part().getByRole("button", { name: "Confirm quantity line Egg cup" }).click();
    expect(await part().locator(".field-error").allInnerTexts()).toEqual([
      "The Quantity field must be less than the line's quantity (5).",
      "The Reason field must not be greater than 1000 characters.",
    ]);
    expect(await supplier.locator(".form-error").count()).toBe(0);
    expect((await lineNamed(order.reference, "Egg cup")).current_status).toBe("ruled");

    // Put right: shipped, and a line with nothing left to ship is offered no more shipments.
    await ship().locator("summary").click();
    await ship().getByLabel("Quantity shipped").fill("2");
    await ship().getByLabel("Carrier").fill("PostNL");
    await ship().getByLabel("Tracking URL").fill("https://postnl.nl/tracktrace/3SBUTTER");
    await ship().getByRole("button", { name: "Add shipment line Butter dish" }).click();
    expect(await supplier.locator(".flash").innerText()).toBe("Shipment added to 'Butter dish'.");
    expect(await ship().count()).toBe(0);
    expect((await lineNamed(order.reference, "Butter dish")).current_status).toBe("completed");
  });

  it("acknowledges a pulled order like POST /api/v1/supplier/orders/{id}/ack, which moves it to the history", async () => {
    const order = await kitchenOrder([{ name: "Rolling pin", quantity: 1 }]);
    await supplier.goto(`/supplier/dispatches/${order.dispatchId}`);
    await supplier.getByRole("button", { name: "Acknowledge order" }).click();
    expect(await supplier.locator(".flash").innerText()).toBe(`Order ${order.reference} acknowledged: the shop knows you have it.`);
    expect(await supplier.locator("article.dispatch header .badge").innerText()).toBe("Acknowledged");
    expect(await supplier.getByRole("button", { name: "Acknowledge order" }).count()).toBe(0);
    const dispatch = (await api(shop, "GET", `/api/v1/orders/${order.reference}/dispatches`)).json.data[0];
    expect([dispatch.status, dispatch.acknowledged_at]).toEqual(["acknowledged", expect.any(String)]);
    expect((await linesOf(order.reference))[0].current_status).toBe("completed");
    await supplier.goto("/supplier/history");
    expect(await supplier.locator("article.history-item h2").first().innerText()).toBe(`Order ${order.reference} dispatch #${order.dispatchId}`);
  });

  it("offers only what a line's state allows: a line shipped in full has no answers, and no Acknowledge banner stays", async () => {
    const order = await kitchenOrder([
      { name: "Cake tin", quantity: 2 },
      { name: "Pie dish", quantity: 1 },
    ]);
    const tin = await lineNamed(order.reference, "Cake tin");
    await supplier.goto(`/supplier/dispatches/${order.dispatchId}`);
    // Fresh: acknowledging means something, and every answer is offered.
    expect(await supplier.getByRole("button", { name: "Acknowledge order" }).count()).toBe(1);
    expect((await lineItem(supplier, "Cake tin").locator("summary").allInnerTexts()).map(oneLine)).toEqual(["Decline… line Cake tin", "Confirm part… line Cake tin", "Add shipment… line Cake tin"]);
    expect(await lineItem(supplier, "Cake tin").getByRole("button", { name: "Accept line Cake tin" }).count()).toBe(1);
    await expectAccessible(supplier);

    // Cake tin shipped 2 of 2 through the API, the order never acknowledged (Pie dish still waits, so
    // the dispatch still awaits pickup): the tin has nothing left to answer, and the supplier plainly has the order.
    const shipped = await supplierApi(supplierKey, "POST", "/api/v1/supplier/answers", { answers: [{ line_id: tin.id, action: "ship", quantity: 2, carrier: "PostNL", tracking_number: "3STIN2" }] });
    expect(shipped.status, shipped.text).toBe(200);
    await supplier.goto(`/supplier/dispatches/${order.dispatchId}`);
    expect(await lineItem(supplier, "Cake tin").locator(".badge").first().innerText()).toBe("Shipped 2 of 2");
    expect(await lineItem(supplier, "Cake tin").locator(".line-answers").count()).toBe(0);
    expect(await supplier.getByRole("button", { name: "Acknowledge order" }).count()).toBe(0);
    expect(await supplier.locator("form.acknowledge").count()).toBe(0);
    expect((await api(shop, "GET", `/api/v1/orders/${order.reference}/dispatches`)).json.data[0].status).toBe("awaiting_pickup");
    // The line still waiting keeps every answer it can take.
    expect((await lineItem(supplier, "Pie dish").locator("summary").allInnerTexts()).map(oneLine)).toEqual(["Decline… line Pie dish", "Add shipment… line Pie dish"]);
    expect(await lineItem(supplier, "Pie dish").getByRole("button", { name: "Accept line Pie dish" }).count()).toBe(1);
    await expectAccessible(supplier);
  });

  it("downloads the open dispatches as the same CSV as GET /api/v1/supplier/orders?format=csv", async () => {
    await kitchenOrder([{ name: "Spatula, silicone", quantity: 3 }]);
    await supplier.goto("/supplier");
    const [download] = await Promise.all([supplier.waitForEvent("download"), supplier.getByRole("button", { name: "Download CSV" }).click()]);
    expect(download.suggestedFilename()).toBe("open-dispatches.csv");
    // The browser runs in the suite's Chromium server: the file is read from it as a stream.
    let file = "";
    for await (const chunk of await download.createReadStream()) file += chunk;
    const fromApi = await fetch(`${BASE}/api/v1/supplier/orders?format=csv&per_page=100`, { headers: { authorization: `Bearer ${supplierKey}` } });
    expect(file).toBe(await fromApi.text());
    const lines = file.trimEnd().split("\r\n");
    expect(lines[0]).toMatch(/^dispatch_id,order_reference,order_external_id,line_id,/);
    expect(lines.some((l) => l.includes(',"Spatula, silicone",3,'))).toBe(true);
  });
});

describe("what a supplier may do", () => {
  it("refuses an answer whose CSRF token is wrong, and changes nothing", async () => {
    const order = await kitchenOrder([{ name: "Egg timer", quantity: 1 }]);
    await supplier.goto(`/supplier/dispatches/${order.dispatchId}`);
    const line = lineItem(supplier, "Egg timer");
    await line.locator("input[name=_csrf]").first().evaluate((input: HTMLInputElement) => (input.value = "forged"));
    const [response] = await Promise.all([supplier.waitForResponse((r) => r.url().endsWith("/answers")), line.getByRole("button", { name: "Accept line Egg timer" }).click()]);
    expect(response.status()).toBe(403);
    expect(await supplier.getByRole("heading", { level: 1 }).innerText()).toBe("Request refused");
    expect((await linesOf(order.reference))[0].current_status).toBe("ruled");
  });

  it("answers a tampered form with the API's message and changes nothing: never a 500", async () => {
    const order = await kitchenOrder([
      { name: "Sieve", quantity: 2 },
      { name: "Funnel", quantity: 1 },
    ]);
    await supplier.goto(`/supplier/dispatches/${order.dispatchId}`);
    // The whole dispatch's shipment form, sent with a quantity it does not show.
    const form = supplier.locator("section.whole-dispatch form", { has: supplier.locator("input[name=action][value=ship]") });
    await form.evaluate((f: HTMLFormElement) => f.insertAdjacentHTML("beforeend", '<input type="hidden" name="quantity" value="lots">'));
    await supplier.getByText("Ship 2 lines…").click();
    await form.getByRole("button", { name: "Add shipment to 2 lines" }).click();
    expect(await supplier.locator("section.whole-dispatch .form-error").innerText()).toBe("The Quantity shipped field must be an integer.");
    expect((await linesOf(order.reference)).map((l) => l.current_status)).toEqual(["ruled", "ruled"]);
    // An answer that does not exist, a line of another dispatch, a line id that is not one.
    const statuses = await supplier.evaluate(async (dispatchId) => {
      const token = (document.querySelector("input[name=_csrf]") as HTMLInputElement).value;
      const post = async (fields: Record<string, string>) =>
        (await fetch(`/supplier/dispatches/${dispatchId}/answers`, { method: "POST", body: new URLSearchParams({ _csrf: token, ...fields }) })).status;
      return [await post({ line_id: "all", action: "cancel" }), await post({ line_id: "1", action: "accept" }), await post({ line_id: "x", action: "accept" })];
    }, order.dispatchId);
    expect(statuses).toEqual([422, 404, 404]);
    expect((await linesOf(order.reference)).map((l) => l.current_status)).toEqual(["ruled", "ruled"]);
  });

  it("never shows another supplier's or account's dispatch: the same 404 page as an unknown one", async () => {
    const unknown = await newPage();
    await signInSupplier(unknown, supplierKey);
    const notFound = await unknown.goto("/supplier/dispatches/999999999");
    expect(notFound!.status()).toBe(404);
    const notFoundText = await unknown.locator("main").innerText();

    // Another supplier of the same shop (Tuinhout, manual), and a supplier of another account.
    const ruled = (await api(shop, "GET", `/api/v1/orders/${refs.ruled}/dispatches`)).json.data[0];
    const elsewhere = await createShop();
    await pullSupplier(elsewhere, "Foreign", "kitchen");
    const foreign = await kitchenOrder([{ name: "Foreign pan", quantity: 1 }], elsewhere);
    for (const id of [ruled.id, foreign.dispatchId]) {
      const res = await unknown.goto(`/supplier/dispatches/${id}`);
      expect(res!.status()).toBe(404);
      expect(await unknown.locator("main").innerText()).toBe(notFoundText);
      // Answering it is the same 404, and changes nothing.
      const posted = await unknown.evaluate(async (dispatchId) => {
        const token = (document.querySelector("input[name=_csrf]") as HTMLInputElement).value;
        const body = new URLSearchParams({ _csrf: token, line_id: "all", action: "accept" });
        return (await fetch(`/supplier/dispatches/${dispatchId}/answers`, { method: "POST", body })).status;
      }, id);
      expect(posted).toBe(404);
    }
    expect((await linesOf(foreign.reference, elsewhere))[0].current_status).toBe("ruled");
    expect((await linesOf(refs.ruled)).map((l) => l.current_status)).toEqual(["ruled", "skipped"]);
    await expectAccessible(unknown);
  });

  it("fits a 360 px wide phone on every portal page, with no sideways scrolling", async () => {
    const order = await kitchenOrder([
      { name: "A very long product name for a phone screen: stainless steel saucepan", quantity: 4 },
      { name: "Lid", quantity: 1 },
    ]);
    const phone = await newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await phone.goto("/supplier/sign-in");
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await signInSupplier(phone, supplierKey);
    for (const path of ["/supplier", "/supplier/history", "/supplier/cancellations", `/supplier/dispatches/${order.dispatchId}`]) {
      await phone.goto(path);
      // Every answer form open, as wide as it gets.
      for (const details of await phone.locator("details.answer").all()) await details.evaluate((d: HTMLDetailsElement) => (d.open = true));
      expect(await phone.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(360);
      await expectAccessible(phone);
    }
    expect(await phone.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true);
    await phone.goto(`/supplier/dispatches/${order.dispatchId}`);
    await screenshot(phone, "supplier-dispatch-360");
    await phone.goto("/supplier");
    await screenshot(phone, "supplier-portal-360");
  });
});
