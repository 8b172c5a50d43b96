// Faults of the platform, injected for real: a D1 failure in the middle of a write (a test-only
// SQLite trigger that aborts, scoped to this test's own account, dropped in a finally), and a crash
// between the 200 answer and the queue. Nothing is half-written, nothing is lost, nothing doubles,
// and what the queue gives up on is recorded (the real dead-letter queue) and recovered.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDb } from "../../src/db";
import worker from "../../src/index";
import { INTERNAL_ERROR_BODY } from "../../src/lib/errors";
import { CreateOrderBody } from "../../src/orders/orders.schemas";
import { createOrder as createOrderInD1 } from "../../src/orders/orders.service";
import { accountState, createAccount, exec, orderPayload, recordEvents, rows } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { supplierWithRule } from "../helpers/suppliers";
import { sweepUnroutedOrders } from "../../src/pipeline/sweeper";
import { pipelineIdle, waitFor } from "../helpers/wait";
import { losingPipeline } from "../helpers/pipeline";

/** Runs `body` while a trigger makes D1 abort the statements it matches; always drops it. */
async function withFault<T>(name: string, trigger: string, body: () => Promise<T>): Promise<T> {
  await exec(`DROP TRIGGER IF EXISTS ${name}`);
  await exec(`CREATE TRIGGER ${name} ${trigger} BEGIN SELECT RAISE(ABORT, 'injected fault'); END`);
  try {
    return await body();
  } finally {
    await exec(`DROP TRIGGER IF EXISTS ${name}`);
  }
}


/** Everything stored for an account's orders, per order: lines, logs, dispatches, events. */
async function stored(accountId: number) {
  const [row] = await rows<{ orders: number; lines: number; logs: number; dispatches: number; events: number }>(
    `SELECT (SELECT count(*) FROM orders WHERE account_id = ?1) AS orders,
            (SELECT count(*) FROM order_lines WHERE account_id = ?1) AS lines,
            (SELECT count(*) FROM order_line_logs g JOIN orders o ON o.id = g.order_id WHERE o.account_id = ?1) AS logs,
            (SELECT count(*) FROM dispatches WHERE account_id = ?1) AS dispatches,
            (SELECT count(*) FROM events WHERE account_id = ?1 AND type <> 'order.created') AS events`,
    accountId,
  );
  return row;
}

const threeLines = () => orderPayload({ products: ["a", "b", "c"].map((id) => ({ ...orderPayload().products[0], external_id: id })) });

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a D1 failure while an order is created", () => {
  // The create batch writes the order, its lines, their first logs and the order.created event:
  // a failure at any of its statements must leave none of them.
  const faults: [string, (accountId: number) => string][] = [
    ["the lines", (id) => `BEFORE INSERT ON order_lines WHEN NEW.account_id = ${id}`],
    ["the first log entries", (id) => `BEFORE INSERT ON order_line_logs WHEN NEW.message = 'Order line created' AND NEW.order_id IN (SELECT id FROM orders WHERE account_id = ${id})`],
    ["the order.created event", (id) => `BEFORE INSERT ON events WHEN NEW.account_id = ${id} AND NEW.type = 'order.created'`],
  ];

  for (const [where, trigger] of faults) {
    it(`at ${where}: the client gets the documented 500 and nothing of the order exists; a retry creates it whole`, async () => {
      const creds = await createAccount();
      await recordEvents(creds.accountId);
      const payload = threeLines();
      const logged = vi.spyOn(console, "error").mockImplementation(() => {});
      await withFault(`fault_create_${creds.accountId}`, trigger(creds.accountId), async () => {
        for (let attempt = 0; attempt < 2; attempt++) {
          const res = await call("POST", "/api/v1/orders", { creds, body: payload });
          expect(res.status).toBe(500);
          expect(res.json).toEqual(INTERNAL_ERROR_BODY);
          expect(res.text).not.toMatch(/injected|SQL|INSERT/i);
        }
        expect(await stored(creds.accountId)).toEqual({ orders: 0, lines: 0, logs: 0, dispatches: 0, events: 0 });
        expect(await rows("SELECT id FROM events WHERE account_id = ?", creds.accountId)).toEqual([]);
        expect((await call("GET", "/api/v1/orders", { creds })).json.meta.total).toBe(0);
      });
      // The cause went to the server log, with the request id.
      expect(logged.mock.calls.some(([line]) => /injected fault/.test(String(line)) && /requestId/.test(String(line)))).toBe(true);
      logged.mockRestore();

      // The shop retries: it is a new order (nothing of the failed attempts is in the way), stored whole.
      const retried = await call("POST", "/api/v1/orders", { creds, body: payload });
      expect(retried.status).toBe(200);
      expect(retried.json.message).toBe("Order created");
      const order = (await call("GET", `/api/v1/orders/${retried.json.reference}`, { creds })).json;
      expect(order.order_lines.map((l: { external_id: string; logs: { message: string }[] }) => [l.external_id, l.logs[0].message])).toEqual([
        ["a", "Order line created"],
        ["b", "Order line created"],
        ["c", "Order line created"],
      ]);
      expect((await rows("SELECT type FROM events WHERE account_id = ? AND type = 'order.created'", creds.accountId)).length).toBe(1);
    });
  }
});

