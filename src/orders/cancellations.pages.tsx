// The console face of cancellations on the order page: the two form handlers of its Cancel section
// (./cancel-section.tsx), as thin as the API's (POST .../cancel and .../cancellations/answers): read
// the form, call the same services, redirect back to the order's Cancel section with the outcome (or
// the refusal) in the flash.
import { Hono, type Context } from "hono";
import type { AppEnv } from "../env";
import type { ValidationErrors } from "../lib/errors";
import { validateForm } from "../lib/validation";
import { attempt, done, formFields, text } from "../console/forms";
import type { CancelForm } from "./cancel-section";
import { CancelBody } from "./cancellations.schemas";
import { cancelOrder, recordCancellationAnswers } from "./cancellations.service";
import { renderOrder } from "./order.pages";
import { count } from "../lib/plural";

export const cancellationPages = new Hono<AppEnv>();

/** Back to the order's Cancel section, the outcome in the flash (POST/redirect/GET). */
const back = (c: Context<AppEnv>, reference: string, kind: "success" | "error", text: string) => done(c, `/console/orders/${reference}#cancel`, { kind, text });

/** The order page again, the refused form in its Cancel section: 422 with messages beside their fields, 409 with the service's refusal. */
const refused = (c: Context<AppEnv>, form: CancelForm) => {
  c.status(Object.keys(form.errors).length ? 422 : 409);
  // Messages with no field of their own on the form are said above it.
  const unplaced = Object.entries(form.errors).filter(([key]) => !/^(reason|line_id|lines\.\d+\.quantity)$/.test(key));
  if (unplaced.length && !form.message) form.message = unplaced.flatMap(([, m]) => m).join(" ");
  return renderOrder(c, undefined, form);
};

const LABELS = { reason: "Reason" };

cancellationPages.post("/orders/:reference/cancel", async (c) => {
  const reference = c.req.param("reference");
  const values = await formFields(c, ["line_id"]);
  const ids = values.line_id as string[];
  if (ids.length === 0) return refused(c, { kind: "cancel", values, errors: { line_id: ["Tick the lines to cancel."] } });
  const raw = { reason: text(values, "reason"), lines: ids.map((id) => ({ line_id: id, quantity: text(values, `quantity_${id}`) })) };
  const checked = validateForm(CancelBody, raw, { ...LABELS, ...Object.fromEntries(ids.map((_, i) => [`lines.${i}.quantity`, "Quantity"])) });
  if (!checked.ok) return refused(c, { kind: "cancel", values, errors: checked.errors });
  const result = await attempt(() => cancelOrder(c.get("db"), c.get("pipeline"), c.get("account").id, reference, checked.data), LABELS);
  if (!result.ok) return refused(c, { kind: "cancel", values, errors: result.errors, message: result.message });
  const { cancelled, requested } = result.value;
  const parts = [
    cancelled ? `${count(cancelled, "line")} cancelled` : null,
    requested ? `${requested} ${requested === 1 ? "line waits" : "lines wait"} for the supplier's answer` : null,
  ];
  return back(c, reference, "success", `${parts.filter(Boolean).join("; ")}.`.replace(/^./, (ch) => ch.toUpperCase()));
});

cancellationPages.post("/orders/:reference/cancellations/answers", async (c) => {
  const reference = c.req.param("reference");
  const values = await formFields(c);
  const action = text(values, "action") === "refuse" ? "refuse" : "confirm";
  const reason = text(values, "reason").trim() || undefined;
  const lineId = Number(text(values, "line_id"));
  const answerRefused = (errors: ValidationErrors, message?: string) => refused(c, { kind: "answer", lineId, values, errors, message });
  if (action === "refuse" && !reason) return answerRefused({ reason: ["Say what the supplier answered when it refused."] });
  if (reason && reason.length > 1000) return answerRefused({ reason: ["The Reason field must not be greater than 1000 characters."] });
  const result = await attempt(() => recordCancellationAnswers(c.get("db"), c.get("account").id, reference, [{ line_id: lineId, action, reason }]));
  if (!result.ok) return answerRefused({}, result.message ?? Object.values(result.errors).flat()[0]);
  const what = action === "confirm" ? "confirmed" : "refused";
  return back(c, reference, "success", `Recorded: the supplier ${what} the cancellation of line #${lineId}.`);
});
