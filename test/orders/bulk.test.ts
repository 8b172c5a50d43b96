// POST /api/v1/orders/bulk: retry failed lines, block or unblock many orders, each answered on its own.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { meteredD1 } from "../../src/db/metrics";
import { bulkAction } from "../../src/orders/bulk.service";
import { ListOrdersQuery } from "../../src/orders/orders.schemas";
import { createAccount, createOrder, exec, orderPayload, unique } from "../helpers/factories";
import { remoteUrl } from "../helpers/fake-remote";
import { authHeaders, call, type Credentials } from "../helpers/http";
import { benchEnv, request } from "../helpers/metered-app";
import { getOrder, logsOf } from "../helpers/routing";
import { losingPipeline } from "../helpers/pipeline";
import { fullScans, metered } from "../helpers/statements";
import { orderSettled, supplierWithRule } from "../helpers/suppliers";
import { waitFor } from "../helpers/wait";

const bulk = (creds: Credentials, body: unknown) => call("POST", "/api/v1/orders/bulk", { creds, body });
const UNKNOWN = "1000000000000001";

describe.concurrent("POST /api/v1/orders/bulk", () => {
  it("two bulk blocks racing over the same orders: each order is said blocked once, already blocked by the other", async () => {
    const creds = await createAccount();
    const refs = [];
    for (let i = 0; i < 5; i++) refs.push((await createOrder(creds)).reference);
    const [first, second] = await Promise.all([bulk(creds, { action: "block", references: refs }), bulk(creds, { action: "block", references: refs })]);
    expect([first.status, second.status]).toEqual([200, 200]);
    // Whichever wrote first says "blocked"; the other found the order blocked, as it read it or as its write found it.
    for (const [i, reference] of refs.entries()) {
      const outcomes = [first.json.results[i], second.json.results[i]].map((r: { reference: string; outcome: string }) => [r.reference, r.outcome]);
      expect(outcomes.sort()).toEqual([[reference, "already_blocked"], [reference, "blocked"]]);
    }
  });

  it("blocks the orders given, says per order what it did, and logs the reason on each", async () => {
    const creds = await createAccount();
    const [a, b] = [await createOrder(creds), await createOrder(creds)];
    expect((await call("POST", `/api/v1/orders/${b.reference}/block`, { creds })).status).toBe(200);
    const res = await bulk(creds, { action: "block", references: [a.reference, Number(b.reference), UNKNOWN], reason: "Fraud check" });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      action: "block",
      results: [
        { reference: a.reference, outcome: "blocked", message: "Blocked" },
        { reference: b.reference, outcome: "already_blocked", message: "Already blocked" },
        { reference: UNKNOWN, outcome: "not_found", message: "No order with this reference" },
      ],
    });
    const order = await getOrder(creds, a.reference);
    expect(order.blocked).toBe(true);
    expect(logsOf(order.order_lines[0]).at(-1)).toEqual(["pending", "Order blocked by hand: Fraud check"]);
    // Another account's order is not found, and stays as it was.
    const other = await createAccount();
    const theirs = await bulk(other, { action: "unblock", references: [a.reference] });
    expect(theirs.json).toEqual({ action: "unblock", results: [{ reference: a.reference, outcome: "not_found", message: "No order with this reference" }] });
    expect((await getOrder(creds, a.reference)).blocked).toBe(true);
  });

  it("unblocks every order the list's filters match, newest first", async () => {
    const creds = await createAccount();
    const refs: string[] = [];
    for (let i = 0; i < 3; i++) refs.push((await createOrder(creds, { source: i < 2 ? "Webshop" : "Other" })).reference);
    for (const ref of refs) await call("POST", `/api/v1/orders/${ref}/block`, { creds });
    const res = await bulk(creds, { action: "unblock", filter: { source: "webshop", blocked: true } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      action: "unblock",
      results: [
        { reference: refs[1], outcome: "unblocked", message: "Unblocked" },
        { reference: refs[0], outcome: "unblocked", message: "Unblocked" },
      ],
    });
    expect((await getOrder(creds, refs[0])).blocked).toBe(false);
    expect((await getOrder(creds, refs[2])).blocked).toBe(true);
    // The same request again: nothing is blocked any more.
    expect((await bulk(creds, { action: "unblock", references: refs.slice(0, 2) })).json.results.map((r: { outcome: string }) => r.outcome)).toEqual(["not_blocked", "not_blocked"]);
  });

  it("retries the failed lines of the orders that have some, and says how many", async () => {
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, { channel: "webhook", webhook_url: remoteUrl("status-400") });
    const twoLines = { products: [orderPayload().products[0], { ...orderPayload().products[0], external_id: "sku-2" }] };
    const failed = await createOrder(creds, twoLines);
    await orderSettled(creds, failed.reference, ["failed"]);
    expect((await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { webhook_url: remoteUrl("ok") } })).status).toBe(200);
    const fine = await createOrder(creds);
    await orderSettled(creds, fine.reference, ["completed"]);
    const res = await bulk(creds, { action: "retry_failed", references: [failed.reference, fine.reference] });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      action: "retry_failed",
      results: [
        { reference: failed.reference, outcome: "retried", message: "Retried 2 failed lines" },
        { reference: fine.reference, outcome: "no_failed_lines", message: "No failed lines" },
      ],
    });
    await orderSettled(creds, failed.reference, ["completed"]);
  });

  it("refuses a bad request with a 422 naming each field, and changes nothing", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    const cases: [unknown, Record<string, string[]>][] = [
      [{ action: "delete", references: [reference] }, { action: ["The selected action is invalid. Allowed values: retry_failed, unblock, block."] }],
      [{ action: "block" }, { references: ["The references field is required when filter is not present."] }],
      [{ action: "block", references: [reference], filter: {} }, { references: ["The references field prohibits filter from being present."] }],
      [{ action: "block", references: [] }, { references: ["The references field is required."] }],
      [{ action: "block", references: [reference, "12ab", 1.5] }, {
        "references.1": ["The references.1 field must be an order reference: 16 digits."],
        "references.2": ["The references.2 field must be an order reference: 16 digits."],
      }],
      [{ action: "block", references: [reference, reference] }, { "references.1": ["The references.1 field has a duplicate value."] }],
      [{ action: "retry_failed", references: [reference], reason: "x" }, { reason: ["The reason field is prohibited unless action is in block, unblock."] }],
      [{ action: "block", references: [reference], reason: "x".repeat(501) }, { reason: ["The reason field must not be greater than 500 characters."] }],
      [{ action: "block", filter: { sourse: "Webshop" } }, { "filter.sourse": ["The filter.sourse field is not a filter of the order list (GET /api/v1/orders)."] }],
      [{ action: "block", filter: { statuses: ["failed", "lost"] } }, {
        "filter.statuses": ["The selected filter.statuses is invalid. Allowed values: pending, ruled, completed, partially_completed, failed, declined, skipped."],
      }],
      // A created range that ends a microsecond before it starts, as the list refuses it (not an empty match).
      [{ action: "block", filter: { date_from: "2026-01-01T00:00:00.000001Z", date_to: "2026-01-01T00:00:00.000000Z" } }, {
        "filter.date_from": ["The filter.date_from field must be a date before or equal to filter.date_to."],
      }],
    ];
    for (const [body, errors] of cases) {
      const res = await bulk(creds, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json, JSON.stringify(body)).toEqual({ message: "Errors", errors });
    }
    expect((await getOrder(creds, reference)).blocked).toBe(false);
  });
});

