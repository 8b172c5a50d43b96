// Filling a feed. A pushed upload or a pulled URL streams through a reader; valid rows are
// staged in product_import_rows as they arrive, and only a file that was read to the end is
// applied to products, in one D1 batch (one transaction). So a file that cannot be fetched or
// parsed changes no product, and every run leaves a product_imports record.
import { urlRefusal } from "../lib/outbound-address";
import { notMoving } from "../db/moving";
import { and, asc, desc, eq, isNotNull, lte, sql, type SQL } from "drizzle-orm";
import { toStatement, type Db } from "../db";
import { productFeeds, productImports, type ImportRejection, type ImportTrigger, type ProductFeed, type ProductImport } from "../db/schema";
import type { FeedFormat, ProductField } from "../db/schema";
import { ApiError } from "../lib/errors";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { explainFetchFailure, isTimeout, seconds } from "../lib/fetch-failure";
import { isoMicro } from "../lib/time";
import { numberToUnits } from "../lib/money";
import { ColumnReport, FeedError, fileFieldNames, onlySkuMessage, readFeed, unmappedWarning, type ReadOptions } from "./feed-readers";
import { toProductRow } from "./product-row";
import { scheduleMinutes } from "./schedule";
import { queueStockSyncsAfterImport, stockSyncMessages } from "../shops/stock/queue";
import type { Pipeline } from "../lib/queue";
import { isFileServerUrl, pullFromFileServer, type FileServerLogin } from "./feed-servers";
import { feedLogin } from "./feeds.service";
import { urlLogin, withoutLogin } from "./feed-urls";
import type { SealingKeys } from "../lib/sealed";
import { count } from "../lib/plural";

/** Largest file read, after gunzip (Workers accept request bodies up to 100 MB). */
export const MAX_FEED_BYTES = 100 * 1024 * 1024;
/**
 * Staged rows per statement. They travel as one JSON parameter, kept to half of D1's 2 MB value
 * limit; few statements matter too, as D1 caps the queries one Worker invocation may make.
 */
const STAGE_ROWS = 5000;
const STAGE_BYTES = 1024 * 1024;
/** Staged rows per upsert statement, so no single statement runs long on D1. */
const APPLY_ROWS = 20_000;
const KEPT_REJECTIONS = 20;
/** A running import older than this is taken for dead (its Worker stopped). */
export const STALE_IMPORT_MS = 60 * 60 * 1000;
/** How long a pull may take, answer and whole file (FEED_TIMEOUT_MS overrides it). */
export const FEED_TIMEOUT_MS = 5 * 60 * 1000;

export function feedTimeoutMs(env: { FEED_TIMEOUT_MS?: string }): number {
  const ms = Number(env.FEED_TIMEOUT_MS);
  return Number.isFinite(ms) && ms > 0 ? ms : FEED_TIMEOUT_MS;
}
/** Feeds pulled per cron tick; the rest stay due and go at the next tick. */
const FEEDS_PER_TICK = 10;

/** `stockSyncs`: the stock syncs the import queued (src/shops/stock), for the caller to start. */
export type ImportOutcome = { record: ProductImport; failure: "file" | "internal" | null; stockSyncs: number[] };

export type OpenedFile = {
  body: ReadableStream<Uint8Array>;
  format: FeedFormat;
  charset: string | null;
  /** The feed's mapping applies to files in the feed's own format; others use the field names. */
  useMapping: boolean;
  /** What to add to a message about a file that could not be read (a pulled file's Content-Type). */
  hint?: string;
};

type Stats = { read: number; staged: number; rejected: number; rejections: ImportRejection[]; columns: ColumnReport };

// ---- Entry points -------------------------------------------------------------

const UPLOAD_TYPES: Record<string, FeedFormat> = {
  "text/csv": "csv",
  "application/csv": "csv",
  "text/comma-separated-values": "csv",
  "application/json": "json",
  "text/json": "json",
  "application/xml": "xml",
  "text/xml": "xml",
};

