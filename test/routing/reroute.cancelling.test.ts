// A line the shop is cancelling never goes to another supplier: not when its send fails after the
// last attempt, not when its supplier's acknowledgement deadline passes, and not when a decline
// crosses the cancellation. The cancellation waits for the supplier it was asked of.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { fireDeadlines } from "../../src/forwarding/deadlines";
import { attemptDispatch } from "../../src/routing/failed-sends";
import { carrierPipeline, enqueue } from "../../src/lib/queue";
import { cancel, cancellationsOf, claimedNotSent, getOrder } from "../helpers/cancellations";
import { createAccount, createOrder, exec, orderIdOf, orderPayload, recordEvents, rows } from "../helpers/factories";
import { remoteUrl } from "../helpers/fake-remote";
import { call } from "../helpers/http";
import { logsOf } from "../helpers/routing";
import { answer, awaitingPickup, supplierChain } from "../helpers/suppliers";
import { pipelineIdle } from "../helpers/wait";

const HOLD = "not re-routed: a cancellation of it waits for the supplier's answer";
const mug = () => orderPayload({ products: [{ external_id: "mug", name: "Blue mug", quantity: 2, price: 10 }] });
const pullList = async (key: string) => (await call("GET", "/api/v1/supplier/orders", { headers: { authorization: `Bearer ${key}` } })).json.data;

