// The returns API around the happy path: answers that skip a state or race, what a receipt and a
// credit may hold, cancelling, and the account's list (filters, pagination, tenancy).
import { describe, expect, it } from "vitest";
import { createAccount, rows } from "../helpers/factories";
import { call } from "../helpers/http";
import { answerReturn, requestReturn, shippedOrder } from "./support";

describe("answers to a return", () => {
  it("skipped states and racing answers are 409s naming the state; a receipt above what returns, or a bad credit, a 422; nothing half written", async () => {
    const s = await shippedOrder();
    const created = await requestReturn(s.creds, s.reference, { lines: [{ line_id: s.mugs, quantity: 1 }] });
    const id = created.json.data[0].id;
    const key = s.cups.key;

    const credit = await answerReturn(key, id, { action: "credit", amount: 5, currency: "EUR" });
    expect([credit.status, credit.json.error]).toEqual([409, `Return ${id} is requested; it cannot be given the answer 'credit' (only when received).`]);
    expect((await answerReturn(key, id, { action: "receive", lines: [{ line_id: s.mugs, quantity: 1, condition: "new" }] })).json.error).toBe(
      `Return ${id} is requested; it cannot be given the answer 'receive' (only when authorised or in_transit).`,
    );
    expect((await answerReturn(key, id, { action: "authorise" })).json.errors).toEqual({ rma: ["The rma field is required when action is authorise."] });
    expect((await answerReturn(key, id, { action: "authorise", rma: "R1" })).json.errors).toEqual({
      return_address: [`The return_address field is required when action is authorise: supplier ${s.cups.name} has no return address set.`],
    });

    // Two answers at once: one authorises, the other finds it authorised already.
    const raced = await Promise.all([
      answerReturn(key, id, { action: "authorise", rma: "R1", return_address: "Dock 1" }),
      answerReturn(key, id, { action: "decline", reason: "No" }),
    ]);
    expect(raced.map((r) => r.status).sort()).toEqual([200, 409]);
    const won = raced.find((r) => r.status === 200)!.json.status;
    expect(raced.find((r) => r.status === 409)!.json.error).toMatch(new RegExp(`^Return ${id} is ${won};`));
    expect(await rows("SELECT status FROM return_logs WHERE return_id = ? AND return_line_id IS NULL ORDER BY id", id)).toEqual([{ status: "requested" }, { status: won }]);
    if (won === "declined") return;

    const over = await answerReturn(key, id, { action: "receive", lines: [{ line_id: s.mugs, quantity: 2, condition: "new" }] });
    expect([over.status, over.json.errors]).toEqual([422, { "lines.0.quantity": [`The lines.0.quantity field must not be greater than 1, what return ${id} asks back of line ${s.mugs}.`] }]);
    const bad = await answerReturn(key, id, { action: "receive", lines: [{ line_id: s.plate, quantity: 1, condition: "broken" }] });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.json.errors)).toEqual(["lines.0.condition"]);
    expect((await rows("SELECT status FROM returns WHERE id = ?", id))[0]).toEqual({ status: "authorised" });

    expect((await answerReturn(key, id, { action: "receive", lines: [{ line_id: s.mugs, quantity: 1, condition: "new" }] })).status).toBe(200);
    // Once received, the shop can no longer withdraw it.
    const cancel = await call("POST", `/api/v1/returns/${id}/cancel`, { creds: s.creds, body: {} });
    expect([cancel.status, cancel.json.error]).toEqual([409, `Return ${id} is received; it cannot be given the answer 'cancel' (only when requested or authorised or in_transit).`]);
    const credits = await answerReturn(key, id, { action: "credit", amount: 0, currency: "XYZ" });
    expect(Object.keys(credits.json.errors).sort()).toEqual(["amount", "currency"]);
    expect((await answerReturn(key, id, { action: "credit", amount: 99_999_999_999.9999, currency: "EUR" })).status).toBe(200);
  });

  it("a cancelled return frees its quantity; the list filters by status and supplier, pages, and never shows another account's", async () => {
    const s = await shippedOrder();
    const first = (await requestReturn(s.creds, s.reference, { lines: [{ line_id: s.mugs, quantity: 2 }, { line_id: s.plate, quantity: 1 }] })).json.data;
    const cancelled = await call("POST", `/api/v1/returns/${first[0].id}/cancel`, { creds: s.creds, body: { reason: "Customer kept them" } });
    expect(cancelled.json).toMatchObject({ status: "cancelled", cancel_reason: "Customer kept them" });
    expect((await requestReturn(s.creds, s.reference, { lines: [{ line_id: s.mugs, quantity: 2 }] })).status).toBe(201);

    const list = (q: string, creds = s.creds) => call("GET", `/api/v1/returns${q}`, { creds });
    expect((await list("")).json.meta.total).toBe(3);
    expect((await list("?status=cancelled")).json.data.map((r: { id: number }) => r.id)).toEqual([first[0].id]);
    expect((await list(`?supplier_id=${s.plates.id}`)).json.data.map((r: { id: number }) => r.id)).toEqual([first[1].id]);
    const paged = (await list("?per_page=2&page=2")).json;
    expect([paged.data.length, paged.meta.last_page, paged.meta.total]).toEqual([1, 2, 3]);
    expect((await list("?status=lost")).status).toBe(422);
    expect((await list("?created_from=2020-13-01")).status).toBe(422);
    expect((await list("?created_to=2000-01-01")).json.meta.total).toBe(0);
    const stranger = await createAccount();
    expect((await list("", stranger)).json.meta.total).toBe(0);
    expect((await call("GET", `/api/v1/returns/${first[0].id}`, { creds: stranger })).status).toBe(404);
  });
});
