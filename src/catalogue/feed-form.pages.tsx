// The console's feed set-up: a new feed and an edit of its settings and column mapping, checked by
// the API's own schemas (CreateFeedBody, UpdateFeedBody) and saved by the same services; and a
// preview of the first rows as an import would read them with the settings as drafted, from a
// pasted sample or the url's first rows (htmx swaps the preview in; without JavaScript the page
// comes back with it). Nothing is saved or imported by a preview.
import { Hono, type Context } from "hono";
import { attempt, done, formFields, text, type FormValues } from "../console/forms";
import { PRODUCT_FIELDS, type ProductFeed, type ProductField } from "../db/schema";
import type { AppEnv } from "../env";
import type { ValidationErrors } from "../lib/errors";
import { sealingKeys } from "../lib/sealed";
import { validateForm } from "../lib/validation";
import { supplierChoices } from "../suppliers/suppliers.service";
import { Checkbox, CsrfField, Field, FormError, SelectField, TextArea } from "../ui/field";
import { money, orDash } from "../ui/format";
import { wantsFragment } from "../ui/htmx";
import { DataTable } from "../ui/table";
import type { FileServerLogin } from "./feed-servers";
import { shownLogin, withoutLogin } from "./feed-urls";
import { CreateFeedBody, UpdateFeedBody, type UpdateFeedInput } from "./feeds.schemas";
import { createFeed, feedLogin, getFeed, updateFeed } from "./feeds.service";
import { feedTimeoutMs } from "./imports.service";
import { PREVIEW_ROWS, PREVIEW_TIMEOUT_MS, previewFeed, type FeedPreview, type PreviewRow } from "./preview.service";
import { count } from "../lib/plural";

export const feedFormPages = new Hono<AppEnv>();

const PATH = "/console/catalogue";
const PREVIEW_ID = "feed-preview";

/** How the form names each product field's source. */
const FIELD_LABELS: Record<ProductField, string> = {
  sku: "SKU from",
  ean13: "EAN from",
  name: "Name from",
  purchase_price: "Purchase price from",
  stock_quantity: "Stock from",
  active: "Active from",
};
const LABELS: Record<string, string> = {
  supplier_id: "Supplier",
  name: "Name",
  format: "Format",
  url: "URL",
  schedule: "Schedule",
  encoding: "Encoding",
  csv_delimiter: "CSV separator",
  record_path: "Record path",
  active: "Active",
  credentials: "Login",
  "credentials.username": "User",
  "credentials.password": "Password",
  "credentials.private_key": "Private key",
  "credentials.host_key_fingerprint": "Pinned host key",
  ...Object.fromEntries(PRODUCT_FIELDS.map((f) => [`mapping.${f}`, FIELD_LABELS[f]])),
};
const DELIMITERS = [
  { value: "", label: "Detect from the header" },
  { value: ",", label: ", (comma)" },
  { value: ";", label: "; (semicolon)" },
  { value: "tab", label: "Tab" },
  { value: "|", label: "| (pipe)" },
];

// ---- The form and the API's feed ------------------------------------------------------

/** The feed the form describes, in the API's JSON (POST or PATCH /api/v1/product-feeds). */
function feedBody(values: FormValues, feed?: ProductFeed) {
  const mapping: Record<string, string> = {};
  for (const f of PRODUCT_FIELDS) {
    const column = text(values, `mapping_${f}`).trim();
    if (column) mapping[f] = column;
  }
  return {
    supplier_id: text(values, "supplier_id"),
    name: text(values, "name"),
    format: text(values, "format"),
    mapping,
    url: text(values, "url"),
    schedule: text(values, "schedule"),
    encoding: text(values, "encoding"),
    csv_delimiter: text(values, "csv_delimiter"),
    record_path: text(values, "record_path"),
    active: text(values, "active") === "true" ? "true" : "false",
    credentials: credentialsBody(values, feed),
  };
}

/**
 * The login fields as the API's credentials. The password and key are write-only: left empty, the
 * stored one stays (the API keeps it when none is sent). No user: no login (one stored is removed).
 */
