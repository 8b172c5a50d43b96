// Writes that race, driven concurrently against the real local D1 and Queue. The database decides:
// a batch whose guarded write lost the race aborts whole, and its caller is told the truth.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { attemptDispatch } from "../../src/routing/failed-sends";
import worker from "../../src/index";
import { carrierPipeline, type PipelineMessage } from "../../src/lib/queue";
import { createAccount, createOrder, exec, orderPayload, recordEvents, rows } from "../helpers/factories";
import { received, remoteUrl } from "../helpers/fake-remote";
import { call, type Credentials } from "../helpers/http";
import { orderSettled, signedHeader, supplierWithRule } from "../helpers/suppliers";
import { pipelineIdle, waitFor } from "../helpers/wait";


/** An order whose lines wait, ruled, for a manual-channel supplier's answers. */
async function ruledOrder(lineCount = 1) {
  const creds = await createAccount();
  await recordEvents(creds.accountId);
  const { supplier } = await supplierWithRule(creds, { channel: "manual" });
  const products = Array.from({ length: lineCount }, (_, i) => ({ external_id: `l${i}`, name: `Line ${i}`, quantity: 3, price: 1 }));
  const { reference } = await createOrder(creds, { products });
  const order = await waitFor(async () => {
    const d = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;
    return d[0]?.status === "manual" ? (await call("GET", `/api/v1/orders/${reference}`, { creds })).json : null;
  });
  return { creds, supplier, reference, lineIds: order.order_lines.map((l: { id: number }) => l.id) as number[] };
}

async function signedCall(supplier: { id: number; webhook_secret: string }, body: string, signature?: string) {
  return call("POST", `/api/v1/supplier-callbacks/${supplier.id}`, {
    rawBody: body,
    headers: { "content-type": "application/json", "x-webhook-signature": signature ?? (await signedHeader(supplier.webhook_secret, body)) },
  });
}

const declineLogs = (reference: string) =>
  rows<{ status: string; message: string }>(
    "SELECT g.status, g.message FROM order_line_logs g JOIN orders o ON o.id = g.order_id WHERE o.reference = ? AND g.status = 'declined' ORDER BY g.id",
    reference,
  );
const statusEvents = (accountId: number) =>
  rows<{ data: string }>("SELECT data FROM events WHERE account_id = ? AND type = 'order_line.status_changed' AND data ->> '$.line.status' = 'declined'", accountId);

describe("supplier answers that race", () => {
  it("ten identical signed declines at the same moment: exactly one 200 'declined', nine 409 with the current state", async () => {
    const { creds, supplier, reference, lineIds: [lineId] } = await ruledOrder();
    const body = JSON.stringify({ answers: [{ line_id: lineId, action: "decline", reason: "discontinued" }] });
    const signature = await signedHeader(supplier.webhook_secret, body);
    const answers = await Promise.all(Array.from({ length: 10 }, () => signedCall(supplier, body, signature)));

    const ok = answers.filter((a) => a.status === 200);
    expect(ok.map((a) => a.json)).toEqual([{ results: [{ line_id: lineId, current_status: "declined" }] }]);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused).toHaveLength(9);
    for (const res of refused) {
      expect(res.status).toBe(409);
      expect(res.json).toEqual({ message: "Conflict", error: `The decline of order line ${lineId} by supplier ${supplier.name} is already recorded; the line cannot be given the answer 'decline'.` });
    }
    expect(await declineLogs(reference)).toEqual([{ status: "declined", message: `Declined by supplier ${supplier.name}: discontinued` }]);
    expect(await statusEvents(creds.accountId)).toHaveLength(1);
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    expect(order.order_lines[0].current_status).toBe("declined");
  });

  it("two different declines at once: one wins whole, the other writes nothing and gets 409", async () => {
    for (let round = 0; round < 3; round++) {
      const { creds, supplier, reference, lineIds: [a, b] } = await ruledOrder(2);
      // The second answer also accepts another line: if it loses, nothing of it may be written.
      const [first, second] = await Promise.all([
        signedCall(supplier, JSON.stringify({ answers: [{ line_id: a, action: "decline", reason: "first" }] })),
        signedCall(supplier, JSON.stringify({ answers: [{ line_id: b, action: "accept" }, { line_id: a, action: "decline", reason: "second" }] })),
      ]);
      expect([first.status, second.status].sort()).toEqual([200, 409]);
      const winner = first.status === 200 ? "first" : "second";
      const loser = first.status === 200 ? second : first;
      expect(loser.json).toEqual({ message: "Conflict", error: `The decline of order line ${a} by supplier ${supplier.name} is already recorded; the line cannot be given the answer 'decline'.` });
      expect((await declineLogs(reference)).map((l) => l.message)).toEqual([`Declined by supplier ${supplier.name}: ${winner}`]);
      const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
      // Line b was accepted exactly when the second answer won.
      expect(order.order_lines.map((l: { current_status: string }) => l.current_status)).toEqual(["declined", winner === "second" ? "completed" : "ruled"]);
      expect(await statusEvents(creds.accountId)).toHaveLength(1);
    }
  });

  it("an accept and a ship of the same line at once both hold: the ship is applied to the completed line", async () => {
    const { creds, supplier, reference, lineIds: [lineId] } = await ruledOrder();
    const [accept, ship] = await Promise.all([
      signedCall(supplier, JSON.stringify({ answers: [{ line_id: lineId, action: "accept" }] })),
      signedCall(supplier, JSON.stringify({ answers: [{ line_id: lineId, action: "ship", tracking_number: "T1" }] })),
    ]);
    expect([accept.status, ship.status]).toEqual([200, 200]);
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    expect(order.order_lines[0].current_status).toBe("completed");
    expect(order.order_lines[0].shipments).toHaveLength(1);
    expect(order.order_lines[0].logs.filter((l: { message: string }) => l.message === `Accepted by supplier ${supplier.name}`)).toHaveLength(1);
  });
});

