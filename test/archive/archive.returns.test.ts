// Archiving an order whose returns have all ended (docs/archive.md, "Returns"): its returns go into
// the order's object and are read back byte for byte, marked archived; their credit still counts on
// the supplier's page; an open return keeps the order live, and so does a return that changes between
// the archive's read and its delete.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { archiveAccount, olderThan } from "../../src/archive/archive.service";
import { presentArchived } from "../../src/archive/archive.present";
import { createDb } from "../../src/db";
import { supplierCredits } from "../../src/returns/credits.service";
import { send, signIn } from "../helpers/console-http";
import { rows } from "../helpers/factories";
import { ADMIN, call, type Credentials } from "../helpers/http";
import { waitFor } from "../helpers/wait";
import { answerReturn, requestReturn, shippedOrder } from "../returns/support";

const archive = (accountId: number) => call("POST", `/admin/v1/accounts/${accountId}/archive`, { headers: ADMIN, body: { older_than_days: 0 } });
const orderReturns = (creds: Credentials, reference: string) => call("GET", `/api/v1/orders/${reference}/returns`, { creds });
const oneReturn = (creds: Credentials, id: number) => call("GET", `/api/v1/returns/${id}`, { creds });

/** Rows of the order's returns left in D1 (returns, their lines, logs and notices). */
const returnRows = async (orderId: number) =>
  (
    await rows<{ n: number }>(
      `SELECT (SELECT count(*) FROM returns WHERE order_id = ?1) + (SELECT count(*) FROM return_lines WHERE order_id = ?1)
        + (SELECT count(*) FROM return_logs g JOIN returns r ON r.id = g.return_id WHERE r.order_id = ?1) + (SELECT count(*) FROM return_notices WHERE order_id = ?1) AS n`,
      orderId,
    )
  )[0].n;

/** The console's order page, signed in with the account's key. */
async function orderPage(creds: Credentials, reference: string) {
  const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
  const res = await send(`/console/orders/${reference}`, { jar });
  return { status: res.status, html: await res.text() };
}

/** A return's card on an order page (empty when the page has none). */
function cardOf(html: string, id: number): string {
  const start = html.indexOf(`<article class="return" id="return-${id}"`);
  return start < 0 ? "" : html.slice(start, html.indexOf("</article>", start) + "</article>".length);
}

async function answered(key: string, id: number, answers: Record<string, unknown>[]) {
  for (const body of answers) {
    const res = await answerReturn(key, id, body);
    expect(res.status, res.text).toBe(200);
  }
}

