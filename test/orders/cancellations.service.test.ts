// POST /api/v1/orders/{reference}/cancel, before and after sending, on each channel: what no
// supplier has yet ends skipped at once; what a supplier has is asked of it on its own channel, and
// its confirmation (-> skipped, or the quantity split off) or refusal (logged) settles it. Suppliers
// are faked at the network edge; everything else is the real Worker, D1 and queue.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { needsAttention } from "../../src/attention/attention.service";
import { createDb } from "../../src/db";
import { attemptDispatch } from "../../src/routing/failed-sends";
import { carrierPipeline } from "../../src/lib/queue";
import { cancel, cancellationsOf, claimedNotSent, getOrder, sentOrder, twoLines } from "../helpers/cancellations";
import { cancellationMailSubject, cancellationMailText } from "../../src/forwarding/cancellation-document";
import { createAccount, ISO_MICRO, recordEvents, rows } from "../helpers/factories";
import { received, remoteUrl } from "../helpers/fake-remote";
import { call } from "../helpers/http";
import { logsOf } from "../helpers/routing";
import { signatureValid, signedHeader } from "../helpers/suppliers";
import { pipelineIdle, waitFor } from "../helpers/wait";

const eventsOf = async (accountId: number, type: string) =>
  (await rows<{ data: string }>("SELECT data FROM events WHERE account_id = ? AND type = ? ORDER BY rowid", accountId, type)).map((r) => JSON.parse(r.data));
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe("before anything was sent", () => {
  it("a line not matched yet, or claimed for a send not yet attempted (each channel), ends skipped at once; the supplier hears nothing", async () => {
    for (const channel of ["webhook", "email", "pull", "manual"] as const) {
      const creds = await createAccount();
      await recordEvents(creds.accountId);
      const url = remoteUrl("ok");
      const created = await call("POST", "/api/v1/suppliers", { creds, body: { name: `Plain ${channel}`, channel, webhook_url: url, email: "orders@supplier.example" } });
      const { reference, dispatchId } = await claimedNotSent(creds, { id: created.json.id, channel });
      const res = await cancel(creds, reference, { reason: "customer changed their mind" });
      expect(res.status, channel).toBe(200);
      expect(res.json.order_lines.map((l: { current_status: string; cancellation: unknown }) => [l.current_status, l.cancellation])).toEqual([
        ["skipped", null],
        ["skipped", null],
      ]);
      expect(logsOf(res.json.order_lines[0]).at(-1)).toEqual(["skipped", "Cancelled: customer changed their mind"]);
      // The send that was to carry them finds nothing to send.
      await attemptDispatch(createDb(env.DB), env, carrierPipeline(env), dispatchId);
      expect(await received(url), channel).toEqual([]);
      expect(await cancellationsOf(creds, reference), channel).toEqual([]);
      expect(await eventsOf(creds.accountId, "order.cancelled"), channel).toEqual([
        {
          order: { reference, external_id: res.json.external_id },
          scope: "order",
          reason: "customer changed their mind",
          lines: [
            { id: res.json.order_lines[0].id, external_id: "mug", quantity: 5, outcome: "cancelled" },
            { id: res.json.order_lines[1].id, external_id: "cup", quantity: 1, outcome: "cancelled" },
          ],
        },
      ]);
      expect((await eventsOf(creds.accountId, "order_line.cancellation_confirmed")).map((e) => [e.line.id, e.quantity, e.supplier, e.confirmed_by])).toEqual([
        [res.json.order_lines[0].id, 5, null, null],
        [res.json.order_lines[1].id, 1, null, null],
      ]);
      // Every line is settled: the order is complete.
      expect((await call("GET", `/api/v1/orders?external_id=${res.json.external_id}&completed_since=2000-01-01`, { creds })).json.meta.total).toBe(1);
    }
  });

  it("a quantity of a line not sent yet is split off as a skipped line; the rest goes on", async () => {
    const creds = await createAccount();
    const res0 = await call("POST", "/api/v1/orders", { creds, body: twoLines() });
    const reference = String(res0.json.reference);
    await pipelineIdle(creds.accountId);
    const [mug] = (await getOrder(creds, reference)).order_lines;
    const res = await cancel(creds, reference, { lines: [{ line_id: mug.id, quantity: 2 }] });
    expect(res.status).toBe(200);
    // A split line follows the line it came from.
    const [kept, split, cup] = res.json.order_lines;
    expect([kept.id, kept.quantity, kept.current_status, kept.split_from_line_id]).toEqual([mug.id, 3, "pending", null]);
    expect(cup.current_status).toBe("pending");
    expect([split.external_id, split.quantity, split.current_status, split.split_from_line_id]).toEqual(["mug", 2, "skipped", mug.id]);
    expect(logsOf(kept).at(-1)).toEqual(["pending", "2 of 5 cancelled; they are split off as a skipped line"]);
    expect(logsOf(split)).toEqual([["skipped", `Split from line #${mug.id}: 2 of 5 cancelled`]]);
  });
});

