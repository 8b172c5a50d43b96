// The rule language: which variables a condition can read, which operators fit them, and how a
// condition is evaluated against an order line. Pure: no database, no HTTP.
import type { RuleCondition } from "../db/schema";
import { allowedValues } from "../lib/validation";

export type VariableType = "text" | "number" | "boolean" | "any";

/** What a rule sees of an order and one of its lines. */
export type RoutingSubject = {
  order: {
    external_id: string;
    source: string;
    test: boolean;
    total: number;
    shipping_cost: number | null;
    email: string | null;
    shipping_address: Record<string, string | null>;
  };
  line: {
    external_id: string;
    ean13: string | null;
    name: string;
    reference: string | null;
    quantity: number;
    stock_quantity: number | null;
    price: number;
    purchase_price: number | null;
    brand: string | null;
    category: string | null;
    supplier: string | null;
    custom: Record<string, unknown> | null;
    height: number | null;
    width: number | null;
    length: number | null;
    weight: number | null;
  };
};

const ADDRESS_FIELDS = [
  "first_name",
  "last_name",
  "company_name",
  "address1",
  "address2",
  "postcode",
  "city",
  "state",
  "country",
  "phone",
] as const;

export const VARIABLES: Record<string, VariableType> = {
  "line.external_id": "text",
  "line.ean13": "text",
  "line.name": "text",
  "line.reference": "text",
  "line.quantity": "number",
  "line.stock_quantity": "number",
  "line.price": "number",
  "line.purchase_price": "number",
  "line.brand": "text",
  "line.category": "text",
  "line.supplier": "text",
  "line.height": "number",
  "line.width": "number",
  "line.length": "number",
  "line.weight": "number",
  "order.external_id": "text",
  "order.source": "text",
  "order.test": "boolean",
  "order.total": "number",
  "order.shipping_cost": "number",
  "order.email": "text",
  ...Object.fromEntries(ADDRESS_FIELDS.map((f) => [`order.shipping_address.${f}`, "text" as const])),
};

export const OPERATORS = [
  "is",
  "is_not",
  "contains",
  "does_not_contain",
  "begins_with",
  "ends_with",
  "greater_than",
  "smaller_than",
  "in_list",
  "not_in_list",
  "is_empty",
  "is_not_empty",
] as const;
export type Operator = (typeof OPERATORS)[number];

const FITS: Record<VariableType, readonly Operator[]> = {
  text: ["is", "is_not", "contains", "does_not_contain", "begins_with", "ends_with", "in_list", "not_in_list", "is_empty", "is_not_empty"],
  number: ["is", "is_not", "greater_than", "smaller_than", "in_list", "not_in_list", "is_empty", "is_not_empty"],
  boolean: ["is", "is_not"],
  any: OPERATORS,
};

const CUSTOM_KEY = /^line\.custom\.[A-Za-z0-9_\-.]{1,100}$/;

export function typeOf(variable: string): VariableType | undefined {
  if (CUSTOM_KEY.test(variable)) return "any";
  // Own keys only: a variable named "constructor" or "__proto__" must not find Object.prototype's members.
  return Object.hasOwn(VARIABLES, variable) ? VARIABLES[variable] : undefined;
}

