// The console face of shop connections: the list, a new connection (no platform chosen until the
// owner picks one; its credential and settings fields appear at once, swapped in by htmx, or after
// "Show its fields" without JavaScript), a connection's page (edit, pause and resume,
// test with each check in words, delete). The same schemas and services as connections.routes.ts.
// Credentials go in and never come out: no page shows them, not even a form sent back with an error.
import { Hono, type Context } from "hono";
import { attempt, done, formFields, text, type FormValues } from "../console/forms";
import { clearCookie, readCookie, writeCookie } from "../console/cookies";
import { type ShopConnectionRow, type ShopPlatformName, type StockSync } from "../db/schema";
import type { AppEnv } from "../env";
import type { ValidationErrors } from "../lib/errors";
import { idOrNotFound } from "../lib/params";
import { pageParam } from "../lib/pagination";
import { validateForm } from "../lib/validation";
import { wantsFragment } from "../ui/htmx";
import { PostButton } from "../ui/actions";
import { Badge } from "../ui/badge";
import { CsrfField, Field, SelectField, TextArea } from "../ui/field";
import { EmptyState } from "../ui/notice";
import { Pagination } from "../ui/pagination";
import { DataTable } from "../ui/table";
import { LocalTime } from "../ui/time";
import { recentWriteBacks, type WriteBack } from "./write-back.service";
import { ConnectionWriteBacks } from "./write-backs.pages";
import { recentStockSyncs, StockSyncSection } from "./stock/stock-syncs.pages";
import { previewStockSync, type StockPreview } from "./stock/preview.service";
import { STOCK_SETTING_LABELS, StockPreviewSection, StockSettingsFields, stockSettingsInput, stockSettingsValues } from "./stock/stock-settings";
import { credentialFields, isPlatform, settingFields } from "./connection-fields";
import { platformFor, platforms } from "./platforms/index";
import { describedFields } from "../lib/described-fields";
import { CreateShopConnection, UpdateShopConnection } from "./connections.schemas";
import { createConnection, deleteConnection, getConnection, listConnections, testConnection, updateConnection, type TestResult } from "./connections.service";

export const shopConnectionsPages = new Hono<AppEnv>();

const PATH = "/console/shop-connections";
const PER_PAGE = 50;

/** A platform's name in the console, as its adapter says it. */
const platformLabel = (platform: ShopPlatformName) => platformFor(platform).label;

/** Every platform's own fields' labels (their adapters describe them), keyed as the form names them. */
const fieldLabels = () =>
  Object.fromEntries(
    platforms().flatMap((p) => [
      ...describedFields(p.credentials).map((f) => [`credentials.${f.key}`, f.label]),
      ...describedFields(p.settings).map((f) => [`settings.${f.key}`, f.label]),
    ]),
  ) as Record<string, string>;

// Read when a page is made, so that a platform registered later (an extension) has its fields labelled too.
const labels = (): Record<string, string> => ({
  platform: "Platform",
  name: "Name",
  base_url: "Shop address",
  sources: "Order sources",
  active: "Active",
  credentials: "Credentials",
  settings: "Settings",
  ...fieldLabels(),
  ...STOCK_SETTING_LABELS,
});

const csrfOf = (c: Context<AppEnv>) => c.get("session").csrfToken;
const connectionId = (c: Context<AppEnv>) => idOrNotFound(c.req.param("id")!, "Shop connection");
/** The platform the form names, or none: nothing is chosen for the owner. */
const platformOf = (raw: string | undefined): ShopPlatformName | null => (isPlatform(raw) ? raw : null);
/** The fragment of the platform's own fields, swapped in when the platform changes. */
const PLATFORM_FIELDS_ID = "platform-fields";
const platformOptions = () => [{ value: "", label: "Choose the shop's platform…" }, ...platforms().map((p) => ({ value: p.name, label: p.label }))];
const NEW_DEFAULTS: FormValues = { "settings.mode": "dry_run" };

/** The form's fields in the API's shape. Blank credential fields are left out (a PATCH then keeps the stored ones). */
function connectionInput(platform: ShopPlatformName | null, values: FormValues) {
  const credentials: Record<string, string> = {};
  if (platform === null) return { name: text(values, "name"), base_url: text(values, "base_url"), credentials, settings: {}, sources: sourcesOf(values) };
  for (const { key } of credentialFields(platform)) {
    const v = text(values, `credentials.${key}`);
    if (v !== "") credentials[key] = v;
  }
  const settings: Record<string, unknown> = {};
  for (const field of settingFields(platform)) {
    const key = field.key;
    const v = text(values, `settings.${key}`);
    if (v === "") {
      if (field.clearable) settings[key] = null;
      continue;
    }
    settings[key] = field.kind === "number" && /^\d+$/.test(v) ? Number(v) : v === "true" ? true : v === "false" ? false : v;
  }
  return { name: text(values, "name"), base_url: text(values, "base_url"), credentials, settings, sources: sourcesOf(values) };
}

