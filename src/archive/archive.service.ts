// Archiving finished orders to R2 and finding them again (docs/archive.md). An archive run reads a
// bounded batch of an account's finished orders (oldest first) with their fingerprints, writes them as
// objects and reads each back, then in one guarded batch per object inserts the stubs of the orders
// still unchanged and deletes those orders' rows. A crash anywhere leaves the orders live in D1; the
// next run writes the same object again (objects.ts names it after its orders).
import { sql } from "drizzle-orm";
import { rawBatch, toStatement, type Db, type Row } from "../db";
import { LINE_STATUSES, type LineStatus } from "../db/schema";
import { isoMicro } from "../lib/time";
import { getOrder, type OrderDetail } from "../orders/orders.service";
import { returnsOfOrder, type ReturnView } from "../returns/returns.service";
import { orderWriteBacksStatement, writeBacksOf, type WriteBack } from "../shops/write-back.service";
import { finished, fingerprint } from "./finished";
import { accountPrefix, deletePrefix, intoParts, objectKey, partName, readLine, writeObject } from "./objects";

/** Orders one run reads and archives: each read is 4 statements, well inside D1's 1,000 per invocation. */
export const ARCHIVE_BATCH = 100;
/**
 * Orders a cron tick archives per shard: the tick runs every shard's sweepers in one invocation, whose
 * 1,000 D1 statements they share (50 orders: about 210 statements). At a tick a minute: 72,000 a day.
 */
export const ARCHIVE_CRON_BATCH = 50;
/** How many of the oldest orders a run looks at to find its batch of finished ones. */
const SCAN_WINDOW = 2000;

/**
 * What one line of an object holds: the API's JSON of the order, the console's order page data, and
 * its returns as GET /api/v1/orders/{reference}/returns answered them (only when it had any; every
 * one ended: docs/archive.md, "Returns").
 */
export type ArchivedDocument = { order: Record<string, unknown>; console: Record<string, unknown>; returns?: Record<string, unknown>[] };
/** Turns an order's domain data into its line (the faces' presenters: src/archive/archive.present.ts). */
export type PresentArchived = (detail: OrderDetail, writeBacks: WriteBack[], returns: ReturnView[]) => ArchivedDocument;

export type ArchiveRun = { archived: number; bytesFreed: number; done: boolean };

type Candidate = { id: number; reference: string; createdAt: string; fp: string; hasReturns: boolean };

/** A test's seam between writing the objects and the guarded delete: a crash, or a change meanwhile. */
export type AfterWrite = (written: { key: string; references: string[] }) => Promise<void>;

/** The statuses present among the lines, one bit each in LINE_STATUSES' order (the stub's `statuses`). */
export const statusBits = (statuses: LineStatus[]) => statuses.reduce((bits, s) => bits | (1 << LINE_STATUSES.indexOf(s)), 0);

/**
 * Archives up to `limit` of the account's finished orders created before `before`, oldest first.
 * `done`: no finished order older than that is left (as far as the scan window shows).
 */
export async function archiveAccount(
  db: Db,
  bucket: R2Bucket,
  accountId: number,
  before: string,
  present: PresentArchived,
  options: { limit?: number; afterWrite?: AfterWrite } = {},
): Promise<ArchiveRun> {
  const limit = options.limit ?? ARCHIVE_BATCH;
  const candidates = await finishedOrders(db, accountId, before, limit + 1);
  const batch = candidates.slice(0, limit);
  if (batch.length === 0) return { archived: 0, bytesFreed: 0, done: true };
  const docs = await Promise.all(
    batch.map(async (c) => {
      const detail = await getOrder(db, accountId, c.reference, { dispatches: true, alongside: [orderWriteBacksStatement(accountId, c.reference)] });
      // Its ended returns (one more round trip, only for an order that has any).
      const returns = c.hasReturns ? await returnsOfOrder(db, c.id) : [];
      const doc = present(detail, writeBacksOf(detail.alongside[0]), returns);
      const withReturns = doc.returns?.length ? `,"returns":${JSON.stringify(doc.returns)}` : "";
      const text = `{"order":${JSON.stringify(doc.order)},"console":${JSON.stringify(doc.console)}${withReturns}}`;
      return { doc: { candidate: c, statuses: statusBits(detail.lines.map((l) => l.currentStatus)) }, text };
    }),
  );
  // One object per day of creation (and part, within its bounds).
  const byDay = new Map<string, typeof docs>();
  for (const d of docs) {
    const day = d.doc.candidate.createdAt.slice(0, 10);
    byDay.set(day, [...(byDay.get(day) ?? []), d]);
  }
  let archived = 0;
  let bytesFreed = 0;
  for (const dayDocs of byDay.values()) {
    for (const part of intoParts(dayDocs)) {
      const name = await partName(part.map((p) => p.doc.candidate.id));
      const key = objectKey(accountId, part[0].doc.candidate.createdAt, name);
      await writeObject(bucket, key, part.map((p) => p.text));
      await options.afterWrite?.({ key, references: part.map((p) => p.doc.candidate.reference) });
      const stubs = part.map((p, line) => ({ id: p.doc.candidate.id, fp: p.doc.candidate.fp, statuses: p.doc.statuses, line }));
      const ids = await commitPart(db, accountId, name, stubs);
      archived += ids.size;
      for (const p of part) if (ids.has(p.doc.candidate.id)) bytesFreed += new TextEncoder().encode(p.text).length;
    }
  }
  return { archived, bytesFreed, done: candidates.length <= limit };
}

