// The console face of suppliers: the list, a new supplier and its settings with the channel its
// orders reach it by, the signing secret's rotation and the supplier's keys. As thin as
// suppliers.routes.ts: the same schemas validate the forms, the same services do the work.
import { Hono, type Context } from "hono";
import { attempt, done, formFields, text, type FormValues } from "../console/forms";
import { revealOnce, takeRevealed, type Revealed } from "../console/reveal";
import type { FileTransferConfig, Supplier, SupplierKey } from "../db/schema";
import { channelFor, channels } from "../forwarding/channels";
import { describedFields, type DescribedField } from "../lib/described-fields";
import { sealingKeys } from "../lib/sealed";
import { wantsFragment } from "../ui/htmx";
import {
  acceptedKey,
  FILE_TEST_ID,
  FileTestView,
  FileTransferFieldset,
  fileTransferErrorKey,
  fileTransferInput,
  fileTransferLabels,
  fileTransferValues,
  HOST_KEY_ID,
  HostKeyField,
  testDraft,
  type FileTest,
} from "./file-transfer.pages";
import type { AppEnv } from "../env";
import type { ValidationErrors } from "../lib/errors";
import { idOrNotFound, parseId } from "../lib/params";
import { pageParam } from "../lib/pagination";
import { validateForm } from "../lib/validation";
import { PostButton } from "../ui/actions";
import { Badge } from "../ui/badge";
import { Checkbox, CsrfField, Field, FormError, RadioGroup } from "../ui/field";
import { orDash } from "../ui/format";
import { EmptyState } from "../ui/notice";
import { Pagination } from "../ui/pagination";
import { SecretOnce } from "../ui/secret";
import { DataTable } from "../ui/table";
import { LocalTime } from "../ui/time";
import { CreateSupplier, CreateSupplierKey, UpdateSupplier } from "./suppliers.schemas";
import { registerSupplier, registerSupplierKey } from "../shards/directory";
import { listInboundFiles, type InboundFileWithRows } from "../forwarding/inbound-files.service";
import { supplierCredits, type MonthlyCredit } from "../returns/credits.service";
import { SupplierCredits } from "../returns/supplier-credits";
import { getReturnSettings, type ReturnSettings } from "../returns/settings.service";
import { ReturnSettingsFormSection, type ReturnSettingsForm } from "../returns/return-settings-form";
import { X12_LISTS } from "./x12.pages";
import { EDI_FILES_SHOWN, EdiFiles, incomingEdi } from "./x12-files.pages";
import { listX12Interchanges } from "../forwarding/x12/interchanges.service";
import { createSupplier, createSupplierKey, getSupplier, getSupplierWithKeys, listSuppliers, revokeSupplierKey, rotateSecret, updateSupplier } from "./suppliers.service";

export const suppliersPages = new Hono<AppEnv>();

const PATH = "/console/suppliers";
const PER_PAGE = 50;
/**
 * The channels' own fields (./channels/ describes each: webhook_url, email, file_transfer …), each
 * once, with the channels that use it: the form shows a field while one of them is chosen.
 */
function channelFields(): { field: DescribedField; channels: string[] }[] {
  const byKey = new Map<string, { field: DescribedField; channels: string[] }>();
  for (const channel of channels()) {
    for (const field of describedFields(channel.settings)) {
      const seen = byKey.get(field.key);
      if (seen) seen.channels.push(channel.name);
      else byKey.set(field.key, { field, channels: [channel.name] });
    }
  }
  return [...byKey.values()];
}

/** The channels' fields the form reads as text (a nested one, the file server, has a form of its own). */
const textFields = () => channelFields().filter((f) => f.field.kind !== "nested");

const labels = (): Record<string, string> => ({
  name: "Name",
  code: "Code",
  priority: "Priority",
  channel: "Channel",
  ...Object.fromEntries(channelFields().map(({ field }) => [field.key, field.label])),
  active: "Active",
  acknowledgement_deadline_hours: "Answer within (hours)",
  shipping_deadline_days: "Ship within (days)",
  expire_previous: "Expire the previous secret now",
  ...fileTransferLabels("file_transfer"),
});