describe("POST /api/v1/orders/bulk at its limit of 100 orders", () => {
  it("takes 100 references or a filter matching 100 orders, within D1's 1,000 queries; 101 is a 422 and nothing is done", async () => {
    const creds = await createAccount();
    // A manual supplier takes every line: each order ends ruled, with nothing sent.
    await supplierWithRule(creds, { channel: "manual" });
    const refs: string[] = [];
    for (let i = 0; i < 101; i++) refs.push((await createOrder(creds, { external_id: unique("max") })).reference);
    await waitFor(async () => {
      const ruled = await call("GET", "/api/v1/orders?statuses=ruled&per_page=1", { creds });
      return ruled.json.meta.total === 101 || null;
    }, 60_000);
    const newest = refs.slice(1).reverse();

    const over = await bulk(creds, { action: "block", references: refs });
    expect(over).toMatchObject({ status: 422, json: { message: "Errors", errors: { references: ["The references field must not have more than 100 items."] } } });
    const overFilter = await bulk(creds, { action: "block", filter: {} });
    expect(overFilter).toMatchObject({ status: 422, json: { message: "Errors", errors: { filter: ["The filter matches 101 orders; a bulk action takes at most 100. Narrow the filters."] } } });
    expect((await call("GET", "/api/v1/orders?blocked=true", { creds })).json.meta.total).toBe(0);

    // At the maximum, metered: every order's lines failed (set in the table), each action on 100 orders.
    const { env: view } = benchEnv();
    const headers = authHeaders(creds);
    await exec(`UPDATE order_lines SET current_status = 'failed' WHERE order_id IN (SELECT id FROM orders WHERE account_id = ?)`, creds.accountId);
    const retried = await request(view, "POST", "/api/v1/orders/bulk", headers, { action: "retry_failed", references: refs.slice(1) });
    expect(retried.status).toBe(200);
    expect(retried.json.results).toEqual(refs.slice(1).map((reference) => ({ reference, outcome: "retried", message: "Retried 1 failed line" })));
    // 9 queries per retried order (its read, its failed lines, a batch of 7) and the request's own: within D1's 1,000.
    expect(retried.counted.queries).toBeLessThanOrEqual(9 * 100 + 10);
    const oneFewer = await request(view, "POST", "/api/v1/orders/bulk", headers, { action: "block", references: newest });
    expect(oneFewer.json.results).toEqual(newest.map((reference) => ({ reference, outcome: "blocked", message: "Blocked" })));
    expect(oneFewer.counted.queries).toBeLessThanOrEqual(1000);
    const unblocked = await request(view, "POST", "/api/v1/orders/bulk", headers, { action: "unblock", filter: { blocked: true } });
    expect(unblocked.json.results).toEqual(newest.map((reference) => ({ reference, outcome: "unblocked", message: "Unblocked" })));
    expect(unblocked.counted.queries).toBeLessThanOrEqual(1000);
    console.log(`bulk at 100 orders, D1 queries: retry_failed ${retried.counted.queries}, block ${oneFewer.counted.queries}, unblock by filter ${unblocked.counted.queries}`);
  }, 120_000);
});

