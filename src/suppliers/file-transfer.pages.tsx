// The file channel's part of the supplier form: every field of the API's file_transfer
// (file-transfer.schemas.ts checks the form as it checks the API), the password and private key
// write-only, and the set-up's Test with its answer in words: when an SFTP server shows a key that is
// not pinned (or none is pinned yet), the test says which, and "Accept this key" pins it in the form.
// htmx swaps the test's answer and the accepted key in, so what was typed (the password) stays in
// the browser; without JavaScript the page comes back, the password to be typed again.
import type { Context } from "hono";
import { text, type FormValues } from "../console/forms";
import type { FileTransferConfig, Supplier } from "../db/schema";
import type { AppEnv } from "../env";
import type { ValidationErrors } from "../lib/errors";
import type { FileTransferSettings } from "../lib/file-transfer/transfer";
import { sealingKeys } from "../lib/sealed";
import { fileTimeoutMs, testFileSettings, type FileServerTest } from "../forwarding/channels/file";
import { Field, SelectField, TextArea } from "../ui/field";
import { DEFAULT_CANCELLATION_FILENAME, DEFAULT_FILENAME, DELIMITERS, ENCODINGS, FILE_TRANSFER_LIMITS, FileTransferBody } from "./file-transfer.schemas";
import { connectionSettings } from "./file-transfer.service";
import { X12_LABELS, x12ErrorKey, X12Fieldset, x12Input, x12Values } from "./x12.pages";
import { validateForm } from "../lib/validation";

export const FILE_TEST_ID = "file-test";
export const HOST_KEY_ID = "ft-host-key";

const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}=?$/;

/** The schema's paths ("file_transfer.host") as the form names its fields ("ft_host"). */
const FIELD_LABELS: Record<string, string> = {
  protocol: "Protocol",
  host: "Host",
  port: "Port",
  username: "User",
  password: "Password",
  private_key: "Private key",
  host_key_fingerprint: "Pinned host key",
  directory: "Order folder",
  filename: "Order file name",
  cancellation_filename: "Cancellation file name",
  format: "File format",
  delimiter: "CSV separator",
  encoding: "Encoding",
  columns: "Columns",
  "inbound.directory": "Answer folder",
  "inbound.format": "Answer file format",
  "inbound.columns": "Answer columns",
  "inbound.archive_directory": "Archive folder",
  x12: "X12 settings",
};

/** Labels for the schema's messages, under a prefix ("file_transfer" in a supplier, "" alone); a column's error names its line. */
export function fileTransferLabels(prefix: string): Record<string, string> {
  const at = (k: string) => (prefix ? `${prefix}.${k}` : k);
  const labels: Record<string, string> = { [prefix || "file_transfer"]: "File server" };
  for (const [k, label] of Object.entries(FIELD_LABELS)) labels[at(k)] = label;
  for (const [k, label] of Object.entries(X12_LABELS)) labels[at(`x12.${k}`)] = label;
  for (let i = 0; i < FILE_TRANSFER_LIMITS.columns + 1; i++) {
    for (const part of ["field", "header"]) {
      labels[at(`columns.${i}.${part}`)] = `Columns (line ${i + 1}, ${part})`;
      labels[at(`inbound.columns.${i}.${part}`)] = `Answer columns (line ${i + 1}, ${part})`;
    }
  }
  return labels;
}

/** The form's name of an error's field: file_transfer.inbound.archive_directory is ft_archive_directory, any column's is its list. */
export function fileTransferErrorKey(key: string): string | null {
  if (key === "file_transfer") return "ft_host";
  if (!key.startsWith("file_transfer.")) return null;
  const path = key.slice("file_transfer.".length);
  if (path.startsWith("inbound.columns")) return "ft_inbound_columns";
  if (path.startsWith("columns")) return "ft_columns";
  if (path === "inbound.archive_directory") return "ft_archive_directory";
  if (path === "inbound") return "ft_inbound_directory";
  if (path.startsWith("x12.")) return x12ErrorKey(path);
  return `ft_${path.replace(/\./g, "_")}`;
}

const blank = (s: string) => (s.trim() === "" ? undefined : s.trim());

