// One dispatch in the supplier portal, and the supplier's answers to it: accept, decline with a
// reason, confirm part of a line, add a shipment (per line, or for every line at once), and
// acknowledge a pulled order. Every answer goes through the same service as the supplier API
// (applyAnswers: all or nothing; acknowledgeDispatch), its fields checked as the API checks them.
// A lost race (another answer changed a line first) shows the API's 409 message over the dispatch
// as it is now; bad input comes back beside its field, every field at once and each once, what was
// typed kept. A quantity input says how much the line takes (max); the server's check is what counts.
import { Hono, type Context } from "hono";
import type { AppEnv } from "../env";
import { ApiError, type ValidationErrors } from "../lib/errors";
import { parseId } from "../lib/params";
import { attempt, done } from "../console/forms";
import { CsrfField, Field, FormError } from "../ui/field";
import { acknowledgeDispatch, acknowledgeOffered, getSupplierDispatch, type SupplierDispatchDetail } from "./supplier-dispatches.service";
import { answerErrors, applyAnswers } from "./answers.service";
import { leftToShip, offeredAnswers, type Answer } from "./answers.judge";
import { readAnswers } from "./answers.schemas";
import { DispatchCard, dispatchPath } from "./supplier-portal.pages";
import type { OrderLine } from "../db/schema";
import { count } from "../lib/plural";

export const supplierDispatchPages = new Hono<AppEnv>();

// A dispatch's answers (a cancellation is answered on its own page: supplier-cancellations.pages.tsx).
type Action = Exclude<Answer["action"], "confirm_cancellation" | "refuse_cancellation">;
const ACTIONS: readonly Action[] = ["accept", "decline", "partial", "ship"];

/** The fields' labels: validation messages name them ("The Reason field is required when action is decline."). */
const LABELS: Record<string, string> = {
  reason: "Reason",
  quantity: "Quantity",
  carrier: "Carrier",
  tracking_number: "Tracking number",
  tracking_url: "Tracking URL",
};
const FIELDS = Object.keys(LABELS);
/** A shipment's quantity is what went out, not what was confirmed. */
const labelsOf = (action: Action): Record<string, string> => (action === "ship" ? { ...LABELS, quantity: "Quantity shipped" } : LABELS);

/** Which form was sent: one line's, or the whole dispatch's ("all"), and its answer. */
type FormKey = { line: number | "all"; action: Action };

type PageState = {
  status?: 200 | 404 | 409 | 422;
  /** The form sent, with what was typed and its errors. */
  sent?: FormKey & { values: Record<string, string>; errors: ValidationErrors };
  /** A refusal that belongs to no field: the API's 409 message. */
  conflict?: string;
};

function dispatchIdOf(c: Context<AppEnv>): number {
  const raw = c.req.param("id") ?? "";
  const id = parseId(raw);
  if (id === null) throw ApiError.notFound(`Order with dispatch id '${raw}' not found`);
  return id;
}

const load = (c: Context<AppEnv>) => getSupplierDispatch(c.get("db"), c.get("supplier"), dispatchIdOf(c));

function render(c: Context<AppEnv>, detail: SupplierDispatchDetail, state: PageState = {}) {
  c.status(state.status ?? 200);
  const token = c.get("session").csrfToken;
  const { dispatch, order } = detail;
  return c.render(
    <>
      <nav class="breadcrumb" aria-label="Breadcrumb">
        <a href="/supplier">Open dispatches</a> · <a href="/supplier/history">History</a>
      </nav>
      <h1>Order {order.reference}</h1>
      {state.conflict ? (
        <p class="callout" role="alert">
          Not possible now: {state.conflict} The dispatch below shows every line as it is now.
        </p>
      ) : null}
      {acknowledgeOffered(detail) ? <Acknowledge dispatchId={dispatch.id} token={token} /> : null}
      <DispatchCard
        data={detail}
        currency={c.get("session").currency!}
        shipments={detail.shipments}
        lineActions={(line) => <LineAnswers line={line} shipped={shippedOf(detail, line.id)} dispatchId={dispatch.id} token={token} state={state} />}
      />
      <WholeDispatchAnswers detail={detail} token={token} state={state} />
    </>,
    { title: `Order ${order.reference}` },
  );
}

