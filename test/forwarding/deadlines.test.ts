// Supplier deadlines: no answer within the acknowledgement hours, no shipment within the shipping
// days. The cron's scheduled handler is called with a scheduledTime in the future (as the sweeper
// test does); a deadline fires once, logged, evented (order_line.overdue) and on the attention
// list, even when sweeps overlap or repeat; a silent supplier's line can be re-routed.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { needsAttention } from "../../src/attention/attention.service";
import { createDb } from "../../src/db";
import worker from "../../src/index";
import { sweepDeadlines } from "../../src/pipeline/sweeper";
import { cancellationsOf, getOrder, sentOrder } from "../helpers/cancellations";
import { createAccount, createOrder, orderPayload, recordEvents, rows } from "../helpers/factories";
import { received, remoteUrl } from "../helpers/fake-remote";
import { call } from "../helpers/http";
import { logsOf } from "../helpers/routing";
import { answer, awaitingPickup, signedHeader, supplierChain } from "../helpers/suppliers";
import { pipelineIdle, waitFor } from "../helpers/wait";

const HOUR = 60 * 60 * 1000;

async function cronAt(at: number) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: at }), env, ctx);
  await waitOnExecutionContext(ctx);
}

const overdueEvents = async (accountId: number) =>
  (await rows<{ data: string }>("SELECT data FROM events WHERE account_id = ? AND type = 'order_line.overdue' ORDER BY rowid", accountId)).map((r) => JSON.parse(r.data));

describe("the acknowledgement deadline", () => {
  it("fires once when the supplier did not answer in time: logged, evented, on the attention list; the answer clears it", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    const { supplier, reference, lineIds } = await sentOrder(creds, { channel: "pull", acknowledgement_deadline_hours: 2 });
    const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key;

    // Not yet due an hour from now.
    await cronAt(Date.now() + HOUR);
    expect(await overdueEvents(creds.accountId)).toEqual([]);
    await cronAt(Date.now() + 3 * HOUR);
    const events = await overdueEvents(creds.accountId);
    expect(events).toEqual([
      {
        order: { reference, external_id: expect.any(String) },
        line: { id: lineIds[0], external_id: "mug", quantity: 5, split_from_line_id: null },
        deadline: "acknowledgement",
        due_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
        supplier: { id: supplier.id, name: supplier.name },
        reroute: false,
      },
      expect.objectContaining({ line: expect.objectContaining({ id: lineIds[1] }), deadline: "acknowledgement" }),
    ]);
    const order = await getOrder(creds, reference);
    expect(logsOf(order.order_lines[0]).at(-1)).toEqual(["ruled", `No answer from supplier ${supplier.name} within 2 hours of the send (acknowledgement deadline)`]);
    const attention = await needsAttention(createDb(env.DB), creds.accountId);
    expect(attention.overdue.count).toBe(2);
    expect(attention.overdue.items[0]).toMatchObject({ reference, status: "ruled", deadline: "acknowledgement" });

    // Later sweeps, one after another or at the same time, fire nothing more.
    await cronAt(Date.now() + 4 * HOUR);
    await Promise.all([sweepDeadlines(env, new Date(Date.now() + 5 * HOUR)), sweepDeadlines(env, new Date(Date.now() + 5 * HOUR))]);
    expect(await overdueEvents(creds.accountId)).toHaveLength(2);

    await answer(key, [{ line_id: lineIds[0], action: "accept" }, { line_id: lineIds[1], action: "decline", reason: "no" }]);
    expect((await needsAttention(createDb(env.DB), creds.accountId)).overdue.count).toBe(0);
  });

  it("two overlapping sweeps at the moment it is due fire it once", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    const { reference } = await sentOrder(creds, { channel: "manual", acknowledgement_deadline_hours: 1 }, orderPayload({ products: [{ external_id: "x", name: "X", quantity: 1, price: 1 }] }));
    const at = new Date(Date.now() + 2 * HOUR);
    const sweeps = await Promise.all([sweepDeadlines(env, at), sweepDeadlines(env, at), sweepDeadlines(env, at)]);
    const lineId = (await getOrder(creds, reference)).order_lines[0].id;
    expect(sweeps.filter((s) => s.acknowledgement.includes(lineId))).toHaveLength(1);
    expect(await overdueEvents(creds.accountId)).toHaveLength(1);
    expect((await getOrder(creds, reference)).order_lines[0].logs.filter((l: { message: string }) => l.message.startsWith("No answer"))).toHaveLength(1);
  });

  it("re-routes when the supplier says so, and tells the silent supplier the line is withdrawn", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    const silentUrl = remoteUrl("ok");
    const [silent, next] = await supplierChain(creds, [
      { channel: "webhook", webhook_url: silentUrl, acknowledgement_deadline_hours: 4, acknowledgement_deadline_reroute: true },
      { channel: "pull" },
    ]);
    const { reference } = await createOrder(creds, orderPayload({ products: [{ external_id: "mug", name: "Blue mug", quantity: 2, price: 1 }] }));
    await pipelineIdle(creds.accountId);
    const lineId = (await getOrder(creds, reference)).order_lines[0].id;

    await cronAt(Date.now() + 5 * HOUR);
    await awaitingPickup(next.key!, reference);
    const order = await getOrder(creds, reference);
    expect(order.order_lines[0]).toMatchObject({ current_status: "ruled", matched_supplier: { id: next.supplier.id } });
    const silence = `No answer from supplier ${silent.supplier.name} within 4 hours of the send (acknowledgement deadline)`;
    expect(logsOf(order.order_lines[0]).slice(-4)).toEqual([
      ["completed", silence],
      ["declined", `${silence}; routed to supplier ${next.supplier.name}`],
      ["ruled", `Matched to supplier ${next.supplier.name} by rule #${next.rule.id} '${next.rule.name}' (re-routed: supplier 2 of at most 3)`],
      ["ruled", `Waiting for supplier ${next.supplier.name} to fetch and acknowledge the order`],
    ]);
    expect((await overdueEvents(creds.accountId)).map((e) => [e.line.id, e.reroute])).toEqual([[lineId, true]]);

    // The silent supplier gets a withdrawal on its own channel, and may still answer it.
    const withdrawal = await waitFor(async () => (await received(silentUrl)).find((r) => JSON.parse(r.body).type === "dispatch.cancellation_requested"));
    expect(JSON.parse(withdrawal.body)).toMatchObject({ purpose: "withdraw", reason: silence, lines: [{ id: lineId, quantity: 2 }] });
    const body = JSON.stringify({ answers: [{ line_id: lineId, action: "refuse_cancellation", reason: "already shipped" }] });
    const res = await call("POST", `/api/v1/supplier-callbacks/${silent.supplier.id}`, {
      rawBody: body,
      headers: { "content-type": "application/json", "x-webhook-signature": await signedHeader(silent.supplier.webhook_secret, body) },
    });
    expect(res).toMatchObject({ status: 200, json: { results: [{ line_id: lineId, current_status: "ruled" }] } });
    expect(logsOf(await getOrder(creds, reference).then((o) => o.order_lines[0])).at(-1)).toEqual([
      "ruled",
      `Supplier ${silent.supplier.name} refused the withdrawal: already shipped`,
    ]);
    expect((await cancellationsOf(creds, reference))[0]).toMatchObject({ purpose: "withdraw", status: "answered", lines: [{ status: "refused", answered_by: "supplier" }] });
  });
});

