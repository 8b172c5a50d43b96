// A supplier's file server (the `file` channel): the `file_transfer` setting as the API and the
// console take it. Every limit here is in docs/file-channel.md.
import { z } from "@hono/zod-openapi";
import { FILE_FORMATS } from "../db/schema";
import { CSV_COLUMNS } from "../forwarding/document";
import { firstUnwritable } from "../lib/charset";
import { checkOutboundHost } from "../lib/outbound-address";
import { field } from "../lib/validation";
import { X12Json, X12Settings } from "./x12.schemas";

export const FILE_TRANSFER_LIMITS = {
  host: 253,
  username: 255,
  password: 1024,
  privateKey: 16_384,
  directory: 1024,
  filename: 255,
  columns: 50,
  header: 255,
} as const;

export const DEFAULT_FILENAME = "{reference}-{dispatch_id}.{ext}";
export const DEFAULT_CANCELLATION_FILENAME = "cancellation-{reference}-{cancellation_id}.{ext}";
/** Placeholders a filename template may hold. */
export const FILENAME_PLACEHOLDERS = ["reference", "external_id", "dispatch_id", "cancellation_id", "supplier_id", "date", "ext"] as const;
export const DELIMITERS = [",", ";", "\t", "|"] as const;
export const ENCODINGS = ["utf-8", "iso-8859-1", "windows-1252"] as const;

/** The fields an answer file's row may carry, each by its own name unless `columns` maps it. */
export const ANSWER_FIELDS = [
  "line_id",
  "order_reference",
  "external_id",
  "sku",
  "action",
  "quantity",
  "carrier",
  "tracking_number",
  "tracking_url",
  "shipment_id",
  "reason",
] as const;

const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[?[0-9A-Fa-f:.]+\]?)$/;
const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}=?$/;
const PEM = /^-----BEGIN (?:OPENSSH |RSA |EC |ENCRYPTED )?PRIVATE KEY-----[\s\S]+-----END (?:OPENSSH |RSA |EC |ENCRYPTED )?PRIVATE KEY-----\s*$/;

/**
 * A folder on the server: no control characters (field.id), no ".." segment and no backslash. A
 * Windows FTP server (IIS) takes a backslash as a separator as well as "/", so ".." is looked for
 * between either, and, as Windows drops a name's trailing dots and spaces, "..." and ".. " count as
 * "..". Since "/" works on Windows too while a Unix server would take a backslash for part of a name,
 * "/" is the one separator a folder may use.
 */
const directory = (description: string) =>
  field
    .id(FILE_TRANSFER_LIMITS.directory)
    .superRefine((v, ctx) => {
      if (v.length > FILE_TRANSFER_LIMITS.directory) return;
      if (v.split(/[/\\]/).some((segment) => /^[. ]*\.\.[. ]*$/.test(segment))) ctx.addIssue({ code: "custom", message: "The :attribute field must not contain '..'." });
      else if (v.includes("\\")) ctx.addIssue({ code: "custom", message: "The :attribute field must separate folders with '/', not '\\'." });
    })
    .openapi({ description });

function template(required: "dispatch_id" | "cancellation_id", description: string) {
  return field
    .id(FILE_TRANSFER_LIMITS.filename)
    .superRefine((v, ctx) => {
      if (v.length > FILE_TRANSFER_LIMITS.filename) return;
      if (v.includes("/") || v.includes("\\")) ctx.addIssue({ code: "custom", message: "The :attribute field must be a file name, without '/' or '\\'." });
      const unknown = [...v.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]).filter((p) => !(FILENAME_PLACEHOLDERS as readonly string[]).includes(p));
      if (unknown.length) {
        ctx.addIssue({ code: "custom", message: `The :attribute field has an unknown placeholder {${unknown[0]}}. Allowed: ${FILENAME_PLACEHOLDERS.map((p) => `{${p}}`).join(", ")}.` });
      }
      // Each document its own name: a retry writes the same name, another dispatch never does.
      if (!v.includes(`{${required}}`)) ctx.addIssue({ code: "custom", message: `The :attribute field must contain {${required}}.` });
    })
    .optional()
    .openapi({ description });
}

const column = (fields: readonly string[]) =>
  z.object({
    field: z.enum(fields as [string, ...string[]]).openapi({ description: "The field this column holds." }),
    header: field.id(FILE_TRANSFER_LIMITS.header).openapi({ description: `The column's header (up to ${FILE_TRANSFER_LIMITS.header} characters).` }),
  });

const columns = (fields: readonly string[], description: string) =>
  z.array(column(fields)).min(1).max(FILE_TRANSFER_LIMITS.columns).optional().openapi({ description });

