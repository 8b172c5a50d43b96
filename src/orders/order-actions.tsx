// The order page's Actions section: block or unblock (with a reason), match now, retry failed lines,
// complete chosen lines by hand; a refused action's messages and what was typed shown again beside its fields.
// The forms post to order-actions.pages.tsx.
import { text, type FormValues } from "../console/forms";
import type { ValidationErrors } from "../lib/errors";
import { CheckboxGroup, CsrfField, Field, FormError } from "../ui/field";
import { PostButton } from "../ui/actions";
import { type OrderDetail } from "./orders.service";
import { count } from "../lib/plural";

export type ActionForm = { action: "block" | "unblock" | "complete" | "other"; values: FormValues; errors: ValidationErrors; message?: string };
export const ACTION_LABELS = { reason: "Reason", line_ids: "Lines" };
function ReasonField({ action, form }: { action: "block" | "unblock"; form?: ActionForm }) {
  const own = form?.action === action;
  return (
    <Field
      id={`field-${action}-reason`}
      name="reason"
      label={ACTION_LABELS.reason}
      value={own ? text(form.values, "reason") : ""}
      errors={own ? form.errors : {}}
      hint={action === "block" ? "Optional: logged on every line, shown on the order" : "Optional: logged on every line"}
    />
  );
}

export function OrderActions({ detail, csrf, form, oob }: { detail: OrderDetail; csrf: string; form?: ActionForm; oob?: boolean }) {
  const { order, lines } = detail;
  const base = `/console/orders/${order.reference}`;
  const pending = lines.some((l) => l.currentStatus === "pending");
  const failed = lines.filter((l) => l.currentStatus === "failed").length;
  const declined = lines.some((l) => l.currentStatus === "declined");
  const ruled = lines.filter((l) => l.currentStatus === "ruled");
  const chosen = form?.action === "complete" ? (form.values.line_ids as string[]) : [];
  return (
    <section aria-labelledby="actions-heading" class="order-actions" id="order-actions" {...(oob ? { "hx-swap-oob": "true" } : {})}>
      <h2 id="actions-heading">Actions</h2>
      {form?.message ? <FormError messages={[form.message]} /> : null}
      <div class="grid two">
        <form method="post" action={`${base}/${order.blocked ? "unblock" : "block"}`} novalidate class="stacked">
          <CsrfField token={csrf} />
          <ReasonField action={order.blocked ? "unblock" : "block"} form={form} />
          <button type="submit" class={order.blocked ? undefined : "secondary"}>
            {order.blocked ? "Unblock order" : "Block order"}
          </button>
        </form>
        <div>
          <p class="muted">
            {order.blocked
              ? "Matching and sending wait until the order is unblocked."
              : pending
                ? "Lines wait for a supplier: match them now with the current rules, catalogue and suppliers."
                : failed
                  ? "Sending failed for some lines: send them again once the supplier's problem is fixed."
                  : declined
                    ? "A supplier declined some lines: send each to another supplier, or re-route it now, under Lines."
                    : "Every line has been matched."}
          </p>
          <div class="page-actions">
            {!order.blocked && pending ? <PostButton action={`${base}/match`} csrf={csrf} label="Match now" /> : null}
            {failed ? <PostButton action={`${base}/retry`} csrf={csrf} label={`Retry ${count(failed, "failed line")}`} /> : null}
          </div>
        </div>
      </div>
      {ruled.length ? (
        <form method="post" action={`${base}/complete`} novalidate class="stacked">
          <CsrfField token={csrf} />
          <CheckboxGroup
            name="line_ids"
            id="field-complete-lines"
            label="Complete lines by hand (delivered outside the system, or a supplier on the manual channel)"
            errors={form?.action === "complete" ? form.errors : {}}
            checked={chosen}
            options={ruled.map((l) => ({ value: String(l.id), label: `${l.quantity} × ${l.name} (${l.supplierName ?? "no supplier"})` }))}
          />
          <button type="submit">Complete chosen lines</button>
        </form>
      ) : null}
    </section>
  );
}