/** The upload's format from its Content-Type; none (or a generic one) means the feed's own format. */
export function uploadFormat(contentType: string | undefined, feedFormat: FeedFormat): { format: FeedFormat; charset: string | null } {
  const [media = "", ...params] = (contentType ?? "").split(";").map((s) => s.trim());
  const type = media.toLowerCase();
  const charset = params.map((p) => /^charset\s*=\s*"?([^";]+)"?$/i.exec(p)?.[1] ?? null).find((c) => c) ?? null;
  let format = UPLOAD_TYPES[type];
  if (!format && type.endsWith("+xml")) format = "xml";
  if (!format && (type === "" || type === "application/octet-stream" || type === "text/plain")) format = feedFormat;
  if (!format) {
    throw new ApiError(415, "Unsupported Media Type", {
      error: "Send the file as text/csv, application/json or application/xml (or application/octet-stream for the feed's own format).",
    });
  }
  return { format, charset };
}

export function importUpload(
  db: Db,
  pipeline: Pipeline,
  feed: ProductFeed,
  upload: { body: ReadableStream<Uint8Array> | null; contentType: string | undefined; replace: boolean },
): Promise<ImportOutcome> {
  const { format, charset } = uploadFormat(upload.contentType, feed.format);
  return startingSyncs(pipeline, runImport(db, feed, "push", upload.replace, `upload (${format})`, async () => {
    if (!upload.body) throw new FeedError("The request body is empty; nothing was changed.");
    return { body: upload.body, format, charset: charset ?? feed.encoding, useMapping: format === feed.format };
  }));
}

/**
 * On the request path, the stock syncs an import queued are started through the request's
 * pipeline once the answer is sent (their rows are written already: the cron resumes one whose
 * message is lost). The cron's imports (runScheduledImports) leave that to the cron.
 */
async function startingSyncs(pipeline: Pipeline, run: Promise<ImportOutcome>): Promise<ImportOutcome> {
  const outcome = await run;
  pipeline.sendAfterResponse(stockSyncMessages(outcome.stockSyncs));
  return outcome;
}

/** A pull is a full sync by default: the supplier's file is its whole catalogue. */
export function importFromUrl(
  db: Db,
  pipeline: Pipeline,
  feed: ProductFeed,
  trigger: ImportTrigger,
  keys: () => SealingKeys,
  replace = true,
  timeoutMs = FEED_TIMEOUT_MS,
): Promise<ImportOutcome> {
  return startingSyncs(pipeline, pullImport(db, feed, trigger, keys, replace, timeoutMs));
}

/** The pull itself; the caller starts the stock syncs it queued (a request through its pipeline, the cron through its own). */
function pullImport(db: Db, feed: ProductFeed, trigger: ImportTrigger, keys: () => SealingKeys, replace: boolean, timeoutMs: number): Promise<ImportOutcome> {
  const url = feed.url;
  if (!url) throw ApiError.validation({ url: ["The feed has no url to import from."] });
  // The record names the url without a login a stored url may still carry (feed-urls.ts).
  return runImport(db, feed, trigger, replace, withoutLogin(url), async () => {
    const login = feed.credentials ? await feedLogin(keys(), feed) : null;
    return openUrl({ url, format: feed.format, encoding: feed.encoding, login }, timeoutMs);
  });
}

/**
 * The file at a feed's url, streaming, read in the feed's format (and its encoding when it names
 * one). A file server url is logged in to with `login`, the feed's credentials opened; an http(s)
 * url sends it as Basic auth.
 */
export async function openUrl(
  feed: { url: string; format: FeedFormat; encoding: string | null; login?: FileServerLogin | null },
  timeoutMs: number,
): Promise<OpenedFile> {
  const target = new URL(feed.url);
  if (isFileServerUrl(target)) {
    if (!feed.login) throw new FeedError("The feed has no credentials for its file server: set the feed's credentials (username, password or private_key); nothing was changed.");
    return { body: await pullFromFileServer(target, feed.login, MAX_FEED_BYTES, timeoutMs), format: feed.format, charset: feed.encoding, useMapping: true };
  }
  const basic = feed.login && "password" in feed.login.secret ? { username: feed.login.username, password: feed.login.secret.password } : null;
  const { response, body } = await fetchFeed(feed.url, feed.format, timeoutMs, basic);
  const contentType = response.headers.get("content-type") ?? "";
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1] ?? null;
  const labelled = UPLOAD_TYPES[contentType.split(";")[0].trim().toLowerCase()];
  const hint =
    labelled && labelled !== feed.format
      ? `The server sent it as ${contentType}, a ${labelled.toUpperCase()} file, where the feed's format is ${feed.format}: check the feed's url and format.`
      : undefined;
  // A charset set on the feed wins: it exists for servers that declare the wrong one.
  return { body, format: feed.format, charset: feed.encoding ?? charset, useMapping: true, hint };
}

