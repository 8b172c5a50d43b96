// An order that always fails is not re-queued forever: past ROUTING_MAX_ATTEMPTS (5 in the tests)
// it is parked, visibly (a log entry on its lines, order.parked, the operator's list), and what the
// queue gave up on is in the dead letters. An operator replays either once the cause is fixed.
// Driven through the real local Queue, its dead-letter queue and the sweeper.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import type { PipelineMessage } from "../../src/lib/queue";
import { describe, expect, it } from "vitest";
import { sweepUnroutedOrders } from "../../src/pipeline/sweeper";
import { createAccount, exec, orderIdOf, orderPayload, recordEvents, rows } from "../helpers/factories";
import { ADMIN, call } from "../helpers/http";
import { supplierWithRule } from "../helpers/suppliers";
import { pipelineIdle, waitFor } from "../helpers/wait";

const later = () => new Date(Date.now() + 10 * 60_000);


const routingState = async (orderId: number) =>
  (await rows<{ routing_attempts: number; parked_at: string | null; routed_at: string | null }>("SELECT routing_attempts, parked_at, routed_at FROM orders WHERE id = ?", orderId))[0];

describe("an order whose routing always fails", () => {
  it("is dead-lettered, parked after the cap, listed for the operator, and replayed once fixed", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    const { supplier } = await supplierWithRule(creds, { channel: "pull" });
    await pipelineIdle(creds.accountId);
    const trigger = `fault_park_${creds.accountId}`;
    await exec(
      `CREATE TRIGGER ${trigger} BEFORE INSERT ON order_line_logs WHEN NEW.message LIKE 'Matched%'
         AND NEW.order_id IN (SELECT id FROM orders WHERE account_id = ${creds.accountId})
       BEGIN SELECT RAISE(ABORT, 'injected fault'); END`,
    );
    let reference: string;
    let orderId: number;
    try {
      const created = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
      reference = String(created.json.reference);
      orderId = await orderIdOf(reference);

      // The queue's three deliveries fail; the message lands in the dead-letter queue, recorded.
      const [letter] = await waitFor(async () => {
        const page = (await call("GET", "/admin/v1/dead-letters", { headers: ADMIN })).json;
        const mine = page.data.filter((d: { order_id: number | null }) => d.order_id === orderId);
        return mine.length ? mine : null;
      });
      expect(letter).toEqual({
        id: expect.any(Number),
        queue: "order-pipeline-dlq",
        type: "route_order",
        // The message as it was sent: with its shard (src/shards), so a replay runs on the same shard.
        body: { type: "route_order", orderId, shard: 0 },
        account_id: creds.accountId,
        order_id: orderId,
        dispatch_id: null,
        status: "open",
        received_at: expect.any(String),
        replayed_at: null,
        shard: 0,
      });
      // Each redelivery counts the failed attempt before it: two of the three failures so far.
      expect(await routingState(orderId)).toMatchObject({ routing_attempts: 2, parked_at: null, routed_at: null });

      // The sweeper counts the third and hands the order to the queue again; two more attempts fail,
      // and the delivery after them, counting the fifth failure, parks the order instead of routing it.
      expect(await sweepUnroutedOrders(env, later())).toContain(orderId);
      await waitFor(async () => (await routingState(orderId)).parked_at !== null);
      expect(await routingState(orderId)).toMatchObject({ routing_attempts: 5, routed_at: expect.any(String) });
      // Parked: the sweeper leaves it alone from now on.
      expect(await sweepUnroutedOrders(env, later())).not.toContain(orderId);

      const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
      for (const line of order.order_lines) {
        expect(line.current_status).toBe("pending");
        expect(line.logs.at(-1)).toMatchObject({
          status: "pending",
          message: expect.stringMatching(/^Order parked after 5 failed routing attempts \(last error: .*injected fault.*\); an operator can replay it$/),
        });
      }
      const parkedEvents = await rows<{ data: string }>("SELECT data FROM events WHERE account_id = ? AND type = 'order.parked'", creds.accountId);
      expect(parkedEvents.map((e) => JSON.parse(e.data))).toEqual([
        { order: { reference, external_id: order.external_id }, reason: order.order_lines[0].logs.at(-1).message },
      ]);
      const parked = (await call("GET", "/admin/v1/parked-orders?per_page=100", { headers: ADMIN })).json;
      expect(parked.data.find((p: { reference: string }) => p.reference === reference)).toEqual({
        id: orderId,
        account_id: creds.accountId,
        reference,
        external_id: order.external_id,
        routing_attempts: 5,
        routing_error: expect.stringMatching(/injected fault/),
        parked_at: expect.any(String),
        created_at: order.created_at,
        shard: 0,
      });
    } finally {
      await exec(`DROP TRIGGER IF EXISTS ${trigger}`);
    }

    // Fixed: the operator replays the parked order; it is routed and dispatched once.
    const replayed = await call("POST", `/admin/v1/parked-orders/${reference}/replay`, { headers: ADMIN });
    expect(replayed.status, replayed.text).toBe(200);
    expect(replayed.json).toEqual({ reference, replayed_at: expect.any(String) });
    const [dispatch] = await waitFor(async () => {
      const d = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;
      return d[0]?.status === "awaiting_pickup" ? d : null;
    });
    expect(dispatch.supplier_id).toBe(supplier.id);
    await pipelineIdle(creds.accountId);
    expect(await routingState(orderId)).toMatchObject({ routing_attempts: 0, parked_at: null });
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    expect(order.order_lines[0].logs.map((l: { message: string }) => l.message).slice(-4)).toEqual([
      expect.stringMatching(/^Order parked after 5/),
      "Order replayed by an operator",
      expect.stringMatching(/^Matched to supplier/),
      `Waiting for supplier ${supplier.name} to fetch and acknowledge the order`,
    ]);
    expect((await call("GET", "/admin/v1/parked-orders?per_page=100", { headers: ADMIN })).json.data.map((p: { reference: string }) => p.reference)).not.toContain(reference);
    // Replaying it again is a conflict: it is not parked.
    expect(await call("POST", `/admin/v1/parked-orders/${reference}/replay`, { headers: ADMIN })).toMatchObject({
      status: 409,
      json: { message: "Conflict", error: `Order ${reference} is not parked; only parked orders can be replayed.` },
    });

    // The dead letter is replayed too: the message runs again and changes nothing (all done).
    const before = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    const [letter] = (await call("GET", "/admin/v1/dead-letters?per_page=100", { headers: ADMIN })).json.data.filter(
      (d: { order_id: number | null }) => d.order_id === orderId,
    );
    const again = await call("POST", `/admin/v1/dead-letters/${letter.id}/replay`, { headers: ADMIN });
    expect(again.status, again.text).toBe(200);
    expect(again.json).toMatchObject({ id: letter.id, status: "replayed", replayed_at: expect.any(String) });
    await pipelineIdle(creds.accountId);
    const after = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    expect(after.order_lines.map((l: { current_status: string }) => l.current_status)).toEqual(before.order_lines.map((l: { current_status: string }) => l.current_status));
    expect((await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data).toHaveLength(1);
    expect(await call("POST", `/admin/v1/dead-letters/${letter.id}/replay`, { headers: ADMIN })).toMatchObject({ status: 409 });
    expect((await call("GET", "/admin/v1/dead-letters?status=replayed&per_page=100", { headers: ADMIN })).json.data.map((d: { id: number }) => d.id)).toContain(letter.id);
  }, 40_000);

  it("answers 404 for unknown parked orders and dead letters, and 422 for an unknown status filter", async () => {
    expect(await call("POST", "/admin/v1/parked-orders/123/replay", { headers: ADMIN })).toMatchObject({
      status: 404,
      json: { message: "Not Found", error: "Order with reference '123' not found" },
    });
    expect(await call("POST", "/admin/v1/dead-letters/999999999/replay", { headers: ADMIN })).toMatchObject({
      status: 404,
      json: { message: "Not Found", error: "Dead letter with id '999999999' not found" },
    });
    expect((await call("GET", "/admin/v1/dead-letters?status=lost", { headers: ADMIN })).status).toBe(422);
  });

  it("runs that succeed never add up to a park, however many run at once", async () => {
    const creds = await createAccount();
    await supplierWithRule(creds, { channel: "pull" });
    await pipelineIdle(creds.accountId);
    const created = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
    const orderId = await orderIdOf(String(created.json.reference));
    // Twelve first deliveries of the order's message at once (more than ROUTING_MAX_ATTEMPTS = 5).
    const deliveries = Array.from({ length: 12 }, async (_, i) => {
      const batch = createMessageBatch<PipelineMessage>("order-pipeline", [{ id: `burst-${orderId}-${i}`, timestamp: new Date(), attempts: 1, body: { type: "route_order", orderId } }]);
      const ctx = createExecutionContext();
      await worker.queue(batch, env);
      return getQueueResult(batch, ctx);
    });
    for (const result of await Promise.all(deliveries)) expect(result.retryMessages).toEqual([]);
    await pipelineIdle(creds.accountId);
    expect(await routingState(orderId)).toMatchObject({ routing_attempts: 0, parked_at: null, routed_at: expect.any(String) });
    expect((await call("GET", `/api/v1/orders/${created.json.reference}/dispatches`, { creds })).json.data).toHaveLength(1);
  });
});