/** Where the supplier's orders go, as its channel says (a channel without an address: how it works). */
const destination = (s: Supplier) => {
  const channel = channelFor(s.channel);
  return Object.keys(channel.settings.shape).length === 0 ? channel.summary : orDash(channel.destination(s));
};

// An edit needs a name too (the API's PATCH leaves out what is not sent; a form always sends everything).
const EditSupplier = UpdateSupplier.extend({ name: CreateSupplier.shape.name });

/** The form's fields in the API's shape: an unticked checkbox is false (a form leaves it out). */
function supplierInput(values: FormValues) {
  const input: Record<string, unknown> = {};
  for (const key of ["name", "code", "priority", "channel", ...textFields().map((f) => f.field.key), "acknowledgement_deadline_hours", "shipping_deadline_days"]) {
    input[key] = text(values, key);
  }
  input.active = text(values, "active") === "true" ? "true" : "false";
  input.acknowledgement_deadline_reroute = text(values, "acknowledgement_deadline_reroute") === "true" ? "true" : "false";
  // The file server's fields count only for a channel that uses one (a stored setting stays while another is chosen).
  const chosen = channels().find((ch) => ch.name === input.channel);
  if (chosen && "file_transfer" in chosen.settings.shape) input.file_transfer = fileTransferInput(values);
  return input;
}

/** The schema's keys as the form's field names (file_transfer.host is ft_host). */
const formErrors = (errors: ValidationErrors): ValidationErrors => {
  const out: ValidationErrors = {};
  for (const [key, messages] of Object.entries(errors)) {
    const name = fileTransferErrorKey(key) ?? key;
    out[name] = [...(out[name] ?? []), ...messages.filter((m) => !(out[name] ?? []).includes(m))];
  }
  return out;
};

const keysOf = (c: Context<AppEnv>) => () => sealingKeys(c.env);

type FileFormState = { test?: FileTest; accepted?: boolean };

/**
 * The file channel's buttons (both forms): Test answers in words (htmx swaps just the answer in),
 * Accept this key pins the key the test showed. Null: the form is to be saved.
 */
async function fileIntent(c: Context<AppEnv>, values: FormValues, action: string, supplier?: Supplier): Promise<{ fragment: Response } | { page: FormValues; state: FileFormState } | null> {
  const intent = text(values, "intent");
  if (intent === "test_file") {
    const test = await testDraft(c, values, supplier);
    if (wantsFragment(c, FILE_TEST_ID)) return { fragment: await c.html(<FileTestView test={test} action={action} />) };
    return { page: values, state: { test } };
  }
  if (intent === "accept_key") {
    const key = acceptedKey(values);
    const next = key ? { ...values, ft_host_key_fingerprint: key } : values;
    if (wantsFragment(c, HOST_KEY_ID)) return { fragment: await c.html(<HostKeyField values={next} errors={{}} accepted={!!key} />) };
    return { page: next, state: { accepted: !!key } };
  }
  return null;
}

const csrfOf = (c: Context<AppEnv>) => c.get("session").csrfToken;

// ---- The list ------------------------------------------------------------------