/** What an HTTP error status asks of whoever set the feed up. */
function statusHint(status: number): string {
  if (status === 401 || status === 403) return "Check the feed's credentials (its user and password, sent as Basic auth).";
  if (status === 404 || status === 410) return "Check the url.";
  if (status === 429 || status >= 500) return "The supplier's server is busy or failing: try again later.";
  return "Check the url and what its server expects.";
}

/** user:password in UTF-8, base64 (RFC 7617; btoa alone takes Latin-1 only). */
const basicToken = (username: string, password: string) => btoa(String.fromCharCode(...new TextEncoder().encode(`${username}:${password}`)));

const HTML_START = /^(\uFEFF)?\s*<(!doctype\s+html|html[\s>])/i;

/**
 * The feed's file as a stream whose failures say what happened (a connection dropped mid-file, a
 * download over the time limit). A first chunk that is an HTML page (a sign-in or error page
 * answered with 200) fails at once.
 */
/** Redirects a feed URL may go through (browsers and fetch allow 20; a feed server needs few). */
const MAX_REDIRECTS = 5;

async function fetchFeed(
  url: string,
  format: FeedFormat,
  timeoutMs: number,
  basic: { username: string; password: string } | null,
): Promise<{ response: Response; body: ReadableStream<Uint8Array> }> {
  let target = new URL(withoutLogin(url));
  const headers: Record<string, string> = { accept: "*/*", "user-agent": "order-intake-feed-importer/1.0" };
  // The feed's credentials, or the login a url stored before they were refused carries
  // (https://user:secret@host/feed.csv; fetch refuses credentials in the URL).
  const login = basic ?? urlLogin(url);
  if (login) headers.authorization = `Basic ${basicToken(login.username, login.password)}`;
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  // Redirects are followed here, each one's address checked as the url's own was (src/lib/outbound-address.ts).
  for (let hops = 0; ; hops++) {
    const refusal = urlRefusal(target);
    if (refusal) throw new FeedError(`The feed URL ${hops ? `redirected to ${target.host}, which ` : ""}${refusal}; nothing was changed.`);
    try {
      response = await fetch(target.toString(), { headers, redirect: "manual", signal });
    } catch (error) {
      throw new FeedError(`The feed URL could not be fetched: ${await explainFetchFailure(target, error, timeoutMs)}; nothing was changed.`);
    }
    const location = response.status >= 300 && response.status < 400 ? response.headers.get("location") : null;
    if (location === null) break;
    await response.body?.cancel().catch(() => undefined);
    const next = URL.parse(location, target.href);
    if (!next || (next.protocol !== "https:" && next.protocol !== "http:")) throw new FeedError(`The feed URL redirected to ${JSON.stringify(location.slice(0, 200))}, which is not an http(s) URL; nothing was changed.`);
    if (hops >= MAX_REDIRECTS) throw new FeedError(`The feed URL redirected more than ${MAX_REDIRECTS} times; nothing was changed.`);
    // The login goes to the url's own server only, as fetch's own redirects do.
    if (next.origin !== target.origin) delete headers.authorization;
    target = next;
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
    throw new FeedError(`The feed URL answered ${status}; nothing was changed. ${statusHint(response.status)}`);
  }
  if (!response.body) throw new FeedError("The feed URL answered with an empty body; nothing was changed.");

  const reader = response.body.getReader();
  let received = 0;
  const read = async () => {
    try {
      const chunk = await reader.read();
      received += chunk.value?.byteLength ?? 0;
      return chunk;
    } catch (error) {
      const why = isTimeout(error)
        ? `the download from ${target.host} did not finish within ${seconds(timeoutMs)}`
        : `the connection to ${target.host} dropped after ${received} bytes, before the whole file arrived (${error instanceof Error ? error.message : String(error)})`;
      throw new FeedError(`The file could not be read to the end: ${why}; nothing was changed.`);
    }
  };
  const first = await read();
  if (!first.done && HTML_START.test(new TextDecoder().decode(first.value.subarray(0, 256)))) {
    reader.cancel().catch(() => undefined);
    throw new FeedError(
      `The feed URL answered an HTML page (${response.headers.get("content-type") ?? "no Content-Type"}), not a ${format.toUpperCase()} file: ` +
        "check that the url points at the file itself, not at a sign-in or download page; nothing was changed.",
    );
  }
  let pending: ReadableStreamReadResult<Uint8Array> | null = first;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = pending ?? (await read());
      pending = null;
      if (chunk.done) controller.close();
      else controller.enqueue(chunk.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { response, body };
}

// ---- The run ------------------------------------------------------------------

async function runImport(
  db: Db,
  feed: ProductFeed,
  trigger: ImportTrigger,
  replace: boolean,
  source: string,
  open: () => Promise<OpenedFile>,
): Promise<ImportOutcome> {
  const importId = await startImport(db, feed, trigger, replace, source);
  const stats: Stats = { read: 0, staged: 0, rejected: 0, rejections: [], columns: new ColumnReport() };
  let failure: ImportOutcome["failure"] = null;
  let stockSyncs: number[] = [];
  let file: OpenedFile | undefined;
  try {
    file = await open();
    const options = readOptions(file, feed);
    await stageFile(db, importId, file, options, stats);
    if (stats.read === 0) throw new FeedError("The file contains no product records; nothing was changed.");
    // A CSV header says so before the first row; JSON and XML records once the whole file is read.
    if (stats.columns.onlySku) throw new FeedError(onlySkuMessage(file.format, options.mapping, stats.columns));
    if (stats.staged === 0) throw new FeedError(`${stats.read === 1 ? "The file's one row is not valid" : `None of the file's ${count(stats.read, "row")} is valid`}; nothing was changed.`);
    stockSyncs = await applyImport(db, feed, importId, replace, stats, unmappedWarning(file.format, stats.columns));
  } catch (error) {
    failure = error instanceof FeedError ? "file" : "internal";
    if (failure === "internal") {
      console.error(JSON.stringify({ level: "error", msg: "feed import failed", feedId: feed.id, importId, error: String(error) }));
    }
    const message =
      error instanceof FeedError
        ? [error.message, file?.hint].filter(Boolean).join(" ")
        : "The import failed on our side; nothing was changed. Please retry later.";
    await failImport(db, importId, stats, message);
  }
  const [record] = await db.select().from(productImports).where(eq(productImports.id, importId));
  return { record, failure, stockSyncs };
}

/** Creates the running record, unless the feed already has an import running (the database decides). */
async function startImport(db: Db, feed: ProductFeed, trigger: ImportTrigger, replace: boolean, source: string): Promise<number> {
  const now = new Date();
  const staleBefore = isoMicro(new Date(now.getTime() - STALE_IMPORT_MS));
  const row = await toStatement(
    db,
    sql`INSERT INTO product_imports (account_id, product_feed_id, "trigger", status, "replace", source, started_at, rejections)
        SELECT ${feed.accountId}, ${feed.id}, ${trigger}, 'running', ${replace ? 1 : 0}, ${source}, ${isoMicro(now)}, '[]'
        WHERE NOT EXISTS (SELECT 1 FROM product_imports
                          WHERE product_feed_id = ${feed.id} AND status = 'running' AND started_at > ${staleBefore})
        RETURNING id`,
  ).first<{ id: number }>();
  if (!row) throw ApiError.conflict(`An import of product feed '${feed.id}' is already running; try again when it has finished.`);
  return row.id;
}

// A valid row replaces a rejected row of the same SKU; a rejected row never replaces anything.
const STAGE_SQL = `INSERT INTO product_import_rows (import_id, line, sku, ean13, name, purchase_price, stock_quantity, active, rejected)
  SELECT ?1, r.value ->> '$[0]', r.value ->> '$[1]', r.value ->> '$[2]', r.value ->> '$[3]',
         r.value ->> '$[4]', r.value ->> '$[5]', r.value ->> '$[6]', r.value ->> '$[7]'
  FROM json_each(?2) AS r WHERE true
  ON CONFLICT (import_id, sku) DO UPDATE SET
    line = excluded.line, ean13 = excluded.ean13, name = excluded.name, purchase_price = excluded.purchase_price,
    stock_quantity = excluded.stock_quantity, active = excluded.active, rejected = 0
  WHERE product_import_rows.rejected = 1 AND excluded.rejected = 0`;

function recordRejection(stats: Stats, line: number, sku: string | null, reason: string) {
  stats.rejected++;
  if (stats.rejections.length < KEPT_REJECTIONS) stats.rejections.push({ line, sku, reason });
}

/** How the file is read: with the feed's mapping when it is in the feed's own format, else by the product field names. */
function readOptions(file: OpenedFile, feed: ProductFeed): ReadOptions {
  return {
    format: file.format,
    mapping: file.useMapping ? ((feed.mapping ?? {}) as Partial<Record<ProductField, string>>) : {},
    csvDelimiter: file.useMapping ? feed.csvDelimiter : null,
    recordPath: file.useMapping ? feed.recordPath : null,
    charset: file.charset,
    maxBytes: MAX_FEED_BYTES,
  };
}

async function stageFile(db: Db, importId: number, file: OpenedFile, options: ReadOptions, stats: Stats) {
  const records = readFeed(file.body, options, stats.columns);
  // A rejected row names the file's own columns (the feed's mapping knows them), not our field names.
  const subject = fileFieldNames(options.format, options.mapping, stats.columns);
  // First line of every SKU: a repeat in the same file is rejected, pointing at the first.
  const seen = new Map<string, number>();
  let buffer: unknown[][] = [];
  let valid = 0;
  let bytes = 0;
  // One write in flight while the parser reads on: parsing is CPU, the write is D1's time.
  let inFlight: Promise<void> | null = null;
  const flush = async () => {
    if (buffer.length === 0) return;
    const rows = buffer;
    const validRows = valid;
    buffer = [];
    valid = 0;
    bytes = 0;
    if (inFlight) await inFlight;
    // One JSON parameter per statement instead of 8 bound values per row: D1's 100-parameter
    // limit would otherwise mean 12 rows a statement and thousands of statements per feed.
    const write = db.$client
      .prepare(STAGE_SQL)
      .bind(importId, JSON.stringify(rows))
      .run()
      .then(() => {
        stats.staged += validRows;
      });
    write.catch(() => undefined); // awaited below; this only marks it handled meanwhile
    inFlight = write;
  };
  const stage = async (row: unknown[], rejected: boolean) => {
    buffer.push(row);
    if (!rejected) valid++;
    bytes += String(row[1]).length + String(row[3] ?? "").length + 64;
    if (buffer.length >= STAGE_ROWS || bytes >= STAGE_BYTES) await flush();
  };
  const reject = async (line: number, sku: string | null, reason: string) => {
    recordRejection(stats, line, sku, reason);
    // Its SKU is kept aside so that a full sync does not deactivate the product for a bad row.
    if (sku) await stage([line, sku, null, "", null, null, 0, 1], true);
  };
  try {
    for await (const batch of records) {
      for (const record of batch) {
        stats.read++;
        if ("error" in record) {
          await reject(record.line, record.sku, record.error);
          continue;
        }
        const result = toProductRow(record.fields, subject);
        if ("errors" in result) {
          await reject(record.line, result.sku, result.errors.join(" "));
          continue;
        }
        const { row } = result;
        const first = seen.get(row.sku);
        if (first !== undefined) {
          recordRejection(stats, record.line, row.sku, `The sku ${row.sku} is already listed on line ${first}; the first one is kept.`);
          continue;
        }
        seen.set(row.sku, record.line);
        // Raw SQL: the price in its stored form (ten-thousandths, src/lib/money.ts).
        const price = row.purchasePrice === null ? null : numberToUnits(row.purchasePrice);
        await stage([record.line, row.sku, row.ean13, row.name, price, row.stockQuantity, row.active, 0], false);
      }
    }
    await flush();
    await inFlight;
  } finally {
    // Never leave a write landing after the failure path has cleared the staging rows.
    await (inFlight as Promise<void> | null)?.catch(() => undefined);
  }
}

/**
 * Moves the staged rows into products in one batch. The first statement records the counts
 * (computed before anything changes) and stamps finished_at, but only while the import is still
 * running and all its staged rows are there; every later statement requires that stamp. So an
 * import that a sweeper declared dead, or whose staging was lost, changes nothing.
 */
async function applyImport(db: Db, feed: ProductFeed, importId: number, replace: boolean, stats: Stats, warning: string | null): Promise<number[]> {
  const now = isoMicro();
  const range = await toStatement(
    db,
    sql`SELECT min(id) AS lo, max(id) AS hi FROM product_import_rows WHERE import_id = ${importId}`,
  ).first<{ lo: number; hi: number }>();
  if (!range || range.lo === null) throw new Error(`import ${importId}: staged rows missing`);

  const staged = sql`product_import_rows s WHERE s.import_id = ${importId} AND s.rejected = 0`;
  const existing = sql`products p WHERE p.product_feed_id = ${feed.id} AND p.sku = s.sku`;
  const differs = (a: string, b: string) =>
    sql.raw(
      `(${a}.ean13, ${a}.name, ${a}.purchase_price, ${a}.stock_quantity, ${a}.active) IS NOT (${b}.ean13, ${b}.name, ${b}.purchase_price, ${b}.stock_quantity, ${b}.active)`,
    );
  const notListed = sql`NOT EXISTS (SELECT 1 FROM product_import_rows s WHERE s.import_id = ${importId} AND s.sku = products.sku)`;
  const stamped = sql`EXISTS (SELECT 1 FROM product_imports WHERE id = ${importId} AND status = 'running' AND finished_at = ${now})`;
  // The account's change sequence, moved on by this batch: every product it changes carries it.
  const seq = sql`(SELECT seq FROM catalogue_sequences WHERE account_id = ${feed.accountId})`;

  const statements: SQL[] = [
    sql`UPDATE product_imports SET
          finished_at = ${now},
          rows_read = ${stats.read},
          rows_rejected = ${stats.rejected},
          rejections = ${JSON.stringify(stats.rejections)},
          unmapped_columns = ${JSON.stringify(stats.columns.unmapped)},
          warnings = ${JSON.stringify(warning ? [warning] : [])},
          rows_created = (SELECT count(*) FROM ${staged} AND NOT EXISTS (SELECT 1 FROM ${existing})),
          rows_updated = (SELECT count(*) FROM ${staged} AND EXISTS (SELECT 1 FROM ${existing} AND ${differs("p", "s")})),
          rows_unchanged = (SELECT count(*) FROM ${staged} AND EXISTS (SELECT 1 FROM ${existing} AND NOT ${differs("p", "s")})),
          rows_deactivated = ${
            replace
              ? sql`(SELECT count(*) FROM products WHERE product_feed_id = ${feed.id} AND active = 1 AND ${notListed})`
              : sql`0`
          }
        WHERE id = ${importId} AND status = 'running'
          AND (SELECT count(*) FROM product_import_rows WHERE import_id = ${importId} AND rejected = 0) = ${stats.staged}`,
    sql`INSERT INTO catalogue_sequences (account_id, seq) SELECT ${feed.accountId}, 1 WHERE ${stamped}
        ON CONFLICT (account_id) DO UPDATE SET seq = seq + 1`,
  ];
  for (let lo = range.lo; lo <= range.hi; lo += APPLY_ROWS) {
    statements.push(sql`
      INSERT INTO products (account_id, product_feed_id, sku, ean13, name, purchase_price, stock_quantity, active, created_at, updated_at, change_seq)
      SELECT ${feed.accountId}, ${feed.id}, s.sku, s.ean13, s.name, s.purchase_price, s.stock_quantity, s.active, ${now}, ${now}, ${seq}
      FROM ${staged} AND s.id BETWEEN ${lo} AND ${lo + APPLY_ROWS - 1} AND ${stamped}
      ORDER BY s.id
      ON CONFLICT (product_feed_id, sku) DO UPDATE SET
        ean13 = excluded.ean13, name = excluded.name, purchase_price = excluded.purchase_price,
        stock_quantity = excluded.stock_quantity, active = excluded.active, updated_at = excluded.updated_at,
        change_seq = excluded.change_seq
      WHERE ${differs("products", "excluded")}`);
  }
  if (replace) {
    statements.push(sql`UPDATE products SET active = 0, updated_at = ${now}, change_seq = ${seq}
      WHERE product_feed_id = ${feed.id} AND active = 1 AND ${notListed} AND ${stamped}`);
  }
  // The stock syncs of the account's shop connections, queued in the same batch when products changed.
  statements.push(queueStockSyncsAfterImport(feed.accountId, sql`${stamped} AND EXISTS (SELECT 1 FROM products WHERE account_id = ${feed.accountId} AND change_seq = ${seq})`));
  statements.push(
    sql`UPDATE product_imports SET status = 'succeeded' WHERE id = ${importId} AND status = 'running' AND finished_at = ${now}`,
    sql`DELETE FROM product_import_rows WHERE import_id = ${importId}`,
  );
  const results = await db.$client.batch<{ id: number }>(statements.map((s) => toStatement(db, s)));
  if (results[results.length - 2].meta.changes !== 1) {
    throw new FeedError("The import was interrupted before it could be applied; nothing was changed.");
  }
  return results[results.length - 3].results.map((r) => r.id);
}

async function failImport(db: Db, importId: number, stats: Stats, message: string) {
  await db.$client.batch([
    toStatement(
      db,
      sql`UPDATE product_imports SET status = 'failed', finished_at = ${isoMicro()}, error = ${message},
            rows_read = ${stats.read}, rows_rejected = ${stats.rejected}, rejections = ${JSON.stringify(stats.rejections)},
            unmapped_columns = ${JSON.stringify(stats.columns.unmapped)}
          WHERE id = ${importId} AND status = 'running'`,
    ),
    toStatement(db, sql`DELETE FROM product_import_rows WHERE import_id = ${importId}`),
  ]);
}

// ---- The cron trigger -----------------------------------------------------------

/** Imports whose Worker died are closed as failed, and their staged rows dropped. */
export async function sweepStaleImports(db: Db, now: Date) {
  const staleBefore = isoMicro(new Date(now.getTime() - STALE_IMPORT_MS));
  const stale = sql`SELECT id FROM product_imports WHERE status = 'running' AND started_at <= ${staleBefore} AND ${notMoving("account_id")}`;
  await db.$client.batch([
    toStatement(db, sql`DELETE FROM product_import_rows WHERE import_id IN (${stale})`),
    toStatement(
      db,
      sql`UPDATE product_imports SET status = 'failed', finished_at = ${isoMicro(now)},
            error = 'The import did not finish (its Worker stopped); nothing was changed.'
          WHERE id IN (${stale})`,
    ),
  ]);
}

/**
 * One cron tick: pulls the feeds whose next_import_at has come. Each is claimed by moving its
 * next_import_at on (only if nobody moved it first), so overlapping ticks never pull a feed twice.
 */
export async function runScheduledImports(db: Db, keys: () => SealingKeys, now = new Date(), timeoutMs = FEED_TIMEOUT_MS) {
  await sweepStaleImports(db, now);
  const due = await db
    .select()
    .from(productFeeds)
    .where(
      and(
        eq(productFeeds.active, true),
        isNotNull(productFeeds.url),
        isNotNull(productFeeds.schedule),
        lte(productFeeds.nextImportAt, isoMicro(now)),
        // A moving account's feeds wait (their rows refuse writes: src/db/moving.ts).
        notMoving(sql`${productFeeds.accountId}`),
      ),
    )
    .orderBy(asc(productFeeds.nextImportAt), asc(productFeeds.id))
    .limit(FEEDS_PER_TICK);
  if (due.length === 0) return [];
  const claims = await db.$client.batch<{ id: number }>(
    due.map((feed) => {
      const next = new Date(now.getTime() + (scheduleMinutes(feed.schedule!) ?? 24 * 60) * 60_000);
      return toStatement(
        db,
        sql`UPDATE product_feeds SET next_import_at = ${isoMicro(next)}
            WHERE id = ${feed.id} AND next_import_at = ${feed.nextImportAt} AND ${notMoving("account_id")} RETURNING id`,
      );
    }),
  );
  const claimed = due.filter((_, i) => claims[i].results.length > 0);
  const outcomes: ImportOutcome[] = [];
  // One after another: each import streams its file and needs the Worker's memory to itself.
  for (const feed of claimed) {
    try {
      outcomes.push(await pullImport(db, feed, "schedule", keys, true, timeoutMs));
    } catch (error) {
      // A conflict (a manual import is running) skips this tick; anything else must not stop the others.
      if (!(error instanceof ApiError)) console.error(JSON.stringify({ level: "error", msg: "scheduled import", feedId: feed.id, error: String(error) }));
    }
  }
  return outcomes;
}

// ---- Reads ------------------------------------------------------------------------

export async function listImports(db: Db, feed: ProductFeed, page: PageRequest) {
  const where = eq(productImports.productFeedId, feed.id);
  const [countRows, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(productImports).where(where),
    db.select().from(productImports).where(where).orderBy(desc(productImports.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  return { total: countRows[0]?.total ?? 0, rows };
}

export async function getImport(db: Db, feed: ProductFeed, rawId: string) {
  const id = /^\d{1,15}$/.test(rawId) ? Number(rawId) : null;
  const [row] =
    id === null
      ? []
      : await db
          .select()
          .from(productImports)
          .where(and(eq(productImports.id, id), eq(productImports.productFeedId, feed.id)));
  if (!row) throw ApiError.notFound(`Import with id '${rawId}' not found`);
  return row;
}