/** What is shipped of a line, by the dispatch's shipments. */
const shippedOf = (detail: SupplierDispatchDetail, lineId: number) => detail.shipments.reduce((sum, s) => sum + (s.orderLineId === lineId ? s.quantity : 0), 0);

supplierDispatchPages.get("/dispatches/:id", async (c) => render(c, await load(c)));

// A reload of a page rendered by a refused form: back to the dispatch itself.
supplierDispatchPages.get("/dispatches/:id/answers", (c) => c.redirect(dispatchPath(dispatchIdOf(c)), 303));
supplierDispatchPages.get("/dispatches/:id/acknowledge", (c) => c.redirect(dispatchPath(dispatchIdOf(c)), 303));

supplierDispatchPages.post("/dispatches/:id/answers", async (c) => {
  const db = c.get("db");
  const supplier = c.get("supplier");
  const detail = await load(c);
  const body = await c.req.parseBody();
  const text = (key: string) => (typeof body[key] === "string" ? (body[key] as string) : "");
  const action = text("action") as Action;
  if (!ACTIONS.includes(action)) throw ApiError.validation({ action: ["The selected action is invalid."] });
  const target = text("line_id");
  const values = Object.fromEntries(FIELDS.map((f) => [f, text(f)]));
  const form: FormKey = { line: target === "all" ? "all" : Number(target), action };

  // The lines answered, all of this dispatch: the one named, or for the whole dispatch the lines the
  // page offered the answer for (as the supplier saw them: if one changed since, the answer is refused whole).
  const ids = target === "all" ? text("line_ids").split(",").filter(Boolean) : [target];
  const lines = ids.map((raw) => {
    const line = detail.lines.find((l) => l.id === parseId(raw));
    if (!line) throw ApiError.notFound(`Order line with id '${raw}' not found`);
    return line;
  });
  if (lines.length === 0) return render(c, detail, { status: 409, conflict: `No line of this dispatch can be given the answer '${action}' now.` });

  // The same answer to every line, checked as the API checks a body: the fields and what the lines
  // take (a quantity past what is left to ship), every failing one at once.
  const raw = { answers: lines.map((l) => ({ ...values, line_id: l.id, action })) };
  const read = await readAnswers(raw, (answers) => answerErrors(db, supplier, answers));
  if (!read.ok) return render(c, detail, { status: 422, sent: { ...form, values, errors: formErrors(read.errors, labelsOf(action)) } });
  // The service's own refusals: a field's (422, beside it, in its label) or the lines' state (409).
  const result = await attempt(() => applyAnswers(db, c.get("pipeline"), supplier, read.answers));
  if (!result.ok) {
    if (result.message) return render(c, await load(c), { status: 409, conflict: result.message });
    return render(c, detail, { status: 422, sent: { ...form, values, errors: formErrors(result.errors, labelsOf(action)) } });
  }
  return done(c, dispatchPath(detail.dispatch.id), { kind: "success", text: answeredText(action, lines) });
});

supplierDispatchPages.post("/dispatches/:id/acknowledge", async (c) => {
  const detail = await load(c);
  const result = await attempt(() => acknowledgeDispatch(c.get("db"), c.get("supplier"), detail.dispatch.id));
  if (!result.ok) return render(c, await load(c), { status: 409, conflict: result.message });
  return done(c, dispatchPath(detail.dispatch.id), { kind: "success", text: `Order ${detail.order.reference} acknowledged: the shop knows you have it.` });
});

/**
 * The API's errors name each answer's field (answers.1.quantity): the form has each field once, so
 * each message goes beside it in the field's label, once, whatever number of lines it answers.
 */
