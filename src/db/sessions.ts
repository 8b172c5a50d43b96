// D1 read replication through the Sessions API: where each request's statements may read.
//
// - A write request (POST, PUT, PATCH, DELETE) runs in a session that starts at the primary
//   (`first-primary`): its checks (idempotency, states, uniqueness) read what is current, and its
//   writes go to the primary anyway.
// - A read request (GET, HEAD, OPTIONS) starts from the client's bookmark (the `x-d1-bookmark`
//   header it got on an earlier answer: a replica at least that fresh, so it reads its own
//   writes), or anywhere (`first-unconstrained`: the nearest replica) without one.
// - Credentials (API keys, supplier keys, console sessions) are always read in a session of their
//   own that starts at the primary: a revoked key or an ended session is refused at once, whatever
//   bookmark the request carries and however far a replica lags. On a write request that is the
//   request's own session (already at the primary), so no request pays a second session's trip.
// - The queue consumer, the cron and everything else off the request path use the binding without
//   a session: D1 runs all of those statements on the primary.
// Every answer carries the newest bookmark the request saw (bookmarks sort lexicographically).
import { createDb, type D1Client, type Db } from "./index";

export const BOOKMARK_HEADER = "x-d1-bookmark";

// D1's bookmarks: four dash-separated hex groups (e.g. 0000004a-00000003-00005089-6ea4c1f8…).
// Anything else a client sends is ignored rather than refused: a bookmark is a freshness hint, and
// a stale or mangled one must not cost a plugin its request. Capped so no header grows a session.
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8,64}$/;

/** A client's bookmark if it has D1's shape; undefined otherwise. */
export function parseBookmark(value: string | undefined | null): string | undefined {
  const trimmed = value?.trim();
  return trimmed && BOOKMARK.test(trimmed) ? trimmed : undefined;
}

/** The later of two bookmarks (they sort oldest to newest). */
export function laterBookmark(a: string | null | undefined, b: string | null | undefined): string | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return a > b ? a : b;
}

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

export type RequestDatabase = {
  /** The request's own session: everything its handler reads and writes. */
  db: Db;
  /** A session that starts at the primary, for credentials (the request's own on a write). */
  primary: Db;
  /** The newest bookmark either session has seen (null while neither ran a statement). */
  bookmark(): string | null;
};

/**
 * Opens a request's sessions on a D1 binding. `view` wraps each session before Drizzle gets it
 * (the benchmark's metering, src/db/metrics.ts).
 */
export function openRequestDatabase(
  d1: D1Database,
  method: string,
  clientBookmark: string | undefined,
  view: (client: D1Client) => D1Client = (client) => client,
): RequestDatabase {
  const write = !READS.has(method.toUpperCase());
  const main = d1.withSession(write ? "first-primary" : (clientBookmark ?? "first-unconstrained"));
  const credentials = write ? main : d1.withSession("first-primary");
  const db = createDb(view(main));
  const primary = write ? db : createDb(view(credentials));
  return {
    db,
    primary,
    bookmark: () => laterBookmark(main.getBookmark(), write ? null : credentials.getBookmark()),
  };
}