describe("a line the shop is cancelling stays with its supplier", () => {
  it("when the send fails after the last attempt: the line fails there, its cancellation still waits", async () => {
    const creds = await createAccount();
    const down = (await call("POST", "/api/v1/suppliers", { creds, body: { name: "Down", channel: "webhook", webhook_url: remoteUrl("status-503") } })).json;
    const { reference, dispatchId } = await claimedNotSent(creds, { id: down.id, channel: "webhook" }, mug());
    // Two attempts already failed (one is left): the supplier may have the order, so the cancellation is a request.
    await exec("UPDATE dispatches SET attempts = 2 WHERE id = ?", dispatchId);
    const [next] = await supplierChain(creds, [{ channel: "pull" }]);
    const cancelled = await cancel(creds, reference, { reason: "customer changed their mind" });
    expect(cancelled.status).toBe(200);
    const lineId = cancelled.json.order_lines[0].id;
    expect(cancelled.json.order_lines[0].cancellation).toEqual({ id: expect.any(Number), quantity: 2, supplier_id: down.id, requested_at: expect.any(String) });

    await attemptDispatch(createDb(env.DB), env, carrierPipeline(env), dispatchId);
    await pipelineIdle(creds.accountId);
    const order = await getOrder(creds, reference);
    expect([order.order_lines.length, order.order_lines[0].current_status, order.order_lines[0].matched_supplier]).toEqual([1, "failed", { id: down.id, name: "Down" }]);
    expect(logsOf(order.order_lines[0]).at(-1)).toEqual(["failed", `Sending to supplier Down failed after 3 attempts: HTTP 503: {"error":"status 503"}; ${HOLD}`]);
    expect(await pullList(next.key!)).toEqual([]);
    expect((await cancellationsOf(creds, reference)).map((c: { supplier: { id: number }; lines: { line_id: number; status: string }[] }) => [c.supplier.id, c.lines])).toEqual([
      [down.id, [{ line_id: lineId, quantity: 2, status: "requested", answered_by: null, answer_reason: null, answered_at: null }]],
    ]);
    // The shop records what the supplier said: confirmed, the line is skipped.
    const recorded = await call("POST", `/api/v1/orders/${reference}/cancellations/answers`, { creds, body: { answers: [{ line_id: lineId, action: "confirm" }] } });
    expect(recorded.json.order_lines.map((l: { current_status: string }) => l.current_status)).toEqual(["skipped"]);
  });

  it("when its silent supplier's acknowledgement deadline passes: overdue without a re-route, marked or not before the cancellation", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    const [silent, next] = await supplierChain(creds, [
      { channel: "pull", acknowledgement_deadline_hours: 2, acknowledgement_deadline_reroute: true },
      { channel: "pull" },
    ]);
    const silence = `No answer from supplier ${silent.supplier.name} within 2 hours of the send (acknowledgement deadline)`;

    // Cancelled, then the deadline passes: it fires, but does not ask for a re-route.
    const first = await createOrder(creds, mug());
    const firstLine = (await awaitingPickup(silent.key!, first.reference)).lines[0].id as number;
    await cancel(creds, first.reference, { reason: "too slow" });
    // The deadline passes and fires (the cron's own step, called directly: its order goes to the pipeline below).
    const fired = await fireDeadlines(createDb(env.DB), new Date(Date.now() + 3 * 60 * 60 * 1000));
    const firstOrderId = await orderIdOf(first.reference);
    expect([fired.acknowledgement.includes(firstLine), fired.rerouteOrders.includes(firstOrderId)]).toEqual([true, false]);
    const overdue = await rows<{ data: string }>("SELECT data FROM events WHERE account_id = ? AND type = 'order_line.overdue'", creds.accountId);
    expect(overdue.map((e) => [JSON.parse(e.data).line.id, JSON.parse(e.data).reroute])).toEqual([[firstLine, false]]);
    expect(logsOf((await getOrder(creds, first.reference)).order_lines[0]).at(-1)).toEqual(["ruled", silence]);

    // Marked for a re-route, then cancelled before the pipeline gets to it: it stays, and says why.
    const second = await createOrder(creds, mug());
    const secondLine = (await awaitingPickup(silent.key!, second.reference)).lines[0].id as number;
    const marked = await fireDeadlines(createDb(env.DB), new Date(Date.now() + 3 * 60 * 60 * 1000));
    const secondOrderId = await orderIdOf(second.reference);
    expect([marked.acknowledgement.includes(secondLine), marked.rerouteOrders.includes(secondOrderId)]).toEqual([true, true]);
    await cancel(creds, second.reference, { reason: "too slow" });
    await enqueue(env, [{ type: "route_order", orderId: secondOrderId }]);
    await pipelineIdle(creds.accountId);
    const order = await getOrder(creds, second.reference);
    expect([order.order_lines[0].current_status, order.order_lines[0].matched_supplier.id]).toEqual(["ruled", silent.supplier.id]);
    expect(logsOf(order.order_lines[0]).slice(-2)).toEqual([
      ["ruled", `Cancellation of 2 of 2 requested from supplier ${silent.supplier.name}: too slow`],
      ["ruled", `${silence}; ${HOLD}`],
    ]);
    expect(await pullList(next.key!)).toEqual([]);
    expect((await call("GET", "/api/v1/supplier/cancellations", { headers: { authorization: `Bearer ${silent.key}` } })).json.meta.total).toBe(2);
  });

  it("when a decline crosses the cancellation: either it is re-routed and then cancelled there, or it stays declined with the request open", async () => {
    const outcomes = new Set<string>();
    for (let round = 0; round < 6; round++) {
      const creds = await createAccount();
      const [a, b] = await supplierChain(creds, [{ channel: "pull" }, { channel: "pull" }]);
      const { reference } = await createOrder(creds, mug());
      const lineId = (await awaitingPickup(a.key!, reference)).lines[0].id as number;
      const delay = (round >> 1) * 4;
      const later = <T>(ms: number, fn: () => Promise<T>) => new Promise<T>((resolve, reject) => setTimeout(() => fn().then(resolve, reject), ms));
      const [cancelled, declined] = await Promise.all([
        later(round % 2 ? delay : 0, () => cancel(creds, reference, { reason: "changed my mind" })),
        later(round % 2 ? 0 : delay, () => answer(a.key!, [{ line_id: lineId, action: "decline", reason: "out of stock" }])),
      ]);
      expect([cancelled.status, declined.status]).toEqual([200, 200]);
      await pipelineIdle(creds.accountId);
      const line = (await getOrder(creds, reference)).order_lines[0];
      const requests = await cancellationsOf(creds, reference);
      const open = requests.filter((r: { lines: { status: string }[] }) => r.lines.some((l) => l.status === "requested"));
      if (line.matched_supplier.id === a.supplier.id) {
        // The cancellation got there first: A declined, the line stays with A and its request waits.
        outcomes.add("cancelled first");
        expect(line.current_status).toBe("declined");
        expect(logsOf(line).at(-1)).toEqual(["declined", `Declined by supplier ${a.supplier.name}: out of stock; ${HOLD}`]);
        expect(open.map((r: { supplier: { id: number } }) => r.supplier.id)).toEqual([a.supplier.id]);
        expect(await pullList(b.key!)).toEqual([]);
      } else {
        // The decline got there first: the line went to B, and the cancellation found it there (skipped
        // before B had it, or asked of B). Never a request to A for a line that is B's.
        outcomes.add("declined first");
        expect(line.matched_supplier.id).toBe(b.supplier.id);
        expect(open.every((r: { supplier: { id: number } }) => r.supplier.id === b.supplier.id)).toBe(true);
        if (line.current_status !== "skipped") expect(open).toHaveLength(1);
      }
    }
    expect(outcomes.size).toBeGreaterThan(0);
  });
});