/** Checks a condition on write; returns a message (with :attribute) or null when it is valid. */
export function checkCondition(c: RuleCondition): { field: "variable" | "operator" | "value"; message: string } | null {
  const type = typeOf(c.variable);
  if (!type) return { field: "variable", message: `The selected :attribute is invalid. ${allowedValues([...Object.keys(VARIABLES), "line.custom.<key>"])}` };
  if (!(OPERATORS as readonly string[]).includes(c.operator)) {
    return { field: "operator", message: `The selected :attribute is invalid. ${allowedValues(FITS[type])}` };
  }
  const op = c.operator as Operator;
  if (!FITS[type].includes(op)) {
    return { field: "operator", message: `The :attribute ${op} does not fit the ${type} variable ${c.variable}.` };
  }
  if (op === "is_empty" || op === "is_not_empty") return null;
  const v = c.value;
  if (op === "in_list" || op === "not_in_list") {
    const list = Array.isArray(v) ? v : typeof v === "string" ? v.split(",") : null;
    if (!list || list.length === 0 || list.length > 1000 || list.some((x) => typeof x !== "string" && typeof x !== "number")) {
      return { field: "value", message: "The :attribute field must be a non-empty list of strings or numbers." };
    }
    if (type === "number" && list.some((x) => !Number.isFinite(Number(x)))) {
      return { field: "value", message: "The :attribute field must list numbers." };
    }
    return null;
  }
  if (v === undefined || v === null || (typeof v === "string" && v === "")) {
    return { field: "value", message: "The :attribute field is required." };
  }
  if (type === "boolean" && typeof v !== "boolean") return { field: "value", message: "The :attribute field must be true or false." };
  if ((type === "number" || op === "greater_than" || op === "smaller_than") && !Number.isFinite(Number(v))) {
    return { field: "value", message: "The :attribute field must be a number." };
  }
  if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") {
    return { field: "value", message: "The :attribute field must be a string, number or boolean." };
  }
  if (typeof v === "string" && v.length > 1000) {
    return { field: "value", message: "The :attribute field must not be greater than 1000 characters." };
  }
  return null;
}

export function readVariable(subject: RoutingSubject, variable: string): unknown {
  if (variable.startsWith("line.custom.")) {
    let cur: unknown = subject.line.custom;
    for (const key of variable.slice("line.custom.".length).split(".")) {
      // The shop's own keys only: line.custom.constructor is absent unless the shop sent it.
      if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, key)) return undefined;
      cur = (cur as Record<string, unknown>)[key];
    }
    return cur;
  }
  const [scope, ...rest] = variable.split(".");
  let cur: unknown = scope === "line" ? subject.line : subject.order;
  for (const key of rest) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

const isEmpty = (v: unknown) => v === undefined || v === null || (typeof v === "string" && v.trim() === "");
const text = (v: unknown) => (v === undefined || v === null ? "" : String(v)).toLowerCase();
const num = (v: unknown) => (typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN);

/** Text comparisons are case-insensitive; numbers compare as numbers when both sides are numeric. */
function equals(actual: unknown, expected: unknown): boolean {
  if (typeof actual === "boolean" || typeof expected === "boolean") {
    return text(actual) === text(expected);
  }
  const a = num(actual);
  const e = num(expected);
  if (Number.isFinite(a) && Number.isFinite(e) && typeof actual === "number") return a === e;
  return text(actual) === text(expected);
}

export function evaluateCondition(subject: RoutingSubject, c: RuleCondition): boolean {
  const actual = readVariable(subject, c.variable);
  const expected = c.value;
  switch (c.operator as Operator) {
    case "is":
      return !isEmpty(actual) && equals(actual, expected);
    case "is_not":
      return isEmpty(actual) || !equals(actual, expected);
    case "contains":
      return !isEmpty(actual) && text(actual).includes(text(expected));
    case "does_not_contain":
      return isEmpty(actual) || !text(actual).includes(text(expected));
    case "begins_with":
      return !isEmpty(actual) && text(actual).startsWith(text(expected));
    case "ends_with":
      return !isEmpty(actual) && text(actual).endsWith(text(expected));
    case "greater_than":
      return Number.isFinite(num(actual)) && num(actual) > num(expected);
    case "smaller_than":
      return Number.isFinite(num(actual)) && num(actual) < num(expected);
    case "in_list":
      return !isEmpty(actual) && listOf(expected).some((x) => equals(actual, x));
    case "not_in_list":
      return isEmpty(actual) || !listOf(expected).some((x) => equals(actual, x));
    case "is_empty":
      return isEmpty(actual);
    case "is_not_empty":
      return !isEmpty(actual);
    default:
      return false;
  }
}

function listOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.map((x) => (typeof x === "string" ? x.trim() : x));
  if (typeof value === "string") return value.split(",").map((x) => x.trim());
  return [value];
}