function formErrors(errors: ValidationErrors, labels: Record<string, string>): ValidationErrors {
  const out: ValidationErrors = {};
  for (const [key, messages] of Object.entries(errors)) {
    const name = key.replace(/^answers\.\d+\./, "");
    const list = (out[name] ??= []);
    for (const message of messages) {
      const text = message.replace(key, labels[name] ?? name);
      if (!list.includes(text)) list.push(text);
    }
  }
  return out;
}

function answeredText(action: Action, lines: OrderLine[]): string {
  const what = lines.length === 1 ? `'${lines[0].name}'` : `all ${lines.length} lines`;
  switch (action) {
    case "accept":
      return `Accepted ${what}.`;
    case "decline":
      return `Declined ${what}.`;
    case "partial":
      return `Confirmed part of ${what}.`;
    case "ship":
      return `Shipment added to ${what}.`;
  }
}

// ---- Forms ------------------------------------------------------------------------

type FieldProps = Parameters<typeof Field>[0];
/** Makes one of the answer's fields, with the form's id prefix and what was typed into it. */
type FieldMaker = (name: string, extra?: Partial<FieldProps>) => unknown;

/**
 * One answer's form. Without fields it is a single button (Accept); with fields it opens from a
 * summary, and opens by itself when it comes back with errors.
 */
function AnswerForm(props: {
  dispatchId: number;
  token: string;
  line: number | "all";
  action: Action;
  summary?: string;
  button: string;
  /** Read after the button's and summary's visible text by a screen reader ("line Blue mug"). */
  context: string;
  state: PageState;
  fields?: (field: FieldMaker) => unknown;
  /** The whole dispatch's form: the lines it answers, as the page showed them. */
  lineIds?: number[];
}) {
  const { state } = props;
  const sent = state.sent && state.sent.line === props.line && state.sent.action === props.action ? state.sent : undefined;
  const shown = new Set<string>();
  const field: FieldMaker = (name, extra = {}) => {
    shown.add(name);
    return <Field id={`answer-${props.line}-${props.action}-${name}`} name={name} label={labelsOf(props.action)[name]} value={sent?.values[name]} errors={sent?.errors} {...extra} />;
  };
  // The fields first: the errors of the fields they show go beside them, the others above the button.
  const fields = props.fields?.(field);
  const form = (
    <form method="post" action={`${dispatchPath(props.dispatchId)}/answers`} novalidate>
      <CsrfField token={props.token} />
      <input type="hidden" name="line_id" value={String(props.line)} />
      {props.lineIds ? <input type="hidden" name="line_ids" value={props.lineIds.join(",")} /> : null}
      <input type="hidden" name="action" value={props.action} />
      {fields}
      {/* Errors of a field this form does not show (a tampered request): above the button, never lost. */}
      <FormError messages={sent ? Object.entries(sent.errors).flatMap(([name, messages]) => (shown.has(name) ? [] : messages)) : undefined} />
      <button type="submit" class={props.action === "decline" ? "secondary" : undefined}>
        {props.button}
        {props.context ? <span class="visually-hidden"> {props.context}</span> : null}
      </button>
    </form>
  );
  if (!props.fields) return form;
  return (
    <details class="answer" open={!!sent}>
      <summary>
        {props.summary}
        {props.context ? <span class="visually-hidden"> {props.context}</span> : null}
      </summary>
      {form}
    </details>
  );
}

const reasonField = (field: FieldMaker) => field("reason", { required: true });

/**
 * A shipment's fields; with `left`, one line's, whose quantity takes at most what is left to ship.
 * A plain function, not a component: the form must know which fields it shows as it renders them.
 */
