// The one CSV writer's formula guard (src/lib/csv.ts), as every CSV we write uses it: the orders
// export and the pull channel's CSV (csvLines, toCsv), and the supplier's order files with any
// delimiter (the file channel's csvText). Read back with a real CSV parser, no cell may start with a
// character a spreadsheet takes for a formula unless the whole cell is a plain number.
import { parse } from "csv-parse/sync";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { csvLines } from "../../src/lib/csv";
import { csvText } from "../../src/forwarding/channels/file";
import { SEED } from "../helpers/fuzz";

const NUMBER = /^-?\d+(?:\.\d+)?$/;
const FORMULA_START = /^[=+\-@\t\r]/;

// Cells biased towards the dangerous starts, numbers and number-likes, and anything at all.
const start = fc.constantFrom("=", "+", "-", "@", "\t", "\r", "-1", "-2+", "'", "", "1", "-.", "--1");
const cellText = fc.oneof(
  fc.tuple(start, fc.string({ maxLength: 12 })).map(([a, b]) => a + b),
  fc.tuple(fc.constantFrom("-", ""), fc.nat(), fc.option(fc.nat(), { nil: undefined })).map(([s, i, f]) => `${s}${i}${f === undefined ? "" : `.${f}`}`),
  fc.string({ maxLength: 12, unit: "binary" }),
);
const table = fc.array(fc.array(cellText, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 5 });

function checkCells(original: string[][], read: string[][]) {
  expect(read.length).toBe(original.length);
  read.forEach((row, r) =>
    row.forEach((cell, c) => {
      if (FORMULA_START.test(cell)) expect(cell).toMatch(NUMBER);
      // Nothing else changed: the cell is what was given, or it with the one leading '.
      expect([original[r][c], `'${original[r][c]}`]).toContain(cell);
    }),
  );
}

describe("CSV cells a spreadsheet would run", () => {
  it("the issue's cell gets its leading ': -2+3+cmd|' /C calc'!A0 starts with a digit after the - but is no number", () => {
    expect(csvLines([["-2+3+cmd|' /C calc'!A0", "-12", "-12.50", "-1e5", "+12", "-", "@SUM(A1)", "=1+1", "\t=1"]])).toBe(
      `'-2+3+cmd|' /C calc'!A0,-12,-12.50,'-1e5,'+12,'-,'@SUM(A1),'=1+1,'\t=1\r\n`,
    );
  });

  it("property: no cell written (comma CSV) starts with a formula character unless it is a number; none is otherwise altered", () => {
    fc.assert(
      fc.property(table, (rows) => {
        checkCells(rows, parse(csvLines(rows), { relax_column_count: true, record_delimiter: "\r\n" }) as string[][]);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it("property: the same for the supplier's order files with each delimiter", () => {
    fc.assert(
      fc.property(table, fc.constantFrom(",", ";", "\t", "|"), (rows, delimiter) => {
        const header = rows[0].map((_, i) => `h${i}`);
        const read = parse(csvText(header, rows, delimiter), { delimiter, relax_column_count: true, record_delimiter: "\r\n" }) as string[][];
        checkCells(rows, read.slice(1));
      }),
      { seed: SEED, numRuns: 500 },
    );
  });
});
