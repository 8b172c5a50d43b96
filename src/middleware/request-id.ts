import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { createDb } from "../db";
import { meteredD1, newD1Metrics, withD1Metrics } from "../db/metrics";
import { pipelineFor } from "../lib/queue";

/** Gives every request an id (echoed as X-Request-Id, used in server logs), the database and the pipeline. */
export const requestContext = createMiddleware<AppEnv>(async (c, next) => {
  const incoming = c.req.header("x-request-id");
  const id = incoming && /^[\w.-]{1,64}$/.test(incoming) ? incoming : crypto.randomUUID();
  c.set("requestId", id);
  c.set("pipeline", pipelineFor(c.env, (promise) => c.executionCtx.waitUntil(promise)));
  if (c.env.BENCH_METRICS === "1") {
    // Benchmark runs only: count this request's D1 statements, rows read and written (see db/metrics.ts).
    const metrics = newD1Metrics();
    const capture = c.req.header("x-bench-capture-sql") === "1";
    if (capture) metrics.statements = [];
    c.set("db", createDb(meteredD1(c.env.DB)));
    await withD1Metrics(metrics, next);
    c.header("X-D1-Queries", String(metrics.queries));
    c.header("X-D1-Round-Trips", String(metrics.roundTrips));
    c.header("X-D1-Rows-Read", String(metrics.rowsRead));
    c.header("X-D1-Rows-Written", String(metrics.rowsWritten));
    c.header("X-D1-Duration-Ms", metrics.durationMs.toFixed(2));
    c.header("X-D1-Unmetered", String(metrics.unmetered));
    if (metrics.statements) {
      // The request's statements instead of its answer (the bench explains them): a list's SQL can
      // outgrow what a header may carry.
      c.res = new Response(JSON.stringify(metrics.statements), { status: c.res.status, headers: c.res.headers });
      c.header("Content-Type", "application/json");
    }
  } else {
    c.set("db", createDb(c.env.DB));
    await next();
  }
  c.header("X-Request-Id", id);
});
