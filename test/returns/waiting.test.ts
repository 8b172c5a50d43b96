// Needs attention's "Returns waiting on the supplier" (src/returns/waiting.ts): a return whose
// supplier owes an answer (requested; received) longer than its returns.answer_within_hours, never
// before; a supplier without the setting is never listed; an answer takes it off; it can be set
// aside; and the landing page shows it.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { needsAttention } from "../../src/attention/attention.service";
import { setAside } from "../../src/attention/set-aside";
import { createDb } from "../../src/db";
import { exec, rows } from "../helpers/factories";
import { send, signIn } from "../helpers/console-http";
import { call } from "../helpers/http";
import { answerReturn, requestReturn, shippedOrder } from "./support";

const HOUR = 3_600_000;
const db = () => createDb(env.DB);
const waitingSince = async (id: number) => (await rows<{ waiting_since: string }>("SELECT waiting_since FROM returns WHERE id = ?", id))[0].waiting_since;
const at = (iso: string, hours: number) => new Date(Date.parse(iso) + hours * HOUR);

describe("returns waiting on the supplier", () => {
  it("listed past the supplier's answer_within_hours (not before, not without it), off once answered, set aside like the other sections", async () => {
    const s = await shippedOrder();
    const { creds, reference } = s;
    const created = await requestReturn(creds, reference, { lines: [{ line_id: s.mugs, quantity: 1 }, { line_id: s.plate, quantity: 1 }] });
    expect(created.status, created.text).toBe(201);
    const [cups, plates] = created.json.data.map((r: { id: number }) => r.id) as number[];
    const since = await waitingSince(plates);

    // No supplier said how long it may take: a year later nothing is listed.
    expect((await needsAttention(db(), creds.accountId, at(since, 24 * 365))).returns).toEqual({ count: 0, items: [] });

    for (const [id, hours] of [[s.cups.id, 48], [s.plates.id, 24]]) {
      const put = await call("PUT", `/api/v1/suppliers/${id}/returns-settings`, { creds, body: { answer_within_hours: hours } });
      expect(put.status, put.text).toBe(200);
    }
    // At 23 hours nobody is late; at 25 the plates' supplier (24 hours) is, the cups' (48) is not yet.
    expect((await needsAttention(db(), creds.accountId, at(since, 23))).returns.count).toBe(0);
    const item = (id: number, supplierName: string, hours: number, status = "requested", from = since) => ({
      key: `return:${id}`,
      returnId: id,
      reference,
      supplierName,
      status,
      since: from,
      answerWithinHours: hours,
    });
    expect((await needsAttention(db(), creds.accountId, at(since, 25))).returns).toEqual({ count: 1, items: [item(plates, s.plates.name, 24)] });
    // At 49 hours both, the longest waiting first (the same wait: by id).
    expect((await needsAttention(db(), creds.accountId, at(since, 49))).returns).toEqual({ count: 2, items: [item(cups, s.cups.name, 48), item(plates, s.plates.name, 24)] });

    // An answer takes it off: the cups' supplier declines; the plates' authorises (now the customer's parcel is awaited, not the supplier).
    expect((await answerReturn(s.cups.key, cups, { action: "decline", reason: "Mugs are final sale" })).status).toBe(200);
    expect((await answerReturn(s.plates.key, plates, { action: "authorise", rma: "P-1", return_address: "Plates, Kade 2, Utrecht" })).status).toBe(200);
    expect((await needsAttention(db(), creds.accountId, at(since, 24 * 30))).returns.count).toBe(0);

    // Received: the supplier owes the credit or the close, counted from the receipt.
    expect((await answerReturn(s.plates.key, plates, { action: "receive", lines: [{ line_id: s.plate, quantity: 1, condition: "new" }] })).status).toBe(200);
    const receivedAt = await waitingSince(plates);
    expect((await needsAttention(db(), creds.accountId, at(receivedAt, 23))).returns.count).toBe(0);
    const late = at(receivedAt, 25);
    expect((await needsAttention(db(), creds.accountId, late)).returns).toEqual({ count: 1, items: [item(plates, s.plates.name, 24, "received", receivedAt)] });

    // Set aside: dismissed, it is gone and counted out (until it waits again).
    await setAside(db(), creds.accountId, `return:${plates}`, "dismiss", late);
    expect((await needsAttention(db(), creds.accountId, at(receivedAt, 26))).returns).toEqual({ count: 0, items: [] });
  });

  it("the landing page shows the section with the return, its supplier and its wait", async () => {
    const s = await shippedOrder();
    const created = await requestReturn(s.creds, s.reference, { lines: [{ line_id: s.plate, quantity: 1 }] });
    const id = created.json.data[0].id as number;
    await call("PUT", `/api/v1/suppliers/${s.plates.id}/returns-settings`, { creds: s.creds, body: { answer_within_hours: 24 } });
    await exec("UPDATE returns SET waiting_since = ? WHERE id = ?", new Date(Date.now() - 30 * HOUR).toISOString().replace("Z", "000Z"), id);
    const { jar } = await signIn({ account_id: String(s.creds.accountId), api_key: s.creds.apiKey });
    const html = await (await send("/console", { jar })).text();
    expect(html).toContain('Returns waiting on the supplier <span class="count">1</span>');
    expect(html).toContain(`<a href="/console/orders/${s.reference}#return-${id}">Return #${id}</a> of order ${s.reference} · ${s.plates.name}`);
    expect(html).toContain("Neither authorised nor declined after more than 24 hours.");
    expect(html).toContain(`name="item" value="return:${id}"`);
  });
});
