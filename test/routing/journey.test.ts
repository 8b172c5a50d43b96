// The journey is a plan (src/routing/journey.ts): given orders, the statements of one batch, then
// the follow-ups (the first attempts at its push dispatches among them); planning writes nothing, so it is tested here without a queue.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb, runBatch } from "../../src/db";
import { CreateOrderBody } from "../../src/orders/orders.schemas";
import { createOrder } from "../../src/orders/orders.service";
import { planOverdue, planRoute } from "../../src/routing/journey";
import { createAccount, exec, orderPayload, rows, seedSupplier } from "../helpers/factories";
import { losingPipeline } from "../helpers/pipeline";
import { seedRule } from "../helpers/routing";

const OPTIONS = { maxAttempts: 3, timeoutMs: 5_000 };

async function orderToWebhookSupplier() {
  const creds = await createAccount();
  const supplier = await seedSupplier(creds.accountId);
  await exec("UPDATE suppliers SET channel = 'webhook', webhook_url = 'https://supplier.example/orders' WHERE id = ?", supplier.id);
  await seedRule(creds.accountId, { priority: 10, action: { type: "assign_supplier", supplier_id: supplier.id } });
  const products = [
    { external_id: "a", name: "A", quantity: 1, price: 2 },
    { external_id: "b", name: "B", quantity: 2, price: 3 },
  ];
  // The pipeline's message is dropped: the test carries the plan itself.
  const { orderId } = await createOrder(createDb(env.DB), losingPipeline(), creds.accountId, CreateOrderBody.parse(orderPayload({ products })));
  return { orderId, supplier };
}

const lineStates = (orderId: number) => rows("SELECT current_status, dispatch_id IS NOT NULL AS dispatched FROM order_lines WHERE order_id = ? ORDER BY position", orderId);

describe("the journey's plan for the pipeline's route step", () => {
  it("writes nothing until its batch runs; then one dispatch, claimed for sending, its first attempt handed over to the outbound queue with the lease", async () => {
    const { orderId, supplier } = await orderToWebhookSupplier();
    const db = createDb(env.DB);
    const plan = await planRoute(db, [{ orderId, redelivered: false }], OPTIONS);
    expect(await lineStates(orderId)).toEqual([
      { current_status: "pending", dispatched: 0 },
      { current_status: "pending", dispatched: 0 },
    ]);
    expect(plan.overdue).toEqual([]);

    const { followUps } = plan.settle(await runBatch(db, plan.statements));
    const [dispatch] = await rows<{ id: number; status: string; supplier_id: number; lease_until: string }>("SELECT id, status, supplier_id, lease_until FROM dispatches WHERE order_id = ?", orderId);
    expect(dispatch).toMatchObject({ status: "sending", supplier_id: supplier.id });
    // Nothing sent by the plan's caller: the lease it was created under travels with the message.
    expect(followUps).toEqual([{ type: "send_dispatches", dispatchIds: [dispatch.id], lease: dispatch.lease_until }]);
    expect(await lineStates(orderId)).toEqual([
      { current_status: "ruled", dispatched: 1 },
      { current_status: "ruled", dispatched: 1 },
    ]);
  });

  it("parks an order out of attempts, and sends nothing", async () => {
    const { orderId } = await orderToWebhookSupplier();
    await exec("UPDATE orders SET routing_attempts = 3, routing_error = 'D1 was down' WHERE id = ?", orderId);
    const db = createDb(env.DB);
    const plan = await planRoute(db, [{ orderId, redelivered: false }], OPTIONS);
    expect(plan.settle(await runBatch(db, plan.statements))).toEqual({ followUps: [] });
    expect(await rows("SELECT parked_at IS NOT NULL AS parked FROM orders WHERE id = ?", orderId)).toEqual([{ parked: 1 }]);
    expect(await rows("SELECT DISTINCT message FROM order_line_logs WHERE order_id = ? AND message LIKE 'Order parked%'", orderId)).toEqual([
      { message: "Order parked after 3 failed routing attempts (last error: D1 was down); an operator can replay it" },
    ]);
    expect(await lineStates(orderId)).toEqual([
      { current_status: "pending", dispatched: 0 },
      { current_status: "pending", dispatched: 0 },
    ]);
  });

  it("leaves an order with an overdue line to be re-routed first: no statement for it, no send", async () => {
    const { orderId, supplier } = await orderToWebhookSupplier();
    await exec("UPDATE order_lines SET reroute_reason = 'no answer in 24 hours', matched_supplier_id = ? WHERE order_id = ? AND position = 0", supplier.id, orderId);
    const plan = await planRoute(createDb(env.DB), [{ orderId, redelivered: false }], OPTIONS);
    expect(plan.overdue.map((o) => o.order.id)).toEqual([orderId]);
    expect(plan.statements).toEqual([]);
    expect(plan.settle([])).toEqual({ followUps: [] });
  });
});

