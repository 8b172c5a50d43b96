// The actions of an order's page in a real browser, each checked afterwards through the API: block
// and unblock with a reason, match now, retry failed lines, complete chosen lines by hand; bad input
// beside its field with what was typed kept; a forged CSRF token changes nothing.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo, type DemoReferences } from "../../scripts/lib/demo-data.mjs";
import { api, BASE, closeBrowser, createShop, expectAccessible, newPage, screenshot, signInShop, type Shop } from "../browser/console";

let shop: Shop;
let refs: DemoReferences;
let page: Page;

beforeAll(async () => {
  shop = await createShop();
  refs = (await seedDemo(BASE, shop)).references;
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(closeBrowser);

type Line = { id: number; name: string; current_status: string; logs: { message: string }[] };
const order = async (ref: string) => (await api(shop, "GET", `/api/v1/orders/${ref}`)).json as { blocked: boolean; order_lines: Line[] };
const flash = () => page.locator(".flash").innerText();

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const value = await read();
    if (done(value) || i > 120) return value;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("an order's actions", () => {
  it("blocks with a reason and unblocks, as the API then shows", async () => {
    await page.goto(`/console/orders/${refs.ruled}`);
    await page.getByLabel("Reason").fill("Customer asked to wait");
    await page.getByRole("button", { name: "Block order" }).click();
    await page.waitForURL(`**/console/orders/${refs.ruled}`);
    expect(await flash()).toBe("Order blocked (Customer asked to wait): nothing of it is matched or sent until it is unblocked.");
    expect(await page.locator(".callout").innerText()).toMatch(/^Blocked: Order blocked by hand: Customer asked to wait\./);
    const blocked = await order(refs.ruled);
    expect(blocked.blocked).toBe(true);
    expect(blocked.order_lines[0].logs.at(-1)!.message).toBe("Order blocked by hand: Customer asked to wait");
    await screenshot(page, "order-actions");
    await expectAccessible(page);

    await page.getByRole("button", { name: "Unblock order" }).click();
    await page.waitForURL(`**/console/orders/${refs.ruled}`);
    expect(await flash()).toBe("Order unblocked: its lines are matched and sent again.");
    expect((await order(refs.ruled)).blocked).toBe(false);
    expect(await page.getByRole("button", { name: "Block order" }).isVisible()).toBe(true);
  });

  it("refuses a reason that is too long beside its field, keeping it, and changes nothing", async () => {
    await page.goto(`/console/orders/${refs.ruled}`);
    const long = "r".repeat(501);
    await page.getByLabel("Reason").fill(long);
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/block")), page.getByRole("button", { name: "Block order" }).click()]);
    expect(response.status()).toBe(422);
    expect(await page.locator("#field-block-reason-error").innerText()).toBe("The Reason field must not be greater than 500 characters.");
    expect(await page.getByLabel("Reason").inputValue()).toBe(long);
    expect((await order(refs.ruled)).blocked).toBe(false);
    await expectAccessible(page);
  });

  it("refuses a forged CSRF token on the block form and changes nothing", async () => {
    await page.goto(`/console/orders/${refs.ruled}`);
    await page.locator('form[action$="/block"] input[name="_csrf"]').evaluate((input) => ((input as HTMLInputElement).value = "forged"));
    await page.getByRole("button", { name: "Block order" }).click();
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Request refused");
    expect((await order(refs.ruled)).blocked).toBe(false);
  });

  it("matches now, telling what happened, as the API shows it", async () => {
    await page.goto(`/console/orders/${refs.pending}`);
    await page.getByRole("button", { name: "Match now" }).click();
    await page.waitForURL(`**/console/orders/${refs.pending}`);
    expect(await flash()).toBe("Matched now: 0 lines to a supplier, 0 lines skipped, 1 line still without a supplier.");
    const line = (await order(refs.pending)).order_lines[0];
    expect(line.current_status).toBe("pending");
    expect(line.logs.at(-1)!.message).toMatch(/^No supplier matched: .*'Tapijtfabriek'/);

    // With the supplier it names, matching now routes it.
    await api(shop, "POST", "/api/v1/suppliers", { name: "Tapijtfabriek", channel: "manual" });
    const routed = await until(() => order(refs.pending), (o) => o.order_lines[0].current_status !== "pending");
    expect(routed.order_lines[0].current_status).toBe("ruled");
    await page.reload();
    expect(await page.getByRole("button", { name: "Match now" }).count()).toBe(0);
  });

  it("retries failed lines, which the API shows sent again", async () => {
    await page.goto(`/console/orders/${refs.failed}`);
    await page.getByRole("button", { name: "Retry 1 failed line" }).click();
    await page.waitForURL(`**/console/orders/${refs.failed}`);
    expect(await flash()).toBe("1 failed line is being sent again.");
    const line = await until(
      async () => (await order(refs.failed)).order_lines[0],
      (l) => l.current_status === "failed" && l.logs.some((g) => g.message === "Retry requested: sending again"),
    );
    expect(line.logs.map((g) => g.message)).toContain("Retry requested: sending again");
  });

  it("completes the chosen lines by hand, and asks for a choice first", async () => {
    const ruled = (await order(refs.pending)).order_lines[0];
    await page.goto(`/console/orders/${refs.pending}`);
    await page.getByRole("button", { name: "Complete chosen lines" }).click();
    expect(await page.locator("#field-complete-lines-error").innerText()).toBe("The Lines field is required.");
    expect((await order(refs.pending)).order_lines[0].current_status).toBe("ruled");
    await expectAccessible(page);

    await page.getByRole("checkbox", { name: /^1 × Wool rug \(Tapijtfabriek\)$/ }).check();
    await page.getByRole("button", { name: "Complete chosen lines" }).click();
    await page.waitForURL(`**/console/orders/${refs.pending}`);
    expect(await flash()).toBe("1 line completed by hand.");
    const line = (await order(refs.pending)).order_lines.find((l) => l.id === ruled.id)!;
    expect(line.current_status).toBe("completed");
    expect(line.logs.at(-1)!.message).toBe("Completed by hand");
    expect(await page.getByRole("button", { name: "Complete chosen lines" }).count()).toBe(0);
  });
});
