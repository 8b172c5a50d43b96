// A supplier's decline is recorded once: declines that race (driven concurrently against the real
// local D1 and Queue) re-route the line once, and every other answer of that supplier to the line,
// racing or later, is a 409 that says its decline is recorded; never where the line went next.
import { describe, expect, it } from "vitest";
import { accountState, createAccount, createOrder, orderPayload, recordEvents, rows } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { answer, awaitingPickup, signedHeader, supplierChain } from "../helpers/suppliers";
import { waitFor } from "../helpers/wait";

const declineRecorded = (lineId: number, supplier: string, action: string) => ({
  message: "Conflict",
  error: `The decline of order line ${lineId} by supplier ${supplier} is already recorded; the line cannot be given the answer '${action}'.`,
});

async function orderAt(creds: Credentials, key: string) {
  const { reference } = await createOrder(creds, orderPayload({ products: [{ external_id: "mug", name: "Blue mug", quantity: 3, price: 1 }] }));
  const doc = await awaitingPickup(key, reference);
  return { reference, lineId: doc.lines[0].id as number };
}

const getOrder = async (creds: Credentials, reference: string) => (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
const rerouted = async (accountId: number) => (await rows("SELECT id FROM events WHERE account_id = ? AND type = 'order_line.rerouted'", accountId)).length;

describe("declines that race", () => {
  it("two declines of one line at once (the API and the signed callback): one re-route, the other a 409 saying the decline is recorded", async () => {
    for (let round = 0; round < 2; round++) {
      const creds = await createAccount();
      await recordEvents(creds.accountId);
      const [a, b] = await supplierChain(creds, [{ channel: "pull" }, { channel: "pull" }]);
      const { reference, lineId } = await orderAt(creds, a.key!);
      const body = JSON.stringify({ answers: [{ line_id: lineId, action: "decline", reason: "signed" }] });
      const [viaKey, viaCallback] = await Promise.all([
        answer(a.key!, [{ line_id: lineId, action: "decline", reason: "keyed" }]),
        call("POST", `/api/v1/supplier-callbacks/${a.supplier.id}`, {
          rawBody: body,
          headers: { "content-type": "application/json", "x-webhook-signature": await signedHeader(a.supplier.webhook_secret, body) },
        }),
      ]);
      expect([viaKey.status, viaCallback.status].sort()).toEqual([200, 409]);
      const [won, lost] = viaKey.status === 200 ? [viaKey, viaCallback] : [viaCallback, viaKey];
      expect(won.json).toEqual({ results: [{ line_id: lineId, current_status: "declined" }] });
      expect(lost.json).toEqual(declineRecorded(lineId, a.supplier.name, "decline"));
      // It never names the supplier the line went to.
      expect(lost.text).not.toContain(b.supplier.name);

      // One re-route, one decline in the log.
      const order = await waitFor(async () => {
        const o = await getOrder(creds, reference);
        return o.order_lines[0].matched_supplier?.id === b.supplier.id ? o : null;
      });
      const reason = viaKey.status === 200 ? "keyed" : "signed";
      expect(order.order_lines[0].logs.filter((l: { status: string }) => l.status === "declined").map((l: { message: string }) => l.message)).toEqual([
        `Declined by supplier ${a.supplier.name}: ${reason}; routed to supplier ${b.supplier.name}`,
      ]);
      expect(await rerouted(creds.accountId)).toBe(1);
    }
  });
});

describe("a later answer to a line the supplier declined", () => {
  it("is the same 409, whatever the answer, whether the line went on to another supplier or stayed declined", async () => {
    const creds = await createAccount();
    const [a, b] = await supplierChain(creds, [{ channel: "pull" }, { channel: "pull" }]);
    const later = [
      { action: "accept" },
      { action: "decline", reason: "again" },
      { action: "partial", quantity: 1 },
      { action: "ship", quantity: 1, tracking_number: "T1" },
      { action: "confirm_cancellation" },
    ];

    // Re-routed to B.
    const moved = await orderAt(creds, a.key!);
    expect((await answer(a.key!, [{ line_id: moved.lineId, action: "decline", reason: "out of stock" }])).status).toBe(200);
    for (const next of later) {
      const res = await answer(a.key!, [{ line_id: moved.lineId, ...next }]);
      expect(res.status).toBe(409);
      expect(res.json).toEqual(declineRecorded(moved.lineId, a.supplier.name, next.action));
      expect(res.text).not.toContain(b.supplier.name);
    }
    expect((await getOrder(creds, moved.reference)).order_lines[0]).toMatchObject({ current_status: "ruled", matched_supplier: { id: b.supplier.id }, shipments: [] });

    // The account does not re-route: the line stays declined with A.
    expect((await call("PATCH", "/api/v1/settings", { creds, body: { reroute_enabled: false } })).status).toBe(200);
    const stayed = await orderAt(creds, a.key!);
    expect((await answer(a.key!, [{ line_id: stayed.lineId, action: "decline", reason: "out of stock" }])).status).toBe(200);
    for (const next of later) {
      expect(await answer(a.key!, [{ line_id: stayed.lineId, ...next }])).toMatchObject({ status: 409, json: declineRecorded(stayed.lineId, a.supplier.name, next.action) });
    }
    expect((await getOrder(creds, stayed.reference)).order_lines[0]).toMatchObject({ current_status: "declined", matched_supplier: { id: a.supplier.id }, shipments: [] });

    // B, which never had the stayed line, is not told about it: not found, as any unknown line.
    expect(await answer(b.key!, [{ line_id: stayed.lineId, action: "accept" }])).toMatchObject({
      status: 404,
      json: { message: "Not Found", error: `Order line with id '${stayed.lineId}' not found` },
    });
  });
});

describe("a decline of a line shipped in full", () => {
  it("is a 409 that says so, through the API and the signed callback alike, and changes nothing; one item short of in full it is declined", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    const [a, b] = await supplierChain(creds, [{ channel: "pull" }, { channel: "pull" }]);
    const state = accountState(creds.accountId);
    const shippedInFull = (lineId: number, shipped: number, of: number) => ({
      message: "Conflict",
      error: `Order line ${lineId} is shipped in full (${shipped} of ${of}); it cannot be given the answer 'decline'.`,
    });

    // Shipped 3 of 3.
    const full = await orderAt(creds, a.key!);
    expect((await answer(a.key!, [{ line_id: full.lineId, action: "ship", quantity: 3, tracking_number: "T-FULL" }])).status).toBe(200);
    const before = await state();
    expect(await answer(a.key!, [{ line_id: full.lineId, action: "decline", reason: "changed our mind" }])).toMatchObject({ status: 409, json: shippedInFull(full.lineId, 3, 3) });
    const body = JSON.stringify({ answers: [{ line_id: full.lineId, action: "decline", reason: "signed" }] });
    const signed = await call("POST", `/api/v1/supplier-callbacks/${a.supplier.id}`, {
      rawBody: body,
      headers: { "content-type": "application/json", "x-webhook-signature": await signedHeader(a.supplier.webhook_secret, body) },
    });
    expect([signed.status, signed.json]).toEqual([409, shippedInFull(full.lineId, 3, 3)]);
    expect(await state()).toBe(before);
    // A shipment of the rest and a decline in one call: the decline judges what the call shipped before it.
    const partly = await orderAt(creds, a.key!);
    expect((await answer(a.key!, [{ line_id: partly.lineId, action: "ship", quantity: 2, tracking_number: "T-2" }])).status).toBe(200);
    const middle = await state();
    expect(
      await answer(a.key!, [
        { line_id: partly.lineId, action: "ship", quantity: 1, tracking_number: "T-3" },
        { line_id: partly.lineId, action: "decline", reason: "late" },
      ]),
    ).toMatchObject({ status: 409, json: shippedInFull(partly.lineId, 3, 3) });
    expect(await state()).toBe(middle);
    // A line confirmed 2 of 3 and shipped 2: all it confirms is shipped, so it is shipped in full.
    const confirmed = await orderAt(creds, a.key!);
    expect((await call("PATCH", "/api/v1/settings", { creds, body: { reroute_enabled: false } })).status).toBe(200);
    expect((await answer(a.key!, [{ line_id: confirmed.lineId, action: "partial", quantity: 2 }, { line_id: confirmed.lineId, action: "ship", quantity: 2, tracking_number: "T-P" }])).status).toBe(200);
    expect(await answer(a.key!, [{ line_id: confirmed.lineId, action: "decline", reason: "no" }])).toMatchObject({ status: 409, json: shippedInFull(confirmed.lineId, 2, 2) });
    expect((await getOrder(creds, full.reference)).order_lines[0]).toMatchObject({ current_status: "completed", matched_supplier: { id: a.supplier.id } });
    expect(await answer(b.key!, [{ line_id: full.lineId, action: "decline", reason: "not ours" }])).toMatchObject({ status: 404 });

    // Shipped 2 of 3: the third can still be declined (the line leaves A; its shipments stay).
    expect(await answer(a.key!, [{ line_id: partly.lineId, action: "decline", reason: "the third is broken" }])).toMatchObject({
      status: 200,
      json: { results: [{ line_id: partly.lineId, current_status: "declined" }] },
    });
  });
});
