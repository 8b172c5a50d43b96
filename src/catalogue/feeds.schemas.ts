// The product-feed contract: what a client may send to set a feed up, and what it reads back.
import { z } from "@hono/zod-openapi";
import { FEED_FORMATS, IMPORT_STATUSES, IMPORT_TRIGGERS, PRODUCT_FIELDS } from "../db/schema";
import { fileServerProtocol, fileServerUrlProblem, isFileServerUrl } from "./feed-servers";
import { urlRefusal, addressMessage } from "../lib/outbound-address";
import { field } from "../lib/validation";
import { LoginFields, loginProblems } from "../suppliers/file-transfer.schemas";
import { CSV_DELIMITERS } from "./feed-readers";
import { scheduleMinutes } from "./schedule";

const PRODUCT_FIELD_LIST = PRODUCT_FIELDS.join(", ");

/** "" clears a field like null does; undefined leaves it as it is (on update). */
const emptyToNull = (v: unknown) => (typeof v === "string" && v.trim() === "" ? null : v);
const nullable = <T extends z.ZodType>(schema: T) => z.preprocess(emptyToNull, schema.nullable().optional());

const mapping = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    for (const [key, column] of Object.entries(value)) {
      if (!(PRODUCT_FIELDS as readonly string[]).includes(key)) {
        ctx.addIssue({ code: "custom", path: [key], message: `The :attribute field is not a product field; use ${PRODUCT_FIELD_LIST}.` });
      } else if (typeof column !== "string" || column.trim() === "") {
        ctx.addIssue({ code: "custom", path: [key], message: "The :attribute field must be a column or field name." });
      } else if (column.length > 255) {
        ctx.addIssue({ code: "custom", path: [key], message: "The :attribute field must not be greater than 255 characters." });
      }
    }
  })
  .transform((value) => Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v).trim()])))
  .openapi({
    description: `Product field -> the file's column (CSV), key or dotted path (JSON), or child element / @attribute path (XML). Fields left out are read from a column or key of their own name (${PRODUCT_FIELD_LIST}).`,
    example: { sku: "Artikelnummer", ean13: "EAN", name: "Omschrijving", purchase_price: "Inkoopprijs", stock_quantity: "Voorraad" },
  });

const HTTP_LOGIN_IN_URL =
  "must not hold a user name or password: give them in credentials (username and password, sent as HTTP Basic auth), where the password is stored encrypted";

const url = z
  .string()
  .trim()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === "https:" || u.protocol === "http:" || isFileServerUrl(u);
    } catch {
      return false;
    }
  }, "The :attribute field must be a valid URL.")
  .superRefine((v, ctx) => {
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      return;
    }
    // A login in the url would be stored and shown in the clear: it goes in credentials, sealed.
    const problem = isFileServerUrl(u) ? fileServerUrlProblem(u) : u.username || u.password ? HTTP_LOGIN_IN_URL : null;
    if (problem) return void ctx.addIssue({ code: "custom", message: `The :attribute field ${problem}.` });
    // The feed is pulled from there: a public address (or loopback), src/lib/outbound-address.ts.
    const refusal = u.protocol === "https:" || u.protocol === "http:" || isFileServerUrl(u) ? urlRefusal(u) : null;
    if (refusal) ctx.addIssue({ code: "custom", message: addressMessage(refusal) });
  })
  .openapi({
    example: "https://feeds.supplier.example/stock.csv",
    description:
      "The URL to pull the file from: http(s), or a supplier's file server: ftp://host/path, ftps://host/path (explicit TLS) or " +
      "sftp://host:port/path; without user or password (https://user:password@host/… is refused): the login goes in credentials.",
  });