function shipmentFields(field: FieldMaker, left?: number) {
  return (
    <>
      {left !== undefined ? field("quantity", { type: "number", inputmode: "numeric", min: "1", max: String(left), hint: `Leave empty for all ${left} left to ship` }) : null}
      {field("carrier", { autocomplete: "off" })}
      {field("tracking_number", { autocomplete: "off" })}
      {field("tracking_url", { type: "url", hint: "The carrier's tracking page (https://…)" })}
    </>
  );
}

/** The answers that fit a line now; none once it is answered for good (declined, failed, ...). */
function LineAnswers({ line, shipped, dispatchId, token, state }: { line: OrderLine; shipped: number; dispatchId: number; token: string; state: PageState }) {
  const offered = offeredAnswers(line, shipped);
  if (offered.length === 0) return null;
  const common = { dispatchId, token, line: line.id, state, context: `line ${line.name}` };
  return (
    <div class="line-answers">
      {offered.includes("accept") ? <AnswerForm {...common} action="accept" button="Accept" /> : null}
      {offered.includes("decline") ? <AnswerForm {...common} action="decline" summary="Decline…" button="Decline" fields={reasonField} /> : null}
      {offered.includes("partial") ? (
        <AnswerForm
          {...common}
          action="partial"
          summary="Confirm part…"
          button="Confirm quantity"
          fields={(field) => (
            <>
              {field("quantity", {
                type: "number",
                inputmode: "numeric",
                min: String(Math.max(1, shipped)),
                max: String(line.quantity - 1),
                required: true,
                hint: `How many of the ${line.quantity} you will deliver`,
              })}
              {field("reason")}
            </>
          )}
        />
      ) : null}
      {offered.includes("ship") ? (
        <AnswerForm
          {...common}
          action="ship"
          summary="Add shipment…"
          button="Add shipment"
          fields={(field) => shipmentFields(field, leftToShip(line, shipped))}
        />
      ) : null}
    </div>
  );
}

/** One answer for every line it fits, in one all-or-nothing call. */
function WholeDispatchAnswers({ detail, token, state }: { detail: SupplierDispatchDetail; token: string; state: PageState }) {
  const fitting = (action: Action) => detail.lines.filter((l) => offeredAnswers(l, shippedOf(detail, l.id)).includes(action)).map((l) => l.id);
  const [accept, decline, ship] = [fitting("accept"), fitting("decline"), fitting("ship")];
  if (detail.lines.length < 2 || accept.length + decline.length + ship.length === 0) return null;
  const common = { dispatchId: detail.dispatch.id, token, line: "all" as const, state, context: "" };
  const lines = (ids: number[]) => count(ids.length, "line");
  return (
    <section class="whole-dispatch" aria-labelledby="whole-dispatch-heading">
      <h2 id="whole-dispatch-heading">Answer every line at once</h2>
      <p class="muted">All or nothing: if another answer changed one of these lines first, nothing is written and you see why.</p>
      <div class="line-answers">
        {accept.length ? <AnswerForm {...common} action="accept" lineIds={accept} button={`Accept ${lines(accept)}`} /> : null}
        {decline.length ? (
          <AnswerForm {...common} action="decline" lineIds={decline} summary={`Decline ${lines(decline)}…`} button={`Decline ${lines(decline)}`} fields={reasonField} />
        ) : null}
        {ship.length ? (
          <AnswerForm
            {...common}
            action="ship"
            lineIds={ship}
            summary={`Ship ${lines(ship)}…`}
            button={`Add shipment to ${lines(ship)}`}
            fields={(field) => shipmentFields(field)}
          />
        ) : null}
      </div>
    </section>
  );
}

function Acknowledge({ dispatchId, token }: { dispatchId: number; token: string }) {
  return (
    <form method="post" action={`${dispatchPath(dispatchId)}/acknowledge`} class="acknowledge">
      <CsrfField token={token} />
      <p>
        Waiting for you to take this order. Acknowledging it tells the shop you have it: its lines still waiting for an answer are accepted.
      </p>
      <button type="submit">Acknowledge order</button>
    </form>
  );
}
