// GET /api/v1/orders with archived=only or archived=include: the account's archived orders from their
// stubs, with the list's filters that the stubs can answer, alone or merged with the live list in
// one statement; each page's archived orders read from R2 (docs/archive.md, "Lists").
import { sql, type SQL } from "drizzle-orm";
import { rawBatch, type Db, type Row } from "../db";
import { LINE_STATUSES, stubSearchKey, type Order } from "../db/schema";
import { offsetOf, type PageRequest } from "../lib/pagination";
import type { ListOrdersFilters } from "../orders/orders.schemas";
import { liveListParts, ordersWithLines, ordersWithLinesOf, type LineWithSupplier } from "../orders/orders.service";
import type { ArchivedDocument } from "./archive.service";
import { archivedDetail } from "./archived-detail";
import { objectKey, readLines } from "./objects";

/** The live list's prefix search takes starts of 3 to 24 characters (drizzle/0037); the stubs' e-mail the same. */
const PREFIX_MIN = 3;
const PREFIX_MAX = 24;

const testsOf = (f: ListOrdersFilters) => (f.include_test ? [0, 1] : [0]);
const mask = (f: ListOrdersFilters) => (f.statuses ?? []).reduce((bits, st) => bits | (1 << LINE_STATUSES.indexOf(st)), 0);

/** The filters other than the account, the test flag and q, as conditions on the stubs (alias s). */
function conditions(f: ListOrdersFilters): SQL[] {
  const parts: SQL[] = [];
  // Archived orders are never blocked (a blocked order is not finished).
  if (f.blocked === true) parts.push(sql`0`);
  if (f.date_from) parts.push(sql`s.created_at >= ${f.date_from}`);
  if (f.date_to) parts.push(sql`s.created_at <= ${f.date_to}`);
  if (f.source !== undefined) parts.push(sql`s.source = ${f.source} COLLATE NOCASE`);
  if (f.external_id !== undefined) parts.push(sql`instr(s.external_id, ${f.external_id}) > 0`);
  if (f.total_min !== undefined) parts.push(sql`s.total >= ${f.total_min}`);
  if (f.total_max !== undefined) parts.push(sql`s.total <= ${f.total_max}`);
  if (f.statuses) parts.push(sql`(s.statuses & ${mask(f)}) <> 0`);
  return parts;
}

/**
 * q (already keyed as searchKey: no whitespace, ASCII lower case): a reference, an external_id or
 * an e-mail address whole, or an e-mail address's start of 3 to 24 characters (as the live list's
 * prefixes); each an index range of the stubs, so the matches are read, not the account.
 */
function searchIds(accountId: number, q: string): SQL {
  const email = stubSearchKey(sql`email`);
  const byEmail = q.length >= PREFIX_MIN && q.length <= PREFIX_MAX ? sql`${email} >= ${q} AND ${email} < ${q} || char(1114111)` : sql`${email} = ${q}`;
  return sql`SELECT id FROM archived_orders WHERE reference = ${q} AND account_id = ${accountId}
    UNION SELECT id FROM archived_orders WHERE account_id = ${accountId} AND ${stubSearchKey(sql`external_id`)} = ${q}
    UNION SELECT id FROM archived_orders WHERE account_id = ${accountId} AND ${byEmail}`;
}

const direction = (f: ListOrdersFilters) => sql.raw(f.sort && !f.sort.descending ? "ASC" : "DESC");
/** ORDER BY of the sort over columns total, created_at and id (prefixed). */
function sortBy(f: ListOrdersFilters, prefix = sql``): SQL {
  const dir = direction(f);
  return f.sort?.by === "total"
    ? sql`ORDER BY ${prefix}total ${dir}, ${prefix}created_at ${dir}, ${prefix}id ${dir}`
    : sql`ORDER BY ${prefix}created_at ${dir}, ${prefix}id ${dir}`;
}

/**
 * The first `n` matching stubs in the sort, as rows (total, created_at, id). Without q: per test
 * flag, a walk of the (account, test, created_at) index (newest or oldest first: about n entries
 * when the filters match most stubs); with q, its matches read and sorted.
 */
export function stubIds(accountId: number, f: ListOrdersFilters, n: number, extra: SQL[] = []): SQL {
  const tests = testsOf(f);
  const where = (more: SQL[]) => sql.join([...more, ...conditions(f), ...extra], sql` AND `);
  if (f.q !== undefined) {
    return sql`SELECT s.total, s.created_at, s.id FROM (${searchIds(accountId, f.q)}) m CROSS JOIN archived_orders s ON s.id = m.id
      WHERE ${where([sql`s.account_id = ${accountId}`, sql`s.test IN (${sql.join(tests.map((t) => sql`${t}`), sql`, `)})`])} ${sortBy(f, sql`s.`)} LIMIT ${n}`;
  }
  const arm = (t: number) =>
    sql`SELECT s.total, s.created_at, s.id FROM archived_orders s INDEXED BY archived_orders_account_test_created_idx
      WHERE ${where([sql`s.account_id = ${accountId}`, sql`s.test = ${t}`])} ${sortBy(f, sql`s.`)} LIMIT ${n}`;
  if (tests.length === 1) return arm(tests[0]);
  return sql`SELECT * FROM (${arm(0)}) UNION ALL SELECT * FROM (${arm(1)}) ${sortBy(f)} LIMIT ${n}`;
}

/**
 * How many stubs match: from the counters (drizzle/0047) when the filters are none, a source alone or
 * statuses alone (blocked=false changes nothing); otherwise counted from the rows the filters select
 * (q: its matches; dates: the index range; the rest: the account's stubs).
 */
