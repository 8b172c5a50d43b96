// The order contract: what a shop may send (with the leniency real plugins need) and what it reads back.
import { z } from "@hono/zod-openapi";
import { LINE_STATUSES } from "../db/schema";
import { toCountryCode } from "../lib/countries";
import { isCalendarDate, parseIsoFilter } from "../lib/time";
import { perPageParam, resourcePageOf } from "../lib/params";
import { decimalToUnits, MONEY_MAX } from "../lib/money";
import { allowedValues, emptyObjectToUndefined, field, jsonObject } from "../lib/validation";

export const LIMITS = {
  maxLines: 500,
  customBytes: 16 * 1024,
  customDepth: 5,
  // Exact to 4 decimals (src/lib/money.ts); the maximum keeps every amount exact in JS.
  money: { min: 0, max: MONEY_MAX },
  // Height, width, length and weight of a line's product, in the shop's own units.
  dimension: { min: 0, max: 1_000_000 },
} as const;

const custom = () => jsonObject(LIMITS.customBytes, LIMITS.customDepth);

const COUNTRY_MESSAGE =
  "The selected :attribute is invalid. Send an ISO 3166-1 code (NL, NLD) or the country's name; a name that could mean two countries (Congo, Korea) needs its qualifier.";

const country = z.preprocess(
  (v) => (typeof v === "string" ? v.trim() || undefined : v ?? undefined),
  z
    .string()
    .max(100)
    .transform((value, ctx) => {
      const code = toCountryCode(value);
      if (!code) {
        ctx.addIssue({ code: "custom", message: COUNTRY_MESSAGE });
        return z.NEVER;
      }
      return code;
    }),
);

/**
 * PrestaShop's Spanish install data names the United Kingdom "RU" (CLDR's short form), which is
 * Russia's ISO code. A Russian postcode is six digits; with a UK postcode "RU" is the United Kingdom.
 */
const UK_POSTCODE = /^[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}$/i;
const ukNamedRu = (v: unknown) => {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
  const { country, postcode } = v as Record<string, unknown>;
  const ru = typeof country === "string" && country.trim().toUpperCase() === "RU";
  return ru && typeof postcode === "string" && UK_POSTCODE.test(postcode.trim()) ? { ...v, country: "GB" } : v;
};

/** DD-MM-YYYY as the spec sends it (YYYY-MM-DD is accepted too); read back as YYYY-MM-DD. */
const deliveryDate = z.preprocess(
  (v) => (v === "" || v === null ? undefined : v),
  z
    .string()
    .transform((value, ctx) => {
      const v = value.trim();
      let ymd: string | null = null;
      const dmy = /^(\d{2})[-/.](\d{2})[-/.](\d{4})$/.exec(v);
      if (dmy) ymd = `${dmy[3]}-${dmy[2]}-${dmy[1]}`;
      else if (/^\d{4}-\d{2}-\d{2}$/.test(v)) ymd = v;
      if (!ymd || !isCalendarDate(ymd)) {
        ctx.addIssue({ code: "custom", message: "The :attribute field must be a valid date in the format DD-MM-YYYY." });
        return z.NEVER;
      }
      return ymd;
    })
    .optional(),
);

const email = z.preprocess(
  (v) => (v === "" || v === null ? undefined : typeof v === "string" ? v.trim() : v),
  z.email().max(255).optional(),
);

export const CreateOrderLine = z.object({
  external_id: field.text(255),
  ean13: field.optionalText(64),
  name: field.text(1000),
  reference: field.optionalText(255),
  quantity: field.int({ min: 1, max: 1_000_000 }),
  stock_quantity: field.optionalInt({ min: -1e9, max: 1e9 }),
  price: field.money(LIMITS.money),
  purchase_price: field.optionalMoney(LIMITS.money),
  image_url: field.optionalText(2048),
  brand: field.optionalText(255),
  category: field.optionalText(255),
  supplier: field.optionalText(255),
  custom: custom(),
  height: field.optionalNumber(LIMITS.dimension),
  width: field.optionalNumber(LIMITS.dimension),
  length: field.optionalNumber(LIMITS.dimension),
  weight: field.optionalNumber(LIMITS.dimension),
});

