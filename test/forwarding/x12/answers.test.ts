// What an X12 supplier sends back, dropped in its inbound folder on the real sshd and read by the
// cron: a 997 accepting our 850, an 855 accepting one line and rejecting the other (re-routed), an
// 856 shipping part of a line and then the rest with tracking, an 810 kept on the line; our 997 for
// each group read (read again by Debian's X12::Parser); bad files refused in words with nothing applied; an interchange read twice applied once.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import worker from "../../../src/index";
import { createAccount, createOrder, rows } from "../../helpers/factories";
import { call, type Credentials } from "../../helpers/http";
import { csrfOf, getPage, postForm, signIn } from "../../helpers/console-http";
import { onSftpServer } from "../../helpers/file-servers";
import { orderSettled, supplierChain } from "../../helpers/suppliers";
import { supplierFile, x12Settings } from "../../helpers/x12";
import { feedCatalogue, pushJson } from "../../helpers/catalogue";

let folders = 4;
/** A folder of this file's own on the server (upload/edi-5 onwards, with in/ and in/done/). */
const folder = () => `upload/edi-${++folders}`;

async function cron(at = Date.now()) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: at }), env, ctx);
  await waitOnExecutionContext(ctx);
}

const drop = (path: string, text: string) => onSftpServer((s) => s.writeAtomic(path, new TextEncoder().encode(text)));
const names = (directory: string) => onSftpServer(async (s) => (await s.list(directory)).filter((f) => !f.isDirectory).map((f) => f.name).sort());
const read = (path: string) => onSftpServer(async (s) => new TextDecoder().decode(await s.read(path, 1 << 20)));
const getOrder = async (creds: Credentials, reference: string) => (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
const inboundFiles = async (creds: Credentials, supplierId: number) => (await call("GET", `/api/v1/suppliers/${supplierId}/inbound-files`, { creds })).json.data;

/** A console table's rows (its caption given), each cell's text; a View (the segments) as the word "View". */
function tableRows(html: string, caption: string): string[][] {
  const table = html.slice(html.indexOf(`aria-label="${caption}"`), html.indexOf("</table>", html.indexOf(`aria-label="${caption}"`)));
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
    .slice(1)
    .map((row) => [...row[1].matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1].replace(/<details[\s\S]*?<\/details>/, "View").replace(/<[^>]+>/g, "").replace(/\s+/g, " ").trim()));
}
/** The rows without their time column (the 4th). */
const withoutTime = (rows: string[][]) => rows.map((r) => r.filter((_, i) => i !== 3));

const ORDER = {
  products: [
    { external_id: "mug-1", reference: "MUG-BLUE", ean13: "8712345678906", name: "Blue mug", quantity: 2, price: 12.5, purchase_price: 6.25 },
    { external_id: "pot-1", reference: "POT-RED", name: "Red pot", quantity: 1, price: 20, purchase_price: 9 },
  ],
};

/** An X12 supplier first, a pull supplier after it (where a declined line goes), and an order sent to the first as an 850. */
async function sentToX12(dir: string) {
  const creds = await createAccount();
  const [x12, next] = await supplierChain(creds, [
    { channel: "file", file_transfer: x12Settings(dir, { inbound: { directory: `${dir}/in`, archive_directory: `${dir}/in/done` } }) },
    { channel: "pull" },
  ]);
  const { reference } = await createOrder(creds, ORDER);
  const order = await orderSettled(creds, reference, ["completed"]);
  const [a, b] = order.order_lines.map((l: { id: number }) => l.id as number);
  return { creds, x12: x12.supplier, next: next.supplier, reference, a, b };
}

