// The file channel: one file per dispatch (and per cancellation request) on the supplier's FTP, FTPS
// or SFTP server, written atomically (a temporary name, then a rename). The file's name and bytes
// come from the document alone, so a retry after an unclear outcome writes the same name with the
// same bytes and replaces what may be there: never a second file for one dispatch.
// docs/file-channel.md has the formats, the names and the errors.
import { z } from "zod";
import type { FileFormat, FileTransferConfig, Supplier } from "../../db/schema";
import { described } from "../../lib/described-fields";
import type { Bindings } from "../../env";
import { encodeSingleByte, firstUnwritable, type SingleByteCharset } from "../../lib/charset";
import { csvCell } from "../../lib/csv";
import { ftpConnector } from "../../lib/file-transfer/ftp";
import { connectSftp } from "../../lib/file-transfer/sftp";
import { FileTransferError, type FileTransferConnector, type FileTransferSession, type FileTransferSettings } from "../../lib/file-transfer/transfer";
import { LEASE_MARGIN_MS, sendSettings } from "../../lib/outbound";
import { sealingKeys } from "../../lib/sealed";
import { connectionSettings } from "../../suppliers/file-transfer.service";
import type { ReturnDocument } from "../return-document";
import type { CancellationDocument } from "../cancellation-document";
import type { Attempt, Channel } from "./channel";
import { CSV_COLUMNS, csvRows, type DispatchDocument } from "../document";
import { count } from "../../lib/plural";
import { sendX12 } from "./x12/send";

const ENTRY = { one: "entry", many: "entries" };

/** The session's time box: FILE_TRANSFER_TIMEOUT_MS (20 s by default), always well inside the send's lease. */
export function fileTimeoutMs(env: Bindings): number {
  const raw = Number(env.FILE_TRANSFER_TIMEOUT_MS);
  const wanted = Number.isFinite(raw) && raw > 0 ? raw : 20_000;
  return Math.min(wanted, sendSettings(env).timeoutMs + LEASE_MARGIN_MS / 2);
}

export const connectorFor = (protocol: FileTransferSettings["protocol"]): FileTransferConnector => (protocol === "sftp" ? connectSftp : ftpConnector);

/** A session on the supplier's server, with its secret opened. */
export async function openSession(env: Bindings, supplier: Supplier, timeoutMs = fileTimeoutMs(env)): Promise<FileTransferSession> {
  const settings = await connectionSettings(sealingKeys(env), supplier, timeoutMs);
  return connectorFor(settings.protocol)(settings);
}

/** A path in the supplier's folder. */
export const inFolder = (directory: string, name: string) => (directory === "." || directory === "" ? name : `${directory.replace(/\/+$/, "")}/${name}`);

/** Where a file went, for the attempt log: protocol://host:port/path. */
export const locationOf = (config: FileTransferConfig, path: string) => `${config.protocol}://${config.host}:${config.port}/${path.replace(/^\/+/, "")}`;

/** A template's name: each placeholder replaced, and anything a file name cannot hold made "_". */
export function fileName(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => String(values[key] ?? "").replace(/[/\\\p{Cc}]/gu, "_"));
}

const EXT: Record<FileFormat, string> = { csv: "csv", xml: "xml", json: "json", x12: "x12" };

// ---- The bytes ---------------------------------------------------------------

type Encoding = FileTransferConfig["encoding"];
const SINGLE_BYTE: Record<Exclude<Encoding, "utf-8">, SingleByteCharset> = { "iso-8859-1": "ISO-8859-1", "windows-1252": "windows-1252" };
const XML_ENCODING: Record<Encoding, string> = { "utf-8": "UTF-8", "iso-8859-1": "ISO-8859-1", "windows-1252": "windows-1252" };

/**
 * A character the file's encoding has no byte for, in a CSV cell: CSV has no escape for it, and a "?"
 * or a look-alike in its place would change a name or an address the supplier ships to. The send is
 * refused in words instead (XML and JSON carry such a character as an escape and are always written).
 */
export class UnwritableCharacter extends Error {}

const codePointName = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;

/** The text in the setting's encoding; every character must be one it has (XML and JSON escape the others first, CSV is refused). */
export function encode(text: string, encoding: Encoding): Uint8Array {
  return encoding === "utf-8" ? new TextEncoder().encode(text) : encodeSingleByte(text, SINGLE_BYTE[encoding]);
}

