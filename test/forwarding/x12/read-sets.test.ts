// What the supplier's sets say, read without I/O: the public sample 855 and 856 of another project
// (node-x12's test data, MIT: test/lib/x12/samples/) as answers, and the 997's codes in words.
import { describe, expect, it } from "vitest";
import { READERS, type Invoiced } from "../../../src/forwarding/x12/read-sets";
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
    // 9 + 2.50 handling + 4 - 2.00 early payment = 13.50.
    expect(read(["CUR*SE*usd", "IT1*7*1*EA*9", "SAC*C*H090***250", "IT1*8*1*EA*4", "TDS*1350", "SAC*A*C310***200**********Early payment", "SAC*N*D240***0"])).toMatchObject([
      { item: { lineId: "7" }, currency: "USD", charges: [{ type: "charge", code: "H090", amount: 2.5, description: null }], invoiceCharges: [{ type: "allowance", code: "C310", amount: 2, description: "Early payment" }] },
      { item: { lineId: "8" }, currency: "USD", charges: [], invoiceCharges: [{ type: "allowance", code: "C310", amount: 2, description: "Early payment" }] },
    ]);
    expect(read(["IT1*7*1*EA*9"])).toMatchObject([{ currency: null, charges: [], invoiceCharges: [] }]);
    expect(() => read(["CUR*SE*XYZ", "IT1*7*1*EA*9"])).toThrow('CUR02 "XYZ" is not an ISO 4217 currency code.');
    expect(() => read(["IT1*7*1*EA*9", "SAC*C*D240****3"])).toThrow("The charge D240 (SAC) says neither its amount (SAC05), its percent (SAC07) nor its rate (SAC08).");
    expect(() => read(["IT1*7*1*EA*9", "SAC*C*D240***2.5"])).toThrow('SAC05 "2.5" is not an amount in cents.');
  });

  it("an 810's SAC given as a percent (SAC07) or a rate per unit (SAC08): the amount reckoned from its line or from all lines, kept with what was given; SAC05 takes precedence", () => {
    const read = (extra: string[]) => READERS["810"](setOf(supplierFile("810", 1, ["BIG*20261129*INV-1**1042", ...extra])));
    const [first, second] = read([
      "IT1*7*3*EA*10", // 30.00
      "SAC*A*C310****3*10", // SAC07 10 % of its line: 3.00 off
      "IT1*8*2*EA*2.5", // 5.00
      "SAC*C*H090******0.35", // SAC08 0.35 a unit: 0.70
      "SAC*C*H000***125*3*50", // SAC05 given: 1.25, its percent ignored
      "TDS*3245", // 30 - 3.00 + 5 + 0.70 + 1.25, then + 1.75 - 3.50 + 0.25: 32.45
      "SAC*C*D240****3*5", // 5 % of the lines' 35.00: 1.75
      "SAC*A*C000******0.7", // SAC08 0.70 a unit of 5 units: 3.50 off
      "SAC*C*H850***25",
    ]) as Invoiced[];
    expect(first.charges).toEqual([{ type: "allowance", code: "C310", amount: 3, description: null, percent: 10 }]);
    expect(second.charges).toEqual([
      { type: "charge", code: "H090", amount: 0.7, description: null, rate: 0.35 },
      { type: "charge", code: "H000", amount: 1.25, description: null },
    ]);
    expect(first.invoiceCharges).toEqual([
      { type: "charge", code: "D240", amount: 1.75, description: null, percent: 5 },
      { type: "allowance", code: "C000", amount: 3.5, description: null, rate: 0.7 },
      { type: "charge", code: "H850", amount: 0.25, description: null },
    ]);
  });

  it("an 810 whose total (TDS01) is not what its lines and charges make is refused in words; a cent a line of rounding is not a difference", () => {
    const read = (extra: string[]) => READERS["810"](setOf(supplierFile("810", 1, ["BIG*20261129*INV-9**1042", ...extra])));
    expect(() => read(["IT1*7*2*EA*6.5", "TDS*1400"])).toThrow("The 810's total (TDS01) is 14.00, but its lines with their allowances, charges and taxes make 13.00.");
    expect(() => read(["IT1*7*2*EA*6.5", "SAC*C*H090***250", "TDS*1300"])).toThrow("The 810's total (TDS01) is 13.00, but its lines with their allowances, charges and taxes make 15.50.");
    expect(() => read(["IT1*7*1*EA*9", "TDS*ABC"])).toThrow('TDS01 "ABC" is not an amount in cents.');
    expect(read(["IT1*7*2*EA*6.5", "TDS*1300"])).toHaveLength(1);
    // 3 × 3.333 = 9.999 and 3 × 1.111 = 3.333: 13.33 to the cent, 13.34 within a cent a line, 13.36 not.
    expect(read(["IT1*7*3*EA*3.333", "IT1*8*3*EA*1.111", "TDS*1334"])).toHaveLength(2);
    expect(() => read(["IT1*7*3*EA*3.333", "IT1*8*3*EA*1.111", "TDS*1336"])).toThrow("The 810's total (TDS01) is 13.36, but its lines with their allowances, charges and taxes make 13.33.");
    // A credit invoice's negative total.
    expect(read(["IT1*7*1*EA*5", "SAC*A*C310***700", "TDS*-200"])).toHaveLength(1);
    // Taxes (TXI02) are in the total: the lines', or the summary's when it has any (its total of them).
    expect(read(["IT1*7*2*EA*6.5", "TXI*ST*1.30", "IT1*8*1*EA*1", "TXI*ST*0.20", "TDS*1550"])).toHaveLength(2);
    expect(read(["IT1*7*2*EA*6.5", "TXI*ST*1.30", "IT1*8*1*EA*1", "TXI*ST*0.20", "TDS*1550", "TXI*ST*1.50"])).toHaveLength(2);
    expect(() => read(["IT1*7*2*EA*6.5", "TXI*ST*1.30", "TDS*1300"])).toThrow("make 14.30.");
    // A charge the invoice does not carry (SAC12 13: information only; 04: credited to the account) is kept, not summed.
    const [kept] = read(["IT1*7*2*EA*6.5", "SAC*A*C310***300*******13", "SAC*C*H090***100*******04", "SAC*C*D240***50*******06", "TDS*1350"]) as Invoiced[];
    expect(kept.charges.map((c) => [c.code, c.handling])).toEqual([
      ["C310", "13"],
      ["H090", "04"],
      ["D240", undefined],
    ]);
  });

  it("a charge reckoned from a percent rounds half up from its decimal value, and each reckoned charge may be a cent off in the total", () => {
    const read = (extra: string[]) => READERS["810"](setOf(supplierFile("810", 1, ["BIG*20261129*INV-1**1042", ...extra]))) as Invoiced[];
    // 1 × 1.15 at 50 %: 0.575, so 0.58 (binary floating point would make it 0.57).
    const [line] = read(["IT1*7*1*EA*1.15", "SAC*A*C310****3*50", "TDS*57"]);
    expect(line.charges).toEqual([{ type: "allowance", code: "C310", amount: 0.58, description: null, percent: 50 }]);
    // The supplier rounded the other way: one line and one reckoned charge, two cents of slack.
    expect(read(["IT1*7*1*EA*1.15", "SAC*A*C310****3*50", "TDS*59"])).toHaveLength(1);
    expect(() => read(["IT1*7*1*EA*1.15", "SAC*A*C310****3*50", "TDS*60"])).toThrow("The 810's total (TDS01) is 0.60, but its lines with their allowances, charges and taxes make 0.57.");
  });
});
