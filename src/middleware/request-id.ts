import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { newD1Metrics, withD1Metrics, withMeteredDirectory } from "../db/metrics";
import { BOOKMARK_HEADER, laterBookmark, parseBookmark } from "../db/sessions";
import { useShard } from "../shards/request";
import type { Context } from "hono";

/**
 * Where a browser keeps its D1 bookmark, so its pages read their own writes after a redirect: the
 * console passes its cookie in (src/console/cookies.ts), as this middleware knows neither face.
 */
export type BookmarkCookie = {
  /** Whether the request is one of that face's. */
  applies(c: Context<AppEnv>): boolean;
  read(c: Context<AppEnv>): string | undefined;
  write(c: Context<AppEnv>, bookmark: string): void;
};

/**
 * Gives every request an id (echoed as X-Request-Id, used in server logs), its D1 sessions (the
 * db and the primary for credentials, src/db/sessions.ts) and the pipeline; answers the newest
 * D1 bookmark in x-d1-bookmark (a browser in the console gets it as a cookie too).
 */
export const requestContext = (bookmarkCookie?: BookmarkCookie) => createMiddleware<AppEnv>(async (c, next) => {
  const incoming = c.req.header("x-request-id");
  const id = incoming && /^[\w.-]{1,64}$/.test(incoming) ? incoming : crypto.randomUUID();
  c.set("requestId", id);
  const cookie = bookmarkCookie?.applies(c) ? bookmarkCookie : undefined;
  const cookieBookmark = cookie ? parseBookmark(cookie.read(c)) : undefined;
  const given = parseBookmark(c.req.header(BOOKMARK_HEADER)) ?? cookieBookmark;
  const bench = c.env.BENCH_METRICS === "1";
  c.set("bookmark", given);
  // Benchmark runs count the directory's statements too, apart from the shard's.
  if (bench) c.env = withMeteredDirectory(c.env);
  // Shard 0 until authentication finds the account's shard (src/shards/request.ts).
  useShard(c, 0);
  if (bench) {
    // Benchmark runs only: count this request's D1 statements, rows read and written (see db/metrics.ts).
    const metrics = newD1Metrics();
    const capture = c.req.header("x-bench-capture-sql") === "1";
    if (capture) metrics.statements = [];
    await withD1Metrics(metrics, next);
    c.header("X-D1-Queries", String(metrics.queries));
    c.header("X-D1-Round-Trips", String(metrics.roundTrips));
    c.header("X-D1-Rows-Read", String(metrics.rowsRead));
    c.header("X-D1-Rows-Written", String(metrics.rowsWritten));
    c.header("X-D1-Duration-Ms", metrics.durationMs.toFixed(2));
    c.header("X-D1-Unmetered", String(metrics.unmetered));
    c.header("X-D1-Directory-Queries", String(metrics.directory.queries));
    if (metrics.statements) {
      // The request's statements instead of its answer (the bench explains them): a list's SQL can
      // outgrow what a header may carry.
      c.res = new Response(JSON.stringify(metrics.statements), { status: c.res.status, headers: c.res.headers });
      c.header("Content-Type", "application/json");
    }
  } else {
    await next();
  }
  c.header("X-Request-Id", id);
  // A request that read nothing leaves the client where it was (its own bookmark, or none yet).
  const bookmark = laterBookmark(c.get("database").bookmark(), given) ?? "";
  c.header(BOOKMARK_HEADER, bookmark);
  if (cookie && bookmark && bookmark !== cookieBookmark) cookie.write(c, bookmark);
});