describe("the shipping deadline", () => {
  it("starts at the acceptance and fires once when nothing shipped in time; a shipment clears it", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    const { supplier, reference, lineIds } = await sentOrder(creds, { channel: "pull", shipping_deadline_days: 2 });
    const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key;
    // Nothing accepted yet: no shipping clock runs.
    await cronAt(Date.now() + 3 * 24 * HOUR);
    expect(await overdueEvents(creds.accountId)).toEqual([]);

    await answer(key, [{ line_id: lineIds[0], action: "accept" }]);
    await cronAt(Date.now() + 24 * HOUR);
    expect(await overdueEvents(creds.accountId)).toEqual([]);
    await cronAt(Date.now() + 3 * 24 * HOUR);
    await cronAt(Date.now() + 4 * 24 * HOUR);
    expect((await overdueEvents(creds.accountId)).map((e) => [e.line.id, e.deadline, e.reroute])).toEqual([[lineIds[0], "shipping", false]]);
    const order = await getOrder(creds, reference);
    expect(logsOf(order.order_lines[0]).at(-1)).toEqual(["completed", `No shipment from supplier ${supplier.name} within 2 days of its acceptance (shipping deadline)`]);
    expect((await needsAttention(createDb(env.DB), creds.accountId)).overdue.items.map((i) => i.deadline)).toEqual(["shipping"]);

    await answer(key, [{ line_id: lineIds[0], action: "ship", carrier: "PostNL" }]);
    expect((await needsAttention(createDb(env.DB), creds.accountId)).overdue.count).toBe(0);
  });
});
