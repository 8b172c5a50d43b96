// The console face of acting on one line (src/routing/line-actions.ts): "Send to a supplier…" (a
// page of its own to choose the supplier, each with its stock and purchase price, then POST
// .../lines/{id}/assign), "Re-route now" (POST .../lines/{id}/reroute) and, on a partly confirmed
// line, the same two for its rest and "Cancel the rest" (POST .../lines/{id}/cancel-rest); offered
// where lineActions allows them, on the order page (LineActions, placed by it) and on Needs
// attention. As thin as the API's routes: the same services, the same refusals; the browser goes
// back where it came from with the outcome in the flash.
import { z } from "@hono/zod-openapi";
import { Hono, type Context } from "hono";
import { attempt, done, formFields, text, type FormValues } from "../console/forms";
import type { Actor, LineStatus } from "../db/schema";
import type { AppEnv } from "../env";
import { ApiError, type ValidationErrors } from "../lib/errors";
import { idOrNotFound } from "../lib/params";
import { field, validateForm } from "../lib/validation";
import { PostButton } from "../ui/actions";
import { LineStatusBadge } from "../ui/badge";
import { CsrfField, FormError } from "../ui/field";
import { money } from "../ui/format";
import { LocalTime } from "../ui/time";
import { assignChoices, assignLine, cancelRest, lineActions, restOf, rerouteLine, type AssignChoice } from "./line-actions";

export const lineActionPages = new Hono<AppEnv>();

const LABELS = { supplier_id: "Supplier" };
const AssignForm = z.object({ supplier_id: field.int({ min: 1, max: 1e15 }) });

type Line = { id: number; currentStatus: LineStatus; matchedSupplierId: number | null; quantity: number; confirmedQuantity: number | null };

/** Where the browser goes back to: Needs attention when the action came from there, else the line on its order's page. */
const backTo = (values: FormValues, reference: string, lineId: number) =>
  text(values, "back") === "attention" ? "/console" : `/console/orders/${reference}#line-${lineId}`;

const consoleActor = (c: Context<AppEnv>): Actor => ({ channel: "console", api_key_id: c.get("account").apiKeyId, session_id: c.get("session").sessionId });

/** The actions a line offers (lineActions decides): a stuck line's, or a partly confirmed line's for its rest. `back`: "attention" on Needs attention. */
export function LineActions({ reference, line, csrf, back }: { reference: string; line: Line; csrf: string; back?: "attention" }) {
  const offered = lineActions(line);
  if (offered.length === 0) return null;
  const base = `/console/orders/${reference}/lines/${line.id}`;
  const rest = restOf(line);
  const fields: Record<string, string> = back ? { back } : {};
  return (
    <span class="page-actions line-actions">
      {rest ? (
        <small class="muted">
          {`${line.confirmedQuantity} of ${line.quantity} confirmed; the other ${rest} ${rest === 1 ? "has" : "have"} no supplier.`}
        </small>
      ) : null}
      <a href={`${base}/assign${back ? `?back=${back}` : ""}`} role="button" class="secondary outline" aria-label={`${rest ? `Send the rest (${rest}) to a supplier…` : "Send to a supplier…"} (line #${line.id})`}>
        {rest ? `Send the rest (${rest}) to a supplier…` : "Send to a supplier…"}
      </a>
      {offered.includes("reroute") ? (
        <PostButton action={`${base}/reroute`} csrf={csrf} label={rest ? "Re-route the rest now" : "Re-route now"} ariaLabel={`${rest ? "Re-route the rest now" : "Re-route now"} (line #${line.id})`} fields={fields} />
      ) : null}
      {offered.includes("cancel_rest") ? (
        <PostButton action={`${base}/cancel-rest`} csrf={csrf} variant="danger" label={`Cancel the rest (${rest})`} ariaLabel={`Cancel the rest (${rest}) (line #${line.id})`} fields={fields} />
      ) : null}
    </span>
  );
}

lineActionPages.get("/orders/:reference/lines/:lineId/assign", (c) => renderAssign(c, { values: { back: c.req.query("back") ?? "" }, errors: {} }));