export const InboundSettings = z
  .object({
    directory: directory("The folder the supplier puts its answer files in; the cron reads every file in it."),
    format: z.enum(FILE_FORMATS).optional().openapi({ description: "csv (the default), xml (<answers><answer>…</answer></answers>), json (an array of objects) or x12 (997, 855, 856, 810, 846: docs/edi.md; the default when the order files are x12)." }),
    columns: columns(
      ANSWER_FIELDS,
      `Which of the file's columns (CSV) or fields (XML, JSON) hold each answer field, up to ${FILE_TRANSFER_LIMITS.columns}; by default each field is read by its own name.`,
    ),
    archive_directory: directory("Where a processed file is moved; without it, files stay and are recognised by name, size and modification time.")
      .optional()
      .nullable(),
  })
  .openapi("FileTransferInbound");

const secretsOf = z.object({
  password: field
    .optionalText(FILE_TRANSFER_LIMITS.password)
    .openapi({ description: `The password (up to ${FILE_TRANSFER_LIMITS.password} characters). Stored encrypted and never shown again.` }),
  private_key: field.optionalText(FILE_TRANSFER_LIMITS.privateKey).openapi({
    description: `SFTP only: a private key in PEM (OpenSSH, PKCS#8 or PKCS#1; up to ${FILE_TRANSFER_LIMITS.privateKey} characters), instead of a password. Stored encrypted and never shown again.`,
  }),
});

/**
 * How a file server is logged in to: the user, a password or (SFTP) a private key, and (SFTP) the
 * pinned host key. A supplier's file_transfer and a feed's credentials take it alike.
 */
export const LoginFields = {
  username: field.id(FILE_TRANSFER_LIMITS.username).openapi({ description: `The user name (up to ${FILE_TRANSFER_LIMITS.username} characters).` }),
  ...secretsOf.shape,
  host_key_fingerprint: field
    .optionalId(100)
    .refine((v) => v === undefined || FINGERPRINT.test(v), "The :attribute field must be a SHA-256 fingerprint as ssh-keygen -lf prints it (SHA256:…).")
    .openapi({ description: "SFTP (required): the server's host key, pinned, as `ssh-keygen -lf` prints it (SHA256:<43 base64 characters>). A server showing another key is refused." }),
};

export type Login = { password?: string; private_key?: string; host_key_fingerprint?: string };

/** What a login lacks or has too much of for the protocol, by field (messages with :attribute). */
export function loginProblems(v: Login, protocol: "ftp" | "ftps" | "sftp"): [keyof Login, string][] {
  const problems: [keyof Login, string][] = [];
  if (v.password !== undefined && v.private_key !== undefined) problems.push(["private_key", "The :attribute field must not be given with password: choose one."]);
  if (v.private_key !== undefined && protocol !== "sftp") problems.push(["private_key", "The :attribute field is only for protocol sftp."]);
  if (v.private_key !== undefined && v.private_key.length <= FILE_TRANSFER_LIMITS.privateKey && !PEM.test(v.private_key)) {
    problems.push(["private_key", "The :attribute field must be a private key in PEM (-----BEGIN … PRIVATE KEY-----)."]);
  }
  if (protocol === "sftp" && v.host_key_fingerprint === undefined) problems.push(["host_key_fingerprint", "The :attribute field is required when protocol is sftp."]);
  if (protocol !== "sftp" && v.host_key_fingerprint !== undefined) problems.push(["host_key_fingerprint", "The :attribute field is only for protocol sftp."]);
  return problems;
}