/** The oldest finished orders of the account created before `before`, with their fingerprints. */
async function finishedOrders(db: Db, accountId: number, before: string, limit: number): Promise<Candidate[]> {
  // Each value of `test` is its own range of the (account_id, test, created_at, id) index, oldest first.
  const oldest = (test: number) => sql`SELECT * FROM (SELECT id FROM orders WHERE account_id = ${accountId} AND test = ${test} AND created_at < ${before}
    ORDER BY created_at, id LIMIT ${SCAN_WINDOW})`;
  const [rows] = await rawBatch(db, [
    sql`SELECT o.id, o.reference, o.created_at, ${fingerprint} AS fp, EXISTS (SELECT 1 FROM returns r WHERE r.order_id = o.id) AS has_returns
      FROM orders o WHERE o.id IN (${oldest(0)} UNION ALL ${oldest(1)}) AND ${finished}
        AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = o.account_id AND a.moving IS NOT NULL)
      ORDER BY o.created_at, o.id LIMIT ${limit}`,
  ]);
  return rows.map((r) => ({ id: Number(r.id), reference: String(r.reference), createdAt: String(r.created_at), fp: String(r.fp), hasReturns: Number(r.has_returns) === 1 }));
}

/**
 * The guarded batch of one object: a stub for each order still there, still finished and unchanged
 * since it was read (its fingerprint), what D1 keeps of their ended returns, then every row of the
 * orders that now have a stub, children first (returns before the lines they refer to). One transaction: an order is either live or archived, never both, never neither. The ids
 * archived by this batch.
 */
async function commitPart(db: Db, accountId: number, part: string, stubs: { id: number; fp: string; statuses: number; line: number }[]): Promise<Set<number>> {
  const json = JSON.stringify(stubs);
  // By the stubs' rowid: the unary + keeps SQLite off the (account_id, …) indexes, which it otherwise
  // chose, walking every stub of the account once per statement (bench/RESULTS.md, "The archive").
  const ids = sql`(SELECT s.id FROM archived_orders s WHERE s.id IN (SELECT j.value ->> 'id' FROM json_each(${json}) j) AND +s.account_id = ${accountId})`;
  const statements = [
    // The orders by id from the list (CROSS JOIN keeps json_each outer): joined the other way SQLite
    // walked the account's orders index, reading rows in proportion to the account, not the batch.
    sql`INSERT INTO archived_orders (id, account_id, reference, external_id, source, test, created_at, statuses, total, currency, email,
        first_name, last_name, company_name, postcode, city, country, part, line)
      SELECT o.id, o.account_id, o.reference, o.external_id, o.source, o.test, o.created_at, j.value ->> 'statuses', o.total, o.currency, o.email,
        o.first_name, o.last_name, o.company_name, o.postcode, o.city, o.country, ${part}, j.value ->> 'line'
      FROM json_each(${json}) j CROSS JOIN orders o ON o.id = j.value ->> 'id'
      WHERE +o.account_id = ${accountId} AND ${fingerprint} = j.value ->> 'fp' AND ${finished}
      ON CONFLICT DO NOTHING RETURNING id`,
    sql`INSERT INTO archived_returns (id, account_id, order_id, supplier_id, status, credit_amount, credit_currency, updated_at)
      SELECT r.id, r.account_id, r.order_id, r.supplier_id, r.status, r.credit_amount, r.credit_currency, r.updated_at FROM returns r WHERE r.order_id IN ${ids}`,
    sql`DELETE FROM return_notices WHERE return_id IN (SELECT id FROM returns WHERE order_id IN ${ids})`,
    sql`DELETE FROM return_logs WHERE return_id IN (SELECT id FROM returns WHERE order_id IN ${ids})`,
    sql`DELETE FROM return_lines WHERE return_id IN (SELECT id FROM returns WHERE order_id IN ${ids})`,
    sql`DELETE FROM returns WHERE order_id IN ${ids}`,
    sql`DELETE FROM shop_write_back_attempts WHERE write_back_id IN (SELECT id FROM shop_write_backs WHERE order_id IN ${ids})`,
    sql`DELETE FROM shop_write_backs WHERE order_id IN ${ids}`,
    sql`DELETE FROM cancellation_lines WHERE cancellation_id IN (SELECT id FROM cancellations WHERE order_id IN ${ids})`,
    sql`DELETE FROM cancellations WHERE order_id IN ${ids}`,
    sql`DELETE FROM shipments WHERE order_id IN ${ids}`,
    sql`DELETE FROM order_line_logs WHERE order_id IN ${ids}`,
    sql`DELETE FROM order_lines WHERE order_id IN ${ids}`,
    sql`DELETE FROM dispatches WHERE order_id IN ${ids}`,
    sql`DELETE FROM orders WHERE id IN ${ids}`,
  ];
  const results = await db.$client.batch<{ id: number }>(statements.map((s) => toStatement(db, s)));
  return new Set(results[0].results.map((r) => Number(r.id)));
}