describe("a bulk action's statements", () => {
  it("read no whole table: by reference and by filter, each action", async () => {
    const creds = await createAccount();
    await supplierWithRule(creds, { channel: "manual" });
    const refs = [(await createOrder(creds)).reference, (await createOrder(creds)).reference];
    await waitFor(async () => (await call("GET", "/api/v1/orders?statuses=ruled", { creds })).json.meta.total === 2 || null);
    await exec(`UPDATE order_lines SET current_status = 'failed' WHERE order_id IN (SELECT id FROM orders WHERE account_id = ?)`, creds.accountId);
    const db = createDb(meteredD1(env.DB));
    const run = (action: "retry_failed" | "block" | "unblock", target: Parameters<typeof bulkAction>[4]) =>
      metered(() => bulkAction(db, losingPipeline(), creds.accountId, action, target));
    const runs = [
      await run("retry_failed", { references: [...refs, UNKNOWN] }),
      await run("block", { filter: ListOrdersQuery.parse({ statuses: "ruled" }) }),
      await run("unblock", { references: refs }),
    ];
    expect(runs.map((r) => r.result.map((x) => x.outcome))).toEqual([["retried", "retried", "not_found"], ["blocked", "blocked"], ["unblocked", "unblocked"]]);
    expect(await fullScans(runs.flatMap((r) => r.metrics.statements))).toEqual([]);
  });
});