describe("a D1 failure while an order is matched", () => {
  it("leaves nothing half-written; the dead letter is recorded, and the sweeper's retry completes the work once", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    const { supplier, rule } = await supplierWithRule(creds, { channel: "pull" });
    // The re-matches that creating the supplier and rule requested are done before the fault.
    await pipelineIdle(creds.accountId);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});

    const { reference, orderId } = await withFault(
      `fault_match_${creds.accountId}`,
      `BEFORE INSERT ON order_line_logs WHEN NEW.message LIKE 'Matched%' AND NEW.order_id IN (SELECT id FROM orders WHERE account_id = ${creds.accountId})`,
      async () => {
        const res = await call("POST", "/api/v1/orders", { creds, body: threeLines() });
        expect(res.json.message).toBe("Order created");
        const orderId = (await rows<{ id: number }>("SELECT id FROM orders WHERE reference = ?", String(res.json.reference)))[0].id;
        // The consumer tried as often as the queue allows; D1 failed each attempt in the middle of its
        // batch; the queue gave the message up to the dead-letter queue, whose consumer recorded it.
        const [letter] = await waitFor(async () => {
          const found = await rows<{ type: string; account_id: number; status: string }>(
            "SELECT type, account_id, status FROM dead_letters WHERE order_id = ?",
            orderId,
          );
          return found.length ? found : null;
        });
        expect(letter).toEqual({ type: "route_order", account_id: creds.accountId, status: "open" });
        // Nothing of those attempts is left: no line moved, no log, no dispatch, no event, not marked routed.
        const order = (await call("GET", `/api/v1/orders/${res.json.reference}`, { creds })).json;
        expect(order.order_lines.map((l: { current_status: string; matched_supplier: unknown; logs: unknown[] }) => [l.current_status, l.matched_supplier, l.logs.length])).toEqual([
          ["pending", null, 1],
          ["pending", null, 1],
          ["pending", null, 1],
        ]);
        expect(order.suppliers).toEqual([]);
        expect(await stored(creds.accountId)).toEqual({ orders: 1, lines: 3, logs: 3, dispatches: 0, events: 0 });
        const [state] = await rows<{ routed_at: string | null; routing_attempts: number; routing_error: string }>(
          "SELECT routed_at, routing_attempts, routing_error FROM orders WHERE id = ?",
          orderId,
        );
        // Three deliveries, three failures: the second and third delivery counted the one before.
        expect(state).toMatchObject({ routed_at: null, routing_attempts: 2 });
        expect(state.routing_error).toMatch(/injected fault/);
        return { reference: String(res.json.reference), orderId };
      },
    );
    expect(logged.mock.calls.some(([line]) => /pipeline_failed/.test(String(line)) && /injected fault/.test(String(line)))).toBe(true);
    logged.mockRestore();

    // The fault is gone; the order still waits (routed_at null), so the next sweep queues it and
    // the pipeline matches every line exactly once.
    expect(await sweepUnroutedOrders(env, new Date(Date.now() + 3 * 60_000))).toContain(orderId);
    await waitFor(async () => (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data[0]?.status === "awaiting_pickup");
    await pipelineIdle(creds.accountId);
    // One move per line and one event per move: nothing doubled by the failed attempts or the retry.
    expect(await stored(creds.accountId)).toEqual({ orders: 1, lines: 3, logs: 9, dispatches: 1, events: 3 });
    const final = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    for (const line of final.order_lines) {
      expect(line.matched_supplier).toEqual({ id: supplier.id, name: supplier.name });
      expect(line.logs.map((l: { status: string; message: string }) => [l.status, l.message])).toEqual([
        ["pending", "Order line created"],
        ["ruled", `Matched to supplier ${supplier.name} by rule #${rule.id} 'to ${supplier.name}'`],
        ["ruled", `Waiting for supplier ${supplier.name} to fetch and acknowledge the order`],
      ]);
    }
    expect(await rows("SELECT DISTINCT type FROM events WHERE account_id = ? AND type <> 'order.created'", creds.accountId)).toEqual([
      { type: "order_line.status_changed" },
    ]);
    expect(await rows("SELECT routing_attempts, routing_error FROM orders WHERE id = ?", orderId)).toEqual([{ routing_attempts: 0, routing_error: null }]);
  });
});

