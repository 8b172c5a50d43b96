// The order list's SQL. Counts come from the counters the triggers keep (src/db/schema/counts.ts),
// exact and read in a constant number of rows; a page's ids come from an index walked newest
// first, reading about as many entries as the page holds, whatever the account's size. Where
// filters combine, the most selective one (by those same counts) bounds what is read. The README's
// "GET /api/v1/orders" section states what each filter costs.
import { sql, type SQL } from "drizzle-orm";
import { FACET_STATUS, FACET_SUPPLIER, FACET_UNSHIPPED, LINE_STATUSES, totalBucket } from "../db/schema";
import { nextMicro } from "../lib/time";
import type { ListOrdersFilters } from "./orders.schemas";

/**
 * orders_external_fts rowid = (account_id * 2 + test) * 2^40 + the order id packed into 40 bits:
 * (id >> 40) * 2^32 + (id & (2^32 - 1)), its shard's range and its place there (drizzle/0015).
 */
const FTS_SCOPE = 2 ** 40;
const LOW_32 = 2 ** 32 - 1;
/** Totals are stored in units below 10^15 (src/lib/money.ts). */
const TOTAL_LIMIT = 1e15;
/** The time levels of the created/completed counters: year, month, day, hour (prefix lengths). */
const TIME_LEVELS = [4, 7, 10, 13] as const;
/** Each time level's first instant, after its prefix: a bound there needs no finer level. */
const LEVEL_START = ["-01-01T00:00:00.000000Z", "-01T00:00:00.000000Z", "T00:00:00.000000Z", ":00:00.000000Z"];
/** Below this share of the account, a total or completed_since filter reads its matches by value. */
const FEW_MATCHES_SHARE = 100;
/** Merges of D1's SQLite take at most 5 terms per compound SELECT. */
const COMPOUND_MAX = 5;

export type Dim =
  | { kind: "blocked"; value: boolean }
  | { kind: "source"; value: string }
  | { kind: "completed"; after: string }
  | { kind: "total"; min: number | null; max: number | null }
  | { kind: "statuses"; codes: number[] }
  | { kind: "suppliers"; ids: number[] }
  /** shipping=not_shipped: orders with a line not yet shipped (FACET_UNSHIPPED). */
  | { kind: "unshipped" }
  | { kind: "text"; text: string }
  /** One or two characters: below a trigram, so a scan (README). */
  | { kind: "short"; text: string }
  /** `q`: one normalised key of order_search_keys (searchKey). */
  | { kind: "search"; key: string };

/** How a list is sorted: by created_at (ties by id) or by total (ties by created_at, then id). */
export type SortKey = "created" | "total";
export type Sort = { by: SortKey; descending: boolean };
/** The list's order when no sort is asked for: newest first. */
export const NEWEST_FIRST: Sort = { by: "created", descending: true };

export type ListQuery = {
  accountId: number;
  tests: number[];
  /** created_at bounds, inclusive. */
  from: string | null;
  to: string | null;
  dims: Dim[];
  /** The filters cannot match anything (an empty range). */
  empty: boolean;
  sort: Sort;
};

/** The filters as the planner sees them: one dimension per filter, dates apart (they bound every index). */
export function listQuery(accountId: number, f: ListOrdersFilters): ListQuery {
  const q: ListQuery = { accountId, tests: f.include_test === true ? [0, 1] : [0], from: f.date_from ?? null, to: f.date_to ?? null, dims: [], empty: false, sort: f.sort ?? NEWEST_FIRST };
  if (q.from && q.to && q.from > q.to) q.empty = true;
  if (f.blocked !== undefined) q.dims.push({ kind: "blocked", value: f.blocked });
  if (f.source) q.dims.push({ kind: "source", value: f.source });
  if (f.completed_since) q.dims.push({ kind: "completed", after: f.completed_since });
  if (f.total_min !== undefined || f.total_max !== undefined) {
    // Totals are whole units from 0 to below 10^15: bounds outside that range drop out or empty the list.
    const min = f.total_min !== undefined && f.total_min > 0 ? f.total_min : null;
    const max = f.total_max !== undefined && f.total_max < TOTAL_LIMIT ? f.total_max : null;
    if ((f.total_max !== undefined && f.total_max < 0) || (min !== null && min >= TOTAL_LIMIT) || (min !== null && max !== null && min > max)) q.empty = true;
    if (min !== null || max !== null) q.dims.push({ kind: "total", min, max });
  }
  if (f.statuses) q.dims.push({ kind: "statuses", codes: f.statuses.map((s) => LINE_STATUSES.indexOf(s)).sort((a, b) => a - b) });
  if (f.shipping === "not_shipped") q.dims.push({ kind: "unshipped" });
  if (f.supplier_ids) q.dims.push({ kind: "suppliers", ids: [...new Set(f.supplier_ids.map(Number))].sort((a, b) => a - b) });
  if (f.external_id) {
    // A trigram index serves three characters and more.
    q.dims.push({ kind: [...f.external_id].length >= 3 ? "text" : "short", text: f.external_id });
  }
  if (f.q !== undefined) q.dims.push({ kind: "search", key: f.q });
  return q;
}