/** "field=Header" per line (a line without "=": the field under its own name). */
function columnsOf(raw: string): { field: string; header: string }[] | undefined {
  const lines = raw
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length === 0) return undefined;
  return lines.map((line) => {
    const at = line.indexOf("=");
    return at < 0 ? { field: line, header: line } : { field: line.slice(0, at).trim(), header: line.slice(at + 1).trim() };
  });
}

const columnsText = (columns: { field: string; header: string }[] | null) => (columns ?? []).map((c) => `${c.field}=${c.header}`).join("\n");

/** The form's file server fields in the API's file_transfer shape. */
export function fileTransferInput(values: FormValues) {
  const v = (k: string) => text(values, `ft_${k}`);
  const inbound = blank(v("inbound_directory"));
  const delimiter = v("delimiter");
  return {
    protocol: v("protocol"),
    host: v("host"),
    port: blank(v("port")),
    username: v("username"),
    // Write-only: typed now, or (on an edit) the stored one stays.
    password: v("password") === "" ? undefined : v("password"),
    private_key: blank(v("private_key")),
    host_key_fingerprint: blank(v("host_key_fingerprint")),
    directory: blank(v("directory")),
    filename: blank(v("filename")),
    cancellation_filename: blank(v("cancellation_filename")),
    format: blank(v("format")),
    delimiter: delimiter === "tab" ? "\t" : blank(delimiter),
    encoding: blank(v("encoding")),
    columns: columnsOf(v("columns")),
    inbound: inbound
      ? { directory: inbound, format: blank(v("inbound_format")), columns: columnsOf(v("inbound_columns")), archive_directory: blank(v("archive_directory")) ?? null }
      : null,
    // The X12 fields count only for format x12 (the API refuses x12 settings with another format).
    ...(v("format") === "x12" ? { x12: x12Input(values) } : {}),
  };
}

/** A stored setting as the form's fields (never its secret). */
export function fileTransferValues(config: FileTransferConfig | null): FormValues {
  if (!config) return { ft_protocol: "sftp", ...x12Values(null) };
  return {
    ft_protocol: config.protocol,
    ft_host: config.host,
    ft_port: String(config.port),
    ft_username: config.username,
    ft_host_key_fingerprint: config.host_key_fingerprint ?? "",
    ft_directory: config.directory,
    ft_filename: config.filename,
    ft_cancellation_filename: config.cancellation_filename,
    ft_format: config.format,
    ft_delimiter: config.delimiter === "\t" ? "tab" : config.delimiter,
    ft_encoding: config.encoding,
    ft_columns: columnsText(config.columns),
    ft_inbound_directory: config.inbound?.directory ?? "",
    ft_inbound_format: config.inbound?.format ?? "csv",
    ft_inbound_columns: columnsText(config.inbound?.columns ?? null),
    ft_archive_directory: config.inbound?.archive_directory ?? "",
    ...x12Values(config.x12),
  };
}

// ---- The test ----------------------------------------------------------------------------

export type FileTest = { result?: FileServerTest; errors?: string[] };

/** A stand-in pin that lets a draft without one pass the schema: the test then learns the server's key. */
const UNPINNED = `SHA256:${"A".repeat(43)}`;

/**
 * The set-up's Test on the settings as drafted: checked by the API's schema (a missing host key is
 * allowed: the test shows the server's), the password or key typed, or the stored one of `supplier`.
 */
export async function testDraft(c: Context<AppEnv>, values: FormValues, supplier?: Supplier): Promise<FileTest> {
  const input = fileTransferInput(values);
  const unpinned = input.protocol === "sftp" && !input.host_key_fingerprint;
  const checked = validateForm(FileTransferBody, unpinned ? { ...input, host_key_fingerprint: UNPINNED } : input, fileTransferLabels(""));
  if (!checked.ok) return { errors: Object.values(checked.errors).flat() };
  const d = checked.data;
  const timeoutMs = fileTimeoutMs(c.env);
  let secret: Pick<FileTransferSettings, "password" | "privateKey">;
  if (d.password !== undefined) secret = { password: d.password };
  else if (d.private_key !== undefined) secret = { privateKey: d.private_key };
  else if (supplier?.fileTransfer && supplier.fileTransferSecret) {
    const stored = await connectionSettings(sealingKeys(c.env), supplier, timeoutMs);
    if (stored.privateKey !== undefined && d.protocol !== "sftp") return { errors: ["Type the password: the stored private key is only for SFTP."] };
    secret = stored.privateKey !== undefined ? { privateKey: stored.privateKey } : { password: stored.password };
  } else return { errors: ["Type the password (or, for SFTP, the private key) to test: it is not stored yet."] };
  const settings: FileTransferSettings = {
    protocol: d.protocol,
    host: d.host,
    port: d.port ?? (d.protocol === "sftp" ? 22 : 21),
    username: d.username,
    ...secret,
    ...(d.protocol === "sftp" && !unpinned ? { hostKeyFingerprint: d.host_key_fingerprint } : {}),
    timeoutMs,
  };
  const config = {
    protocol: d.protocol,
    host: d.host,
    port: settings.port,
    username: d.username,
    directory: d.directory ?? ".",
    inbound: d.inbound ? { directory: d.inbound.directory, format: d.inbound.format ?? "csv", columns: null, archive_directory: d.inbound.archive_directory ?? null } : null,
  };
  return { result: await testFileSettings(settings, config) };
}

