// The order page shows every attempt at sending a dispatch, in a real browser: a supplier's endpoint
// (a loopback HTTP server, the network edge) refuses the first send with its reason and accepts the
// second (after "Retry" on the page); both attempts are listed in order with their outcome and the
// supplier's own words, as GET /api/v1/orders/{reference}/dispatches has them.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, createShop, expectAccessible, newPage, penOrder, screenshot, signInShop, unique, until, type Shop } from "../browser/console";

const REFUSAL = '{"error":"Unknown SKU P1: add it to our catalogue first"}';
const ACCEPTANCE = '{"received":true,"supplier_order":"PO-7781"}';

let shop: Shop;
let page: Page;
let endpoint: { url: string; close: () => Promise<void> };

/** The supplier's endpoint: 422 with its reason the first time, 200 with its order number after. */
async function supplierEndpoint() {
  let calls = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      calls += 1;
      res.writeHead(calls === 1 ? 422 : 200, { "content-type": "application/json" }).end(calls === 1 ? REFUSAL : ACCEPTANCE);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/orders`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

beforeAll(async () => {
  shop = await createShop();
  endpoint = await supplierEndpoint();
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(async () => {
  await closeBrowser();
  await endpoint.close();
});

/** The attempt table of the page's one attempt log: each row's cells. */
async function attemptRows() {
  const table = page.getByRole("region", { name: /^Attempts at sending to / }).locator("table");
  const headers = await table.locator("thead th").allTextContents();
  const rows = await table.locator("tbody tr").all();
  return Promise.all(rows.map(async (r) => Object.fromEntries((await r.locator("td").allTextContents()).map((text, i) => [headers[i], text]))));
}

describe("an order's dispatch attempts", () => {
  it("lists each attempt with when, what was sent where, the outcome, the supplier's response and how long it took", async () => {
    const supplier = (await api(shop, "POST", "/api/v1/suppliers", { name: "Pennenhuis", channel: "webhook", webhook_url: endpoint.url })).json;
    await api(shop, "POST", "/api/v1/routing-rules", { name: "all to Pennenhuis", conditions: [], action: { type: "assign_supplier", supplier_id: supplier.id } });
    const { reference } = (await api(shop, "POST", "/api/v1/orders", penOrder(unique("ATTEMPTS")))).json;
    const lineStatus = async () => (await api(shop, "GET", `/api/v1/orders/${reference}`)).json.order_lines[0].current_status as string;
    await until(async () => (await lineStatus()) === "failed", "the refused send");

    await page.goto(`/console/orders/${reference}`);
    expect(await attemptRows()).toEqual([
      {
        Attempt: "1",
        When: expect.stringMatching(/\d{4}/), // in the viewer's time zone; the moment itself is checked below
        Sent: `1 line by webhook to ${endpoint.url}`,
        Outcome: "HTTP 422",
        "Supplier's response": REFUSAL,
        Took: expect.stringMatching(/^\d+ ms$/),
      },
    ]);

    await page.getByRole("button", { name: "Retry 1 failed line" }).click();
    await page.waitForURL(`**/console/orders/${reference}`);
    await until(async () => (await lineStatus()) === "completed", "the second send");
    await page.reload();
    const rows = await attemptRows();
    expect(rows.map((r) => [r.Attempt, r.Sent, r.Outcome, r["Supplier's response"]])).toEqual([
      ["1", `1 line by webhook to ${endpoint.url}`, "HTTP 422", REFUSAL],
      ["1 (retried by hand)", `1 line by webhook to ${endpoint.url}`, "Accepted (HTTP 200)", ACCEPTANCE],
    ]);
    // The page says what the API says.
    const [dispatch] = (await api(shop, "GET", `/api/v1/orders/${reference}/dispatches`)).json.data;
    expect(dispatch.attempt_log.map((a: { outcome: string; http_status: number; response: string }) => [a.outcome, a.http_status, a.response])).toEqual([
      ["http_error", 422, REFUSAL],
      ["accepted", 200, ACCEPTANCE],
    ]);
    expect(rows.map((r) => r.Took)).toEqual(dispatch.attempt_log.map((a: { duration_ms: number }) => `${a.duration_ms} ms`));
    const moments = await page.getByRole("region", { name: /^Attempts at sending to / }).locator("tbody time").evaluateAll((ts) => ts.map((t) => t.getAttribute("datetime")));
    expect(moments).toEqual(dispatch.attempt_log.map((a: { at: string }) => a.at));
    await screenshot(page, "order-dispatch-attempts");
    await expectAccessible(page);
  });
});