describe("after sending", () => {
  it("webhook: a signed dispatch.cancellation_requested, retried under one idempotency key; the supplier confirms in a signed callback", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    const { supplier, reference, lineIds } = await sentOrder(creds, { channel: "webhook", webhook_url: remoteUrl("ok") });
    // The supplier's endpoint fails once when the cancellation comes.
    const url = remoteUrl("flaky-1");
    await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { webhook_url: url } });

    const res = await cancel(creds, reference, { line_ids: [lineIds[0]], reason: "wrong colour" });
    expect(res.status).toBe(200);
    const line = res.json.order_lines[0];
    expect(line.current_status).toBe("completed");
    expect(line.cancellation).toEqual({ id: expect.any(Number), quantity: 5, supplier_id: supplier.id, requested_at: expect.any(String) });
    expect(logsOf(line).at(-1)).toEqual(["completed", `Cancellation of 5 of 5 requested from supplier ${supplier.name}: wrong colour`]);

    const requests = await waitFor(async () => ((await received(url)).length === 2 ? received(url) : null));
    const [first, second] = requests;
    expect(first.headers["idempotency-key"]).toBe(second.headers["idempotency-key"]);
    expect(first.body).toBe(second.body);
    expect(await signatureValid(second.headers["x-webhook-signature"], supplier.webhook_secret, second.body)).toBe(true);
    const doc = JSON.parse(second.body);
    expect(doc).toEqual({
      id: second.headers["idempotency-key"],
      type: "dispatch.cancellation_requested",
      cancellation_id: line.cancellation.id,
      purpose: "cancel",
      created_at: expect.any(String),
      test: false,
      supplier: { id: supplier.id, name: supplier.name },
      order: { reference, external_id: res.json.external_id },
      reason: "wrong colour",
      lines: [{ id: lineIds[0], external_id: "mug", name: "Blue mug", ean13: null, reference: null, quantity: 5, line_quantity: 5, status: "requested" }],
    });
    const [request] = await waitFor(async () => {
      const list = await cancellationsOf(creds, reference);
      return list[0]?.status === "requested" ? list : null;
    });
    expect(request).toEqual({
      id: doc.cancellation_id,
      supplier: { id: supplier.id, name: supplier.name },
      channel: "webhook",
      purpose: "cancel",
      reason: "wrong colour",
      status: "requested",
      idempotency_key: doc.id,
      attempts: 2,
      last_error: null,
      lines: [{ line_id: lineIds[0], quantity: 5, status: "requested", answered_by: null, answer_reason: null, answered_at: null }],
      created_at: doc.created_at,
      sent_at: expect.stringMatching(ISO_MICRO),
      acknowledged_at: null,
    });

    const body = JSON.stringify({ answers: [{ line_id: lineIds[0], action: "confirm_cancellation" }] });
    const confirmed = await call("POST", `/api/v1/supplier-callbacks/${supplier.id}`, {
      rawBody: body,
      headers: { "content-type": "application/json", "x-webhook-signature": await signedHeader(supplier.webhook_secret, body) },
    });
    expect(confirmed).toMatchObject({ status: 200, json: { results: [{ line_id: lineIds[0], current_status: "skipped" }] } });
    const order = await getOrder(creds, reference);
    expect([order.order_lines[0].current_status, order.order_lines[0].cancellation]).toEqual(["skipped", null]);
    expect(logsOf(order.order_lines[0]).at(-1)).toEqual(["skipped", `Cancellation of 5 of 5 confirmed by supplier ${supplier.name}: wrong colour`]);
    expect(await cancellationsOf(creds, reference)).toEqual([
      {
        ...request,
        status: "answered",
        lines: [{ line_id: lineIds[0], quantity: 5, status: "confirmed", answered_by: "supplier", answer_reason: null, answered_at: expect.stringMatching(ISO_MICRO) }],
      },
    ]);
    expect(await eventsOf(creds.accountId, "order_line.cancellation_confirmed")).toEqual([
      {
        order: { reference, external_id: order.external_id },
        line: { id: lineIds[0], external_id: "mug", quantity: 5, split_from_line_id: null },
        quantity: 5,
        reason: "wrong colour",
        supplier: { id: supplier.id, name: supplier.name },
        confirmed_by: "supplier",
        purpose: "cancel",
      },
    ]);
  });

  it("e-mail: a cancellation mail; the supplier confirms part of the quantity (split off as a skipped line)", async () => {
    const creds = await createAccount();
    const { supplier, reference, lineIds } = await sentOrder(creds, { channel: "email", email: "orders@supplier.example" });
    const res = await cancel(creds, reference, { lines: [{ line_id: lineIds[0], quantity: 2 }] });
    expect(res.json.order_lines[0].cancellation).toMatchObject({ quantity: 2 });
    const [request] = await waitFor(async () => {
      const list = await cancellationsOf(creds, reference);
      return list[0]?.status === "requested" ? list : null;
    });
    expect(request).toMatchObject({ channel: "email", status: "requested", attempts: 1, last_error: null, lines: [{ line_id: lineIds[0], quantity: 2, status: "requested" }] });
    // The mail, as the e-mail channel wrote it from the request's document (kept as its payload).
    const [{ payload }] = await rows<{ payload: string }>("SELECT payload FROM cancellations WHERE id = ?", request.id);
    const doc = JSON.parse(payload);
    expect(cancellationMailSubject(doc)).toBe(`Cancellation request: order ${reference} for ${supplier.name}`);
    expect(cancellationMailText(doc)).toBe(
      [
        `The shop cancels these lines of order ${reference} (shop order ${res.json.external_id}) for ${supplier.name}.`,
        "",
        "Please do not ship:",
        `  2 of 5 x Blue mug  (line ${lineIds[0]}, SKU -, EAN -)`,
        "",
        "Answer per line: confirm the cancellation, or refuse it if the goods have already shipped. Answer in the supplier portal,",
        'or with POST /api/v1/supplier/answers: {"answers": [{"line_id": <line>, "action": "confirm_cancellation"}]}',
        '(or "refuse_cancellation" with a "reason").',
        "",
        `Reference for your answer: cancellation ${request.id} (${request.idempotency_key}).`,
      ].join("\n"),
    );
    const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key;
    const confirmed = await call("POST", "/api/v1/supplier/answers", { headers: bearer(key), body: { answers: [{ line_id: lineIds[0], action: "confirm_cancellation" }] } });
    expect(confirmed.json.results).toEqual([{ line_id: lineIds[0], current_status: "completed" }]);
    const order = await getOrder(creds, reference);
    const [kept, split] = order.order_lines;
    expect([kept.quantity, kept.current_status, kept.cancellation]).toEqual([3, "completed", null]);
    expect([split.quantity, split.current_status, split.split_from_line_id, split.matched_supplier]).toEqual([2, "skipped", lineIds[0], { id: supplier.id, name: supplier.name }]);
    expect(logsOf(kept).at(-1)).toEqual(["completed", `Cancellation of 2 of 5 confirmed by supplier ${supplier.name}; they are split off as a skipped line`]);
    expect(logsOf(split)).toEqual([["skipped", `Split from line #${lineIds[0]}: Cancellation of 2 of 5 confirmed by supplier ${supplier.name}`]]);
  });

  it("pull: the supplier lists the request, acknowledges it and refuses (it shipped): the line keeps its state, the refusal is logged and evented", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    const { supplier, reference, lineIds } = await sentOrder(creds, { channel: "pull" });
    const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key;
    await cancel(creds, reference, { line_ids: [lineIds[1]] });
    // Pull: nothing to send, the request waits in the supplier's list at once.
    const list = await call("GET", "/api/v1/supplier/cancellations", { headers: bearer(key) });
    expect(list.status).toBe(200);
    expect(list.json.meta.total).toBe(1);
    const [doc] = list.json.data;
    const [request] = await cancellationsOf(creds, reference);
    expect(doc).toEqual({
      id: request.idempotency_key,
      type: "dispatch.cancellation_requested",
      cancellation_id: request.id,
      purpose: "cancel",
      created_at: request.created_at,
      test: false,
      supplier: { id: supplier.id, name: supplier.name },
      order: { reference, external_id: expect.any(String) },
      reason: null,
      lines: [{ id: lineIds[1], external_id: "cup", name: "Cup", ean13: null, reference: null, quantity: 1, line_quantity: 1, status: "requested" }],
      status: "requested",
      acknowledged_at: null,
    });
    const ack = await call("POST", `/api/v1/supplier/cancellations/${doc.cancellation_id}/ack`, { headers: bearer(key) });
    expect(ack).toMatchObject({ status: 200, json: { cancellation_id: doc.cancellation_id, status: "requested", acknowledged_at: expect.any(String) } });
    expect((await call("POST", `/api/v1/supplier/cancellations/${doc.cancellation_id}/ack`, { headers: bearer(key) })).json).toEqual(ack.json);

    const refused = await call("POST", "/api/v1/supplier/answers", {
      headers: bearer(key),
      body: { answers: [{ line_id: lineIds[1], action: "refuse_cancellation", reason: "already shipped" }] },
    });
    expect(refused.json.results).toEqual([{ line_id: lineIds[1], current_status: "ruled" }]);
    const order = await getOrder(creds, reference);
    expect([order.order_lines[1].current_status, order.order_lines[1].cancellation]).toEqual(["ruled", null]);
    expect(logsOf(order.order_lines[1]).at(-1)).toEqual(["ruled", `Cancellation of 1 refused by supplier ${supplier.name}: already shipped`]);
    expect((await eventsOf(creds.accountId, "order_line.cancellation_refused")).map((e) => [e.line.id, e.reason, e.supplier.id])).toEqual([[lineIds[1], "already shipped", supplier.id]]);
    expect((await call("GET", "/api/v1/supplier/cancellations", { headers: bearer(key) })).json.data).toEqual([]);
    expect((await call("GET", "/api/v1/supplier/cancellations?status=answered", { headers: bearer(key) })).json.data).toEqual([
      { ...doc, status: "answered", acknowledged_at: ack.json.acknowledged_at, lines: [{ ...doc.lines[0], status: "refused" }] },
    ]);
  });

  it("manual: the request waits on the shop's attention list, and the shop records the supplier's answer", async () => {
    const creds = await createAccount();
    const { supplier, reference, lineIds } = await sentOrder(creds, { channel: "manual" });
    await cancel(creds, reference, { reason: "out of budget" });
    const attention = await needsAttention(createDb(env.DB), creds.accountId);
    const cancellationId = attention.cancellations.items[0]?.cancellationId;
    expect(attention.cancellations).toEqual({
      count: 1,
      items: [
        {
          // The item's key for setting it aside (src/attention/set-aside.ts).
          key: `cancellation:${cancellationId}`,
          reference,
          supplierName: supplier.name,
          cancellationId: expect.any(Number),
          purpose: "cancel",
          status: "requested",
          channel: "manual",
          lastError: null,
          openLines: 2,
          createdAt: expect.any(String),
        },
      ],
    });
    const recorded = await call("POST", `/api/v1/orders/${reference}/cancellations/answers`, {
      creds,
      body: { answers: [{ line_id: lineIds[0], action: "confirm" }, { line_id: lineIds[1], action: "refuse", reason: "already packed" }] },
    });
    expect(recorded.status).toBe(200);
    expect(recorded.json.order_lines.map((l: { current_status: string }) => l.current_status)).toEqual(["skipped", "ruled"]);
    expect(logsOf(recorded.json.order_lines[0]).at(-1)).toEqual([
      "skipped",
      `Cancellation of 5 of 5 confirmed by supplier ${supplier.name} (recorded by the shop): out of budget`,
    ]);
    expect(logsOf(recorded.json.order_lines[1]).at(-1)).toEqual(["ruled", `Cancellation of 1 refused by supplier ${supplier.name} (recorded by the shop): already packed`]);
    expect((await needsAttention(createDb(env.DB), creds.accountId)).cancellations.count).toBe(0);
  });

  it("a shipment reported after the request refuses it, as the supplier's own answer", async () => {
    const creds = await createAccount();
    const { supplier, reference, lineIds } = await sentOrder(creds, { channel: "pull" });
    const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key;
    await cancel(creds, reference, { lines: [{ line_id: lineIds[0], quantity: 4 }] });
    const shipped = await call("POST", "/api/v1/supplier/answers", { headers: bearer(key), body: { answers: [{ line_id: lineIds[0], action: "ship", quantity: 2 }] } });
    expect(shipped.json.results).toEqual([{ line_id: lineIds[0], current_status: "completed" }]);
    const order = await getOrder(creds, reference);
    expect(logsOf(order.order_lines[0]).slice(-2)).toEqual([
      ["completed", `Shipped 2 by supplier ${supplier.name}`],
      ["completed", `Cancellation of 4 refused by supplier ${supplier.name}'s shipment: it shipped 2`],
    ]);
    expect((await cancellationsOf(creds, reference))[0].lines).toEqual([
      { line_id: lineIds[0], quantity: 4, status: "refused", answered_by: "shipment", answer_reason: "it shipped 2", answered_at: expect.any(String) },
    ]);
    // What is not shipped can still be cancelled.
    const again = await cancel(creds, reference, { lines: [{ line_id: lineIds[0], quantity: 3 }] });
    expect(again.json.order_lines[0].cancellation).toMatchObject({ quantity: 3 });
  });
});
