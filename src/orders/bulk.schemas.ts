// The contract of POST /api/v1/orders/bulk, shared by the API and the console's order list.
import { z } from "@hono/zod-openapi";
import { field } from "../lib/validation";
import { BULK_ACTIONS, BULK_MAX_ORDERS, BULK_OUTCOMES } from "./bulk.service";
import { createdRangeInOrder, ListOrdersFields } from "./orders.schemas";

/** A reference as POST /api/v1/orders answers it (a JSON number) or as the order shows it (a string). */
const reference = z
  .union([z.string(), z.number()])
  .transform((v, ctx) => {
    const text = typeof v === "number" ? (Number.isSafeInteger(v) ? String(v) : "") : v.trim();
    if (/^\d{16}$/.test(text)) return text;
    ctx.addIssue({ code: "custom", message: "The :attribute field must be an order reference: 16 digits." });
    return z.NEVER;
  });

/**
 * The order list's filters (GET /api/v1/orders) without its paging. Written as JSON, a value may
 * be a boolean, a number or (for the comma-separated lists) an array; a key the list does not
 * know is refused, so that a misspelt filter never widens the action to more orders.
 */
const FilterQuery = ListOrdersFields.omit({ page: true, per_page: true });
const filter = z.preprocess(
  (v) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v).map(([k, x]) => [k, Array.isArray(x) ? x.join(",") : typeof x === "boolean" || typeof x === "number" ? String(x) : x === null ? undefined : x]),
        )
      : v,
  FilterQuery.catchall(
    z.unknown().superRefine((_, ctx) => ctx.addIssue({ code: "custom", message: "The :attribute field is not a filter of the order list (GET /api/v1/orders)." })),
  ).superRefine(createdRangeInOrder("filter.date_to")),
);

export const BulkBody = z
  .object({
    action: z.enum(BULK_ACTIONS).openapi({
      description: "retry_failed: send each order's failed lines again; block: hold each order (reason optional); unblock: resume each order.",
    }),
    references: z
      .array(reference)
      .min(1)
      .max(BULK_MAX_ORDERS)
      .optional()
      .openapi({ description: `The orders, by reference, 1 to ${BULK_MAX_ORDERS}, each once. Either references or filter.` }),
    filter: filter.optional().openapi({
      description:
        `Every order the list's filters match (as GET /api/v1/orders takes them, without page and per_page; {} is every order), ` +
        `at most ${BULK_MAX_ORDERS}: more is a 422 naming filter. Either references or filter.`,
      type: "object",
    }),
    reason: field.optionalText(500).openapi({ description: "Block and unblock only: why, in a few words (up to 500 characters), logged on every line." }),
  })
  .superRefine((body, ctx) => {
    const refs = body.references ?? [];
    refs.forEach((ref, i) => {
      if (refs.indexOf(ref) !== i) ctx.addIssue({ code: "custom", path: ["references", i], message: "The :attribute field has a duplicate value." });
    });
    if (body.references === undefined && body.filter === undefined) {
      ctx.addIssue({ code: "custom", path: ["references"], message: "The :attribute field is required when filter is not present." });
    }
    if (body.references !== undefined && body.filter !== undefined) {
      ctx.addIssue({ code: "custom", path: ["references"], message: "The :attribute field prohibits filter from being present." });
    }
    if (body.reason !== undefined && body.action === "retry_failed") {
      ctx.addIssue({ code: "custom", path: ["reason"], message: "The :attribute field is prohibited unless action is in block, unblock." });
    }
  })
  .openapi("BulkRequest", { example: { action: "block", references: ["4812039475610234", "5093817264501938"], reason: "Fraud check" } });

export type BulkInput = z.output<typeof BulkBody>;

export const BulkResponse = z
  .object({
    action: z.enum(BULK_ACTIONS),
    results: z.array(
      z.object({
        reference: z.string(),
        outcome: z.enum(BULK_OUTCOMES),
        message: z.string().openapi({ example: "Retried 2 failed lines" }),
      }),
    ),
  })
  .openapi("BulkResult");
