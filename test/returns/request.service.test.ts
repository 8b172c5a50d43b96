// A return request's bad input and races (src/returns/request.service.ts): each a clear 4xx naming
// the field, with nothing written; two racing requests never ask back more than shipped together;
// the supplier's window (forced past it) and its advance authorisation.
import { describe, expect, it } from "vitest";
import { createAccount, createOrder, rows } from "../helpers/factories";
import { call } from "../helpers/http";
import { requestReturn, shippedOrder } from "./support";

const returnsOf = (accountId: number) => rows("SELECT id FROM returns WHERE account_id = ?", accountId);

describe("a return request's bad input", () => {
  it("a line never shipped, a quantity of 0 or past what shipped, a repeat, another account's order or line: 422/404 naming the field, nothing written", async () => {
    const s = await shippedOrder();
    const { creds, reference } = s;
    const other = await createAccount();
    const unshipped = await createOrder(creds, { products: [{ external_id: "x", name: "Vase", quantity: 1, price: 5 }] });
    const vase = (await call("GET", `/api/v1/orders/${unshipped.reference}`, { creds })).json.order_lines[0].id;

    const cases: [unknown, Record<string, string[]>][] = [
      [{ lines: [{ line_id: s.mugs, quantity: 0 }] }, { "lines.0.quantity": ["The lines.0.quantity field must be at least 1."] }],
      [{ lines: [{ line_id: s.mugs, quantity: 3 }] }, { "lines.0.quantity": [`The lines.0.quantity field must not be greater than 2, what is shipped of line ${s.mugs} and not returned yet (2 shipped, 0 returned).`] }],
      [{ lines: [{ line_id: s.mugs, quantity: 1 }, { line_id: s.mugs, quantity: 1 }] }, { "lines.1.line_id": ["The lines.1.line_id field has a duplicate value."] }],
      [{ lines: [{ line_id: vase, quantity: 1 }] }, { "lines.0.line_id": [`The selected lines.0.line_id is invalid: order ${reference} has no line ${vase}.`] }],
      [{ lines: [] }, { lines: ["The lines field is required."] }],
      [{ lines: Array.from({ length: 501 }, (_, i) => ({ line_id: i + 1, quantity: 1 })) }, { lines: ["The lines field must not have more than 500 items."] }],
    ];
    for (const [body, errors] of cases) {
      const res = await requestReturn(creds, reference, body);
      expect([res.status, res.json.errors], JSON.stringify(body).slice(0, 80)).toEqual([422, errors]);
    }
    // The line of another order of the account, shipped or not, is not this order's.
    const never = await requestReturn(creds, unshipped.reference, { lines: [{ line_id: vase, quantity: 1 }] });
    expect([never.status, never.json.errors]).toEqual([422, { "lines.0.line_id": [`Order line ${vase} has not shipped; only shipped quantity can be returned.`] }]);
    // Another account: its order is not found, and our line is not its order's.
    expect((await requestReturn(other, reference, { lines: [{ line_id: s.mugs, quantity: 1 }] })).status).toBe(404);
    expect((await call("GET", `/api/v1/orders/${reference}/returns`, { creds: other })).status).toBe(404);
    expect(await returnsOf(creds.accountId)).toEqual([]);
  });

  it("two racing requests for the same mugs: one is taken, the other is refused naming the quantity; never more than shipped", async () => {
    const s = await shippedOrder();
    const body = { lines: [{ line_id: s.mugs, quantity: 2 }] };
    const answers = await Promise.all([requestReturn(s.creds, s.reference, body), requestReturn(s.creds, s.reference, body)]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 422]);
    expect(answers.find((a) => a.status === 422)!.json.errors).toEqual({
      "lines.0.quantity": [`The lines.0.quantity field must not be greater than 0, what is shipped of line ${s.mugs} and not returned yet (2 shipped, 2 returned).`],
    });
    expect(await rows("SELECT sum(quantity) AS q FROM return_lines WHERE order_line_id = ?", s.mugs)).toEqual([{ q: 2 }]);
  });

  it("past the supplier's return window a 422 unless forced; a supplier that authorises in advance authorises at once", async () => {
    const s = await shippedOrder();
    const { creds, reference } = s;
    const settings = (id: number, body: unknown) => call("PUT", `/api/v1/suppliers/${id}/returns-settings`, { creds, body });
    expect((await settings(s.plates.id, { auto_authorise: true })).json.errors).toEqual({ return_address: ["The return_address field is required when auto_authorise is true."] });
    expect((await settings(s.plates.id, { auto_authorise: true, return_address: "Plates, Kade 2, Utrecht" })).json).toEqual({
      auto_authorise: true,
      return_address: "Plates, Kade 2, Utrecht",
      window_days: 30,
      answer_within_hours: null,
    });
    expect((await settings(s.cups.id, { window_days: 0 })).status).toBe(200);

    const late = await requestReturn(creds, reference, { lines: [{ line_id: s.mugs, quantity: 1 }] });
    expect(late.status).toBe(422);
    expect(late.json.errors["lines.0.line_id"][0]).toMatch(new RegExp(`^Order line ${s.mugs} shipped on \\d{4}-\\d\\d-\\d\\d, past supplier .+'s return window of 0 days; send force: true to request it all the same\\.$`));
    const forced = await requestReturn(creds, reference, { lines: [{ line_id: s.mugs, quantity: 1 }], force: true });
    expect(forced.status, forced.text).toBe(201);
    expect(forced.json.data[0]).toMatchObject({ status: "requested", forced: true });

    const auto = await requestReturn(creds, reference, { lines: [{ line_id: s.plate, quantity: 1 }] });
    expect(auto.status, auto.text).toBe(201);
    const id = auto.json.data[0].id;
    expect(auto.json.data[0]).toMatchObject({ status: "authorised", rma: `RMA-${id}`, return_address: "Plates, Kade 2, Utrecht" });
    expect(auto.json.data[0].logs.map((l: { status: string; by: string }) => [l.status, l.by])).toEqual([
      ["requested", expect.stringMatching(/^shop/)],
      ["requested", expect.stringMatching(/^shop/)],
      ["authorised", "automatic"],
    ]);
  });
});
