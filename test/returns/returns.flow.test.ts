// Returns end to end (docs/returns.md): a shipped order with lines of two suppliers is returned in
// part; each supplier hears of its return on its channel and authorises it; the customer's tracking
// is added; one supplier receives and credits through the API, the other receives and closes with
// no credit; the shop's connection gets a private note for each; the events reach the account's
// webhook; and the quantities never exceed what shipped.
import { describe, expect, it } from "vitest";
import { settledDeliveries, shopVerifies } from "../events/support";
import { received } from "../helpers/fake-remote";
import { call } from "../helpers/http";
import { pipelineIdle, waitFor } from "../helpers/wait";
import { signatureValid } from "../helpers/suppliers";
import { standInShop } from "../shops/stand-ins/client";
import type { WooState } from "../shops/stand-ins/woocommerce";
import { answerReturn, requestReturn, shippedOrder, supplierCall } from "./support";

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

describe("a return across two suppliers", () => {
  it("requested in part, authorised, in transit, received and credited by one, received and closed by the other: notes in the shop, events at the webhook", async () => {
    const s = await shippedOrder({ shop: true, webhook: true });
    const { creds, reference } = s;

    const created = await requestReturn(creds, reference, {
      lines: [
        { line_id: s.mugs, quantity: 1, reason: "Chipped" },
        { line_id: s.plate, quantity: 1, reason: "Wrong colour" },
      ],
      note: "Customer 4711",
    });
    expect(created.status, created.text).toBe(201);
    const [cupsReturn, platesReturn] = created.json.data;
    expect(created.json.data.map((r: { supplier: { id: number }; status: string; lines: unknown[] }) => [r.supplier.id, r.status, r.lines])).toEqual([
      [s.cups.id, "requested", [{ line_id: s.mugs, external_id: "31", name: "Blue mug", reference: "MUG-BLUE", quantity: 1, reason: "Chipped", received_quantity: null, condition: null }]],
      [s.plates.id, "requested", [{ line_id: s.plate, external_id: "32", name: "Red plate", reference: "PLATE-RED-L", quantity: 1, reason: "Wrong colour", received_quantity: null, condition: null }]],
    ]);

    // The webhook supplier is told on its channel, signed like a dispatch; the pull supplier sees it in its list.
    const notice = await waitFor(async () => (await received(s.cups.url)).find((r) => JSON.parse(r.body).type === "return.requested"));
    const doc = JSON.parse(notice.body);
    expect(doc).toMatchObject({ type: "return.requested", return_id: cupsReturn.id, order: { reference }, lines: [{ id: s.mugs, quantity: 1, reason: "Chipped" }] });
    expect(await signatureValid(notice.headers["x-signature"] ?? notice.headers["x-webhook-signature"] ?? "", s.cups.webhook_secret, notice.body)).toBe(true);
    const pulled = await supplierCall(s.plates.key, "GET", "/api/v1/supplier/returns");
    expect(pulled.json.data.map((r: { id: number; status: string }) => [r.id, r.status])).toEqual([[platesReturn.id, "requested"]]);
    // A supplier answering another supplier's return: not found, nothing changes.
    expect((await answerReturn(s.plates.key, cupsReturn.id, { action: "decline", reason: "Not ours" })).status).toBe(404);

    // Each authorises; the customer's tracking puts each in transit.
    const auth1 = await answerReturn(s.cups.key, cupsReturn.id, { action: "authorise", rma: "RMA-CUPS-1", return_address: "Cups BV, Dock 1, Rotterdam", label_url: "https://labels.example.com/1.pdf" });
    expect(auth1.status, auth1.text).toBe(200);
    expect(auth1.json).toMatchObject({ status: "authorised", rma: "RMA-CUPS-1", return_address: "Cups BV, Dock 1, Rotterdam", label_url: "https://labels.example.com/1.pdf" });
    expect((await answerReturn(s.plates.key, platesReturn.id, { action: "authorise", rma: "P-77", return_address: "Plates, Kade 2, Utrecht" })).status).toBe(200);
    for (const [id, number] of [[cupsReturn.id, "3SRET1"], [platesReturn.id, "3SRET2"]] as const) {
      const t = await call("POST", `/api/v1/returns/${id}/tracking`, { creds, body: { tracking_number: number, carrier: "PostNL" } });
      expect(t.status, t.text).toBe(200);
      expect(t.json).toMatchObject({ status: "in_transit", customer_tracking: number, customer_carrier: "PostNL" });
    }

    // Cups: received (opened) and credited through the API.
    const got = await answerReturn(s.cups.key, cupsReturn.id, { action: "receive", lines: [{ line_id: s.mugs, quantity: 1, condition: "opened" }] });
    expect(got.status, got.text).toBe(200);
    expect(got.json.lines[0]).toMatchObject({ received_quantity: 1, condition: "opened" });
    const credit = await answerReturn(s.cups.key, cupsReturn.id, { action: "credit", amount: "12.50", currency: "eur" });
    expect(credit.status, credit.text).toBe(200);
    expect(credit.json).toMatchObject({ status: "credited", credit: { amount: 12.5, currency: "EUR" } });

    // Plates: received (damaged) and closed with no credit.
    expect((await answerReturn(s.plates.key, platesReturn.id, { action: "receive", lines: [{ line_id: s.plate, quantity: 1, condition: "damaged" }] })).status).toBe(200);
    const closed = await answerReturn(s.plates.key, platesReturn.id, { action: "close", reason: "Broken in transit: the customer's packaging" });
    expect(closed.status, closed.text).toBe(200);
    expect(closed.json).toMatchObject({ status: "closed", close_reason: "Broken in transit: the customer's packaging", credit: null });

    // Every change logged with who made it, on the return and its lines.
    const one = (await call("GET", `/api/v1/returns/${cupsReturn.id}`, { creds })).json;
    expect(one.logs.map((l: { line_id: number | null; status: string; by: string }) => [l.line_id, l.status, l.by])).toEqual([
      [null, "requested", expect.stringMatching(/^shop \(API key #\d+\)$/)],
      [s.mugs, "requested", expect.stringMatching(/^shop/)],
      [null, "authorised", `supplier ${s.cups.name} (API)`],
      [null, "in_transit", expect.stringMatching(/^shop/)],
      [null, "received", `supplier ${s.cups.name} (API)`],
      [s.mugs, "received", `supplier ${s.cups.name} (API)`],
      [null, "credited", `supplier ${s.cups.name} (API)`],
    ]);
    expect(one.logs.at(-1)).toMatchObject({ message: `Return credited by supplier ${s.cups.name}: EUR 12.50`, created_at: ISO });
    expect(one.notices).toEqual([{ kind: "requested", channel: "webhook", status: "sent", attempts: 1, last_error: null, sent_at: ISO }]);

    // The shop: a private note for each outcome, never a refund.
    await pipelineIdle(creds.accountId);
    const notes = await waitFor(async () => {
      const list = (await standInShop<WooState>(s.shop!)).state.orders[0].notes.filter((n) => n.note.startsWith("Return "));
      return list.length === 6 ? list : null;
    });
    expect(notes.every((n) => n.customer_note === false)).toBe(true);
    expect(notes.map((n) => n.note).reverse()).toEqual([
      `Return ${cupsReturn.id} authorised by supplier ${s.cups.name}, RMA RMA-CUPS-1: 1 × Blue mug (31). Send to: Cups BV, Dock 1, Rotterdam.`,
      `Return ${platesReturn.id} authorised by supplier ${s.plates.name}, RMA P-77: 1 × Red plate (32). Send to: Plates, Kade 2, Utrecht.`,
      `Return ${cupsReturn.id}, RMA RMA-CUPS-1 received by supplier ${s.cups.name}: 1 of 1 × Blue mug (opened).`,
      `Return ${cupsReturn.id}, RMA RMA-CUPS-1 credited by supplier ${s.cups.name}: EUR 12.50 for 1 of 1 × Blue mug (opened). Nothing was refunded to the customer automatically.`,
      `Return ${platesReturn.id}, RMA P-77 received by supplier ${s.plates.name}: 1 of 1 × Red plate (damaged).`,
      `Return ${platesReturn.id}, RMA P-77 closed by supplier ${s.plates.name} without a credit: Broken in transit: the customer's packaging. Received: 1 of 1 × Red plate (damaged).`,
    ]);
    expect((await standInShop<WooState>(s.shop!)).received.some((r) => r.path.includes("refunds"))).toBe(false);

    // The account's webhook: every return event, signed.
    const delivered = await settledDeliveries(creds, s.hook!.id, 10);
    const types = delivered.map((d: { event: { type: string } }) => d.event.type);
    expect(types.filter((t: string) => t === "return.requested")).toHaveLength(2);
    expect(new Set(types)).toEqual(new Set(["return.requested", "return.authorised", "return.in_transit", "return.received", "return.credited", "return.closed"]));
    const credited = (await received(s.hook!.url)).find((r) => JSON.parse(r.body).type === "return.credited")!;
    expect(await shopVerifies(credited.headers["x-webhook-signature"], s.hook!.secret, credited.body)).toBe(true);
    expect(JSON.parse(credited.body).data).toMatchObject({ order: { reference, external_id: "4711" }, return: { id: cupsReturn.id, status: "credited", credit: { amount: 12.5, currency: "EUR" } } });

    // What shipped bounds every return of a line: one more mug can come back, not two.
    const more = await requestReturn(creds, reference, { lines: [{ line_id: s.mugs, quantity: 2 }] });
    expect(more.status).toBe(422);
    expect(more.json.errors).toEqual({ "lines.0.quantity": [`The lines.0.quantity field must not be greater than 1, what is shipped of line ${s.mugs} and not returned yet (2 shipped, 1 returned).`] });
    expect((await requestReturn(creds, reference, { lines: [{ line_id: s.mugs, quantity: 1 }] })).status).toBe(201);
  });
});