function sourcesOf(values: FormValues): string[] | null {
  const sources = text(values, "sources")
    .split(/\r?\n/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
  return sources.length > 0 ? sources : null;
}

/** The sources' messages (sources.3) shown under the one textarea. */
function withSourcesTogether(errors: ValidationErrors): ValidationErrors {
  const out: ValidationErrors = {};
  for (const [key, messages] of Object.entries(errors)) {
    const shown = key.startsWith("sources.") ? "sources" : key;
    out[shown] = [...(out[shown] ?? []), ...messages];
  }
  return out;
}

const modeOf = (r: ShopConnectionRow) => (r.settings.mode === "dry_run" ? "dry_run" : "live");
const ModeBadge = ({ row }: { row: ShopConnectionRow }) => (modeOf(row) === "dry_run" ? <Badge tone="amber">Dry run</Badge> : <Badge tone="green">Live</Badge>);
const StateBadge = ({ row }: { row: ShopConnectionRow }) => (row.active ? <Badge tone="green">Active</Badge> : <Badge tone="grey">Paused</Badge>);
const sourcesText = (r: ShopConnectionRow) => (r.sources ? r.sources.join(", ") : "Every order");

// ---- The list ------------------------------------------------------------------

shopConnectionsPages.get("/shop-connections", async (c) => {
  const page = pageParam(c.req.query("page"));
  const { total, rows } = await listConnections(c.get("db"), c.get("account").id, { page, perPage: PER_PAGE });
  return c.render(
    <>
      <hgroup>
        <h1>Shop connections</h1>
        <p>Your shop's own API, where shipments, tracking numbers and line outcomes are written back as suppliers answer.</p>
      </hgroup>
      <p class="page-actions">
        <a href={`${PATH}/new`} role="button">
          New shop connection
        </a>
      </p>
      {total === 0 ? (
        <EmptyState title="No shop connections yet">
          <p>Connect your WooCommerce, Shopware, Magento or PrestaShop shop, and your customers get their tracking numbers from your shop without you copying them.</p>
        </EmptyState>
      ) : (
        <>
          <DataTable<ShopConnectionRow>
            caption="Shop connections, oldest first"
            rows={rows}
            columns={[
              { header: "Name", cell: (r) => <a href={`${PATH}/${r.id}`}>{r.name}</a> },
              { header: "Platform", cell: (r) => platformLabel(r.platform) },
              { header: "Shop address", cell: (r) => r.baseUrl },
              { header: "Mode", cell: (r) => <ModeBadge row={r} /> },
              { header: "State", cell: (r) => <StateBadge row={r} /> },
              { header: "Sources", cell: sourcesText },
            ]}
          />
          <Pagination path={PATH} query={new URL(c.req.url).searchParams} noun="connection" window={{ page, perPage: PER_PAGE, total, shown: rows.length }} />
        </>
      )}
    </>,
    { title: "Shop connections" },
  );
});

// ---- A new connection ------------------------------------------------------------------

function renderNew(c: Context<AppEnv>, values: FormValues, errors: ValidationErrors = {}) {
  return c.render(
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href={PATH}>Shop connections</a> / <span aria-current="page">New shop connection</span>
      </nav>
      <h1>New shop connection</h1>
      <ConnectionForm action={`${PATH}/new`} csrf={csrfOf(c)} platform={platformOf(text(values, "platform"))} values={values} errors={errors} submit="Create shop connection" />
    </>,
    { title: "New shop connection" },
  );
}

// ?platform= (a link to a platform's form) chooses it; otherwise the owner does.
shopConnectionsPages.get("/shop-connections/new", (c) => renderNew(c, { ...NEW_DEFAULTS, platform: platformOf(c.req.query("platform")) ?? "" }));

const platformRequired = () => `The ${labels().platform} field is required: choose ${platforms().map((p) => p.label).join(", ").replace(/, ([^,]+)$/, " or $1")}.`;

shopConnectionsPages.post("/shop-connections/new", async (c) => {
  const posted = await formFields(c);
  const values = { ...posted, platform: text(posted, "platform") || (c.req.query("platform") ?? "") };
  const platform = platformOf(text(values, "platform"));
  // The platform changed: its fields, as a fragment for htmx or the whole form without JavaScript. Nothing is checked yet.
  if (text(values, "intent") === "platform") {
    const shown = { ...NEW_DEFAULTS, ...values };
    if (wantsFragment(c, PLATFORM_FIELDS_ID)) return c.html(<PlatformFields platform={platform} values={shown} errors={{}} />);
    return renderNew(c, shown);
  }
  const input = { platform: platform ?? text(values, "platform"), ...connectionInput(platform, values), active: true };
  const checked = validateForm(CreateShopConnection, input, labels());
  if (!checked.ok) {
    c.status(422);
    const errors = withSourcesTogether(checked.errors);
    // No platform chosen is a missing field, not an invalid one (the API's enum wording says the latter).
    if (text(values, "platform") === "" && errors.platform) errors.platform = [platformRequired()];
    return renderNew(c, values, errors);
  }
  const result = await attempt(() => createConnection(c.get("db"), c.env, c.get("account").id, checked.data, new URL(c.req.url).origin), labels());
  if (!result.ok) {
    c.status(422);
    return renderNew(c, values, withSourcesTogether(result.errors));
  }
  return done(c, `${PATH}/${result.value.id}`, { kind: "success", text: "Shop connection created. Test it to see that the shop answers and takes the credentials." });
});

// ---- One connection --------------------------------------------------------------------

// A test's checks travel to the page after the redirect in a short-lived cookie (as the flash does).
const TEST_COOKIE = "oi_shop_test";
const MESSAGE_CHARS = 400;

function keepTestResult(c: Context<AppEnv>, id: number, result: TestResult) {
  const kept = { id, ok: result.ok, checks: result.checks.map((k) => ({ ...k, message: k.message.slice(0, MESSAGE_CHARS) })) };
  writeCookie(c, TEST_COOKIE, btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(kept)))), 60);
}