/** Whether a single-byte encoding has this UTF-16 code unit as a character (a surrogate never is one). */
const writable = (unit: string, encoding: Encoding) =>
  encoding === "utf-8" || (!/[\ud800-\udfff]/.test(unit) && firstUnwritable(unit, SINGLE_BYTE[encoding]) === null);

/** JSON text whose characters the encoding lacks are \uXXXX escapes (a pair of them past U+FFFF): the same JSON value. */
function jsonText(doc: object, encoding: Encoding): string {
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  if (encoding === "utf-8") return text;
  return text.replace(/[^\x00-\x7f]/g, (unit) => (writable(unit, encoding) ? unit : `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`));
}

/** CSV cells must all be writable in the encoding: the first that is not refuses the file, naming where it is. */
function assertCsvWritable(header: readonly string[], rows: readonly { line: number; cells: readonly string[] }[], fields: readonly string[], encoding: Encoding) {
  if (encoding === "utf-8") return;
  const refuse = (where: string, text: string) => {
    const bad = firstUnwritable(text, SINGLE_BYTE[encoding]);
    if (bad) {
      throw new UnwritableCharacter(
        `${where} holds "${bad.char}" (${codePointName(bad.codePoint)}), which ${encoding} cannot write; nothing was sent. ` +
          `Set the supplier's file_transfer encoding to utf-8, or correct the order.`,
      );
    }
  };
  header.forEach((h, c) => refuse(`the header of column ${c + 1}`, h));
  for (const row of rows) row.cells.forEach((cell, c) => refuse(`the ${fields[c]} of line ${row.line}`, cell));
}

/** One CSV cell with any delimiter: csvCell's quoting, and quoted too when it holds the delimiter. */
function cell(value: string, delimiter: string): string {
  const quoted = csvCell(value);
  if (quoted.startsWith('"') || !quoted.includes(delimiter)) return quoted;
  return `"${quoted.replace(/"/g, '""')}"`;
}

export function csvText(header: string[], rows: string[][], delimiter: string): string {
  return [header, ...rows].map((r) => r.map((v) => cell(v, delimiter)).join(delimiter) + "\r\n").join("");
}

/** XML text; a character the encoding lacks is a character reference (&#x142;), which every XML reader reads back as it. */
function xmlEscape(v: string, encoding: Encoding): string {
  const escaped = v.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");
  if (encoding === "utf-8") return escaped;
  return escaped.replace(/[^\x00-\x7f]/gu, (char) => (firstUnwritable(char, SINGLE_BYTE[encoding]) ? `&#x${char.codePointAt(0)!.toString(16).toUpperCase()};` : char));
}

/** A JSON value as XML: objects become elements named by their keys, arrays repeat `item` (or the singular of their key). */
function xmlOf(name: string, value: unknown, indent: string, encoding: Encoding): string {
  if (value === null || value === undefined) return `${indent}<${name}/>\n`;
  if (Array.isArray(value)) {
    const item = name.endsWith("s") ? name.slice(0, -1) : "item";
    return `${indent}<${name}>\n${value.map((v) => xmlOf(item, v, `${indent}  `, encoding)).join("")}${indent}</${name}>\n`;
  }
  if (typeof value === "object") {
    return `${indent}<${name}>\n${Object.entries(value).map(([k, v]) => xmlOf(k, v, `${indent}  `, encoding)).join("")}${indent}</${name}>\n`;
  }
  return `${indent}<${name}>${xmlEscape(String(value), encoding)}</${name}>\n`;
}

function xmlDocument(root: string, doc: object, encoding: Encoding): string {
  return `<?xml version="1.0" encoding="${XML_ENCODING[encoding]}"?>\n${xmlOf(root, doc, "", encoding)}`;
}

/** A document's file name: the template with the order's, the supplier's and the document's own values. */
function documentFileName(
  template: string,
  doc: { order: { reference: string; external_id: string }; supplier: { id: number }; created_at: string },
  own: Record<string, number>,
  format: FileFormat,
): string {
  const common = { reference: doc.order.reference, external_id: doc.order.external_id, supplier_id: doc.supplier.id, date: doc.created_at.slice(0, 10), ext: EXT[format] };
  return fileName(template, { ...common, ...own });
}

