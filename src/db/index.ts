// Database access: one Drizzle instance per D1 binding, and helpers that respect D1's limits.
import { getTableColumns, SQL, type Table } from "drizzle-orm";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import * as schema from "./schema";

export type Db = DrizzleD1Database<typeof schema> & { $client: D1Database };

const instances = new WeakMap<D1Database, Db>();

export function createDb(d1: D1Database): Db {
  let db = instances.get(d1);
  if (!db) {
    db = drizzle(d1, { schema });
    instances.set(d1, db);
  }
  return db;
}

/** D1 allows at most 100 bound parameters per statement. */
export const D1_MAX_PARAMS = 100;

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
  return db.$client.prepare(built.sql).bind(...built.params);
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

/** Runs Drizzle-built queries as one raw D1 batch (one round trip); each statement's rows as D1 returns them. */
export async function rawBatch(db: Db, queries: { toSQL(): { sql: string; params: unknown[] } }[]): Promise<Row[][]> {
  const results = await db.$client.batch<Row>(queries.map((q) => toStatement(db, q)));
  return results.map((r) => r.results);
}
