// A return's limit on lines at its maximum and one past it (docs/returns.md): an order of 500
// shipped lines is returned whole in one request (500 lines, one return) and received whole in one
// answer (500 lines); 501 lines are a 422 naming the field, with nothing of the account written.
import { describe, expect, it } from "vitest";
import { accountState, createAccount, createOrder, rows } from "../helpers/factories";
import { call } from "../helpers/http";
import { answered, ship } from "../helpers/shops";
import { awaitingPickup, supplierWithRule } from "../helpers/suppliers";
import { answerReturn, requestReturn, supplierCall } from "./support";

describe("a return's 500 lines", () => {
  it("500 lines returned in one request and received in one answer; 501 refused naming the field, nothing written", async () => {
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, { channel: "pull" });
    const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key as string;
    const products = Array.from({ length: 500 }, (_, i) => ({ external_id: `l${i}`, name: `Line ${i}`, quantity: 2, price: 1 }));
    const { reference } = await createOrder(creds, { products });
    await awaitingPickup(key, reference);
    const ids = ((await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines as { id: number }[]).map((l) => l.id);
    expect(ids).toHaveLength(500);
    await answered(key, ids.map((id, i) => ship(id, 2, `3S${i}`)));

    // 501: the order's 500 lines and one more; nothing of the account changes.
    const state = accountState(creds.accountId);
    const before = await state();
    const over = await requestReturn(creds, reference, { lines: [...ids, ids[499] + 1000].map((id) => ({ line_id: id, quantity: 1 })) });
    expect([over.status, over.json]).toEqual([422, { message: "Errors", errors: { lines: ["The lines field must not have more than 500 items."] } }]);
    expect(await state()).toEqual(before);

    const whole = await requestReturn(creds, reference, { lines: ids.map((id) => ({ line_id: id, quantity: 2, reason: "Recall" })) });
    expect(whole.status, whole.text).toBe(201);
    expect(whole.json.data).toHaveLength(1);
    const ret = whole.json.data[0];
    expect(ret.lines).toHaveLength(500);
    expect(ret.lines.at(-1)).toMatchObject({ line_id: ids[499], quantity: 2, reason: "Recall" });

    expect((await answerReturn(key, ret.id, { action: "authorise", rma: "RMA-500", return_address: "Dock 5" })).status).toBe(200);
    // The receipt takes the same 500 at most: 501 refused, 500 taken.
    const tooMany = await answerReturn(key, ret.id, { action: "receive", lines: [...ids, ids[499] + 1000].map((id) => ({ line_id: id, quantity: 1, condition: "new" })) });
    expect([tooMany.status, tooMany.json.errors]).toEqual([422, { lines: ["The lines field must not have more than 500 items."] }]);
    const got = await answerReturn(key, ret.id, { action: "receive", lines: ids.map((id, i) => ({ line_id: id, quantity: i % 2, condition: "opened" })) });
    expect(got.status, got.text).toBe(200);
    expect(got.json.status).toBe("received");
    expect(await rows("SELECT sum(received_quantity) AS q, count(*) AS n FROM return_lines WHERE return_id = ?", ret.id)).toEqual([{ q: 250, n: 500 }]);
    expect((await supplierCall(key, "GET", `/api/v1/supplier/returns/${ret.id}`)).json.lines.at(-1)).toMatchObject({ line_id: ids[499], received_quantity: 1, condition: "opened" });
  });
});
