// The cron sweeper: nothing a client sent is lost between the 200 answer and the pipeline. Every
// piece of work the pipeline owes is a durable mark in D1 (an order with routed_at null, a queued
// or leased dispatch, an account's rematch request); the sweeper re-queues what has waited too long.
import { sql } from "drizzle-orm";
import { notMoving } from "../db/moving";
import { createDb, runBatch } from "../db";
import type { Bindings } from "../env";
import { isoMicro } from "../lib/time";
import { OUTBOUND_JOBS } from "../lib/outbound-job";
import { enqueue } from "../lib/queue";
import { fireDeadlines } from "../forwarding/deadlines";

// Work younger than this is normally still on its way through the queue (the consumer keeps pace
// with creates: a message waits seconds, bench/RESULTS.md). With the cron every minute, an order
// whose message was lost (a crash between the answer and the queue) is re-queued at most
// 25 + 60 = 85 seconds after it was created or the Worker came back, whichever is later
// (docs/operations.md, "After a crash").
const GRACE_MS = 25 * 1000;
// Orders re-queued per shard and run; past it, the rest go at the next run, a minute later.
const SWEEP_LIMIT = 1000;

const ids = (rows: unknown[]) => (rows as { id: number }[]).map((r) => r.id);

/**
 * Re-queues orders the pipeline owes work (routed_at null: never routed, or handed back by an
 * unblock, retry, match or replay) for longer than the grace period, and restarts their grace
 * period (the next sweep waits for this message). The wait counts as a failed routing attempt
 * (the queue gave up on it, or lost it). Parked orders are left to the operator.
 * Returns the ids it re-queued.
 */
export async function sweepUnroutedOrders(env: Bindings, now = new Date()): Promise<number[]> {
  const db = createDb(env.DB);
  const [swept] = await runBatch(db, [
    sql`UPDATE orders SET route_requested_at = ${isoMicro(now)}, routing_attempts = routing_attempts + 1
        WHERE id IN (SELECT id FROM orders WHERE routed_at IS NULL AND route_requested_at < ${isoMicro(new Date(now.getTime() - GRACE_MS))}
                       AND ${notMoving("account_id")}
                     ORDER BY route_requested_at LIMIT ${SWEEP_LIMIT})
        RETURNING id`,
  ]);
  const orderIds = ids(swept.results);
  await enqueue(env, orderIds.map((orderId) => ({ type: "route_order" as const, orderId })));
  return orderIds;
}

// A queued send untouched this long has lost its message: past the longest backoff (the job's cap,
// the same for dispatches and cancellation requests), and five minutes more.
const DISPATCH_STALE_MS = (OUTBOUND_JOBS.dispatch.capSeconds + 5 * 60) * 1000;

/**
 * Sends (dispatches, cancellation requests: the same lease, src/forwarding/lease.ts) whose message
 * was lost (queued and untouched too long) or whose Worker died mid-attempt (lease ran out): two
 * index ranges of the table ((status, updated_at) and (status, lease_until)), never the table.
 */
async function stuckSends(env: Bindings, table: "dispatches" | "cancellations" | "return_notices", now: Date): Promise<number[]> {
  const name = sql.raw(table);
  const [stuck] = await runBatch(createDb(env.DB), [
    sql`SELECT id FROM ${name} WHERE status = 'queued' AND updated_at < ${isoMicro(new Date(now.getTime() - DISPATCH_STALE_MS))}
        UNION ALL
        SELECT id FROM ${name} WHERE status = 'sending' AND lease_until < ${isoMicro(now)}
        LIMIT ${SWEEP_LIMIT}`,
  ]);
  return ids(stuck.results);
}

/** Re-queues dispatches whose message was lost, and sends whose lease expired mid-attempt; returns their ids. */
export async function sweepStuckDispatches(env: Bindings, now = new Date()): Promise<number[]> {
  const dispatchIds = await stuckSends(env, "dispatches", now);
  await enqueue(env, dispatchIds.map((dispatchId) => ({ type: "send_dispatch" as const, dispatchId })));
  return dispatchIds;
}

/** The same for cancellation requests. */
export async function sweepStuckCancellations(env: Bindings, now = new Date()): Promise<number[]> {
  const cancellationIds = await stuckSends(env, "cancellations", now);
  await enqueue(env, cancellationIds.map((cancellationId) => ({ type: "send_cancellation" as const, cancellationId })));
  return cancellationIds;
}

/** The same for returns' notices to their suppliers (src/returns/notices.service.ts: the same lease and cap). */
export async function sweepStuckReturnNotices(env: Bindings, now = new Date()): Promise<number[]> {
  const noticeIds = await stuckSends(env, "return_notices", now);
  await enqueue(env, noticeIds.map((noticeId) => ({ type: "send_return_notice" as const, noticeId })));
  return noticeIds;
}

/**
 * Fires the supplier deadlines due at `now` (src/forwarding/deadlines.ts), and hands the orders of
 * lines to re-route after a supplier's silence to the pipeline (their mark, routed_at null, is
 * written with the firing: a lost message is the unrouted orders' sweep's case).
 */
export async function sweepDeadlines(env: Bindings, now = new Date()) {
  const fired = await fireDeadlines(createDb(env.DB), now);
  await enqueue(env, fired.rerouteOrders.map((orderId) => ({ type: "route_order" as const, orderId })));
  return fired;
}

/**
 * Re-queues re-matches requested longer ago than the grace period and not finished (their message
 * was lost): under a new request time, which the new message clears when it is done.
 */
export async function sweepRematches(env: Bindings, now = new Date()): Promise<number[]> {
  const db = createDb(env.DB);
  const requestedAt = isoMicro(now);
  const [swept] = await runBatch(db, [
    sql`UPDATE accounts SET rematch_requested_at = ${requestedAt}
        WHERE rematch_requested_at < ${isoMicro(new Date(now.getTime() - GRACE_MS))} AND moving IS NULL
        RETURNING id`,
  ]);
  const accountIds = ids(swept.results);
  await enqueue(env, accountIds.map((accountId) => ({ type: "rematch_account" as const, accountId, requestedAt })));
  return accountIds;
}
