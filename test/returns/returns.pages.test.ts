// The console's return forms over HTTP (src/returns/returns.pages.tsx), the refusals a browser test
// would take a page load each for: a 422 beside the field, a 409 when the supplier moved the return
// on meanwhile (said on the return, nothing written), another order's return (404), a bad state on
// the Returns page (422), and a cancel that goes through, logged as the console's.
import { describe, expect, it } from "vitest";
import { csrfOf, postForm, send, signIn } from "../helpers/console-http";
import { rows } from "../helpers/factories";
import { call } from "../helpers/http";
import { answerReturn, requestReturn, shippedOrder } from "./support";

const page = async (path: string, jar: Map<string, string>) => {
  const res = await send(path, { jar });
  return { status: res.status, html: await res.text() };
};
/** What is written about a return: its row and its log (none may change on a refusal). */
const written = async (id: number) => ({
  ret: await rows("SELECT status, customer_tracking, cancel_reason, updated_at FROM returns WHERE id = ?", id),
  logs: await rows("SELECT id FROM return_logs WHERE return_id = ?", id),
});

describe("the order page's return forms", () => {
  it("refused beside the field, refused when the return moved on, another order's return not found; a cancel logged as the console's", async () => {
    const s = await shippedOrder();
    const { jar } = await signIn({ account_id: String(s.creds.accountId), api_key: s.creds.apiKey });
    const created = await requestReturn(s.creds, s.reference, { lines: [{ line_id: s.mugs, quantity: 1 }, { line_id: s.plate, quantity: 1 }] });
    const [cups, plates] = created.json.data.map((r: { id: number }) => r.id) as number[];
    expect((await answerReturn(s.cups.key, cups, { action: "authorise", rma: "C-1", return_address: "Cups BV, Dock 1" })).status).toBe(200);
    const order = await page(`/console/orders/${s.reference}`, jar);
    const csrf = csrfOf(order.html);
    const base = `/console/orders/${s.reference}/returns`;

    // No tracking number: 422 beside the field, nothing written.
    const before = await written(cups);
    const empty = await postForm(`${base}/${cups}/tracking`, jar, { _csrf: csrf, tracking_number: "", carrier: "PostNL" });
    expect(empty.status).toBe(422);
    const emptyHtml = await empty.text();
    expect(emptyHtml).toContain(`<small id="return-${cups}-tracking-error" class="field-error">The customer&#39;s tracking number field is required.</small>`);
    expect(await written(cups)).toEqual(before);

    // The supplier received it meanwhile: cancelling is a 409 said on the return, nothing written.
    expect((await answerReturn(s.cups.key, cups, { action: "receive", lines: [{ line_id: s.mugs, quantity: 1, condition: "new" }] })).status).toBe(200);
    const received = await written(cups);
    const late = await postForm(`${base}/${cups}/cancel`, jar, { _csrf: csrf, reason: "Kept it" });
    expect(late.status).toBe(409);
    expect(await late.text()).toContain(`<p class="form-error" role="alert">Return ${cups} is received; it cannot be given the answer &#39;cancel&#39; (only when requested or authorised or in_transit).</p>`);
    expect(await written(cups)).toEqual(received);

    // Another order's return under this order's address: not found, nothing written.
    const other = await shippedOrder();
    const stranger = await postForm(`/console/orders/${other.reference}/returns/${plates}/cancel`, jar, { _csrf: csrf });
    expect(stranger.status).toBe(404);

    // The plates' return cancelled: back to it with the outcome, logged as the console's.
    const ok = await postForm(`${base}/${plates}/cancel`, jar, { _csrf: csrf, reason: "The customer kept it" });
    expect([ok.status, ok.headers.get("location")]).toEqual([303, `/console/orders/${s.reference}#return-${plates}`]);
    const log = await rows<{ status: string; message: string; actor: string }>("SELECT status, message, actor FROM return_logs WHERE return_id = ? ORDER BY id DESC LIMIT 1", plates);
    expect(log).toEqual([{ status: "cancelled", message: "Return cancelled by the shop: The customer kept it", actor: expect.stringMatching(/^shop \(console, API key #\d+\)$/) }]);
  });

  it("Return items… with no quantity filled in is refused above the form; the Returns page refuses a state it does not know", async () => {
    const s = await shippedOrder();
    const { jar } = await signIn({ account_id: String(s.creds.accountId), api_key: s.creds.apiKey });
    const csrf = csrfOf((await page(`/console/orders/${s.reference}`, jar)).html);
    const none = await postForm(`/console/orders/${s.reference}/returns`, jar, { _csrf: csrf, [`quantity_${s.mugs}`]: "", [`quantity_${s.plate}`]: "0", note: "x" });
    expect(none.status).toBe(422);
    expect(await none.text()).toContain('<p class="form-error" role="alert">Fill in the quantity to return of at least one line.</p>');
    expect(await rows("SELECT id FROM returns WHERE order_id = ?", s.orderId)).toEqual([]);

    const bad = await page("/console/returns?status=lost", jar);
    expect(bad.status).toBe(422);
    expect(bad.html).toContain("The selected status &#39;lost&#39; is invalid. Allowed: requested, authorised, declined, in_transit, received, credited, closed, cancelled, all.");
  });

  it("force is offered only past a supplier's return window, said beside the line; without it the request is refused there, with it the return is forced", async () => {
    const s = await shippedOrder();
    const { jar } = await signIn({ account_id: String(s.creds.accountId), api_key: s.creds.apiKey });
    const within = await page(`/console/orders/${s.reference}`, jar);
    expect(within.html).not.toContain('name="force"');
    expect((await call("PUT", `/api/v1/suppliers/${s.plates.id}/returns-settings`, { creds: s.creds, body: { window_days: 0 } })).status).toBe(200);
    const past = await page(`/console/orders/${s.reference}`, jar);
    const shippedOn = (await rows<{ d: string }>("SELECT substr(max(created_at), 1, 10) AS d FROM shipments WHERE order_line_id = ?", s.plate))[0].d;
    expect(past.html).toContain(`Shipped on ${shippedOn}: past ${s.plates.name}&#39;s return window of 0 days.`);
    expect(past.html).toContain('<input type="checkbox" name="force" value="true"/>');
    const fields = { _csrf: csrfOf(past.html), [`quantity_${s.mugs}`]: "", [`quantity_${s.plate}`]: "1", [`reason_${s.plate}`]: "Too late" };

    const refused = await postForm(`/console/orders/${s.reference}/returns`, jar, fields);
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain(
      `<small id="return-quantity-${s.plate}-error" class="field-error">Order line ${s.plate} shipped on ${shippedOn}, past supplier ${s.plates.name}&#39;s return window of 0 days; send force: true to request it all the same.</small>`,
    );
    expect(await rows("SELECT id FROM returns WHERE order_id = ?", s.orderId)).toEqual([]);

    const forced = await postForm(`/console/orders/${s.reference}/returns`, jar, { ...fields, force: "true" });
    expect(forced.status).toBe(303);
    expect(await rows("SELECT supplier_id, status, forced FROM returns WHERE order_id = ?", s.orderId)).toEqual([{ supplier_id: s.plates.id, status: "requested", forced: 1 }]);
  });
});
