// The order page's Returns section (placed by src/orders/order.pages.tsx): each return of the order
// with its supplier, state, RMA, address, label, the customer's tracking, lines, credit and its log
// (who, when), the shop's two moves on it (the customer's tracking, cancel), and "Return items…".
import { text } from "../console/forms";
import type { OrderDetail } from "../orders/orders.service";
import { ReturnStatusBadge } from "../ui/badge";
import { CsrfField, Field, FormError } from "../ui/field";
import { money, orDash } from "../ui/format";
import { LocalTime } from "../ui/time";
import { count } from "../lib/plural";
import { MOVES } from "./answers.service";
import type { OrderReturn, OrderReturns } from "./order-returns.query";
import { returnableLines, ReturnItemsForm, type ReturnForm } from "./return-items-form";

export function OrderReturnsSection({ detail, returns, csrf, form }: { detail: OrderDetail; returns: OrderReturns; csrf: string; form?: ReturnForm }) {
  const reference = detail.order.reference;
  return (
    <section aria-labelledby="returns-heading" id="returns">
      <h2 id="returns-heading">Returns</h2>
      {returns.returns.length === 0 ? <p class="muted">No returns yet.</p> : returns.returns.map((r) => <ReturnCard reference={reference} ret={r} csrf={csrf} form={form?.returnId === r.id ? form : undefined} />)}
      <ReturnItemsForm reference={reference} returnable={returnableLines(detail.lines, returns)} csrf={csrf} form={form} />
    </section>
  );
}

/** One return: its facts, lines, the shop's moves in the states that take them, and its log. */
export function ReturnCard({ reference, ret: r, csrf, form }: { reference: string; ret: OrderReturn; csrf: string; form?: ReturnForm }) {
  const reason = r.declineReason ?? r.closeReason ?? r.cancelReason;
  const told = r.notices.find((n) => n.kind === "requested");
  return (
    <article class="return" id={`return-${r.id}`} aria-labelledby={`return-${r.id}-heading`}>
      <header>
        <h3 id={`return-${r.id}-heading`}>
          Return #{r.id} to {r.supplierName}
        </h3>
        <ReturnStatusBadge status={r.status} />
      </header>
      <dl class="facts">
        <dt>RMA</dt>
        <dd>{orDash(r.rma)}</dd>
        <dt>Return address</dt>
        <dd>{orDash(r.returnAddress)}</dd>
        <dt>Return label</dt>
        <dd>{r.labelUrl ? <a href={r.labelUrl} rel="noopener noreferrer" target="_blank">{`Label of return #${r.id}`}</a> : "—"}</dd>
        <dt>Customer's tracking</dt>
        <dd>{r.customerTracking ? `${r.customerTracking}${r.customerCarrier ? ` (${r.customerCarrier})` : ""}` : "—"}</dd>
        <dt>Credit</dt>
        <dd>{r.credit ? money(r.credit.amount, r.credit.currency) : "—"}</dd>
        {reason ? (
          <>
            <dt>{r.status === "declined" ? "Declined because" : r.status === "closed" ? "Closed because" : "Cancelled because"}</dt>
            <dd>{reason}</dd>
          </>
        ) : null}
        {r.note ? (
          <>
            <dt>Note</dt>
            <dd>{r.note}</dd>
          </>
        ) : null}
        {told ? (
          <>
            <dt>Supplier told</dt>
            <dd>{told.status === "sent" ? "yes, on its channel" : told.status === "failed" ? `not yet: ${told.lastError ?? "the notice failed"}` : "being sent"}</dd>
          </>
        ) : null}
      </dl>
      {/* Focusable like every scrolling table (src/ui/table.tsx): on a narrow screen it scrolls by keyboard too. */}
      <div class="table-wrap" role="region" aria-label={`Lines of return #${r.id}`} tabindex={0}>
        <table>
          <caption class="visually-hidden">{`Lines of return #${r.id}`}</caption>
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col" class="numeric">Asked back</th>
              <th scope="col" class="numeric">Received</th>
              <th scope="col">Condition</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {r.lines.map((l) => (
              <tr>
                <td>
                  {l.name} <small class="muted">line #{l.orderLineId}</small>
                </td>
                <td class="numeric">{l.quantity}</td>
                <td class="numeric">{l.receivedQuantity ?? "—"}</td>
                <td>{orDash(l.condition)}</td>
                <td>{orDash(l.reason)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {/* A refusal is said here, not in the forms: the return may have moved on to a state that offers none. */}
      {form?.message ? <FormError messages={[form.message]} /> : null}
      <ReturnMoves reference={reference} ret={r} csrf={csrf} form={form} />
      <details class="timeline" open={r.logs.length <= 6}>
        <summary>Log ({count(r.logs.length, { one: "entry", many: "entries" })})</summary>
        <ol>
          {r.logs.map((g) => (
            <li>
              <LocalTime iso={g.createdAt} /> <ReturnStatusBadge status={g.status} /> {g.orderLineId !== null ? `Line #${g.orderLineId}: ` : ""}
              {g.message} <small class="muted">by {g.actor}</small>
            </li>
          ))}
        </ol>
      </details>
    </article>
  );
}

/** The shop's moves on a return, offered only in the states that take them (the same table the API judges with). */
function ReturnMoves({ reference, ret: r, csrf, form }: { reference: string; ret: OrderReturn; csrf: string; form?: ReturnForm }) {
  const base = `/console/orders/${reference}/returns/${r.id}`;
  const tracking = MOVES.tracking.from.includes(r.status);
  const cancel = MOVES.cancel.from.includes(r.status);
  if (!tracking && !cancel) return null;
  const mine = (kind: ReturnForm["kind"]) => (form?.kind === kind ? form : undefined);
  return (
    <div class="grid two return-moves">
      {tracking ? (
        <form method="post" action={`${base}/tracking`} novalidate class="stacked">
          <CsrfField token={csrf} />
          <Field name="tracking_number" id={`return-${r.id}-tracking`} label={`The customer's tracking for return #${r.id}`} value={mine("tracking") ? text(mine("tracking")!.values, "tracking_number") : (r.customerTracking ?? "")} errors={mine("tracking")?.errors ?? {}} />
          <Field name="carrier" id={`return-${r.id}-carrier`} label="Carrier (optional)" value={mine("tracking") ? text(mine("tracking")!.values, "carrier") : (r.customerCarrier ?? "")} errors={mine("tracking")?.errors ?? {}} />
          <button type="submit" class="secondary">
            {r.status === "in_transit" ? "Replace the tracking" : "Add the customer's tracking"}
          </button>
        </form>
      ) : null}
      {cancel ? (
        <form method="post" action={`${base}/cancel`} novalidate class="stacked">
          <CsrfField token={csrf} />
          <Field name="reason" id={`return-${r.id}-cancel-reason`} label={`Why return #${r.id} is withdrawn (optional; the supplier is told)`} value={mine("cancel") ? text(mine("cancel")!.values, "reason") : ""} errors={mine("cancel")?.errors ?? {}} />
          <button type="submit" class="secondary outline">
            Cancel return #{r.id}
          </button>
        </form>
      ) : null}
    </div>
  );
}