/**
 * Integers the planner computed or the schema validated, written into the SQL: D1 binds at most 100
 * parameters per statement, and a page may merge 200 index ranges (100 supplier ids, both test
 * flags) each naming its account, flag and value.
 */
function int(n: number): SQL {
  if (!Number.isSafeInteger(n)) throw new TypeError(`not an integer: ${n}`);
  return sql.raw(String(n));
}
const ints = (values: readonly number[]) => sql.join(values.map(int), sql`, `);
/** A timestamp as parseIsoFilter writes it, written into the SQL (see int). */
function instant(iso: string): SQL {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(iso)) throw new TypeError(`not a timestamp: ${iso}`);
  return sql.raw(`'${iso}'`);
}
const tests = (q: ListQuery) => ints(q.tests);
/** A counter kind or key the planner built (digits, timestamps' prefixes, separators), written into the SQL (see int). */
function word(text: string): SQL {
  if (!/^[0-9A-Za-z:._, ~-]*$/.test(text)) throw new TypeError(`not a planner word: ${text}`);
  return sql.raw(`'${text}'`);
}

// ---- Counts -----------------------------------------------------------------------------------

/** Sum of the counters of one kind whose key meets `where`, over the query's test scope. */
function counterSum(q: ListQuery, kind: string, where: SQL): SQL {
  return sql`(SELECT coalesce(sum(n), 0) FROM counters WHERE account_id = ${int(q.accountId)} AND test IN (${tests(q)}) AND kind = ${word(kind)} AND ${where})`;
}

const allOrders = (q: ListQuery) => counterSum(q, "orders", sql`key = ''`);

/**
 * Orders whose created_at (or completed_at) is at least `at`: for each level, the later siblings
 * under the same parent (a year's later months, a month's later days, a day's later hours), summed
 * from the counters; a bound on a level's first instant stops there; otherwise the rows of the
 * bound's own hour come from the index, counted from whichever end of that hour is nearer.
 */
function timeAtLeast(q: ListQuery, kind: "orders.created" | "orders.completed", column: SQL, at: string): SQL {
  const terms: SQL[] = [];
  for (let i = 0; i < TIME_LEVELS.length; i++) {
    const level = TIME_LEVELS[i];
    const prefix = at.slice(0, level);
    const parent = i === 0 ? "" : at.slice(0, TIME_LEVELS[i - 1]);
    const aligned = at.slice(level) === LEVEL_START[i];
    const bound = aligned ? sql`key >= ${word(prefix)}` : sql`key > ${word(prefix)}`;
    terms.push(counterSum(q, `${kind}:${level}`, i === 0 ? bound : sql`${bound} AND key < ${word(`${parent}~`)}`));
    if (aligned) return sql.join(terms, sql` + `);
  }
  const hour = at.slice(0, 13);
  const rows = (lo: string, hi: string) =>
    sql`(SELECT count(*) FROM orders WHERE account_id = ${int(q.accountId)} AND test IN (${tests(q)}) AND ${column} >= ${word(lo)} AND ${column} < ${word(hi)})`;
  if (Number(at.slice(14, 16)) < 30) {
    // The whole hour from its counter, less its rows before `at`.
    terms.push(counterSum(q, `${kind}:13`, sql`key = ${word(hour)}`), sql`- ${rows(hour, at)}`);
  } else {
    terms.push(rows(at, `${hour}~`));
  }
  return sql.join(terms, sql` + `);
}

/** Digits of a total (in units) below a whole unit of money: the count tree stops above them. */
const UNIT_DIGITS = 4;