const HAD_WORDS: Record<NonNullable<AssignChoice["had"]>["outcome"], string> = {
  declined: "declined this line",
  partial: "confirmed only part of this line",
  failed: "could not be sent this line",
  overdue: "did not answer in time for this line",
};

/** One supplier to choose: its name, its catalogue offer (stock and purchase price), and whether it had the line before. */
function ChoiceLabel({ choice: s, quantity, currency }: { choice: AssignChoice; quantity: number; currency: string }) {
  const offer = s.offer;
  return (
    <span class="choice">
      <strong>{s.name}</strong>
      {" · "}
      {offer === null ? (
        <span class="muted">no catalogue offer</span>
      ) : (
        <span>
          {offer.stockQuantity === null ? "stock unknown" : `${offer.stockQuantity} in stock`}
          {s.enoughStock ? "" : ` (${quantity} needed)`}
          {" · purchase price "}
          {money(offer.purchasePrice, currency)}
        </span>
      )}
      {s.had ? (
        <>
          <br />
          <small class="had">
            {HAD_WORDS[s.had.outcome]} on <LocalTime iso={s.had.at} />: {s.had.reason}
          </small>
        </>
      ) : null}
    </span>
  );
}

async function renderAssign(c: Context<AppEnv>, form: { values: FormValues; errors: ValidationErrors; message?: string; confirmFor?: AssignChoice }) {
  const reference = c.req.param("reference")!;
  const lineId = idOrNotFound(c.req.param("lineId")!, "Order line");
  const { order, line, supplierName, quantity, choices } = await assignChoices(c.get("db"), c.get("account").id, reference, lineId);
  const currency = order.currency ?? c.get("account").currency;
  const rest = restOf(line);
  const title = rest ? `Send the rest of line #${line.id} to a supplier` : `Send line #${line.id} to a supplier`;
  const chosen = text(form.values, "supplier_id");
  const messages = form.errors.supplier_id;
  return c.render(
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/console/orders">Orders</a> / <a href={`/console/orders/${reference}`}>{reference}</a> / <span aria-current="page">{title}</span>
      </nav>
      <h1>{title}</h1>
      <p>
        {line.quantity} × {line.name} <LineStatusBadge status={line.currentStatus} />
        {supplierName ? ` · now with supplier ${supplierName}` : " · no supplier"}
      </p>
      {rest ? (
        <p>
          {`Supplier ${supplierName ?? "?"} confirmed ${line.confirmedQuantity} of ${line.quantity} and delivers those. The other ${rest} go${rest === 1 ? "es" : ""} to the supplier you choose, as a new line of the order.`}
        </p>
      ) : null}
      {form.message ? <FormError messages={[form.message]} /> : null}
      {!lineActions(line).includes("assign") ? (
        <p class="callout" role="note">
          This line is {line.currentStatus}: only a pending, failed or declined line, or the rest of a partly confirmed one, can be sent to a supplier by hand.
        </p>
      ) : choices.length === 0 ? (
        <p class="callout" role="note">
          The account has no active supplier. <a href="/console/suppliers">Add or activate one</a> first.
        </p>
      ) : (
        <form method="post" action={`/console/orders/${reference}/lines/${line.id}/assign`} novalidate class="stacked">
          <CsrfField token={c.get("session").csrfToken} />
          <input type="hidden" name="back" value={text(form.values, "back")} />
          <fieldset class="radio-group supplier-choices" aria-invalid={messages?.length ? "true" : undefined} aria-describedby={`field-supplier_id-hint${messages?.length ? " field-supplier_id-error" : ""}`}>
            <legend>{LABELS.supplier_id}</legend>
            {choices.map((s) => (
              <label for={`field-supplier_id-${s.id}`} class={s.had ? "had-line" : undefined}>
                <input id={`field-supplier_id-${s.id}`} type="radio" name="supplier_id" value={String(s.id)} checked={chosen === String(s.id)} />
                <ChoiceLabel choice={s} quantity={quantity} currency={currency} />
              </label>
            ))}
            <small id="field-supplier_id-hint">
              {`Any active supplier; stock and purchase price from its catalogue feed for this product (${quantity} needed). Suppliers that had this line come last. The line is sent on the supplier's channel, and the log says you chose it.`}
            </small>
            {messages?.length ? (
              <small id="field-supplier_id-error" class="field-error">
                {messages.join(" ")}
              </small>
            ) : null}
          </fieldset>
          {form.confirmFor ? (
            <label for="field-confirm">
              <input id="field-confirm" type="checkbox" name="confirm" value={String(form.confirmFor.id)} />
              {`Yes, send it to ${form.confirmFor.name} again`}
            </label>
          ) : null}
          <div class="page-actions">
            <button type="submit">Send to this supplier</button>
            <a href={backTo(form.values, reference, line.id)} role="button" class="secondary outline">
              Cancel
            </a>
          </div>
        </form>
      )}
    </>,
    { title },
  );
}

