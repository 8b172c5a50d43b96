// The order page's Cancel section: cancel lines or quantities of them with a reason, and record a
// supplier's answer to a cancellation that waits on it. Placed by the order page
// (order.pages.tsx); its two forms post to cancellations.pages.tsx, which shows a refused one again here.
import type { ValidationErrors } from "../lib/errors";
import { text, type FormValues } from "../console/forms";
import { groupBy } from "../lib/group";
import { LineProgressBadge } from "./progress-badge";
import { CsrfField, Field, FormError } from "../ui/field";
import { LocalTime } from "../ui/time";
import type { OrderDetail } from "./orders.service";
import { lineProgress, shippedOf } from "./progress";

type Line = OrderDetail["lines"][number];

/** What can still be cancelled of a line: nothing once it is settled, shipped in full or already being cancelled. */
const cancellable = (l: Line) =>
  l.currentStatus === "skipped" || l.currentStatus === "declined" || l.pendingCancellation ? 0 : l.quantity - l.shipments.reduce((sum, s) => sum + s.quantity, 0);

/**
 * A refused form of this section, shown again with its messages beside their fields and what was
 * typed: the cancel form ("cancel"), or the answer recorded for one line ("answer").
 */
export type CancelForm = { kind: "cancel" | "answer"; lineId?: number; values: FormValues; errors: ValidationErrors; message?: string };

export function CancelSection({ detail, csrfToken, form }: { detail: OrderDetail; csrfToken: string; form?: CancelForm }) {
  const reference = detail.order.reference;
  const open = detail.lines.filter((l) => cancellable(l) > 0);
  const waiting = detail.lines.filter((l) => l.pendingCancellation);
  const logsOf = groupBy(detail.logs, (l) => l.orderLineId);
  const cancelForm = form?.kind === "cancel" ? form : undefined;
  const ticked = (cancelForm?.values.line_id as string[] | undefined) ?? [];
  const linesError = cancelForm?.errors.line_id;
  return (
    <section aria-labelledby="cancel-heading" id="cancel">
      <h2 id="cancel-heading">Cancel</h2>
      {form?.message ? <FormError messages={[form.message]} /> : null}
      {waiting.length > 0 ? (
        <>
          <h3>Waiting for the supplier's answer</h3>
          <ul class="plain cancellations-waiting">
            {waiting.map((l) => (
              <li>
                <p>
                  Supplier <strong>{l.supplierName}</strong> is asked to cancel {l.pendingCancellation!.quantity} of {l.quantity} × {l.name} (line #{l.id}) since{" "}
                  <LocalTime iso={l.pendingCancellation!.requested_at} />.
                </p>
                <form method="post" action={`/console/orders/${reference}/cancellations/answers`} class="record-answer">
                  <CsrfField token={csrfToken} />
                  <input type="hidden" name="line_id" value={String(l.id)} />
                  <Field
                    name="reason"
                    id={`answer-reason-${l.id}`}
                    label={`What the supplier said about line #${l.id} (required when it refused)`}
                    value={form?.kind === "answer" && form.lineId === l.id ? text(form.values, "reason") : ""}
                    errors={form?.kind === "answer" && form.lineId === l.id ? form.errors : {}}
                  />
                  <div class="actions">
                    <button type="submit" name="action" value="confirm">
                      Supplier confirmed
                    </button>
                    <button type="submit" name="action" value="refuse" class="secondary">
                      Supplier refused
                    </button>
                  </div>
                </form>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {open.length === 0 ? (
        <p class="muted">Nothing of this order can be cancelled any more: every line is skipped, declined, shipped or already being cancelled.</p>
      ) : (
        <details class="cancel-lines" open={waiting.length > 0 || cancelForm ? true : undefined}>
          <summary>Cancel lines of this order</summary>
          <p class="muted">
            Lines no supplier has yet are cancelled at once. A supplier that has a line is asked to cancel it, on its own channel, and confirms or refuses.
          </p>
          <form method="post" action={`/console/orders/${reference}/cancel`}>
            <CsrfField token={csrfToken} />
            <div class="table-wrap">
              <table>
                <caption class="visually-hidden">Lines that can be cancelled</caption>
                <thead>
                  <tr>
                    <th scope="col">Cancel</th>
                    <th scope="col">Line</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="numeric">
                      Quantity to cancel
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {open.map((l) => (
                    <tr>
                      <td>
                        <input
                          type="checkbox"
                          name="line_id"
                          value={String(l.id)}
                          id={`cancel-line-${l.id}`}
                          checked={ticked.includes(String(l.id))}
                          aria-invalid={linesError ? "true" : undefined}
                          aria-describedby={linesError ? "cancel-lines-error" : undefined}
                        />
                      </td>
                      <td>
                        <label for={`cancel-line-${l.id}`}>
                          {l.name} <small class="muted">line #{l.id}</small>
                        </label>
                      </td>
                      <td>
                        <LineProgressBadge progress={lineProgress(l, shippedOf(l.shipments), { logs: logsOf.get(l.id) ?? [] })} />
                      </td>
                      <td class="numeric">
                        <QuantityInput line={l} form={cancelForm} index={ticked.indexOf(String(l.id))} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {linesError ? (
              <small id="cancel-lines-error" class="field-error">
                {linesError.join(" ")}
              </small>
            ) : null}
            <Field
              name="reason"
              id="cancel-reason"
              label="Why they are cancelled (optional; the suppliers see it)"
              value={cancelForm ? text(cancelForm.values, "reason") : ""}
              errors={cancelForm?.errors ?? {}}
            />
            <button type="submit">Cancel the ticked lines</button>
          </form>
        </details>
      )}
    </section>
  );
}

/** A line's quantity to cancel; after a refusal, what was typed and the message of its place in the request (lines.{i}.quantity). */
function QuantityInput({ line: l, form, index }: { line: Line; form?: CancelForm; index: number }) {
  const messages = index >= 0 ? form?.errors[`lines.${index}.quantity`] : undefined;
  const errorId = `cancel-quantity-${l.id}-error`;
  return (
    <>
                        <input
                          type="number"
                          name={`quantity_${l.id}`}
                          value={form ? text(form.values, `quantity_${l.id}`) : String(cancellable(l))}
                          min="1"
                          max={String(cancellable(l))}
                          step="1"
                          inputmode="numeric"
                          aria-label={`Quantity of ${l.name} (line #${l.id}) to cancel, at most ${cancellable(l)}`}
                          aria-invalid={messages ? "true" : undefined}
                          aria-describedby={messages ? errorId : undefined}
                        />
      {messages ? (
        <small id={errorId} class="field-error">
          {messages.join(" ")}
        </small>
      ) : null}
    </>
  );
}
