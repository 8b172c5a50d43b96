// Zod issues -> the 422 body of the original (Laravel) service, and the field builders
// that accept what the real webshop plugins send.
import { z } from "zod";
import { ApiError, type ValidationErrors } from "./errors";
import { AMBIGUOUS_DECIMAL_MESSAGE, MONEY_MAX, readDecimal, roundMoney } from "./money";

const isBlank = (v: unknown) => v === undefined || v === null || (typeof v === "string" && v.trim() === "");

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = input;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key as string];
  }
  return cur;
}

const TYPE_MESSAGES: Record<string, string> = {
  string: "The :attribute field must be a string.",
  number: "The :attribute field must be a number.",
  int: "The :attribute field must be an integer.",
  boolean: "The :attribute field must be true or false.",
  array: "The :attribute field must be an array.",
  object: "The :attribute field must be an object.",
  record: "The :attribute field must be an object.",
};

function messageFor(issue: z.core.$ZodIssue, raw: unknown): string {
  // A message the schema wrote itself (with :attribute) beats the generic wording for type, format
  // and custom issues. (A schema's `error` option also lands on its range issues: those keep theirs.)
  const own = issue.message.includes(":attribute");
  if (own && (issue.code === "custom" || issue.code === "invalid_format")) return issue.message;
  switch (issue.code) {
    case "invalid_type":
      if (isBlank(raw)) return "The :attribute field is required.";
      // A schema that names its own type message (integers: a string is "not an integer", not "not a number").
      if (issue.message.includes(":attribute")) return issue.message;
      return TYPE_MESSAGES[issue.expected] ?? "The :attribute field is invalid.";
    case "too_big": {
      const max = String(issue.maximum);
      if (issue.origin === "string") return `The :attribute field must not be greater than ${max} characters.`;
      if (issue.origin === "array") return `The :attribute field must not have more than ${max} items.`;
      return issue.inclusive === false
        ? `The :attribute field must be less than ${max}.`
        : `The :attribute field must not be greater than ${max}.`;
    }
    case "too_small": {
      const min = String(issue.minimum);
      if (issue.origin === "string") return `The :attribute field must be at least ${min} characters.`;
      if (issue.origin === "array") {
        return isBlank(raw) || (Array.isArray(raw) && raw.length === 0 && issue.minimum === 1)
          ? "The :attribute field is required."
          : `The :attribute field must have at least ${min} items.`;
      }
      return issue.inclusive === false
        ? `The :attribute field must be greater than ${min}.`
        : `The :attribute field must be at least ${min}.`;
    }
    case "invalid_format":
      if (issue.format === "email") return "The :attribute field must be a valid email address.";
      if (issue.format === "url") return "The :attribute field must be a valid URL.";
      return "The :attribute field format is invalid.";
    case "invalid_value":
      return `The selected :attribute is invalid. ${allowedValues(issue.values)}`;
    case "invalid_union": {
      // A discriminated union's tag (a rule's action.type): what it may be.
      const options = (issue as { options?: unknown[] }).options;
      if (!options) return "The :attribute field is invalid.";
      return isBlank(raw) ? "The :attribute field is required." : `The selected :attribute is invalid. ${allowedValues(options)}`;
    }
    default:
      return "The :attribute field is invalid.";
  }
}

/** The sentence that ends the 422 of an enumerated value: what it may be. */
export function allowedValues(values: readonly unknown[]): string {
  // Quoted when a value is punctuation (a CSV delimiter), so that the list stays readable.
  const plain = values.every((v) => /^[\w.<>:-]+$/.test(String(v)));
  return `Allowed values: ${values.map((v) => (plain ? String(v) : JSON.stringify(v))).join(", ")}.`;
}

/**
 * All issues at once, keyed by dotted path with zero-based indexes (products.0.external_id). The
 * console passes its fields' labels, so a form reads "The Account ID field is required." in the
 * API's own wording.
 */