export const CreateOrderBody = z
  .object({
    external_id: field.text(255),
    source: field.text(255),
    test: field.optionalBoolean(),
    total: field.money(LIMITS.money),
    // Sent by WooCommerce next to (or instead of) shipping.cost; shipping.cost wins when both are there.
    shipping_cost: field.optionalMoney(LIMITS.money),
    shipping: z
      .preprocess(
        emptyObjectToUndefined,
        z
          .object({
            name: field.optionalText(255),
            description: field.optionalText(1000),
            cost: field.optionalMoney(LIMITS.money),
            note: field.optionalText(2000),
            delivery_date: deliveryDate,
          })
          .optional(),
      ),
    email,
    shipping_address: z.preprocess(ukNamedRu, z.object({
      first_name: field.text(255),
      last_name: field.text(255),
      company_name: field.optionalText(255),
      address1: field.text(255),
      address2: field.optionalText(255),
      postcode: field.text(32),
      city: field.text(255),
      state: field.optionalText(255),
      country,
      phone: field.optionalText(64),
      // Some plugins put the e-mail in the address; the top-level email wins.
      email,
    })),
    products: z.array(CreateOrderLine).min(1).max(LIMITS.maxLines),
    custom: custom(),
  })
  .openapi("CreateOrderRequest");

export type CreateOrderInput = z.output<typeof CreateOrderBody>;

export const CreateOrderResponse = z
  .object({
    message: z.enum(["Order created", "Order already exists"]),
    reference: z.number().int().openapi({ example: 4812039475610234 }),
  })
  .openapi("CreateOrderResponse");

// ---- Read model -----------------------------------------------------------

export const Supplier = z.object({ id: z.number().int(), name: z.string() }).openapi("Supplier");

export const LogEntry = z
  .object({ id: z.number().int(), status: z.enum(LINE_STATUSES), message: z.string(), created_at: z.string() })
  .openapi("LogEntry");

const orderLineFields = {
  id: z.number().int(),
  external_id: z.string(),
  name: z.string(),
  ean13: z.string().nullable(),
  reference: z.string().nullable(),
  quantity: z.number().int(),
  stock_quantity: z.number().int().nullable(),
  price: z.number(),
  purchase_price: z.number().nullable(),
  brand: z.string().nullable(),
  category: z.string().nullable(),
  image_url: z.string().nullable(),
  custom: z.record(z.string(), z.unknown()).nullable(),
  current_status: z.enum(LINE_STATUSES),
  matched_supplier: Supplier.nullable(),
  // Beyond the spec, after its fields (extra fields break no client).
  height: z.number().nullable().openapi({ description: "The product's height as the shop sent it, in the shop's unit" }),
  width: z.number().nullable(),
  length: z.number().nullable(),
  weight: z.number().nullable().openapi({ description: "The product's weight as the shop sent it, in the shop's unit" }),
};

export const OrderLine = z.object(orderLineFields).openapi("OrderLine");
export const OrderLineWithLogs = z.object({ ...orderLineFields, logs: z.array(LogEntry) }).openapi("OrderLineWithLogs");

