// CSV as the documents we send and export write it (RFC 4180, CRLF line ends).

/** One cell: quoted when needed; a leading =,+,-,@ is neutralised so spreadsheet imports do not run formulas. */
export function csvCell(value: unknown): string {
  const s = value === null || value === undefined ? "" : String(value);
  const safe = /^[=+\-@]/.test(s) && !/^-?\d/.test(s) ? `'${s}` : s;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Rows as CSV text, each ending in CRLF. */
export const csvLines = (rows: readonly (readonly unknown[])[]) => rows.map((r) => r.map(csvCell).join(",") + "\r\n").join("");
