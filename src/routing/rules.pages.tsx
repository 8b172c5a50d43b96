// The console face of routing rules: the ordered list (moved up and down without JavaScript), a new
// rule and an edit in which every condition row is checked as it is typed (htmx asks this same
// handler for the row, which it checks with the API's own schema; without JavaScript, on submit),
// and "try it": the draft explained against a stored order or a pasted one, before it is saved.
import { Hono, type Context } from "hono";
import { attempt, done, formFields, text, type FormValues } from "../console/forms";
import type { RoutingRule } from "../db/schema";
import type { AppEnv } from "../env";
import type { ValidationErrors } from "../lib/errors";
import { idOrNotFound } from "../lib/params";
import { validateForm } from "../lib/validation";
import { supplierChoices } from "../suppliers/suppliers.service";
import { PostButton } from "../ui/actions";
import { Badge } from "../ui/badge";
import { Checkbox, CsrfField, Field, FormError, RadioGroup, SelectField, TextArea } from "../ui/field";
import { EmptyState } from "../ui/notice";
import { DataTable } from "../ui/table";
import { ExplainView } from "./routing.pages";
import { presentExplanation } from "./explain.present";
import { explainOrder } from "./routing.service";
import { ExplainBody } from "./rules.schemas";
import { OPERATORS, typeOf, VARIABLES } from "./rules.language";
import { CreateRuleBody, ReorderBody, type CreateRuleInput } from "./rules.schemas";
import { createRule, deleteRule, getRule, listRules, reorderRules, updateRule } from "./rules.service";

export const rulesPages = new Hono<AppEnv>();

const PATH = "/console/rules";
/** reorderRules takes every rule at once: the list shows them all (the API's reorder takes up to 1000). */
const ALL_RULES = { page: 1, perPage: 1000 };
const MAX_CONDITIONS = 50;

type Supplier = { id: number; name: string; active: boolean };
const csrfOf = (c: Context<AppEnv>) => c.get("session").csrfToken;

// ---- The form and the API's rule -------------------------------------------------------

type Row = { variable: string; operator: string; value: string };

/** The condition rows as posted (conditions[0][variable], ...), in order. */
function rowsOf(values: FormValues): Row[] {
  const rows: Row[] = [];
  for (const [key, value] of Object.entries(values)) {
    const m = /^conditions\[(\d{1,2})\]\[(variable|operator|value)\]$/.exec(key);
    if (!m || Number(m[1]) >= MAX_CONDITIONS + 1) continue;
    const row = (rows[Number(m[1])] ??= { variable: "", operator: "", value: "" });
    row[m[2] as keyof Row] = Array.isArray(value) ? (value[0] ?? "") : value;
  }
  return [...rows].filter(Boolean);
}

/** A form's value in the type its variable reads: true/false for a yes-or-no variable, a number for a numeric one. */
function typedValue(row: Row): unknown {
  if (row.operator === "is_empty" || row.operator === "is_not_empty") return undefined;
  const type = typeOf(row.variable.trim());
  const v = row.value.trim();
  if (type === "boolean" && (v === "true" || v === "false")) return v === "true";
  if (type === "number" && row.operator !== "in_list" && row.operator !== "not_in_list" && v !== "" && Number.isFinite(Number(v))) return Number(v);
  return v === "" ? undefined : v;
}

/** The rule the form describes, in the API's JSON (POST /api/v1/routing-rules). */
function ruleBody(values: FormValues) {
  const type = text(values, "action_type");
  return {
    name: text(values, "name"),
    priority: text(values, "priority"),
    match: text(values, "match") || "all",
    active: text(values, "active") === "true" ? "true" : "false",
    no_reroute: text(values, "no_reroute") === "true" ? "true" : "false",
    action: type === "assign_supplier" ? { type, supplier_id: text(values, "supplier_id") } : { type },
    conditions: rowsOf(values).map((r) => ({ variable: r.variable.trim(), operator: r.operator, value: typedValue(r) })),
  };
}

function labels(rows: number): Record<string, string> {
  const out: Record<string, string> = { name: "Name", priority: "Priority", match: "Match", "action.type": "Action", "action.supplier_id": "Supplier", conditions: "Conditions" };
  for (let i = 0; i < rows; i++) {
    out[`conditions.${i}.variable`] = `Variable of condition ${i + 1}`;
    out[`conditions.${i}.operator`] = `Operator of condition ${i + 1}`;
    out[`conditions.${i}.value`] = `Value of condition ${i + 1}`;
  }
  return out;
}

function checkRule(values: FormValues) {
  return validateForm(CreateRuleBody, ruleBody(values), labels(rowsOf(values).length));
}

