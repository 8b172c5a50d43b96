// The rest of a partly confirmed line that no supplier took, acted on by hand through the API: sent
// to a supplier chosen, or re-routed to the next eligible one; split off as a new line that its
// supplier receives alone, once, however many times it is asked; refused once nothing is left; or
// cancelled (POST …/cancel-rest), the service the console's "Cancel the rest" calls too.
import { describe, expect, it } from "vitest";
import { accountState, createAccount, createOrder, orderPayload, recordEvents, rows } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { getPage, signIn } from "../helpers/console-http";
import { getOrder } from "../helpers/routing";
import { answer, awaitingPickup, supplierChain } from "../helpers/suppliers";
import { pipelineIdle } from "../helpers/wait";

/** The events of the account about this order, oldest first. */
const recordedEvents = async (accountId: number, reference: string) =>
  (await rows<{ type: string; data: string }>("SELECT type, data FROM events WHERE account_id = ? AND data ->> '$.order.reference' = ? ORDER BY rowid", accountId, reference)).map((r) => ({
    type: r.type,
    data: JSON.parse(r.data),
  }));

/**
 * Whether Needs attention (the console's landing page) lists the order's line under "Declined or
 * partly confirmed lines", as a person signed in sees it.
 */
async function attentionLists(creds: Credentials, reference: string): Promise<boolean> {
  const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
  const { status, html } = await getPage("/console", jar);
  expect(status).toBe(200);
  const section = /<h2 id="answered-heading">[\s\S]*?<\/section>/.exec(html)?.[0] ?? "";
  return section.includes(`<a href="/console/orders/${reference}">Order ${reference}</a>`);
}

const product = { external_id: "knife", name: "Bread knife", reference: "KNIFE-1", quantity: 3, price: 10 };
type Doc = { order: { reference: string }; lines: { id: number; quantity: number }[] };
const pulled = async (key: string, reference: string) =>
  ((await call("GET", "/api/v1/supplier/orders", { headers: { authorization: `Bearer ${key}` } })).json.data as Doc[]).filter((d) => d.order.reference === reference);

/** An account that does not re-route by itself; supplier A (with the rule) confirmed 2 of 3; B and C have no rule. */
async function partlyConfirmed() {
  const creds: Credentials = await createAccount();
  await recordEvents(creds.accountId);
  expect((await call("PATCH", "/api/v1/settings", { creds, body: { reroute_enabled: false } })).status).toBe(200);
  const [a, b, c] = await supplierChain(creds, [{ channel: "pull" }, { channel: "pull" }, { channel: "pull" }]);
  expect((await call("DELETE", `/api/v1/routing-rules/${c.rule.id}`, { creds })).status).toBe(204);
  const { reference } = await createOrder(creds, orderPayload({ products: [product] }));
  const lineId = (await awaitingPickup(a.key!, reference)).lines[0].id as number;
  expect((await answer(a.key!, [{ line_id: lineId, action: "partial", quantity: 2, reason: "only 2" }])).status).toBe(200);
  await pipelineIdle(creds.accountId);
  return { creds, a, b, c, reference, lineId };
}

