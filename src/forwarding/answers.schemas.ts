// A supplier's answers as the API, the signed callback and the supplier portal take them: the
// fields of one answer, the body of many, and the reading that names every failing field at once
// (the schema's, and those only the lines can tell: a quantity past what is left to ship).
import { z } from "@hono/zod-openapi";
import type { ValidationErrors } from "../lib/errors";
import { field, toValidationErrors } from "../lib/validation";
import type { Answer } from "./answers.judge";

/** The longest tracking_url taken (as the other URLs we take: webhooks, feeds, a supplier's webhook_url). */
export const TRACKING_URL_MAX = 2048;

/** One answer's fields, each checked on its own. */
const AnswerFields = z.object({
  line_id: field.int({ min: 1, max: 1e15 }).openapi({ description: "The id of a line sent to this supplier (lines[].id of the order document)." }),
  action: z.enum(["accept", "decline", "partial", "ship", "confirm_cancellation", "refuse_cancellation"]).openapi({
    description:
      "accept: the line is completed; decline (with reason): declined; partial (with quantity, below the line's): partially " +
      "completed; ship: a shipment is recorded (a ruled line is accepted first); confirm_cancellation / refuse_cancellation " +
      "(with reason): your answer to a cancellation (or withdrawal) of the line you were asked for. A decline or a partial " +
      "confirmation may send the line (or its rest) to another supplier.",
  }),
  reason: field.optionalText(1000).openapi({ description: "Why, up to 1000 characters; required to decline and to refuse a cancellation." }),
  quantity: field.optionalInt({ min: 1, max: 1_000_000 }).openapi({
    description:
      "partial: the quantity you confirm (required): below the line's, and not below what is shipped of it. ship: the quantity in this " +
      "shipment, at most what is left to ship of the line (its confirmed quantity, or its quantity, less what is shipped); without it, all that is left.",
  }),
  carrier: field.optionalId(255).openapi({ description: "ship: the carrier, e.g. PostNL." }),
  tracking_number: field.optionalId(255).openapi({ description: "ship: the shipment's tracking number." }),
  tracking_url: field
    .optionalHttpUrl(TRACKING_URL_MAX)
    .openapi({ description: `ship: where the shop's customer can track the shipment: an http(s) URL of up to ${TRACKING_URL_MAX} characters.` }),
  shipment_id: field
    .optionalId(255)
    .openapi({ description: "ship: your id of the shipment; the same shipment (or tracking number) reported again is recorded once." }),
});

/** One answer; the supplier portal checks its forms with it too. */
export const AnswerItem = AnswerFields.superRefine((a, ctx) => {
  if ((a.action === "decline" || a.action === "refuse_cancellation") && !a.reason) {
    ctx.addIssue({ code: "custom", path: ["reason"], message: `The :attribute field is required when action is ${a.action}.` });
  }
  if (a.action === "partial" && a.quantity === undefined) {
    ctx.addIssue({ code: "custom", path: ["quantity"], message: "The :attribute field is required when action is partial." });
  }
});

export const AnswersBody = z
  .object({
    answers: z
      .array(AnswerItem)
      .min(1)
      .max(500)
      .openapi({ description: "1 to 500 answers, applied all or nothing: one that does not fit its line's status changes nothing (409)." }),
  })
  .openapi("SupplierAnswers", {
    example: {
      answers: [
        {
          line_id: 901,
          action: "ship",
          quantity: 2,
          carrier: "PostNL",
          tracking_number: "3SABC123",
          tracking_url: "https://postnl.nl/tracktrace/3SABC123",
          shipment_id: "SHP-1",
        },
      ],
    },
  });

/** What the lines find wrong with answers the schema could read (answers.service.ts, answerErrors). */
export type LineChecks = (answers: (Answer | null)[]) => Promise<ValidationErrors>;

/**
 * A body of answers, checked: the answers, or every failing field at once. Where the schema refuses
 * some fields, the answers are still read as far as they can be (each without its failing fields)
 * and `lineChecks` adds what the lines refuse of them, so a quantity past what is left to ship is
 * named beside a bad carrier, not after it is fixed.
 */
export async function readAnswers(raw: unknown, lineChecks: LineChecks): Promise<{ ok: true; answers: Answer[] } | { ok: false; errors: ValidationErrors }> {
  const parsed = AnswersBody.safeParse(raw);
  if (parsed.success) return { ok: true, answers: parsed.data.answers };
  const errors = toValidationErrors(parsed.error, raw);
  const items = (raw as { answers?: unknown } | null)?.answers;
  // The list itself is wrong (missing, not a list, too long): there are no answers to read.
  if (!Array.isArray(items) || errors.answers || errors.body) return { ok: false, errors };
  const readable = items.map((item, i) => {
    if (item === null || typeof item !== "object") return null;
    const fine = Object.fromEntries(Object.entries(item).filter(([key]) => !errors[`answers.${i}.${key}`]));
    const read = AnswerFields.safeParse(fine);
    return read.success ? read.data : null;
  });
  return { ok: false, errors: mergeErrors(errors, await lineChecks(readable)) };
}

function mergeErrors(a: ValidationErrors, b: ValidationErrors): ValidationErrors {
  const out: ValidationErrors = { ...a };
  for (const [key, messages] of Object.entries(b)) out[key] = [...new Set([...(out[key] ?? []), ...messages])];
  return out;
}
