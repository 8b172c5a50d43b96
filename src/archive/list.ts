// GET /api/v1/orders?archived=only: the account's archived orders from their stubs, with the list's
// filters that the stubs can answer, and each page's orders read from R2 (docs/archive.md, "Lists").
import { sql, type SQL } from "drizzle-orm";
import { rawBatch, type Db, type Row } from "../db";
import { LINE_STATUSES } from "../db/schema";
import { offsetOf, type PageRequest } from "../lib/pagination";
import type { ListOrdersFilters } from "../orders/orders.schemas";
import type { ArchivedDocument } from "./archive.service";
import { objectKey, readLines } from "./objects";

/** The conditions of the filters on the stubs (alias s). */
function conditions(accountId: number, f: ListOrdersFilters): SQL {
  const parts: SQL[] = [sql`s.account_id = ${accountId}`, f.include_test ? sql`s.test IN (0, 1)` : sql`s.test = 0`];
  // Archived orders are never blocked (a blocked order is not finished).
  if (f.blocked === true) parts.push(sql`0`);
  if (f.date_from) parts.push(sql`s.created_at >= ${f.date_from}`);
  if (f.date_to) parts.push(sql`s.created_at <= ${f.date_to}`);
  if (f.source !== undefined) parts.push(sql`s.source = ${f.source} COLLATE NOCASE`);
  if (f.external_id !== undefined) parts.push(sql`instr(s.external_id, ${f.external_id}) > 0`);
  if (f.total_min !== undefined) parts.push(sql`s.total >= ${f.total_min}`);
  if (f.total_max !== undefined) parts.push(sql`s.total <= ${f.total_max}`);
  if (f.statuses) {
    const mask = f.statuses.reduce((bits, st) => bits | (1 << LINE_STATUSES.indexOf(st)), 0);
    parts.push(sql`(s.statuses & ${mask}) <> 0`);
  }
  // q: a reference, an external_id or an e-mail address, whole (as the live list keys them: no spaces, ASCII lower case).
  const key = (column: SQL) => sql`lower(replace(replace(replace(replace(${column}, ' ', ''), char(9), ''), char(10), ''), char(13), ''))`;
  if (f.q !== undefined) parts.push(sql`(s.reference = ${f.q} OR ${key(sql`s.external_id`)} = ${f.q} OR ${key(sql`s.email`)} = ${f.q})`);
  return sql.join(parts, sql` AND `);
}

/** One page of the account's archived orders (newest first, or the sort asked for) and their count. */
export async function listArchived(db: Db, bucket: R2Bucket, accountId: number, f: ListOrdersFilters, page: PageRequest) {
  const where = conditions(accountId, f);
  const by = f.sort?.by === "total" ? sql`s.total` : sql`s.created_at`;
  const dir = f.sort && !f.sort.descending ? sql`ASC` : sql`DESC`;
  const [[counted], stubs] = await rawBatch(db, [
    sql`SELECT count(*) AS total FROM archived_orders s WHERE ${where}`,
    sql`SELECT s.reference, s.created_at, s.part, s.line FROM archived_orders s WHERE ${where}
      ORDER BY ${by} ${dir}, s.created_at ${dir}, s.id ${dir} LIMIT ${page.perPage} OFFSET ${offsetOf(page)}`,
  ]);
  return { total: Number(counted.total), orders: await documentsOf(bucket, accountId, stubs) };
}

/** The page's documents, each object read once, in the page's order. */
async function documentsOf(bucket: R2Bucket, accountId: number, stubs: Row[]): Promise<ArchivedDocument[]> {
  const byKey = new Map<string, number[]>();
  for (const s of stubs) {
    const key = objectKey(accountId, String(s.created_at), String(s.part));
    byKey.set(key, [...(byKey.get(key) ?? []), Number(s.line)]);
  }
  const read = new Map<string, Map<number, string>>();
  await Promise.all([...byKey].map(async ([key, lines]) => read.set(key, await readLines(bucket, key, lines))));
  return stubs.map((s) => {
    const key = objectKey(accountId, String(s.created_at), String(s.part));
    const line = read.get(key)?.get(Number(s.line));
    if (line === undefined) throw new Error(`archive: order ${String(s.reference)} is missing from ${key}`);
    return JSON.parse(line) as ArchivedDocument;
  });
}
