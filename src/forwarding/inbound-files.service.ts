// Answer files: what a file supplier drops in its inbound folder (accept, decline, partial, ship per
// row), read by the cron and applied through the supplier API's own path (answers.schemas.ts
// readAnswers, answers.service.ts applyAnswers): the same validation, race guards and events. Each
// file is claimed in D1 by name, size and modification time before anything is applied (a unique
// key: of two overlapping cron runs, one gets it), and each row's result is kept. docs/file-channel.md.
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { parse as csvParse } from "csv-parse/sync";
import { SaxesParser } from "saxes";
import { rawBatch, runBatch, type Db, type Row } from "../db";
import { inboundFileRows, inboundFiles, suppliers, type FileTransferConfig, type InboundFile, type InboundFileRow, type Supplier } from "../db/schema";
import type { AuthenticatedSupplier, Bindings } from "../env";
import { ApiError, type ValidationErrors } from "../lib/errors";
import type { RemoteFile } from "../lib/file-transfer/transfer";
import { offsetOf, type PageRequest } from "../lib/pagination";
import type { Pipeline } from "../lib/queue";
import { isoMicro } from "../lib/time";
import { readAnswers } from "./answers.schemas";
import { answerErrors, applyAnswers } from "./answers.service";
import { type Answer } from "./answers.judge";
import { channelFor, channels, type ChannelName } from "./channels";
import { inFolder, openSession } from "./channels/file";
import { applyX12File, X12FileRefused } from "./x12/answers";
import { applyReturnAnswerFile, isReturnAnswerFile, ReturnFileUnreadable } from "../returns/answer-files";
import type { FileTransferSession } from "../lib/file-transfer/transfer";
import { heldBy, Lease, type JobTable } from "../lib/outbound-job";

/** The largest answer file read (a bigger one is recorded as failed, with that reason). */
export const INBOUND_MAX_BYTES = 20 * 1024 * 1024;
/** A run's lease on a file it claimed, renewed while the run lives: past it, the next run takes the file over. */
export const INBOUND_LEASE_MS = 60 * 1000;
/**
 * Files one cron run reads, all suppliers together: a file costs about 25 D1 statements, so 20 stay
 * near half of the 1,000 queries an invocation may make (counted in docs/file-channel.md).
 */
export const INBOUND_FILES_PER_RUN = 20;
/** The engine's table shape for the lease's renewals (src/lib/outbound-job.ts): a claim is 'processing' under `lease_until`. */
const INBOUND_LEASES: JobTable = { table: "inbound_files", waiting: "processing", busy: "processing", parked: "failed", dueIn: "none", touches: false };
/** Rows applied per call of applyAnswers (its limit); a chunk refused whole is applied row by row. */
const CHUNK = 500;

const FIELDS = ["line_id", "order_reference", "external_id", "sku", "action", "quantity", "carrier", "tracking_number", "tracking_url", "shipment_id", "reason"] as const;
type RawRow = Partial<Record<(typeof FIELDS)[number], string>>;
type RowResult = { row: number; lineId: number | null; action: string | null; result: "applied" | "refused"; message: string | null };

// ---- Reading a file ----------------------------------------------------------

class FileUnreadable extends Error {}

/** A file's text: UTF-8, else ISO-8859-1. */
function decodeText(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return new TextDecoder("iso-8859-1").decode(bytes);
  }
}