const valuesOf = (rule: RoutingRule): FormValues => {
  const out: FormValues = {
    name: rule.name,
    priority: String(rule.priority),
    match: rule.match,
    active: rule.active ? "true" : "false",
    no_reroute: rule.noReroute ? "true" : "false",
    action_type: rule.action.type,
    supplier_id: rule.action.type === "assign_supplier" ? String(rule.action.supplier_id) : "",
  };
  rule.conditions.forEach((cond, i) => {
    out[`conditions[${i}][variable]`] = cond.variable;
    out[`conditions[${i}][operator]`] = cond.operator;
    out[`conditions[${i}][value]`] = cond.value === undefined || cond.value === null ? "" : Array.isArray(cond.value) ? cond.value.join(",") : String(cond.value);
  });
  return out;
};

// ---- The list ------------------------------------------------------------------------------

rulesPages.get("/rules", async (c) => {
  const db = c.get("db");
  const accountId = c.get("account").id;
  const [{ rows }, suppliers] = await Promise.all([listRules(db, accountId, ALL_RULES), supplierChoices(db, accountId)]);
  const names = new Map(suppliers.map((s) => [s.id, s.name]));
  const ids = rows.map((r) => r.id);
  const moved = (i: number, by: -1 | 1) => {
    const next = [...ids];
    [next[i], next[i + by]] = [next[i + by], next[i]];
    return next.join(",");
  };
  const csrf = csrfOf(c);
  return c.render(
    <>
      <hgroup>
        <h1>Routing rules</h1>
        <p>Every pending line goes through the active rules from the top; the first whose conditions hold decides. Lines no rule decides go by the catalogue, then by the supplier named on the line.</p>
      </hgroup>
      <p class="page-actions">
        <a href={`${PATH}/new`} role="button">
          New rule
        </a>
      </p>
      {rows.length === 0 ? (
        <EmptyState title="No routing rules yet">
          <p>
            A rule sends lines to a supplier, skips them (a service line such as gift wrap) or holds the whole order for review. Create one, and try it on an existing order
            before you save it. Without rules, lines still match by the <a href="/console/catalogue">catalogue</a> or the supplier named on the line.
          </p>
        </EmptyState>
      ) : (
        <DataTable<RoutingRule>
          caption="Routing rules in evaluation order"
          rows={rows}
          columns={[
            { header: "#", numeric: true, cell: (r) => ids.indexOf(r.id) + 1 },
            { header: "Rule", cell: (r) => <a href={`${PATH}/${r.id}`}>{r.name}</a> },
            { header: "When", cell: (r) => <ConditionsSummary rule={r} /> },
            { header: "Then", cell: (r) => actionText(r, names) },
            { header: "State", cell: (r) => (r.active ? <Badge tone="green">Active</Badge> : <Badge tone="grey">Inactive</Badge>) },
            {
              header: "Order",
              cell: (r) => {
                const i = ids.indexOf(r.id);
                return (
                  <span class="actions">
                    {i > 0 ? <PostButton action={`${PATH}/reorder`} csrf={csrf} variant="secondary" label="↑" ariaLabel={`Move ${r.name} up`} fields={{ ids: moved(i, -1), moved: r.name }} /> : null}
                    {i < ids.length - 1 ? <PostButton action={`${PATH}/reorder`} csrf={csrf} variant="secondary" label="↓" ariaLabel={`Move ${r.name} down`} fields={{ ids: moved(i, 1), moved: r.name }} /> : null}
                  </span>
                );
              },
            },
          ]}
        />
      )}
    </>,
    { title: "Routing rules" },
  );
});

function ConditionsSummary({ rule }: { rule: RoutingRule }) {
  if (rule.conditions.length === 0) return <span>always</span>;
  return (
    <span>
      {rule.conditions.length > 1 ? `${rule.match === "any" ? "any" : "all"} of: ` : ""}
      {rule.conditions.map((cond, i) => (
        <>
          {i > 0 ? "; " : ""}
          <code>
            {cond.variable} {cond.operator.replace(/_/g, " ")}
            {cond.value === undefined || cond.value === null ? "" : ` ${Array.isArray(cond.value) ? cond.value.join(", ") : String(cond.value)}`}
          </code>
        </>
      ))}
    </span>
  );
}

function actionText(rule: RoutingRule, names: Map<number, string>): string {
  const a = rule.action;
  if (a.type === "assign_supplier") return `send to ${names.get(a.supplier_id) ?? `supplier #${a.supplier_id}`}`;
  return a.type === "skip" ? "skip the line" : "block the order";
}

