// Database access: one Drizzle instance per D1 binding, and helpers that respect D1's limits.
import { getTableColumns, sql, SQL, type Table } from "drizzle-orm";
import { createTableRelationsHelpers, extractTablesRelationalConfig, type ExtractTablesWithRelations } from "drizzle-orm";
import { DrizzleD1Database, SQLiteD1Session } from "drizzle-orm/d1";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import * as schema from "./schema";

/**
 * What a Db runs its statements on: a D1 binding (every statement on the primary) or one of its
 * D1 sessions (read replication, src/db/sessions.ts). Drizzle's D1 driver only calls prepare and
 * batch, which both have.
 */
export type D1Client = D1Database | D1DatabaseSession;

export type Db = DrizzleD1Database<typeof schema> & { $client: D1Client };

const instances = new WeakMap<D1Client, Db>();

// The schema's relational config, worked out once per isolate: drizzle() redoes it on every call,
// which is ten times the cost of the rest and would be paid twice per request (one Db per session).
const relational = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
type Relations = ExtractTablesWithRelations<typeof schema>;
const schemaConfig = { fullSchema: schema, schema: relational.tables as Relations, tableNamesMap: relational.tableNamesMap };
const drizzleDialect = new SQLiteAsyncDialect();

export function createDb(d1: D1Client): Db {
  let db = instances.get(d1);
  if (!db) {
    const client = guardedD1(d1);
    // What drizzle(client, { schema }) builds, on the config computed above.
    const session = new SQLiteD1Session<typeof schema, Relations>(client as D1Database, drizzleDialect, schemaConfig, {});
    db = Object.assign(new DrizzleD1Database<typeof schema>("async", drizzleDialect, session, schemaConfig), { $client: client });
    instances.set(d1, db);
  }
  return db;
}

/** D1 allows at most 100 bound parameters per statement. */
export const D1_MAX_PARAMS = 100;

/**
 * A statement that binds more parameters than D1 accepts. Thrown before the statement reaches D1,
 * always (not only in tests), naming the statement: a set of ids must travel as one JSON parameter
 * (`IN (SELECT value FROM json_each(?))`), never one parameter per element.
 */
export class TooManyParametersError extends Error {
  constructor(readonly count: number, sqlText: string) {
    super(
      `A statement binds ${count} parameters; D1 accepts at most ${D1_MAX_PARAMS}. Pass sets as one JSON parameter (json_each). Statement: ${sqlText.replace(/\s+/g, " ").slice(0, 200)}`,
    );
    this.name = "TooManyParametersError";
  }
}

export function checkParamCount(sqlText: string, count: number): void {
  if (count > D1_MAX_PARAMS) throw new TooManyParametersError(count, sqlText);
}

/**
 * D1 counts every statement of a batch against the queries one Worker invocation may run (1,000 on
 * the paid plan): a bigger batch can never succeed in production, even where local D1 runs it.
 * Work on many rows is set-based instead (one statement over a JSON parameter).
 */
export const D1_MAX_QUERIES_PER_INVOCATION = 1000;

export class TooManyStatementsError extends Error {
  constructor(readonly count: number) {
    super(`A batch of ${count} statements; D1 runs at most ${D1_MAX_QUERIES_PER_INVOCATION} queries per Worker invocation. Write sets in one statement (json_each).`);
    this.name = "TooManyStatementsError";
  }
}

/**
 * Every statement prepared through this view (Drizzle's query builder, toStatement, raw prepare on
 * db.$client) checks its parameter count when it is bound, and every batch its size. The statement
 * stays D1's own object (only its bind is wrapped), so batch() takes it as before.
 */