suppliersPages.get("/suppliers", async (c) => {
  const page = pageParam(c.req.query("page"));
  const { total, rows } = await listSuppliers(c.get("db"), c.get("account").id, { page, perPage: PER_PAGE });
  return c.render(
    <>
      <hgroup>
        <h1>Suppliers</h1>
        <p>Who delivers your order lines, and how each receives its orders. Listed by priority: the lower number wins a tie on catalogue price.</p>
      </hgroup>
      <p class="page-actions">
        <a href={`${PATH}/new`} role="button">
          New supplier
        </a>
      </p>
      {total === 0 ? (
        <EmptyState title="No suppliers yet">
          <p>
            Add the suppliers you pass orders on to, then tell the routing which lines go to whom: with <a href="/console/rules">routing rules</a>, a{" "}
            <a href="/console/catalogue">catalogue feed</a>, or the supplier's name on the order line.
          </p>
        </EmptyState>
      ) : (
        <>
          <DataTable<Supplier>
            caption="Suppliers by priority"
            rows={rows}
            columns={[
              { header: "Name", cell: (s) => <a href={`${PATH}/${s.id}`}>{s.name}</a> },
              { header: "Code", cell: (s) => orDash(s.code) },
              { header: "Channel", cell: (s) => channelFor(s.channel).label },
              { header: "Sends to", cell: (s) => <span class="response">{destination(s)}</span> },
              { header: "Priority", numeric: true, cell: (s) => s.priority },
              { header: "State", cell: (s) => (s.active ? <Badge tone="green">Active</Badge> : <Badge tone="grey">Inactive</Badge>) },
              { header: "Created", cell: (s) => <LocalTime iso={s.createdAt} /> },
            ]}
          />
          <Pagination path={PATH} query={new URL(c.req.url).searchParams} noun="supplier" window={{ page, perPage: PER_PAGE, total, shown: rows.length }} />
        </>
      )}
    </>,
    { title: "Suppliers" },
  );
});

// ---- A new supplier -----------------------------------------------------------------

const renderNew = (c: Context<AppEnv>, values: FormValues = { channel: "manual", active: "true", ...fileTransferValues(null) }, errors: ValidationErrors = {}, file: FileFormState = {}) =>
  c.render(
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href={PATH}>Suppliers</a> / <span aria-current="page">New supplier</span>
      </nav>
      <h1>New supplier</h1>
      <SupplierForm action={`${PATH}/new`} csrf={csrfOf(c)} values={values} errors={errors} submit="Create supplier" stored={null} file={file} />
    </>,
    { title: "New supplier" },
  );

suppliersPages.get("/suppliers/new", (c) => renderNew(c));

/**
 * A supplier's form shows only the fields its chosen channel needs (all of them where :has() is
 * unknown; a field with an error stays in sight): one rule per channel, made from the channels.
 */
const CHANNEL_FIELDS_CSS = `${PATH}/channel-fields.css`;
const channelFieldsCss = () =>
  channels()
    .map((ch) => `.supplier-form:has(input[name="channel"][value="${ch.name}"]:checked) .channel-field:not([data-channel~="${ch.name}"]):not(:has([aria-invalid])) { display: none; }`)
    .join("\n") +
  // The X12 settings while the file format is X12 (or one of them is refused).
  `\n.supplier-form:not(:has(select[name="ft_format"] option[value="x12"]:checked)) .x12-settings:not(:has([aria-invalid])) { display: none; }\n`;
suppliersPages.get("/suppliers/channel-fields.css", (c) => c.body(channelFieldsCss(), 200, { "content-type": "text/css; charset=utf-8", "cache-control": "no-cache" }));

suppliersPages.post("/suppliers/new", async (c) => {
  const values = await formFields(c, X12_LISTS);
  const file = await fileIntent(c, values, `${PATH}/new`);
  if (file && "fragment" in file) return file.fragment;
  if (file) return renderNew(c, file.page, {}, file.state);
  const checked = validateForm(CreateSupplier, supplierInput(values), labels());
  const result = checked.ok
    ? await attempt(() => createSupplier(c.get("db"), c.get("pipeline"), c.get("account").id, checked.data, keysOf(c)), labels())
    : { ok: false as const, errors: checked.errors };
  if (!result.ok) {
    c.status(422);
    return renderNew(c, values, formErrors(result.errors));
  }
  const supplier = result.value;
  await registerSupplier(c.env, supplier.id, c.get("account").id);
  // A file supplier is handed no signing secret (suppliers.service.ts): nothing to show.
  if (supplier.webhookSecret) {
    await revealOnce(c, {
      label: `Signing secret of ${supplier.name}`,
      value: supplier.webhookSecret,
      note: "It signs the webhooks sent to the supplier and verifies its callbacks.",
    });
  }
  return done(c, `${PATH}/${supplier.id}`, { kind: "success", text: `Supplier ${supplier.name} created.` });
});

