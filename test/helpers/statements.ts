// Counting what a service costs D1 (statements and round trips do not swing with the machine's
// load) and checking that none of its statements reads a whole table.
import { env } from "cloudflare:workers";
import { withD1Metrics, newD1Metrics, type D1Metrics } from "../../src/db/metrics";

export type Captured = { sql: string; params: unknown[] };

/** Runs fn (on a db over meteredD1(env.DB)) and returns its result with the D1 work it did. */
export async function metered<T>(fn: () => Promise<T>): Promise<{ result: T; metrics: D1Metrics & { statements: Captured[] } }> {
  const metrics = { ...newD1Metrics(), statements: [] as Captured[] };
  const result = await withD1Metrics(metrics, fn);
  return { result, metrics };
}

/** The order pipeline's tables, which grow with every order. */
const PIPELINE_TABLES = ["order_line_logs", "order_lines", "orders", "dispatches", "events", "shipments", "products", "accounts", "cancellations", "cancellation_lines"];

/**
 * Plan lines that read a whole table (or a whole index of it) among the pipeline's tables and
 * `more`. (Inserting an event plans a scan of webhook_deliveries for its foreign key, which SQLite
 * skips at run time unless a deferred violation is outstanding: that table is checked where asked.)
 */
export async function fullScans(statements: Captured[], more: string[] = []): Promise<string[]> {
  const found: string[] = [];
  const scan = new RegExp(`^SCAN (${[...PIPELINE_TABLES, ...more].join("|")})\\b`);
  for (const s of statements) {
    if (!/^\s*(SELECT|UPDATE|INSERT|DELETE|WITH)/i.test(s.sql)) continue;
    for (const detail of await planOf(s)) {
      if (scan.test(detail)) found.push(`${detail}  <-  ${s.sql.replace(/\s+/g, " ").slice(0, 160)}`);
    }
  }
  return found;
}

/** The EXPLAIN QUERY PLAN lines of a captured statement. */
export async function planOf(s: Captured): Promise<string[]> {
  const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${s.sql}`).bind(...s.params).all<{ detail: string }>();
  return plan.results.map((r) => r.detail);
}