function takeTestResult(c: Context<AppEnv>, id: number): TestResult | undefined {
  const raw = readCookie(c, TEST_COOKIE);
  if (!raw) return undefined;
  clearCookie(c, TEST_COOKIE);
  try {
    const kept = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(raw), (ch) => ch.charCodeAt(0)))) as TestResult & { id: number };
    return kept.id === id && Array.isArray(kept.checks) ? { ok: kept.ok === true, checks: kept.checks } : undefined;
  } catch {
    return undefined;
  }
}

async function renderConnection(c: Context<AppEnv>, form: { values?: FormValues; errors?: ValidationErrors; preview?: StockPreview } = {}) {
  const id = connectionId(c);
  const accountId = c.get("account").id;
  const [row, writeBacks, stockSyncs] = await Promise.all([getConnection(c.get("db"), accountId, id), recentWriteBacks(c.get("db"), accountId, id), recentStockSyncs(c, id)]);
  const test = takeTestResult(c, id);
  return c.render(<ConnectionPage row={row} csrf={csrfOf(c)} test={test} values={form.values} errors={form.errors ?? {}} writeBacks={writeBacks} stockSyncs={stockSyncs} preview={form.preview} />, {
    title: `Shop connection ${row.name}`,
  });
}

shopConnectionsPages.get("/shop-connections/:id", (c) => renderConnection(c));

shopConnectionsPages.post("/shop-connections/:id", async (c) => {
  const id = connectionId(c);
  const row = await getConnection(c.get("db"), c.get("account").id, id);
  const values = await formFields(c);
  const { credentials, ...rest } = connectionInput(row.platform, values);
  // Credentials left blank keep the stored ones; some filled in are a new set, checked whole.
  const input = { ...rest, settings: { ...rest.settings, ...stockSettingsInput(values, row.settings) }, ...(Object.keys(credentials).length > 0 ? { credentials } : {}) };
  const checked = validateForm(UpdateShopConnection.extend({ name: CreateShopConnection.shape.name, base_url: CreateShopConnection.shape.base_url }), input, labels());
  const result = checked.ok ? await attempt(() => updateConnection(c.get("db"), c.env, c.get("pipeline"), c.get("account").id, id, checked.data), labels()) : checked;
  if (!result.ok) {
    c.status(422);
    return renderConnection(c, { values, errors: withSourcesTogether(result.errors) });
  }
  return done(c, `${PATH}/${id}`, { kind: "success", text: "Shop connection saved." });
});

// The preview of the next sync under the form's stock and price settings, saved or not: the page again, the form as it was, the preview beside it.
shopConnectionsPages.post("/shop-connections/:id/stock-preview", async (c) => {
  const id = connectionId(c);
  const row = await getConnection(c.get("db"), c.get("account").id, id);
  const values = await formFields(c);
  const result = await attempt(() => previewStockSync(c.get("db"), c.env, c.get("account").id, id, stockSettingsInput(values, row.settings)), labels());
  if (!result.ok) {
    c.status(422);
    return renderConnection(c, { values, errors: result.message ? { "settings.stock_sync": [result.message] } : result.errors });
  }
  return renderConnection(c, { values, preview: result.value });
});