// ---- One supplier ---------------------------------------------------------------------

type SupplierView = {
  supplier: Supplier;
  keys: SupplierKey[];
  inbound: InboundFileWithRows[];
  returns: { settings: ReturnSettings; credits: MonthlyCredit[] };
  returnSettingsForm?: ReturnSettingsForm;
  /** An X12 supplier's latest files each way. */
  edi: Pick<Parameters<typeof EdiFiles>[0], "sent" | "received"> | null;
  csrf: string;
  values?: FormValues;
  errors?: ValidationErrors;
  formError?: string;
  revealed?: Revealed;
  file?: FileFormState;
};

/** The supplier's page; after a refused form, with its messages beside its fields (the return terms' too: src/returns/returns.pages.tsx). */
export async function renderSupplier(c: Context<AppEnv>, form: Pick<SupplierView, "values" | "errors" | "formError" | "file" | "returnSettingsForm"> = {}) {
  const { supplier, keys } = await getSupplierWithKeys(c.get("db"), c.get("account").id, idOrNotFound(c.req.param("id")!, "Supplier"));
  // A file supplier's latest answer files (the rest through GET /api/v1/suppliers/{id}/inbound-files).
  const inbound = supplier.fileTransfer?.inbound ? (await listInboundFiles(c.get("db"), supplier.accountId, supplier.id, { page: 1, perPage: 10 })).files : [];
  const [settings, credits] = await Promise.all([getReturnSettings(c.get("db"), supplier.accountId, supplier.id), supplierCredits(c.get("db"), supplier.accountId, supplier.id)]);
  const edi = supplier.fileTransfer?.format === "x12" ? await ediFiles(c, supplier, inbound) : null;
  const view: SupplierView = { supplier, keys, inbound, edi, returns: { settings, credits }, csrf: csrfOf(c), ...form, revealed: await takeRevealed(c) };
  return c.render(<SupplierPage view={view} />, { title: `Supplier ${supplier.name}` });
}

/** The latest X12 files each way, from the service the API's list uses. */
async function ediFiles(c: Context<AppEnv>, supplier: Supplier, inbound: InboundFileWithRows[]) {
  const page = { page: 1, perPage: EDI_FILES_SHOWN };
  const [sent, read] = await Promise.all(["out", "in"].map((d) => listX12Interchanges(c.get("db"), supplier.accountId, supplier.id, page, d as "out" | "in")));
  return { sent: sent.interchanges, received: incomingEdi(read.interchanges, inbound.map((f) => f.file)) };
}

const supplierId = (c: Context<AppEnv>) => idOrNotFound(c.req.param("id")!, "Supplier");

suppliersPages.get("/suppliers/:id", (c) => renderSupplier(c));

suppliersPages.post("/suppliers/:id", async (c) => {
  const id = supplierId(c);
  const values = await formFields(c, X12_LISTS);
  const before = text(values, "intent") ? await getSupplier(c.get("db"), c.get("account").id, id) : undefined;
  const file = await fileIntent(c, values, `${PATH}/${id}`, before);
  if (file && "fragment" in file) return file.fragment;
  if (file) return renderSupplier(c, { values: file.page, file: file.state });
  const checked = validateForm(EditSupplier, supplierInput(values), labels());
  const result = checked.ok
    ? await attempt(() => updateSupplier(c.get("db"), c.get("pipeline"), c.get("account").id, id, checked.data, keysOf(c)), labels())
    : { ok: false as const, errors: checked.errors };
  if (!result.ok) {
    c.status(422);
    return renderSupplier(c, { values, errors: formErrors(result.errors) });
  }
  return done(c, `${PATH}/${id}`, { kind: "success", text: `Supplier ${result.value.name} saved.` });
});