/** The order file of a dispatch: its name and its bytes, from the document and the setting alone. */
export function orderFile(doc: DispatchDocument, config: FileTransferConfig): { name: string; bytes: Uint8Array } {
  const name = documentFileName(config.filename, doc, { dispatch_id: doc.dispatch_id }, config.format);
  let text: string;
  if (config.format === "csv") {
    const columns = config.columns ?? CSV_COLUMNS.map((c) => ({ field: c, header: c }));
    const at = columns.map((c) => CSV_COLUMNS.indexOf(c.field as (typeof CSV_COLUMNS)[number]));
    const header = columns.map((c) => c.header);
    const rows = csvRows(doc).map((row) => at.map((i) => row[i]));
    assertCsvWritable(header, rows.map((cells, r) => ({ line: doc.lines[r].id, cells })), columns.map((c) => c.field), config.encoding);
    text = csvText(header, rows, config.delimiter);
  } else if (config.format === "json") text = jsonText(doc, config.encoding);
  else text = xmlDocument("order", doc, config.encoding);
  return { name, bytes: encode(text, config.encoding) };
}

const CANCELLATION_COLUMNS = ["cancellation_id", "purpose", "order_reference", "order_external_id", "line_id", "line_external_id", "sku", "ean13", "name", "quantity", "line_quantity", "reason"] as const;

/** A cancellation request's file: its own name template, the same format, delimiter and encoding. */
export function cancellationFile(doc: CancellationDocument, config: FileTransferConfig): { name: string; bytes: Uint8Array } {
  const name = documentFileName(config.cancellation_filename, doc, { cancellation_id: doc.cancellation_id }, config.format);
  let text: string;
  if (config.format === "csv") {
    const rows = doc.lines.map((l) => [
      String(doc.cancellation_id),
      doc.purpose,
      doc.order.reference,
      doc.order.external_id,
      String(l.id),
      l.external_id,
      l.reference ?? "",
      l.ean13 ?? "",
      l.name,
      String(l.quantity),
      String(l.line_quantity),
      doc.reason ?? "",
    ]);
    assertCsvWritable(CANCELLATION_COLUMNS, rows.map((cells, r) => ({ line: doc.lines[r].id, cells })), CANCELLATION_COLUMNS, config.encoding);
    text = csvText([...CANCELLATION_COLUMNS], rows, config.delimiter);
  } else if (config.format === "json") text = jsonText(doc, config.encoding);
  else text = xmlDocument("cancellation", doc, config.encoding);
  return { name, bytes: encode(text, config.encoding) };
}

// ---- Sending -----------------------------------------------------------------

/** Failures a retry will not mend (until someone changes the settings or the server): the send is refused. */
const REFUSED_KINDS = new Set(["auth", "host_key_mismatch", "permission_denied", "not_found", "address"]);

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Writes one file atomically on the supplier's server, time-boxed; how it went, in words. */
export async function putFile(env: Bindings, supplier: Supplier, file: { name: string; bytes: Uint8Array }): Promise<Attempt> {
  const config = supplier.fileTransfer;
  if (!config || !supplier.fileTransferSecret) return { outcome: "rejected", detail: "the supplier has no file server settings" };
  const path = inFolder(config.directory, file.name);
  const to = locationOf(config, path);
  let session: FileTransferSession | null = null;
  try {
    session = await openSession(env, supplier);
    // Looked for first: an earlier attempt that never reported back (its Worker killed after the
    // rename) may have put it there, and a supplier that has read it must not find it written again.
    // The name holds the dispatch id and the bytes come from the document alone, so the same name
    // with the same bytes is that attempt's file. One SIZE/STAT per send; the bytes only when the size fits.
    const there = await session.stat(path);
    if (there && there.size === file.bytes.length && sameBytes(await session.read(path, file.bytes.length), file.bytes)) {
      const said = `already on the server, as an earlier attempt wrote it: not written again (${to})`;
      return { outcome: "delivered", detail: said, to, response: said };
    }
    await session.writeAtomic(path, file.bytes);
    return { outcome: "delivered", detail: `written to ${to}`, to };
  } catch (error) {
    if (!(error instanceof FileTransferError)) {
      const message = String(error instanceof Error ? error.message : error).slice(0, 500);
      return { outcome: "retryable", detail: `file transfer failed: ${message}`, failure: "network", response: message, to };
    }
    const words = `${error.kind}: ${error.message}${error.unclear ? " (it may have been written; the retry writes the same file again)" : ""}`.slice(0, 500);
    const outcome = REFUSED_KINDS.has(error.kind) ? "rejected" : "retryable";
    return { outcome, detail: words, failure: error.kind === "timeout" ? "timeout" : "network", response: words, to };
  } finally {
    await session?.close().catch(() => undefined);
  }
}

