// The console face of acting on one stuck line (src/routing/line-actions.ts): "Send to a supplier…"
// (a page of its own to choose the supplier, then POST .../lines/{id}/assign) and "Re-route now"
// (POST .../lines/{id}/reroute), offered on each such line of the order page (LineActions, placed by
// it) and on Needs attention. As thin as the API's routes: the same services, the same refusals; the
// browser goes back where it came from with the outcome in the flash.
import { z } from "@hono/zod-openapi";
import { Hono, type Context } from "hono";
import { attempt, done, formFields, text, type FormValues } from "../console/forms";
import type { Actor, LineStatus } from "../db/schema";
import type { AppEnv } from "../env";
import { ApiError, type ValidationErrors } from "../lib/errors";
import { idOrNotFound } from "../lib/params";
import { field, validateForm } from "../lib/validation";
import { getOrder } from "../orders/orders.service";
import { supplierChoices } from "../suppliers/suppliers.service";
import { PostButton } from "../ui/actions";
import { LineStatusBadge } from "../ui/badge";
import { CsrfField, FormError, SelectField } from "../ui/field";
import { ASSIGNABLE, assignLine, REROUTABLE, rerouteLine } from "./line-actions";

export const lineActionPages = new Hono<AppEnv>();

const LABELS = { supplier_id: "Supplier" };
const AssignForm = z.object({ supplier_id: field.int({ min: 1, max: 1e15 }) });

type Line = { id: number; currentStatus: LineStatus; matchedSupplierId: number | null };

/** Where the browser goes back to: Needs attention when the action came from there, else the line on its order's page. */
const backTo = (values: FormValues, reference: string, lineId: number) =>
  text(values, "back") === "attention" ? "/console" : `/console/orders/${reference}#line-${lineId}`;

const consoleActor = (c: Context<AppEnv>): Actor => ({ channel: "console", api_key_id: c.get("account").apiKeyId, session_id: c.get("session").sessionId });

/** The actions a line offers: none unless it is stuck (no supplier works on it). `back`: "attention" on Needs attention. */
export function LineActions({ reference, line, csrf, back }: { reference: string; line: Line; csrf: string; back?: "attention" }) {
  if (!ASSIGNABLE.includes(line.currentStatus)) return null;
  const base = `/console/orders/${reference}/lines/${line.id}`;
  const reroutable = REROUTABLE.includes(line.currentStatus) && line.matchedSupplierId !== null;
  return (
    <span class="page-actions line-actions">
      <a href={`${base}/assign${back ? `?back=${back}` : ""}`} role="button" class="secondary outline" aria-label={`Send to a supplier… (line #${line.id})`}>
        Send to a supplier…
      </a>
      {reroutable ? (
        <PostButton action={`${base}/reroute`} csrf={csrf} label="Re-route now" ariaLabel={`Re-route now (line #${line.id})`} fields={back ? { back } : {}} />
      ) : null}
    </span>
  );
}

lineActionPages.get("/orders/:reference/lines/:lineId/assign", (c) => renderAssign(c, { values: { back: c.req.query("back") ?? "" }, errors: {} }));

async function renderAssign(c: Context<AppEnv>, form: { values: FormValues; errors: ValidationErrors; message?: string }) {
  const reference = c.req.param("reference")!;
  const lineId = idOrNotFound(c.req.param("lineId")!, "Order line");
  const db = c.get("db");
  const accountId = c.get("account").id;
  const [detail, suppliers] = await Promise.all([getOrder(db, accountId, reference), supplierChoices(db, accountId)]);
  const line = detail.lines.find((l) => l.id === lineId);
  if (!line) throw ApiError.notFound(`Order line with id '${lineId}' not found`);
  const active = suppliers.filter((s) => s.active);
  const title = `Send line #${line.id} to a supplier`;
  return c.render(
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/console/orders">Orders</a> / <a href={`/console/orders/${reference}`}>{reference}</a> / <span aria-current="page">Send line #{line.id} to a supplier</span>
      </nav>
      <h1>{title}</h1>
      <p>
        {line.quantity} × {line.name} <LineStatusBadge status={line.currentStatus} />
        {line.supplierName ? ` · now with supplier ${line.supplierName}` : " · no supplier"}
      </p>
      {form.message ? <FormError messages={[form.message]} /> : null}
      {!ASSIGNABLE.includes(line.currentStatus) ? (
        <p class="callout" role="note">
          This line is {line.currentStatus}: only a pending, failed or declined line can be sent to a supplier by hand.
        </p>
      ) : active.length === 0 ? (
        <p class="callout" role="note">
          The account has no active supplier. <a href="/console/suppliers">Add or activate one</a> first.
        </p>
      ) : (
        <form method="post" action={`/console/orders/${reference}/lines/${line.id}/assign`} novalidate class="stacked">
          <CsrfField token={c.get("session").csrfToken} />
          <input type="hidden" name="back" value={text(form.values, "back")} />
          <SelectField
            name="supplier_id"
            label={LABELS.supplier_id}
            value={text(form.values, "supplier_id")}
            errors={form.errors}
            hint="Any active supplier; the line is sent to it on its channel, and the log says you chose it."
            options={[{ value: "", label: "Choose a supplier" }, ...active.map((s) => ({ value: String(s.id), label: s.name }))]}
          />
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
  const refused = (form: { errors: ValidationErrors; message?: string }) => {
    c.status(Object.keys(form.errors).length ? 422 : 409);
    return renderAssign(c, { values, ...form });
  };
  const checked = validateForm(AssignForm, { supplier_id: text(values, "supplier_id") }, LABELS);
  if (!checked.ok) return refused({ errors: checked.errors });
  const result = await attempt(() => assignLine(c.get("db"), c.get("pipeline"), c.get("account").id, reference, lineId, checked.data.supplier_id, consoleActor(c)), LABELS);
  if (!result.ok) return refused(result);
  return done(c, backTo(values, reference, lineId), { kind: "success", text: `Line #${lineId} of order ${reference} is being sent to supplier ${result.value.supplier.name}.` });
});

lineActionPages.post("/orders/:reference/lines/:lineId/reroute", async (c) => {
  const reference = c.req.param("reference");
  const lineId = idOrNotFound(c.req.param("lineId"), "Order line");
  const values = await formFields(c);
  const result = await attempt(() => rerouteLine(c.get("db"), c.get("pipeline"), c.get("account").id, reference, lineId, consoleActor(c)));
  if (!result.ok) return done(c, backTo(values, reference, lineId), { kind: "error", text: result.message ?? "The line could not be re-routed." });
  return done(c, backTo(values, reference, lineId), { kind: "success", text: `Line #${lineId} of order ${reference} re-routed to supplier ${result.value.supplier.name}.` });
});