suppliersPages.post("/suppliers/:id/rotate-secret", async (c) => {
  const id = supplierId(c);
  const expire = text(await formFields(c), "expire_previous") === "true";
  const supplier = await rotateSecret(c.get("db"), c.get("account").id, id, expire);
  await revealOnce(c, {
    label: `New signing secret of ${supplier.name}`,
    value: supplier.webhookSecret ?? "",
    note: expire ? "The previous secret no longer works." : "The previous secret stays valid beside it until the next rotation.",
  });
  return done(c, `${PATH}/${id}`, { kind: "success", text: "Signing secret rotated." });
});

suppliersPages.post("/suppliers/:id/keys", async (c) => {
  const id = supplierId(c);
  const name = text(await formFields(c), "key_name").trim();
  const checked = validateForm(CreateSupplierKey, { name }, { name: "Key name" });
  if (!checked.ok) {
    c.status(422);
    return renderSupplier(c, { values: { key_name: name }, errors: { key_name: checked.errors.name ?? [] } });
  }
  const { key, secret } = await createSupplierKey(c.get("db"), c.get("account").id, id, checked.data.name);
  await registerSupplierKey(c.env, secret, c.get("account").id);
  await revealOnce(c, {
    label: `New supplier key ${key.prefix}…`,
    value: secret,
    note: "The supplier signs in to its portal (/supplier) with it, or sends it to the API as Authorization: Bearer <key>.",
  });
  return done(c, `${PATH}/${id}`, { kind: "success", text: `Supplier key ${key.prefix}… issued.` });
});

suppliersPages.post("/suppliers/:id/keys/:keyId/revoke", async (c) => {
  const id = supplierId(c);
  const keyId = parseId(c.req.param("keyId"));
  if (keyId === null) return c.notFound();
  await revokeSupplierKey(c.get("db"), c.get("account").id, id, keyId);
  return done(c, `${PATH}/${id}`, { kind: "success", text: "Supplier key revoked: it no longer works, and its portal sessions have ended." });
});


// ---- Components -------------------------------------------------------------------------

function SupplierForm(props: { action: string; csrf: string; values: FormValues; errors: ValidationErrors; submit: string; stored: FileTransferConfig | null; file?: FileFormState }) {
  const { values, errors } = props;
  const channel = text(values, "channel") || "manual";
  return (
    <form method="post" action={props.action} novalidate class="stacked supplier-form">
      {/* Enter in a field saves (a form's first button answers Enter), not the file server's Test. */}
      <button type="submit" name="intent" value="save" class="visually-hidden" tabindex={-1} aria-hidden="true">
        {props.submit}
      </button>
      <CsrfField token={props.csrf} />
      <FormError messages={Object.keys(errors).length ? ["Check the fields marked below."] : undefined} />
      <div class="filter-grid">
        <Field name="name" label={labels().name} value={text(values, "name")} errors={errors} required />
        <Field name="code" label={labels().code} value={text(values, "code")} errors={errors} hint="Optional: matched like the name against a line's supplier field" />
        <Field name="priority" label={labels().priority} type="number" min="0" inputmode="numeric" value={text(values, "priority")} errors={errors} hint="Lower wins catalogue price ties; default 100" />
      </div>
      <RadioGroup
        name="channel"
        label={labels().channel}
        value={channel}
        errors={errors}
        options={channels().map((ch) => ({
          value: ch.name,
          label: (
            <span>
              <strong>{ch.label}</strong> <small class="muted">{ch.summary}</small>
            </span>
          ),
        }))}
      />
      {/* Which fields show for the chosen channel: a stylesheet made from the channels (below). */}
      <link rel="stylesheet" href={CHANNEL_FIELDS_CSS} />
      {textFields().map(({ field, channels: using }) => (
        <div class="channel-field" data-channel={using.join(" ")}>
          <Field
            name={field.key}
            label={field.label}
            type={field.secret ? "password" : field.kind === "url" || field.kind === "email" || field.kind === "number" ? field.kind : "text"}
            value={field.secret ? "" : text(values, field.key)}
            errors={errors}
            hint={field.hint}
          />
        </div>
      ))}
      <FileTransferFieldset
        values={values}
        errors={errors}
        stored={props.stored}
        action={props.action}
        test={props.file?.test}
        accepted={props.file?.accepted}
        channels={channels().filter((ch) => "file_transfer" in ch.settings.shape).map((ch) => ch.name)}
      />
      <fieldset>
        <legend>Deadlines (optional)</legend>
        <div class="filter-grid">
          <Field
            name="acknowledgement_deadline_hours"
            label={labels().acknowledgement_deadline_hours}
            type="number"
            min="1"
            inputmode="numeric"
            value={text(values, "acknowledgement_deadline_hours")}
            errors={errors}
            hint="Accept, decline or acknowledge a line within so many hours of the send (1 to 720); empty: no deadline"
          />
          <Field
            name="shipping_deadline_days"
            label={labels().shipping_deadline_days}
            type="number"
            min="1"
            inputmode="numeric"
            value={text(values, "shipping_deadline_days")}
            errors={errors}
            hint="Ship an accepted line within so many days (1 to 365); empty: no deadline"
          />
        </div>
        <Checkbox
          name="acknowledgement_deadline_reroute"
          label="When it does not answer in time, send the line to the next eligible supplier"
          checked={text(values, "acknowledgement_deadline_reroute") === "true"}
        />
      </fieldset>
      <fieldset>
        <legend>State</legend>
        <Checkbox name="active" label="Active: lines can be matched and sent to it" checked={text(values, "active") === "true"} />
      </fieldset>
      <button type="submit">{props.submit}</button>
    </form>
  );
}