describe("the journey's plan for an order's overdue lines", () => {
  it("writes nothing until its batch runs; then the line is with the next supplier, and the withdrawal for the silent one is the follow-up", async () => {
    const { orderId, supplier } = await orderToWebhookSupplier();
    const [{ account_id: accountId }] = await rows<{ account_id: number }>("SELECT account_id FROM orders WHERE id = ?", orderId);
    const next = await seedSupplier(accountId);
    await seedRule(accountId, { priority: 20, action: { type: "assign_supplier", supplier_id: next.id } });
    await exec(
      "UPDATE order_lines SET current_status = 'completed', reroute_reason = 'no answer in 24 hours', matched_supplier_id = ? WHERE order_id = ? AND position = 0",
      supplier.id,
      orderId,
    );
    const db = createDb(env.DB);
    const route = await planRoute(db, [{ orderId, redelivered: false }], OPTIONS);
    const [{ order, lines }] = route.overdue;
    const plan = await planOverdue(db, order, lines);
    expect(await rows("SELECT current_status, matched_supplier_id FROM order_lines WHERE order_id = ? AND position = 0", orderId)).toEqual([
      { current_status: "completed", matched_supplier_id: supplier.id },
    ]);
    expect(await rows("SELECT count(*) AS n FROM cancellations WHERE order_id = ?", orderId)).toEqual([{ n: 0 }]);

    const { result, followUps } = plan.settle(await runBatch(db, plan.statements));
    const withdrawals = await rows<{ id: number; supplier_id: number; purpose: string }>(
      "SELECT c.id, c.supplier_id, l.purpose FROM cancellations c JOIN cancellation_lines l ON l.cancellation_id = c.id WHERE c.order_id = ?",
      orderId,
    );
    expect(withdrawals.map((w) => [w.supplier_id, w.purpose])).toEqual([[supplier.id, "withdraw"]]);
    expect({ result, followUps }).toEqual({ result: null, followUps: [{ type: "send_cancellation", cancellationId: withdrawals[0].id }] });
    expect(await rows("SELECT current_status, matched_supplier_id, reroute_reason FROM order_lines WHERE order_id = ? AND position = 0", orderId)).toEqual([
      { current_status: "ruled", matched_supplier_id: next.id, reroute_reason: null },
    ]);
  });
});

describe("the journey's plan for Match now (the same entry point, mode match)", () => {
  it("writes nothing until its batch runs; then the lines are ruled without a dispatch, and the order is handed to the pipeline", async () => {
    const { orderId, supplier } = await orderToWebhookSupplier();
    await exec("UPDATE orders SET routing_attempts = 3 WHERE id = ?", orderId);
    const db = createDb(env.DB);
    const plan = await planRoute(db, [{ orderId, redelivered: false }], { match: "now" });
    expect(await lineStates(orderId)).toEqual([
      { current_status: "pending", dispatched: 0 },
      { current_status: "pending", dispatched: 0 },
    ]);
    expect(plan.outcomes.get(orderId)).toEqual({ status: "routed", ruled: 2, skipped: 0, unmatched: 0, blockedNow: false, rerouted: 0, withdrawn: 0 });

    // Out of attempts, but matching on demand never parks: the pipeline's route step decides that.
    expect(plan.settle(await runBatch(db, plan.statements))).toEqual({ followUps: [{ type: "route_order", orderId }] });
    expect(await lineStates(orderId)).toEqual([
      { current_status: "ruled", dispatched: 0 },
      { current_status: "ruled", dispatched: 0 },
    ]);
    expect(await rows("SELECT DISTINCT matched_supplier_id FROM order_lines WHERE order_id = ?", orderId)).toEqual([{ matched_supplier_id: supplier.id }]);
    expect(await rows("SELECT count(*) AS n FROM dispatches WHERE order_id = ?", orderId)).toEqual([{ n: 0 }]);
    expect(await rows("SELECT routed_at IS NULL AS owed, route_requested_at IS NOT NULL AS requested, parked_at IS NULL AS unparked FROM orders WHERE id = ?", orderId)).toEqual([
      { owed: 1, requested: 1, unparked: 1 },
    ]);
  });

  it("answers a blocked or unknown order without a statement, and still hands it to the pipeline", async () => {
    const { orderId } = await orderToWebhookSupplier();
    await exec("UPDATE orders SET blocked = 1 WHERE id = ?", orderId);
    const plan = await planRoute(createDb(env.DB), [{ orderId, redelivered: false }, { orderId: orderId + 1_000_000, redelivered: false }], { match: "now" });
    expect(plan.statements).toEqual([]);
    expect([...plan.outcomes.values()].map((o) => o.status)).toEqual(["blocked", "not_found"]);
    expect(plan.settle([]).followUps).toEqual([
      { type: "route_order", orderId },
      { type: "route_order", orderId: orderId + 1_000_000 },
    ]);
  });
});
