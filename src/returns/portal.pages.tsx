// The supplier portal's returns: the supplier's open returns, oldest first, each with the answers
// its state takes (authorise or decline a requested one; receive one authorised or in transit, per
// line what arrived and in what condition; credit or close a received one). Every answer is checked
// as the API checks it (ReturnAnswerBody) and carried out by the same service (moveReturn): bad
// input comes back beside its field, what was typed kept; an answer the return has moved past is
// the API's 409 in words over the return as it is now.
import { Hono, type Context } from "hono";
import { attempt, done, formFields, text, type FormValues } from "../console/forms";
import { RETURN_CONDITIONS, type ReturnStatus } from "../db/schema";
import type { AppEnv } from "../env";
import { ApiError, type ValidationErrors } from "../lib/errors";
import { pageParam } from "../lib/pagination";
import { parseId } from "../lib/params";
import { validateForm } from "../lib/validation";
import { Badge, type Tone } from "../ui/badge";
import { CsrfField, Field, FormError, SelectField } from "../ui/field";
import { EmptyState } from "../ui/notice";
import { Pagination } from "../ui/pagination";
import { LocalTime } from "../ui/time";
import { moveReturn, offeredReturnAnswers } from "./answers.service";
import { RETURN_ACTIONS, ReturnAnswerBody, type ReturnAction } from "./returns.schemas";
import { getSupplierReturn, listSupplierReturns, OPEN_RETURN_STATUSES, type ReturnView } from "./returns.service";
import { getReturnSettings } from "./settings.service";

export const supplierReturnPages = new Hono<AppEnv>();

const PER_PAGE = 20;
export const RETURNS_PATH = "/supplier/returns";

const STATE: Record<ReturnStatus, { label: string; tone: Tone }> = {
  requested: { label: "Requested", tone: "orange" },
  authorised: { label: "Authorised", tone: "blue" },
  declined: { label: "Declined", tone: "grey" },
  in_transit: { label: "In transit", tone: "blue" },
  received: { label: "Received", tone: "purple" },
  credited: { label: "Credited", tone: "green" },
  closed: { label: "Closed", tone: "grey" },
  cancelled: { label: "Cancelled", tone: "grey" },
};

/** The fields' labels: the API's messages name a field by its key, the form by its label. */
const LABELS: Record<string, string> = {
  rma: "RMA number",
  return_address: "Return address",
  label_url: "Return label URL",
  reason: "Reason",
  amount: "Amount",
  currency: "Currency",
};

/** The form sent, shown again with what was typed and its errors (keyed by the form's own field names). */
type Sent = { returnId: number; action: ReturnAction; values: FormValues; errors: ValidationErrors };
type PageState = { status?: 200 | 409 | 422; sent?: Sent; conflict?: string };

async function render(c: Context<AppEnv>, state: PageState = {}) {
  const supplier = c.get("supplier");
  const db = c.get("db");
  const page = { page: pageParam(c.req.query("page")), perPage: PER_PAGE };
  const [{ total, data }, settings] = await Promise.all([listSupplierReturns(db, supplier, OPEN_RETURN_STATUSES, page), getReturnSettings(db, supplier.accountId, supplier.id)]);
  const ctx: CardContext = { token: c.get("session").csrfToken, currency: c.get("session").currency ?? "EUR", address: settings.return_address, state };
  c.status(state.status ?? 200);
  return c.render(
    <>
      <hgroup>
        <h1>Returns</h1>
        <p>Goods customers send back to {supplier.name}, oldest first. Authorise or decline each, say what arrived, then credit the shop or close it.</p>
      </hgroup>
      {state.conflict ? (
        <p class="callout" role="alert">
          Not possible now: {state.conflict} The returns below are shown as they are now.
        </p>
      ) : null}
      {total === 0 ? (
        <EmptyState title="No return waits for you">
          <p>When a shop's customer sends goods of yours back, the return appears here (and in GET /api/v1/supplier/returns).</p>
        </EmptyState>
      ) : (
        <>
          {data.map((v) => (
            <ReturnCard view={v} ctx={ctx} />
          ))}
          <Pagination path={RETURNS_PATH} query={new URL(c.req.url).searchParams} noun="return" window={{ page: page.page, perPage: PER_PAGE, total, shown: data.length }} />
        </>
      )}
    </>,
    { title: "Returns" },
  );
}

