// The order contract: what a shop may send (with the leniency real plugins need) and what it reads back.
import { z } from "@hono/zod-openapi";
import { LINE_STATUSES } from "../db/schema";
import { toCountryCode } from "../lib/countries";
import { isCalendarDate, parseIsoFilter } from "../lib/time";
import { pageQueryParam, perPageParam, resourcePageOf } from "../lib/params";
import { decimalToUnits, MONEY_MAX } from "../lib/money";
import { currencyCode } from "../lib/currency";
import { allowedValues, emptyObjectToUndefined, field, jsonObject } from "../lib/validation";
import { searchKey } from "./search-key";

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

const MONEY =
  'A number, or decimal text as shop plugins send it: "24.95", "1,234.50", "1.234,50" or "24,95" (a decimal comma); text that could ' +
  'be thousands or decimals ("1,234") is refused. 0 to 99,999,999,999.9999, rounded to 4 decimals.';
const DIMENSION = "in the shop's own unit (not converted), 0 to 1,000,000; a rule variable, and sent to the supplier.";

export const CreateOrderLine = z.object({
  external_id: field.id(255).openapi({ description: "The product's id in the shop (a number is read as its digits). Required." }),
  ean13: field.optionalId(64).openapi({ description: "The product's EAN/GTIN. Send it as a string to keep leading zeros; the catalogue matches on it first." }),
  name: field.text(1000).openapi({ description: "The product's name, up to 1000 characters. Required." }),
  reference: field.optionalId(255).openapi({ description: "The product's SKU: the catalogue matches on it when no product has the line's EAN." }),
  quantity: field.int({ min: 1, max: 1_000_000 }).openapi({ description: "How many: a whole number from 1 to 1,000,000. Required." }),
  stock_quantity: field.optionalInt({ min: -1e9, max: 1e9 }).openapi({ description: "The shop's own stock of the product (an integer, may be negative); a rule variable." }),
  price: field.money(LIMITS.money).openapi({ description: `The selling price per unit; never sent to suppliers. Required. ${MONEY}` }),
  purchase_price: field.optionalMoney(LIMITS.money).openapi({ description: `The purchase price per unit, the price the supplier's document shows. ${MONEY}` }),
  image_url: field.optionalText(2048).openapi({ description: "A picture of the product, up to 2048 characters." }),
  brand: field.optionalText(255).openapi({ description: "The product's brand; a rule variable (line.brand)." }),
  category: field.optionalText(255).openapi({ description: "The product's category; a rule variable (line.category)." }),
  supplier: field.optionalId(255).openapi({
    description: "The supplier as the shop knows it: a line no rule or catalogue product matches goes to the active supplier with this name or code.",
  }),
  custom: custom().openapi({ description: "Extra key-value pairs of the line (a JSON object, at most 16 KiB and 5 levels deep); rules read them as line.custom.<key>." }),
  height: field.optionalNumber(LIMITS.dimension).openapi({ description: `The product's height, ${DIMENSION}` }),
  width: field.optionalNumber(LIMITS.dimension).openapi({ description: `The product's width, ${DIMENSION}` }),
  length: field.optionalNumber(LIMITS.dimension).openapi({ description: `The product's length (depth), ${DIMENSION}` }),
  weight: field.optionalNumber(LIMITS.dimension).openapi({ description: `The product's weight, ${DIMENSION}` }),
});

/** A realistic order that succeeds as is: what the docs' "Try it out" sends. */
export const ORDER_EXAMPLE = {
  external_id: "WC-1001",
  source: "My Shop",
  total: "54.85",
  email: "jan.jansen@example.com",
  shipping: { name: "PostNL", description: "Standard delivery", cost: "4.95", note: "Ring twice", delivery_date: "15-12-2026" },
  shipping_address: {
    first_name: "Jan",
    last_name: "Jansen",
    company_name: "",
    address1: "Damrak 1",
    postcode: "1012 LG",
    city: "Amsterdam",
    country: "Netherlands",
    phone: "0612345678",
  },
  products: [
    {
      external_id: "42",
      ean13: "8712345678906",
      name: "Garden chair",
      reference: "100-01",
      quantity: 2,
      price: "24.95",
      purchase_price: 12.5,
      brand: "Tuinhout",
      category: "tuin",
      weight: 7.5,
    },
  ],
  custom: { payment_method: "ideal" },
};