/** The key the person accepted from the test's answer, when it is a fingerprint. */
export const acceptedKey = (values: FormValues): string | null => {
  const key = text(values, "accept_host_key").trim();
  return FINGERPRINT.test(key) ? key : null;
};

// ---- Components ----------------------------------------------------------------------------

const CHECK_NAMES: Record<string, string> = {
  settings: "Settings",
  connect: "Connect and log in",
  list: "List the order folder",
  write: "Write a probe file",
  delete: "Delete the probe file",
  list_inbound: "List the answer folder",
};

export function FileTestView({ test, action }: { test?: FileTest; action: string }) {
  const r = test?.result;
  return (
    <div id={FILE_TEST_ID} aria-live="polite">
      {test?.errors?.length ? (
        <div class="callout" role="alert">
          <p>Not tested: {test.errors.join(" ")}</p>
        </div>
      ) : null}
      {r ? (
        <div class={r.ok ? "callout success" : "callout"}>
          <p>
            <strong>{r.ok ? "The server passed every check: orders can be written there." : "The test failed: nothing can be sent there yet."}</strong>
          </p>
          <ul class="checks">
            {r.checks.map((ch) => (
              <li>
                {ch.ok ? "✓" : "✗"} {CHECK_NAMES[ch.name] ?? ch.name}: {ch.message}
              </li>
            ))}
          </ul>
          {r.hostKey ? (
            <p class="host-key">
              The server shows the host key <code>{r.hostKey.fingerprint}</code> ({r.hostKey.type}). Compare it with the one the supplier gave you; if they are the same, accept
              it to pin it, then test again.{" "}
              <input type="hidden" name="accept_host_key" value={r.hostKey.fingerprint} />
              <button
                type="submit"
                name="intent"
                value="accept_key"
                class="secondary"
                hx-post={action}
                hx-target={`#${HOST_KEY_ID}`}
                hx-swap="outerHTML"
                hx-vals={JSON.stringify({ intent: "accept_key", accept_host_key: r.hostKey.fingerprint })}
              >
                Accept this key
              </button>
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/** The pinned host key's field (swapped in by htmx when a key is accepted). */
export function HostKeyField({ values, errors, accepted }: { values: FormValues; errors: ValidationErrors; accepted?: boolean }) {
  return (
    <div id={HOST_KEY_ID}>
      <Field
        name="ft_host_key_fingerprint"
        label="Pinned host key (SFTP)"
        value={text(values, "ft_host_key_fingerprint")}
        errors={errors}
        hint={accepted ? "Accepted from the test: save to keep it." : "SHA256:… as ssh-keygen -lf prints it; empty: Test shows the server's key to accept"}
      />
    </div>
  );
}

const OPTIONS = {
  protocol: [
    { value: "sftp", label: "SFTP" },
    { value: "ftps", label: "FTPS (explicit TLS)" },
    { value: "ftp", label: "FTP" },
  ],
  format: [
    { value: "csv", label: "CSV" },
    { value: "xml", label: "XML" },
    { value: "json", label: "JSON" },
    { value: "x12", label: "X12 (EDI)" },
  ],
  delimiter: DELIMITERS.map((d) => ({ value: d === "\t" ? "tab" : d, label: d === "\t" ? "Tab" : d === "," ? ", (comma)" : d === ";" ? "; (semicolon)" : "| (pipe)" })),
  encoding: ENCODINGS.map((e) => ({ value: e, label: e.toUpperCase() })),
};

/** The file channel's fields; `stored`: the saved setting (its secret kept when the password is left empty). */
export function FileTransferFieldset(props: {
  values: FormValues;
  errors: ValidationErrors;
  stored: FileTransferConfig | null;
  action: string;
  test?: FileTest;
  accepted?: boolean;
  /** The channels that use a file server (shown while one of them is chosen). */
  channels: string[];
}) {
  const { values, errors, stored } = props;
  const v = (k: string) => text(values, `ft_${k}`);
  const keep = stored ? `A ${stored.authentication === "password" ? "password" : "private key"} is stored (never shown): leave empty to keep it.` : undefined;
  return (
    <fieldset class="channel-field file-transfer" data-channel={props.channels.join(" ")}>
      <legend>File server</legend>
      <p class="muted">Each order is written as one file in the order folder; answers are read from the answer folder each minute. Passwords and keys are stored encrypted and never shown again.</p>
      <div class="filter-grid">
        <SelectField name="ft_protocol" label="Protocol" value={v("protocol") || "sftp"} errors={errors} options={OPTIONS.protocol} />
        <Field name="ft_host" label="Host" value={v("host")} errors={errors} hint="Host name or IP address" />
        <Field name="ft_port" label="Port" type="number" inputmode="numeric" min="1" max="65535" value={v("port")} errors={errors} hint="Empty: 22 for SFTP, 21 for FTP(S)" />
        <Field name="ft_username" label="User" value={v("username")} errors={errors} autocomplete="off" />
        <Field name="ft_password" label="Password" type="password" value="" errors={errors} autocomplete="new-password" hint={keep} />
        <HostKeyField values={values} errors={errors} accepted={props.accepted} />
      </div>
      <TextArea name="ft_private_key" label="Private key (SFTP, instead of a password)" value="" rows={3} errors={errors} hint={keep ?? "PEM: -----BEGIN … PRIVATE KEY-----"} />
      <div class="filter-grid">
        <Field name="ft_directory" label="Order folder" value={v("directory")} errors={errors} hint="Empty: the folder the session starts in (.)" />
        <Field name="ft_filename" label="Order file name" value={v("filename")} errors={errors} hint={`Must hold {dispatch_id}; empty: ${DEFAULT_FILENAME}`} />
        <Field
          name="ft_cancellation_filename"
          label="Cancellation file name"
          value={v("cancellation_filename")}
          errors={errors}
          hint={`Must hold {cancellation_id}; empty: ${DEFAULT_CANCELLATION_FILENAME}`}
        />
        <SelectField name="ft_format" label="File format" value={v("format") || "csv"} errors={errors} options={OPTIONS.format} />
        <SelectField name="ft_delimiter" label="CSV separator" value={v("delimiter") || ","} errors={errors} options={OPTIONS.delimiter} />
        <SelectField name="ft_encoding" label="Encoding" value={v("encoding") || "utf-8"} errors={errors} options={OPTIONS.encoding} />
      </div>
      <TextArea name="ft_columns" label="Columns (CSV)" value={v("columns")} rows={3} errors={errors} hint="One per line, field=Header (order_reference=Order); empty: every field under its own name" />
      <div class="filter-grid">
        <Field name="ft_inbound_directory" label="Answer folder" value={v("inbound_directory")} errors={errors} hint="Where the supplier leaves answer files; empty: none" />
        <SelectField name="ft_inbound_format" label="Answer file format" value={v("inbound_format") || "csv"} errors={errors} options={OPTIONS.format} />
        <Field name="ft_archive_directory" label="Archive folder" value={v("archive_directory")} errors={errors} hint="Where a read answer file is moved; empty: it stays" />
      </div>
      <TextArea name="ft_inbound_columns" label="Answer columns" value={v("inbound_columns")} rows={2} errors={errors} hint="One per line, field=Header (tracking_number=Track); empty: each field by its own name" />
      <X12Fieldset values={values} errors={errors} />
      <p>
        <button type="submit" name="intent" value="test_file" class="secondary" hx-post={props.action} hx-target={`#${FILE_TEST_ID}`} hx-swap="outerHTML" hx-vals='{"intent":"test_file"}'>
          Test the connection
        </button>
      </p>
      <FileTestView test={props.test} action={props.action} />
    </fieldset>
  );
}
