// The cancellation contract: the body of a cancel, which the API and the order page both validate with.
import { z } from "@hono/zod-openapi";
import { field } from "../lib/validation";

export const lineId = () => field.int({ min: 1, max: 1e15 });
/** Each id once: a repeat is a 422 at its own index. */
export function distinct(ids: number[], path: (i: number) => (string | number)[], ctx: z.RefinementCtx) {
  ids.forEach((id, i) => {
    if (ids.indexOf(id) !== i) ctx.addIssue({ code: "custom", path: path(i), message: "The :attribute field has a duplicate value." });
  });
}

export const CancelBody = z
  .object({
    reason: field.optionalText(500).openapi({ description: "Why (logged on every line, sent to the suppliers)", example: "The customer changed their mind" }),
    line_ids: z
      .array(lineId())
      .min(1)
      .max(500)
      .optional()
      .openapi({ description: "Cancel these whole lines (what is not shipped of them); without line_ids and lines, the whole order", example: [901, 902] }),
    lines: z
      .array(
        z.object({
          line_id: lineId().openapi({ description: "A line of the order", example: 901 }),
          quantity: field
            .optionalInt({ min: 1, max: 1_000_000 })
            .openapi({ description: "How much of the line to cancel (default: all that is not shipped)", example: 2 }),
        }),
      )
      .min(1)
      .max(500)
      .optional()
      .openapi({ description: "Cancel quantities of lines (a partial cancel); not together with line_ids" }),
  })
  .superRefine((body, ctx) => {
    if (body.line_ids && body.lines) ctx.addIssue({ code: "custom", path: ["lines"], message: "The :attribute field is prohibited when line_ids is present." });
    if (body.line_ids) distinct(body.line_ids, (i) => ["line_ids", i], ctx);
    if (body.lines) distinct(body.lines.map((l) => l.line_id), (i) => ["lines", i, "line_id"], ctx);
  })
  .openapi("CancelOrderRequest", { example: { reason: "The customer changed their mind", lines: [{ line_id: 901, quantity: 2 }] } });

