// One feed record -> a product row, or every reason it is rejected. Feeds come from many
// systems, so values are read leniently (decimal commas, "yes"/"no", numbers as text) but
// never guessed: a value that does not clearly mean something rejects the row. A reason names the
// value as its reader knows it: a file's own column (feed-readers.ts fileFieldNames), the API's field.
import type { ProductField } from "../db/schema";
import { roundMoney } from "../lib/money";
import { AMBIGUOUS, controlCharacterIn, parseDecimal } from "../lib/validation";

/** How a reason starts for a field: "The purchase_price field", or "The column 'Inkoopprijs' (purchase_price)". */
export type FieldSubject = (field: ProductField) => string;
export const API_FIELD: FieldSubject = (field) => `The ${field} field`;

export type RawFields = Partial<Record<ProductField, unknown>>;

export type ProductRow = {
  sku: string;
  ean13: string | null;
  name: string;
  purchasePrice: number | null;
  stockQuantity: number | null;
  active: 0 | 1;
};

export const ROW_LIMITS = { sku: 255, name: 1000, price: 1e9, stock: 1e9 } as const;

/** GTIN lengths accepted as "EAN": EAN-8, UPC-A (12), EAN-13, GTIN-14. */
const GTIN_LENGTHS = new Set([8, 12, 13, 14]);

/** GS1 check digit: weights 3 and 1 alternate leftwards from the digit before the check digit. */
export function hasValidCheckDigit(digits: string): boolean {
  let sum = 0;
  let weight = 3;
  for (let i = digits.length - 2; i >= 0; i--) {
    sum += (digits.charCodeAt(i) - 48) * weight;
    weight = 4 - weight;
  }
  return (10 - (sum % 10)) % 10 === digits.charCodeAt(digits.length - 1) - 48;
}

type Result<T> = { value: T } | { error: string };

const isBlank = (v: unknown) => v === undefined || v === null || (typeof v === "string" && v.trim() === "");

function text(field: string, v: unknown, max: number, required: boolean): Result<string | null> {
  if (isBlank(v)) return required ? { error: `${field} is required.` } : { value: null };
  let s: string;
  if (typeof v === "string") s = v.trim();
  else if (typeof v === "number" && Number.isFinite(v)) s = String(v);
  else return { error: `${field} must be a string.` };
  if (s.length > max) return { error: `${field} must not be greater than ${max} characters.` };
  return { value: s };
}

/** A SKU: text without control characters, as every identifier we store (src/lib/validation.ts). */
function identifier(field: string, v: unknown, max: number): Result<string | null> {
  const result = text(field, v, max, true);
  const code = "value" in result && result.value !== null ? controlCharacterIn(result.value) : null;
  return code === null ? result : { error: `${field} must not contain control characters (it holds ${code}).` };
}

function ean(field: string, v: unknown): Result<string | null> {
  if (isBlank(v)) return { value: null };
  let s: string;
  if (typeof v === "string") s = v.trim();
  else if (typeof v === "number" && Number.isSafeInteger(v) && v > 0) {
    // A JSON number has lost the EAN's leading zeros: restore the 13-digit form.
    s = String(v);
    if (s.length > 8 && s.length < 13) s = s.padStart(13, "0");
  } else return { error: `${field} must be a string of digits.` };
  if (!/^\d+$/.test(s) || !GTIN_LENGTHS.has(s.length)) return { error: `${field} must be 8, 12, 13 or 14 digits.` };
  if (!hasValidCheckDigit(s)) return { error: `${field} has an invalid check digit.` };
  return { value: s };
}

const ambiguous = (field: string, v: unknown) =>
  `${field} "${String(v).slice(0, 40)}" is ambiguous (thousands or decimals?): the file should hold a plain decimal number such as 1234.50.`;

/** An amount: rounded half away from zero to 4 decimals, the stored scale (src/lib/money.ts). */
function decimal(field: string, v: unknown, max: number): Result<number | null> {
  if (isBlank(v)) return { value: null };
  const n = parseDecimal(v);
  if (n === AMBIGUOUS) return { error: ambiguous(field, v) };
  if (typeof n !== "number" || !Number.isFinite(n)) return { error: `${field} must be a number.` };
  if (n < 0) return { error: `${field} must be at least 0.` };
  if (n > max) return { error: `${field} must not be greater than ${max}.` };
  return { value: roundMoney(n) };
}

function integer(field: string, v: unknown, max: number): Result<number | null> {
  if (isBlank(v)) return { value: null };
  const n = parseDecimal(v);
  if (n === AMBIGUOUS) return { error: ambiguous(field, v) };
  if (typeof n !== "number" || !Number.isInteger(n)) return { error: `${field} must be an integer.` };
  if (Math.abs(n) > max) return { error: `${field} must be between -${max} and ${max}.` };
  return { value: n };
}

// English plus the Dutch and German words supplier exports use.
const TRUE = new Set(["1", "true", "yes", "y", "on", "active", "ja", "j"]);
const FALSE = new Set(["0", "false", "no", "n", "off", "inactive", "nee", "nein"]);

function flag(field: string, v: unknown): Result<0 | 1> {
  // A feed that does not say otherwise lists what the supplier sells.
  if (isBlank(v)) return { value: 1 };
  if (v === true || v === 1) return { value: 1 };
  if (v === false || v === 0) return { value: 0 };
  if (typeof v === "string") {
    const s = v.trim().toLowerCase();
    if (TRUE.has(s)) return { value: 1 };
    if (FALSE.has(s)) return { value: 0 };
  }
  return { error: `${field} must be true or false.` };
}

export type RowResult = { row: ProductRow } | { sku: string | null; errors: string[] };

/** `subject` names each field in the reasons: the API's field by default, a file's own name in an import. */
export function toProductRow(raw: RawFields, subject: FieldSubject = API_FIELD): RowResult {
  const sku = identifier(subject("sku"), raw.sku, ROW_LIMITS.sku);
  const parts = {
    sku,
    ean13: ean(subject("ean13"), raw.ean13),
    name: text(subject("name"), raw.name, ROW_LIMITS.name, true),
    purchasePrice: decimal(subject("purchase_price"), raw.purchase_price, ROW_LIMITS.price),
    stockQuantity: integer(subject("stock_quantity"), raw.stock_quantity, ROW_LIMITS.stock),
    active: flag(subject("active"), raw.active),
  };
  const errors = Object.values(parts).flatMap((p) => ("error" in p ? [p.error] : []));
  if (errors.length > 0) return { sku: "value" in sku ? sku.value : null, errors };
  const value = <T>(r: Result<T>) => (r as { value: T }).value;
  return {
    row: {
      sku: value(parts.sku) as string,
      ean13: value(parts.ean13),
      name: value(parts.name) as string,
      purchasePrice: value(parts.purchasePrice),
      stockQuantity: value(parts.stockQuantity),
      active: value(parts.active),
    },
  };
}
