// A supplier that speaks X12 over SFTP, end to end against the real sshd of the suite
// (sftp-server.global.ts), each test in a folder of its own (upload/edi-N, file-channel-folders.global.ts):
// the order out as an 850 (its exact text, read again by two independent X12 readers, node-x12 from npm
// and Debian's X12::Parser), its
// control number kept across a retry and increasing across dispatches.
import { env } from "cloudflare:workers";
import { X12Parser, type X12Interchange } from "node-x12";
import { describe, expect, inject, it } from "vitest";
import type { Bindings } from "../../src/env";
import { createDb } from "../../src/db";
import { carrierPipeline } from "../../src/lib/queue";
import { attemptDispatch } from "../../src/routing/failed-sends";
import { createAccount, createOrder, exec } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { waitFor } from "../helpers/wait";
import { orderSettled, supplierWithRule } from "../helpers/suppliers";
import { onSftpServer } from "../helpers/file-servers";
import { x12Settings } from "../helpers/x12";

let folders = 0;
/** A folder of this file's own on the server (upload/edi-N, with in/ and in/done/ in it). */
const folder = () => `upload/edi-${++folders}`;

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const names = (directory: string) => onSftpServer(async (s) => (await s.list(directory)).filter((f) => !f.isDirectory).map((f) => f.name).sort());
const read = (path: string) => onSftpServer(async (s) => text(await s.read(path, 1 << 20)));
const dispatchesOf = async (creds: Credentials, reference: string) => (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;

const TWO_LINES = {
  products: [
    { external_id: "mug-1", reference: "MUG-BLUE", ean13: "8712345678906", name: "Blue mug", quantity: 2, price: 12.5, purchase_price: 6.25 },
    { external_id: "pot-1", reference: "POT*RED", name: "Red pot", quantity: 1, price: 20, purchase_price: 9 },
  ],
};

/** "2026-11-29T02:15:07.123456Z" as X12 writes it: CCYYMMDD, YYMMDD, HHMM. */
const x12Date = (iso: string) => ({ d8: iso.slice(0, 10).replace(/-/g, ""), d6: iso.slice(2, 10).replace(/-/g, ""), t: iso.slice(11, 16).replace(":", "") });

describe("an X12 supplier: the 850", () => {
  it("an order goes out as an 850 in the supplier's folder: its exact segments, its envelope counts, and two independent X12 readers take it", async () => {
    const creds = await createAccount();
    const dir = folder();
    await supplierWithRule(creds, { channel: "file", file_transfer: x12Settings(dir) });
    const { reference, payload } = await createOrder(creds, TWO_LINES);
    const order = await orderSettled(creds, reference, ["completed"]);
    const [dispatch] = await dispatchesOf(creds, reference);
    const name = `${reference}-${dispatch.id}.x12`;
    expect(await names(dir)).toEqual([name]);
    const [a, b] = order.order_lines.map((l: { id: number }) => l.id);
    const at = x12Date(dispatch.created_at);
    const ordered = x12Date(order.created_at);
    const content = await read(`${dir}/${name}`);
    expect(content.split("~")).toEqual([
      `ISA*00*          *00*          *ZZ*ORDERINTAKE    *01*TUINHOUT       *${at.d6}*${at.t}*U*00401*000000001*1*T*>`,
      `GS*PO*ORDERINTAKE*TUINHOUT*${at.d8}*${at.t}*1*X*004010`,
      "ST*850*0001",
      `BEG*00*DS*${reference}**${ordered.d8}`,
      `REF*CO*${payload.external_id}`,
      "REF*ZZ**Ring twice",
      "DTM*002*20261130",
      "N1*ST*Jan Jansen",
      "N2*Jansen BV",
      "N3*Damrak 1*3hoog",
      "N4*Amsterdam*Noord-Holland*1012LG*NL",
      "PER*IC*Jan Jansen*TE*0612345678*EM*jan@example.com",
      `PO1*${a}*2*EA*6.25*PE*VP*MUG-BLUE*EN*8712345678906`,
      "PID*F****Blue mug",
      // X12 has no escape: the separator in the SKU is written as a space.
      `PO1*${b}*1*EA*9*PE*VP*POT RED`,
      "PID*F****Red pot",
      "CTT*2*3",
      "SE*16*0001",
      "GE*1*1",
      "IEA*1*000000001",
      "",
    ]);
    // An independent reader (node-x12, strict): the same envelope, set and lines.
    const parsed = new X12Parser(true).parse(content) as X12Interchange;
    // ISA12 to ISA15 (node-x12 gives the control number without its leading zeros).
    expect(parsed.header.elements.map((e) => e.value).slice(11, 15)).toEqual(["00401", "1", "1", "T"]);
    const [set] = parsed.functionalGroups[0].transactions;
    expect(set.header.elements.map((e) => e.value)).toEqual(["850", "0001"]);
    expect(set.segments.filter((s) => s.tag === "PO1").map((s) => s.elements.map((e) => e.value).slice(0, 4))).toEqual([
      [String(a), "2", "EA", "6.25"],
      [String(b), "1", "EA", "9"],
    ]);
    expect(set.trailer.elements[0].value).toBe("16");

    // A second independent reader (Debian's X12::Parser, test/lib/x12/x12-parser-perl.global.ts): it takes the
    // separators from the ISA's fixed positions, so a wrongly padded ISA would be misread, and splits the set
    // into the 850's loops (test/lib/x12/cf/850.cf).
    const perl = await fetch(`${inject("x12PerlUrl")}/read?cf=850`, { method: "POST", body: content });
    expect(perl.status, await perl.clone().text()).toBe(200);
    const read2 = (await perl.json()) as { element: string; segment: string; component: string; loops: { loop: string; segments: string[][] }[] };
    expect([read2.element, read2.segment, read2.component]).toEqual(["*", "~", ">"]);
    expect(read2.loops.map((l) => [l.loop, l.segments.map((seg) => seg[0])])).toEqual([
      ["ISA", ["ISA"]],
      ["GS", ["GS"]],
      ["ST", ["ST", "BEG", "REF", "REF", "DTM"]],
      ["N1", ["N1", "N2", "N3", "N4", "PER"]],
      ["PO1", ["PO1", "PID"]],
      ["PO1", ["PO1", "PID"]],
      ["CTT", ["CTT"]],
      ["SE", ["SE"]],
      ["GE", ["GE"]],
      ["IEA", ["IEA"]],
    ]);
    const perlSegments = read2.loops.flatMap((l) => l.segments);
    // Its ISA: the sender and receiver padded to 15, the control number and the usage where ISA keeps them.
    expect(perlSegments[0].slice(5, 9)).toEqual(["ZZ", "ORDERINTAKE    ", "01", "TUINHOUT       "]);
    expect(perlSegments[0].slice(13, 16)).toEqual(["000000001", "1", "T"]);
    // SE01 counts the set's segments, ST and SE included, as this reader split them.
    const inSet = perlSegments.slice(perlSegments.findIndex((seg) => seg[0] === "ST"), perlSegments.findIndex((seg) => seg[0] === "SE") + 1);
    expect(inSet.at(-1)?.[1]).toBe(String(inSet.length));
    expect(perlSegments.filter((seg) => seg[0] === "PO1").map((seg) => seg.slice(1, 5))).toEqual([
      [String(a), "2", "EA", "6.25"],
      [String(b), "1", "EA", "9"],
    ]);
  });

  it("a retry of the same dispatch writes the same file with the same control number; the next dispatch takes the next number", async () => {
    const creds = await createAccount();
    const dir = folder();
    await supplierWithRule(creds, { channel: "file", file_transfer: x12Settings(dir) });
    const first = await createOrder(creds, TWO_LINES);
    await orderSettled(creds, first.reference, ["completed"]);
    const [dispatch] = await dispatchesOf(creds, first.reference);
    const name = `${first.reference}-${dispatch.id}.x12`;
    const before = await read(`${dir}/${name}`);
    // The Worker wrote the file and died before it recorded so; the supplier took the file away meanwhile.
    await onSftpServer((s) => s.remove(`${dir}/${name}`));
    await exec("UPDATE dispatches SET status = 'sending', lease_until = '2000-01-01T00:00:00.000000Z' WHERE id = ?", dispatch.id);
    await exec("UPDATE order_lines SET current_status = 'ruled' WHERE dispatch_id = ?", dispatch.id);
    expect(await attemptDispatch(createDb(env.DB), env as Bindings, carrierPipeline(env as Bindings), dispatch.id)).toEqual({ done: true });
    expect(await read(`${dir}/${name}`)).toBe(before);
    const second = await createOrder(creds, TWO_LINES);
    await orderSettled(creds, second.reference, ["completed"]);
    const [next] = await dispatchesOf(creds, second.reference);
    const again = await read(`${dir}/${second.reference}-${next.id}.x12`);
    expect(before).toContain("*000000001*1*T*>~GS*PO*ORDERINTAKE*TUINHOUT*");
    expect(again).toContain("*000000002*1*T*>~GS*PO*ORDERINTAKE*TUINHOUT*");
    expect(again).toContain("~ST*850*0002~");
  });

  it("a cancellation of part of a line goes as an 860 of its own (QD, quantity decrease), with the next control number", async () => {
    const creds = await createAccount();
    const dir = folder();
    await supplierWithRule(creds, { channel: "file", file_transfer: x12Settings(dir) });
    const { reference, payload } = await createOrder(creds, TWO_LINES);
    const order = await orderSettled(creds, reference, ["completed"]);
    const [a] = order.order_lines.map((l: { id: number }) => l.id);
    const res = await call("POST", `/api/v1/orders/${reference}/cancel`, { creds, body: { lines: [{ line_id: a, quantity: 1 }], reason: "wrong colour" } });
    expect(res.status).toBe(200);
    const [request] = await waitFor(async () => {
      const list = (await call("GET", `/api/v1/orders/${reference}/cancellations`, { creds })).json.data;
      return list[0]?.status === "requested" ? list : null;
    });
    const content = await read(`${dir}/cancellation-${reference}-${request.id}.x12`);
    expect(content.split("~").slice(1)).toEqual([
      expect.stringMatching(/^GS\*PC\*ORDERINTAKE\*TUINHOUT\*\d{8}\*\d{4}\*2\*X\*004010$/),
      "ST*860*0002",
      expect.stringMatching(new RegExp(`^BCH\\*01\\*DS\\*${reference}\\*\\*\\*\\d{8}$`)),
      `REF*CO*${payload.external_id}`,
      "NTE*GEN*wrong colour",
      `POC*${a}*QD*2*1*EA***VP*MUG-BLUE*EN*8712345678906`,
      "CTT*1",
      "SE*7*0002",
      "GE*1*2",
      "IEA*1*000000002",
      "",
    ]);
  });
});
