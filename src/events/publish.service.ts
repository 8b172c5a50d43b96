// Publishing: the outbox's unpublished events become one delivery per matching active subscription
// and the shop write-backs they call for (src/shops/write-backs.ts), and every one a queue message. Safe to run anywhere and any number of times at once: the
// unique (subscription_id, event_id) index keeps one delivery per pair, and only the run that
// created a delivery announces it. The cron re-announces deliveries whose message got lost.
import { sql } from "drizzle-orm";
import { notMoving } from "../db/moving";
import { createDb, toStatement, type Db } from "../db";
import type { Bindings } from "../env";
import { isoMicro } from "../lib/time";
import type { Pipeline, PipelineMessage } from "../lib/queue";
import { stuckWriteBacks, writeBackMessages, writeBacksFromEvents, writeBacksToSend } from "../shops/write-backs";

/** Events per publish run: keeps one run's batch and its messages small. */
export const PUBLISH_PAGE = 100;
/** The cron publishes at most this many pages itself, then hands the rest to the queue. */
const CRON_PAGES = 20;
/** A pending delivery whose message has not run this long after it was due is assumed lost. */
export const REKICK_GRACE_MS = 2 * 60 * 1000;
/** The cron runs every minute (wrangler.toml). */
const CRON_PERIOD_MS = 60 * 1000;
/**
 * The cron's safety net looks at this many of the newest deliveries, so its cost stays flat as the
 * table grows (it reads the pending and delivering ones through webhook_deliveries_status_idx).
 * Older deliveries are covered by the queue itself: a failed retry send or a crash mid-send makes
 * the queue redeliver the message.
 */
const REKICK_WINDOW = 10_000;

const deliverMessages = (ids: number[]): PipelineMessage[] => ids.map((deliveryId) => ({ type: "deliver_webhook", deliveryId }));

/**
 * One page of unpublished events -> deliveries (created and the events marked in one transaction),
 * then one message per delivery this run created. Concurrent runs create each delivery once, so
 * they announce it once; if the announcement fails, the delivery waits in D1 for the cron.
 */
export async function publishEvents(db: Db, pipeline: Pipeline): Promise<{ events: number; deliveries: number; writeBacks: number }> {
  const now = isoMicro();
  // The same page in both statements: a D1 batch is one transaction, and inserting deliveries
  // does not change which events are unpublished.
  // A moving account's events wait: its rows refuse writes (src/db/moving.ts); published where it lands.
  const page = sql`SELECT id FROM events WHERE published_at IS NULL AND ${notMoving("account_id")} ORDER BY created_at, id LIMIT ${PUBLISH_PAGE}`;
  const [created, , writeBacks, marked] = await db.$client.batch<{ id: number }>(
    [
      sql`INSERT INTO webhook_deliveries (account_id, subscription_id, event_id, status, attempts, created_at, updated_at)
        SELECT e.account_id, s.id, e.id, 'pending', 0, ${now}, ${now}
        FROM events e JOIN webhook_subscriptions s ON s.account_id = e.account_id AND s.active = 1
        WHERE e.id IN (${page}) AND EXISTS (SELECT 1 FROM json_each(s.events) j WHERE j.value = e.type)
        ORDER BY e.created_at, e.id, s.id
        ON CONFLICT DO NOTHING
        RETURNING id`,
      writeBacksFromEvents(page, now),
      writeBacksToSend(page),
      sql`UPDATE events SET published_at = ${now} WHERE id IN (${page})`,
    ].map((q) => toStatement(db, q)),
  );
  const ids = created.results.map((r) => r.id);
  const writeBackIds = writeBacks.results.map((r) => r.id);
  try {
    await pipeline.send([...deliverMessages(ids), ...writeBackMessages(writeBackIds)]);
  } catch (error) {
    console.error(JSON.stringify({ level: "warn", event: "webhook_enqueue_failed", deliveries: ids, writeBacks: writeBackIds, error: String(error) }));
  }
  return { events: marked.meta.changes ?? 0, deliveries: ids.length, writeBacks: writeBackIds.length };
}