export function toValidationErrors(error: z.ZodError, raw: unknown, labels: Record<string, string> = {}): ValidationErrors {
  const errors: ValidationErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.map(String).join(".") || "body";
    // :other names a second field (a custom issue's params.other: a sibling of the failing field, so
    // filter.date_from names filter.date_to), in its label too.
    const sibling = issue.code === "custom" && typeof issue.params?.other === "string" ? issue.params.other : null;
    const other = sibling === null ? null : [...issue.path.slice(0, -1).map(String), sibling].join(".");
    const message = messageFor(issue, valueAt(raw, issue.path))
      .replace(":attribute", labels[key] ?? key)
      .replace(":other", other ? (labels[other] ?? other) : ":other");
    const list = (errors[key] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return errors;
}

/** A form's fields checked by the API's schema: the data, or the errors in the fields' own labels. */
export function validateForm<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  labels: Record<string, string> = {},
): { ok: true; data: z.output<S> } | { ok: false; errors: ValidationErrors } {
  const result = schema.safeParse(raw);
  return result.success ? { ok: true, data: result.data } : { ok: false, errors: toValidationErrors(result.error, raw, labels) };
}

export function parseOrThrow<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw);
  if (!result.success) throw ApiError.validation(toValidationErrors(result.error, raw));
  return result.data;
}

// ---- Field builders -------------------------------------------------------
// Optional fields treat "" and null as absent (WooCommerce sends "brand": "", "supplier": null).

const blankToUndefined = (v: unknown) => (isBlank(v) ? undefined : v);

/** PHP plugins encode an empty associative array as [] (json_encode(array())): an absent object. */
export const emptyObjectToUndefined = (v: unknown) =>
  isBlank(v) || (Array.isArray(v) && v.length === 0) ? undefined : v;

/** A string; numbers are accepted and kept as their digits (ids, EANs, phones). */
const stringish = (v: unknown) => {
  if (isBlank(v)) return undefined;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return typeof v === "string" ? v.trim() : v;
};

/**
 * A decimal as a shop or a feed sends it (src/lib/money.ts, readDecimal: one separator rule):
 * the number, undefined when blank, AMBIGUOUS for digit groups that could be thousands or
 * decimals ("1,234"), or the value itself when it is not a decimal at all (the schema refuses it).
 */
export const AMBIGUOUS: unique symbol = Symbol("ambiguous decimal");
export function parseDecimal(v: unknown, round: (n: number) => number = (n) => n): unknown {
  if (typeof v !== "string" && typeof v !== "number") return v;
  if (typeof v === "string" && v.trim() === "") return undefined;
  const reading = readDecimal(v);
  if (reading.ok) {
    const n = Number(reading.text);
    return Number.isFinite(n) ? round(n) : v;
  }
  return reading.ambiguous ? AMBIGUOUS : v;
}

/** The preprocess of a decimal field: AMBIGUOUS becomes its own 422 message. */
const decimalInput =
  (round?: (n: number) => number) =>
  (v: unknown, ctx: z.RefinementCtx): unknown => {
    const parsed = blankToUndefined(parseDecimal(v, round));
    if (parsed === AMBIGUOUS) {
      ctx.addIssue({ code: "custom", message: AMBIGUOUS_DECIMAL_MESSAGE });
      return z.NEVER;
    }
    return parsed;
  };

/** An amount of money: rounded half away from zero to 4 decimals, the stored scale (src/lib/money.ts). */
const moneyRound = (n: number) => (Math.abs(n) > MONEY_MAX * 10 ? n : roundMoney(n));

const integerish = (v: unknown) => {
  if (typeof v === "string" && /^\s*[-+]?\d+(\.0+)?\s*$/.test(v)) return Number(v);
  return blankToUndefined(v);
};

const booleanish = (v: unknown) => {
  if (v === 1 || v === "1" || v === "true" || v === "TRUE" || v === "on" || v === "yes") return true;
  if (v === 0 || v === "0" || v === "false" || v === "FALSE" || v === "off" || v === "no") return false;
  return blankToUndefined(v);
};

const integer = () => z.number({ error: TYPE_MESSAGES.int }).int();

type Range = { min?: number; max?: number };
const ranged = (schema: z.ZodNumber, { min, max }: Range) => {
  let out = schema;
  if (min !== undefined) out = out.min(min);
  if (max !== undefined) out = out.max(max);
  return out;
};

/**
 * An http(s) URL a person could follow: the scheme spelled out with its two slashes, a host, no
 * user or password before it (https://postnl.nl@elsewhere.example), no blank or control character
 * anywhere; never javascript:, data: or a URL a browser would read differently than it looks.
 */
export function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\/[^/?#\\]/i.test(value) || /[\s\u0000-\u001f\u007f]/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "" && url.username === "" && url.password === "";
  } catch {
    return false;
  }
}