function guardedD1<C extends D1Client>(d1: C): C {
  const prepare = (query: string) => {
    const stmt = d1.prepare(query);
    const bind = stmt.bind;
    stmt.bind = (...values: unknown[]) => {
      checkParamCount(query, values.length);
      return bind.apply(stmt, values);
    };
    return stmt;
  };
  const batch = async <T>(statements: D1PreparedStatement[]) => {
    if (statements.length > D1_MAX_QUERIES_PER_INVOCATION) throw new TooManyStatementsError(statements.length);
    return d1.batch<T>(statements);
  };
  return new Proxy(d1, {
    get(target, prop) {
      if (prop === "prepare") return prepare;
      if (prop === "batch") return batch;
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Splits rows so that each multi-row statement stays within D1's bound-parameter limit. */
export function chunkForParams<T>(rows: T[], paramsPerRow: number, reserved = 0): T[][] {
  const size = Math.max(1, Math.floor((D1_MAX_PARAMS - reserved) / paramsPerRow));
  const chunks: T[][] = [];
  for (let i = 0; i < rows.length; i += size) chunks.push(rows.slice(i, i + size));
  return chunks;
}

const dialect = new SQLiteAsyncDialect();

/** A D1 statement from a Drizzle query builder or a raw sql`` template. */
export function toStatement(db: Db, query: SQL | { toSQL(): { sql: string; params: unknown[] } }): D1PreparedStatement {
  const built = query instanceof SQL ? dialect.sqlToQuery(query) : query.toSQL();
  checkParamCount(built.sql, built.params.length);
  return db.$client.prepare(built.sql).bind(...built.params);
}

/** Runs statements as one D1 batch (one transaction, one round trip); nothing when there are none. */
export async function runBatch(db: Db, statements: SQL[]): Promise<D1Result[]> {
  if (statements.length === 0) return [];
  return db.$client.batch(statements.map((s) => toStatement(db, s)));
}

/**
 * Maps D1's rows (objects keyed by column name) to a table's row type. Built once per table and
 * isolate: Drizzle's own mapping checks every field's class on every row, which was the largest
 * share of a list page's CPU time (bench/RESULTS.md).
 */
export function rowMapper<T extends Table>(table: T): (row: Row) => T["$inferSelect"] {
  const columns = Object.entries(getTableColumns(table)).map(([key, column]) => ({
    key,
    name: column.name,
    decode: column.mapFromDriverValue.bind(column) as (value: unknown) => unknown,
  }));
  return (row) => {
    const out: Record<string, unknown> = {};
    for (const { key, name, decode } of columns) {
      const value = row[name];
      out[key] = value === null || value === undefined ? null : decode(value);
    }
    return out as T["$inferSelect"];
  };
}

export type Row = Record<string, unknown>;

/** Runs Drizzle-built queries or sql`` statements as one raw D1 batch (one round trip); each statement's rows as D1 returns them. */
export async function rawBatch(db: Db, queries: (SQL | { toSQL(): { sql: string; params: unknown[] } })[]): Promise<Row[][]> {
  const results = await db.$client.batch<Row>(queries.map((q) => toStatement(db, q)));
  return results.map((r) => r.results);
}

/** A set of values as one bound parameter, for `IN (SELECT value FROM json_each(?))` and joins. */
export function jsonParam(values: readonly unknown[]): string {
  return JSON.stringify(values);
}

/**
 * `alias.account_id = accountId` for rows read by their ids (`alias.id IN (...)`), which the ids'
 * primary key must drive. Written `+alias.account_id`: the unary plus keeps SQLite from using the
 * term for an index. Without statistics (D1 runs no ANALYZE) the planner rates an equality on an
 * indexed column above an IN list of unknown length, and would read every row of the account
 * through its (account_id, ...) index to keep the few asked for.
 */
export function ofAccount(alias: string, accountId: number): SQL {
  return sql`+${sql.raw(alias)}.account_id = ${accountId}`;
}

/**
 * `json_object(...)` of every column of `table` under `alias`: rows packed into one value of another
 * statement's row (`json_group_array`), so that one statement reads a row with its children. Read
 * back with JSON.parse and rowMapper (the values are the column's stored ones).
 */
export function jsonRow(table: Table, alias: string): SQL {
  const pairs = Object.values(getTableColumns(table)).map((c) => `'${c.name}', ${alias}.${c.name}`);
  return sql.raw(`json_object(${pairs.join(", ")})`);
}