/**
 * Orders whose total is at least `units`: the counters keep, per level L, the orders whose total
 * (two digits of length, then its digits) starts with each L-digit prefix, down to whole units of
 * money. The count is the longer totals, then per digit the later siblings, then the bound's own
 * prefix: all of it when the bound is a whole amount, else its orders at or above the bound, from
 * the total index, counted from whichever end of that unit is nearer.
 */
function totalAtLeast(q: ListQuery, units: number): SQL {
  const digits = String(units);
  const len = String(digits.length).padStart(2, "0");
  const deepest = Math.max(1, digits.length - UNIT_DIGITS);
  const terms: SQL[] = [counterSum(q, "orders.total:1", sql`key >= ${word(String(digits.length + 1).padStart(2, "0"))}`)];
  for (let k = 1; k <= deepest; k++) {
    terms.push(counterSum(q, `orders.total:${k}`, sql`key > ${word(len + digits.slice(0, k))} AND key < ${word(`${len + digits.slice(0, k - 1)}:`)}`));
  }
  const prefix = digits.slice(0, deepest);
  const rest = digits.slice(deepest);
  const own = counterSum(q, `orders.total:${deepest}`, sql`key = ${word(len + prefix)}`);
  if (/^0*$/.test(rest)) {
    terms.push(own);
  } else {
    const lo = Number(prefix + "0".repeat(rest.length));
    const hi = Number(prefix + "9".repeat(rest.length));
    const rows = (from: number, to: number) =>
      sql`(SELECT count(*) FROM orders INDEXED BY orders_account_test_total_idx WHERE account_id = ${int(q.accountId)} AND test IN (${tests(q)}) AND total >= ${int(from)} AND total <= ${int(to)})`;
    terms.push(units - lo < hi - units ? sql`${own} - ${rows(lo, units - 1)}` : rows(units, hi));
  }
  return sql.join(terms, sql` + `);
}

function createdCount(q: ListQuery): SQL {
  const atLeast = q.from ? timeAtLeast(q, "orders.created", sql`created_at`, q.from) : allOrders(q);
  return q.to ? sql`(${atLeast}) - (${timeAtLeast(q, "orders.created", sql`created_at`, nextMicro(q.to))})` : atLeast;
}

/** The exact count of one dimension alone (dates aside), from the counters, or null when none serves it. */
function counted(q: ListQuery, d: Dim): SQL | null {
  switch (d.kind) {
    case "blocked": {
      const blocked = counterSum(q, "orders.blocked", sql`key = ''`);
      return d.value ? blocked : sql`${allOrders(q)} - ${blocked}`;
    }
    case "source":
      return counterSum(q, "orders.source", sql`key = lower(${d.value})`);
    case "completed":
      return timeAtLeast(q, "orders.completed", sql`completed_at`, nextMicro(d.after));
    case "total": {
      const atLeast = d.min !== null ? totalAtLeast(q, d.min) : allOrders(q);
      return d.max !== null ? sql`(${atLeast}) - (${totalAtLeast(q, d.max + 1)})` : atLeast;
    }
    case "statuses": {
      const bits = d.codes.reduce((m, c) => m | (1 << c), 0);
      return counterSum(q, "orders.mask", sql`(CAST(key AS INTEGER) & ${int(bits)}) != 0`);
    }
    case "suppliers":
      if (d.ids.length === 1) return counterSum(q, "orders.supplier", sql`key = ${word(String(d.ids[0]))}`);
      if (d.ids.length === 2) {
        // |A or B| = |A| + |B| - |A and B|: the pair counter holds the last.
        return sql`${counterSum(q, "orders.supplier", sql`key IN (${word(String(d.ids[0]))}, ${word(String(d.ids[1]))})`)} - ${counterSum(q, "orders.supplier_pair", sql`key = ${word(d.ids.join(","))}`)}`;
      }
      return null;
    case "search":
      return counterSum(q, "orders.search", sql`key = ${d.key}`);
    case "unshipped":
      return counterSum(q, "orders.unshipped", sql`key = ''`);
    default:
      return null;
  }
}

// ---- Candidates, predicates and pages --------------------------------------------------------------

const createdRange = (q: ListQuery, column = sql`created_at`) =>
  sql`${q.from ? sql` AND ${column} >= ${instant(q.from)}` : sql``}${q.to ? sql` AND ${column} <= ${instant(q.to)}` : sql``}`;

