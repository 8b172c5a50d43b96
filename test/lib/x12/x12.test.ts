// Our X12 reader and writer: what we write, we read back the same (a property over generated
// interchanges and separators); public sample files of another project (node-x12's test data, MIT,
// test/lib/x12/samples/LICENSE.md) read with their separators and counts; bad envelopes refused in words.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readInterchanges, segmentsOf } from "../../../src/lib/x12/reader";
import { writeInterchange } from "../../../src/lib/x12/writer";
import { el, X12Error, type Interchange } from "../../../src/lib/x12/x12";
import { fuzz } from "../../helpers/fuzz";
import sample850 from "./samples/850.edi?raw";
import sample850NewLines from "./samples/850_2.edi?raw";
import sample855 from "./samples/855.edi?raw";
import sample856 from "./samples/856.edi?raw";

const SEPARATOR_CHARS = ["*", "~", ">", "|", "^", ":", "!", "\u001d", "\u001c", "\u001f", "+", "'"];
const separators = fc
  .shuffledSubarray(SEPARATOR_CHARS, { minLength: 3, maxLength: 3 })
  .map(([element, segment, component]) => ({ element, segment, component }));
const word = fc.string({ unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij0123456789 .,-/#&()é€"), minLength: 0, maxLength: 12 });
const value = word.filter((w) => w.trim() === w);
// A segment's last element is never empty: the writer drops trailing empty elements, as X12 asks.
const segment = fc.record({
  id: fc.constantFrom("BEG", "N1", "N3", "N4", "PO1", "ACK", "LIN", "SN1", "TD5", "REF", "QTY", "IT1", "CTT"),
  elements: fc.tuple(fc.array(value, { maxLength: 8 }), value.filter((v) => v !== "")).map(([a, last]) => [...a, last]),
});
const control = fc.integer({ min: 1, max: 999_999_999 }).map(String);
const interchange = fc.record({
  separators,
  control,
  groups: fc.array(
    fc.record({ functionalId: fc.constantFrom("PO", "PR", "SH", "IN", "IB", "FA"), control, sets: fc.array(fc.record({ id: fc.constantFrom("850", "855", "856"), control: control.map((c) => c.padStart(4, "0")), segments: fc.array(segment, { maxLength: 6 }) }), { minLength: 1, maxLength: 3 }) }),
    { minLength: 1, maxLength: 3 },
  ),
});

type Generated = { separators: Interchange["separators"]; control: string; groups: { functionalId: string; control: string; sets: Interchange["groups"][number]["sets"] }[] };

function build(g: Generated): Interchange {
  return {
    separators: g.separators,
    header: { senderQualifier: "ZZ", senderId: "OURSHOP", receiverQualifier: "01", receiverId: "123456789", date: "261129", time: "0215", version: "00401", control: g.control.padStart(9, "0"), ackRequested: "0", usage: "T" },
    groups: g.groups.map((group) => ({ ...group, sender: "OURSHOP", receiver: "123456789", date: "20261129", time: "0215", version: "004010" })),
  };
}

describe("the X12 writer and reader", () => {
  it("what we write, we read back the same: any separators, any values, counts and control numbers (with and without line breaks)", async () => {
    await fuzz(fc.tuple(interchange, fc.boolean()), 200, async ([generated, lineBreaks]) => {
      const written = build(generated);
      expect(readInterchanges(writeInterchange(written, { lineBreaks }))).toEqual([written]);
    });
  });

  it("a value holding a separator has it made a space (X12 has no escape), and the ISA is 106 characters", () => {
    const text = writeInterchange(
      build({ separators: { element: "*", segment: "~", component: ">" }, control: "7", groups: [{ functionalId: "PO", control: "7", sets: [{ id: "850", control: "0007", segments: [{ id: "N3", elements: ["Damrak 1*2~3>4\n5"] }] }] }] }),
    );
    expect(text.indexOf("~")).toBe(105);
    expect(segmentsOf(text)).toEqual([
      "ISA*00*          *00*          *ZZ*OURSHOP        *01*123456789      *261129*0215*U*00401*000000007*0*T*>",
      "GS*PO*OURSHOP*123456789*20261129*0215*7*X*004010",
      "ST*850*0007",
      "N3*Damrak 1 2 3 4 5",
      "SE*3*0007",
      "GE*1*7",
      "IEA*1*000000007",
    ]);
  });

  it("an ID longer than ISA allows is refused in words", () => {
    const i = build({ separators: { element: "*", segment: "~", component: ">" }, control: "1", groups: [] });
    i.header.senderId = "A".repeat(16);
    expect(() => writeInterchange(i)).toThrow('The sender id "AAAAAAAAAAAAAAAA" is longer than the 15 characters ISA allows.');
  });
});

describe("public sample files (node-x12's test data)", () => {
  it("an 850 with its VICS version, PO1 lines and CTT", () => {
    const [i] = readInterchanges(sample850);
    expect(i.separators).toEqual({ element: "*", segment: "~", component: ">" });
    expect(i.header).toMatchObject({ senderQualifier: "12", senderId: "4405197800", receiverId: "999999999", control: "000003438", usage: "P" });
    const [group] = i.groups;
    expect(group).toMatchObject({ functionalId: "PO", control: "1421", version: "004010VICS" });
    const [set] = group.sets;
    expect(set.id).toBe("850");
    expect(set.segments.filter((s) => s.id === "PO1").map((s) => [el(s, 2), el(s, 4), el(s, 11)])).toEqual([
      ["120", "9.25", "AB3542"],
      ["220", "13.79", "RD5322"],
      ["126", "10.99", "XY5266"],
      ["76", "4.35", "VX2332"],
      ["72", "7.5", "RV0524"],
      ["696", "9.55", "DX1875"],
    ]);
  });

  it("the same 850 with line breaks as segment terminators reads the same", () => {
    const [a] = readInterchanges(sample850);
    const [b] = readInterchanges(sample850NewLines);
    expect(b.separators.segment).toBe("\n");
    expect(b.groups).toEqual(a.groups);
  });

  it("an 855 with ACK IA and IR per PO1, and an 856 with its HL levels, TD5, REF*CN and LIN/SN1", () => {
    const [ack] = readInterchanges(sample855);
    expect(ack.groups[0].sets[0].segments.filter((s) => s.id === "ACK").map((s) => [el(s, 1), el(s, 2)])).toEqual([
      ["IA", "3"],
      ["IR", "0"],
      ["IR", "0"],
      ["IA", "2"],
    ]);
    const [asn] = readInterchanges(sample856);
    const segs = asn.groups[0].sets[0].segments;
    expect(segs.find((s) => s.id === "REF" && el(s, 1) === "CN")?.elements).toEqual(["CN", "5787970539"]);
    expect(segs.filter((s) => s.id === "SN1").map((s) => el(s, 2))).toEqual(["24", "6"]);
  });
});

describe("bad files are refused in words", () => {
  const good = writeInterchange(build({ separators: { element: "*", segment: "~", component: ">" }, control: "42", groups: [{ functionalId: "PR", control: "42", sets: [{ id: "855", control: "0042", segments: [{ id: "BAK", elements: ["00", "AD", "1042"] }] }] }] }));
  const refused = (text: string) => {
    try {
      readInterchanges(text);
    } catch (error) {
      expect(error).toBeInstanceOf(X12Error);
      return (error as Error).message;
    }
    return "read";
  };
  it.each([
    ["not X12", "order_reference,sku\n1042,MUG", "The file does not start with an ISA segment: it is not X12."],
    ["a short ISA", "ISA*00*", "The ISA segment is cut short: it must be 106 characters long."],
    ["an SE count that does not match", good.replace("SE*3*0042", "SE*4*0042"), "Transaction set 855 0042 counts 4 segments in its SE, but has 3."],
    ["an SE control number that differs", good.replace("SE*3*0042", "SE*3*0043"), "Transaction set 855: its SE names control number 0043, its ST 0042."],
    ["a GE count that does not match", good.replace("GE*1*42", "GE*2*42"), "Functional group 42 counts 2 transaction sets in its GE, but has 1."],
    ["an IEA count that does not match", good.replace("IEA*1*", "IEA*3*"), "Interchange 000000042 counts 3 functional groups in its IEA, but has 1."],
    ["an IEA control number that differs", good.replace("IEA*1*000000042", "IEA*1*000000043"), "Interchange: its IEA names control number 000000043, its ISA 000000042."],
    ["no IEA", good.slice(0, good.indexOf("IEA")), "Interchange 000000042 has no IEA segment where it ends (found the end of the file)."],
  ])("%s", (_, text, message) => {
    expect(refused(text)).toBe(message);
  });
});
