// The shop console's landing page: everything that waits for a person, counted, newest first,
// each item linking to where it is dealt with.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sealForWorker } from "../../scripts/lib/seal.mjs";
import { seedDemo, type DemoReferences } from "../../scripts/lib/demo-data.mjs";
import {
  ageRows,
  api,
  BASE,
  closeBrowser,
  createShop,
  expectAccessible,
  fireCron,
  newPage,
  onWorkerDb,
  penOrder,
  pullSupplier,
  screenshot,
  signInShop,
  supplierApi,
  unique,
  until,
  type Shop,
} from "../browser/console";
import { startStandIns } from "../shops/stand-ins/harness";
import { woocommerceStandIn } from "../shops/stand-ins/woocommerce";

let shop: Shop;
let refs: DemoReferences;
let demo: Awaited<ReturnType<typeof seedDemo>>;
let lampOrders: string[];

beforeAll(async () => {
  shop = await createShop("Demo shop");
  demo = await seedDemo(BASE, shop);
  refs = demo.references;
  // Two more lamp orders: the refusing supplier webhook fails them too, and the refusing shop
  // webhook their events; each is still one item on Needs attention.
  const lamp = (id: string) => ({ ...penOrder(id), products: [{ external_id: "LAMP-1", name: "Floor lamp", category: "lamps", quantity: 1, price: 5 }] });
  lampOrders = [refs.failed];
  for (const id of ["DEMO-1009", "DEMO-1010"]) lampOrders.push(String((await api(shop, "POST", "/api/v1/orders", lamp(id))).json.reference));
  for (const reference of lampOrders)
    await until(async () => (await api(shop, "GET", `/api/v1/orders/${reference}`)).json.order_lines[0]?.current_status === "failed", `order ${reference} to fail`);
  // Time passes: the unmatched line has waited an hour, the pulled order two days.
  ageRows("UPDATE order_lines SET updated_at = '2020-01-01T00:00:00.000000Z' WHERE account_id = ? AND current_status = 'pending'", [shop.accountId]);
  ageRows("UPDATE dispatches SET created_at = '2020-01-01T00:00:00.000000Z' WHERE account_id = ? AND status = 'awaiting_pickup'", [shop.accountId]);
  // The manual supplier's day to answer has passed; the cron fires its deadline.
  ageRows("UPDATE order_lines SET ack_due_at = '2020-01-01T00:00:00.000000Z' WHERE account_id = ? AND ack_due_at IS NOT NULL", [shop.accountId]);
  await fireCron();
  // (The demo's webhook endpoint refuses its delivery, its feed file has a row without SKU, and it
  // asks the manual supplier to cancel a chair.)
});
afterAll(closeBrowser);

