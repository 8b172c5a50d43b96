// Money is exact: every amount is stored as an INTEGER count of ten-thousandths (scale 4, as
// Magento's DECIMAL(20,4)), converted from the decimal text a client sent by string arithmetic,
// never by multiplying a float. Reads divide by 10,000, which IEEE division rounds to the very
// double that the decimal text parses to: 59.9 is stored as 599000 and reads back as 59.9.

export const MONEY_SCALE = 4;
export const MONEY_UNITS = 10_000;
/** The largest amount: 999,999,999,999,999 units stay below 2^53, so every amount is exact in JS. */
export const MONEY_MAX = 99_999_999_999.9999;

export type Rounding = "half_away" | "ceil" | "floor";

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * Decimal text (plain, or with an exponent as String(number) writes it) -> integer units of
 * 1/10,000. More than four decimals round half away from zero (or up / down for filters).
 * null when the text is not a decimal number.
 */
export function decimalToUnits(text: string, rounding: Rounding = "half_away"): number | null {
  const m = DECIMAL.exec(text);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return null;
  const negative = m[1] === "-";
  const digits = `${m[2]}${m[3] ?? ""}`;
  const exponent = Math.max(-10_000, Math.min(10_000, Number(m[4] ?? 0)));
  // Where the decimal point falls in `digits` once the value is scaled to units.
  const point = m[2].length + exponent + MONEY_SCALE;
  let whole: string;
  let rest: string;
  if (point <= 0) {
    whole = "0";
    rest = "0".repeat(-point) + digits;
  } else if (point >= digits.length) {
    whole = digits + "0".repeat(point - digits.length);
    rest = "";
  } else {
    whole = digits.slice(0, point);
    rest = digits.slice(point);
  }
  let units = BigInt(whole || "0");
  const fraction = /[1-9]/.test(rest);
  if (rounding === "half_away" ? rest.charCodeAt(0) >= 53 /* '5' */ : fraction && (rounding === "ceil") !== negative) units += 1n;
  if (units === 0n) return 0;
  // Far past the maximum: any value above it will do for the range check.
  const n = units > 10n ** 20n ? 1e20 : Number(units);
  return negative ? -n : n;
}

/** A JS number (already an amount) -> units. String(n) is the shortest text that reads back as n. */
export function numberToUnits(value: number): number {
  if (!Number.isFinite(value)) throw new RangeError(`Not a finite amount: ${value}`);
  return decimalToUnits(String(value))!;
}

export const unitsToNumber = (units: number): number => units / MONEY_UNITS;

/** An amount rounded to the stored scale, as a number (what is stored and read back). */
export const roundMoney = (value: number): number => unitsToNumber(numberToUnits(value));

export type DecimalReading = { ok: true; text: string } | { ok: false; ambiguous: boolean };

/**
 * What a shop or a feed sent as a decimal: a JSON number, or text under one rule (docs/api.md, Money):
 * - "1234.50", "1.234" (a dot is a decimal point), ".5";
 * - both separators, grouped by three: "1,234.50" and "1.234,50";
 * - a comma followed by other than exactly three digits, or after a leading 0: a decimal comma
 *   ("435,45", "1,2345", "0,125");
 * - digit groups of exactly three with no decimal part ("1,234", "1,234,567", "1.234.567") are
 *   ambiguous (thousands or decimals?) and refused: never silently scaled by 1,000;
 * - spaces (thin and non-breaking too) between digits are ignored: "1 234,50".
 */
export function readDecimal(value: string | number): DecimalReading {
  if (typeof value === "number") return Number.isFinite(value) ? { ok: true, text: String(value) } : { ok: false, ambiguous: false };
  const s = value.replace(/\s/g, "");
  if (/^[-+]?(\d+(\.\d+)?|\.\d+)$/.test(s)) return { ok: true, text: s };
  if (/^[-+]?\d{1,3}(,\d{3})+\.\d+$/.test(s)) return { ok: true, text: s.replace(/,/g, "") };
  if (/^[-+]?\d{1,3}(\.\d{3})+,\d+$/.test(s)) return { ok: true, text: s.replace(/\./g, "").replace(",", ".") };
  if (/^[-+]?[1-9]\d{0,2}(,\d{3})+$/.test(s) || /^[-+]?[1-9]\d{0,2}(\.\d{3}){2,}$/.test(s)) return { ok: false, ambiguous: true };
  if (/^[-+]?\d+,\d+$/.test(s)) return { ok: true, text: s.replace(",", ".") };
  return { ok: false, ambiguous: false };
}

export const AMBIGUOUS_DECIMAL_MESSAGE =
  "The :attribute field is ambiguous: digits grouped by three after a comma (or between dots) may be thousands or decimals. Send a plain decimal number such as 1234.50.";
