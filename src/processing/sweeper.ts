// The cron sweeper: nothing a client sent is lost between the 200 answer and the pipeline.
import { and, asc, eq, isNull, lt, or } from "drizzle-orm";
import { createDb } from "../db";
import { dispatches, orders } from "../db/schema";
import type { Bindings } from "../env";
import { isoMicro } from "../lib/time";
import { enqueue } from "./messages";

// Orders younger than this are normally still on their way through the queue.
const GRACE_MS = 2 * 60 * 1000;
const SWEEP_LIMIT = 1000;

/** Returns the ids of the orders it re-queued. */
export async function sweepUnroutedOrders(env: Bindings, now = new Date()): Promise<number[]> {
  const db = createDb(env.DB);
  const rows = await db
    .select({ id: orders.id })
    .from(orders)
    .where(and(isNull(orders.routedAt), lt(orders.createdAt, isoMicro(new Date(now.getTime() - GRACE_MS)))))
    .orderBy(asc(orders.createdAt))
    .limit(SWEEP_LIMIT);
  await enqueue(env, rows.map((r) => ({ type: "route_order" as const, orderId: r.id })));
  return rows.map((r) => r.id);
}

// A queued dispatch untouched this long has lost its message (the longest backoff is an hour).
const DISPATCH_STALE_MS = 65 * 60 * 1000;

/** Re-queues dispatches whose message was lost, and sends whose lease expired mid-attempt. */
export async function sweepStuckDispatches(env: Bindings, now = new Date()): Promise<number> {
  const db = createDb(env.DB);
  const rows = await db
    .select({ id: dispatches.id })
    .from(dispatches)
    .where(
      or(
        and(eq(dispatches.status, "queued"), lt(dispatches.updatedAt, isoMicro(new Date(now.getTime() - DISPATCH_STALE_MS)))),
        and(eq(dispatches.status, "sending"), lt(dispatches.leaseUntil, isoMicro(now))),
      ),
    )
    .limit(SWEEP_LIMIT);
  await enqueue(env, rows.map((r) => ({ type: "send_dispatch" as const, dispatchId: r.id })));
  return rows.length;
}
