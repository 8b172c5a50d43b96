// Opt-in D1 metering for the benchmark (BENCH_METRICS=1): counts the statements each request runs
// and sums D1's meta.rows_read and meta.rows_written, answered in X-D1-* headers. Off, nothing here runs at all.
// One metered binding per D1 binding (so createDb's per-binding Drizzle cache still holds) and the
// counters of the current request in an AsyncLocalStorage, so concurrent requests never mix.
import { AsyncLocalStorage } from "node:async_hooks";
import type { D1Client } from "./index";

export type D1Metrics = {
  /** Statements run: each one of a batch counts. */
  queries: number;
  /** batch() calls and single-statement calls: the round trips to the database. */
  roundTrips: number;
  /** Sum of meta.rows_read over the statements that report it. */
  rowsRead: number;
  /** Sum of meta.rows_written: rows, index entries and what triggers write, as D1 bills them. */
  rowsWritten: number;
  /** Sum of meta.duration (ms spent in the database) over the statements that report it. */
  durationMs: number;
  /** Statements run through raw() or first(), whose result carries no meta (no rows_read). */
  unmetered: number;
  /**
   * When set, every statement's SQL and parameters (for the benchmark's EXPLAIN QUERY PLAN check),
   * with its own rows read and written where D1 reports them (which statement of many reads a lot).
   */
  statements?: { sql: string; params: unknown[]; rowsRead?: number; rowsWritten?: number }[];
  /**
   * The directory's share (binding DIRECTORY: which shard holds the account), counted apart from
   * the shard's statements above: a request's work on its shard against its shard lookups. (Its
   * lookups run through first(), which reports no rows read.)
   */
  directory: { queries: number; roundTrips: number };
};

/** Which database a metered binding is: a shard (the counters above) or the directory (its own). */
export type MeteredKind = "shard" | "directory";

const current = new AsyncLocalStorage<D1Metrics>();
const metered = new WeakMap<D1Client, D1Client>();
const innerOf = new WeakMap<object, D1PreparedStatement>();

export function newD1Metrics(): D1Metrics {
  return { queries: 0, roundTrips: 0, rowsRead: 0, rowsWritten: 0, durationMs: 0, unmetered: 0, directory: { queries: 0, roundTrips: 0 } };
}

/** Runs fn with metrics collecting into m for every statement of a metered binding. */
export function withD1Metrics<T>(m: D1Metrics, fn: () => T): T {
  return current.run(m, fn);
}

type Text = { sql: string; params: unknown[] };
const textOf = new WeakMap<object, Text>();

function record(
  kind: MeteredKind,
  statements: number,
  results: { meta?: { rows_read?: number; rows_written?: number; duration?: number } }[] | null,
  texts: (Text | undefined)[],
) {
  const m = current.getStore();
  if (!m) return;
  if (kind === "directory") {
    m.directory.roundTrips += 1;
    m.directory.queries += statements;
    return;
  }
  if (m.statements) {
    texts.forEach((t, i) => {
      const meta = results?.[i]?.meta;
      if (t) m.statements!.push(meta ? { ...t, rowsRead: meta.rows_read, rowsWritten: meta.rows_written } : t);
    });
  }
  m.roundTrips += 1;
  m.queries += statements;
  if (!results) m.unmetered += statements;
  else {
    for (const r of results) {
      m.rowsRead += r.meta?.rows_read ?? 0;
      m.rowsWritten += r.meta?.rows_written ?? 0;
      m.durationMs += r.meta?.duration ?? 0;
    }
  }
}

function wrapStatement(kind: MeteredKind, inner: D1PreparedStatement, text: Text): D1PreparedStatement {
  const stmt = {
    bind: (...values: unknown[]) => wrapStatement(kind, inner.bind(...values), { sql: text.sql, params: values }),
    all: async () => {
      const r = await inner.all();
      record(kind, 1, [r], [text]);
      return r;
    },
    run: async () => {
      const r = await inner.run();
      record(kind, 1, [r], [text]);
      return r;
    },
    first: async (col?: string) => {
      const r = col === undefined ? await inner.first() : await inner.first(col);
      record(kind, 1, null, [text]);
      return r;
    },
    raw: async (options?: { columnNames?: boolean }) => {
      const r = await inner.raw(options as { columnNames: true });
      record(kind, 1, null, [text]);
      return r;
    },
  } as unknown as D1PreparedStatement;
  innerOf.set(stmt, inner);
  textOf.set(stmt, text);
  return stmt;
}

/** The metered view of a D1 binding or session (cached, so Drizzle instances built on it are reused). */
export function meteredD1<C extends D1Client>(d1: C, kind: MeteredKind = "shard"): C {
  let view = metered.get(d1);
  if (!view) {
    const prepare = (query: string) => wrapStatement(kind, d1.prepare(query), { sql: query, params: [] });
    const batch = async <T>(statements: D1PreparedStatement[]) => {
      const results = await d1.batch<T>(statements.map((s) => innerOf.get(s) ?? s));
      record(kind, statements.length, results, statements.map((s) => textOf.get(s)));
      return results;
    };
    // Everything else (withSession, getBookmark, exec) is the binding's or the session's own.
    view = new Proxy(d1, {
      get(target, prop) {
        if (prop === "prepare") return prepare;
        if (prop === "batch") return batch;
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    metered.set(d1, view);
  }
  return view as C;
}

const meteredEnvs = new WeakMap<object, object>();

/**
 * env with its DIRECTORY binding metered (its statements counted apart, in `directory`): the same
 * object for the same env, so what is cached per env (a shard's view of it) stays cached.
 */
export function withMeteredDirectory<E extends { DIRECTORY: D1Database }>(env: E): E {
  let view = meteredEnvs.get(env) as E | undefined;
  if (!view) {
    view = { ...env, DIRECTORY: meteredD1(env.DIRECTORY, "directory") };
    meteredEnvs.set(env, view);
  }
  return view;
}

/**
 * Benchmark runs: runs fn with fresh counters and logs them as one "bench:pipeline {json}" line
 * (bench/run.mjs reads these from the Worker's output), `type` naming the work; otherwise just fn.
 */
export async function meteredWork<T>(bench: boolean, type: string, messages: number, fn: () => Promise<T>): Promise<T> {
  if (!bench) return fn();
  const metrics: D1Metrics = { ...newD1Metrics(), statements: [] };
  const result = await withD1Metrics(metrics, fn);
  console.warn(`bench:pipeline ${JSON.stringify({ type, messages, ...metrics })}`);
  return result;
}