describe("sends that race", () => {
  let seq = 0;
  async function deliver(bodies: PipelineMessage[]) {
    const batch = createMessageBatch<PipelineMessage>("order-pipeline", bodies.map((body) => ({ id: `race-${++seq}`, timestamp: new Date(), attempts: 1, body })));
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    return getQueueResult(batch, ctx);
  }

  it("retry by hand keeps the dispatch and its idempotency key, and sends once however it races", async () => {
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, { channel: "webhook", webhook_url: remoteUrl("status-400") });
    const { reference } = await createOrder(creds, orderPayload({ products: [{ external_id: "a", name: "A", quantity: 1, price: 1 }] }));
    await orderSettled(creds, reference, ["failed"]);
    const [failed] = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;
    const goodUrl = remoteUrl("ok");
    await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { webhook_url: goodUrl } });

    // Three clicks and two stray send messages for the dispatch, all at once.
    const [clicks] = await Promise.all([
      Promise.all([1, 2, 3].map(() => call("POST", `/api/v1/orders/${reference}/retry`, { creds }))),
      deliver([{ type: "send_dispatch", dispatchId: failed.id }]),
      deliver([{ type: "send_dispatch", dispatchId: failed.id }]),
    ]);
    expect(clicks.map((c) => c.status)).toEqual([200, 200, 200]);
    await orderSettled(creds, reference, ["completed"]);
    const sent = await waitFor(async () => {
      const d = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;
      return d.every((x: { status: string }) => x.status === "sent") ? d : null;
    });
    expect(sent.map((d: { id: number; idempotency_key: string }) => [d.id, d.idempotency_key])).toEqual([[failed.id, failed.idempotency_key]]);
    const requests = await received(goodUrl);
    expect(requests.map((r) => r.headers["idempotency-key"])).toEqual([failed.idempotency_key]);
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    expect(order.order_lines[0].logs.map((l: { status: string; message: string }) => `${l.status}: ${l.message}`).slice(-3)).toEqual([
      `failed: Supplier ${supplier.name} rejected the order: HTTP 400: {"error":"status 400"}`,
      "ruled: Retry requested: sending again",
      "completed: Successfully sent to supplier",
    ]);
  });

  it("a send that lost its lease mid-call writes nothing of its finish: the attempt that took over stands", async () => {
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, { channel: "manual" });
    const { reference } = await createOrder(creds, orderPayload({ products: [{ external_id: "a", name: "A", quantity: 1, price: 1 }] }));
    const [dispatch] = await waitFor(async () => {
      const d = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;
      return d[0]?.status === "manual" ? d : null;
    });
    // No queued work of the account may send the dispatch behind the test's back.
    await pipelineIdle(creds.accountId);
    // The supplier turns into a slow webhook; the dispatch waits to be sent.
    const slowUrl = remoteUrl("slow");
    await exec("UPDATE suppliers SET channel = 'webhook', webhook_url = ? WHERE id = ?", slowUrl, supplier.id);
    await exec("UPDATE dispatches SET status = 'queued', channel = 'webhook' WHERE id = ?", dispatch.id);

    const db = createDb(env.DB);
    const first = attemptDispatch(db, env, carrierPipeline(env), dispatch.id);
    await waitFor(async () => (await received(slowUrl)).length === 1);
    // The lease of the attempt covers its time-boxed call and a margin (src/lib/outbound.ts).
    const [claim] = await rows<{ status: string; lease_until: string; updated_at: string }>("SELECT status, lease_until, updated_at FROM dispatches WHERE id = ?", dispatch.id);
    expect(claim.status).toBe("sending");
    expect(Date.parse(claim.lease_until) - Date.parse(claim.updated_at)).toBe(Number(env.OUTBOUND_TIMEOUT_MS) + 60_000);
    // As if the first Worker had died: its lease runs out and another attempt takes over and succeeds.
    await exec("UPDATE dispatches SET lease_until = '2000-01-01T00:00:00.000000Z' WHERE id = ?", dispatch.id);
    const okUrl = remoteUrl("ok");
    await exec("UPDATE suppliers SET webhook_url = ? WHERE id = ?", okUrl, supplier.id);
    expect(await attemptDispatch(db, env, carrierPipeline(env), dispatch.id)).toEqual({ done: true });
    // The first attempt times out now; its requeue must not undo the other's success.
    expect(await first).toEqual({ done: true });

    const [row] = await rows<{ status: string; last_error: string | null; attempts: number }>("SELECT status, last_error, attempts FROM dispatches WHERE id = ?", dispatch.id);
    // Three claims: the manual channel's own handling, then the first and the second attempt.
    expect(row).toEqual({ status: "sent", last_error: null, attempts: 3 });
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    expect(order.order_lines[0].logs.map((l: { message: string }) => l.message).filter((m: string) => /sent|timed out/i.test(m))).toEqual(["Successfully sent to supplier"]);
    expect(await received(okUrl)).toHaveLength(1);
  });
});
