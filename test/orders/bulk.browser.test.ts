// Bulk actions on the order list in a real browser (ticked orders, the whole page, every order
// matching the filters; the page of outcomes per order), and the amounts' currency on the list and
// an order's page; each checked through the API.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo, type DemoReferences } from "../../scripts/lib/demo-data.mjs";
import { api, BASE, closeBrowser, columnTexts, createShop, expectAccessible, newPage, penOrder, screenshot, signInShop, unique, type Shop } from "../browser/console";

let shop: Shop;
let refs: DemoReferences;
let page: Page;
// Three pen orders of this run, found on the list by their external ids' common prefix.
const prefix = unique("bulk");
const pens: string[] = [];

beforeAll(async () => {
  shop = await createShop();
  refs = (await seedDemo(BASE, shop)).references;
  expect((await api(shop, "PATCH", "/api/v1/settings", { currency: "GBP" })).status).toBe(200);
  for (const [i, extra] of [{}, { currency: "usd", total: 1234.5 }, {}].entries()) {
    pens.push(String((await api(shop, "POST", "/api/v1/orders", penOrder(`${prefix}-${i}`, extra))).json.reference));
  }
  page = await newPage();
  await signInShop(page, shop);
}, 120_000);
afterAll(closeBrowser);

type Order = { blocked: boolean; order_lines: { current_status: string; logs: { message: string }[] }[] };
const order = async (ref: string) => (await api(shop, "GET", `/api/v1/orders/${ref}`)).json as Order;
const penList = `/console/orders?external_id=${prefix}`;
const outcomes = async () => {
  const [orders, said] = [await columnTexts(page, "Order"), await columnTexts(page, "Outcome")];
  return orders.map((ref, i) => [ref, said[i]]);
};

describe("bulk actions on the order list", () => {
  it("shows every amount with its currency: the order's own, or the account's", async () => {
    await page.goto(penList);
    expect(await columnTexts(page, "Total")).toEqual(["5.00 GBP", "1,234.50 USD", "5.00 GBP"]);
    await page.goto(`/console/orders/${pens[1]}`);
    expect(await page.locator("dt:text-is('Order total') + dd").innerText()).toBe("1,234.50 USD");
    expect(await page.locator("dt:text-is('Price') + dd").innerText()).toBe("5.00 USD (purchase —)");
    await page.goto(`/console/orders/${pens[0]}`);
    expect(await page.locator("dt:text-is('Order total') + dd").innerText()).toBe("5.00 GBP");
  });

  it("blocks the ticked orders with a reason, and says per order what it did", async () => {
    await page.goto(penList);
    await page.getByLabel(`Select order ${pens[0]}`).check();
    await page.getByLabel(`Select order ${pens[2]}`).check();
    await page.locator("#field-bulk-reason").fill("Fraud check");
    await expectAccessible(page);
    await page.getByRole("button", { name: "Block", exact: true }).click();
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Block: 2 orders");
    // In the list's order, newest first.
    expect(await outcomes()).toEqual([
      [pens[2], "Blocked"],
      [pens[0], "Blocked"],
    ]);
    expect(await page.getByRole("status").innerText()).toBe("2 changed, 0 left as they were.");
    await screenshot(page, "bulk-result");
    await expectAccessible(page);
    for (const ref of [pens[0], pens[2]]) {
      const blocked = await order(ref);
      expect(blocked.blocked).toBe(true);
      expect(blocked.order_lines[0].logs.at(-1)!.message).toBe("Order blocked by hand: Fraud check");
    }
    expect((await order(pens[1])).blocked).toBe(false);
  });

  it("unblocks every order matching the filters", async () => {
    await page.goto(`${penList}&blocked=true`);
    await page.getByLabel("Every order matching the filters (2)").check();
    await page.getByRole("button", { name: "Unblock", exact: true }).click();
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Unblock: 2 orders");
    expect(await outcomes()).toEqual([
      [pens[2], "Unblocked"],
      [pens[0], "Unblocked"],
    ]);
    expect((await order(pens[0])).blocked).toBe(false);
    expect((await order(pens[2])).blocked).toBe(false);
    await page.getByRole("link", { name: "Back to the orders" }).click();
    expect(new URL(page.url()).search).toBe(`?external_id=${prefix}&blocked=true`);
  });

  it("retries the failed lines of every order on the page", async () => {
    await page.goto("/console/orders?statuses=failed");
    await page.getByLabel(/^Select all on this page/).check();
    await page.getByRole("button", { name: "Retry failed lines" }).click();
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Retry failed lines: 1 order");
    expect(await outcomes()).toEqual([[refs.failed, "Retried 1 failed line"]]);
    await expectAccessible(page);
    const retried = await order(refs.failed);
    expect(retried.order_lines[0].logs.map((l) => l.message)).toContain("Retry requested: sending again");
  });

  it("says beside the choice when no order is ticked, and changes nothing", async () => {
    await page.goto(penList);
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().includes("/console/orders/bulk")),
      page.getByRole("button", { name: "Block", exact: true }).click(),
    ]);
    expect(response.status()).toBe(422);
    expect(await page.locator("#field-scope-error").innerText()).toBe("Tick at least one order, or choose every order on this page or matching the filters.");
    expect(await columnTexts(page, "Reference")).toEqual([pens[2], pens[1], pens[0]]);
    await expectAccessible(page);
    for (const ref of pens) expect((await order(ref)).blocked).toBe(false);
  });
});
