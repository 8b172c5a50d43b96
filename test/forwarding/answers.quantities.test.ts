// A line never ships more than it confirms: shipments and partial confirmations are judged against
// what is left of the line, summed over every answer (of one call, of earlier calls, and of racing
// calls, driven concurrently against the real local D1). Past it: a 422 naming the answer's
// quantity, and nothing written.
import { describe, expect, it } from "vitest";
import { createAccount, createOrder, orderPayload, recordEvents, rows } from "../helpers/factories";
import { call } from "../helpers/http";
import { answer, awaitingPickup, supplierWithRule } from "../helpers/suppliers";

/** A pulled order of one line of `quantity`, at a pull supplier with a key (the only supplier: nothing re-routes). */
async function pulledLine(quantity: number) {
  const creds = await createAccount();
  await recordEvents(creds.accountId);
  const { supplier } = await supplierWithRule(creds, { channel: "pull" });
  const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key as string;
  const { reference } = await createOrder(creds, orderPayload({ products: [{ external_id: "mug", name: "Blue mug", quantity, price: 1 }] }));
  const doc = await awaitingPickup(key, reference);
  const lineId = doc.lines[0].id as number;
  const line = async () => (await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines[0];
  const shippedEvents = async () => (await rows("SELECT id FROM events WHERE account_id = ? AND type = 'order_line.shipped'", creds.accountId)).length;
  return { creds, supplier, key, reference, lineId, line, shippedEvents };
}

const tooMany = (index: number, left: number, lineId: number, shipped: number, of: number) => [
  `The answers.${index}.quantity field must not be greater than ${left}, what is left to ship of line ${lineId} (${shipped} of ${of} shipped).`,
];

describe("shipping no more than the line has left", () => {
  it("ships 9 of a line of 2: a 422 naming the quantity, nothing written; 3 is one past it, 2 is all of it", async () => {
    const { key, lineId, line, shippedEvents } = await pulledLine(2);
    const before = await line();
    for (const quantity of [9, 3]) {
      const res = await answer(key, [{ line_id: lineId, action: "ship", quantity, carrier: "PostNL", tracking_number: `T${quantity}` }]);
      expect(res.status).toBe(422);
      expect(res.json).toEqual({ message: "Errors", errors: { "answers.0.quantity": tooMany(0, 2, lineId, 0, 2) } });
    }
    // Nothing of it: the line is as it was (not accepted, no shipment, no log, no event).
    expect(await line()).toEqual(before);
    expect(await shippedEvents()).toBe(0);

    const all = await answer(key, [{ line_id: lineId, action: "ship", quantity: 2, carrier: "PostNL", tracking_number: "T2" }]);
    expect(all).toMatchObject({ status: 200, json: { results: [{ line_id: lineId, current_status: "completed" }] } });
    expect((await line()).shipments).toEqual([{ id: expect.any(Number), quantity: 2, carrier: "PostNL", tracking_number: "T2", tracking_url: null, created_at: expect.any(String) }]);
  });

  it("sums every shipment of the line: earlier calls, the same call, and a shipment without a quantity (all that is left)", async () => {
    const { key, lineId, line, shippedEvents } = await pulledLine(5);
    expect((await answer(key, [{ line_id: lineId, action: "ship", quantity: 2, tracking_number: "A" }])).status).toBe(200);
    // 3 left: 2 and 2 in one call is one past it, named at the answer that passes it; nothing of the call is written.
    const pastIt = await answer(key, [
      { line_id: lineId, action: "ship", quantity: 2, tracking_number: "B" },
      { line_id: lineId, action: "ship", quantity: 2, tracking_number: "C" },
    ]);
    expect(pastIt.json).toEqual({ message: "Errors", errors: { "answers.1.quantity": tooMany(1, 1, lineId, 4, 5) } });
    expect((await line()).shipments.map((s: { quantity: number }) => s.quantity)).toEqual([2]);
    // Without a quantity: what is left (3), not the whole line again.
    const rest = await answer(key, [{ line_id: lineId, action: "ship", tracking_number: "D" }]);
    expect(rest.status).toBe(200);
    expect((await line()).shipments.map((s: { quantity: number }) => s.quantity)).toEqual([2, 3]);
    expect((await line()).logs.at(-1).message).toMatch(/^Shipped 3 by supplier /);
    // Nothing left: another shipment is refused, with or without a quantity.
    for (const extra of [{ quantity: 1 }, {}]) {
      const res = await answer(key, [{ line_id: lineId, action: "ship", tracking_number: "E", ...extra }]);
      expect(res.json).toEqual({ message: "Errors", errors: { "answers.0.quantity": tooMany(0, 0, lineId, 5, 5) } });
    }
    // A repeated report of a recorded shipment is still taken, and recorded once.
    expect(await answer(key, [{ line_id: lineId, action: "ship", quantity: 3, tracking_number: "D" }])).toMatchObject({ status: 200 });
    expect((await line()).shipments.map((s: { quantity: number }) => s.quantity)).toEqual([2, 3]);
    expect(await shippedEvents()).toBe(2);
  });

  it("a confirmed part bounds the shipments, and a partial answer never confirms less than is shipped", async () => {
    const { key, lineId, line } = await pulledLine(5);
    expect((await answer(key, [{ line_id: lineId, action: "ship", quantity: 3, tracking_number: "A" }])).status).toBe(200);
    const below = await answer(key, [{ line_id: lineId, action: "partial", quantity: 2, reason: "only 2" }]);
    expect(below.json).toEqual({ message: "Errors", errors: { "answers.0.quantity": [`The answers.0.quantity field must be at least 3, what is shipped of line ${lineId} already.`] } });
    expect((await line()).current_status).toBe("completed");
    // At what is shipped: taken. Then the line ships no more than the 3 it confirms.
    expect(await answer(key, [{ line_id: lineId, action: "partial", quantity: 3 }])).toMatchObject({ status: 200, json: { results: [{ line_id: lineId, current_status: "partially_completed" }] } });
    const more = await answer(key, [{ line_id: lineId, action: "ship", quantity: 1, tracking_number: "B" }]);
    expect(more.json).toEqual({ message: "Errors", errors: { "answers.0.quantity": tooMany(0, 0, lineId, 3, 3) } });
    expect((await line()).shipments.map((s: { quantity: number }) => s.quantity)).toEqual([3]);
  });
});

describe("racing answers never ship more than the line has", () => {
  it("four shipments of 1 at once on an accepted line of 2: two are recorded, two get the 422", async () => {
    const { key, lineId, line, shippedEvents } = await pulledLine(2);
    expect((await answer(key, [{ line_id: lineId, action: "accept" }])).status).toBe(200);
    const answers = await Promise.all(["A", "B", "C", "D"].map((t) => answer(key, [{ line_id: lineId, action: "ship", quantity: 1, tracking_number: t }])));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 422, 422]);
    for (const refused of answers.filter((a) => a.status === 422)) {
      expect(refused.json).toEqual({ message: "Errors", errors: { "answers.0.quantity": tooMany(0, 0, lineId, 2, 2) } });
    }
    const shipments = (await line()).shipments as { quantity: number; tracking_number: string }[];
    expect(shipments.map((s) => s.quantity)).toEqual([1, 1]);
    // The recorded ones are those answered 200, each announced once.
    const won = answers.flatMap((a, i) => (a.status === 200 ? ["A", "B", "C", "D"][i] : []));
    expect(shipments.map((s) => s.tracking_number).sort()).toEqual(won.sort());
    expect(await shippedEvents()).toBe(2);
  });

  it("a shipment of all 4 and a partial confirmation of 2 at once: one wins, the other gets the 422 of what won", async () => {
    for (let round = 0; round < 3; round++) {
      const { key, lineId, line } = await pulledLine(4);
      expect((await answer(key, [{ line_id: lineId, action: "accept" }])).status).toBe(200);
      const [ship, partial] = await Promise.all([
        answer(key, [{ line_id: lineId, action: "ship", quantity: 4, tracking_number: "ALL" }]),
        answer(key, [{ line_id: lineId, action: "partial", quantity: 2, reason: "only 2" }]),
      ]);
      expect([ship.status, partial.status].sort()).toEqual([200, 422]);
      const after = await line();
      if (ship.status === 200) {
        expect(partial.json).toEqual({ message: "Errors", errors: { "answers.0.quantity": [`The answers.0.quantity field must be at least 4, what is shipped of line ${lineId} already.`] } });
        expect([after.current_status, after.confirmed_quantity, after.shipments.length]).toEqual(["completed", null, 1]);
      } else {
        expect(ship.json).toEqual({ message: "Errors", errors: { "answers.0.quantity": tooMany(0, 2, lineId, 0, 2) } });
        expect([after.current_status, after.confirmed_quantity, after.shipments.length]).toEqual(["partially_completed", 2, 0]);
      }
    }
  });
});