describe("a crash between the answer and the queue", () => {
  async function createWithoutQueue(creds: Credentials) {
    // The real create batch, then no queue message: exactly what a crash after the answer leaves.
    const result = await createOrderInD1(createDb(env.DB), losingPipeline(), creds.accountId, CreateOrderBody.parse(threeLines()));
    const [row] = await rows<{ created_at: string; routed_at: string | null }>("SELECT created_at, routed_at FROM orders WHERE id = ?", result.orderId);
    return { ...result, createdAt: Date.parse(row.created_at), routedAt: row.routed_at };
  }

  async function cron(scheduledTime: number) {
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime, cron: "* * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
  }

  const statuses = async (creds: Credentials, reference: string) =>
    (await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines.map((l: { current_status: string }) => l.current_status);

  it("loses no order: the sweeper routes it once it is over 25 seconds old, and not before", async () => {
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, { channel: "pull" });
    await pipelineIdle(creds.accountId);
    const order = await createWithoutQueue(creds);
    expect(order.created).toBe(true);
    expect(order.routedAt).toBeNull();

    // Within the grace period the sweeper leaves it to the queue: it queues nothing for it.
    expect(await sweepUnroutedOrders(env, new Date(order.createdAt + 24_000))).not.toContain(order.orderId);
    expect(await statuses(creds, order.reference)).toEqual(["pending", "pending", "pending"]);

    // Past it, the sweeper queues it and the pipeline matches and dispatches it.
    await cron(order.createdAt + 25_000 + 1_000);
    await waitFor(async () => (await statuses(creds, order.reference)).every((s: string) => s === "ruled"));
    const shown = (await call("GET", `/api/v1/orders/${order.reference}`, { creds })).json;
    expect(shown.suppliers).toEqual([{ id: supplier.id, name: supplier.name }]);
    await waitFor(async () => (await call("GET", `/api/v1/orders/${order.reference}/dispatches`, { creds })).json.data[0]?.status === "awaiting_pickup");
    expect((await rows<{ routed_at: string | null }>("SELECT routed_at FROM orders WHERE id = ?", order.orderId))[0].routed_at).not.toBeNull();

    // Done with it: a later sweep queues nothing for it, so no second match, no second dispatch.
    await pipelineIdle(creds.accountId);
    const before = await accountState(creds.accountId)();
    expect(await sweepUnroutedOrders(env, new Date(order.createdAt + 3 * 60_000))).not.toContain(order.orderId);
    expect(await accountState(creds.accountId)()).toEqual(before);
  });

  it("routes orders created before a crash within 90 seconds of the restart, whatever the cron's phase", async () => {
    const creds = await createAccount();
    await supplierWithRule(creds, { channel: "pull" });
    await pipelineIdle(creds.accountId);
    // Three orders answered 200 whose messages the crash lost; the Worker is back at once (the
    // worst case: the age, not the restart, decides). The cron fires every minute, its first tick
    // just before the orders are old enough to be swept, so the second tick is the one.
    const lost = [await createWithoutQueue(creds), await createWithoutQueue(creds), await createWithoutQueue(creds)];
    const restart = Math.max(...lost.map((o) => o.createdAt));
    const first = Math.min(...lost.map((o) => o.createdAt)) + 24_999;
    await cron(first);
    // Not swept (a sweep restarts the order's wait and counts an attempt, in its own batch).
    const ids = JSON.stringify(lost.map((o) => o.orderId));
    const untouched = await rows("SELECT routing_attempts, routed_at FROM orders WHERE id IN (SELECT value FROM json_each(?))", ids);
    expect(untouched).toEqual(lost.map(() => ({ routing_attempts: 0, routed_at: null })));
    const second = first + 60_000;
    expect(second - restart).toBeLessThan(90_000);
    await cron(second);
    for (const o of lost) await waitFor(async () => (await statuses(creds, o.reference)).every((s: string) => s === "ruled"));
  });
});