for (const [action, active] of [["pause", false], ["resume", true]] as const) {
  shopConnectionsPages.post(`/shop-connections/:id/${action}`, async (c) => {
    const id = connectionId(c);
    await updateConnection(c.get("db"), c.env, c.get("pipeline"), c.get("account").id, id, { active });
    return done(c, `${PATH}/${id}`, {
      kind: "success",
      text: active ? "Shop connection resumed: write-backs are made again." : "Shop connection paused: nothing is written to the shop until it is resumed.",
    });
  });
}

shopConnectionsPages.post("/shop-connections/:id/test", async (c) => {
  const id = connectionId(c);
  const result = await testConnection(c.get("db"), c.env, c.get("account").id, id, new URL(c.req.url).origin);
  keepTestResult(c, id, result);
  return done(c, `${PATH}/${id}`, result.ok ? { kind: "success", text: "Test passed: every check is fine." } : { kind: "error", text: "Test failed: see the checks below." });
});

shopConnectionsPages.post("/shop-connections/:id/delete", async (c) => {
  await deleteConnection(c.get("db"), c.get("account").id, connectionId(c), c.env);
  return done(c, PATH, { kind: "success", text: "Shop connection deleted: nothing more is written through it." });
});

// ---- Components -------------------------------------------------------------------------

function ConnectionForm(props: {
  action: string;
  csrf: string;
  /** null: a new connection whose platform is not chosen yet. */
  platform: ShopPlatformName | null;
  values: FormValues;
  errors: ValidationErrors;
  submit: string;
  /** Editing: the stored credentials' hints, and blank fields keep them. */
  hints?: Record<string, string>;
}) {
  const { values, errors, platform } = props;
  const editing = props.hints !== undefined;
  return (
    <form method="post" action={props.action} novalidate class="stacked">
      {/* Enter in a field submits the form (a form's first button answers Enter), never "Show its fields". */}
      <button type="submit" class="visually-hidden" tabindex={-1} aria-hidden="true">
        {props.submit}
      </button>
      <CsrfField token={props.csrf} />
      {editing ? null : (
        <>
          <SelectField
            name="platform"
            label={labels().platform}
            value={platform ?? ""}
            options={platformOptions()}
            errors={errors}
            hint="It decides the credentials and settings below, and cannot be changed afterwards."
            enhance={{ "hx-post": props.action, "hx-trigger": "change", "hx-target": `#${PLATFORM_FIELDS_ID}`, "hx-swap": "outerHTML", "hx-vals": '{"intent":"platform"}' }}
          />
          <noscript>
            <button type="submit" name="intent" value="platform" class="secondary">
              Show its fields
            </button>
          </noscript>
        </>
      )}
      <Field name="name" label={labels().name} value={text(values, "name")} errors={errors} required />
      <Field
        name="base_url"
        label={labels().base_url}
        type="url"
        value={text(values, "base_url")}
        errors={errors}
        required
        hint="https://shop.example.com (or the folder the shop lives in). Plain http only for a shop on this machine: localhost, 127.0.0.1, [::1]."
      />
      <PlatformFields platform={platform} values={values} errors={errors} hints={props.hints} />
      {editing ? <StockSettingsFields values={values} errors={errors} previewAction={`${props.action}/stock-preview`} /> : null}
      <TextArea
        name="sources"
        label={labels().sources}
        rows={3}
        value={text(values, "sources")}
        errors={errors}
        hint="One order source per line (as your shop's plugin sends it); empty: every order of the account."
      />
      <button type="submit">{props.submit}</button>
    </form>
  );
}