/** The trigram search: the FTS5 phrase of the lower-cased text ("" doubled), inside the account's rowid range. */
const textIds = (q: ListQuery, text: string) => sql`SELECT ((rowid & ${int(FTS_SCOPE - 1)}) >> 32) * ${int(FTS_SCOPE)} + (rowid & ${int(LOW_32)}) AS id FROM orders_external_fts
  WHERE orders_external_fts MATCH '"' || replace(lower(${text}), '"', '""') || '"'
    AND rowid >= (${int(q.accountId)} * 2 + ${int(Math.min(...q.tests))}) * ${int(FTS_SCOPE)} AND rowid < (${int(q.accountId)} * 2 + ${int(Math.max(...q.tests) + 1)}) * ${int(FTS_SCOPE)}`;

type FacetDim = Extract<Dim, { kind: "statuses" | "suppliers" | "unshipped" }>;
const facetKind = (d: FacetDim) => (d.kind === "statuses" ? FACET_STATUS : d.kind === "suppliers" ? FACET_SUPPLIER : FACET_UNSHIPPED);
const facetValues = (d: FacetDim) => (d.kind === "statuses" ? d.codes : d.kind === "suppliers" ? d.ids : [0]);

/** The dimension as a condition on an orders row `o`. */
function predicate(q: ListQuery, d: Dim): SQL {
  switch (d.kind) {
    case "blocked":
      return sql`o.blocked = ${int(d.value ? 1 : 0)}`;
    case "source":
      return sql`o.source = ${d.value} COLLATE NOCASE`;
    case "completed":
      return sql`o.completed_at > ${instant(d.after)}`;
    case "total":
      return sql.join([d.min !== null ? sql`o.total >= ${int(d.min)}` : sql`1`, d.max !== null ? sql`o.total <= ${int(d.max)}` : sql`1`], sql` AND `);
    case "statuses":
    case "suppliers":
    case "unshipped":
      return sql`EXISTS (SELECT 1 FROM order_facets f WHERE f.account_id = o.account_id AND f.test = o.test AND f.kind = ${int(facetKind(d))}
        AND f.value IN (${ints(facetValues(d))}) AND f.created_at = o.created_at AND f.order_id = o.id)`;
    case "text":
      return sql`o.id IN (${textIds(q, d.text)})`;
    case "short":
      // As LIKE '%…%' would, but with no pattern (D1 refuses LIKE patterns over 50 bytes elsewhere).
      return sql`instr(lower(o.external_id), lower(${d.text})) > 0`;
    case "search":
      return sql`EXISTS (SELECT 1 FROM order_search_keys k WHERE k.account_id = o.account_id AND k.test = o.test AND k.key = ${d.key}
        AND k.created_at = o.created_at AND k.order_id = o.id)`;
  }
}

/**
 * The ids (column `id`, possibly repeated) a dimension selects, unordered, read from its own index
 * and within the dates (except totals and completed_since, whose indexes do not hold created_at:
 * their callers filter by date).
 */
function candidates(q: ListQuery, d: Dim | null): SQL {
  const scope = sql`o.account_id = ${int(q.accountId)} AND o.test IN (${tests(q)})`;
  const dates = createdRange(q, sql`o.created_at`);
  if (d === null) return sql`SELECT id FROM orders o WHERE ${scope}${dates}`;
  switch (d.kind) {
    case "blocked":
    case "source":
    case "short":
      return sql`SELECT id FROM orders o WHERE ${scope} AND ${predicate(q, d)}${dates}`;
    case "completed":
      return sql`SELECT id FROM orders o INDEXED BY orders_account_test_completed_idx WHERE ${scope} AND ${predicate(q, d)}`;
    case "total":
      return sql`SELECT id FROM orders o INDEXED BY orders_account_test_total_idx WHERE ${scope} AND ${predicate(q, d)}`;
    case "statuses":
    case "suppliers":
    case "unshipped":
      return sql`SELECT order_id AS id FROM order_facets WHERE account_id = ${int(q.accountId)} AND test IN (${tests(q)})
        AND kind = ${int(facetKind(d))} AND value IN (${ints(facetValues(d))})${createdRange(q)}`;
    case "text":
      return q.from || q.to ? sql`SELECT id FROM orders o WHERE o.id IN (${textIds(q, d.text)})${dates}` : textIds(q, d.text);
    case "search":
      return sql`SELECT order_id AS id FROM order_search_keys WHERE account_id = ${int(q.accountId)} AND test IN (${tests(q)}) AND key = ${d.key}${createdRange(q)}`;
  }
}