describe("needs attention", () => {
  it("counts what waits for a person, newest first, each linking to where it is fixed", async () => {
    const page = await newPage();
    await signInShop(page, shop);
    expect(new URL(page.url()).pathname).toBe("/console");
    // The failing webhook has had its first attempt for each of the three orders by now.
    for (let i = 0; i < 40 && !/3 deliveries affected/.test(await page.locator("section.attention").allInnerTexts().then((t) => t.join())); i++) {
      await new Promise((r) => setTimeout(r, 250));
      await page.reload();
    }
    const sections = await page.locator("section.attention h2").allInnerTexts();
    expect(sections).toEqual([
      "Blocked orders 1",
      "Lines that found no supplier 1",
      "Failed sends 1",
      "Declined or partly confirmed lines 2",
      "Orders suppliers have not fetched 1",
      "Suppliers past a deadline 1",
      "Cancellations to carry to a supplier 1",
      "Failing webhook deliveries 1",
      "Feed imports with problems 1",
    ]);
    const blocked = page.locator("section.attention", { has: page.locator("#blocked-heading") });
    expect(await blocked.locator("li").innerText()).toMatch(/Order blocked by rule #\d+ 'Hold big orders for review'/);
    expect(await page.locator("section.attention", { has: page.locator("#pending-heading") }).locator("li").innerText()).toContain("no active supplier named 'Tapijtfabriek'");
    const section = (id: string) => page.locator("section.attention", { has: page.locator(`#${id}-heading`) });
    expect(await section("imports").locator("li").innerText()).toContain("1 row rejected");
    expect(await section("overdue").locator("li").innerText()).toMatch(
      new RegExp(`^Order ${refs.ruled} · Garden chair Ruled · not answered in time · .+\\nNo answer from supplier Tuinhout within 24 hours of the send \\(acknowledgement deadline\\)\\nDismiss Snooze 1 day Snooze 1 week$`),
    );
    expect(await section("cancellations").locator("li").innerText()).toMatch(new RegExp(`^Order ${refs.ruled} · Tuinhout · cancellation of 1 line · Tell the supplier · `));
    // Each item links to where it is dealt with: the order, the webhook's deliveries, the feed's imports.
    expect(await section("webhooks").getByRole("link").first().getAttribute("href")).toBe(`/console/webhooks/${demo.webhookId}`);
    // One item per cause: the supplier's refusing webhook, with the three orders it failed (one line each, so the orders go unsaid).
    const failed = section("failed").locator(":scope > ul > li");
    expect(await failed.count()).toBe(1);
    expect(await failed.locator(".cause-words").innerText()).toMatch(/^Supplier Lampenlab's webhook refuses our deliveries \(HTTP \d{3}[^)]*\): /);
    expect(await failed.locator(":scope > small").innerText()).toMatch(/^3 lines affected; the newest .+:$/);
    expect(await failed.locator(":scope > ul > li > a").allInnerTexts()).toEqual(lampOrders.toReversed().map((r) => `Order ${r}`));
    // The same for the shop's refusing endpoint: one item, every order's event under it.
    const webhooks = section("webhooks").locator(":scope > ul > li");
    expect(await webhooks.count()).toBe(1);
    expect(await webhooks.locator(".cause-words").innerText()).toMatch(/^Your webhook endpoint \S+\/demo-shop-endpoint-that-refuses refuses our deliveries \(HTTP \d{3}\)/);
    expect(await webhooks.locator(":scope > small").innerText()).toMatch(/^3 deliveries affected; the newest .+:$/);
    expect(await section("imports").getByRole("link").getAttribute("href")).toBe(`/console/catalogue/feeds/${demo.feedId}`);
    await screenshot(page, "needs-attention");
    await expectAccessible(page);

    await page.locator("section.attention", { has: page.locator("#failed-heading") }).getByRole("link", { name: `Order ${refs.failed}` }).click();
    await page.waitForURL(`**/console/orders/${refs.failed}`);
  });

  it("lists a line whose supplier let its acknowledgement deadline pass, until the supplier answers", async () => {
    const deadlines = await createShop();
    const supplier = await pullSupplier(deadlines, unique("Slow"), "pens");
    await api(deadlines, "PATCH", `/api/v1/suppliers/${supplier.id}`, { acknowledgement_deadline_hours: 1 });
    const reference = String((await api(deadlines, "POST", "/api/v1/orders", penOrder(unique("LATE"), {}, { category: "pens" }))).json.reference);
    const dispatch = await until(async () => {
      const list = await supplierApi(supplier.key, "GET", "/api/v1/supplier/orders");
      return list.json.data.find((d: { order: { reference: string } }) => d.order.reference === reference);
    }, "the order awaiting pickup");
    // An hour and more later: the deadline is due, and the cron fires it.
    ageRows("UPDATE order_lines SET ack_due_at = '2020-01-01T00:00:00.000000Z' WHERE account_id = ?", [deadlines.accountId]);
    await fireCron();

    const page = await newPage();
    await signInShop(page, deadlines);
    expect(await page.locator("section.attention h2").allInnerTexts()).toEqual(["Suppliers past a deadline 1"]);
    const item = page.locator("section.attention", { has: page.locator("#overdue-heading") }).locator("li");
    expect(await item.innerText()).toMatch(
      new RegExp(`^Order ${reference} · Pen Ruled · .+\\nNo answer from supplier ${supplier.name} within 1 hour of the send \\(acknowledgement deadline\\)\\nDismiss Snooze 1 day Snooze 1 week$`),
    );
    await expectAccessible(page);

    // The supplier answers (it takes the order): the line is no longer late.
    expect((await supplierApi(supplier.key, "POST", `/api/v1/supplier/orders/${dispatch.dispatch_id}/ack`)).status).toBe(200);
    await page.reload();
    expect(await page.getByRole("heading", { name: "All clear" }).isVisible()).toBe(true);
  });

  it("says a write-back's 404 in words with the shop's answer one click away; dismissed until it recurs, snoozed until its time", async () => {
    const standIns = await startStandIns([woocommerceStandIn]);
    try {
      const own = await createShop();
      const wc = (await (await fetch(`${standIns.url}/__shops`, { method: "POST", body: JSON.stringify({ platform: "woocommerce", seed: { orders: [] } }) })).json()) as {
        base_url: string;
        credentials: Record<string, string>;
      };
      const sealed = sealForWorker(inject("secretsKey"), JSON.stringify(wc.credentials), `shop_connection:${own.accountId}:woocommerce`);
      const now = new Date().toISOString();
      onWorkerDb(
        `INSERT INTO shop_connections (account_id, platform, name, base_url, credentials_sealed, credentials_hint, sources, settings, active, created_at, updated_at)
         VALUES (${own.accountId}, 'woocommerce', 'My WooCommerce', '${wc.base_url}', '${sealed}', '{}', NULL, '{"mode":"live","complete_status":"completed","tracking":"auto"}', 1, '${now}', '${now}')`,
      );
      const supplier = await pullSupplier(own, unique("Mugs"), "kitchen");
      // The plugin sent an order number the shop does not have.
      const reference = String((await api(own, "POST", "/api/v1/orders", penOrder("5002", {}, { category: "kitchen" }))).json.reference);
      const dispatch = await until(async () => {
        const list = await supplierApi(supplier.key, "GET", "/api/v1/supplier/orders");
        return list.json.data.find((d: { order: { reference: string } }) => d.order.reference === reference);
      }, "the order awaiting pickup");
      const shipped = { answers: [{ line_id: dispatch.lines[0].id, action: "ship", quantity: 1, carrier: "PostNL", tracking_number: "3S5002" }] };
      expect((await supplierApi(supplier.key, "POST", "/api/v1/supplier/answers", shipped)).status).toBe(200);
      const parked = await until(async () => {
        const list = (await api(own, "GET", `/api/v1/orders/${reference}/shop-sync`)).json.data as { id: number; status: string }[];
        return list[0]?.status === "failed" ? list[0] : null;
      }, "the write-back to be parked");

      const page = await newPage();
      await signInShop(page, own);
      const item = page.locator("section.attention", { has: page.locator("#shops-heading") }).locator(":scope > ul > li");
      expect(await item.locator(".cause-words").innerText()).toBe("Your shop has no order 5002: was it deleted, or did the plugin send another number?");
      expect(await item.locator(":scope > ul > li").innerText()).toMatch(new RegExp(`^Order ${reference} \\(5002\\) · shipment to My WooCommerce · Failed · `));
      // The shop's own answer, as it came, one click away.
      const answer = item.getByText("GET /wp-json/wc/v3/orders/5002 → HTTP 404", { exact: false });
      expect(await answer.isVisible()).toBe(false);
      await item.getByText("Show the shop's answer").click();
      expect(await answer.isVisible()).toBe(true);
      expect(await item.locator("details pre").innerText()).toMatch(/^GET \/wp-json\/wc\/v3\/orders\/5002 → HTTP 404\n\{"code":"woocommerce_rest_shop_order_invalid_id"/);
      await screenshot(page, "needs-attention-write-back-404");
      await expectAccessible(page);

      // Dismissed: gone, until the same cause fails again (a replay that meets the same 404).
      await item.getByRole("button", { name: "Dismiss" }).click();
      await page.waitForURL(/\/console$/);
      expect(await page.locator(".flash").innerText()).toBe("Dismissed: it comes back if it happens again.");
      expect(await page.locator("#shops-heading").count()).toBe(0);
      expect((await api(own, "POST", `/api/v1/orders/${reference}/shop-sync/${parked.id}/replay`, {})).status).toBe(202);
      await until(async () => ((await api(own, "GET", `/api/v1/orders/${reference}/shop-sync`)).json.data[0]?.status === "failed" ? true : null), "the replay to fail again");
      await page.reload();
      expect(await page.locator("section.attention h2").allInnerTexts()).toEqual(["Failing writes into the shop 1"]);

      // Snoozed for a day: gone, even when it fails again meanwhile; back once the day is over.
      await item.getByRole("button", { name: "Snooze 1 day" }).click();
      await page.waitForURL(/\/console$/);
      expect(await page.locator(".flash").innerText()).toMatch(/^Snoozed until \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/);
      expect(await page.getByRole("heading", { name: "All clear" }).isVisible()).toBe(true);
      ageRows("UPDATE attention_set_asides SET snoozed_until = '2020-01-01T00:00:00.000000Z' WHERE account_id = ?", [own.accountId]);
      await page.reload();
      expect(await page.locator("section.attention h2").allInnerTexts()).toEqual(["Failing writes into the shop 1"]);
      await expectAccessible(page);
    } finally {
      await standIns.close();
    }
  });

  it("says all is clear when nothing waits", async () => {
    const page = await newPage();
    await signInShop(page, await createShop());
    expect(await page.getByRole("heading", { name: "All clear" }).isVisible()).toBe(true);
    await expectAccessible(page);
  });
});