export const HTTP_URL_MESSAGE = "The :attribute field must be a valid http(s) URL.";
// C0 and C1 control characters (NUL, ESC, DEL…): no id, SKU or code holds one, and a stored NUL
// cuts the value short in tools that read it as a C string.
const CONTROL_CHARACTER = /\p{Cc}/u;

/** The first control character of an identifier, as U+XXXX; null when it holds none. */
export function controlCharacterIn(value: string): string | null {
  const found = CONTROL_CHARACTER.exec(value)?.[0];
  return found === undefined ? null : `U+${found.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
}

export const CONTROL_CHARACTER_MESSAGE = (field: string, code: string) =>
  `The ${field} field must not contain control characters (it holds ${code}).`;

const noControlCharacters = (value: string, ctx: z.RefinementCtx) => {
  const code = controlCharacterIn(value);
  if (code !== null) ctx.addIssue({ code: "custom", message: CONTROL_CHARACTER_MESSAGE(":attribute", code) });
};

export const field = {
  text: (max: number) => z.preprocess(stringish, z.string().max(max)),
  optionalText: (max: number) => z.preprocess(stringish, z.string().max(max).optional()),
  /** An http(s) URL (isHttpUrl) of at most `max` characters; "" and null are absent. */
  optionalHttpUrl: (max: number) =>
    z.preprocess(
      stringish,
      z
        .string()
        .max(max)
        // Judged only within its length: one past it is told that, not two things at once.
        .refine((v) => v.length > max || isHttpUrl(v), HTTP_URL_MESSAGE)
        .optional(),
    ),
  /** An identifier (an external id, SKU, EAN, code): text without control characters. */
  id: (max: number) => z.preprocess(stringish, z.string().max(max).superRefine(noControlCharacters)),
  optionalId: (max: number) => z.preprocess(stringish, z.string().max(max).superRefine(noControlCharacters).optional()),
  number: (range: Range = {}) => z.preprocess(decimalInput(), ranged(z.number(), range)),
  optionalNumber: (range: Range = {}) => z.preprocess(decimalInput(), ranged(z.number(), range).optional()),
  money: (range: Range = {}) => z.preprocess(decimalInput(moneyRound), ranged(z.number(), range)),
  optionalMoney: (range: Range = {}) => z.preprocess(decimalInput(moneyRound), ranged(z.number(), range).optional()),
  int: (range: Range = {}) => z.preprocess(integerish, ranged(integer(), range)),
  optionalInt: (range: Range = {}) => z.preprocess(integerish, ranged(integer(), range).optional()),
  optionalBoolean: () => z.preprocess(booleanish, z.boolean().optional()),
};

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * A JSON object of key-value pairs, bounded in size and depth, kept exactly as sent: every key is
 * data, "__proto__" and "constructor" included (zod's record would drop a "__proto__" key).
 */
export function jsonObject(maxBytes: number, maxDepth: number) {
  return z.preprocess(
    emptyObjectToUndefined,
    z
      .unknown()
      .openapi({ type: ["object", "null"], additionalProperties: {} })
      .superRefine((value, ctx) => {
        if (value === undefined) return;
        if (!isPlainObject(value)) {
          ctx.addIssue({ code: "custom", message: TYPE_MESSAGES.object });
        } else if (depthOf(value, maxDepth) > maxDepth) {
          ctx.addIssue({ code: "custom", message: `The :attribute field must not be nested more than ${maxDepth} levels deep.` });
        } else if (new TextEncoder().encode(JSON.stringify(value)).byteLength > maxBytes) {
          ctx.addIssue({ code: "custom", message: `The :attribute field must not be larger than ${maxBytes / 1024} kilobytes.` });
        }
      })
      .transform((value) => value as Record<string, unknown> | undefined),
  );
}

/** Nesting depth, looking no deeper than one level past `cap` (a hostile value may nest 100k deep). */
function depthOf(value: unknown, cap: number, depth = 1): number {
  if (value === null || typeof value !== "object") return depth - 1;
  if (depth > cap) return depth;
  let max = depth;
  for (const child of Object.values(value)) {
    if (child !== null && typeof child === "object") max = Math.max(max, depthOf(child, cap, depth + 1));
    if (max > cap) break;
  }
  return max;
}