/** A file made from a document, or the send refused in words when the encoding cannot write it (nothing connects). */
async function putMade(env: Bindings, supplier: Supplier, make: (config: FileTransferConfig) => { name: string; bytes: Uint8Array }): Promise<Attempt> {
  if (!supplier.fileTransfer) return putFile(env, supplier, { name: "", bytes: new Uint8Array() });
  let file: { name: string; bytes: Uint8Array };
  try {
    file = make(supplier.fileTransfer);
  } catch (error) {
    if (!(error instanceof UnwritableCharacter)) throw error;
    return { outcome: "rejected", detail: error.message, response: error.message };
  }
  return putFile(env, supplier, file);
}

/** The order file of a dispatch, put on the supplier's server. */
export const sendOrderFile = (env: Bindings, supplier: Supplier, doc: DispatchDocument) => putMade(env, supplier, (config) => orderFile(doc, config));

/** A cancellation request's file, put on the supplier's server. */
export const sendCancellationFile = (env: Bindings, supplier: Supplier, doc: CancellationDocument) => putMade(env, supplier, (config) => cancellationFile(doc, config));

/** A return's notice as a JSON file beside the orders (the document as the webhook sends it), whatever the orders' format. */
export const sendReturnFile = (env: Bindings, supplier: Supplier, doc: ReturnDocument) =>
  putMade(env, supplier, () => ({ name: `return-${doc.return_id}-${doc.type === "return.cancelled" ? "cancelled" : "requested"}.json`, bytes: new TextEncoder().encode(JSON.stringify(doc, null, 2)) }));

/**
 * The file channel: a dispatch or a cancellation request as one file on the supplier's FTP, FTPS or
 * SFTP server, time-boxed by its own FILE_TRANSFER_TIMEOUT_MS (within the send's lease).
 */
export const file: Channel = {
  name: "file",
  label: "File",
  summary: "Each order is written as a file on the supplier's FTP, FTPS or SFTP server; answers are read from files it leaves there.",
  settings: z.object({
    // Checked field by field by its own schema (src/suppliers/file-transfer.schemas.ts); its form is the file server's fieldset.
    file_transfer: described(z.looseObject({}), { label: "File server", hint: "Needed for the file channel: the server, its folder and the files' format" }),
  }),
  sentAs: "as a file",
  addressName: "file server",
  // A file supplier gets orders as files and answers with files: it is handed no signing secret.
  signs: false,
  delivered: () => "Successfully sent to supplier",
  destination: (supplier) =>
    supplier.fileTransfer ? `${supplier.fileTransfer.protocol}://${supplier.fileTransfer.host}:${supplier.fileTransfer.port}/${supplier.fileTransfer.directory}` : null,
  // The file server's refusal is a file error whatever its kind; a time-out is said as one.
  recordOutcome: (attempt) => (attempt.failure === "timeout" ? "timeout" : "file_error"),
  inbound: { kind: "answer_files", configured: (supplier) => !!supplier.fileTransfer?.inbound },
  starts: "sending",
  // The file server's refusal is already in words (src/lib/file-transfer): said as it is, with where.
  explainFailure: (record, supplierName) =>
    record.outcome === "not_sent"
      ? `Supplier ${supplierName} has no file server set up: fill in its file settings, then send the lines again.`
      : record.outcome === "timeout"
        ? `Supplier ${supplierName}'s file server did not answer in time${record.to ? ` (${record.to})` : ""}: ask the supplier, then send the lines again.`
        : `Supplier ${supplierName}'s file server did not take the order file${record.response ? `: ${record.response}` : ""}. Fix it with the supplier, then send the lines again.`,
  address: (supplier) => (supplier.fileTransfer && supplier.fileTransferSecret ? locationOf(supplier.fileTransfer, supplier.fileTransfer.directory) : null),
  send: (outgoing, supplier, { env, ledger }) => {
    const config = supplier.fileTransfer;
    // A return notice is the channel's JSON return file whatever the format: X12's return
    // authorisation (180) is not built (docs/edi.md).
    if (outgoing.kind === "return") return sendReturnFile(env, supplier, outgoing.document);
    // X12 (src/forwarding/channels/x12/): the same names and the same atomic write, an 850 or an 860 as the bytes.
    if (config?.format === "x12" && config.x12) {
      const name =
        outgoing.kind === "order"
          ? documentFileName(config.filename, outgoing.document, { dispatch_id: outgoing.document.dispatch_id }, "x12")
          : documentFileName(config.cancellation_filename, outgoing.document, { cancellation_id: outgoing.document.cancellation_id }, "x12");
      return sendX12(ledger, config.x12, outgoing, name, (file) => putFile(env, supplier, file));
    }
    return outgoing.kind === "order" ? sendOrderFile(env, supplier, outgoing.document) : sendCancellationFile(env, supplier, outgoing.document);
  },
};