/** A platform's credential and settings fields; before a platform is chosen, a word on what comes here. */
function PlatformFields(props: { platform: ShopPlatformName | null; values: FormValues; errors: ValidationErrors; hints?: Record<string, string> }) {
  const { platform, values, errors } = props;
  const editing = props.hints !== undefined;
  if (platform === null) {
    return (
      <div id={PLATFORM_FIELDS_ID}>
        <p class="muted">Choose the shop's platform above: its credentials and settings appear here.</p>
      </div>
    );
  }
  return (
    <div id={PLATFORM_FIELDS_ID}>
      <fieldset>
        <legend>
          {platformLabel(platform)} credentials{editing ? " (leave blank to keep the stored ones)" : ""}
        </legend>
        {errors.credentials ? <p class="field-error">{errors.credentials.join(" ")}</p> : null}
        {credentialFields(platform).map(({ key, label, hint, secret }) => (
          <Field
            name={`credentials.${key}`}
            id={`field-credentials-${key}`}
            label={label}
            type={secret ? "password" : "text"}
            autocomplete="off"
            errors={errors}
            hint={editing ? `Stored: ${props.hints?.[key] ?? "…"}. ${hint ?? ""}` : hint}
          />
        ))}
      </fieldset>
      <fieldset>
        <legend>Settings</legend>
        {settingFields(platform).map((field) => {
          const key = field.key;
          const name = `settings.${key}`;
          return field.options ? (
            <SelectField name={name} id={`field-settings-${key}`} label={field.label} value={text(values, name)} options={field.options} errors={errors} hint={field.hint} />
          ) : (
            <Field name={name} id={`field-settings-${key}`} label={field.label} type={field.kind === "number" ? "number" : "text"} value={text(values, name)} errors={errors} hint={field.hint} />
          );
        })}
      </fieldset>
    </div>
  );
}

/** The stored settings as the form shows them. */
function formValuesOf(row: ShopConnectionRow): FormValues {
  const values: FormValues = { name: row.name, base_url: row.baseUrl, sources: (row.sources ?? []).join("\n") };
  // A setting left unset (null) shows as an empty field, not as the text "null".
  for (const [key, v] of Object.entries(row.settings)) if (v !== null && typeof v !== "object") values[`settings.${key}`] = String(v);
  return { ...values, ...stockSettingsValues(row.settings) };
}

function ConnectionPage(props: {
  row: ShopConnectionRow;
  csrf: string;
  test?: TestResult;
  values?: FormValues;
  errors: ValidationErrors;
  writeBacks: WriteBack[];
  stockSyncs: StockSync[];
  preview?: StockPreview;
}) {
  const { row, csrf } = props;
  const base = `${PATH}/${row.id}`;
  return (
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href={PATH}>Shop connections</a> / <span aria-current="page">{row.name}</span>
      </nav>
      <hgroup>
        <h1>{row.name}</h1>
        <p>
          {platformLabel(row.platform)} at {row.baseUrl} · <ModeBadge row={row} /> <StateBadge row={row} /> · created <LocalTime iso={row.createdAt} />
        </p>
      </hgroup>
      <dl class="facts">
        <dt>Credentials</dt>
        <dd>
          {Object.entries(row.credentialsHint)
            .map(([k, hint]) => `${credentialFields(row.platform).find((f) => f.key === k)?.label ?? k} ${hint}`)
            .join(" · ")}
        </dd>
        <dt>Order sources</dt>
        <dd>{sourcesText(row)}</dd>
      </dl>
      <div class="page-actions">
        <PostButton action={`${base}/test`} csrf={csrf} label="Test the connection" />
        {row.active ? (
          <PostButton action={`${base}/pause`} csrf={csrf} variant="secondary" label="Pause" ariaLabel="Pause the shop connection" />
        ) : (
          <PostButton action={`${base}/resume`} csrf={csrf} label="Resume" ariaLabel="Resume the shop connection" />
        )}
        <details class="confirm">
          <summary role="button" class="danger outline">
            Delete…
          </summary>
          <p>Nothing more is written into the shop through this connection. Its past write-backs stay listed on their orders.</p>
          <PostButton action={`${base}/delete`} csrf={csrf} variant="danger" label="Delete the shop connection" />
        </details>
      </div>

      {props.test ? (
        <section aria-labelledby="test-heading">
          <h2 id="test-heading">Test result</h2>
          <ul class="checks">
            {props.test.checks.map((check) => (
              <li>
                {check.ok ? <Badge tone="green">Passed</Badge> : <Badge tone="red">Failed</Badge>} <strong>{check.name}</strong>: {check.message}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <section aria-labelledby="write-backs-heading">
        <h2 id="write-backs-heading">Recent write-backs</h2>
        <ConnectionWriteBacks writeBacks={props.writeBacks} csrf={csrf} />
      </section>

      <StockSyncSection row={row} syncs={props.stockSyncs} csrf={csrf} />

      {props.preview ? <StockPreviewSection preview={props.preview} /> : null}

      <section aria-labelledby="edit-heading">
        <h2 id="edit-heading">Connection</h2>
        <ConnectionForm
          action={base}
          csrf={csrf}
          platform={row.platform}
          values={props.values ?? formValuesOf(row)}
          errors={props.errors}
          hints={row.credentialsHint}
          submit="Save shop connection"
        />
      </section>
    </>
  );
}