/** A file server feed's login: a supplier's file_transfer login (file-transfer.schemas.ts), the protocol the url's. */
const credentials = z
  .object(LoginFields)
  .openapi("ProductFeedCredentials", {
    description:
      "Required for an ftp, ftps or sftp url, optional for http(s) (sent as HTTP Basic auth): the user, a password or (sftp) a private key, stored encrypted and never shown again, and (sftp, required) the server's pinned host key.",
    example: { username: "stock", password: "s3cret", host_key_fingerprint: "SHA256:mVPwvezndPv/ARoIadVY98vAC0g+P/5633yTC4d/wXE" },
  });

/** What an http(s) feed's login (HTTP Basic auth: a user and a password) has too much of, by field. */
export function httpLoginProblems(v: { username: string; private_key?: string; host_key_fingerprint?: string }): [string, string][] {
  const problems: [string, string][] = [];
  // RFC 7617: Basic auth's user-id ends at the first colon.
  if (v.username.includes(":")) problems.push(["username", "The :attribute field must not contain ':' for an http(s) url (HTTP Basic auth)."]);
  if (v.private_key !== undefined) problems.push(["private_key", "The :attribute field is only for an sftp url."]);
  if (v.host_key_fingerprint !== undefined) problems.push(["host_key_fingerprint", "The :attribute field is only for an sftp url."]);
  return problems;
}

/** The login checked against the url's protocol (a url left as it is on update is checked by the service). */
function refineCredentials(v: { url?: string | null; credentials?: z.output<typeof credentials> | null }, ctx: z.RefinementCtx) {
  if (typeof v.url !== "string") return;
  let u: URL;
  try {
    u = new URL(v.url);
  } catch {
    return;
  }
  if (!isFileServerUrl(u)) {
    if (v.credentials) for (const [path, message] of httpLoginProblems(v.credentials)) ctx.addIssue({ code: "custom", path: ["credentials", path], message });
    return;
  }
  if (v.credentials) for (const [path, message] of loginProblems(v.credentials, fileServerProtocol(u))) ctx.addIssue({ code: "custom", path: ["credentials", path], message });
}

const schedule = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => scheduleMinutes(v) !== null, "The :attribute field must be hourly, daily, weekly or an interval such as 30m, 6h or 2d (from 15m to 30d).")
  .openapi({ description: "Interval between automatic pulls of url: hourly, daily, weekly, or 15m..30d as <n>m, <n>h, <n>d.", example: "6h" });

const encoding = z
  .string()
  .trim()
  .transform((v, ctx) => {
    try {
      return new TextDecoder(v).encoding;
    } catch {
      ctx.addIssue({ code: "custom", message: "The :attribute field must be a character encoding such as utf-8 or windows-1252." });
      return z.NEVER;
    }
  })
  .openapi({
    example: "windows-1252",
    description: "The file's character encoding (any WHATWG label). Null: UTF-8 unless a BOM, the Content-Type charset or the XML declaration says otherwise.",
  });

const csvDelimiter = z
  .preprocess((v) => (v === "tab" || v === "\\t" ? "\t" : v), z.enum(CSV_DELIMITERS))
  .openapi({ description: "CSV separator; detected from the header line when null." });

const recordPath = z
  .string()
  .trim()
  .max(255)
  .regex(/^[\w:.-]+$/)
  .openapi({
    description: 'JSON: dotted path to the array of products ("products", "data.items"; null: the file is the array). XML: element name of one product (null: "product").',
    example: "products",
  });

const format = z
  .preprocess((v) => (typeof v === "string" ? v.trim().toLowerCase() : v), z.enum(FEED_FORMATS))
  .openapi({ description: "The file's format: csv, json or xml. A pulled file is read in it; a pushed file's Content-Type decides." });

const FEED_EXAMPLE = {
  supplier_id: 3,
  name: "Tuinhout stock",
  format: "csv",
  mapping: { sku: "Artikelnummer", ean13: "EAN", name: "Omschrijving", purchase_price: "Inkoopprijs", stock_quantity: "Voorraad" },
  url: "https://feeds.tuinhout.example/stock.csv",
  schedule: "6h",
};
const feedFields = {
  supplier_id: "The id of one of the account's suppliers: the one whose products the feed lists.",
  name: "A name for the feed, up to 255 characters.",
  active: "false: the schedule no longer pulls the feed (it can still be pushed or imported by hand). true by default.",
};

