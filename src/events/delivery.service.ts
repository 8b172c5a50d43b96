// Sending one webhook delivery to the shop, at least once and never twice at the same time.
// A delivery is sent only under a lease (status 'delivering' until lease_until), taken with a
// guarded UPDATE, so a redelivered or duplicated queue message finds it taken and stands back.
// Every attempt is recorded; failures are retried with exponential backoff through the queue.
import { urlRefusal } from "../lib/outbound-address";
import { sql } from "drizzle-orm";
import { toStatement, type Db } from "../db";
import type { EventType } from "../db/schema";
import type { Bindings } from "../env";
import { afterFailure, claimStatement, dueAt, heldBy, jobSettings, secondsUntil, Lease, parseRetryAfter, QUEUE_MAX_DELAY_SECONDS, type JobTable } from "../lib/outbound-job";
import { isoMicro } from "../lib/time";
import { SIGNATURE_HEADER, signatureHeader } from "../lib/signature";
import type { Pipeline, PipelineMessage } from "../lib/queue";

export const USER_AGENT = "order-intake-webhooks/1";
/** How much of a failing endpoint's answer is kept in the attempt's error. */
const ERROR_BODY_CHARS = 500;
/**
 * The deliveries' table as the outbound engine (src/lib/outbound-job.ts) sees it: pending (a retry's
 * due time in lease_until), delivering under a lease, parked as failed.
 */
export const DELIVERY_JOB: JobTable = { table: "webhook_deliveries", waiting: "pending", busy: "delivering", parked: "failed", dueIn: "lease_until", touches: true };

/** The document POSTed to the shop; the same bytes on every attempt of an event. */
export function deliveryBody(event: { id: string; type: string; createdAt: string; data: unknown }): string {
  return JSON.stringify({ id: event.id, type: event.type, created_at: event.createdAt, data: event.data });
}

/** Through the queue port, deferred by `delaySeconds` (at most what Cloudflare Queues allows). */
async function sendDelayed(pipeline: Pipeline, body: PipelineMessage, delaySeconds: number): Promise<void> {
  await pipeline.send([body], Math.max(0, Math.min(QUEUE_MAX_DELAY_SECONDS, Math.ceil(delaySeconds))));
}

type ClaimedRow = {
  id: number;
  status: string;
  attempts: number;
  lease_until: string | null;
  active: number;
  url: string;
  secret: string;
  event_id: string;
  type: EventType;
  data: string;
  event_created_at: string;
};

/**
 * A failing delivery (of a query aliasing webhook_deliveries as d): given up, or waiting for a retry
 * after a failed attempt. The shop's "Needs attention" and the operator's pipeline page count the same.
 */
export const FAILING_DELIVERY = sql`(d.status = 'failed' OR (d.status = 'pending' AND d.attempts > 0))`;

/** A failing delivery to the shop's own endpoint, in words: what its answer means and what to do. */
export function explainDeliveryFailure(url: string, statusCode: number | null, error: string | null): string {
  const who = `Your webhook endpoint ${url}`;
  if (statusCode === null) {
    if (error?.startsWith("Not sent")) return `${who} is an address we never send to (${error}): change the webhook's URL.`;
    if (error?.startsWith("Timed out")) return `${who} did not answer in time: it may be down or slow. Once it answers, redeliver from the webhook's page.`;
    return `${who} could not be reached: is it online, and its address right? Once it answers, redeliver from the webhook's page.`;
  }
  if (statusCode === 401 || statusCode === 403) return `${who} refuses our deliveries (HTTP ${statusCode}): it does not accept our signature. Give it the webhook's current signing secret, then redeliver.`;
  if (statusCode === 404 || statusCode === 405 || statusCode === 410) return `${who} refuses our deliveries (HTTP ${statusCode}): nothing there takes them. Check the URL, then redeliver.`;
  if (statusCode === 429) return `${who} asks us to slow down (HTTP 429): we keep trying, more slowly.`;
  if (statusCode >= 500) return `${who} refuses our deliveries (HTTP ${statusCode}): it has an error of its own. Look at its logs; we keep trying, and you can redeliver once it is fixed.`;
  if (statusCode >= 300 && statusCode < 400) return `${who} answered with a redirect (HTTP ${statusCode}), which we do not follow: set its final address.`;
  return `${who} refuses our deliveries (HTTP ${statusCode}): it does not accept them as we send them. Its answer says why.`;
}

export type DeliveryOutcome = "delivered" | "retrying" | "failed" | "skipped";

