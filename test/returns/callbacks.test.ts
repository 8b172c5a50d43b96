// A supplier's answer to a return as a signed callback (POST /api/v1/supplier-callbacks/{supplierId}/
// returns/{id}/answer; docs/returns.md): signed with its secret as dispatch answers' callbacks are,
// the same validation as the supplier API. A bad, stale or missing signature is a 401 and writes
// nothing; a replayed call finds the return moved on (a 409 naming its state, nothing written);
// another supplier's return is not found; bad fields are the API's 422.
import { describe, expect, it } from "vitest";
import { call } from "../helpers/http";
import { signedHeader } from "../helpers/suppliers";
import { requestReturn, shippedOrder, type Shipped } from "./support";

const callback = async (s: Shipped, returnId: number, body: unknown, opts: { secret?: string; at?: number; supplierId?: number } = {}) => {
  const raw = JSON.stringify(body);
  const signature = await signedHeader(opts.secret ?? s.cups.webhook_secret, raw, opts.at);
  return { raw, signature, res: await send(opts.supplierId ?? s.cups.id, returnId, raw, signature) };
};
const send = (supplierId: number, returnId: number, raw: string, signature: string) =>
  call("POST", `/api/v1/supplier-callbacks/${supplierId}/returns/${returnId}/answer`, { rawBody: raw, headers: { "content-type": "application/json", "x-webhook-signature": signature } });
const unauthorized = (error: string) => ({ message: "Unauthorized", error });

describe("a return answered by signed callback", () => {
  it("signed well: taken and logged as the callback's; badly, stale or unknown: 401; replayed: 409 naming the state; nothing written by a refusal", async () => {
    const s = await shippedOrder();
    const created = await requestReturn(s.creds, s.reference, { lines: [{ line_id: s.mugs, quantity: 2, reason: "Chipped" }, { line_id: s.plate, quantity: 1 }] });
    expect(created.status, created.text).toBe(201);
    const [cupsReturn, platesReturn] = created.json.data;
    const view = async () => (await call("GET", `/api/v1/returns/${cupsReturn.id}`, { creds: s.creds })).json;
    const before = await view();
    const authorise = { action: "authorise", rma: "RMA-CB-1", return_address: "Cups BV, Dock 1" };

    // Signed with another secret, six minutes old, or for a supplier that does not exist: 401, nothing written.
    expect((await callback(s, cupsReturn.id, authorise, { secret: "whsec_wrong" })).res.json).toEqual(unauthorized("The signature does not match."));
    const stale = (await callback(s, cupsReturn.id, authorise, { at: Date.now() - 6 * 60_000 })).res;
    expect([stale.status, stale.json]).toEqual([401, unauthorized("The signature timestamp is too old or in the future.")]);
    expect((await callback(s, cupsReturn.id, authorise, { supplierId: 999_999_999 })).res.status).toBe(401);
    // The body changed after signing: the signature covers the bytes as sent.
    const otherBody = await signedHeader(s.cups.webhook_secret, JSON.stringify({ action: "decline", reason: "x" }));
    expect((await send(s.cups.id, cupsReturn.id, JSON.stringify(authorise), otherBody)).json).toEqual(unauthorized("The signature does not match."));
    expect(await view()).toEqual(before);

    // Bad fields: the supplier API's 422; another supplier's return: 404.
    const bad = (await callback(s, cupsReturn.id, { action: "authorise", label_url: "ftp://x" })).res;
    expect([bad.status, bad.json.errors]).toEqual([422, { rma: ["The rma field is required when action is authorise."], label_url: ["The label_url field must be a valid http(s) URL."] }]);
    const notOurs = (await callback(s, platesReturn.id, { action: "decline", reason: "Not ours" })).res;
    expect([notOurs.status, notOurs.json]).toEqual([404, { message: "Not Found", error: `Return with id '${platesReturn.id}' not found` }]);
    expect(await view()).toEqual(before);

    // Signed well: taken, logged as the callback's.
    const first = await callback(s, cupsReturn.id, authorise);
    expect(first.res.status, first.res.text).toBe(200);
    expect(first.res.json).toMatchObject({ id: cupsReturn.id, status: "authorised", rma: "RMA-CB-1", return_address: "Cups BV, Dock 1" });
    const authorised = await view();
    expect(authorised.logs.at(-1)).toMatchObject({ status: "authorised", by: `supplier ${s.cups.name} (callback)` });

    // The same call replayed (its signature still fresh): the return has moved on; nothing written.
    const replay = await send(s.cups.id, cupsReturn.id, first.raw, first.signature);
    expect([replay.status, replay.json]).toEqual([409, { message: "Conflict", error: `Return ${cupsReturn.id} is authorised; it cannot be given the answer 'authorise' (only when requested).` }]);
    expect(await view()).toEqual(authorised);

    // The rest of the way, with the same validation: no receipt above what was returned, no credit before a receipt.
    const early = (await callback(s, cupsReturn.id, { action: "credit", amount: 5, currency: "EUR" })).res;
    expect([early.status, early.json.error]).toEqual([409, `Return ${cupsReturn.id} is authorised; it cannot be given the answer 'credit' (only when received).`]);
    const over = (await callback(s, cupsReturn.id, { action: "receive", lines: [{ line_id: s.mugs, quantity: 3, condition: "new" }] })).res;
    expect([over.status, over.json.errors]).toEqual([422, { "lines.0.quantity": [`The lines.0.quantity field must not be greater than 2, what return ${cupsReturn.id} asks back of line ${s.mugs}.`] }]);
    expect(await view()).toEqual(authorised);
    expect((await callback(s, cupsReturn.id, { action: "receive", lines: [{ line_id: s.mugs, quantity: 2, condition: "new" }] })).res.status).toBe(200);
    const credited = (await callback(s, cupsReturn.id, { action: "credit", amount: "24.95", currency: "EUR" })).res;
    expect(credited.json).toMatchObject({ status: "credited", credit: { amount: 24.95, currency: "EUR" } });
  });
});
