// Database access: one Drizzle instance per D1 binding, and helpers that respect D1's limits.
import { SQL } from "drizzle-orm";
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