function SupplierPage({ view }: { view: SupplierView }) {
  const s = view.supplier;
  const base = `${PATH}/${s.id}`;
  const keyRefused = !!view.errors?.key_name;
  const values: FormValues = (!keyRefused && view.values) || {
    name: s.name,
    code: s.code ?? "",
    priority: String(s.priority),
    channel: s.channel,
    webhook_url: s.webhookUrl ?? "",
    email: s.email ?? "",
    active: s.active ? "true" : "false",
    acknowledgement_deadline_hours: s.ackDeadlineHours === null ? "" : String(s.ackDeadlineHours),
    shipping_deadline_days: s.shipDeadlineDays === null ? "" : String(s.shipDeadlineDays),
    acknowledgement_deadline_reroute: s.ackDeadlineReroute ? "true" : "false",
    ...fileTransferValues(s.fileTransfer),
  };
  const keyErrors: ValidationErrors = keyRefused ? { key_name: view.errors!.key_name } : {};
  const formErrors: ValidationErrors = !keyRefused ? (view.errors ?? {}) : {};
  return (
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href={PATH}>Suppliers</a> / <span aria-current="page">{s.name}</span>
      </nav>
      <hgroup>
        <h1>{s.name}</h1>
        <p>
          {channelFor(s.channel).label} channel · {s.active ? "active" : "inactive"} · <a href={`/console/orders?supplier_ids=${s.id}`}>orders with lines matched to it</a>
        </p>
      </hgroup>
      <SecretOnce revealed={view.revealed} />
      <section aria-labelledby="settings-heading">
        <h2 id="settings-heading">Settings</h2>
        <SupplierForm action={base} csrf={view.csrf} values={values} errors={formErrors} submit="Save supplier" stored={s.fileTransfer} file={view.file} />
      </section>

      {/* A file supplier was handed no signing secret: it gets files and answers with files. */}
      {!channelFor(s.channel).signs && !s.webhookSecret ? null : <section aria-labelledby="secret-heading">
        <h2 id="secret-heading">Signing secret</h2>
        <p>
          Webhooks to the supplier are signed with it, and its callbacks must be. {s.webhookSecretPrevious ? "The previous secret is still valid beside the current one." : "Only the current secret is valid."}
        </p>
        <form method="post" action={`${base}/rotate-secret`} class="stacked">
          <CsrfField token={view.csrf} />
          <Checkbox name="expire_previous" label={labels().expire_previous} checked={false} />
          <small class="muted">Otherwise the previous secret stays valid until the next rotation, so the supplier can switch without missing a webhook.</small>
          <p>
            <button type="submit" class="secondary">
              Rotate signing secret
            </button>
          </p>
        </form>
      </section>}

      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">Supplier keys</h2>
        <p class="muted">A key lets the supplier sign in to its portal and use the supplier API for its own orders only.</p>
        {view.keys.length === 0 ? (
          <p>No keys yet. Issue one below and hand it to the supplier.</p>
        ) : (
          <DataTable<SupplierKey>
            caption={`Keys of ${s.name}, newest first`}
            rows={view.keys}
            columns={[
              { header: "Prefix", cell: (k) => <code>{k.prefix}…</code> },
              { header: "Name", cell: (k) => orDash(k.name) },
              { header: "Created", cell: (k) => <LocalTime iso={k.createdAt} /> },
              {
                header: "State",
                cell: (k) =>
                  k.revokedAt ? (
                    <span>
                      <Badge tone="red">Revoked</Badge> <LocalTime iso={k.revokedAt} />
                    </span>
                  ) : (
                    <PostButton action={`${base}/keys/${k.id}/revoke`} csrf={view.csrf} variant="danger" label="Revoke" ariaLabel={`Revoke key ${k.prefix}`} />
                  ),
              },
            ]}
          />
        )}
        <form method="post" action={`${base}/keys`} novalidate class="stacked">
          <CsrfField token={view.csrf} />
          <Field name="key_name" label="Key name" value={text(view.values ?? {}, "key_name")} errors={keyErrors} hint="Optional, e.g. the supplier's system that uses it" />
          <button type="submit">Issue a supplier key</button>
        </form>
      </section>
      {view.edi ? <EdiFiles name={s.name} {...view.edi} /> : null}
      <ReturnSettingsFormSection supplierId={s.id} settings={view.returns.settings} csrf={view.csrf} form={view.returnSettingsForm} />
      <SupplierCredits supplierId={s.id} name={s.name} credits={view.returns.credits} />
      {s.fileTransfer?.inbound ? <AnswerFiles files={view.inbound} folder={s.fileTransfer.inbound.directory} name={s.name} /> : null}
      <FormError messages={view.formError ? [view.formError] : undefined} />
    </>
  );
}

