// The console face of cancellations on the order page: a section (CancelSection, placed by the
// order page) to cancel lines or quantities of them with a reason, and to record a supplier's answer
// to a cancellation that waits on it; and its two form handlers, as thin as the API's
// (POST .../cancel and .../cancellations/answers): read the form, call the same services, redirect
// back to the order with a flash.
import { Hono, type Context } from "hono";
import type { AppEnv } from "../env";
import { ApiError, type ValidationErrors } from "../lib/errors";
import { validateForm } from "../lib/validation";
import { setFlash } from "../console/cookies";
import { LineStatusBadge } from "../ui/badge";
import { CsrfField, Field } from "../ui/field";
import { LocalTime } from "../ui/time";
import { CancelBody } from "./cancellations.routes";
import { cancelOrder, recordCancellationAnswers } from "./cancellations.service";
import type { OrderDetail } from "./orders.service";

export const cancellationPages = new Hono<AppEnv>();

type Line = OrderDetail["lines"][number];

/** What can still be cancelled of a line: nothing once it is settled, shipped in full or already being cancelled. */
const cancellable = (l: Line) =>
  l.currentStatus === "skipped" || l.currentStatus === "declined" || l.pendingCancellation ? 0 : l.quantity - l.shipments.reduce((sum, s) => sum + s.quantity, 0);

export function CancelSection({ detail, csrfToken }: { detail: OrderDetail; csrfToken: string }) {
  const reference = detail.order.reference;
  const open = detail.lines.filter((l) => cancellable(l) > 0);
  const waiting = detail.lines.filter((l) => l.pendingCancellation);
  return (
    <section aria-labelledby="cancel-heading" id="cancel">
      <h2 id="cancel-heading">Cancel</h2>
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
                  <Field name="reason" id={`answer-reason-${l.id}`} label={`What the supplier said about line #${l.id} (required when it refused)`} />
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
        <details class="cancel-lines" open={waiting.length === 0 ? undefined : true}>
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
                        <input type="checkbox" name="line_id" value={String(l.id)} id={`cancel-line-${l.id}`} />
                      </td>
                      <td>
                        <label for={`cancel-line-${l.id}`}>
                          {l.name} <small class="muted">line #{l.id}</small>
                        </label>
                      </td>
                      <td>
                        <LineStatusBadge status={l.currentStatus} />
                      </td>
                      <td class="numeric">
                        <input
                          type="number"
                          name={`quantity_${l.id}`}
                          value={String(cancellable(l))}
                          min="1"
                          max={String(cancellable(l))}
                          step="1"
                          inputmode="numeric"
                          aria-label={`Quantity of ${l.name} (line #${l.id}) to cancel, at most ${cancellable(l)}`}
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Field name="reason" id="cancel-reason" label="Reason (optional; the suppliers see it)" />
            <button type="submit">Cancel the ticked lines</button>
          </form>
        </details>
      )}
    </section>
  );
}

/** A refused form: its first message as the flash, back to the order. */
function refusedForm(c: Context<AppEnv>, reference: string, errors: ValidationErrors | string) {
  setFlash(c, { kind: "error", text: typeof errors === "string" ? errors : Object.values(errors).flat()[0] ?? "The form was not accepted." });
  return c.redirect(`/console/orders/${reference}#cancel`, 303);
}

/** The service's 409 and 422 become the flash; anything else is the console's error page. */
async function orRefused(c: Context<AppEnv>, reference: string, run: () => Promise<string>) {
  try {
    setFlash(c, { kind: "success", text: await run() });
    return c.redirect(`/console/orders/${reference}#cancel`, 303);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 409 || error.status === 422)) return refusedForm(c, reference, error.detail?.errors ?? error.detail?.error ?? error.message);
    throw error;
  }
}

const LABELS = { reason: "Reason" };

cancellationPages.post("/orders/:reference/cancel", async (c) => {
  const reference = c.req.param("reference");
  const form = await c.req.parseBody({ all: true });
  const ids = ([] as unknown[]).concat(form.line_id ?? []).map(String);
  if (ids.length === 0) return refusedForm(c, reference, "Tick the lines to cancel.");
  const raw = { reason: form.reason, lines: ids.map((id) => ({ line_id: id, quantity: form[`quantity_${id}`] })) };
  const checked = validateForm(CancelBody, raw, LABELS);
  if (!checked.ok) return refusedForm(c, reference, checked.errors);
  return orRefused(c, reference, async () => {
    const done = await cancelOrder(c.get("db"), c.get("pipeline"), c.get("account").id, reference, checked.data);
    const parts = [
      done.cancelled ? `${done.cancelled} ${done.cancelled === 1 ? "line" : "lines"} cancelled` : null,
      done.requested ? `${done.requested} ${done.requested === 1 ? "line waits" : "lines wait"} for the supplier's answer` : null,
    ];
    return `${parts.filter(Boolean).join("; ")}.`.replace(/^./, (ch) => ch.toUpperCase());
  });
});

cancellationPages.post("/orders/:reference/cancellations/answers", async (c) => {
  const reference = c.req.param("reference");
  const form = await c.req.parseBody();
  const action = form.action === "refuse" ? "refuse" : "confirm";
  const reason = typeof form.reason === "string" && form.reason.trim() !== "" ? form.reason.trim() : undefined;
  if (action === "refuse" && !reason) return refusedForm(c, reference, "Say what the supplier answered when it refused.");
  if (reason && reason.length > 1000) return refusedForm(c, reference, "The reason must not be greater than 1000 characters.");
  const lineId = Number(form.line_id);
  return orRefused(c, reference, async () => {
    await recordCancellationAnswers(c.get("db"), c.get("account").id, reference, [{ line_id: lineId, action, reason }]);
    return action === "confirm" ? `Recorded: the supplier confirmed the cancellation of line #${lineId}.` : `Recorded: the supplier refused the cancellation of line #${lineId}.`;
  });
});