/** Each record's fields by answer field name (the setting's columns, or the fields' own names). */
export function readRows(bytes: Uint8Array, inbound: NonNullable<FileTransferConfig["inbound"]>): RawRow[] {
  const text = decodeText(bytes);
  const nameOf = new Map<string, (typeof FIELDS)[number]>();
  for (const f of FIELDS) nameOf.set(f, f);
  if (inbound.columns) {
    nameOf.clear();
    for (const c of inbound.columns) nameOf.set(c.header, c.field as (typeof FIELDS)[number]);
  }
  const pick = (record: Record<string, unknown>): RawRow => {
    const row: RawRow = {};
    for (const [key, value] of Object.entries(record)) {
      const field = nameOf.get(key) ?? nameOf.get(key.trim());
      if (field && value !== null && value !== undefined && String(value).trim() !== "") row[field] = String(value).trim();
    }
    return row;
  };
  if (inbound.format === "json") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new FileUnreadable("The file is not valid JSON.");
    }
    const list = Array.isArray(parsed) ? parsed : (parsed as { answers?: unknown })?.answers;
    if (!Array.isArray(list)) throw new FileUnreadable('The file must hold a JSON array of answers (or {"answers": [...]}).');
    return list.map((r) => (r && typeof r === "object" ? pick(r as Record<string, unknown>) : {}));
  }
  if (inbound.format === "xml") {
    const rows: RawRow[] = [];
    const parser = new SaxesParser({ xmlns: false });
    let current: Record<string, string> | null = null;
    let field: string | null = null;
    parser.on("opentag", (tag) => {
      if (tag.name === "answer") current = {};
      else if (current) field = tag.name;
    });
    parser.on("text", (t) => {
      if (current && field) current[field] = (current[field] ?? "") + t;
    });
    parser.on("closetag", (tag) => {
      if (tag.name === "answer" && current) {
        rows.push(pick(current));
        current = null;
      } else field = null;
    });
    try {
      parser.write(text).close();
    } catch (error) {
      throw new FileUnreadable(`The file is not valid XML: ${error instanceof Error ? error.message : String(error)}`);
    }
    return rows;
  }
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const delimiter = [";", "\t", "|", ","].find((d) => firstLine.includes(d)) ?? ",";
  try {
    return (csvParse(text, { columns: true, delimiter, bom: true, skip_empty_lines: true, relax_column_count: true }) as Record<string, string>[]).map(pick);
  } catch (error) {
    throw new FileUnreadable(`The file is not valid CSV: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** "The answers.0.quantity field …" as said of the row: "The quantity field …". */
const rowMessage = (errors: ValidationErrors) =>
  Object.values(errors)
    .flat()
    .map((m) => m.replace(/answers\.\d+\./g, ""))
    .join(" ");

/**
 * Rows without a line id name the line by the order's reference and the product's external id or
 * SKU, among this supplier's lines: one query per thousand rows.
 */
async function resolveLines(db: Db, supplier: AuthenticatedSupplier, rows: RawRow[]): Promise<Map<number, number | string>> {
  const out = new Map<number, number | string>();
  const wanted = rows.flatMap((r, i) => (r.line_id === undefined && r.order_reference ? [{ i, r: r.order_reference, e: r.external_id ?? null, s: r.sku ?? null }] : []));
  for (let at = 0; at < wanted.length; at += 1000) {
    const part = wanted.slice(at, at + 1000);
    const [found] = await rawBatch(db, [
      sql`SELECT j.value ->> '$.i' AS i, l.id AS line_id FROM json_each(${JSON.stringify(part)}) AS j
          JOIN orders o ON o.account_id = ${supplier.accountId} AND o.reference = j.value ->> '$.r'
          JOIN order_lines l ON l.order_id = o.id AND l.matched_supplier_id = ${supplier.id}
            AND ((j.value ->> '$.e' IS NOT NULL AND l.external_id = j.value ->> '$.e') OR (j.value ->> '$.s' IS NOT NULL AND l.reference = j.value ->> '$.s'))`,
    ]);
    const hits = new Map<number, number[]>();
    for (const row of found as Row[]) hits.set(Number(row.i), [...(hits.get(Number(row.i)) ?? []), Number(row.line_id)]);
    for (const w of part) {
      const ids = [...new Set(hits.get(w.i) ?? [])];
      out.set(
        w.i,
        ids.length === 1
          ? ids[0]
          : ids.length === 0
            ? `No line of order ${w.r} sent to this supplier has ${w.e !== null ? `external id ${w.e}` : `SKU ${w.s}`}.`
            : `More than one line of order ${w.r} matches; give the line_id.`,
      );
    }
  }
  return out;
}

/** The answer a row makes, as the supplier API's body would carry it (line_id a number when it reads as one). */
function answerOf(row: RawRow, lineId: number | string | undefined): Record<string, unknown> {
  const { order_reference: _r, external_id: _e, sku: _s, line_id: _l, ...rest } = row;
  const id = row.line_id ?? lineId;
  return { ...rest, line_id: typeof id === "string" && /^\d+$/.test(id) ? Number(id) : id };
}

/**
 * The id a shipment row is recorded under when it names none (no shipment_id, no tracking number):
 * its file's and row's. A run that died after applying rows and before recording them is taken
 * over (its lease, INBOUND_LEASE_MS, ran out) and applies the file again: the supplier API records a shipment reported
 * again under the same id once, so a partial shipment is never shipped twice.
 */
export const rowShipmentId = (fileId: number, row: number) => `answer-file-${fileId}-row-${row}`;

/** Applies the rows in chunks through the supplier API's path; a chunk refused whole is applied row by row, each row's result said. */
async function applyRows(db: Db, pipeline: Pipeline, supplier: AuthenticatedSupplier, rows: RawRow[], fileId: number): Promise<RowResult[]> {
  const lines = await resolveLines(db, supplier, rows);
  const results: RowResult[] = [];
  const pending: { row: number; raw: Record<string, unknown> }[] = [];
  rows.forEach((r, i) => {
    const resolved = lines.get(i);
    const base = { row: i + 1, action: r.action ?? null };
    if (r.line_id === undefined && !r.order_reference) {
      results.push({ ...base, lineId: null, result: "refused", message: "The row names no line: give line_id, or order_reference with external_id or sku." });
    } else if (typeof resolved === "string") results.push({ ...base, lineId: null, result: "refused", message: resolved });
    else {
      const raw = answerOf(r, resolved);
      if (raw.action === "ship" && !raw.shipment_id && !raw.tracking_number) raw.shipment_id = rowShipmentId(fileId, i + 1);
      pending.push({ row: i + 1, raw });
    }
  });
  const lineIdOf = (raw: Record<string, unknown>) => (typeof raw.line_id === "number" ? raw.line_id : null);
  const one = async (p: { row: number; raw: Record<string, unknown> }): Promise<RowResult> => {
    const base = { row: p.row, lineId: lineIdOf(p.raw), action: typeof p.raw.action === "string" ? p.raw.action : null };
    const read = await readAnswers({ answers: [p.raw] }, (answers) => answerErrors(db, supplier, answers));
    if (!read.ok) return { ...base, result: "refused", message: rowMessage(read.errors) };
    try {
      await applyAnswers(db, pipeline, supplier, read.answers);
      return { ...base, result: "applied", message: null };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const said = error.detail?.errors ? rowMessage(error.detail.errors) : (error.detail?.error ?? error.message);
      return { ...base, result: "refused", message: said };
    }
  };
  for (let at = 0; at < pending.length; at += CHUNK) {
    const chunk = pending.slice(at, at + CHUNK);
    const read = await readAnswers({ answers: chunk.map((p) => p.raw) }, (answers) => answerErrors(db, supplier, answers));
    let whole = false;
    if (read.ok) {
      try {
        await applyAnswers(db, pipeline, supplier, read.answers as Answer[]);
        whole = true;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
      }
    }
    if (whole) {
      for (const p of chunk) results.push({ row: p.row, lineId: lineIdOf(p.raw), action: String(p.raw.action), result: "applied", message: null });
      continue;
    }
    for (const p of chunk) results.push(await one(p));
  }
  return results.sort((a, b) => a.row - b.row);
}

/** An X12 file (docs/edi.md): its answers applied through applyRows, our 997s written to the order folder; refused whole in words. */
async function applyX12(db: Db, pipeline: Pipeline, supplier: Supplier, session: FileTransferSession, name: string, bytes: Uint8Array, fileId: number): Promise<RowResult[]> {
  const config = supplier.fileTransfer!;
  if (!config.x12) throw new FileUnreadable("The supplier has no x12 settings: set file_transfer.x12 to read X12 files.");
  const who: AuthenticatedSupplier = { id: supplier.id, accountId: supplier.accountId, name: supplier.name };
  let results: RowResult[] = [];
  try {
    await applyX12File({
      db,
      pipeline,
      supplier,
      config: config.x12,
      fileId,
      name,
      text: decodeText(bytes),
      applyRows: async (rows) => (results = await applyRows(db, pipeline, who, rows, fileId)),
      writeFile: (ack, content) => session.writeAtomic(inFolder(config.directory, ack), content),
    });
  } catch (error) {
    if (error instanceof X12FileRefused) throw new FileUnreadable(error.message);
    throw error;
  }
  return results;
}

// ---- Claiming and processing -------------------------------------------------

/**
 * The file claimed for this run (a new claim, or one a dead run left); or, when another run has it or
 * had it, null, with `moveTo` set when that run recorded the file but died before moving it to the
 * archive (the file is moved, never applied again).
 */
async function claimFile(db: Db, supplier: Supplier, file: RemoteFile, now: Date, lease: Lease): Promise<{ id: number | null; moveTo: string | null }> {
  const at = isoMicro(now);
  const modified = file.modifiedAt ?? "";
  // A claim's lease ran out: its run died (a live run renews it). Taken over with a lease of this run's.
  const [inserted, takenOver, recorded] = await rawBatch(db, [
    sql`INSERT INTO inbound_files (account_id, supplier_id, name, size, modified_at, status, claimed_at, lease_until)
        VALUES (${supplier.accountId}, ${supplier.id}, ${file.name}, ${file.size}, ${modified}, 'processing', ${at}, ${lease.until})
        ON CONFLICT (supplier_id, name, size, modified_at) DO NOTHING RETURNING id`,
    sql`UPDATE inbound_files SET claimed_at = ${at}, lease_until = ${lease.until}
        WHERE supplier_id = ${supplier.id} AND name = ${file.name} AND size = ${file.size} AND modified_at = ${modified}
          AND status = 'processing' AND coalesce(lease_until, '') < ${at} RETURNING id`,
    sql`SELECT archived_to FROM inbound_files
        WHERE supplier_id = ${supplier.id} AND name = ${file.name} AND size = ${file.size} AND modified_at = ${modified}
          AND status <> 'processing' AND archived_to IS NOT NULL`,
  ]);
  const row = (inserted as Row[])[0] ?? (takenOver as Row[])[0];
  if (row) return { id: Number(row.id), moveTo: null };
  const done = (recorded as Row[])[0];
  return { id: null, moveTo: done ? String(done.archived_to) : null };
}

/** Each row's result, a thousand per statement; a row already recorded (a run that died) keeps its first result. */
function rowStatements(fileId: number, results: RowResult[]) {
  const out = [];
  for (let at = 0; at < results.length; at += 1000) {
    const part = JSON.stringify(results.slice(at, at + 1000).map((r) => ({ r: r.row, l: r.lineId, a: r.action, s: r.result, m: r.message })));
    out.push(sql`INSERT INTO inbound_file_rows (file_id, row, line_id, action, result, message)
        SELECT ${fileId}, j.value ->> '$.r', j.value ->> '$.l', j.value ->> '$.a', j.value ->> '$.s', j.value ->> '$.m' FROM json_each(${part}) AS j
        WHERE true ON CONFLICT (file_id, row) DO NOTHING`);
  }
  return out;
}

/** The files a cron run may still read (INBOUND_FILES_PER_RUN), shared by the suppliers it polls side by side. */
export type FileAllowance = { left: number };

/**
 * One supplier's inbound folder: each file not seen before, claimed, applied row by row, its results
 * kept, archived; as many as `allowance` still allows (a file claimed takes one), the rest next run.
 */
export async function pollSupplierInbound(db: Db, env: Bindings, pipeline: Pipeline, supplier: Supplier, now: Date, allowance: FileAllowance = { left: INBOUND_FILES_PER_RUN }): Promise<number> {
  const inbound = supplier.fileTransfer?.inbound;
  if (!inbound) return 0;
  const who: AuthenticatedSupplier = { id: supplier.id, accountId: supplier.accountId, name: supplier.name };
  const session = await openSession(env, supplier);
  let processed = 0;
  try {
    // Oldest first (then by name): past the run's allowance the newest wait, and none waits for ever.
    const files = (await session.list(inbound.directory))
      .filter((f) => !f.isDirectory && !f.name.startsWith("."))
      .sort((a, b) => (a.modifiedAt ?? "").localeCompare(b.modifiedAt ?? "") || a.name.localeCompare(b.name));
    for (const file of files) {
      if (allowance.left <= 0) break;
      const path = inFolder(inbound.directory, file.name);
      const lease = new Lease(INBOUND_LEASE_MS, now);
      const claim = await claimFile(db, supplier, file, now, lease);
      if (claim.moveTo !== null) {
        // Recorded by a run that died before moving it (or whose move failed): moved now, not applied
        // again. A move that fails again is tried at the next run; it holds up no other file.
        await session.rename(path, claim.moveTo).catch(() => undefined);
        continue;
      }
      const fileId = claim.id;
      if (fileId === null) continue;
      allowance.left--;
      lease.on(db, INBOUND_LEASES, fileId).hold();
      let results: RowResult[] = [];
      let error: string | null = null;
      try {
        if (file.size > INBOUND_MAX_BYTES) throw new FileUnreadable(`The file is larger than ${INBOUND_MAX_BYTES / 1048576} MiB.`);
        const bytes = await session.read(path, INBOUND_MAX_BYTES);
        // Return answers come in files of their own name, whatever the dispatch answers' format (docs/returns.md).
        if (isReturnAnswerFile(file.name)) results = await applyReturnAnswerFile(db, pipeline, who, file.name, decodeText(bytes));
        else results = inbound.format === "x12" ? await applyX12(db, pipeline, supplier, session, file.name, bytes, fileId) : await applyRows(db, pipeline, who, readRows(bytes, inbound), fileId);
      } catch (e) {
        if (!(e instanceof FileUnreadable) && !(e instanceof ReturnFileUnreadable)) {
          await lease.release();
          throw e;
        }
        error = e.message;
      }
      // Lost: the run stalled past its lease and another took the file over; that run records it.
      const until = await lease.release();
      if (until === null) continue;
      const archivedTo = inbound.archive_directory ? inFolder(inbound.archive_directory, file.name) : null;
      const at = isoMicro();
      const applied = results.filter((r) => r.result === "applied").length;
      // Recorded before the move: a run that dies between the two leaves the file where the next
      // run finds it recorded and only moves it. Moved first, a death in between left the claim
      // 'processing' for ever, its file gone from the inbound folder where a take-over looks.
      await runBatch(db, [
        ...rowStatements(fileId, results),
        sql`UPDATE inbound_files SET status = ${error ? "failed" : "done"}, error = ${error}, rows_applied = ${applied},
            rows_refused = ${results.length - applied}, archived_to = ${archivedTo}, finished_at = ${at}, lease_until = NULL WHERE ${heldBy(INBOUND_LEASES, fileId, until)}`,
      ]);
      if (archivedTo) await session.rename(path, archivedTo);
      processed++;
    }
  } finally {
    await session.close().catch(() => undefined);
  }
  return processed;
}

/** The cron's sweep: every active supplier whose channel reads answer files and has an inbound folder, side by side; the files processed. */
export async function pollInboundFiles(db: Db, env: Bindings, pipeline: Pipeline, now: Date): Promise<number> {
  const readers = channels().filter((c) => c.inbound?.kind === "answer_files");
  const found = await db
    .select()
    .from(suppliers)
    .where(and(inArray(suppliers.channel, readers.map((c) => c.name as ChannelName)), eq(suppliers.active, true), sql`json_extract(${suppliers.fileTransfer}, '$.inbound') IS NOT NULL`));
  const list = found.filter((s) => channelFor(s.channel).inbound?.configured(s));
  const allowance: FileAllowance = { left: INBOUND_FILES_PER_RUN };
  const done = await Promise.allSettled(list.map((s) => pollSupplierInbound(db, env, pipeline, s, now, allowance)));
  const failed = done.flatMap((d, i) => (d.status === "rejected" ? [`supplier ${list[i].id}: ${String(d.reason)}`] : []));
  if (failed.length) throw new Error(`inbound files: ${failed.join("; ")}`);
  return done.reduce((n, d) => n + (d.status === "fulfilled" ? d.value : 0), 0);
}

// ---- Reads -------------------------------------------------------------------

export type InboundFileWithRows = { file: InboundFile; rows: InboundFileRow[] };

/** The supplier's answer files, newest first, a page of them, each with its rows' results. */
export async function listInboundFiles(db: Db, accountId: number, supplierId: number, page: PageRequest): Promise<{ total: number; files: InboundFileWithRows[] }> {
  const where = and(eq(inboundFiles.supplierId, supplierId), eq(inboundFiles.accountId, accountId));
  const [count, files] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(inboundFiles).where(where),
    db.select().from(inboundFiles).where(where).orderBy(desc(inboundFiles.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  const ids = JSON.stringify(files.map((f) => f.id));
  const rows = files.length
    ? await db
        .select()
        .from(inboundFileRows)
        .where(sql`${inboundFileRows.fileId} IN (SELECT value FROM json_each(${ids}))`)
        .orderBy(inboundFileRows.fileId, inboundFileRows.row)
    : [];
  return { total: count[0]?.total ?? 0, files: files.map((file) => ({ file, rows: rows.filter((r) => r.fileId === file.id) })) };
}
