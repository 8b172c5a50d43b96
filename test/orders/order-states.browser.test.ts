// States a person can read on an order's page, in a real browser: each line says what happened
// (sent, accepted, shipped with its quantities, declined) while the API keeps its seven states; the
// page follows the pipeline's work after a retry without a reload, and counts every attempt of a
// dispatch; the Cancel section's refusals stand beside their fields; "no events" is said truly; a
// created range that ends before it starts is refused beside its field, and by the API.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  closeBrowser,
  columnTexts,
  createShop,
  expectAccessible,
  expectRefusedBeside,
  newPage,
  penOrder,
  pulledOrder,
  pullSupplier,
  screenshot,
  signInShop,
  supplierApi,
  unique,
  until,
  webhookReceiver,
  type Shop,
} from "../browser/console";

let shop: Shop;
let page: Page;

beforeAll(async () => {
  shop = await createShop();
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(closeBrowser);

type Line = { id: number; name: string; current_status: string };
const linesOf = async (reference: string): Promise<Line[]> => (await api(shop, "GET", `/api/v1/orders/${reference}`)).json.order_lines;
const lineCard = (name: string) => page.locator("article.line", { has: page.getByRole("heading", { name: new RegExp(`^${name} `) }) });

/** A webhook supplier at `url`, a rule sending it the lines of its own category, and a one-line order of that category (with `extra` and `line` fields): its reference. */
async function webhookOrder(name: string, url: string, lineName: string, extra: Record<string, unknown> = {}, line: Record<string, unknown> = {}): Promise<string> {
  const category = unique("category");
  const supplier = (await api(shop, "POST", "/api/v1/suppliers", { name, channel: "webhook", webhook_url: url })).json;
  await api(shop, "POST", "/api/v1/routing-rules", {
    name: `${category} to ${name}`,
    conditions: [{ variable: "line.category", operator: "is", value: category }],
    action: { type: "assign_supplier", supplier_id: supplier.id },
  });
  return String((await api(shop, "POST", "/api/v1/orders", penOrder(unique("WEBHOOK"), extra, { name: lineName, category, ...line }))).json.reference);
}

/** A supplier's endpoint that refuses the first send (422) and holds the second until the test answers it. */
async function refusingThenHolding() {
  let calls = 0;
  let held: ServerResponse | undefined;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      calls += 1;
      if (calls === 1) res.writeHead(422, { "content-type": "application/json" }).end('{"error":"unknown SKU"}');
      else held = res;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/orders`,
    held: () => held,
    close: async () => {
      held?.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("what happened to each line", () => {
  it("says accepted, shipped with its quantities and declined, where the API says completed, completed and declined", async () => {
    const supplier = await pullSupplier(shop, "Bordenhuis", "plates");
    const { reference } = await pulledOrder(shop, "plates", [
      { name: "Plate", quantity: 3 },
      { name: "Bowl", quantity: 3 },
      { name: "Cup", quantity: 2 },
      { name: "Saucer", quantity: 1 },
    ]);
    const id = Object.fromEntries((await linesOf(reference)).map((l) => [l.name, l.id]));
    const answered = await supplierApi(supplier.key, "POST", "/api/v1/supplier/answers", {
      answers: [
        { line_id: id.Plate, action: "accept" },
        { line_id: id.Bowl, action: "ship", quantity: 2, carrier: "PostNL", tracking_number: "3SBOWL" },
        { line_id: id.Cup, action: "ship", quantity: 2, carrier: "PostNL", tracking_number: "3SCUP" },
        { line_id: id.Saucer, action: "decline", reason: "broken" },
      ],
    });
    expect(answered.status, answered.text).toBe(200);
    // The API's states are as they were.
    expect(Object.fromEntries((await linesOf(reference)).map((l) => [l.name, l.current_status]))).toEqual({
      Plate: "completed",
      Bowl: "completed",
      Cup: "completed",
      Saucer: "declined",
    });

    await page.goto(`/console/orders/${reference}`);
    const badge = (name: string) => lineCard(name).locator("header .badge").innerText();
    expect([await badge("Plate"), await badge("Bowl"), await badge("Cup"), await badge("Saucer")]).toEqual(["Accepted", "Shipped 2 of 3", "Shipped 2 of 2", "Declined"]);
    // An accepted line no longer looks like a shipped one: its own colour, and the API's word in its title.
    const look = async (name: string) => [await lineCard(name).locator("header .badge").getAttribute("class"), await lineCard(name).locator("header .badge").getAttribute("title")];
    expect(await look("Plate")).toEqual(["badge tone-teal", "API status: completed"]);
    expect(await look("Cup")).toEqual(["badge tone-green", "API status: completed"]);
    await expectAccessible(page);
  });

  it("says sent for a line its webhook supplier received and has not answered", async () => {
    const endpoint = await webhookReceiver();
    try {
      const reference = await webhookOrder("Glazenhuis", endpoint.url, "Glass");
      await until(async () => (await linesOf(reference))[0].current_status === "completed", "the send");
      await page.goto(`/console/orders/${reference}`);
      expect(await lineCard("Glass").locator("header .badge").innerText()).toBe("Sent");
    } finally {
      await endpoint.close();
    }
  });
});

describe("the page follows the work it started", () => {
  it("after a retry, shows the send under way, then its outcome without a reload, counting both attempts", async () => {
    // The supplier's endpoint: refuses the first send; holds the second until the test lets it through.
    const endpoint = await refusingThenHolding();
    try {
      const reference = await webhookOrder("Trage Leverancier", endpoint.url, "Slow pen");
      await until(async () => (await linesOf(reference))[0].current_status === "failed", "the refused send");

      await page.goto(`/console/orders/${reference}`);
      await page.getByRole("button", { name: "Retry 1 failed line" }).click();
      await page.waitForURL(`**/console/orders/${reference}`);
      // The in-between state: the send is under way (the supplier holds it), and the page says it updates itself.
      await until(async () => endpoint.held() !== undefined, "the second send to reach the supplier");
      await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
      expect(await page.locator("#order-lines .pending-work").innerText()).toBe("Being matched or sent: the lines update here when it is done.");
      const dispatchStatus = page.locator("#order-dispatches table").first().locator("tbody td .badge[data-status]");
      // Queued when the page was drawn; the page itself follows it to Sending.
      await dispatchStatus.filter({ hasText: "Sending" }).waitFor({ timeout: 15_000 });
      await expectAccessible(page);

      endpoint.held()!.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
      // Without a reload: the line, its dispatch and the actions follow, and the polling stops.
      await lineCard("Slow pen").locator("header .badge", { hasText: "Sent" }).waitFor({ timeout: 15_000 });
      await dispatchStatus.filter({ hasText: "Sent" }).waitFor({ timeout: 15_000 });
      expect(await page.locator("#order-lines .pending-work").count()).toBe(0);
      expect(await page.locator("#order-lines").getAttribute("hx-trigger")).toBeNull();
      expect(await page.getByRole("button", { name: "Retry 1 failed line" }).count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
      expect((await linesOf(reference))[0].current_status).toBe("completed");

      // Two attempts were made (the count restarted at the retry): the table says both, as its log lists both.
      const [dispatch] = (await api(shop, "GET", `/api/v1/orders/${reference}/dispatches`)).json.data;
      expect([dispatch.attempts, dispatch.attempt_log.length]).toEqual([1, 2]);
      const headers = await page.locator("#order-dispatches table").first().locator("thead th").allTextContents();
      const cells = await page.locator("#order-dispatches table").first().locator("tbody td").allTextContents();
      expect(cells[headers.indexOf("Attempts")]).toBe("2 (1 since the retry by hand)");
      await screenshot(page, "order-after-retry");
      await expectAccessible(page);
    } finally {
      await endpoint.close();
    }
  });
});

describe("the polled lines keep what the page shows", () => {
  it("a send that fails while the page polls: the line's actions appear without a reload, and its prices keep the order's currency", async () => {
    // The supplier's endpoint: refuses the first send; holds the second, then refuses it too.
    const endpoint = await refusingThenHolding();
    try {
      const reference = await webhookOrder("Weigerachtig", endpoint.url, "Refused pen", { currency: "usd" }, { purchase_price: 2.5 });
      await until(async () => (await linesOf(reference))[0].current_status === "failed", "the refused send");
      const [line] = await linesOf(reference);

      await page.goto(`/console/orders/${reference}`);
      const card = lineCard("Refused pen");
      expect(await card.getByRole("button", { name: `Send to a supplier… (line #${line.id})` }).count()).toBe(1);
      await page.getByRole("button", { name: "Retry 1 failed line" }).click();
      await page.waitForURL(`**/console/orders/${reference}`);
      await until(async () => endpoint.held() !== undefined, "the second send to reach the supplier");
      await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
      expect(await page.locator("#order-lines .pending-work").count()).toBe(1);
      // Being sent: no action on the line.
      expect(await card.locator(".line-actions").count()).toBe(0);

      endpoint.held()!.writeHead(422, { "content-type": "application/json" }).end('{"error":"unknown SKU"}');
      // The poll that brings the failed line brings its actions, and its prices in the order's currency.
      await card.getByRole("button", { name: `Send to a supplier… (line #${line.id})` }).waitFor({ timeout: 15_000 });
      expect(await card.getByRole("button", { name: `Re-route now (line #${line.id})` }).count()).toBe(1);
      expect(await card.locator("dl.facts").innerText()).toContain("5.00 USD (purchase 2.50 USD)");
      expect(await page.locator("#order-lines").getAttribute("hx-trigger")).toBeNull();
      expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
      expect((await linesOf(reference))[0].current_status).toBe("failed");
      await expectAccessible(page);
    } finally {
      await endpoint.close();
    }
  });
});