export type Direction = "newest" | "oldest";
export type Window = { limit: number; offset: number; direction: Direction };

const orderBy = (w: Window, prefix = sql``) =>
  w.direction === "newest" ? sql`ORDER BY ${prefix}created_at DESC, ${prefix}id DESC` : sql`ORDER BY ${prefix}created_at ASC, ${prefix}id ASC`;
const limit = (w: Window) => sql`LIMIT ${int(w.limit)} OFFSET ${int(w.offset)}`;

/**
 * Ranges, each already in created_at order, merged lazily (without duplicates when `distinct`):
 * SQLite reads each range only as far as the page needs. D1 allows five terms per compound, so
 * more ranges merge in a tree whose inner merges keep the page's worth (limit + offset) each.
 */
function merge(arms: SQL[], w: Window, distinct = true): SQL {
  const order = w.direction === "newest" ? sql`ORDER BY 1 DESC, 2 DESC` : sql`ORDER BY 1 ASC, 2 ASC`;
  const union = distinct ? sql` UNION ` : sql` UNION ALL `;
  const term = (arm: SQL) => sql`SELECT * FROM (${arm})`;
  let level = arms.map(term);
  while (level.length > COMPOUND_MAX) {
    const next: SQL[] = [];
    for (let i = 0; i < level.length; i += COMPOUND_MAX) {
      next.push(term(sql`${sql.join(level.slice(i, i + COMPOUND_MAX), union)} ${order} LIMIT ${int(w.limit + w.offset)}`));
    }
    level = next;
  }
  return sql`${sql.join(level, union)} ${order} ${limit(w)}`;
}

/** The first value of a bucket (totalBucket): three per decade, leading digit 1, 2 and 5. */
function bucketStart(bucket: number): number {
  const length = Math.floor(bucket / 3);
  const lead = [1, 2, 5][bucket % 3];
  return length === 1 && lead === 1 ? 0 : lead * 10 ** (length - 1);
}

/**
 * Counts a page statement tests more than once (which way to read), computed once: a CTE `g` of
 * one row, each count a column, read back as (SELECT name FROM g).
 */
class Counts {
  private columns = new Map<string, SQL>();
  of(name: string, expression: () => SQL): SQL {
    if (!this.columns.has(name)) this.columns.set(name, expression());
    return sql`(SELECT ${sql.raw(name)} FROM g)`;
  }
  around(body: SQL): SQL {
    if (this.columns.size === 0) return body;
    const columns = [...this.columns].map(([name, expression]) => sql`(${expression}) AS ${sql.raw(name)}`);
    return sql`WITH g AS MATERIALIZED (SELECT ${sql.join(columns, sql`, `)}) ${body}`;
  }
}

/** Orders whose total is in [from, to] (inclusive; to may be open), from the counters. */
function totalBetween(q: ListQuery, counts: Counts, from: number, to: number | null): SQL {
  const atLeast = (units: number) => counts.of(`total_${units}`, () => totalAtLeast(q, units));
  return to === null ? atLeast(from) : sql`(${atLeast(from)} - ${atLeast(to + 1)})`;
}

/**
 * A total filter's ranges: the buckets wholly inside the bounds as one IN (walked value by value,
 * each stopping once older than the page), and each edge bucket (the one a bound falls in) either
 * walked newest first with the total filter, or read by value and sorted, whichever the counters
 * say reads fewer rows: the walk reads the bucket's rows down to the page's oldest order and to
 * its own first match (its rejects never fill the page), the read reads the edge's matches.
 */
