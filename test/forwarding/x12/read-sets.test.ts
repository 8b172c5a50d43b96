// What the supplier's sets say, read without I/O: the public sample 855 and 856 of another project
// (node-x12's test data, MIT: test/lib/x12/samples/) as answers, and the 997's codes in words.
import { describe, expect, it } from "vitest";
import { READERS } from "../../../src/forwarding/x12/read-sets";
import { readInterchanges } from "../../../src/lib/x12/reader";
import { supplierFile } from "../../helpers/x12";
import sample855 from "../../lib/x12/samples/855.edi?raw";
import sample856 from "../../lib/x12/samples/856.edi?raw";

const setOf = (text: string) => readInterchanges(text)[0].groups[0].sets[0];

describe("reading the supplier's sets", () => {
  it("the sample 855: IA accepts, IR declines with the code in words; items named by their barcode (EN)", () => {
    const answers = READERS["855"](setOf(sample855));
    expect(answers.map((a) => (a.kind === "855" ? [a.order, a.item.barcode, a.action, a.quantity, a.reason] : null))).toEqual([
      ["POTEST1112", "9780446360265", "accept", null, null],
      ["POTEST1112", "9780767928427", "decline", null, "Rejected in the supplier's 855: IR item rejected 0"],
      ["POTEST1112", "9780099599531", "decline", null, "Rejected in the supplier's 855: IR item rejected 0"],
      ["POTEST1112", "9780446360272", "accept", null, null],
    ]);
  });

  it("the sample 856: per LIN/SN1 the quantity, with the shipment's carrier and REF*CN tracking, and the order of PRF01", () => {
    const shipped = READERS["856"](setOf(sample856));
    expect(shipped).toEqual([
      { kind: "856", order: "99999817", item: { lineId: "1", sku: "87787D", barcode: "999999310145" }, quantity: 24, carrier: "XXXX", tracking: "5787970539", shipment: "829716" },
      { kind: "856", order: "99999817", item: { lineId: "2", sku: "99887D", barcode: "999999311746" }, quantity: 6, carrier: "XXXX", tracking: "5787970539", shipment: "829716" },
    ]);
  });

  it("an 855 confirming less than ordered (IB, IQ) is a partial answer of what is confirmed", () => {
    const set = { id: "855", control: "1", segments: ["BAK*00*AC*1042", "PO1*901*5*EA", "ACK*IA*3*EA", "ACK*IB*2*EA", "PO1*902*4*EA", "ACK*IQ*1*EA"].map((s) => ({ id: s.split("*")[0], elements: s.split("*").slice(1) })) };
    expect(READERS["855"](set).map((a) => (a.kind === "855" ? [a.item.lineId, a.action, a.quantity, a.reason] : null))).toEqual([
      ["901", "partial", 3, "Confirmed in part in the supplier's 855: IA item accepted 3, IB item backordered 2"],
      ["902", "partial", 1, "Confirmed in part in the supplier's 855: IQ item accepted, quantity changed 1"],
    ]);
  });

  it("an 846: LIN with QTY 33 (available) or 17 (on hand) per item", () => {
    const set = { id: "846", control: "1", segments: ["BIA*00*SI*S1*20261129", "LIN**VP*MUG-BLUE", "QTY*33*12*EA", "LIN**UP*012345678905", "QTY*17*0*EA"].map((s) => ({ id: s.split("*")[0], elements: s.split("*").slice(1) })) };
    expect(READERS["846"](set)).toEqual([
      { kind: "846", item: { lineId: null, sku: "MUG-BLUE", barcode: null }, quantity: 12 },
      { kind: "846", item: { lineId: null, sku: null, barcode: "012345678905" }, quantity: 0 },
    ]);
  });

  it("an 810: CUR's currency, the SACs after an IT1 the line's and after TDS the whole invoice's; a currency not in ISO 4217 or a SAC without its amount refuses it in words", () => {
    const read = (extra: string[]) => READERS["810"](setOf(supplierFile("810", 1, ["BIG*20261129*INV-1**1042", ...extra])));
    expect(read(["CUR*SE*usd", "IT1*7*1*EA*9", "SAC*C*H090***250", "IT1*8*1*EA*4", "TDS*1550", "SAC*A*C310***200**********Early payment", "SAC*N*D240***0"])).toMatchObject([
      { item: { lineId: "7" }, currency: "USD", charges: [{ type: "charge", code: "H090", amount: 2.5, description: null }], invoiceCharges: [{ type: "allowance", code: "C310", amount: 2, description: "Early payment" }] },
      { item: { lineId: "8" }, currency: "USD", charges: [], invoiceCharges: [{ type: "allowance", code: "C310", amount: 2, description: "Early payment" }] },
    ]);
    expect(read(["IT1*7*1*EA*9"])).toMatchObject([{ currency: null, charges: [], invoiceCharges: [] }]);
    expect(() => read(["CUR*SE*XYZ", "IT1*7*1*EA*9"])).toThrow('CUR02 "XYZ" is not an ISO 4217 currency code.');
    expect(() => read(["IT1*7*1*EA*9", "SAC*C*D240****3"])).toThrow('SAC05 "" is not an amount in cents: an allowance or charge must say its amount.');
  });
});