/** The cut-off of an age in days: orders created before it are that old. */
export const olderThan = (days: number, now: Date = new Date()) => isoMicro(new Date(now.getTime() - days * 24 * 60 * 60 * 1000));

// ---- Reads -------------------------------------------------------------------------------------

/** The stub of the account's archived order with this reference, or null. */
export async function archivedStub(db: Db, accountId: number, reference: string): Promise<Row | null> {
  const [rows] = await rawBatch(db, [sql`SELECT * FROM archived_orders WHERE reference = ${reference} AND account_id = ${accountId}`]);
  return rows[0] ?? null;
}

/**
 * The archived order's line as written (the API's JSON and the console's data); null when the
 * account has no archived order of that reference. An object that cannot be read is an error (500):
 * the stub says the order is there.
 */
export async function findArchived(db: Db, bucket: R2Bucket, accountId: number, reference: string): Promise<ArchivedDocument | null> {
  const stub = await archivedStub(db, accountId, reference);
  if (!stub) return null;
  const key = objectKey(accountId, String(stub.created_at), String(stub.part));
  const line = await readLine(bucket, key, Number(stub.line));
  if (line === null) throw new Error(`archive: order ${reference} is missing from ${key} line ${String(stub.line)}`);
  return JSON.parse(line) as ArchivedDocument;
}

/**
 * An archived order's return as GET /api/v1/returns/{id} answered it (its JSON in the order's object);
 * null when the account has no archived return of that id.
 */
export async function findArchivedReturn(db: Db, bucket: R2Bucket, accountId: number, id: number): Promise<Record<string, unknown> | null> {
  const [rows] = await rawBatch(db, [
    sql`SELECT s.reference FROM archived_returns r JOIN archived_orders s ON s.id = r.order_id WHERE r.id = ${id} AND r.account_id = ${accountId}`,
  ]);
  if (!rows[0]) return null;
  const doc = await findArchived(db, bucket, accountId, String(rows[0].reference));
  const found = doc?.returns?.find((r) => r.id === id);
  if (!found) throw new Error(`archive: return ${id} is missing from its order ${String(rows[0].reference)}`);
  return found;
}

/** Deletes the archived objects of the account, every one or `pages` listing pages (its stubs go with its rows). The objects deleted. */
export const deleteAccountArchive = (bucket: R2Bucket, accountId: number, pages?: number) => deletePrefix(bucket, accountPrefix(accountId), pages);

// ---- The cron ----------------------------------------------------------------------------------

/**
 * One tick's archiving on one shard: the accounts with orders older than their archive_after_days,
 * the one whose oldest order is oldest first, each archived until `budget` orders are archived in
 * all (a bounded batch per tick and shard). Accounts being moved are left alone. The orders archived.
 */
export async function archiveDue(db: Db, bucket: R2Bucket, now: Date, present: PresentArchived, budget = ARCHIVE_CRON_BATCH): Promise<number> {
  const at = now.toISOString();
  // The cut-off in SQL per account; created_at carries microseconds, so a cut-off with milliseconds
  // compares within a millisecond, which an age in days does not notice.
  const cutoff = sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${at}, '-' || a.archive_after_days || ' days')`;
  const [accounts] = await rawBatch(db, [
    sql`SELECT a.id, ${cutoff} AS cutoff, (SELECT min(o.created_at) FROM orders o WHERE o.account_id = a.id AND o.test IN (0, 1)) AS oldest
      FROM accounts a WHERE a.moving IS NULL AND EXISTS (SELECT 1 FROM orders o WHERE o.account_id = a.id AND o.test IN (0, 1) AND o.created_at < ${cutoff})
      ORDER BY oldest LIMIT 100`,
  ]);
  let archived = 0;
  for (const account of accounts) {
    if (archived >= budget) break;
    const run = await archiveAccount(db, bucket, Number(account.id), String(account.cutoff), present, { limit: budget - archived });
    archived += run.archived;
  }
  return archived;
}