function credentialsBody(values: FormValues, feed: ProductFeed | undefined) {
  const field = (key: string) => text(values, `credentials_${key}`).trim();
  const username = field("username");
  const secrets = { password: text(values, "credentials_password"), private_key: field("private_key"), host_key_fingerprint: field("host_key_fingerprint") };
  if (!username) {
    if (secrets.password || secrets.private_key || secrets.host_key_fingerprint) return { username: "" };
    return feed && shownLogin(feed) ? null : undefined;
  }
  return Object.fromEntries(Object.entries({ username, ...secrets }).filter(([, v]) => v !== "")) as { username: string };
}

/** The schema's "mapping.sku" is the form's "mapping_sku", "credentials.username" its "credentials_username". */
const formErrors = (errors: ValidationErrors): ValidationErrors => {
  const out: ValidationErrors = {};
  for (const [k, v] of Object.entries(errors)) {
    const key = k === "credentials" ? "credentials_username" : k.replace(/^mapping\./, "mapping_").replace(/^credentials\./, "credentials_");
    out[key] = [...(out[key] ?? []), ...v];
  }
  return out;
};

const valuesOf = (feed: ProductFeed): FormValues => ({
  supplier_id: String(feed.supplierId),
  name: feed.name,
  format: feed.format,
  // Never the login a url stored before they were refused carries (feed-urls.ts).
  url: withoutLogin(feed.url) ?? "",
  schedule: feed.schedule ?? "",
  encoding: feed.encoding ?? "",
  csv_delimiter: feed.csvDelimiter === "\t" ? "tab" : (feed.csvDelimiter ?? ""),
  record_path: feed.recordPath ?? "",
  active: feed.active ? "true" : "false",
  credentials_username: shownLogin(feed)?.username ?? "",
  credentials_host_key_fingerprint: feed.credentials?.host_key_fingerprint ?? "",
  ...Object.fromEntries(PRODUCT_FIELDS.map((f) => [`mapping_${f}`, (feed.mapping ?? {})[f] ?? ""])),
});

// ---- Preview ---------------------------------------------------------------------------

type Previewed = { preview?: FeedPreview; errors: string[] };

async function preview(c: Context<AppEnv>, values: FormValues, fromUrl: boolean, feed?: ProductFeed): Promise<Previewed> {
  // The draft's settings, checked as a change of the feed would be (supplier and name do not matter here).
  const checked = validateForm(UpdateFeedBody, { ...feedBody(values, feed), supplier_id: undefined, name: undefined }, LABELS);
  if (!checked.ok) return { errors: Object.values(checked.errors).flat() };
  const d = checked.data;
  const settings = {
    format: d.format ?? "csv",
    mapping: d.mapping ?? {},
    csvDelimiter: d.csv_delimiter ?? null,
    recordPath: d.record_path ?? null,
    encoding: d.encoding ?? null,
  };
  if (fromUrl) {
    if (!d.url) return { errors: ["Give the feed's URL first: the preview reads its first rows."] };
    const source = await previewSource(c, d.url, d.credentials, feed);
    return { preview: await previewFeed(settings, { ...source, timeoutMs: Math.min(PREVIEW_TIMEOUT_MS, feedTimeoutMs(c.env)) }), errors: [] };
  }
  const sample = text(values, "sample");
  if (sample.trim() === "") return { errors: ["Paste the first lines of a file into the sample (for a CSV file, its header line too)."] };
  return { preview: await previewFeed(settings, { text: sample }), errors: [] };
}

type DraftLogin = UpdateFeedInput["credentials"];

/**
 * The url to preview and its login: the one drafted when it has its secret, else the feed's stored
 * one while the url keeps its kind of server (as saving would keep it), with the login a url stored
 * before they were refused carries.
 */