/**
 * Gets events out promptly after a state-changing request, without waiting for a queue hop: one
 * indexed read, and a publish run only when something waits. Never throws (the cron publishes
 * whatever this misses).
 */
export async function notifyEvents(env: Bindings, pipeline: Pipeline): Promise<void> {
  try {
    const waiting = await env.DB.prepare("SELECT 1 AS waiting FROM events WHERE published_at IS NULL LIMIT 1").first();
    if (waiting) await publishAndContinue(createDb(env.DB), pipeline);
  } catch (error) {
    console.error(JSON.stringify({ level: "warn", event: "notify_events_failed", error: String(error) }));
  }
}

/** One page now, and a publish_events message for the rest while pages come back full. */
export async function publishAndContinue(db: Db, pipeline: Pipeline): Promise<void> {
  const { events } = await publishEvents(db, pipeline);
  if (events === PUBLISH_PAGE) await pipeline.send([{ type: "publish_events" }]);
}

const EVENT_MESSAGES = new Set<PipelineMessage["type"]>(["publish_events", "deliver_webhook", "write_back"]);

/**
 * After a consumer batch that did pipeline work (which writes events in its batches): publish at
 * once instead of waiting for the cron. Never throws.
 */
export async function publishAfterPipeline(env: Bindings, pipeline: Pipeline, bodies: PipelineMessage[]): Promise<void> {
  if (bodies.some((b) => !EVENT_MESSAGES.has(b.type))) await notifyEvents(env, pipeline);
}

/**
 * The cron: publishes what is left (a lost publish message delays an event, never loses it) and
 * re-sends the messages of deliveries and shop write-backs that are overdue (message lost, or a
 * connection resumed after a pause) or whose lease ran out (a Worker died mid-send).
 */
export async function sweepEvents(env: Bindings, pipeline: Pipeline, now = new Date()): Promise<{ published: number; rekicked: number; writeBacksRekicked: number }> {
  const db = createDb(env.DB);
  let published = 0;
  for (let i = 0; i < CRON_PAGES; i++) {
    const { events } = await publishEvents(db, pipeline);
    published += events;
    if (events < PUBLISH_PAGE) break;
    if (i === CRON_PAGES - 1) await pipeline.send([{ type: "publish_events" }]);
  }
  const nowIso = isoMicro(now);
  const overdue = isoMicro(new Date(now.getTime() - REKICK_GRACE_MS));
  const stuck = await db.$client
    .prepare(
      `SELECT d.id FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id AND s.active = 1
       WHERE d.id > (SELECT coalesce(max(id), 0) FROM webhook_deliveries) - ?1
         AND ((d.status = 'pending' AND coalesce(d.lease_until, d.updated_at) < ?2)
           OR (d.status = 'delivering' AND d.lease_until < ?3))
       ORDER BY d.id`,
    )
    .bind(REKICK_WINDOW, overdue, nowIso)
    .all<{ id: number }>();
  const ids = stuck.results.map((r) => r.id);
  const nextRun = isoMicro(new Date(now.getTime() + CRON_PERIOD_MS));
  const stuckBacks = await toStatement(db, stuckWriteBacks(overdue, nextRun, REKICK_WINDOW)).all<{ id: number; lease_until: string | null }>();
  const writeBackIds = stuckBacks.results.map((r) => r.id);
  const leaseEnds = (r: { lease_until: string | null }) => (r.lease_until ? Math.ceil((Date.parse(r.lease_until) - now.getTime()) / 1000) : 0);
  await pipeline.send([...deliverMessages(ids), ...writeBackMessages(stuckBacks.results.filter((r) => leaseEnds(r) <= 0).map((r) => r.id))]);
  // A lease that ends before the next run: its message held until the lease ends (a live attempt
  // renews its lease and the message finds it taken; a dead one's write-back is taken over then).
  for (const r of stuckBacks.results.filter((r) => leaseEnds(r) > 0)) await pipeline.send(writeBackMessages([r.id]), leaseEnds(r) + 1);
  return { published, rekicked: ids.length, writeBacksRekicked: writeBackIds.length };
}