supplierReturnPages.get("/returns", (c) => render(c));
// A reload of a page rendered by a refused form: back to the list.
supplierReturnPages.get("/returns/:id/answer", (c) => c.redirect(RETURNS_PATH, 303));

/** The form's fields as the API's body: receive's lines from one quantity and condition field per line. */
function bodyOf(action: ReturnAction, values: FormValues, view: ReturnView): Record<string, unknown> {
  const own = (name: string) => (text(values, name).trim() === "" ? undefined : text(values, name));
  if (action === "receive") {
    return { action, lines: view.lines.map((l) => ({ line_id: l.orderLineId, quantity: own(`quantity_${l.orderLineId}`), condition: own(`condition_${l.orderLineId}`) })) };
  }
  return Object.fromEntries([["action", action], ...Object.keys(LABELS).map((k) => [k, own(k)])].filter(([, v]) => v !== undefined));
}

/** The API's error keys (lines.0.quantity) as the form's fields (quantity_901), each message in the field's label. */
function formErrors(errors: ValidationErrors, view: ReturnView): ValidationErrors {
  const out: ValidationErrors = {};
  for (const [key, messages] of Object.entries(errors)) {
    const line = /^lines\.(\d+)\.(quantity|condition|line_id)$/.exec(key);
    const l = line ? view.lines[Number(line[1])] : undefined;
    const name = line && l ? `${line[2] === "condition" ? "condition" : "quantity"}_${l.orderLineId}` : key;
    const label = line && l ? `${line[2] === "condition" ? "Condition" : "Quantity received"} of ${l.name}` : (LABELS[key] ?? key);
    (out[name] ??= []).push(...messages.map((m) => m.replace(key, label)));
  }
  return out;
}

const VERB: Record<ReturnAction, string> = { authorise: "authorised", decline: "declined", receive: "received", credit: "credited", close: "closed" };

supplierReturnPages.post("/returns/:id/answer", async (c) => {
  const raw = c.req.param("id");
  const id = parseId(raw);
  if (id === null) throw ApiError.notFound(`Return with id '${raw}' not found`);
  const supplier = c.get("supplier");
  const db = c.get("db");
  const values = await formFields(c);
  const action = text(values, "action") as ReturnAction;
  const view = await getSupplierReturn(db, supplier, id);
  // An answer the return's state does not take is the service's to judge (the API's 409 in words).
  if (!RETURN_ACTIONS.includes(action)) throw ApiError.validation({ action: ["The selected action is invalid."] });
  const refused = (errors: ValidationErrors) => render(c, { status: 422, sent: { returnId: id, action, values, errors: formErrors(errors, view) } });
  const read = validateForm(ReturnAnswerBody, bodyOf(action, values, view));
  if (!read.ok) return refused(read.errors);
  const who = `supplier ${supplier.name} (portal)`;
  const result = await attempt(() => moveReturn(db, c.get("pipeline"), { accountId: supplier.accountId, supplierId: supplier.id, who }, id, read.data));
  if (!result.ok) return result.message ? render(c, { status: 409, conflict: result.message }) : refused(result.errors);
  return done(c, RETURNS_PATH, { kind: "success", text: `Return ${id} (order ${view.order.reference}) ${VERB[action]}.` });
});

// ---- The cards and their forms ------------------------------------------------------

type CardContext = { token: string; currency: string; address: string | null; state: PageState };

function ReturnCard({ view, ctx }: { view: ReturnView; ctx: CardContext }) {
  const r = view.ret;
  const offered = offeredReturnAnswers(r.status);
  const headingId = `return-${r.id}`;
  return (
    <article class="dispatch return" aria-labelledby={headingId}>
      <header>
        <h2 id={headingId}>
          Order {view.order.reference} <small class="muted">return #{r.id}</small>
        </h2>
        <Badge tone={STATE[r.status].tone}>{STATE[r.status].label}</Badge>
      </header>
      <p class="muted">
        Asked <LocalTime iso={r.createdAt} /> · shop order {view.order.externalId}
        {r.rma ? ` · RMA ${r.rma}` : ""}
        {r.customerTracking ? ` · customer's parcel ${r.customerCarrier ? `${r.customerCarrier} ` : ""}${r.customerTracking}` : ""}
      </p>
      {r.note ? <p>Note from the shop: {r.note}</p> : null}
      <ul class="dispatch-lines">
        {view.lines.map((l) => (
          <li>
            <strong>{l.quantity} ×</strong> {l.name}
            {l.receivedQuantity !== null ? ` · received ${l.receivedQuantity}${l.condition ? `, ${l.condition}` : ""}` : ""}
            <br />
            <small class="muted">
              SKU {l.reference ?? "—"} · line #{l.orderLineId} · reason: {l.reason ?? "none given"}
            </small>
          </li>
        ))}
      </ul>
      <div class="line-answers">
        {offered.map((action) => (
          <AnswerForm view={view} action={action} ctx={ctx} />
        ))}
      </div>
    </article>
  );
}