function stubCount(accountId: number, f: ListOrdersFilters): SQL {
  const tests = sql.join(testsOf(f).map((t) => sql`${t}`), sql`, `);
  const counter = (kind: string, key: SQL) => sql`(SELECT coalesce(sum(n), 0) FROM counters WHERE account_id = ${accountId} AND test IN (${tests}) AND kind = ${kind} AND ${key})`;
  const others = conditions({ ...f, source: undefined, statuses: undefined, blocked: f.blocked === false ? undefined : f.blocked });
  if (f.q === undefined && others.length === 0) {
    if (f.source !== undefined && f.statuses === undefined) return counter("archived.source", sql`key = lower(${f.source})`);
    if (f.statuses !== undefined && f.source === undefined) return counter("archived.mask", sql`(CAST(key AS INTEGER) & ${mask(f)}) <> 0`);
    if (f.source === undefined && f.statuses === undefined) return counter("archived", sql`key = ''`);
  }
  return sql`(SELECT count(*) FROM (${stubIds(accountId, f, -1)}))`;
}

/** One page of the account's archived orders (newest first, or the sort asked for) and their count. */
export async function listArchived(db: Db, bucket: R2Bucket, accountId: number, f: ListOrdersFilters, page: PageRequest) {
  const [[counted], stubs] = await rawBatch(db, [
    sql`SELECT ${stubCount(accountId, f)} AS total`,
    sql`SELECT p.id, s.reference, s.created_at, s.part, s.line FROM (${stubIds(accountId, f, offsetOf(page) + page.perPage)}) p
      CROSS JOIN archived_orders s ON s.id = p.id ${sortBy(f, sql`p.`)} LIMIT ${page.perPage} OFFSET ${offsetOf(page)}`,
  ]);
  return { total: Number(counted.total), orders: await documentsOf(bucket, accountId, stubs) };
}

/** An order of a list with archived=include: a live one with its lines, or an archived one's document. */
export type IncludedOrder = { archived: false; order: Order; lines: LineWithSupplier[] } | { archived: true; doc: ArchivedDocument };

/**
 * archived=include: live and archived orders in one list. The page is cut in one statement from the
 * first offset + per_page of each side in the sort, merged; the count is the two counts added. The
 * cost grows with the page's depth (offset + per_page entries of each side), not the account's size.
 */
export async function listIncluding(db: Db, bucket: R2Bucket, accountId: number, f: ListOrdersFilters, page: PageRequest) {
  const live = await liveListParts(db, accountId, f);
  const offset = offsetOf(page);
  const n = offset + page.perPage;
  const liveIds = live
    ? sql`SELECT 0 AS archived, o.total, o.created_at, o.id FROM (${live.page({ limit: n, offset: 0, direction: f.sort && !f.sort.descending ? "oldest" : "newest" })}) p
        CROSS JOIN orders o ON o.id = p.id`
    : sql`SELECT 0 AS archived, NULL AS total, NULL AS created_at, NULL AS id WHERE 0`;
  const merged = sql`SELECT archived, total, created_at, id FROM (${liveIds} UNION ALL SELECT 1, total, created_at, id FROM (${stubIds(accountId, f, n)}))
    ${sortBy(f)} LIMIT ${page.perPage} OFFSET ${offset}`;
  const [[counted], ids, liveRows] = await rawBatch(db, [
    sql`SELECT live + archived AS total, live FROM (SELECT ${live ? live.count : sql`0`} AS live, ${stubCount(accountId, f)} AS archived)`,
    sql`SELECT m.archived, m.total, m.created_at, m.id, s.reference, s.part, s.line FROM (${merged}) m LEFT JOIN archived_orders s ON m.archived = 1 AND s.id = m.id ${sortBy(f, sql`m.`)}`,
    ordersWithLines(sql`SELECT id FROM (${merged}) WHERE archived = 0`, sql`ORDER BY o.id`),
  ]);
  const { orders, lines } = ordersWithLinesOf(liveRows);
  const docs = await documentsOf(bucket, accountId, ids.filter((r) => Number(r.archived) === 1));
  const byId = new Map(orders.map((o) => [o.id, o]));
  let next = 0;
  const entries = ids.map((r): IncludedOrder => {
    if (Number(r.archived) === 1) return { archived: true, doc: docs[next++] };
    const order = byId.get(Number(r.id));
    if (!order) throw new Error(`archived=include: order ${String(r.id)} left the page's read`);
    return { archived: false, order, lines: lines.filter((l) => l.orderId === order.id) };
  });
  return { total: Number(counted.total), liveTotal: Number(counted.live), orders: entries };
}

/**
 * archived=only or include with each archived order read back into the domain's shapes (the console's
 * table shows both kinds alike): the page's orders and lines, and which of them are archived.
 */
export async function listWithArchived(db: Db, bucket: R2Bucket, accountId: number, f: ListOrdersFilters & { archived: "only" | "include" }, page: PageRequest) {
  const listed =
    f.archived === "only"
      ? await listArchived(db, bucket, accountId, f, page).then((r) => ({ total: r.total, liveTotal: 0, orders: r.orders.map((doc): IncludedOrder => ({ archived: true, doc })) }))
      : await listIncluding(db, bucket, accountId, f, page);
  const rows = listed.orders.map((o) => (o.archived ? { ...archivedDetail(o.doc).detail, archived: true } : { order: o.order, lines: o.lines, archived: false }));
  return {
    total: listed.total,
    /** Of the total, the live orders (what a bulk action over the filters would act on). */
    liveTotal: listed.liveTotal,
    orders: rows.map((r) => r.order),
    lines: rows.flatMap((r) => r.lines),
    archived: new Set(rows.filter((r) => r.archived).map((r) => r.order.id)),
  };
}

/** The page's documents, each object read once, in the page's order. */
export async function documentsOf(bucket: R2Bucket, accountId: number, stubs: Row[]): Promise<ArchivedDocument[]> {
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