async function previewSource(c: Context<AppEnv>, url: string, drafted: DraftLogin, feed?: ProductFeed): Promise<{ url: string; login: FileServerLogin | null }> {
  const sameKind = feed?.url && new URL(feed.url).protocol === new URL(url).protocol;
  const target = feed?.url && url === withoutLogin(feed.url) ? feed.url : url;
  if (drafted && (drafted.password !== undefined || drafted.private_key !== undefined)) {
    const secret = drafted.private_key !== undefined ? { privateKey: drafted.private_key } : { password: drafted.password ?? "" };
    return { url: target, login: { username: drafted.username, hostKeyFingerprint: drafted.host_key_fingerprint ?? null, secret } };
  }
  if (drafted === null || !feed || !sameKind) return { url: target, login: null };
  const stored = await feedLogin(sealingKeys(c.env), feed);
  return { url: target, login: stored && drafted ? { ...stored, username: drafted.username, hostKeyFingerprint: drafted.host_key_fingerprint ?? null } : stored };
}

// ---- Pages -----------------------------------------------------------------------------

type FormView = { feed?: ProductFeed; values: FormValues; errors: ValidationErrors; formError?: string; previewed?: Previewed };

async function renderForm(c: Context<AppEnv>, view: FormView) {
  const suppliers = await supplierChoices(c.get("db"), c.get("account").id);
  const title = view.feed ? `Edit feed ${view.feed.name}` : "New feed";
  return c.render(<FeedFormPage view={view} suppliers={suppliers} csrf={c.get("session").csrfToken} currency={c.get("account").currency} />, { title });
}

const feedOf = (c: Context<AppEnv>) => getFeed(c.get("db"), c.get("account").id, c.req.param("id") ?? "");

feedFormPages.get("/catalogue/feeds/new", (c) => renderForm(c, { values: { format: "csv", active: "true" }, errors: {} }));
feedFormPages.get("/catalogue/feeds/:id/edit", async (c) => {
  const feed = await feedOf(c);
  return renderForm(c, { feed, values: valuesOf(feed), errors: {} });
});

/** One handler per form (new, edit) for each of its buttons: save, preview the sample, preview the url. */
async function handleFeedForm(c: Context<AppEnv>, feed?: ProductFeed) {
  const values = await formFields(c);
  const intent = text(values, "intent") || "save";
  if (intent === "preview" || intent === "preview_url") {
    const previewed = await preview(c, values, intent === "preview_url", feed);
    if (wantsFragment(c, PREVIEW_ID)) return c.html(<PreviewView previewed={previewed} currency={c.get("account").currency} />);
    return renderForm(c, { feed, values, errors: {}, previewed });
  }
  const db = c.get("db");
  const accountId = c.get("account").id;
  const body = feedBody(values, feed);
  let result: { ok: true; value: ProductFeed } | { ok: false; errors: ValidationErrors };
  if (feed) {
    const checked = validateForm(UpdateFeedBody, body, LABELS);
    result = checked.ok ? await attempt(() => updateFeed(db, accountId, String(feed.id), checked.data, () => sealingKeys(c.env)), LABELS) : checked;
  } else {
    const checked = validateForm(CreateFeedBody, body, LABELS);
    result = checked.ok ? await attempt(() => createFeed(db, accountId, checked.data, () => sealingKeys(c.env)), LABELS) : checked;
  }
  if (!result.ok) {
    c.status(422);
    return renderForm(c, { feed, values, errors: formErrors(result.errors), formError: "The feed was not saved: check the fields marked below." });
  }
  return done(c, `${PATH}/feeds/${result.value.id}`, { kind: "success", text: `Feed “${result.value.name}” ${feed ? "saved" : "created"}.` });
}

feedFormPages.post("/catalogue/feeds/new", (c) => handleFeedForm(c));
feedFormPages.post("/catalogue/feeds/:id/edit", async (c) => handleFeedForm(c, await feedOf(c)));

// ---- Components --------------------------------------------------------------------------

