// The returns contract: the bodies the API and the console (order page, supplier portal) validate
// with. Each answer names only what its action needs; a field it needs and lacks is a 422 naming it.
import { z } from "@hono/zod-openapi";
import { RETURN_CONDITIONS } from "../db/schema";
import { currencyCode } from "../lib/currency";
import { MONEY_MAX } from "../lib/money";
import { field } from "../lib/validation";
import { distinct, lineId } from "../orders/cancellations.schemas";

/** At most this many lines in one return request (an order's lines are bounded the same way). */
export const MAX_RETURN_LINES = 500;

export const ReturnRequestBody = z
  .object({
    lines: z
      .array(
        z.object({
          line_id: lineId().openapi({ description: "A shipped line of the order", example: 901 }),
          quantity: field.int({ min: 1, max: 1_000_000 }).openapi({ description: "How much of it comes back (at most what shipped, less what earlier returns of it ask back)", example: 1 }),
          reason: field.optionalText(500).openapi({ description: "Why the customer sends it back", example: "Wrong size" }),
        }),
      )
      .min(1)
      .max(MAX_RETURN_LINES)
      .openapi({ description: "The lines to return; lines of several suppliers make one return per supplier" }),
    note: field.optionalText(1000).openapi({ description: "For the suppliers (sent with each return)", example: "Customer 4711 returns part of the order" }),
    customer_tracking: field.optionalText(200).openapi({ description: "The customer's parcel tracking, if already sent: the return goes in transit once authorised" }),
    force: field.optionalBoolean().openapi({ description: "Request it although a line's last shipment is older than its supplier's return window" }),
  })
  .superRefine((body, ctx) => distinct(body.lines.map((l) => l.line_id), (i) => ["lines", i, "line_id"], ctx))
  .openapi("ReturnRequest", { example: { lines: [{ line_id: 901, quantity: 1, reason: "Wrong size" }], note: "Customer changed their mind" } });
export type ReturnRequest = z.output<typeof ReturnRequestBody>;

export const TrackingBody = z
  .object({
    tracking_number: field.text(200).pipe(z.string().min(1)).openapi({ description: "The customer's parcel tracking number", example: "3SRET0001" }),
    carrier: field.optionalText(100).openapi({ description: "The carrier", example: "PostNL" }),
  })
  .openapi("ReturnTracking", { example: { tracking_number: "3SRET0001", carrier: "PostNL" } });

export const CancelReturnBody = z.object({ reason: field.optionalText(500).openapi({ description: "Why (logged, and told to the supplier)" }) }).openapi("ReturnCancel", { example: { reason: "The customer kept the goods" } });

export const RETURN_ACTIONS = ["authorise", "decline", "receive", "credit", "close"] as const;
export type ReturnAction = (typeof RETURN_ACTIONS)[number];

const required = (ctx: z.RefinementCtx, path: string, action: string) =>
  ctx.addIssue({ code: "custom", path: [path], message: `The :attribute field is required when action is ${action}.` });

export const ReturnAnswerBody = z
  .object({
    action: z.enum(RETURN_ACTIONS).openapi({ description: "authorise | decline (requested); receive (authorised or in transit); credit | close (received)" }),
    rma: field.optionalText(100).openapi({ description: "authorise: the supplier's RMA number", example: "RMA-2231" }),
    return_address: field.optionalText(1000).openapi({ description: "authorise: where the customer sends the goods (default: the supplier's return address)" }),
    label_url: field.optionalHttpUrl(2000).openapi({ description: "authorise: a return label to print" }),
    reason: field.optionalText(1000).openapi({ description: "decline, close: why" }),
    lines: z
      .array(
        z.object({
          line_id: lineId().openapi({ description: "An order line of the return", example: 901 }),
          quantity: field.int({ min: 0, max: 1_000_000 }).openapi({ description: "How much of it arrived (at most what the return asks back)" }),
          condition: z.enum(RETURN_CONDITIONS).openapi({ description: "new, opened or damaged" }),
        }),
      )
      .min(1)
      .max(MAX_RETURN_LINES)
      .optional()
      .openapi({ description: "receive: what arrived, per line (a line not named arrived not at all)" }),
    amount: field.optionalMoney({ min: 0.01, max: MONEY_MAX }).openapi({ description: "credit: the amount the supplier credits the shop", example: 24.95 }),
    currency: currencyCode.openapi({ description: "credit: its ISO 4217 currency", example: "EUR" }),
  })
  .superRefine((a, ctx) => {
    if (a.action === "authorise" && !a.rma) required(ctx, "rma", a.action);
    if ((a.action === "decline" || a.action === "close") && !a.reason) required(ctx, "reason", a.action);
    if (a.action === "receive" && !a.lines) required(ctx, "lines", a.action);
    if (a.action === "receive" && a.lines) distinct(a.lines.map((l) => l.line_id), (i) => ["lines", i, "line_id"], ctx);
    if (a.action === "credit" && a.amount === undefined) required(ctx, "amount", a.action);
    if (a.action === "credit" && !a.currency) required(ctx, "currency", a.action);
  })
  .openapi("ReturnAnswer", { example: { action: "authorise", rma: "RMA-2231", return_address: "Returns dept., Industrieweg 4, 3542 AD Utrecht" } });
export type ReturnAnswer = z.output<typeof ReturnAnswerBody>;

export const ReturnSettingsBody = z
  .object({
    auto_authorise: field.optionalBoolean().openapi({ description: "Authorise this supplier's returns at once (needs a return_address)" }),
    return_address: field.optionalText(1000).openapi({ description: "Where its returns go" }),
    window_days: field.optionalInt({ min: 0, max: 3650 }).openapi({ description: "Days after the last shipment within which a return may be requested (default 30)" }),
    answer_within_hours: field.optionalInt({ min: 1, max: 8760 }).openapi({ description: "Needs attention lists its returns unanswered longer than this" }),
  })
  .openapi("SupplierReturnSettings", { example: { window_days: 30, answer_within_hours: 48 } });