describe("refusals beside their fields", () => {
  it("Cancel with no line ticked: the section stays open, the message beside the lines, nothing cancelled", async () => {
    const { reference } = (await api(shop, "POST", "/api/v1/orders", penOrder(unique("CANCEL")))).json;
    await page.goto(`/console/orders/${reference}`);
    await page.getByText("Cancel lines of this order").click();
    await page.getByLabel("Why they are cancelled (optional; the suppliers see it)").fill("Customer changed their mind");
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/cancel")), page.getByRole("button", { name: "Cancel the ticked lines" }).click()]);
    expect(response.status()).toBe(422);
    expect(await page.locator("details.cancel-lines").getAttribute("open")).not.toBeNull();
    expect(await page.locator("#cancel-lines-error").innerText()).toBe("Tick the lines to cancel.");
    const box = page.locator("details.cancel-lines input[type=checkbox]");
    expect([await box.getAttribute("aria-invalid"), await box.getAttribute("aria-describedby")]).toEqual(["true", "cancel-lines-error"]);
    expect(await page.getByLabel("Why they are cancelled (optional; the suppliers see it)").inputValue()).toBe("Customer changed their mind");
    expect(await page.locator(".flash").count()).toBe(0);
    expect((await linesOf(reference))[0].current_status).not.toBe("skipped");
    await expectAccessible(page);
  });

  it("a supplier's refusal recorded without what it said: the message beside that field, nothing recorded", async () => {
    await pullSupplier(shop, "Kopjeshuis", "mugs");
    const { reference } = await pulledOrder(shop, "mugs", [{ name: "Mug", quantity: 2 }]);
    const [line] = await linesOf(reference);
    expect((await api(shop, "POST", `/api/v1/orders/${reference}/cancel`, { line_ids: [line.id] })).status).toBe(200);
    await page.goto(`/console/orders/${reference}`);
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/cancellations/answers")), page.getByRole("button", { name: "Supplier refused" }).click()]);
    expect(response.status()).toBe(422);
    await expectRefusedBeside(page, `answer-reason-${line.id}`, "Say what the supplier answered when it refused.");
    const [request] = (await api(shop, "GET", `/api/v1/orders/${reference}/cancellations`)).json.data;
    expect(request.lines.map((l: { status: string }) => l.status)).toEqual(["requested"]);
    await expectAccessible(page);
  });
});

