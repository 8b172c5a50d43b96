// The queue consumer: runs each pipeline message; failures are retried with exponential backoff
// and, past the queue's max_retries, land in the dead-letter queue (./dead-letters.ts).
import { sql } from "drizzle-orm";
import { createDb, runBatch, type Db } from "../db";
import { meteredD1, newD1Metrics, withD1Metrics } from "../db/metrics";
import type { Bindings } from "../env";
import { deliverWebhook } from "../events/delivery.service";
import { publishAfterPipeline, publishAndContinue } from "../events/publish.service";
import { sendCancellation } from "../forwarding/cancellations.service";
import { dispatchOrder, sendDispatch } from "../forwarding/forwarding.service";
import { queuedCancellations } from "../orders/cancellations.service";
import { routeOrder } from "../routing/routing.service";
import { enqueue, type PipelineMessage } from "../lib/queue";
import { maxRoutingAttempts, pipelineRetryDelay } from "./settings";
import { rematchAccount } from "../routing/rematch";

export async function handlePipelineBatch(batch: MessageBatch<PipelineMessage>, env: Bindings): Promise<void> {
  // Benchmark runs meter the pipeline too: one log line per message with its D1 statements.
  const bench = env.BENCH_METRICS === "1";
  const db = createDb(bench ? meteredD1(env.DB) : env.DB);
  // The messages of a batch run side by side: a supplier whose endpoint takes its whole time box
  // holds up its own send, not the routing of other orders. Each message is acked or retried alone.
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        if (bench) {
          const metrics = { ...newD1Metrics(), statements: [] };
          await withD1Metrics(metrics, () => handle(db, env, message.body, message.attempts > 1));
          console.warn(`bench:pipeline ${JSON.stringify({ type: message.body.type, ...metrics })}`);
        } else {
          await handle(db, env, message.body, message.attempts > 1);
        }
        message.ack();
      } catch (error) {
        console.error(JSON.stringify({ level: "error", event: "pipeline_failed", body: message.body, attempts: message.attempts, error: String(error) }));
        if (message.body.type === "route_order") await recordRoutingError(db, message.body.orderId, error);
        message.retry({ delaySeconds: pipelineRetryDelay(env, message.attempts) });
      }
    }),
  );
  await publishAfterPipeline(env, batch.messages.map((m) => m.body));
}

/** Best effort (D1 may be what failed): the operator sees it on a parked order. */
async function recordRoutingError(db: Db, orderId: number, error: unknown) {
  try {
    await runBatch(db, [sql`UPDATE orders SET routing_error = ${String(error).slice(0, 500)} WHERE id = ${orderId}`]);
  } catch {
    // Already logged above.
  }
}

/** `redelivered`: the queue delivers this message again because an attempt at it failed. */
export async function handle(db: Db, env: Bindings, body: PipelineMessage, redelivered = false): Promise<void> {
  switch (body.type) {
    case "route_order":
      await routeAndDispatch(db, env, body.orderId, redelivered);
      return;
    case "send_dispatch":
    case "send_cancellation": {
      const result = body.type === "send_dispatch" ? await sendDispatch(db, env, body.dispatchId) : await sendCancellation(db, env, body.cancellationId);
      // Backoff through the queue: a new delayed message, so supplier outages do not use up the
      // queue's own retries (those are kept for failures of our code).
      if (!result.done) await enqueue(env, [body], result.retryInSeconds);
      return;
    }
    case "rematch_account":
      await rematchAccount(db, env, body, (orderId) => routeAndDispatch(db, env, orderId, false));
      return;
    case "publish_events":
      await publishAndContinue(db, env);
      return;
    case "deliver_webhook":
      await deliverWebhook(db, env, body.deliveryId);
      return;
  }
}

/**
 * Matches the order's pending lines (a redelivery counts the failed attempt before it; past the
 * limit the order is parked), then claims the ruled ones into dispatches, marks the order done
 * and queues each waiting send.
 */
async function routeAndDispatch(db: Db, env: Bindings, orderId: number, redelivered: boolean) {
  const outcome = await routeOrder(db, orderId, { maxAttempts: maxRoutingAttempts(env), countAttempt: redelivered });
  if (outcome.status === "not_found" || outcome.status === "parked") return;
  const waiting = await dispatchOrder(db, orderId);
  await enqueue(env, waiting.map((dispatchId) => ({ type: "send_dispatch" as const, dispatchId })));
  // Lines re-routed away from a silent supplier: that supplier is told they are withdrawn.
  if (outcome.withdrawn > 0) {
    const [queued] = await runBatch(db, [queuedCancellations(orderId)]);
    await enqueue(env, (queued.results as { id: number }[]).map((r) => ({ type: "send_cancellation" as const, cancellationId: r.id })));
  }
}