export const CreateFeedBody = z
  .object({
    supplier_id: field.int({ min: 1 }).openapi({ description: feedFields.supplier_id }),
    name: field.text(255).openapi({ description: feedFields.name }),
    format,
    mapping: z.preprocess((v) => v ?? undefined, mapping.optional()),
    url: nullable(url),
    schedule: nullable(schedule),
    encoding: nullable(encoding),
    csv_delimiter: nullable(csvDelimiter),
    record_path: nullable(recordPath),
    active: field.optionalBoolean().openapi({ description: feedFields.active }),
    credentials: credentials.nullable().optional(),
  })
  .superRefine(refineCredentials)
  .openapi("CreateProductFeedRequest", { example: FEED_EXAMPLE });

export const UpdateFeedBody = z
  .object({
    supplier_id: field.optionalInt({ min: 1 }).openapi({ description: feedFields.supplier_id }),
    name: field.optionalText(255).openapi({ description: feedFields.name }),
    format: format.optional(),
    mapping: nullable(mapping),
    url: nullable(url),
    schedule: nullable(schedule),
    encoding: nullable(encoding),
    csv_delimiter: nullable(csvDelimiter),
    record_path: nullable(recordPath),
    active: field.optionalBoolean().openapi({ description: feedFields.active }),
    credentials: credentials.nullable().optional(),
  })
  .superRefine(refineCredentials)
  .openapi("UpdateProductFeedRequest", { example: { schedule: "daily", active: true } });

export type CreateFeedInput = z.output<typeof CreateFeedBody>;
export type UpdateFeedInput = z.output<typeof UpdateFeedBody>;

export const ProductFeed = z
  .object({
    id: z.number().int(),
    supplier_id: z.number().int(),
    name: z.string(),
    format: z.enum(FEED_FORMATS),
    mapping: z.record(z.string(), z.string()),
    url: z.string().nullable(),
    schedule: z.string().nullable(),
    next_import_at: z.string().nullable(),
    encoding: z.string().nullable(),
    csv_delimiter: z.string().nullable(),
    record_path: z.string().nullable(),
    active: z.boolean(),
    credentials: z
      .object({
        username: z.string(),
        authentication: z.enum(["password", "private_key"]).openapi({ description: "Which secret is stored; the secret itself is never shown." }),
        host_key_fingerprint: z.string().nullable(),
      })
      .nullable()
      .openapi({ description: "The feed's login without its secret (an http(s) feed's Basic auth user, or a file server's login); null without one." }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("ProductFeed");

export const ProductImport = z
  .object({
    id: z.number().int(),
    product_feed_id: z.number().int(),
    trigger: z.enum(IMPORT_TRIGGERS),
    status: z.enum(IMPORT_STATUSES),
    replace: z.boolean(),
    source: z.string(),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    rows_read: z.number().int(),
    created: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int(),
    deactivated: z.number().int(),
    rejected: z.number().int(),
    error: z.string().nullable(),
    rejections: z
      .array(z.object({ line: z.number().int(), sku: z.string().nullable(), reason: z.string() }))
      .openapi({ description: "The first 20 rejected rows. line: the line in a CSV or XML file; the record's position (from 1) in a JSON array." }),
    unmapped_columns: z.array(z.string()).openapi({
      description:
        "The file's columns (CSV), keys or dotted paths (JSON), or element paths and @attributes (XML) that no product field reads: their values were not imported. The first 20, in the file's order.",
      example: ["ean", "price", "stock"],
    }),
    warnings: z.array(z.string()).openapi({
      description: "What the shop should know about an import that succeeded: the columns it did not map, and the product fields the file left empty.",
    }),
  })
  .openapi("ProductImport");

