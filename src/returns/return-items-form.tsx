// The order page's "Return items…": per shipped line the quantity to return (at most what shipped
// less what live returns ask back already), its reason, a note, the customer's tracking, and "force"
// only when a line is past its supplier's return window. It posts to returns.pages.tsx, which calls
// the API's service and, refused, shows it again here with each message beside its field.
import type { ValidationErrors } from "../lib/errors";
import { text, type FormValues } from "../console/forms";
import type { OrderDetail } from "../orders/orders.service";
import { Field, CsrfField, FormError } from "../ui/field";
import { windowOf, returnedOfLine, type OrderReturns } from "./order-returns.query";

/**
 * A refused form of the returns section, shown again with what was typed: the request ("request",
 * `lineIds` the lines it asked for, in order: lines.N is lineIds[N]), or one return's tracking or cancel.
 */
export type ReturnForm = { kind: "request" | "tracking" | "cancel"; returnId?: number; lineIds?: number[]; values: FormValues; errors: ValidationErrors; message?: string };

type Line = OrderDetail["lines"][number];
const DAY_MS = 86_400_000;

/** A shipped line with what can still be returned of it, and whether its supplier's window has passed. */
export type Returnable = { line: Line; shipped: number; returned: number; left: number; pastWindow: { shippedOn: string; days: number } | null };

export function returnableLines(lines: Line[], returns: OrderReturns, now = Date.now()): Returnable[] {
  return lines.flatMap((line) => {
    const shipped = line.shipments.reduce((n, s) => n + s.quantity, 0);
    if (shipped === 0 || line.matchedSupplierId === null) return [];
    const returned = returnedOfLine(returns, line.id);
    const last = line.shipments.map((s) => s.created_at).sort().at(-1)!;
    const days = windowOf(returns, line.matchedSupplierId);
    const pastWindow = now > Date.parse(last) + days * DAY_MS ? { shippedOn: last.slice(0, 10), days } : null;
    return [{ line, shipped, returned, left: Math.max(0, shipped - returned), pastWindow }];
  });
}

export function ReturnItemsForm({ reference, returnable, csrf, form }: { reference: string; returnable: Returnable[]; csrf: string; form?: ReturnForm }) {
  const open = returnable.filter((r) => r.left > 0);
  if (open.length === 0) return <p class="muted">Nothing of this order can be returned: no line has shipped quantity that is not asked back already.</p>;
  const asked = form?.kind === "request" ? form : undefined;
  const messagesOf = (lineId: number, field: string) => {
    const i = asked?.lineIds?.indexOf(lineId) ?? -1;
    return i >= 0 ? asked?.errors[`lines.${i}.${field}`] : undefined;
  };
  const past = open.some((r) => r.pastWindow);
  return (
    <details class="return-items" open={asked ? true : undefined}>
      <summary>Return items…</summary>
      <p class="muted">
        The lines of each supplier become one return, which that supplier is told of on its channel and answers (its RMA and where the goods go). Leave a quantity empty to keep the line.
      </p>
      <form method="post" action={`/console/orders/${reference}/returns`} novalidate>
        <CsrfField token={csrf} />
        {asked?.message ? <FormError messages={[asked.message]} /> : null}
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Shipped lines that can be returned</caption>
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Supplier</th>
                <th scope="col" class="numeric">Can be returned</th>
                <th scope="col" class="numeric">Quantity to return</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {open.map(({ line, shipped, returned, left, pastWindow }) => {
                const qty = messagesOf(line.id, "quantity") ?? messagesOf(line.id, "line_id");
                const reason = messagesOf(line.id, "reason");
                return (
                  <tr>
                    <td>
                      {line.name} <small class="muted">line #{line.id}</small>
                      {pastWindow ? (
                        <>
                          <br />
                          <small>
                            Shipped on {pastWindow.shippedOn}: past {line.supplierName}'s return window of {pastWindow.days} days.
                          </small>
                        </>
                      ) : null}
                    </td>
                    <td>{line.supplierName}</td>
                    <td class="numeric">
                      {left} <small class="muted">({shipped} shipped{returned ? `, ${returned} asked back already` : ""})</small>
                    </td>
                    <td class="numeric">
                      <input
                        type="number"
                        name={`quantity_${line.id}`}
                        id={`return-quantity-${line.id}`}
                        value={asked ? text(asked.values, `quantity_${line.id}`) : ""}
                        min="1"
                        max={String(left)}
                        step="1"
                        inputmode="numeric"
                        aria-label={`Quantity of ${line.name} (line #${line.id}) to return, at most ${left}`}
                        aria-invalid={qty ? "true" : undefined}
                        aria-describedby={qty ? `return-quantity-${line.id}-error` : undefined}
                      />
                      {qty ? (
                        <small id={`return-quantity-${line.id}-error`} class="field-error">
                          {qty.join(" ")}
                        </small>
                      ) : null}
                    </td>
                    <td>
                      <input
                        type="text"
                        name={`reason_${line.id}`}
                        id={`return-reason-${line.id}`}
                        value={asked ? text(asked.values, `reason_${line.id}`) : ""}
                        aria-label={`Why ${line.name} (line #${line.id}) comes back`}
                        aria-invalid={reason ? "true" : undefined}
                        aria-describedby={reason ? `return-reason-${line.id}-error` : undefined}
                      />
                      {reason ? (
                        <small id={`return-reason-${line.id}-error`} class="field-error">
                          {reason.join(" ")}
                        </small>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <Field name="note" id="return-note" label="Note for the suppliers (optional)" value={asked ? text(asked.values, "note") : ""} errors={asked?.errors ?? {}} />
        <Field
          name="customer_tracking"
          id="return-customer-tracking"
          label="The customer's parcel tracking (optional; it can be added later)"
          value={asked ? text(asked.values, "customer_tracking") : ""}
          errors={asked?.errors ?? {}}
        />
        {past ? (
          <label>
            <input type="checkbox" name="force" value="true" checked={asked ? text(asked.values, "force") === "true" : false} /> Request it past the return window all the same
            <br />
            <small class="muted">A line above is past its supplier's return window: the request is refused unless you say so; the return says it was forced.</small>
          </label>
        ) : null}
        <button type="submit">Request the return</button>
      </form>
    </details>
  );
}
