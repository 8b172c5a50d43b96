// Numbers and names as a person reads them.
const regions = new Intl.DisplayNames(["en"], { type: "region" });

/** Money as stored, two decimals, thousands grouped, with its ISO 4217 code after it: "1,234.50 EUR". */
export function money(value: number | null | undefined, currency: string): string {
  if (value === null || value === undefined) return "—";
  return `${value.toLocaleString("en", { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ${currency}`;
}

/** "Netherlands (NL)" for an ISO 3166-1 alpha-2 code. */
export function countryName(code: string): string {
  try {
    const name = regions.of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

export const orDash = (value: string | number | null | undefined) => (value === null || value === undefined || value === "" ? "—" : String(value));
