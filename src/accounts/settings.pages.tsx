// The console face of the account's settings (GET/PATCH /api/v1/settings): re-routing on or off,
// the suppliers per line and the account's currency, through the same services; and every supplier's deadlines at a glance,
// each edited on its supplier's page (PATCH /api/v1/suppliers/{id}).
import { z } from "@hono/zod-openapi";
import { Hono, type Context } from "hono";
import { done, formFields, text, type FormValues } from "../console/forms";
import type { Supplier } from "../db/schema";
import type { AppEnv } from "../env";
import { currencyCode } from "../lib/currency";
import type { ValidationErrors } from "../lib/errors";
import { field, validateForm } from "../lib/validation";
import { MAX_ATTEMPTS_RANGE } from "../routing/context";
import { listSuppliers } from "../suppliers/suppliers.service";
import { Badge } from "../ui/badge";
import { Checkbox, CsrfField, Field } from "../ui/field";
import { EmptyState } from "../ui/notice";
import { DataTable } from "../ui/table";
import { getSettings, updateSettings, type AccountSettings } from "./accounts.service";
import { count } from "../lib/plural";

export const settingsPages = new Hono<AppEnv>();

const PATH = "/console/settings";
const LABELS = { reroute_enabled: "Re-routing", reroute_max_attempts: "Suppliers per line, at most", currency: "Currency" };
// The API's UpdateAccountSettingsRequest; a form always sends every field (an unticked box is "off"),
// so an emptied currency is refused rather than read as "unchanged", as the API reads an absent one.
const SettingsForm = z.object({
  reroute_enabled: field.optionalBoolean(),
  reroute_max_attempts: field.int(MAX_ATTEMPTS_RANGE),
  currency: currencyCode.refine((code) => code !== undefined, "The :attribute field is required."),
});
/** Deadlines are per supplier: the table shows the first page of them (an account has few suppliers). */
const SUPPLIERS_SHOWN = 100;

async function render(c: Context<AppEnv>, form?: { values: FormValues; errors: ValidationErrors }) {
  const db = c.get("db");
  const accountId = c.get("account").id;
  const [settings, suppliers] = await Promise.all([getSettings(db, accountId), listSuppliers(db, accountId, { page: 1, perPage: SUPPLIERS_SHOWN })]);
  const values: FormValues = form?.values ?? {
    reroute_enabled: settings.rerouteEnabled ? "true" : "false",
    reroute_max_attempts: String(settings.rerouteMaxAttempts),
    currency: settings.currency,
  };
  return c.render(<SettingsPage settings={settings} values={values} errors={form?.errors ?? {}} csrf={c.get("session").csrfToken} suppliers={suppliers} />, { title: "Settings" });
}

settingsPages.get("/settings", (c) => render(c));

settingsPages.post("/settings", async (c) => {
  const values = await formFields(c);
  const posted = {
    reroute_enabled: text(values, "reroute_enabled") === "true" ? "true" : "false",
    reroute_max_attempts: text(values, "reroute_max_attempts"),
    currency: text(values, "currency"),
  };
  const checked = validateForm(SettingsForm, posted, LABELS);
  if (!checked.ok) {
    c.status(422);
    return render(c, { values: posted, errors: checked.errors });
  }
  const saved = await updateSettings(c.get("db"), c.get("account").id, {
    rerouteEnabled: checked.data.reroute_enabled,
    rerouteMaxAttempts: checked.data.reroute_max_attempts,
    currency: checked.data.currency,
  });
  return done(c, PATH, {
    kind: "success",
    text:
      (saved.rerouteEnabled
        ? `Settings saved: re-routing is on, at most ${count(saved.rerouteMaxAttempts, "supplier")} per line.`
        : "Settings saved: re-routing is off; a declined line stays declined until you act on it.") + ` Amounts are in ${saved.currency}.`,
  });
});

function SettingsPage(props: { settings: AccountSettings; values: FormValues; errors: ValidationErrors; csrf: string; suppliers: { total: number; rows: Supplier[] } }) {
  const { values, errors } = props;
  return (
    <>
      <h1>Settings</h1>
      <section aria-labelledby="reroute-heading">
        <h2 id="reroute-heading">Re-routing</h2>
        <p class="muted">
          A line its supplier declines, confirms only in part, cannot be sent to, or leaves unanswered past a deadline that re-routes goes to the next eligible supplier: the
          next routing rule that holds, else the cheapest catalogue offer with stock, else the supplier named on the line; never one that already had it.
        </p>
        <form method="post" action={PATH} novalidate class="stacked">
          <CsrfField token={props.csrf} />
          <fieldset>
            <legend>{LABELS.reroute_enabled}</legend>
            <Checkbox name="reroute_enabled" label="Re-route a line its supplier cannot deliver to the next eligible supplier" checked={text(values, "reroute_enabled") === "true"} />
          </fieldset>
          <Field
            name="reroute_max_attempts"
            label={LABELS.reroute_max_attempts}
            type="number"
            min={String(MAX_ATTEMPTS_RANGE.min)}
            inputmode="numeric"
            value={text(values, "reroute_max_attempts")}
            errors={errors}
            hint={`The first supplier included: ${MAX_ATTEMPTS_RANGE.min} to ${MAX_ATTEMPTS_RANGE.max}. “Re-route now” on a line keeps to it too.`}
          />
          <Field
            name="currency"
            label={LABELS.currency}
            value={text(values, "currency")}
            errors={errors}
            autocomplete="off"
            hint="An ISO 4217 code, such as EUR or USD: the currency of the catalogue's prices and of every order sent without one. Amounts are never converted."
          />
          <button type="submit">Save settings</button>
        </form>
      </section>
      <section aria-labelledby="deadlines-heading">
        <h2 id="deadlines-heading">Supplier deadlines</h2>
        <p class="muted">Each supplier has its own: change them on the supplier's page. A supplier past a deadline shows under Needs attention.</p>
        {props.suppliers.total === 0 ? (
          <EmptyState title="No suppliers yet">
            <p>
              <a href="/console/suppliers/new">Add a supplier</a> to set its deadlines.
            </p>
          </EmptyState>
        ) : (
          <DataTable<Supplier>
            caption="Deadlines per supplier"
            rows={props.suppliers.rows}
            columns={[
              { header: "Supplier", cell: (s) => <a href={`/console/suppliers/${s.id}`}>{s.name}</a> },
              { header: "Answer within", cell: (s) => (s.ackDeadlineHours ? count(s.ackDeadlineHours, "hour") : "no deadline") },
              { header: "No answer in time", cell: (s) => (s.ackDeadlineHours ? (s.ackDeadlineReroute ? "re-route the line" : "show under Needs attention") : "—") },
              { header: "Ship within", cell: (s) => (s.shipDeadlineDays ? count(s.shipDeadlineDays, "day") : "no deadline") },
              { header: "State", cell: (s) => (s.active ? <Badge tone="green">Active</Badge> : <Badge tone="grey">Inactive</Badge>) },
            ]}
          />
        )}
        {props.suppliers.total > SUPPLIERS_SHOWN ? <p>The first {SUPPLIERS_SHOWN} suppliers by priority; <a href="/console/suppliers">all suppliers</a>.</p> : null}
      </section>
    </>
  );
}