function totalArms(q: ListQuery, d: Extract<Dim, { kind: "total" }>, n: number, direction: Direction, counts: Counts): SQL[] {
  const matches = totalBetween(q, counts, d.min ?? 0, d.max);
  const lo = bucketOf(d.min ?? 0);
  const hi = bucketOf(d.max ?? TOTAL_LIMIT - 1);
  const edges = [...new Set([d.min !== null ? lo : null, d.max !== null ? hi : null].filter((b): b is number => b !== null))];
  const full = bucketsBetween(d.min, d.max).filter((b) => !edges.includes(b));
  const bucketIndex = sql`FROM orders o INDEXED BY orders_account_test_total_bucket_idx WHERE o.account_id = ${int(q.accountId)}`;
  const w: Window = { limit: n, offset: 0, direction };
  const arms: SQL[] = [];
  if (full.length > 0) {
    arms.push(sql`SELECT created_at, id ${bucketIndex} AND o.test IN (${tests(q)}) AND ${totalBucket(sql`o.total`)} IN (${ints(full)})${createdRange(q)} ${orderBy(w)} LIMIT ${int(n)}`);
  }
  for (const e of edges) {
    const start = bucketStart(e);
    const end = e + 1 > bucketOf(TOTAL_LIMIT - 1) ? null : bucketStart(e + 1) - 1;
    const edgeFrom = Math.max(start, d.min ?? 0);
    const edgeTo = d.max === null ? end : end === null ? d.max : Math.min(end, d.max);
    const inBucket = totalBetween(q, counts, start, end);
    const inEdge = totalBetween(q, counts, edgeFrom, edgeTo);
    const walk = sql`(CAST(${inBucket} AS REAL) * (${int(n)} * 1.0 / max(${matches}, 1) + 1.0 / (${inEdge} + 1)) < ${inEdge})`;
    for (const t of q.tests) {
      arms.push(sql`SELECT created_at, id ${bucketIndex} AND o.test = ${int(t)} AND ${totalBucket(sql`o.total`)} = ${int(e)} AND ${predicate(q, d)}${createdRange(q)}
        ${orderBy(w)} LIMIT CASE WHEN ${walk} THEN ${int(n)} ELSE 0 END`);
    }
    arms.push(sql`SELECT created_at, id FROM orders o INDEXED BY orders_account_test_total_idx WHERE o.account_id = ${int(q.accountId)} AND o.test IN (${tests(q)})
        AND o.total >= ${int(edgeFrom)}${edgeTo === null ? sql`` : sql` AND o.total <= ${int(edgeTo)}`}${createdRange(q)} ${orderBy(w)} LIMIT CASE WHEN ${walk} THEN 0 ELSE ${int(n)} END`);
  }
  return arms;
}

/**
 * The ids (created_at, id) of one page of orders matching a single dimension (or none) and the
 * dates, read newest (or oldest) first from that dimension's index (totals and completed_since:
 * when the counters say few orders match, read by value and sorted instead).
 */
function singlePage(q: ListQuery, d: Dim | null, w: Window): SQL {
  const scope = sql`account_id = ${int(q.accountId)} AND test IN (${tests(q)})`;
  // The index is named: SQLite may otherwise prefer a smaller one that holds the same columns in
  // another order, and sort the whole account.
  const plain = (index: string, where: SQL) =>
    sql`SELECT created_at, id FROM orders INDEXED BY ${sql.raw(index)} WHERE ${scope} AND ${where}${createdRange(q)} ${orderBy(w)} ${limit(w)}`;
  if (d === null) return plain("orders_account_test_created_idx", sql`1`);
  switch (d.kind) {
    case "blocked":
      return plain("orders_account_test_blocked_idx", sql`blocked = ${int(d.value ? 1 : 0)}`);
    case "source":
      return plain("orders_account_test_source_idx", sql`source = ${d.value} COLLATE NOCASE`);
    case "short":
      return plain("orders_account_test_created_idx", sql`instr(lower(external_id), lower(${d.text})) > 0`);
    case "text":
      // From the search's matches to their orders (by id), then sorted: as many rows as matches.
      return sql`SELECT o.created_at, o.id FROM (${textIds(q, d.text)}) t CROSS JOIN orders o ON o.id = t.id
        WHERE o.account_id = ${int(q.accountId)} AND o.test IN (${tests(q)})${createdRange(q, sql`o.created_at`)} ${orderBy(w, sql`o.`)} ${limit(w)}`;
    case "completed":
    case "total": {
      // Both ways in one statement; the one whose LIMIT is 0 reads nothing. Below this share of
      // the account (or twice the page) the matches are read by value and sorted.
      const n = w.limit + w.offset;
      const counts = new Counts();
      const matches = d.kind === "total" ? totalBetween(q, counts, d.min ?? 0, d.max) : counts.of("matches", () => counted(q, d)!);
      const few = sql`(${matches} < max(${int(2 * n)}, ${counts.of("orders", () => allOrders(q))} / ${int(FEW_MATCHES_SHARE)}))`;
      const many = d.kind === "completed"
        ? sql`SELECT created_at, id FROM orders o INDEXED BY orders_completed_created_idx WHERE ${scope} AND completed_at IS NOT NULL AND ${predicate(q, d)}${createdRange(q)} ${orderBy(w)}`
        : merge(totalArms(q, d, n, w.direction, counts), { limit: n, offset: 0, direction: w.direction }, false);
      const byValue = sql`SELECT created_at, id FROM orders o INDEXED BY ${sql.raw(d.kind === "completed" ? "orders_account_test_completed_idx" : "orders_account_test_total_idx")}
        WHERE ${scope} AND ${predicate(q, d)}${createdRange(q)}`;
      return counts.around(sql`SELECT * FROM (SELECT * FROM (${many}) LIMIT CASE WHEN ${few} THEN 0 ELSE ${int(n)} END)
        UNION ALL SELECT * FROM (${byValue} ${orderBy(w)} LIMIT CASE WHEN ${few} THEN ${int(n)} ELSE 0 END)
        ${w.direction === "newest" ? sql`ORDER BY 1 DESC, 2 DESC` : sql`ORDER BY 1 ASC, 2 ASC`} ${limit(w)}`);
    }
    case "statuses":
    case "suppliers":
    case "unshipped": {
      const arms = q.tests.flatMap((t) =>
        facetValues(d).map(
          (v) => sql`SELECT created_at, order_id AS id FROM order_facets WHERE account_id = ${int(q.accountId)} AND test = ${int(t)} AND kind = ${int(facetKind(d))} AND value = ${int(v)}${createdRange(q)}`,
        ),
      );
      return arms.length === 1 ? sql`${arms[0]} ${orderBy(w)} ${limit(w)}` : merge(arms, w);
    }
    case "search": {
      // One key's range per test flag, each newest (or oldest) first; an order has one flag, so no duplicates.
      const arms = q.tests.map(
        (t) => sql`SELECT created_at, order_id AS id FROM order_search_keys WHERE account_id = ${int(q.accountId)} AND test = ${int(t)} AND key = ${d.key}${createdRange(q)}`,
      );
      return arms.length === 1 ? sql`${arms[0]} ${orderBy(w)} ${limit(w)}` : merge(arms, w, false);
    }
  }
}

