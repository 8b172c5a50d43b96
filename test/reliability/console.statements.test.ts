// What the supplier portal's and the operator's pages cost D1, counted (statements and round trips
// do not swing with the machine's load), and that none of their statements reads a whole table:
// an account's volume per day and the pipeline's backlog come from indexes, not scans.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { listApiKeys, ordersPerDay } from "../../src/accounts/accounts.service";
import { createDb } from "../../src/db";
import { meteredD1 } from "../../src/db/metrics";
import { getSupplierDispatch, listSupplierDispatches } from "../../src/forwarding/supplier-dispatches.service";
import { lastSweeperRuns } from "../../src/pipeline/cron";
import { listFailingDeliveries, listFailingWriteBacks, pipelineBacklog } from "../../src/pipeline/health.service";
import { createAccount, createOrder, orderPayload } from "../helpers/factories";
import { call } from "../helpers/http";
import { fullScans, metered, planOf } from "../helpers/statements";
import { supplierWithRule } from "../helpers/suppliers";
import { waitFor } from "../helpers/wait";

const db = () => createDb(meteredD1(env.DB));
/** Tables these pages read beyond the pipeline's. (sweeper_runs is read newest first by its key, LIMIT n: never more.) */
const ALSO = ["webhook_deliveries", "api_keys", "dead_letters", "shop_write_backs"];
const page = { page: 1, perPage: 20 };

describe("the operator's pages, counted", () => {
  it("reads the pipeline's backlog in one round trip of index reads", async () => {
    const { result, metrics } = await metered(() => pipelineBacklog(db()));
    expect([metrics.roundTrips, metrics.queries]).toEqual([1, 10]);
    expect(result.routing).toEqual({ count: expect.any(Number), oldest: result.routing.count ? expect.any(String) : null });
    expect(await fullScans(metrics.statements, ALSO)).toEqual([]);
  });

  it("lists failing deliveries, sweeper runs and an account's keys in one round trip each, without scans", async () => {
    const creds = await createAccount();
    const reads: (() => Promise<unknown>)[] = [() => listFailingDeliveries(db(), page), () => listFailingWriteBacks(db(), page), () => lastSweeperRuns(db(), 20), () => listApiKeys(db(), creds.accountId, page)];
    for (const run of reads) {
      const { metrics } = await metered(run);
      expect(metrics.roundTrips).toBe(1);
      expect(await fullScans(metrics.statements, ALSO)).toEqual([]);
    }
  });

  it("counts an account's orders per day in one statement answered from an index alone", async () => {
    const creds = await createAccount();
    await createOrder(creds);
    await createOrder(creds, { test: true });
    const { result, metrics } = await metered(() => ordersPerDay(db(), creds.accountId, 366));
    expect(result).toHaveLength(366);
    expect(result.at(-1)).toEqual({ day: new Date().toISOString().slice(0, 10), orders: 1, testOrders: 1 });
    expect(result.slice(0, -1).every((d) => d.orders === 0 && d.testOrders === 0)).toBe(true);
    expect(metrics.queries).toBe(1);
    const plan = await planOf(metrics.statements[0]);
    expect(plan.join("\n")).toMatch(/^SEARCH orders USING COVERING INDEX orders_account_test_created_idx \(account_id=\? AND test=\? AND created_at>\?\)/m);
  });
});

describe("the supplier portal's pages, counted", () => {
  it("reads a dispatch with its order, lines and shipments in one round trip, and its lists without scans", async () => {
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, { channel: "pull" });
    const { reference } = await createOrder(creds, orderPayload({ external_id: `p-${Date.now()}` }));
    const dispatch = await waitFor(async () => {
      const d = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data[0];
      return d?.status === "awaiting_pickup" ? d : null;
    });
    const who = { id: supplier.id, accountId: creds.accountId, name: supplier.name };
    const one = await metered(() => getSupplierDispatch(db(), who, dispatch.id));
    expect([one.metrics.roundTrips, one.metrics.queries]).toEqual([1, 4]);
    expect(one.result.order.reference).toBe(reference);
    expect(await fullScans(one.metrics.statements, ALSO)).toEqual([]);
    for (const view of ["open", "history"] as const) {
      const listed = await metered(() => listSupplierDispatches(db(), who, view, page, view === "open" ? "oldest" : "newest"));
      expect(listed.metrics.roundTrips).toBeLessThanOrEqual(2);
      expect(await fullScans(listed.metrics.statements, ALSO)).toEqual([]);
    }
  });
});
