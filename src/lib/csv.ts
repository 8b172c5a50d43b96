// CSV as the documents we send and export write it (RFC 4180, CRLF line ends).

// Only a whole cell that is a plain decimal number is a number: "-12" and "-12.50" are, but
// "-2+3+cmd|' /C calc'!A0" is not, although it starts with "-" and a digit (a spreadsheet runs it).
const NUMBER = /^-?\d+(?:\.\d+)?$/;
// The characters a spreadsheet starts a formula with (OWASP's CSV injection list): =, +, -, @, and
// the tab and carriage return some spreadsheets strip before looking.
const FORMULA_START = /^[=+\-@\t\r]/;

/** A cell's text as written, before quoting: a formula's start neutralised with a leading ' unless the cell is a number. */
export function csvSafe(value: unknown): string {
  const s = value === null || value === undefined ? "" : String(value);
  return FORMULA_START.test(s) && !NUMBER.test(s) ? `'${s}` : s;
}

/** One cell: quoted when needed; a leading =,+,-,@ (tab, CR) is neutralised so spreadsheet imports do not run formulas. */
export function csvCell(value: unknown): string {
  const safe = csvSafe(value);
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Rows as CSV text, each ending in CRLF. */
export const csvLines = (rows: readonly (readonly unknown[])[]) => rows.map((r) => r.map(csvCell).join(",") + "\r\n").join("");