/** Refused rows shown per file; the rest through the API. */
const REFUSED_SHOWN = 20;

/** A file supplier's latest answer files: what became of each, and why rows were refused. */
function AnswerFiles({ files, folder, name }: { files: InboundFileWithRows[]; folder: string; name: string }) {
  return (
    <section aria-labelledby="answer-files-heading">
      <h2 id="answer-files-heading">Answer files</h2>
      <p class="muted">
        The files {name} leaves in <code>{folder}</code>, read each minute; each row is applied as an answer through the supplier API. The latest 10.
      </p>
      {files.length === 0 ? (
        <p>No answer files read yet.</p>
      ) : (
        <DataTable<InboundFileWithRows>
          caption={`Answer files of ${name}, newest first`}
          rows={files}
          columns={[
            { header: "File", cell: ({ file }) => <code>{file.name}</code> },
            { header: "Read", cell: ({ file }) => <LocalTime iso={file.claimedAt} /> },
            {
              header: "Result",
              cell: ({ file }) =>
                file.status === "failed" ? (
                  <span>
                    <Badge tone="red">Failed</Badge> {file.error}
                  </span>
                ) : file.status === "processing" ? (
                  <Badge tone="grey">Being read</Badge>
                ) : (
                  <span>
                    {file.rowsApplied} applied, {file.rowsRefused} refused
                  </span>
                ),
            },
            {
              header: "Refused rows",
              cell: ({ rows }) => {
                const refused = rows.filter((r) => r.result === "refused");
                if (refused.length === 0) return "—";
                return (
                  <ul>
                    {refused.slice(0, REFUSED_SHOWN).map((r) => (
                      <li>
                        Row {r.row}: {r.message}
                      </li>
                    ))}
                    {refused.length > REFUSED_SHOWN ? <li>and {refused.length - REFUSED_SHOWN} more</li> : null}
                  </ul>
                );
              },
            },
          ]}
        />
      )}
    </section>
  );
}
