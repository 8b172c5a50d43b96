// What our 997 rejecting a refused file says (src/forwarding/x12/refusals.ts), read from the file
// leniently: each group's sets with their AK5 codes and the group's AK9 codes, the set at fault
// named by the refusal; nothing for a file whose ISA cannot be read, and never for a 997's group.
import { describe, expect, it } from "vitest";
import { refusedGroups } from "../../../src/forwarding/x12/refusals";
import { supplierFile } from "../../helpers/x12";

const file855 = (control: number) => supplierFile("855", control, ["BAK*00*AC*1042*20261129", "PO1*1*1*EA", "ACK*IA*1*EA", "CTT*1"]);
const sets = (text: string, fault?: Parameters<typeof refusedGroups>[1]) =>
  refusedGroups(text, fault)?.map((i) => [i.interchange, i.groups.map((g) => [g.functionalId, g.control, g.errors ?? [], g.sets.map((s) => [s.id, s.control, s.accepted, s.codes])])]) ?? null;

describe("the groups of a refused file, for our 997", () => {
  it("codes each envelope problem where it lies: 2 no SE, 3 SE's number, 4 SE's count; AK9 3 no GE, 4 GE's number, 5 GE's count", () => {
    expect(sets(file855(1).replace("SE*6*0001", "SE*6*0002"))).toEqual([["000000001", [["PR", "1", [], [["855", "0001", false, ["3"]]]]]]]);
    expect(sets(file855(2).replace("SE*6*0001", "SE*7*0001"))).toEqual([["000000002", [["PR", "2", [], [["855", "0001", false, ["4"]]]]]]]);
    expect(sets(file855(3).replace("SE*6*0001~\n", ""))).toEqual([["000000003", [["PR", "3", [], [["855", "0001", false, ["2"]]]]]]]);
    expect(sets(file855(4).replace("GE*1*4", "GE*1*5"))).toEqual([["000000004", [["PR", "4", ["4"], [["855", "0001", false, []]]]]]]);
    expect(sets(file855(5).replace("GE*1*5~\n", ""))).toEqual([["000000005", [["PR", "5", ["3"], [["855", "0001", false, []]]]]]]);
    expect(sets(file855(6).replace("GE*1*6", "GE*2*6"))).toEqual([["000000006", [["PR", "6", ["5"], [["855", "0001", false, []]]]]]]);
  });

  it("names the set at fault of a file refused for what it says; every other set of the file is rejected too, without a code (nothing of it was applied)", () => {
    const two = file855(7) + file855(8);
    expect(sets(two, { interchange: "000000008", group: "8", set: "0001", code: "5" })).toEqual([
      ["000000007", [["PR", "7", [], [["855", "0001", false, []]]]]],
      ["000000008", [["PR", "8", [], [["855", "0001", false, ["5"]]]]]],
    ]);
  });

  it("gives nothing to answer for a file whose ISA cannot be read, and leaves out a 997's groups", () => {
    expect(sets("not x12 at all")).toBeNull();
    expect(sets(file855(9).slice(0, 80))).toBeNull();
    expect(sets(file855(10).replace("*00401*000000010*", "*00401*10*"))).toBeNull();
    expect(sets(supplierFile("997", 11, ["AK1*PO*1", "AK2*850*0001", "AK5*A", "AK9*A*1*1*1"]))).toEqual([["000000011", []]]);
  });
});