function FeedFormPage({ view, suppliers, csrf, currency }: { view: FormView; suppliers: { id: number; name: string; active: boolean }[]; csrf: string; currency: string }) {
  const { values, errors, feed } = view;
  const action = feed ? `${PATH}/feeds/${feed.id}/edit` : `${PATH}/feeds/new`;
  const v = (key: string) => text(values, key);
  return (
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href={PATH}>Catalogue</a> /{" "}
        {feed ? (
          <>
            <a href={`${PATH}/feeds/${feed.id}`}>{feed.name}</a> / <span aria-current="page">Edit</span>
          </>
        ) : (
          <span aria-current="page">New feed</span>
        )}
      </nav>
      <h1>{feed ? `Edit feed ${feed.name}` : "New feed"}</h1>
      <FormError messages={view.formError ? [view.formError] : undefined} />
      <form method="post" action={action} novalidate class="stacked feed-form">
        {/* Enter in a field saves (a form's first button answers Enter). */}
        <button type="submit" name="intent" value="save" class="visually-hidden" tabindex={-1} aria-hidden="true">
          Save
        </button>
        <CsrfField token={csrf} />
        <div class="filter-grid">
          <SelectField
            name="supplier_id"
            label="Supplier"
            value={v("supplier_id")}
            errors={errors}
            hint={suppliers.length === 0 ? <a href="/console/suppliers/new">Add a supplier first</a> : undefined}
            options={[{ value: "", label: "Choose…" }, ...suppliers.map((s) => ({ value: String(s.id), label: s.active ? s.name : `${s.name} (inactive)` }))]}
          />
          <Field name="name" label="Name" value={v("name")} errors={errors} required />
          <SelectField
            name="format"
            label="Format"
            value={v("format") || "csv"}
            errors={errors}
            options={[
              { value: "csv", label: "CSV" },
              { value: "json", label: "JSON" },
              { value: "xml", label: "XML" },
            ]}
          />
        </div>

        <fieldset class="mapping">
          <legend>Column mapping</legend>
          <p class="muted">
            Which column (CSV), key or dotted path (JSON: <code>price.net</code>) or element (XML: <code>pricing/purchase</code>, <code>@code</code>) holds each product field. Empty: a
            column of the field's own name (<code>sku</code>, <code>ean13</code>, …), matched in any case.
          </p>
          <div class="filter-grid">
            {PRODUCT_FIELDS.map((f) => (
              <Field name={`mapping_${f}`} label={FIELD_LABELS[f]} value={v(`mapping_${f}`)} errors={errors} hint={<code>{f}</code>} />
            ))}
          </div>
        </fieldset>

        <fieldset>
          <legend>Reading the file</legend>
          <div class="filter-grid">
            <SelectField name="csv_delimiter" label="CSV separator" value={v("csv_delimiter")} errors={errors} options={DELIMITERS} />
            <Field name="record_path" label="Record path" value={v("record_path")} errors={errors} hint="JSON: the array's path (products); XML: one product's element (product)" />
            <Field name="encoding" label="Encoding" value={v("encoding")} errors={errors} hint="Empty: UTF-8; e.g. windows-1252" />
          </div>
        </fieldset>

        <fieldset>
          <legend>Pulling</legend>
          <div class="filter-grid">
            <Field name="url" label="URL" type="url" value={v("url")} errors={errors} hint="Empty: files are pushed or uploaded" />
            <Field name="schedule" label="Schedule" value={v("schedule")} errors={errors} hint="hourly, daily, weekly, or 30m, 6h, 2d; empty: on demand" />
          </div>
          <Checkbox name="active" label="Active: the schedule pulls the feed" checked={v("active") === "true"} />
        </fieldset>

        <LoginFieldset values={values} errors={errors} stored={feed ? shownLogin(feed) : null} />

        <section aria-labelledby="preview-heading" class="try-it">
          <h2 id="preview-heading">Preview before saving</h2>
          <p class="muted">The first {PREVIEW_ROWS} rows as an import would read them with the settings above; nothing is saved or imported.</p>
          <TextArea name="sample" label="Sample: the file's first lines" value={v("sample")} rows={5} hint="For a CSV file, its header line too" />
          <div class="page-actions">
            <button type="submit" name="intent" value="preview" class="secondary" hx-post={action} hx-target={`#${PREVIEW_ID}`} hx-swap="outerHTML" hx-vals='{"intent":"preview"}'>
              Preview the sample
            </button>
            <button
              type="submit"
              name="intent"
              value="preview_url"
              class="secondary outline"
              hx-post={action}
              hx-target={`#${PREVIEW_ID}`}
              hx-swap="outerHTML"
              hx-vals='{"intent":"preview_url"}'
            >
              Preview the URL's first rows
            </button>
          </div>
          <PreviewView previewed={view.previewed} currency={currency} />
        </section>

        <div class="page-actions">
          <button type="submit" name="intent" value="save">
            {feed ? "Save feed" : "Create feed"}
          </button>
          <a href={feed ? `${PATH}/feeds/${feed.id}` : PATH} role="button" class="secondary outline">
            Cancel
          </a>
        </div>
      </form>
    </>
  );
}