rulesPages.post("/rules/reorder", async (c) => {
  const values = await formFields(c);
  const ids = text(values, "ids").split(",").filter(Boolean);
  const checked = validateForm(ReorderBody, { ids }, { ids: "Order" });
  const result = checked.ok ? await attempt(() => reorderRules(c.get("db"), c.get("pipeline"), c.get("account").id, checked.data.ids)) : checked;
  if (!result.ok) return done(c, PATH, { kind: "error", text: "The rules changed meanwhile: the list below is current. Try again." });
  return done(c, PATH, { kind: "success", text: `Moved “${text(values, "moved")}”. Waiting lines are matched again in the new order.` });
});

// ---- New and edit ---------------------------------------------------------------------------

type TryResult = { result?: ReturnType<typeof presentExplanation>; currency?: string; errors: ValidationErrors; ruleErrors?: boolean };
type FormView = { rule?: RoutingRule; values: FormValues; errors: ValidationErrors; suppliers: Supplier[]; csrf: string; tried?: TryResult; formError?: string };

const ruleAction = (rule?: RoutingRule) => (rule ? `${PATH}/${rule.id}` : `${PATH}/new`);

async function renderForm(c: Context<AppEnv>, view: Omit<FormView, "suppliers" | "csrf">) {
  const suppliers = await supplierChoices(c.get("db"), c.get("account").id);
  const title = view.rule ? `Rule ${view.rule.name}` : "New rule";
  return c.render(<RulePage view={{ ...view, suppliers, csrf: csrfOf(c) }} />, { title });
}

const ruleOf = (c: Context<AppEnv>) => getRule(c.get("db"), c.get("account").id, idOrNotFound(c.req.param("id")!, "Routing rule"));

rulesPages.get("/rules/new", (c) =>
  renderForm(c, { values: { match: "all", active: "true", action_type: "assign_supplier", "conditions[0][variable]": "", "conditions[0][operator]": "is", "conditions[0][value]": "" }, errors: {} }),
);
rulesPages.get("/rules/:id", async (c) => {
  const rule = await ruleOf(c);
  return renderForm(c, { rule, values: valuesOf(rule), errors: {} });
});

/** One handler per form (new, edit) for every button of it: save, try it, add or remove a condition, and the check of one row as it is typed. */
async function handleRuleForm(c: Context<AppEnv>, rule?: RoutingRule) {
  const values = await formFields(c);
  const intent = text(values, "intent") || "save";
  const rowTarget = /#condition-(\d+)$/.exec(c.req.header("hx-target") ?? "");
  if (c.req.header("hx-request") === "true" && rowTarget) {
    // As you type: this row, checked by the same schema as a save; nothing is written.
    const i = Number(rowTarget[1]);
    const checked = checkRule(values);
    const row = rowsOf(values)[i] ?? { variable: "", operator: "", value: "" };
    return c.html(<ConditionRow action={ruleAction(rule)} index={i} row={row} errors={checked.ok ? {} : checked.errors} live />);
  }
  if (intent === "add" || intent.startsWith("remove-")) {
    const rows = rowsOf(values);
    if (intent === "add" && rows.length < MAX_CONDITIONS) rows.push({ variable: "", operator: "is", value: "" });
    if (intent.startsWith("remove-")) rows.splice(Number(intent.slice("remove-".length)), 1);
    const kept = Object.fromEntries(Object.entries(values).filter(([k]) => !k.startsWith("conditions[")));
    rows.forEach((r, i) => Object.assign(kept, { [`conditions[${i}][variable]`]: r.variable, [`conditions[${i}][operator]`]: r.operator, [`conditions[${i}][value]`]: r.value }));
    return renderForm(c, { rule, values: kept, errors: {} });
  }
  const checked = checkRule(values);
  if (intent === "try") {
    const tried = await tryDraft(c, values, checked, rule);
    if (wantsTryFragment(c)) return c.html(<TryResultView tried={tried} />);
    return renderForm(c, { rule, values, errors: checked.ok ? {} : checked.errors, tried });
  }
  const db = c.get("db");
  const accountId = c.get("account").id;
  const result = checked.ok
    ? await attempt(() => (rule ? updateRule(db, c.get("pipeline"), accountId, rule.id, checked.data) : createRule(db, c.get("pipeline"), accountId, checked.data)), labels(rowsOf(values).length))
    : checked;
  if (!result.ok) {
    c.status(422);
    return renderForm(c, { rule, values, errors: result.errors, formError: "The rule was not saved: check the fields marked below." });
  }
  return done(c, PATH, { kind: "success", text: `Rule “${result.value.name}” ${rule ? "saved" : "created"}. Waiting lines are matched again.` });
}

