import { describe, expect, it } from "vitest";
import { count, many, plural } from "../../src/lib/plural";

const ENTRY = { one: "entry", many: "entries" };

describe("plural and count", () => {
  it.each([
    [0, "line", "0 lines"],
    [1, "line", "1 line"],
    [2, "line", "2 lines"],
    [1.5, "line", "1.5 lines"],
    [-1, "day", "-1 day"],
    [1, ENTRY, "1 entry"],
    [0, ENTRY, "0 entries"],
    [21, ENTRY, "21 entries"],
    [1, { one: "dispatch", many: "dispatches" }, "1 dispatch"],
    [2, { one: "dispatch", many: "dispatches" }, "2 dispatches"],
  ] as const)("count(%j, %j) is %j", (n, noun, expected) => {
    expect(count(n, noun)).toBe(expected);
  });

  it("gives the form alone, and the plural of a list's name", () => {
    expect([plural(1, "order"), plural(2, "order"), plural(1, ENTRY), plural(3, ENTRY)]).toEqual(["order", "orders", "entry", "entries"]);
    expect([many("order"), many(ENTRY)]).toEqual(["orders", "entries"]);
  });
});
