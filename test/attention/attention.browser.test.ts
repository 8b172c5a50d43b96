// The shop console's landing page: everything that waits for a person, counted, newest first,
// each item linking to where it is dealt with.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
  penOrder,
  pullSupplier,
  screenshot,
  signInShop,
  supplierApi,
  unique,
  until,
  type Shop,
} from "../browser/console";

let shop: Shop;
let refs: DemoReferences;
let demo: Awaited<ReturnType<typeof seedDemo>>;

beforeAll(async () => {
  shop = await createShop("Demo shop");
  demo = await seedDemo(BASE, shop);
  refs = demo.references;
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
    // The failing webhook has had its first attempt by now.
    for (let i = 0; i < 40 && !(await page.locator("#webhooks-heading").count()); i++) {
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
      new RegExp(`^Order ${refs.ruled} · Garden chair Ruled · not answered in time · .+\\nNo answer from supplier Tuinhout within 24 hours of the send \\(acknowledgement deadline\\)$`),
    );
    expect(await section("cancellations").locator("li").innerText()).toMatch(new RegExp(`^Order ${refs.ruled} · Tuinhout · cancellation of 1 line · Tell the supplier · `));
    // Each item links to where it is dealt with: the order, the webhook's deliveries, the feed's imports.
    expect(await section("webhooks").getByRole("link").getAttribute("href")).toBe(`/console/webhooks/${demo.webhookId}`);
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
      new RegExp(`^Order ${reference} · Pen Ruled · .+\\nNo answer from supplier ${supplier.name} within 1 hour of the send \\(acknowledgement deadline\\)$`),
    );
    await expectAccessible(page);

    // The supplier answers (it takes the order): the line is no longer late.
    expect((await supplierApi(supplier.key, "POST", `/api/v1/supplier/orders/${dispatch.dispatch_id}/ack`)).status).toBe(200);
    await page.reload();
    expect(await page.getByRole("heading", { name: "All clear" }).isVisible()).toBe(true);
  });

  it("says all is clear when nothing waits", async () => {
    const page = await newPage();
    await signInShop(page, await createShop());
    expect(await page.getByRole("heading", { name: "All clear" }).isVisible()).toBe(true);
    await expectAccessible(page);
  });
});