const orderFields = {
  id: z.number().int(),
  external_id: z.string(),
  reference: z.string(),
  source: z.string(),
  test: z.boolean(),
  blocked: z.boolean(),
  total: z.number(),
  shipping_address: z.object({
    email: z.string().nullable(),
    first_name: z.string(),
    last_name: z.string(),
    company_name: z.string().nullable(),
    phone: z.string().nullable(),
    address1: z.string(),
    address2: z.string().nullable(),
    city: z.string(),
    postcode: z.string(),
    state: z.string().nullable(),
    country: z.string().openapi({ description: "ISO 3166-1 alpha-2", example: "NL" }),
  }),
  shipping: z.object({
    cost: z.number().nullable(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    note: z.string().nullable(),
    delivery_date: z.string().nullable().openapi({ example: "2026-11-30" }),
  }),
  custom: z.record(z.string(), z.unknown()).nullable(),
  suppliers: z.array(Supplier),
  created_at: z.string(),
  updated_at: z.string(),
};

export const OrderSummary = z.object({ ...orderFields, order_lines: z.array(OrderLine) }).openapi("Order");
export const OrderDetail = z.object({ ...orderFields, order_lines: z.array(OrderLineWithLogs) }).openapi("OrderWithLogs");

const booleanParam = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === "") return undefined;
    const s = v.toLowerCase();
    if (s === "true" || s === "1") return true;
    if (s === "false" || s === "0") return false;
    ctx.addIssue({ code: "custom", message: "The :attribute field must be true or false." });
    return z.NEVER;
  });

/** A date alone means that whole UTC day: the start of it for lower bounds, the end for date_to. */
const dateParam = (endOfDay: boolean) =>
  z
    .string()
    .optional()
    .openapi({ description: "ISO 8601 date or date-time", example: "2026-11-01T00:00:00Z" })
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === "") return undefined;
      const iso = parseIsoFilter(v, endOfDay);
      if (!iso) {
        ctx.addIssue({ code: "custom", message: "The :attribute field must be a valid ISO 8601 date." });
        return z.NEVER;
      }
      return iso;
    });

/**
 * An amount filter, as the stored units (ten-thousandths): a lower bound rounds up and an upper
 * bound down, so that the comparison is exact (total_min=10.00001 does not match 10).
 */
const amountParam = (bound: "ceil" | "floor") =>
  z
    .string()
    .optional()
    .openapi({ type: "string", example: "49.95" })
    .transform((v, ctx) => {
      if (v === undefined || v === "") return undefined;
      const units = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)\s*$/.test(v) ? decimalToUnits(v.trim(), bound) : null;
      if (units === null) {
        ctx.addIssue({ code: "custom", message: "The :attribute field must be a number." });
        return z.NEVER;
      }
      return units;
    });

const listParam = <T extends string>(allowed?: readonly T[]) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === "") return undefined;
      const items = [...new Set(v.split(",").map((s) => s.trim()).filter(Boolean))];
      if (items.length === 0 || items.length > 100) {
        ctx.addIssue({ code: "custom", message: "The :attribute field must list between 1 and 100 values." });
        return z.NEVER;
      }
      if (allowed && items.some((s) => !allowed.includes(s as T))) {
        ctx.addIssue({ code: "custom", message: `The selected :attribute is invalid. ${allowedValues(allowed)}` });
        return z.NEVER;
      }
      if (!allowed && items.some((s) => !/^\d{1,15}$/.test(s))) {
        ctx.addIssue({ code: "custom", message: "The :attribute field must be a comma-separated list of ids." });
        return z.NEVER;
      }
      return items as T[];
    });

export const ListOrdersQuery = z.object({
  external_id: z.string().max(255).optional(),
  source: z
    .string()
    .max(255)
    .optional()
    .openapi({ description: "Orders whose source is exactly this, ignoring ASCII case (as the Laravel client's MySQL compares)" }),
  date_from: dateParam(false),
  date_to: dateParam(true),
  completed_since: dateParam(false),
  statuses: listParam(LINE_STATUSES).openapi({ example: "pending,ruled" }),
  supplier_ids: listParam().openapi({ example: "1,2" }),
  total_min: amountParam("ceil"),
  total_max: amountParam("floor"),
  blocked: booleanParam,
  include_test: booleanParam,
  per_page: perPageParam,
  page: z.string().optional(),
});

export type ListOrdersFilters = z.output<typeof ListOrdersQuery>;

export const OrderPage = resourcePageOf(OrderSummary, "OrderPage");