const SUMMARY: Record<ReturnAction, string> = { authorise: "Authorise…", decline: "Decline…", receive: "Receive…", credit: "Credit…", close: "Close without credit…" };
const BUTTON: Record<ReturnAction, string> = { authorise: "Authorise return", decline: "Decline return", receive: "Confirm receipt", credit: "Credit the shop", close: "Close return" };

function AnswerForm({ view, action, ctx }: { view: ReturnView; action: ReturnAction; ctx: CardContext }) {
  const r = view.ret;
  const sent = ctx.state.sent?.returnId === r.id && ctx.state.sent.action === action ? ctx.state.sent : undefined;
  const shown = new Set<string>();
  const id = (name: string) => `return-${r.id}-${action}-${name}`;
  const field = (name: string, extra: Partial<Parameters<typeof Field>[0]> = {}) => {
    shown.add(name);
    return <Field id={id(name)} name={name} label={LABELS[name]} value={sent ? text(sent.values, name) : undefined} errors={sent?.errors} {...extra} />;
  };
  const fields = (() => {
    switch (action) {
      case "authorise":
        return (
          <>
            {field("rma", { required: true, autocomplete: "off" })}
            {field("return_address", { hint: ctx.address ? `Leave empty to use your return address: ${ctx.address}` : undefined, required: !ctx.address })}
            {field("label_url", { type: "url", hint: "Optional: a label the customer prints (https://…)" })}
          </>
        );
      case "decline":
      case "close":
        return field("reason", { required: true });
      case "credit":
        return (
          <>
            {field("amount", { inputmode: "decimal", required: true })}
            {field("currency", { value: sent ? text(sent.values, "currency") : ctx.currency, required: true, hint: "ISO 4217, such as EUR" })}
          </>
        );
      case "receive":
        return view.lines.map((l) => {
          shown.add(`quantity_${l.orderLineId}`).add(`condition_${l.orderLineId}`);
          return (
            <fieldset>
              <legend>{l.name}</legend>
              <Field
                id={id(`quantity_${l.orderLineId}`)}
                name={`quantity_${l.orderLineId}`}
                label="Quantity received"
                type="number"
                inputmode="numeric"
                min="0"
                max={String(l.quantity)}
                required
                hint={`Of ${l.quantity} sent back`}
                value={sent ? text(sent.values, `quantity_${l.orderLineId}`) : undefined}
                errors={sent?.errors}
              />
              <SelectField
                id={id(`condition_${l.orderLineId}`)}
                name={`condition_${l.orderLineId}`}
                label="Condition"
                value={sent ? text(sent.values, `condition_${l.orderLineId}`) : ""}
                options={[{ value: "", label: "Choose…" }, ...RETURN_CONDITIONS.map((c) => ({ value: c, label: c[0].toUpperCase() + c.slice(1) }))]}
                errors={sent?.errors}
              />
            </fieldset>
          );
        });
    }
  })();
  const context = ` return #${r.id}`;
  return (
    <details class="answer" open={!!sent}>
      <summary>
        {SUMMARY[action]}
        <span class="visually-hidden">{context}</span>
      </summary>
      <form method="post" action={`${RETURNS_PATH}/${r.id}/answer`} novalidate>
        <CsrfField token={ctx.token} />
        <input type="hidden" name="action" value={action} />
        {fields}
        {/* Errors of a field this form does not show (a tampered request): above the button, never lost. */}
        <FormError messages={sent ? Object.entries(sent.errors).flatMap(([name, messages]) => (shown.has(name) ? [] : messages)) : undefined} />
        <button type="submit" class={action === "decline" || action === "close" ? "secondary" : undefined}>
          {BUTTON[action]}
          <span class="visually-hidden">{context}</span>
        </button>
      </form>
    </details>
  );
}