describe("archiving an order with ended returns", () => {
  it("archives an order with a credited return and a declined one; both read back identical, marked; the credit still counts", async () => {
    const s = await shippedOrder();
    const credited = await requestReturn(s.creds, s.reference, { lines: [{ line_id: s.mugs, quantity: 1, reason: "chipped" }] });
    expect(credited.status, credited.text).toBe(201);
    const creditedId = credited.json.data[0].id as number;
    await answered(s.cups.key, creditedId, [
      { action: "authorise", rma: "RMA-1", return_address: "Returns, Dock 1" },
      { action: "receive", lines: [{ line_id: s.mugs, quantity: 1, condition: "damaged" }] },
      { action: "credit", amount: 6.25, currency: "EUR" },
    ]);
    const declined = await requestReturn(s.creds, s.reference, { lines: [{ line_id: s.plate, quantity: 1, reason: "wrong colour" }] });
    expect(declined.status, declined.text).toBe(201);
    const declinedId = declined.json.data[0].id as number;
    await answered(s.plates.key, declinedId, [{ action: "decline", reason: "used" }]);
    // The webhook supplier's notice of the request is sent (a notice on its way keeps the order live).
    await waitFor(async () => (await oneReturn(s.creds, creditedId)).json.notices.every((n: { status: string }) => n.status === "sent"));

    const before = { list: await orderReturns(s.creds, s.reference), credited: await oneReturn(s.creds, creditedId), declined: await oneReturn(s.creds, declinedId) };
    expect(before.list.json.data.map((r: { status: string }) => r.status)).toEqual(["credited", "declined"]);
    expect(before.credited.json.notices).toHaveLength(1);
    const credits = await supplierCredits(createDb(env.DB), s.creds.accountId, s.cups.id);
    expect(credits).toEqual([{ month: new Date().toISOString().slice(0, 7), currency: "EUR", amount: 6.25, returns: 1 }]);

    const livePage = await orderPage(s.creds, s.reference);
    expect(livePage.status).toBe(200);

    const run = await archive(s.creds.accountId);
    expect(run.json).toMatchObject({ archived: 1, done: true });
    expect((await call("GET", `/api/v1/orders/${s.reference}`, { creds: s.creds })).headers.get("x-archived")).toBe("true");
    // Every row of its returns left D1 with the order.
    expect(await returnRows(s.orderId)).toBe(0);

    // Read back byte for byte, each with "archived": true added and the header saying so.
    const mark = (text: string) => `${text.slice(0, -1)},"archived":true}`;
    const list = await orderReturns(s.creds, s.reference);
    expect(list.status).toBe(200);
    expect(list.headers.get("x-archived")).toBe("true");
    expect(list.text).toBe(`{"data":[${before.list.json.data.map((r: unknown) => mark(JSON.stringify(r))).join(",")}]}`);
    expect(JSON.stringify(before.list.json)).toBe(before.list.text);
    for (const [id, was] of [
      [creditedId, before.credited],
      [declinedId, before.declined],
    ] as const) {
      const after = await oneReturn(s.creds, id);
      expect(after.status).toBe(200);
      expect(after.headers.get("x-archived")).toBe("true");
      expect(after.text).toBe(mark(was.text));
    }
    // Another account's reference and id are still not found.
    const other = await shippedOrder();
    expect((await oneReturn(other.creds, creditedId)).status).toBe(404);
    expect((await orderReturns(other.creds, s.reference)).status).toBe(404);

    // The credit still counts on the supplier's page.
    expect(await supplierCredits(createDb(env.DB), s.creds.accountId, s.cups.id)).toEqual(credits);

    // The console's archived order page shows both returns as the live page showed them, from the object, with no move.
    const afterArchive = await orderPage(s.creds, s.reference);
    expect(afterArchive.status).toBe(200);
    expect(afterArchive.html).toContain('<h2 id="returns-heading">Returns</h2>');
    for (const id of [creditedId, declinedId]) expect(cardOf(afterArchive.html, id)).toBe(cardOf(livePage.html, id));
    expect(cardOf(afterArchive.html, creditedId)).toContain("<dt>RMA</dt><dd>RMA-1</dd><dt>Return address</dt><dd>Returns, Dock 1</dd>");
    expect(cardOf(afterArchive.html, creditedId)).toContain("<dt>Credit</dt><dd>6.25 EUR</dd>");
    expect(cardOf(afterArchive.html, declinedId)).toContain("<dt>Declined because</dt><dd>used</dd>");
    expect(livePage.html).toContain(`action="/console/orders/${s.reference}/returns"`);
    expect(afterArchive.html).not.toContain(`action="/console/orders/${s.reference}/returns"`);
  });

  it("leaves an order with an open return live, and archives it once the return has ended", async () => {
    const s = await shippedOrder();
    const requested = await requestReturn(s.creds, s.reference, { lines: [{ line_id: s.plate, quantity: 1 }] });
    expect(requested.status, requested.text).toBe(201);
    const id = requested.json.data[0].id as number;
    expect((await archive(s.creds.accountId)).json).toEqual({ archived: 0, bytes_freed: 0, done: true });
    await answered(s.plates.key, id, [{ action: "authorise", rma: "RMA-2", return_address: "Returns, Dock 2" }]);
    expect((await archive(s.creds.accountId)).json).toEqual({ archived: 0, bytes_freed: 0, done: true });
    expect((await orderReturns(s.creds, s.reference)).headers.get("x-archived")).toBeNull();

    expect((await call("POST", `/api/v1/returns/${id}/cancel`, { creds: s.creds, body: { reason: "kept it" } })).status).toBe(200);
    expect((await archive(s.creds.accountId)).json).toMatchObject({ archived: 1, done: true });
    const after = await oneReturn(s.creds, id);
    expect(after.json).toMatchObject({ id, status: "cancelled", archived: true });
    // An archived return cannot change: the shop's cancel and the supplier's answer find no live return.
    const cancel = await call("POST", `/api/v1/returns/${id}/cancel`, { creds: s.creds, body: {} });
    expect([cancel.status, cancel.json]).toEqual([404, { message: "Not Found", error: `Return with id '${id}' not found` }]);
    expect((await answerReturn(s.plates.key, id, { action: "decline", reason: "late" })).status).toBe(404);
    expect((await oneReturn(s.creds, id)).text).toBe(after.text);
  });

  it("an order whose returns change between the archive's read and its delete stays live", async () => {
    const s = await shippedOrder();
    const first = await requestReturn(s.creds, s.reference, { lines: [{ line_id: s.plate, quantity: 1 }] });
    await answered(s.plates.key, first.json.data[0].id as number, [{ action: "decline", reason: "used" }]);
    let second = 0;
    const run = await archiveAccount(createDb(env.DB), env.ARCHIVE, s.creds.accountId, olderThan(0), presentArchived, {
      // After the object is written: another return asked and withdrawn (the order is still finished,
      // but the object does not hold that return).
      afterWrite: async () => {
        const res = await requestReturn(s.creds, s.reference, { lines: [{ line_id: s.plate, quantity: 1 }] });
        expect(res.status, res.text).toBe(201);
        second = res.json.data[0].id as number;
        expect((await call("POST", `/api/v1/returns/${second}/cancel`, { creds: s.creds, body: {} })).status).toBe(200);
      },
    });
    expect(run).toEqual({ archived: 0, bytesFreed: 0, done: true });
    const list = await orderReturns(s.creds, s.reference);
    expect(list.headers.get("x-archived")).toBeNull();
    expect(list.json.data.map((r: { id: number; status: string }) => [r.id, r.status])).toEqual([
      [first.json.data[0].id, "declined"],
      [second, "cancelled"],
    ]);
    // A later run archives it with both.
    expect((await archive(s.creds.accountId)).json).toMatchObject({ archived: 1, done: true });
    expect((await orderReturns(s.creds, s.reference)).json.data).toHaveLength(2);
  });
});