describe("text that says what is true", () => {
  it("no events while an active webhook exists: says the order has not changed since, not to add one", async () => {
    const { reference } = (await api(shop, "POST", "/api/v1/orders", penOrder(unique("QUIET")))).json;
    const endpoint = await webhookReceiver();
    try {
      expect((await api(shop, "POST", "/api/v1/webhooks", { url: endpoint.url, events: ["order.created"] })).status).toBe(201);
      await page.goto(`/console/orders/${reference}`);
      const events = page.getByRole("region", { name: "Events sent to the shop" });
      expect(await events.locator("p").innerText()).toBe(
        "No events about this order. Events are recorded while the account has an active webhook: this order has not changed since one was active. See Webhooks.",
      );
    } finally {
      await endpoint.close();
    }
  });

  it("a created-from date after the created-up-to date: flagged beside the field, and 422 from the API", async () => {
    await page.goto("/console/orders?date_from=2026-03-02&date_to=2026-03-01");
    expect(await page.locator("#field-date_from-error").innerText()).toBe("The Created from field must be a date before or equal to Created up to.");
    expect(await page.getByLabel("Created from").getAttribute("aria-invalid")).toBe("true");
    await expectAccessible(page);
    // The same day at both ends is one whole day, and fine.
    await page.goto("/console/orders?date_from=2026-03-01&date_to=2026-03-01");
    expect(await page.locator("#field-date_from-error").count()).toBe(0);

    expect(await api(shop, "GET", "/api/v1/orders?date_from=2026-03-02&date_to=2026-03-01")).toEqual({
      status: 422,
      json: { message: "Errors", errors: { date_from: ["The date_from field must be a date before or equal to date_to."] } },
    });
    expect((await api(shop, "GET", "/api/v1/orders?date_from=2026-03-01T10:00:00Z&date_to=2026-03-01T10:00:00Z")).status).toBe(200);
  });
});