rulesPages.post("/rules/new", (c) => handleRuleForm(c));
rulesPages.post("/rules/:id", async (c) => handleRuleForm(c, await ruleOf(c)));

rulesPages.post("/rules/:id/delete", async (c) => {
  const rule = await ruleOf(c);
  await deleteRule(c.get("db"), c.get("pipeline"), c.get("account").id, rule.id);
  return done(c, PATH, { kind: "success", text: `Rule “${rule.name}” deleted.` });
});

// ---- Try it --------------------------------------------------------------------------------

const wantsTryFragment = (c: Context<AppEnv>) => c.req.header("hx-request") === "true" && /#try-result$/.test(c.req.header("hx-target") ?? "");
const TRY_LABELS = { reference: "Order reference", order: "Order (JSON)" };

async function tryDraft(c: Context<AppEnv>, values: FormValues, checked: ReturnType<typeof checkRule>, rule?: RoutingRule): Promise<TryResult> {
  if (!checked.ok) return { errors: {}, ruleErrors: true };
  const reference = text(values, "try_reference").trim();
  const pasted = text(values, "try_order").trim();
  let order: unknown;
  if (!reference && !pasted) return { errors: { try_reference: ["Give an order reference, or paste an order."] } };
  if (!reference) {
    try {
      order = JSON.parse(pasted);
    } catch {
      return { errors: { try_order: ["The Order (JSON) field must be valid JSON: an order as POST /api/v1/orders takes it."] } };
    }
  }
  const input = validateForm(ExplainBody, reference ? { reference } : { order }, TRY_LABELS);
  if (!input.ok) {
    const messages = Object.values(input.errors).flat();
    return { errors: reference ? { try_reference: messages } : { try_order: messages } };
  }
  const draft: CreateRuleInput & { id?: number } = { ...checked.data, ...(rule ? { id: rule.id } : {}) };
  const result = await attempt(async () => presentExplanation(await explainOrder(c.get("db"), c.get("account").id, { ...input.data, rule: draft })));
  if (!result.ok) return { errors: { try_reference: Object.values(result.errors).flat() } };
  return { result: result.value, currency: c.get("account").currency, errors: {} };
}

// ---- Components -------------------------------------------------------------------------------

const VARIABLE_LIST = "rule-variables";

function ConditionRow({ action, index, row, errors, live }: { action: string; index: number; row: Row; errors: ValidationErrors; live?: boolean }) {
  const key = (f: string) => `conditions.${index}.${f}`;
  const name = (f: string) => `conditions[${index}][${f}]`;
  const own: ValidationErrors = {};
  for (const f of ["variable", "operator", "value"]) if (errors[key(f)]) own[name(f)] = errors[key(f)];
  const id = (f: string) => `condition-${index}-${f}`;
  return (
    <fieldset
      id={`condition-${index}`}
      class="condition-row"
      hx-post={action}
      hx-trigger="input delay:500ms, change"
      hx-target="this"
      hx-swap="outerMorph"
      data-live={live ? "" : undefined}
    >
      <legend>Condition {index + 1}</legend>
      <div class="condition-grid">
        <Field id={id("variable")} name={name("variable")} label="Variable" value={row.variable} errors={own} list={VARIABLE_LIST} hint="e.g. line.category, order.total, line.custom.colour" />
        <SelectField
          id={id("operator")}
          name={name("operator")}
          label="Operator"
          value={row.operator}
          errors={own}
          options={[{ value: "", label: "Choose…" }, ...OPERATORS.map((o) => ({ value: o, label: o.replace(/_/g, " ") }))]}
        />
        <Field id={id("value")} name={name("value")} label="Value" value={row.value} errors={own} hint="Lists: comma-separated" />
      </div>
      <button type="submit" name="intent" value={`remove-${index}`} class="secondary outline" aria-label={`Remove condition ${index + 1}`}>
        Remove
      </button>
    </fieldset>
  );
}

function TryResultView({ tried }: { tried?: TryResult }) {
  return (
    <div id="try-result" aria-live="polite">
      {tried?.ruleErrors ? <FormError messages={["Fix the rule's fields marked above first; then try it."]} /> : null}
      {tried && Object.keys(tried.errors).length ? <FormError messages={Object.values(tried.errors).flat()} /> : null}
      {tried?.result ? (
        <>
          <h3>With this rule{tried.result.reference ? ` on order ${tried.result.reference}` : " on the pasted order"}</h3>
          <ExplainView result={tried.result} currency={tried.currency!} />
        </>
      ) : null}
    </div>
  );
}