export const CreateOrderBody = z
  .object({
    external_id: field.id(255).openapi({
      description:
        "The order's id in the shop, up to 255 characters. Orders are idempotent per account on it: the same external_id again " +
        "answers \"Order already exists\" with the first order's reference and changes nothing. Required.",
    }),
    source: field.id(255).openapi({ description: "The shop the order comes from (its name or URL); the order list filters on it. Required." }),
    test: field.optionalBoolean().openapi({
      description:
        "true for a test order: matched like a real one, but nothing reaches a supplier (a dry run), and the order list leaves it out " +
        "unless include_test=true. true/false, 1/0 or \"true\"/\"false\".",
    }),
    total: field.money(LIMITS.money).openapi({ description: `The order's total as the shop charged it. Required. ${MONEY}` }),
    currency: currencyCode.openapi({
      description:
        "The ISO 4217 code of the order's amounts (EUR, USD; any case, read back in capitals). Optional: without it the order's amounts " +
        "are in the account's currency (GET /settings), and the order reads back without the field.",
      example: "EUR",
    }),
    // Sent by WooCommerce next to (or instead of) shipping.cost; shipping.cost wins when both are there.
    shipping_cost: field.optionalMoney(LIMITS.money).openapi({ description: `The shipping cost, used when shipping.cost is absent (WooCommerce sends it here). ${MONEY}` }),
    shipping: z
      .preprocess(
        emptyObjectToUndefined,
        z
          .object({
            name: field.optionalText(255).openapi({ description: "The shipping method or carrier, e.g. PostNL." }),
            description: field.optionalText(1000).openapi({ description: "The shipping method's description, up to 1000 characters." }),
            cost: field.optionalMoney(LIMITS.money).openapi({ description: `The shipping cost; wins over the top-level shipping_cost. ${MONEY}` }),
            note: field.optionalText(2000).openapi({ description: "The customer's delivery note, passed on to the supplier; up to 2000 characters." }),
            delivery_date: deliveryDate.openapi({
              description:
                "The requested delivery date as DD-MM-YYYY (also DD/MM/YYYY, DD.MM.YYYY or YYYY-MM-DD), a real calendar date; reads back as YYYY-MM-DD.",
            }),
          })
          .optional(),
      )
      .openapi({ description: "How the order ships. Optional; PHP's empty [] counts as absent." }),
    email: email.openapi({ description: "The customer's e-mail address; shipping_address.email is used when it is absent." }),
    shipping_address: z
      .preprocess(
        ukNamedRu,
        z.object({
          first_name: field.text(255).openapi({ description: "The recipient's first name. Required." }),
          last_name: field.text(255).openapi({ description: "The recipient's last name. Required." }),
          company_name: field.optionalText(255).openapi({ description: "The recipient's company, if any (\"\" and null mean none)." }),
          address1: field.text(255).openapi({ description: "Street and house number. Required." }),
          address2: field.optionalText(255).openapi({ description: "A second address line, if any." }),
          postcode: field.text(32).openapi({ description: "The postcode, up to 32 characters. Required." }),
          city: field.text(255).openapi({ description: "The city. Required." }),
          state: field.optionalText(255).openapi({ description: "The state or province, if any." }),
          country: country.openapi({
            description:
              "The country: an ISO 3166-1 alpha-2 or alpha-3 code (NL, NLD; UK reads as GB), or its name as shop plugins send it, in " +
              "English or the shop's language (\"Netherlands\", \"Nederland\", \"Cura&ccedil;ao\"). Read back as the alpha-2 code; a name " +
              "that could mean two countries (\"Congo\") is refused. Required.",
          }),
          phone: field.optionalText(64).openapi({ description: "The recipient's phone number, as a string or a number." }),
          // Some plugins put the e-mail in the address; the top-level email wins.
          email: email.openapi({ description: "The recipient's e-mail address; the top-level email wins." }),
        }),
      )
      .openapi({ description: "Where the supplier ships the order. Required." }),
    products: z
      .array(CreateOrderLine)
      .min(1)
      .max(LIMITS.maxLines)
      .openapi({ description: "The order lines, 1 to 500. Each starts pending and is matched to a supplier after the answer. Required." }),
    custom: custom().openapi({ description: "Extra key-value pairs of the order (a JSON object, at most 16 KiB and 5 levels deep), read back as sent." }),
  })
  .openapi("CreateOrderRequest", { example: ORDER_EXAMPLE });

export type CreateOrderInput = z.output<typeof CreateOrderBody>;

/** The {reference} of the order routes. */
export const referenceParam = z
  .string()
  .openapi({ example: "4812039475610234", description: "The order's reference: the 16 digits POST /api/v1/orders answered." });

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
  split_from_line_id: z.number().int().nullable().openapi({
    description:
      "Set on a line split off another mid-life: the remainder of a partial confirmation routed to another supplier, or a cancelled " +
      "quantity (skipped). Same external_id, product and prices as the line it came from; the quantities of both sum to what was ordered.",
  }),
};