/** The bucket of a total (totalBucket in SQL): three per decade. */
export function bucketOf(units: number): number {
  const s = String(units);
  return s.length * 3 + (s >= "2" ? 1 : 0) + (s >= "5" ? 1 : 0);
}

/** Every bucket a total between min and max (inclusive, null: open) can fall in. */
function bucketsBetween(min: number | null, max: number | null): number[] {
  const lo = bucketOf(min ?? 0);
  const hi = bucketOf(max ?? TOTAL_LIMIT - 1);
  const out: number[] = [];
  // Buckets run 3 per length from 3 (length 1, leading digit 0 or 1); every integer in [lo, hi] is one.
  for (let b = lo; b <= hi; b++) out.push(b);
  return out;
}

// ---- The plan -------------------------------------------------------------------------------------

export type Plan =
  | { kind: "empty" }
  /** One round trip: the count (constant, or bounded by the one index the page reads) and the page. */
  | { kind: "direct"; count: SQL; page: (w: Window) => SQL; countIsConstant: boolean }
  /** Several filters: their counts first (one statement), then the most selective one drives. */
  | { kind: "combined"; counts: SQL; choose: (counts: number[]) => { count: SQL; page: (w: Window) => SQL; matching: SQL } };

/** The orders matching the driver's candidates and every other dimension, as `FROM … WHERE …` over `o`. */
function matchingFrom(q: ListQuery, driver: Dim | null, others: Dim[]): SQL {
  const where = sql.join([sql`o.account_id = ${int(q.accountId)} AND o.test IN (${tests(q)})${createdRange(q, sql`o.created_at`)}`, ...others.map((d) => predicate(q, d))], sql` AND `);
  return sql`FROM (SELECT DISTINCT id FROM (${candidates(q, driver)})) c CROSS JOIN orders o ON o.id = c.id WHERE ${where}`;
}

/** ORDER BY for a sort read in a window's direction (columns of `o`, or unqualified). */
export function sortOrder(by: SortKey, direction: Direction, prefix = sql``): SQL {
  const dir = sql.raw(direction === "newest" ? "DESC" : "ASC");
  return by === "total"
    ? sql`ORDER BY ${prefix}total ${dir}, ${prefix}created_at ${dir}, ${prefix}id ${dir}`
    : sql`ORDER BY ${prefix}created_at ${dir}, ${prefix}id ${dir}`;
}

