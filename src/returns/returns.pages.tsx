// The console face of returns, as thin as the API's (returns.routes.ts) and over the same services:
// the order page's "Return items…", the customer's tracking and cancel (./order-returns.tsx shows
// them; a refused one renders the order page again with its messages beside the fields). The
// Returns page is ./returns-list.pages.tsx.
import { Hono, type Context } from "hono";
import type { AppEnv } from "../env";
import { attempt, done, formFields, text, type FormValues } from "../console/forms";
import { idOrNotFound } from "../lib/params";
import { validateForm } from "../lib/validation";
import { renderOrder } from "../orders/order.pages";
import { renderSupplier } from "../suppliers/suppliers.pages";
import { RETURN_SETTINGS_LABELS } from "./return-settings-form";
import { saveReturnSettings } from "./settings.service";
import { moveReturn } from "./answers.service";
import { requestReturn } from "./request.service";
import type { ReturnForm } from "./return-items-form";
import { CancelReturnBody, ReturnRequestBody, ReturnSettingsBody, TrackingBody } from "./returns.schemas";
import { getReturn, returnNotFound } from "./returns.service";

export const returnPages = new Hono<AppEnv>();

/** Who did it, for the return's log: the console, under the API key the session was opened with. */
const consoleActor = (c: Context<AppEnv>) => `shop (console, API key #${c.get("account").apiKeyId})`;

const back = (c: Context<AppEnv>, reference: string, anchor: string, message: string) => done(c, `/console/orders/${reference}#${anchor}`, { kind: "success", text: message });

/** The order page again with the refused form: 422 with the messages beside their fields, 409 with the refusal above it. */
function refused(c: Context<AppEnv>, form: ReturnForm) {
  c.status(Object.keys(form.errors).length ? 422 : 409);
  const placed = /^(note|customer_tracking|tracking_number|carrier|reason|lines\.\d+\.(quantity|line_id|reason))$/;
  const unplaced = Object.entries(form.errors).filter(([key]) => !placed.test(key));
  if (unplaced.length && !form.message) form.message = unplaced.flatMap(([, m]) => m).join(" ");
  return renderOrder(c, undefined, undefined, undefined, form);
}

const REQUEST_LABELS: Record<string, string> = { note: "Note", customer_tracking: "Customer's tracking" };

returnPages.post("/orders/:reference/returns", async (c) => {
  const reference = c.req.param("reference");
  const values = await formFields(c);
  // A line is asked for when a quantity is filled in (0 or empty: kept), in the order the form lists them.
  const lineIds = Object.keys(values)
    .map((k) => /^quantity_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null && !/^0*$/.test(text(values, m[0]).trim()))
    .map((m) => Number(m[1]));
  const form = (errors: ReturnForm["errors"], message?: string): ReturnForm => ({ kind: "request", lineIds, values, errors, message });
  if (lineIds.length === 0) return refused(c, form({ lines: ["Fill in the quantity to return of at least one line."] }));
  const raw = {
    lines: lineIds.map((id) => ({ line_id: id, quantity: text(values, `quantity_${id}`), reason: text(values, `reason_${id}`) || undefined })),
    note: text(values, "note") || undefined,
    customer_tracking: text(values, "customer_tracking") || undefined,
    force: text(values, "force") === "true" ? true : undefined,
  };
  const labels = { ...REQUEST_LABELS, ...Object.fromEntries(lineIds.flatMap((_, i) => [[`lines.${i}.quantity`, "Quantity"], [`lines.${i}.reason`, "Reason"]])) };
  const checked = validateForm(ReturnRequestBody, raw, labels);
  if (!checked.ok) return refused(c, form(checked.errors));
  const result = await attempt(() => requestReturn(c.get("db"), c.get("pipeline"), c.get("account").id, reference, checked.data, consoleActor(c)), labels);
  if (!result.ok) return refused(c, form(result.errors, result.message));
  const n = result.value.returnIds.length;
  return back(c, reference, "returns", n === 1 ? `Return #${result.value.returnIds[0]} requested.` : `${n} returns requested, one per supplier: #${result.value.returnIds.join(", #")}.`);
});

/** The return, if it is this order's (another order's or account's: the 404 page, nothing written). */
async function returnOfOrder(c: Context<AppEnv>) {
  const id = idOrNotFound(c.req.param("id")!, "Return");
  const view = await getReturn(c.get("db"), c.get("account").id, id);
  if (view.order.reference !== c.req.param("reference")) throw returnNotFound(id);
  return id;
}

returnPages.post("/orders/:reference/returns/:id/tracking", async (c) => {
  const reference = c.req.param("reference");
  const id = await returnOfOrder(c);
  const values: FormValues = await formFields(c);
  const labels = { tracking_number: "customer's tracking number", carrier: "Carrier" };
  const form = (errors: ReturnForm["errors"], message?: string): ReturnForm => ({ kind: "tracking", returnId: id, values, errors, message });
  const checked = validateForm(TrackingBody, { tracking_number: text(values, "tracking_number"), carrier: text(values, "carrier") || undefined }, labels);
  if (!checked.ok) return refused(c, form(checked.errors));
  const result = await attempt(() => moveReturn(c.get("db"), c.get("pipeline"), { accountId: c.get("account").id, who: consoleActor(c) }, id, { action: "tracking", ...checked.data }), labels);
  if (!result.ok) return refused(c, form(result.errors, result.message));
  return back(c, reference, `return-${id}`, `Return #${id} is in transit: the customer's tracking is ${checked.data.tracking_number}.`);
});

returnPages.post("/orders/:reference/returns/:id/cancel", async (c) => {
  const reference = c.req.param("reference");
  const id = await returnOfOrder(c);
  const values = await formFields(c);
  const form = (errors: ReturnForm["errors"], message?: string): ReturnForm => ({ kind: "cancel", returnId: id, values, errors, message });
  const checked = validateForm(CancelReturnBody, { reason: text(values, "reason") || undefined }, { reason: "Reason" });
  if (!checked.ok) return refused(c, form(checked.errors));
  const result = await attempt(() => moveReturn(c.get("db"), c.get("pipeline"), { accountId: c.get("account").id, who: consoleActor(c) }, id, { action: "cancel", reason: checked.data.reason }));
  if (!result.ok) return refused(c, form(result.errors, result.message));
  return back(c, reference, `return-${id}`, `Return #${id} cancelled.`);
});

// A supplier's return terms, from its page: an emptied address or answer time is cleared (null).
returnPages.post("/suppliers/:id/returns-settings", async (c) => {
  const id = idOrNotFound(c.req.param("id")!, "Supplier");
  const values = await formFields(c);
  const raw = {
    auto_authorise: text(values, "auto_authorise") === "true",
    return_address: text(values, "return_address"),
    window_days: text(values, "window_days"),
    answer_within_hours: text(values, "answer_within_hours"),
  };
  const refusedSettings = (errors: ReturnForm["errors"], message?: string) => {
    c.status(422);
    return renderSupplier(c, { returnSettingsForm: { values, errors, message } });
  };
  const checked = validateForm(ReturnSettingsBody, raw, RETURN_SETTINGS_LABELS);
  if (!checked.ok) return refusedSettings(checked.errors);
  const input = { ...checked.data, return_address: checked.data.return_address ?? null, answer_within_hours: checked.data.answer_within_hours ?? null };
  const result = await attempt(() => saveReturnSettings(c.get("db"), c.get("account").id, id, input), RETURN_SETTINGS_LABELS);
  if (!result.ok) return refusedSettings(result.errors, result.message);
  return done(c, `/console/suppliers/${id}#returns-settings`, { kind: "success", text: "Return terms saved." });
});