function RulePage({ view }: { view: FormView }) {
  const { values, errors } = view;
  const action = ruleAction(view.rule);
  const rows = rowsOf(values);
  const actionType = text(values, "action_type") || "assign_supplier";
  return (
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href={PATH}>Routing rules</a> / <span aria-current="page">{view.rule ? view.rule.name : "New rule"}</span>
      </nav>
      <h1>{view.rule ? `Rule: ${view.rule.name}` : "New rule"}</h1>
      <FormError messages={view.formError ? [view.formError] : undefined} />
      <form method="post" action={action} novalidate class="stacked rule-form">
        {/* Enter in a field saves (a form's first button answers Enter). */}
        <button type="submit" name="intent" value="save" class="visually-hidden" tabindex={-1} aria-hidden="true">
          Save
        </button>
        <CsrfField token={view.csrf} />
        <datalist id={VARIABLE_LIST}>
          {Object.keys(VARIABLES).map((v) => (
            <option value={v} />
          ))}
        </datalist>
        <div class="filter-grid">
          <Field name="name" label="Name" value={text(values, "name")} errors={errors} required />
          <Field name="priority" label="Priority" type="number" min="0" inputmode="numeric" value={text(values, "priority")} errors={errors} hint="Lower runs first; empty: after every rule" />
          <SelectField
            name="match"
            label="Match"
            value={text(values, "match") || "all"}
            errors={errors}
            options={[
              { value: "all", label: "All conditions hold" },
              { value: "any", label: "Any condition holds" },
            ]}
          />
        </div>
        <h2>When</h2>
        <p class="muted">Each row is checked as you type. A rule without conditions always holds.</p>
        <FormError messages={errors.conditions} />
        {rows.map((row, i) => (
          <ConditionRow action={action} index={i} row={row} errors={errors} />
        ))}
        <button type="submit" name="intent" value="add" class="secondary" disabled={rows.length >= MAX_CONDITIONS}>
          Add a condition
        </button>
        <h2>Then</h2>
        <RadioGroup
          name="action_type"
          label="Action"
          value={actionType}
          errors={{ action_type: errors["action.type"] ?? [] }}
          options={[
            { value: "assign_supplier", label: "Send the line to a supplier" },
            { value: "skip", label: "Skip the line (nothing to deliver)" },
            { value: "block", label: "Block the whole order for review" },
          ]}
        />
        <SelectField
          name="supplier_id"
          label="Supplier"
          value={text(values, "supplier_id")}
          errors={{ supplier_id: errors["action.supplier_id"] ?? [] }}
          hint="For “send the line to a supplier”"
          options={[{ value: "", label: "Choose…" }, ...view.suppliers.map((s) => ({ value: String(s.id), label: s.active ? s.name : `${s.name} (inactive)` }))]}
        />
        <fieldset>
          <legend>State</legend>
          <Checkbox name="active" label="Active: the rule takes part in matching" checked={text(values, "active") === "true"} />
          <Checkbox
            name="no_reroute"
            label="Keep its lines with its supplier: a decline or failed send there is final (no re-routing)"
            checked={text(values, "no_reroute") === "true"}
          />
        </fieldset>

        <section aria-labelledby="try-heading" class="try-it">
          <h2 id="try-heading">Try it before saving</h2>
          <p class="muted">Shows which rule would decide each line of an order with this rule as drafted; nothing is saved or sent.</p>
          <div class="filter-grid">
            <Field name="try_reference" label="Order reference" value={text(values, "try_reference")} errors={view.tried?.errors} inputmode="numeric" />
          </div>
          <TextArea name="try_order" label="Or paste an order (JSON)" value={text(values, "try_order")} errors={view.tried?.errors} rows={5} hint="As POST /api/v1/orders takes it" />
          <button type="submit" name="intent" value="try" class="secondary" hx-post={action} hx-target="#try-result" hx-swap="outerHTML" hx-vals='{"intent":"try"}'>
            Try it
          </button>
          <TryResultView tried={view.tried} />
        </section>

        <div class="page-actions">
          <button type="submit" name="intent" value="save">
            {view.rule ? "Save rule" : "Create rule"}
          </button>
          <a href={PATH} role="button" class="secondary outline">
            Cancel
          </a>
        </div>
      </form>
      {view.rule ? (
        <details class="confirm">
          <summary role="button" class="danger outline">
            Delete…
          </summary>
          <p>The rule is deleted; waiting lines are matched again without it.</p>
          <PostButton action={`${action}/delete`} csrf={view.csrf} variant="danger" label="Delete the rule" />
        </details>
      ) : null}
    </>
  );
}