// ---- The settings' test ------------------------------------------------------

export type Check = { name: string; ok: boolean; message: string };

/** A test's checks, and the host key an SSH server showed when it is not the one pinned (or none is): what a person may pin. */
export type FileServerTest = { ok: boolean; checks: Check[]; hostKey: { fingerprint: string; type: string } | null };

/**
 * POST /api/v1/suppliers/{id}/file-transfer/test: connects, lists the folder, writes a probe file
 * (atomically, as an order) and deletes it, and lists the answer folder when there is one. Each
 * check says in words what failed; the ones after a failure are said not tried.
 */
export async function testFileTransfer(env: Bindings, supplier: Supplier): Promise<FileServerTest> {
  const config = supplier.fileTransfer;
  if (!config) return { ok: false, checks: [{ name: "settings", ok: false, message: "The supplier has no file_transfer settings." }], hostKey: null };
  return testFileServer(() => openSession(env, supplier), config);
}

/** The same checks with settings as drafted (the console's Test, before they are saved). */
export function testFileSettings(settings: FileTransferSettings, config: Pick<FileTransferConfig, "protocol" | "host" | "port" | "username" | "directory" | "inbound">) {
  return testFileServer(() => connectorFor(settings.protocol)(settings), config);
}

async function testFileServer(
  open: () => Promise<FileTransferSession>,
  config: Pick<FileTransferConfig, "protocol" | "host" | "port" | "username" | "directory" | "inbound">,
): Promise<FileServerTest> {
  const probe = inFolder(config.directory, `order-intake-probe-${crypto.randomUUID()}.txt`);
  const steps: { name: string; run: (s: FileTransferSession) => Promise<string> }[] = [
    { name: "list", run: async (s) => `${count((await s.list(config.directory)).length, ENTRY)} in ${config.directory}` },
    { name: "write", run: async (s) => (await s.writeAtomic(probe, new TextEncoder().encode("order intake probe\n")), `wrote ${probe}`) },
    { name: "delete", run: async (s) => (await s.remove(probe), `deleted ${probe}`) },
    ...(config.inbound ? [{ name: "list_inbound", run: async (s: FileTransferSession) => `${count((await s.list(config.inbound!.directory)).length, ENTRY)} in ${config.inbound!.directory}` }] : []),
  ];
  const checks: Check[] = [];
  const words = (error: unknown) => (error instanceof FileTransferError ? `${error.kind}: ${error.message}` : String(error instanceof Error ? error.message : error));
  let session: FileTransferSession | null = null;
  let hostKey: FileServerTest["hostKey"] = null;
  try {
    session = await open();
    checks.push({ name: "connect", ok: true, message: `connected to ${config.protocol}://${config.host}:${config.port} as ${config.username}` });
  } catch (error) {
    if (error instanceof FileTransferError && error.hostKey) hostKey = error.hostKey;
    checks.push({ name: "connect", ok: false, message: words(error) });
  }
  for (const step of steps) {
    if (!session || checks.some((c) => !c.ok)) {
      checks.push({ name: step.name, ok: false, message: "not tried: an earlier check failed" });
      continue;
    }
    try {
      checks.push({ name: step.name, ok: true, message: await step.run(session) });
    } catch (error) {
      checks.push({ name: step.name, ok: false, message: words(error) });
    }
  }
  await session?.close().catch(() => undefined);
  return { ok: checks.every((c) => c.ok), checks, hostKey };
}