describe("an X12 supplier's answers", () => {
  it("997, 855 (one line accepted, one rejected and re-routed), 856 in part then the rest with tracking, 810: applied, each group answered with our 997", async () => {
    const dir = folder();
    const { creds, x12, next, reference, a, b } = await sentToX12(dir);
    await drop(`${dir}/in/997.x12`, supplierFile("997", 501, ["AK1*PO*1", "AK2*850*0001", "AK5*A", "AK9*A*1*1*1"]));
    await drop(
      `${dir}/in/855.x12`,
      supplierFile("855", 502, [`BAK*00*AC*${reference}*20261129`, `PO1*${a}*2*EA*6.25**VP*MUG-BLUE`, "ACK*IA*2*EA", `PO1*${b}*1*EA*9**VP*POT-RED`, "ACK*IR*0*EA", "CTT*2"]),
    );
    await cron();
    const answered = await getOrder(creds, reference);
    expect(answered.order_lines.map((l: { id: number; current_status: string }) => [l.id, l.current_status])).toEqual([
      [a, "completed"],
      [b, "ruled"],
    ]);
    expect(answered.order_lines[1].matched_supplier.id).toBe(next.id);
    expect(answered.order_lines[1].logs.find((l: { status: string }) => l.status === "declined").message).toBe(
      `Declined by supplier ${x12.name}: Rejected in the supplier's 855: IR item rejected 0; routed to supplier ${next.name}`,
    );
    expect(await rows("SELECT direction, control_number, sets, status, note FROM x12_interchanges WHERE supplier_id = ? ORDER BY direction, control_number", x12.id)).toEqual([
      { direction: "in", control_number: 501, sets: "997", status: "applied", note: "our interchange 1 accepted" },
      { direction: "in", control_number: 502, sets: "855", status: "applied", note: "2 of 2 answers applied" },
      { direction: "out", control_number: 1, sets: "850", status: "accepted", note: "AK9 A: accepted" },
      { direction: "out", control_number: 2, sets: "997", status: "written", note: null },
    ]);

    const shipment = (n: number, tracking: string) =>
      supplierFile("856", 502 + n, [`BSN*00*SHIP${n}*20261129*1200`, "HL*1**S", "TD5*B*2*PNLP**PostNL", `REF*CN*${tracking}`, "HL*2*1*O", `PRF*${reference}`, "HL*3*2*I", `LIN*${a}*VP*MUG-BLUE`, "SN1**1*EA"]);
    await drop(`${dir}/in/856-1.x12`, shipment(1, "3STRACK1"));
    await cron();
    expect((await getOrder(creds, reference)).order_lines[0].shipments.map((s: { quantity: number; carrier: string; tracking_number: string }) => [s.quantity, s.carrier, s.tracking_number])).toEqual([
      [1, "PostNL", "3STRACK1"],
    ]);
    await drop(`${dir}/in/856-2.x12`, shipment(2, "3STRACK2"));
    await drop(`${dir}/in/810.x12`, supplierFile("810", 510, [`BIG*20261129*INV-77**${reference}`, `IT1*${a}*2*EA*6.5**VP*MUG-BLUE`, "TDS*1300", "CTT*1"]));
    await cron();
    const shipped = await getOrder(creds, reference);
    expect(shipped.order_lines[0].shipments.map((s: { quantity: number; tracking_number: string }) => [s.quantity, s.tracking_number])).toEqual([
      [1, "3STRACK1"],
      [1, "3STRACK2"],
    ]);
    expect(await rows("SELECT line_id, invoice_number, quantity, unit_price, expected_unit_price FROM supplier_invoice_lines WHERE supplier_id = ?", x12.id)).toEqual([
      { line_id: a, invoice_number: "INV-77", quantity: 2, unit_price: 65_000, expected_unit_price: 62_500 },
    ]);
    // The order's answer: the invoice on the invoiced line only (the other keeps its JSON as it was).
    const [{ created_at: invoicedAt }] = await rows("SELECT created_at FROM supplier_invoice_lines WHERE line_id = ?", a);
    expect(shipped.order_lines[0].supplier_invoice).toEqual({ invoice_number: "INV-77", quantity: 2, unit_price: 6.5, expected_unit_price: 6.25, difference: 0.25, invoiced_at: invoicedAt });
    expect("supplier_invoice" in shipped.order_lines[1]).toBe(false);
    // The console's order page: the invoiced cost beside the line, the difference in words; none on the other line.
    const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
    const { html: page } = await getPage(`/console/orders/${reference}`, jar);
    const invoiced = [...page.matchAll(/<dd class="invoiced">([\s\S]*?)<\/dd>/g)].map((m) => m[1].replace(/<[^>]+>/g, "").replace(/\s+/g, " "));
    expect(invoiced).toEqual(["6.50 EUR × 2 (invoice INV-77): 0.25 EUR more per unit than the purchase price we expected (6.25 EUR)"]);
    expect(page.indexOf('class="invoiced"')).toBeGreaterThan(page.indexOf(`id="line-${a}"`));
    expect(page.indexOf('class="invoiced"')).toBeLessThan(page.indexOf(`id="line-${b}"`));
    // Needs attention lists the line with both prices in words, until it is dismissed.
    const invoicesSection = (html: string) => /<section[^>]*aria-labelledby="invoices-heading"[\s\S]*?<\/section>/.exec(html)?.[0].replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
    const attention = (await getPage("/console", jar)).html;
    expect(invoicesSection(attention)).toContain(`Order ${reference} · Blue mug ·`);
    expect(invoicesSection(attention)).toContain(`${x12.name} invoiced 6.50 EUR per unit (invoice INV-77); we expected 6.25 EUR: 0.25 EUR more per unit.`);
    expect((await postForm("/console/attention/set-aside", jar, { _csrf: csrfOf(attention), item: /name="item" value="(invoice:\d+)"/.exec(attention)![1], choice: "dismiss" })).status).toBe(303);
    expect(invoicesSection((await getPage("/console", jar)).html)).toBeUndefined();
    expect((await inboundFiles(creds, x12.id)).map((f: { name: string; status: string; error: string | null }) => [f.name, f.status, f.error]).sort()).toEqual([
      ["810.x12", "done", null],
      ["855.x12", "done", null],
      ["856-1.x12", "done", null],
      ["856-2.x12", "done", null],
      ["997.x12", "done", null],
    ]);
    expect(await names(`${dir}/in/done`)).toEqual(["810.x12", "855.x12", "856-1.x12", "856-2.x12", "997.x12"]);
    // The files each way with their control numbers, newest first, and their segments (the View).
    const listed = (await call("GET", `/api/v1/suppliers/${x12.id}/x12-interchanges`, { creds })).json.data;
    type Listed = { direction: string; control_number: number; sets: string; status: string; segments: string[] };
    expect(listed.map((i: Listed) => [i.direction, i.control_number, i.sets, i.status]).sort()).toEqual([
      ["in", 501, "997", "applied"],
      ["in", 502, "855", "applied"],
      ["in", 503, "856", "applied"],
      ["in", 504, "856", "applied"],
      ["in", 510, "810", "applied"],
      ["out", 1, "850", "accepted"],
      ["out", 2, "997", "written"],
      ["out", 3, "997", "written"],
      ["out", 4, "997", "written"],
      ["out", 5, "997", "written"],
    ]);
    expect(listed.find((i: Listed) => i.sets === "810").segments.slice(2, 5)).toEqual(["ST*810*0001", `BIG*20261129*INV-77**${reference}`, `IT1*${a}*2*EA*6.5**VP*MUG-BLUE`]);
    // The supplier's console page: the same files each way, what each did, a View of the segments one per line.
    const supplierPage = (await getPage(`/console/suppliers/${x12.id}`, jar)).html;
    expect(withoutTime(tableRows(supplierPage, `X12 files sent to ${x12.name}, newest first`))).toEqual([
      ...[5, 4, 3, 2].map((n) => [String(n), "997 acknowledgement", `997-00000000${n}.x12`, "Written —", "View"]),
      ["1", "850 purchase order", expect.stringMatching(new RegExp(`^${reference}-\\d+\\.x12$`)), "Accepted AK9 A: accepted", "View"],
    ]);
    expect(withoutTime(tableRows(supplierPage, `X12 files received from ${x12.name}, newest first`)).sort((p, q) => Number(q[0]) - Number(p[0]))).toEqual([
      ["510", "810 invoice", "810.x12", "Applied 1 invoice lines kept", "View"],
      ["504", "856 ship notice", "856-2.x12", "Applied 1 of 1 answers applied", "View"],
      ["503", "856 ship notice", "856-1.x12", "Applied 1 of 1 answers applied", "View"],
      ["502", "855 order acknowledgement", "855.x12", "Applied 2 of 2 answers applied", "View"],
      ["501", "997 acknowledgement", "997.x12", "Applied our interchange 1 accepted", "View"],
    ]);
    expect(supplierPage).toContain(`the segments of 810.x12</span></summary><pre><code>ISA*00*`);
    expect(supplierPage).toContain(`\nST*810*0001\nBIG*20261129*INV-77**${reference}\nIT1*${a}*2*EA*6.5**VP*MUG-BLUE\nTDS*1300\n`);
    // Our 997s: one per group read (none for their 997), each with the next control number; the 850 kept its 1.
    const acks = (await names(dir)).filter((n) => n.startsWith("997-"));
    expect(acks).toEqual(["997-000000002.x12", "997-000000003.x12", "997-000000004.x12", "997-000000005.x12"]);
    const ack = (await read(`${dir}/997-000000002.x12`)).split("~");
    expect(ack.slice(1)).toEqual([
      expect.stringMatching(/^GS\*FA\*ORDERINTAKE\*TUINHOUT\*\d{8}\*\d{4}\*2\*X\*004010$/),
      "ST*997*0002",
      "AK1*PR*502",
      "AK2*855*0001",
      "AK5*A",
      "AK9*A*1*1*1",
      "SE*6*0002",
      "GE*1*2",
      "IEA*1*000000002",
      "",
    ]);
    // Our 997 as a second independent reader takes it: Debian's X12::Parser with the 997 configuration it ships.
    const perl = await fetch(`${inject("x12PerlUrl")}/read?cf=997`, { method: "POST", body: ack.join("~") });
    expect(perl.status, await perl.clone().text()).toBe(200);
    const { loops } = (await perl.json()) as { loops: { loop: string; segments: string[][] }[] };
    expect(loops.map((l) => [l.loop, l.segments.map((seg) => seg.join("*"))])).toEqual([
      ["ISA", [ack[0]]],
      ["GS", [ack[1]]],
      ["ST", ["ST*997*0002"]],
      ["AK1", ["AK1*PR*502"]],
      ["AK2", ["AK2*855*0001"]],
      ["AK5", ["AK5*A"]],
      ["AK9", ["AK9*A*1*1*1"]],
      ["SE", ["SE*6*0002"]],
      ["GE", ["GE*1*2"]],
      ["IEA", ["IEA*1*000000002"]],
    ]);
  });

  it("a 997 rejecting our 850 declines its lines with the codes in words, and they are re-routed", async () => {
    const dir = folder();
    const { creds, x12, next, reference, a } = await sentToX12(dir);
    await drop(`${dir}/in/997.x12`, supplierFile("997", 77, ["AK1*PO*1", "AK2*850*0001", "AK5*R*5", "AK9*R*1*1*0*5"]));
    await cron();
    const order = await getOrder(creds, reference);
    expect(order.order_lines.map((l: { matched_supplier: { id: number } }) => l.matched_supplier.id)).toEqual([next.id, next.id]);
    expect(order.order_lines[0].logs.find((l: { status: string }) => l.status === "declined").message).toBe(
      `Declined by supplier ${x12.name}: The supplier's 997 rejected our 850 (interchange 1): AK9 R: rejected; set 850 0001: rejected (5 one or more segments in error); 5 number of included transaction sets does not match actual count; routed to supplier ${next.name}`,
    );
    expect(order.order_lines[0].id).toBe(a);
  });

  it("bad files are refused with the reason and apply nothing, each answered with our 997 rejecting it when its ISA can be read; the rest of the folder goes on; the same interchange twice is applied once", async () => {
    const dir = folder();
    const { creds, x12, reference, a, b } = await sentToX12(dir);
    const accept = (line: number) => [`BAK*00*AC*${reference}*20261129`, `PO1*${line}*1*EA`, "ACK*IA*1*EA"];
    const good = supplierFile("855", 900, [...accept(b), "CTT*1"]);
    await drop(`${dir}/in/1-counts.x12`, good.replace("SE*6*0001", "SE*9*0001"));
    await drop(`${dir}/in/2-unknown.x12`, supplierFile("855", 901, [...accept(a), `PO1*999999*1*EA`, "ACK*IR*0*EA", "CTT*2"]));
    await drop(`${dir}/in/3-set.x12`, supplierFile("850", 902, ["BEG*00*DS*1*1"]));
    await drop(`${dir}/in/4-good.x12`, good);
    await drop(`${dir}/in/6-not-x12.x12`, "ISA*00*short~");
    await drop(`${dir}/in/7-group.x12`, supplierFile("855", 903, [...accept(b), "CTT*1"]).replace("GE*1*903", "GE*2*903"));
    await cron();
    await drop(`${dir}/in/5-again.x12`, good);
    await cron();
    const files = await inboundFiles(creds, x12.id);
    expect(files.map((f: { name: string; status: string; error: string | null }) => [f.name, f.status, f.error]).sort()).toEqual([
      ["1-counts.x12", "failed", "Transaction set 855 0001 counts 9 segments in its SE, but has 6."],
      ["2-unknown.x12", "failed", `The 855 names an item of order ${reference} (line 999999) we never sent to this supplier: nothing of the file is applied.`],
      ["3-set.x12", "failed", "Transaction set 850 (0001) is not one we read: 997, 855, 856, 810 or 846."],
      ["4-good.x12", "done", null],
      ["5-again.x12", "failed", "Interchange 000000900 was read before, in file 4-good.x12: nothing of it is applied again."],
      ["6-not-x12.x12", "failed", "The ISA segment is cut short: it must be 106 characters long."],
      ["7-group.x12", "failed", "Functional group 903 counts 2 transaction sets in its GE, but has 1."],
    ]);
    // Our 997s in the supplier's order folder: each refused file whose ISA can be read is rejected (AK9 R)
    // with the set's AK5 code (4 counts, 5 a line we never sent, 1 a set we do not take) or the group's
    // (AK9 5 its GE's count); the good file accepted; none for the copy read before nor for what is not X12.
    const acks = await Promise.all((await names(dir)).filter((n) => n.startsWith("997-")).map((n) => read(`${dir}/${n}`)));
    const body = (text: string) => text.split("~").slice(3, -4).join("~");
    expect(acks.map(body).sort()).toEqual([
      "AK1*PO*902~AK2*850*0001~AK5*R*1~AK9*R*1*1*0",
      "AK1*PR*900~AK2*855*0001~AK5*A~AK9*A*1*1*1",
      "AK1*PR*900~AK2*855*0001~AK5*R*4~AK9*R*1*1*0",
      "AK1*PR*901~AK2*855*0001~AK5*R*5~AK9*R*1*1*0",
      "AK1*PR*903~AK2*855*0001~AK5*R~AK9*R*1*1*0*5",
    ]);
    // Each a whole interchange of its own (the envelope's counts right), its reason kept with it for the console.
    for (const text of acks) expect(text).toMatch(/^ISA\*.*~GS\*FA\*ORDERINTAKE\*TUINHOUT\*.*~ST\*997\*(\d{4})~.*~SE\*\d+\*\1~GE\*1\*\d+~IEA\*1\*\d{9}~$/);
    expect(await rows("SELECT note FROM x12_interchanges WHERE supplier_id = ? AND direction = 'out' AND note LIKE 'rejects%2-unknown%'", x12.id)).toEqual([
      { note: `rejects group 901 of interchange 000000901 (file 2-unknown.x12): The 855 names an item of order ${reference} (line 999999) we never sent to this supplier: nothing of the file is applied.` },
    ]);
    // The console's EDI files: the refused files with their reasons beside the one read, our 997 rejecting each with its reason.
    const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
    const supplierPage = (await getPage(`/console/suppliers/${x12.id}`, jar)).html;
    const received = withoutTime(tableRows(supplierPage, `X12 files received from ${x12.name}, newest first`));
    expect(received.find((r) => r[2] === "4-good.x12")).toEqual(["900", "855 order acknowledgement", "4-good.x12", "Applied 1 of 1 answers applied", "View"]);
    expect(received.find((r) => r[2] === "2-unknown.x12")).toEqual([
      "—",
      "—",
      "2-unknown.x12",
      `Failed The 855 names an item of order ${reference} (line 999999) we never sent to this supplier: nothing of the file is applied.`,
      "not kept: nothing of it was applied",
    ]);
    expect(received).toHaveLength(7);
    const sent = withoutTime(tableRows(supplierPage, `X12 files sent to ${x12.name}, newest first`));
    expect(sent.find((r) => r[3].includes("(file 7-group.x12)"))).toEqual([
      expect.any(String),
      "997 acknowledgement",
      expect.stringMatching(/^997-\d{9}\.x12$/),
      "Written rejects group 903 of interchange 000000903 (file 7-group.x12): Functional group 903 counts 2 transaction sets in its GE, but has 1.",
      "View",
    ]);
    // Line a was named only in the refused file: no answer of it was applied.
    const order = await getOrder(creds, reference);
    expect(order.order_lines[0].logs.map((l: { message: string }) => l.message)).not.toContain(`Accepted by supplier ${x12.name}`);
    expect(order.order_lines[1].logs.map((l: { message: string }) => l.message)).toContain(`Accepted by supplier ${x12.name}`);
  });

  it("an 810's currency (CUR) and allowances and charges (SAC) are kept and shown; an invoice in another currency than the order's is flagged, not compared", async () => {
    const dir = folder();
    const { creds, x12, reference, a, b } = await sentToX12(dir);
    await drop(
      `${dir}/in/810-eur.x12`,
      supplierFile("810", 811, [`BIG*20261129*INV-EUR**${reference}`, "CUR*SE*EUR", `IT1*${a}*2*EA*6.25**VP*MUG-BLUE`, "SAC*C*H090***250**********Handling", "TDS*1500", "CTT*1"]),
    );
    await drop(
      `${dir}/in/810-usd.x12`,
      supplierFile("810", 812, [`BIG*20261129*INV-USD**${reference}`, "CUR*SE*USD", `IT1*${b}*1*EA*9**VP*POT-RED`, "TDS*2200", "SAC*C*D240***1500**********Freight", "SAC*A*C310***200", "CTT*1"]),
    );
    await cron();
    const order = await getOrder(creds, reference);
    const at = async (line: number) => (await rows("SELECT created_at FROM supplier_invoice_lines WHERE line_id = ?", line))[0].created_at;
    expect(order.order_lines[0].supplier_invoice).toEqual({
      invoice_number: "INV-EUR",
      quantity: 2,
      unit_price: 6.25,
      expected_unit_price: 6.25,
      difference: 0,
      invoiced_at: await at(a),
      currency: "EUR",
      charges: [{ type: "charge", code: "H090", amount: 2.5, description: "Handling" }],
    });
    expect(order.order_lines[1].supplier_invoice).toEqual({
      invoice_number: "INV-USD",
      quantity: 1,
      unit_price: 9,
      expected_unit_price: 9,
      difference: null,
      invoiced_at: await at(b),
      currency: "USD",
      invoice_charges: [
        { type: "charge", code: "D240", amount: 15, description: "Freight" },
        { type: "allowance", code: "C310", amount: 2, description: null },
      ],
    });
    const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
    const page = (await getPage(`/console/orders/${reference}`, jar)).html;
    expect([...page.matchAll(/<dd class="invoiced">([\s\S]*?)<\/dd>/g)].map((m) => m[1].replace(/<[^>]+>/g, "").replace(/\s+/g, " "))).toEqual([
      "6.25 EUR × 2 (invoice INV-EUR): the purchase price we expected (6.25 EUR) · on the line: charge H090 (Handling) 2.50 EUR",
      "9.00 USD × 1 (invoice INV-USD): invoiced in USD, the order is in EUR: not compared with the purchase price we expected (9.00 EUR) · on the whole invoice: charge D240 (Freight) 15.00 USD; allowance C310 2.00 USD",
    ]);
    // Needs attention: the USD invoice with its reason; the EUR one at the expected price is not listed.
    const attention = /<section[^>]*aria-labelledby="invoices-heading"[\s\S]*?<\/section>/.exec((await getPage("/console", jar)).html)?.[0].replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
    expect(attention).toContain(`${x12.name} invoiced 9.00 USD per unit (invoice INV-USD) in USD; the order is in EUR: not compared, amounts are never converted (we expected 9.00 EUR).`);
    expect(attention).not.toContain("INV-EUR");
  });

  it("an 846 is the supplier's stock in its catalogue, as if its feed were pushed: by SKU or barcode, an item it does not have said so", async () => {
    const dir = folder();
    const { creds, x12 } = await sentToX12(dir);
    const feed = (await call("POST", "/api/v1/product-feeds", { creds, body: { supplier_id: x12.id, name: "EDI stock", format: "json" } })).json;
    expect(
      (await pushJson(creds, feed.id, [
        { sku: "MUG-BLUE", ean13: "8712345678906", name: "Blue mug", purchase_price: 6.25, stock_quantity: 10 },
        { sku: "POT-RED", name: "Red pot", purchase_price: 9, stock_quantity: 3 },
      ])).status,
    ).toBe(200);
    await drop(`${dir}/in/846.x12`, supplierFile("846", 846, ["BIA*00*SI*STOCK1*20261129", "LIN**EN*8712345678906", "QTY*33*4*EA", "LIN**VP*POT-RED", "QTY*33*0*EA", "LIN**VP*NOT-OURS", "QTY*33*7*EA"]));
    await cron();
    const catalogue = await feedCatalogue(creds, feed.id);
    expect([catalogue["MUG-BLUE"].stock_quantity, catalogue["POT-RED"].stock_quantity]).toEqual([4, 0]);
    expect(await rows("SELECT note FROM x12_interchanges WHERE supplier_id = ? AND direction = 'in'", x12.id)).toEqual([
      { note: "stock of 3 items read: 2 products changed, 1 not in the supplier's catalogue" },
    ]);
    expect((await names(dir)).filter((n) => n.startsWith("997-"))).toEqual(["997-000000002.x12"]);
  });
});