describe("how far each order has got (issue 31)", () => {
  // Four orders of one tag: handed to a webhook supplier, accepted by a pulling one, shipped 2 of 3, shipped in full.
  let tag: string;
  const refs: Record<"sent" | "accepted" | "partly" | "full", string> = { sent: "", accepted: "", partly: "", full: "" };
  let receiver: Awaited<ReturnType<typeof webhookReceiver>> | undefined;

  beforeAll(async () => {
    tag = unique("STATE");
    receiver = await webhookReceiver();
    const category = unique("mugs");
    const webhook = (await api(shop, "POST", "/api/v1/suppliers", { name: "Mokkenhuis", channel: "webhook", webhook_url: receiver.url })).json;
    await api(shop, "POST", "/api/v1/routing-rules", {
      name: `${category} to Mokkenhuis`,
      conditions: [{ variable: "line.category", operator: "is", value: category }],
      action: { type: "assign_supplier", supplier_id: webhook.id },
    });
    refs.sent = String((await api(shop, "POST", "/api/v1/orders", penOrder(`${tag}-sent`, {}, { category }))).json.reference);
    const bowls = unique("bowls");
    const puller = await pullSupplier(shop, "Schalenhuis", bowls);
    const accepted = await pulledOrder(shop, bowls, [{ name: "Bowl", quantity: 1 }], { external_id: `${tag}-accepted` });
    const partly = await pulledOrder(shop, bowls, [{ name: "Bowl", quantity: 3 }], { external_id: `${tag}-partly` });
    const full = await pulledOrder(shop, bowls, [{ name: "Bowl", quantity: 1 }, { name: "Plate", quantity: 2 }], { external_id: `${tag}-full` });
    Object.assign(refs, { accepted: accepted.reference, partly: partly.reference, full: full.reference });
    const answered = await supplierApi(puller.key, "POST", "/api/v1/supplier/answers", {
      answers: [
        { line_id: accepted.lineIds[0], action: "accept" },
        { line_id: partly.lineIds[0], action: "ship", quantity: 2, carrier: "PostNL", tracking_number: "3SPART1" },
        { line_id: full.lineIds[0], action: "ship", quantity: 1, carrier: "PostNL", tracking_number: "3SFULL1" },
        { line_id: full.lineIds[1], action: "ship", quantity: 2, carrier: "DHL", tracking_number: "JJDFULL2" },
      ],
    });
    expect(answered.status, answered.text).toBe(200);
    await until(async () => (await linesOf(refs.sent))[0].current_status === "completed", "the webhook send");
  });
  afterAll(() => receiver?.close());

  it("the list says it per order, sent, accepted, shipped 2 of 3 and shipped in full, where the API says completed for all; Not yet shipped leaves the last out", async () => {
    for (const reference of Object.values(refs)) expect((await linesOf(reference)).every((l) => l.current_status === "completed")).toBe(true);
    await page.goto(`/console/orders?external_id=${tag}`);
    const state = Object.fromEntries(
      await Promise.all(Object.entries(refs).map(async ([k, ref]) => [k, await page.locator("tbody tr", { has: page.getByRole("link", { name: ref }) }).locator("[data-order-state]").innerText()])),
    );
    expect(state).toEqual({ sent: "Sent to suppliers", accepted: "Accepted", partly: "Shipped 2 of 3", full: "Shipped in full" });
    expect(await columnTexts(page, "State")).toEqual(["Shipped in full", "Shipped 2 of 3", "Accepted", "Sent to suppliers"]);
    await expectAccessible(page);
    // "Not yet shipped": the order shipped in full goes, the one shipped 2 of 3 stays.
    await page.getByLabel("Shipping").selectOption("not_shipped");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(/shipping=not_shipped/);
    await page.waitForFunction(() => document.querySelectorAll("tbody tr").length === 3);
    expect(await columnTexts(page, "State")).toEqual(["Shipped 2 of 3", "Accepted", "Sent to suppliers"]);
    const exportLink = new URL((await page.getByRole("link", { name: "Export CSV" }).getAttribute("href"))!, "http://console");
    expect([exportLink.pathname, exportLink.searchParams.get("external_id"), exportLink.searchParams.get("shipping")]).toEqual(["/console/orders/export", tag, "not_shipped"]);
  });

  it("the order's header says it, never completed for handed over", async () => {
    const header = async (reference: string) => {
      await page.goto(`/console/orders/${reference}`);
      return page.locator("hgroup p").innerText();
    };
    const sent = await header(refs.sent);
    expect(sent).toMatch(/· Sent to suppliers \w+ \d/);
    expect(sent).not.toContain("completed");
    expect(await header(refs.partly)).toMatch(/· Shipped 2 of 3 \w+ \d/);
    expect(await header(refs.full)).toMatch(/· Shipped in full \w+ \d/);
    await expectAccessible(page);
  });

  it("the export's download says each order's state and its tracking numbers", async () => {
    await page.goto(`/console/orders?external_id=${tag}`);
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export CSV" }).click()]);
    let file = "";
    for await (const chunk of await download.createReadStream()) file += chunk;
    const rows = file.trimEnd().split("\r\n");
    const head = rows[0].split(",");
    expect(head.slice(-2)).toEqual(["state", "tracking_numbers"]);
    const byRef = Object.fromEntries(rows.slice(1).map((r) => r.split(",")).map((c) => [c[0], c.slice(-2)]));
    expect(byRef).toEqual({
      [refs.sent]: ["Sent to suppliers", ""],
      [refs.accepted]: ["Accepted", ""],
      [refs.partly]: ["Shipped 2 of 3", "3SPART1"],
      [refs.full]: ["Shipped in full", "3SFULL1; JJDFULL2"],
    });
  });
});
