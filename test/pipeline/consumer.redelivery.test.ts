// The queue delivers at least once: the same message handled twice (in a row, in one batch, or
// concurrently) must not double a log entry or a status change.
import { describe, expect, it } from "vitest";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import type { PipelineMessage } from "../../src/lib/queue";
import { createAccount, createOrder, orderPayload, seedSupplier } from "../helpers/factories";
import type { Credentials } from "../helpers/http";
import { getOrder, logRows, logsOf, matchNow, waitRouted } from "../helpers/routing";

const CREATED = ["pending", "Order line created"];
const NO_MATCH = ["pending", "No supplier matched: no routing rules; no catalogue product with this EAN or SKU; no active supplier named 'MugSupplier'"];

let seq = 0;
/** Hands the messages to the Worker's queue handler as one batch, as the Queues runtime does. */
async function deliver(bodies: PipelineMessage[], ids = bodies.map(() => `msg-${++seq}`)) {
  const batch = createMessageBatch<PipelineMessage>(
    "order-pipeline",
    bodies.map((body, i) => ({ id: ids[i], timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}

/**
 * An order whose line waits (pending, with its note) and can now be matched by the supplier field:
 * the supplier is inserted directly, so no re-match is queued and only our deliveries route it.
 */
async function waitingOrder(creds: Credentials, lines = 1) {
  const base = orderPayload().products[0];
  const products = Array.from({ length: lines }, (_, i) => ({ ...base, external_id: `sku-${i}` }));
  const { reference } = await createOrder(creds, { products });
  // Its own queue message is consumed (routed_at set): only our deliveries can route it from here.
  const pending = await waitRouted(creds, reference);
  const supplier = await seedSupplier(creds.accountId, "MugSupplier");
  return { reference, orderId: pending.id as number, supplier, updatedAt: pending.updated_at as string };
}

describe.concurrent("duplicate delivery of route_order", () => {
  it("the second delivery of the same message changes nothing, down to updated_at", async () => {
    const creds = await createAccount();
    const { reference, orderId, supplier, updatedAt } = await waitingOrder(creds, 2);
    const message: PipelineMessage = { type: "route_order", orderId };

    const first = await deliver([message], ["dup-1"]);
    expect(first).toEqual({ outcome: "ok", ackAll: false, retryBatch: { retry: false }, explicitAcks: ["dup-1"], retryMessages: [] });
    const afterFirst = await getOrder(creds, reference);
    for (const line of afterFirst.order_lines) {
      expect(line.current_status).toBe("ruled");
      expect(line.matched_supplier).toEqual({ id: supplier.id, name: "MugSupplier" });
      expect(logsOf(line)).toEqual([CREATED, NO_MATCH, ["ruled", "Matched to supplier MugSupplier by the line's supplier field"]]);
    }
    // A real change moves the order's updated_at.
    expect(afterFirst.updated_at > updatedAt).toBe(true);
    const logsAfterFirst = await logRows(reference);

    const second = await deliver([message], ["dup-1"]);
    expect(second.explicitAcks).toEqual(["dup-1"]);
    expect(second.retryMessages).toEqual([]);
    expect(await getOrder(creds, reference)).toEqual(afterFirst);
    expect(await logRows(reference)).toEqual(logsAfterFirst);
  });

  it("the same message twice in one batch, and two batches at once, route the line exactly once", async () => {
    const creds = await createAccount();
    const { reference, orderId } = await waitingOrder(creds);
    const message: PipelineMessage = { type: "route_order", orderId };
    const [a, b] = await Promise.all([deliver([message, message]), deliver([message])]);
    expect(a.explicitAcks).toHaveLength(2);
    expect(b.explicitAcks).toHaveLength(1);
    const order = await getOrder(creds, reference);
    expect(logsOf(order.order_lines[0])).toEqual([CREATED, NO_MATCH, ["ruled", "Matched to supplier MugSupplier by the line's supplier field"]]);
  });

  it("redelivering to a line that still waits does not repeat its note", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    const before = await matchNow(creds, reference);
    await deliver([{ type: "route_order", orderId: before.id }]);
    await deliver([{ type: "route_order", orderId: before.id }]);
    const after = await getOrder(creds, reference);
    expect(after).toEqual(before);
    expect(logsOf(after.order_lines[0])).toEqual([CREATED, NO_MATCH]);
  });

  it("a message for an order that does not exist is acknowledged, not retried forever", async () => {
    const result = await deliver([{ type: "route_order", orderId: 987_654_321 }], ["ghost"]);
    expect(result.explicitAcks).toEqual(["ghost"]);
    expect(result.retryMessages).toEqual([]);
  });
});

describe.concurrent("duplicate delivery of rematch_account", () => {
  it("routes the account's waiting orders once, and only that account's", async () => {
    const creds = await createAccount();
    const one = await createOrder(creds);
    const { reference: twoRef } = await createOrder(creds);
    await waitRouted(creds, one.reference);
    await waitRouted(creds, twoRef);
    await seedSupplier(creds.accountId, "MugSupplier");
    // Another account's waiting order with the same supplier field stays untouched.
    const other = await createAccount();
    const { reference: otherRef } = await createOrder(other);
    const otherBefore = await waitRouted(other, otherRef);

    const message: PipelineMessage = { type: "rematch_account", accountId: creds.accountId };
    await deliver([message]);
    await deliver([message]);
    for (const reference of [one.reference, twoRef]) {
      const order = await getOrder(creds, reference);
      expect(logsOf(order.order_lines[0])).toEqual([CREATED, NO_MATCH, ["ruled", "Matched to supplier MugSupplier by the line's supplier field"]]);
    }
    expect(await getOrder(other, otherRef)).toEqual(otherBefore);
  });
});