/**
 * A page sorted by total (`direction` newest: the largest first). With no filter and no dates, a
 * walk of the total index per test flag (it holds the id after created_at), about a page's worth;
 * otherwise the matches (those of the most selective filter) read and sorted.
 */
function totalPage(q: ListQuery, matching: SQL | null, w: Window): SQL {
  if (matching !== null) return sql`SELECT o.created_at, o.id ${matching} ${sortOrder("total", w.direction, sql`o.`)} ${limit(w)}`;
  const arm = (t: number, n: SQL) =>
    sql`SELECT total, created_at, id FROM orders INDEXED BY orders_account_test_total_idx WHERE account_id = ${int(q.accountId)} AND test = ${int(t)}
      ${sortOrder("total", w.direction)} ${n}`;
  if (q.tests.length === 1) return sql`SELECT created_at, id FROM (${arm(q.tests[0], limit(w))})`;
  const order = sql.raw(w.direction === "newest" ? "ORDER BY 1 DESC, 2 DESC, 3 DESC" : "ORDER BY 1 ASC, 2 ASC, 3 ASC");
  const arms = q.tests.map((t) => sql`SELECT * FROM (${arm(t, sql`LIMIT ${int(w.limit + w.offset)}`)})`);
  return sql`SELECT created_at, id FROM (${sql.join(arms, sql` UNION ALL `)} ${order} ${limit(w)})`;
}

export function plan(q: ListQuery): Plan {
  const chosen = planFilters(q);
  if (q.sort.by !== "total" || chosen.kind === "empty") return chosen;
  // Sorted by total: the same counts; the page from the total index, or the driver's matches sorted.
  if (chosen.kind === "direct") {
    const d = q.dims[0] ?? null;
    const walk = d === null && q.from === null && q.to === null;
    return { ...chosen, page: (w) => totalPage(q, walk ? null : matchingFrom(q, d, []), w) };
  }
  return {
    ...chosen,
    choose: (values) => {
      const picked = chosen.choose(values);
      return { ...picked, page: (w) => totalPage(q, picked.matching, w) };
    },
  };
}

function planFilters(q: ListQuery): Plan {
  if (q.empty) return { kind: "empty" };
  const dated = q.from !== null || q.to !== null;
  const dims = q.dims;
  // No filter, or dates alone: the created_at counters and index.
  if (dims.length === 0) {
    return { kind: "direct", count: createdCount(q), page: (w) => singlePage(q, null, w), countIsConstant: true };
  }
  if (dims.length === 1) {
    const d = dims[0];
    const constant = counted(q, d);
    // Alone (or with dates, for the filters whose index holds created_at): count and page from one index.
    if (!dated && constant) {
      return { kind: "direct", count: constant, page: (w) => singlePage(q, d, w), countIsConstant: true };
    }
    if (d.kind !== "total" && d.kind !== "completed") {
      // Counted by reading the matches from the index the page reads (dates are a range of it);
      // a trigram search counts its matches.
      const count = sql`(SELECT count(*) FROM (SELECT DISTINCT id FROM (${candidates(q, d)})))`;
      return { kind: "direct", count, page: (w) => singlePage(q, d, w), countIsConstant: false };
    }
  }
  // Several dimensions (dates with a total or completed_since count as one): each one's count,
  // then the smallest drives: its matches are read once for the count and once for the page.
  const drivers: (Dim | null)[] = [...dims, ...(dated ? [null] : [])];
  const undated = { ...q, from: null, to: null };
  const countOf = (d: Dim | null): SQL => {
    if (d === null) return createdCount(q);
    // A one- or two-character search has no index to count from: it never drives (its bound is the account).
    if (d.kind === "short") return allOrders(q);
    return counted(undated, d) ?? sql`(SELECT count(*) FROM (SELECT DISTINCT id FROM (${candidates(undated, d)})))`;
  };
  const counts = sql`SELECT ${sql.join(drivers.map((d) => sql`(${countOf(d)})`), sql`, `)}`;
  return {
    kind: "combined",
    counts,
    choose: (values) => {
      const best = values.indexOf(Math.min(...values));
      const driver = drivers[best];
      const matching = matchingFrom(q, driver, dims.filter((d) => d !== driver));
      return {
        count: sql`(SELECT count(*) ${matching})`,
        page: (w) => sql`SELECT o.created_at, o.id ${matching} ${orderBy(w, sql`o.`)} ${limit(w)}`,
        matching,
      };
    },
  };
}