export const OrderLine = z.object(orderLineFields).openapi("OrderLine");
const InvoiceChargeJson = z
  .object({
    type: z.enum(["allowance", "charge"]).openapi({ description: "SAC01: A allowance (taken off) or C charge (added)" }),
    code: z.string().openapi({ description: "SAC02, e.g. D240 freight, C310 discount" }),
    amount: z.number().openapi({ description: "SAC05, in the invoice's currency; reckoned from `percent` or `rate` when the supplier gave only those" }),
    description: z.string().nullable().openapi({ description: "SAC15" }),
    percent: z.number().optional().openapi({ description: "SAC07, only when the supplier gave the charge as a percent (of its line's amount, or of all lines' for the whole invoice) and no SAC05" }),
    rate: z.number().optional().openapi({ description: "SAC08, only when the supplier gave the charge as a rate per unit (times its line's quantity, or all lines') and neither SAC05 nor SAC07" }),
    handling: z.string().optional().openapi({ description: "SAC12, only when the charge is not part of the invoice's total (e.g. 13 information only, 04 credited to the account)" }),
  })
  .openapi("SupplierInvoiceCharge");

export const OrderLineWithLogs = z
  .object({
    ...orderLineFields,
    cancellation: z
      .object({ id: z.number().int(), quantity: z.number().int(), supplier_id: z.number().int(), requested_at: z.string() })
      .nullable()
      .openapi({ description: "A cancellation of the line that waits for its supplier's answer (GET /orders/{reference}/cancellations has them all)" }),
    supplier_invoice: z
      .object({
        invoice_number: z.string(),
        quantity: z.number().int(),
        unit_price: z.number(),
        expected_unit_price: z.number().nullable().openapi({ description: "The line's purchase_price when the invoice came (null: none was known)" }),
        difference: z.number().nullable().openapi({ description: "unit_price minus expected_unit_price (null without an expected price, or when the invoice is in another currency than the order)" }),
        invoiced_at: z.string(),
        currency: z.string().optional().openapi({ description: "The invoice's currency (its CUR02), only when it names one" }),
        charges: z.array(InvoiceChargeJson).optional().openapi({ description: "The line's allowances and charges (SAC within its IT1), only when there are any" }),
        invoice_charges: z.array(InvoiceChargeJson).optional().openapi({ description: "The whole invoice's allowances and charges (SAC in its summary: freight, …), only when there are any" }),
      })
      .optional()
      .openapi({ description: "Only on a line the supplier invoiced (an X12 810, docs/edi.md): its newest invoice of the line, beside the price we expected" }),
    logs: z.array(LogEntry),
  })
  .openapi("OrderLineWithLogs");

const orderFields = {
  id: z.number().int(),
  external_id: z.string(),
  reference: z.string(),
  source: z.string(),
  test: z.boolean(),
  blocked: z.boolean(),
  total: z.number(),
  currency: z.string().optional().openapi({ description: "ISO 4217; only on an order created with a currency of its own", example: "EUR" }),
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

/** A created range that ends before it starts matches nothing: refused, beside date_from (Laravel's before_or_equal). */
export function createdRangeInOrder(q: { date_from?: string; date_to?: string }, ctx: z.RefinementCtx) {
  if (q.date_from !== undefined && q.date_to !== undefined && q.date_from > q.date_to) {
    ctx.addIssue({ code: "custom", path: ["date_from"], message: "The :attribute field must be a date before or equal to :other.", params: { other: "date_to" } });
  }
}

/** `q`: at most this many characters as sent (what a search key holds: docs/api.md, "q"). */
export const SEARCH_MAX = 255;

/** The sorts of the order list: newest first unless asked. */
export const ORDER_SORTS = ["-created_at", "created_at", "-total", "total"] as const;

const searchParam = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined) return undefined;
    if ([...v].length > SEARCH_MAX) {
      ctx.addIssue({ code: "custom", message: `The :attribute field must not be greater than ${SEARCH_MAX} characters.` });
      return z.NEVER;
    }
    // Nothing but spaces is no search, as an empty filter is none.
    const key = searchKey(v);
    return key === "" ? undefined : key;
  });

const sortParam = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === "") return undefined;
    if (!(ORDER_SORTS as readonly string[]).includes(v)) {
      ctx.addIssue({ code: "custom", message: `The selected :attribute is invalid. ${allowedValues(ORDER_SORTS)}` });
      return z.NEVER;
    }
    return { by: v.endsWith("total") ? ("total" as const) : ("created" as const), descending: v.startsWith("-") };
  });