/** Handles a deliver_webhook message. Throws only when D1 or the queue fail (the message is retried). */
export async function deliverWebhook(db: Db, env: Bindings, pipeline: Pipeline, deliveryId: number): Promise<DeliveryOutcome> {
  const settings = jobSettings(env, "webhook_delivery");
  const started = new Date();
  const now = isoMicro(started);
  // The lease outlives the request's timeout and is renewed while the attempt lives, so it only
  // runs out when a Worker died mid-send.
  const lease = Lease.for(settings, started);
  const [claim, read] = await db.$client.batch<ClaimedRow>(
    [
      claimStatement(DELIVERY_JOB, deliveryId, lease, {
        now: started,
        where: sql`EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.id = webhook_deliveries.subscription_id AND s.active = 1)`,
        returning: false,
      }),
      sql`SELECT d.id, d.status, d.attempts, d.lease_until, s.active, s.url, s.secret,
          e.id AS event_id, e.type, e.data, e.created_at AS event_created_at
        FROM webhook_deliveries d
        JOIN webhook_subscriptions s ON s.id = d.subscription_id
        JOIN events e ON e.id = d.event_id
        WHERE d.id = ${deliveryId}`,
    ].map((q) => toStatement(db, q)),
  );
  const row = read.results[0];
  if (!row) return "skipped"; // deleted with its subscription
  // Whether our UPDATE changed the row, not whether the lease looks like ours: two consumers in
  // one isolate see the same clock, so they compute the same lease_until.
  if (claim.meta.changes !== 1) {
    // Not ours. A retry that came early, or a send under someone else's lease (a duplicate message,
    // or our own redelivered message after a crash mid-send): look again when it is due or the lease
    // ends, so the delivery never depends on another message surviving. Delivered, failed or a
    // paused subscription: nothing to do.
    const inFuture = row.lease_until !== null && row.lease_until > now;
    if (row.active && inFuture && (row.status === "pending" || row.status === "delivering")) {
      await sendDelayed(pipeline, { type: "deliver_webhook", deliveryId }, secondsUntil(row.lease_until!, started.getTime()));
    }
    return "skipped";
  }

  const body = deliveryBody({ id: row.event_id, type: row.type, createdAt: row.event_created_at, data: JSON.parse(row.data) });
  lease.on(db, DELIVERY_JOB, deliveryId).hold();
  const result = await post(row.url, row.secret, row.event_id, row.type, body, settings.timeoutMs).finally(() => lease.release());
  // Lost (another attempt took over): the guard below writes nothing, as the old lease no longer matches.
  const held = (await lease.release()) ?? lease.until;

  const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  const next = ok ? null : afterFailure(settings, row.attempts, { final: result.final, retryAfterSeconds: result.retryAfterSeconds });
  const outcome: DeliveryOutcome = ok ? "delivered" : next?.retry ? "retrying" : "failed";
  const delay = next?.retry ? next.delaySeconds : 0;
  const finished = isoMicro();
  const nextAttemptAt = outcome === "retrying" ? dueAt(delay) : null;
  const [, updated] = await db.$client.batch<{ id: number }>(
    [
      // Recorded unless the delivery itself was deleted meanwhile (with its subscription).
      sql`INSERT INTO webhook_delivery_attempts (delivery_id, status_code, error, duration_ms, created_at)
        SELECT ${deliveryId}, ${result.statusCode}, ${result.error}, ${result.durationMs}, ${finished}
        WHERE EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = ${deliveryId})`,
      // Guarded by our lease: if it ran out and another Worker took over, that one owns the row
      // (its lease was computed after ours had expired, so it differs).
      sql`UPDATE webhook_deliveries SET
          status = ${outcome === "retrying" ? "pending" : outcome},
          lease_until = ${nextAttemptAt},
          last_status_code = ${result.statusCode},
          last_error = ${result.error},
          delivered_at = ${ok ? finished : null},
          updated_at = ${finished}
        WHERE ${heldBy(DELIVERY_JOB, deliveryId, held)}
        RETURNING id`,
    ].map((q) => toStatement(db, q)),
  );
  if (outcome === "retrying" && updated.results.length > 0) {
    await sendDelayed(pipeline, { type: "deliver_webhook", deliveryId }, delay);
  }
  return outcome;
}

/** `final`: trying again cannot help (the url points where we never connect). */
type SendResult = { statusCode: number | null; error: string | null; durationMs: number; final?: boolean; retryAfterSeconds?: number | null };

async function post(url: string, secret: string, eventId: string, type: string, body: string, timeoutMs: number): Promise<SendResult> {
  const started = Date.now();
  // A subscription stored before the address policy, pointing where we never connect: refused unsent.
  const refusal = URL.canParse(url) ? urlRefusal(new URL(url)) : null;
  if (refusal) return { statusCode: null, error: `Not sent: the url ${refusal}`.slice(0, ERROR_BODY_CHARS), durationMs: 0, final: true };
  const headers = {
    "Content-Type": "application/json",
    "User-Agent": USER_AGENT,
    [SIGNATURE_HEADER]: await signatureHeader([secret], body),
    "X-Webhook-Id": eventId,
    "X-Webhook-Event": type,
  };
  try {
    // A redirect is an answer, not a success: following it could post the event somewhere the shop never configured.
    const res = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    if (res.status >= 200 && res.status < 300) {
      await res.body?.cancel();
      return { statusCode: res.status, error: null, durationMs: Date.now() - started };
    }
    const text = await res.text().catch(() => "");
    const error = `HTTP ${res.status}${text ? `: ${text.slice(0, ERROR_BODY_CHARS)}` : ""}`;
    // A shop that asks us to slow down (429, 503) is not tried again before it said.
    return { statusCode: res.status, error, durationMs: Date.now() - started, retryAfterSeconds: parseRetryAfter(res.headers.get("retry-after")) };
  } catch (error) {
    const name = error instanceof Error ? error.name : "";
    const message = name === "TimeoutError" || name === "AbortError" ? `Timed out after ${timeoutMs} ms` : `Network error: ${error instanceof Error ? error.message : String(error)}`;
    return { statusCode: null, error: message.slice(0, ERROR_BODY_CHARS), durationMs: Date.now() - started };
  }
}