describe("the rest of a partly confirmed line", () => {
  it("assign: two at once send the rest once, split off as a new line that the supplier chosen receives alone; then the line is refused, nothing changed; Needs attention lists it no more", async () => {
    const { creds, a, c, reference, lineId } = await partlyConfirmed();
    expect(await attentionLists(creds, reference)).toBe(true);
    const [first, second] = await Promise.all([
      call("POST", `/api/v1/orders/${reference}/lines/${lineId}/assign`, { creds, body: { supplier_id: c.supplier.id } }),
      call("POST", `/api/v1/orders/${reference}/lines/${lineId}/assign`, { creds, body: { supplier_id: c.supplier.id } }),
    ]);
    const refusal = {
      message: "Conflict",
      error: `Order line ${lineId} is partially_completed with no rest left: its supplier confirmed all 2 of it; it cannot be sent to a supplier by hand.`,
    };
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    expect((first.status === 409 ? first : second).json).toEqual(refusal);
    const lines = (await getOrder(creds, reference)).order_lines;
    expect(lines.map((l: { id: number; current_status: string; quantity: number; confirmed_quantity: number | null; matched_supplier: { id: number } }) => [l.current_status, l.quantity, l.confirmed_quantity, l.matched_supplier.id])).toEqual([
      ["partially_completed", 2, 2, a.supplier.id],
      ["ruled", 1, null, c.supplier.id],
    ]);
    // The rest is ruled to C at once; its dispatch is created by the pipeline, after the answer.
    await pipelineIdle(creds.accountId);
    const docs = await pulled(c.key!, reference);
    expect(docs.map((d) => d.lines.map((l) => [l.id, l.quantity]))).toEqual([[[lines[1].id, 1]]]);

    const state = accountState(creds.accountId);
    const before = await state();
    expect(await call("POST", `/api/v1/orders/${reference}/lines/${lineId}/assign`, { creds, body: { supplier_id: c.supplier.id } })).toMatchObject({ status: 409, json: refusal });
    expect(await call("POST", `/api/v1/orders/${reference}/lines/${lineId}/reroute`, { creds })).toMatchObject({
      status: 409,
      json: { message: "Conflict", error: `Order line ${lineId} is partially_completed with no rest left: its supplier confirmed all 2 of it; it cannot be re-routed.` },
    });
    expect(await state()).toBe(before);
    // Its rest went on: nothing of the line waits for a person any more.
    expect(await attentionLists(creds, reference)).toBe(false);
  });

  it("reroute: the rest goes to the next eligible supplier (by the rules, never the one that confirmed part), which receives it alone; Needs attention lists it no more", async () => {
    const { creds, b, reference, lineId } = await partlyConfirmed();
    const res = await call("POST", `/api/v1/orders/${reference}/lines/${lineId}/reroute`, { creds });
    expect(res.status).toBe(200);
    const [line, rest] = res.json.order_lines;
    expect([line.current_status, line.quantity, line.confirmed_quantity]).toEqual(["partially_completed", 2, 2]);
    expect([rest.current_status, rest.quantity, rest.matched_supplier.id]).toEqual(["ruled", 1, b.supplier.id]);
    expect(rest.logs.map((l: { message: string }) => l.message)[0]).toBe(`Split from line #${lineId}: the 1 of 3 supplier ${line.matched_supplier.name} did not confirm`);
    expect(line.logs.at(-1).message).toMatch(new RegExp(`^The other 1 go to supplier ${b.supplier.name} as a new line, re-routed by hand \\(API key #\\d+\\)$`));
    await pipelineIdle(creds.accountId);
    const docs = await pulled(b.key!, reference);
    expect(docs.map((d) => d.lines.map((l) => [l.id, l.quantity]))).toEqual([[[rest.id, 1]]]);
    expect(await attentionLists(creds, reference)).toBe(false);
  });

  it("cancel-rest: the rest split off as a skipped line, the reason logged and evented; the line's own 404s, 409 once no rest is left, 422 for a bad body, nothing changed by any refusal; Needs attention lists it no more", async () => {
    const { creds, a, reference, lineId } = await partlyConfirmed();
    const path = `/api/v1/orders/${reference}/lines/${lineId}/cancel-rest`;
    const state = accountState(creds.accountId);
    const before = await state();
    // Bad input first, while there is a rest to cancel: each refused, nothing changed.
    expect(await call("POST", path, { creds, body: { reason: "x".repeat(501) } })).toMatchObject({
      status: 422,
      json: { message: "Errors", errors: { reason: ["The reason field must not be greater than 500 characters."] } },
    });
    expect(await call("POST", path, { creds, body: { reason: ["a"] } })).toMatchObject({ status: 422, json: { message: "Errors", errors: { reason: ["The reason field must be a string."] } } });
    expect(await call("POST", `/api/v1/orders/${reference}/lines/999999999/cancel-rest`, { creds })).toMatchObject({
      status: 404,
      json: { message: "Not Found", error: "Order line with id '999999999' not found" },
    });
    expect(await call("POST", `/api/v1/orders/0000000000000000/lines/${lineId}/cancel-rest`, { creds })).toMatchObject({
      status: 404,
      json: { message: "Not Found", error: "Order with reference '0000000000000000' not found" },
    });
    const other = await createAccount();
    expect((await call("POST", path, { creds: other })).status).toBe(404);
    expect(await state()).toBe(before);

    // A reason of 500 characters, the maximum, is taken.
    const reason = "r".repeat(500);
    const res = await call("POST", path, { creds, body: { reason } });
    expect(res.status, res.text).toBe(200);
    const [line, rest] = res.json.order_lines;
    expect([line.id, line.current_status, line.quantity, line.confirmed_quantity, line.matched_supplier.id]).toEqual([lineId, "partially_completed", 2, 2, a.supplier.id]);
    expect([rest.current_status, rest.quantity, rest.split_from_line_id]).toEqual(["skipped", 1, lineId]);
    const why = new RegExp(`^Supplier ${a.supplier.name} confirmed 2 of 3; the other 1 cancelled by hand \\(API key #\\d+\\): ${reason}$`);
    expect(line.logs.at(-1).message).toMatch(why);
    expect(rest.logs.map((l: { status: string; message: string }) => [l.status, l.message])).toEqual([["skipped", expect.stringMatching(new RegExp(`^Split from line #${lineId}: Supplier`))]]);
    const events = await recordedEvents(creds.accountId, reference);
    expect(events.filter((e) => e.type === "order_line.cancellation_confirmed").map((e) => [e.data.line.id, e.data.quantity, e.data.supplier, e.data.confirmed_by])).toEqual([
      [rest.id, 1, null, null],
    ]);
    expect(events.find((e) => e.type === "order_line.cancellation_confirmed")!.data.reason).toMatch(why);
    // The supplier that confirmed part is asked nothing: it never had more than it confirmed to deliver.
    await pipelineIdle(creds.accountId);
    expect(await rows("SELECT id FROM cancellations WHERE account_id = ?", creds.accountId)).toEqual([]);

    // Nothing is left to cancel: a second call is refused in the line's own words, and changes nothing.
    const after = await state();
    expect(await call("POST", path, { creds })).toMatchObject({
      status: 409,
      json: { message: "Conflict", error: `Order line ${lineId} is partially_completed with no rest left: its supplier confirmed all 2 of it; it cannot be cancelled in part this way.` },
    });
    expect(await call("POST", `/api/v1/orders/${reference}/lines/${rest.id}/cancel-rest`, { creds })).toMatchObject({
      status: 409,
      json: { message: "Conflict", error: `Order line ${rest.id} is skipped; only the rest of a partly confirmed line can be cancelled this way.` },
    });
    expect(await state()).toBe(after);
    expect(await attentionLists(creds, reference)).toBe(false);
  });
});