lineActionPages.post("/orders/:reference/lines/:lineId/assign", async (c) => {
  const reference = c.req.param("reference");
  const lineId = idOrNotFound(c.req.param("lineId"), "Order line");
  const values = await formFields(c);
  const refused = (form: { errors: ValidationErrors; message?: string; confirmFor?: AssignChoice }) => {
    c.status(Object.keys(form.errors).length ? 422 : 409);
    return renderAssign(c, { values, ...form });
  };
  const checked = validateForm(AssignForm, { supplier_id: text(values, "supplier_id") }, LABELS);
  if (!checked.ok) return refused({ errors: checked.errors });
  const supplierId = checked.data.supplier_id;
  // A supplier that let this line go before may be chosen again (a person may know better), once they confirm it.
  if (text(values, "confirm") !== String(supplierId)) {
    const again = (await assignChoices(c.get("db"), c.get("account").id, reference, lineId)).choices.find((s) => s.id === supplierId && s.had);
    if (again?.had) {
      return refused({
        errors: { supplier_id: [`Supplier ${again.name} ${HAD_WORDS[again.had.outcome]} before (${again.had.reason}). Tick “Yes, send it to ${again.name} again” to send it there anyway.`] },
        confirmFor: again,
      });
    }
  }
  const result = await attempt(() => assignLine(c.get("db"), c.get("pipeline"), c.get("account").id, reference, lineId, supplierId, consoleActor(c)), LABELS);
  if (!result.ok) return refused(result);
  const what = result.value.rest ? `The other ${result.value.rest} of line #${lineId}` : `Line #${lineId}`;
  return done(c, backTo(values, reference, lineId), { kind: "success", text: `${what} of order ${reference} ${result.value.rest > 1 ? "are" : "is"} being sent to supplier ${result.value.supplier.name}.` });
});

lineActionPages.post("/orders/:reference/lines/:lineId/reroute", async (c) => {
  const reference = c.req.param("reference");
  const lineId = idOrNotFound(c.req.param("lineId"), "Order line");
  const values = await formFields(c);
  const result = await attempt(() => rerouteLine(c.get("db"), c.get("pipeline"), c.get("account").id, reference, lineId, consoleActor(c)));
  if (!result.ok) return done(c, backTo(values, reference, lineId), { kind: "error", text: result.message ?? "The line could not be re-routed." });
  const what = result.value.rest ? `The other ${result.value.rest} of line #${lineId}` : `Line #${lineId}`;
  return done(c, backTo(values, reference, lineId), { kind: "success", text: `${what} of order ${reference} re-routed to supplier ${result.value.supplier.name}.` });
});

lineActionPages.post("/orders/:reference/lines/:lineId/cancel-rest", async (c) => {
  const reference = c.req.param("reference");
  const lineId = idOrNotFound(c.req.param("lineId"), "Order line");
  const values = await formFields(c);
  const result = await attempt(() => cancelRest(c.get("db"), c.get("account").id, reference, lineId, consoleActor(c)));
  if (!result.ok) return done(c, backTo(values, reference, lineId), { kind: "error", text: result.message ?? "The rest of the line could not be cancelled." });
  return done(c, backTo(values, reference, lineId), {
    kind: "success",
    text: `The other ${result.value.quantity} of line #${lineId} of order ${reference} ${result.value.quantity === 1 ? "is" : "are"} cancelled; its supplier delivers what it confirmed.`,
  });
});