export const FileTransferBody = z
  .object({
    protocol: z.enum(["ftp", "ftps", "sftp"]).openapi({ description: "ftp, ftps (explicit TLS: AUTH TLS on the FTP port) or sftp." }),
    host: field
      .id(FILE_TRANSFER_LIMITS.host)
      .refine((v) => v.length > FILE_TRANSFER_LIMITS.host || HOST.test(v), "The :attribute field must be a host name or an IP address.")
      // Any IPv4 form (2852039166, 0251.0376.0251.0376) is read as the resolver reads it (src/lib/outbound-address.ts).
      .superRefine((v, ctx) => void (v.length <= FILE_TRANSFER_LIMITS.host && HOST.test(v) && checkOutboundHost(v, ctx)))
      .openapi({
      description: `The server's host name or IP address (up to ${FILE_TRANSFER_LIMITS.host} characters).`,
    }),
    port: field.optionalInt({ min: 1, max: 65_535 }).openapi({ description: "1 to 65535; by default 21 (ftp, ftps) or 22 (sftp)." }),
    ...LoginFields,
    directory: directory("The folder order files are written to (\".\": the folder the session starts in, the default).").optional(),
    filename: template("dispatch_id", `The order file's name: a template with ${FILENAME_PLACEHOLDERS.filter((p) => p !== "cancellation_id").map((p) => `{${p}}`).join(", ")}; it must hold {dispatch_id}. Default ${DEFAULT_FILENAME}.`),
    cancellation_filename: template(
      "cancellation_id",
      `A cancellation request's file name: the same placeholders with {cancellation_id}, which it must hold. Default ${DEFAULT_CANCELLATION_FILENAME}.`,
    ),
    format: z.enum(FILE_FORMATS).optional().openapi({ description: "csv (the default), xml, json or x12 (an 850 per order, an 860 per cancellation: docs/edi.md; needs x12)." }),
    columns: columns(CSV_COLUMNS, `CSV: the columns in their order, each a field of the order CSV and its header (up to ${FILE_TRANSFER_LIMITS.columns}); by default every field under its own name.`),
    delimiter: z.enum(DELIMITERS).optional().openapi({ description: "CSV: the separator, \",\" (the default), \";\", a tab or \"|\"." }),
    encoding: z.enum(ENCODINGS).optional().openapi({
      description:
        "utf-8 (the default), iso-8859-1 or windows-1252 (Windows' \"ANSI\", with € and Š, Œ, …). A character the encoding lacks is never altered: " +
        "XML writes it as a character reference, JSON as a \\u escape, and a CSV file holding one is not sent (the attempt says which character, line and column).",
    }),
    inbound: InboundSettings.optional()
      .nullable()
      .openapi({ description: "Where the supplier leaves answer files (accept, decline, partial, ship per row), read by the cron each minute; null: none." }),
    x12: X12Settings.optional().openapi({ description: "Format x12 (required there, and only there): the envelope's ids, the separators and the sets the supplier sends back." }),
  })
  .superRefine((v, ctx) => {
    if (v.format === "x12" && v.x12 === undefined) ctx.addIssue({ code: "custom", path: ["x12"], message: "The :attribute field is required when format is x12." });
    if (v.format !== "x12" && v.x12 !== undefined) ctx.addIssue({ code: "custom", path: ["x12"], message: "The :attribute field is only for format x12." });
    if (v.inbound?.format === "x12" && v.format !== "x12") ctx.addIssue({ code: "custom", path: ["inbound", "format"], message: "The :attribute field may be x12 only when format is x12." });
    for (const [path, message] of loginProblems(v, v.protocol)) ctx.addIssue({ code: "custom", path: [path], message });
    if (v.columns !== undefined && (v.format ?? "csv") !== "csv") {
      ctx.addIssue({ code: "custom", path: ["columns"], message: "The :attribute field is only for format csv." });
    }
    // A header the file's encoding cannot write would refuse every order file: said now, not at the first send.
    const single = v.encoding === "iso-8859-1" ? "ISO-8859-1" : v.encoding === "windows-1252" ? "windows-1252" : null;
    v.columns?.forEach((c, i) => {
      const bad = single && c.header.length <= FILE_TRANSFER_LIMITS.header ? firstUnwritable(c.header, single) : null;
      if (bad) ctx.addIssue({ code: "custom", path: ["columns", i, "header"], message: `The :attribute field holds "${bad.char}", which ${v.encoding} cannot write.` });
    });
  })
  .openapi("FileTransferSettings", {
    example: {
      protocol: "sftp",
      host: "sftp.tuinhout.example",
      port: 22,
      username: "orders",
      password: "s3cret",
      host_key_fingerprint: "SHA256:mVPwvezndPv/ARoIadVY98vAC0g+P/5633yTC4d/wXE",
      directory: "in",
      format: "csv",
      columns: [
        { field: "order_reference", header: "Order" },
        { field: "sku", header: "SKU" },
        { field: "quantity", header: "Qty" },
      ],
      delimiter: ";",
      inbound: { directory: "out", archive_directory: "out/done" },
    },
  });

export type FileTransferInput = z.output<typeof FileTransferBody>;

/** What reads show: every setting but the password and the private key. */
export const FileTransferJson = z
  .object({
    protocol: z.enum(["ftp", "ftps", "sftp"]),
    host: z.string(),
    port: z.number().int(),
    username: z.string(),
    authentication: z.enum(["password", "private_key"]).openapi({ description: "Which secret is stored; the secret itself is never shown." }),
    host_key_fingerprint: z.string().nullable(),
    directory: z.string(),
    filename: z.string(),
    cancellation_filename: z.string(),
    format: z.enum(FILE_FORMATS),
    columns: z.array(z.object({ field: z.string(), header: z.string() })).nullable(),
    delimiter: z.string(),
    encoding: z.enum(ENCODINGS),
    inbound: z
      .object({
        directory: z.string(),
        format: z.enum(FILE_FORMATS),
        columns: z.array(z.object({ field: z.string(), header: z.string() })).nullable(),
        archive_directory: z.string().nullable(),
      })
      .nullable(),
    x12: X12Json.optional().openapi({ description: "Format x12 only." }),
  })
  .openapi("FileTransferDetail");