/**
 * The feed's login: an ftp, ftps or sftp server's (required there) or an http(s) server's Basic
 * auth. The password and the private key are write-only: never rendered back, not even after a
 * refused save; left empty on an edit, the stored one stays.
 */
function LoginFieldset({ values, errors, stored }: { values: FormValues; errors: ValidationErrors; stored: ReturnType<typeof shownLogin> }) {
  const keep = stored ? `A ${stored.authentication === "password" ? "password" : "private key"} is stored (never shown): leave empty to keep it.` : undefined;
  return (
    <fieldset>
      <legend>Login</legend>
      <p class="muted">
        For an <code>ftp://</code>, <code>ftps://</code> or <code>sftp://</code> URL (required), or an <code>http(s)://</code> URL that asks for a user and password (sent as
        Basic auth). Stored encrypted; the password and key are never shown again. No user: no login.
      </p>
      <div class="filter-grid">
        <Field name="credentials_username" label="User" value={text(values, "credentials_username")} errors={errors} autocomplete="off" />
        <Field name="credentials_password" label="Password" type="password" value="" errors={errors} autocomplete="new-password" hint={keep} />
        <Field
          name="credentials_host_key_fingerprint"
          label="Pinned host key (SFTP)"
          value={text(values, "credentials_host_key_fingerprint")}
          errors={errors}
          hint="SHA256:… as ssh-keygen -lf prints it; a server showing another key is refused"
        />
      </div>
      <TextArea name="credentials_private_key" label="Private key (SFTP, instead of a password)" value="" rows={3} errors={errors} hint={keep ? `${keep} PEM: -----BEGIN … PRIVATE KEY-----` : "PEM: -----BEGIN … PRIVATE KEY-----"} />
    </fieldset>
  );
}

const yesNo = (active: 0 | 1) => (active ? "yes" : "no");

function PreviewView({ previewed, currency }: { previewed?: Previewed; currency: string }) {
  const p = previewed?.preview;
  return (
    <div id={PREVIEW_ID} aria-live="polite">
      {previewed?.errors.length ? <FormError messages={previewed.errors} /> : null}
      {p?.error ? <p class="callout">An import would fail: {p.error}</p> : null}
      {p?.warning ? <p class="callout warning">{p.warning}</p> : null}
      {p && p.rows.length ? (
        <DataTable<PreviewRow>
          caption={`The first ${count(p.rows.length, "row")}, as an import would read ${p.rows.length === 1 ? "it" : "them"}`}
          rows={p.rows}
          columns={[
            { header: "Line", numeric: true, cell: (r) => r.line },
            { header: "SKU", cell: (r) => orDash("row" in r ? r.row.sku : r.sku) },
            { header: "EAN", cell: (r) => ("row" in r ? orDash(r.row.ean13) : "") },
            { header: "Name", cell: (r) => ("row" in r ? r.row.name : "") },
            { header: "Purchase price", numeric: true, cell: (r) => ("row" in r ? money(r.row.purchasePrice, currency) : "") },
            { header: "Stock", numeric: true, cell: (r) => ("row" in r ? orDash(r.row.stockQuantity) : "") },
            { header: "Active", cell: (r) => ("row" in r ? yesNo(r.row.active) : "") },
            { header: "Rejected because", cell: (r) => ("errors" in r ? r.errors.join(" ") : "") },
          ]}
        />
      ) : null}
    </div>
  );
}