/** The list's filters as fields, before the checks across them (the bulk action's filter leaves out the paging). */
export const ListOrdersFields = z.object({
  q: searchParam.openapi({
    description:
      `Orders whose reference, external_id, customer's first name, last name, first and last name, company name, e-mail, postcode, or Shopify order name (#1001 or 1001) is ` +
      `exactly this, ignoring spaces and the case of ASCII letters (e-mail addresses: the whole address). Up to ${SEARCH_MAX} characters.`,
  }),
  sort: sortParam.openapi({
    description: "The list's order: -created_at (newest first, the default), created_at (oldest first), -total (largest first) or total; ties by creation, then id.",
  }),
  external_id: z
    .string()
    .max(255)
    .optional()
    .openapi({ description: "Orders whose external_id contains this text (% and _ are taken literally)." }),
  source: z
    .string()
    .max(255)
    .optional()
    .openapi({ description: "Orders whose source is exactly this, ignoring ASCII case (as the Laravel client's MySQL compares)." }),
  date_from: dateParam(false).openapi({ description: "Orders created at or after this ISO 8601 date or date-time; a date alone means the start of that UTC day." }),
  date_to: dateParam(true).openapi({ description: "Orders created at or before this ISO 8601 date or date-time; a date alone means the end of that UTC day." }),
  completed_since: dateParam(false).openapi({
    description: "Orders completed (no line pending, ruled or failed any more) at or after this ISO 8601 date or date-time.",
  }),
  statuses: listParam(LINE_STATUSES).openapi({
    description: `Comma-separated line statuses (${LINE_STATUSES.join(", ")}): orders with at least one line in one of them.`,
  }),
  supplier_ids: listParam().openapi({ description: "Comma-separated supplier ids, up to 100: orders with a line matched to one of them." }),
  shipping: z
    .enum(["not_shipped"])
    .optional()
    .openapi({
      description:
        "An extension of the contract: not_shipped lists orders not yet shipped in full, those with a line that is not cancelled (skipped) and whose shipments hold less than its quantity.",
    }),
  total_min: amountParam("ceil").openapi({ description: "Orders whose total is at least this amount (a plain decimal such as 49.95), compared exactly." }),
  total_max: amountParam("floor").openapi({ description: "Orders whose total is at most this amount (a plain decimal such as 49.95), compared exactly." }),
  blocked: booleanParam.openapi({ description: "true: only blocked orders; false: only orders that are not blocked; absent: both." }),
  include_test: booleanParam.openapi({ description: "true also lists test orders; by default they are left out.", default: "false" }),
  per_page: perPageParam,
  page: pageQueryParam,
});

export const ARCHIVED_CHOICES = ["exclude", "include", "only"] as const;

/** Filters the archive's stubs cannot answer (docs/archive.md, "Lists"): with archived=only or include they are a 422. */
export const NOT_IN_ARCHIVE = ["supplier_ids", "shipping", "completed_since"] as const;

/** archived: exclude (absent), include or only (docs/archive.md, "Lists"). */
const archivedParam = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === "" || v === "exclude") return undefined;
    if (v === "only" || v === "include") return v;
    ctx.addIssue({ code: "custom", message: `The selected :attribute is invalid. ${allowedValues(ARCHIVED_CHOICES)}` });
    return z.NEVER;
  })
  .openapi({
    description:
      "exclude (the default): live orders only; include: live and archived orders in one list; only: archived orders only (docs/archive.md). " +
      "Archived orders are read from their stubs and shown as the list showed them, with archived: true. With include or only, q matches an " +
      "archived order by its reference, external_id or e-mail address whole, or the start of its e-mail address, and supplier_ids, shipping " +
      "and completed_since are a 422.",
  });

/** With archived orders asked for, the filters the stubs cannot answer are a 422 naming each. */
function archivedFiltersOnly(f: { archived?: "only" | "include" } & Partial<Record<(typeof NOT_IN_ARCHIVE)[number], unknown>>, ctx: z.RefinementCtx) {
  if (f.archived === undefined) return;
  for (const name of NOT_IN_ARCHIVE) {
    if (f[name] !== undefined) ctx.addIssue({ code: "custom", path: [name], message: `The :attribute field cannot filter archived orders (archived=${f.archived}).` });
  }
}

export const ListOrdersQuery = ListOrdersFields.extend({ archived: archivedParam }).superRefine(createdRangeInOrder).superRefine(archivedFiltersOnly);

/** The list's filters (archived=only and include are answered by src/archive/list.ts). */
export type ListOrdersFilters = Omit<z.output<typeof ListOrdersQuery>, "archived">;

/** The export's parameters: the list's filters (it sends every matching order, newest first). */
export const ExportOrdersQuery = ListOrdersFields.omit({ sort: true, per_page: true, page: true })
  .extend({ archived: archivedParam })
  .superRefine(createdRangeInOrder)
  .superRefine(archivedFiltersOnly);
export type ExportOrdersFilters = z.output<typeof ExportOrdersQuery>;

export const OrderPage = resourcePageOf(OrderSummary, "OrderPage");
