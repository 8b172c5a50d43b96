// The queue consumer: runs each pipeline message; failures are retried with exponential backoff.
import { and, asc, eq, gt } from "drizzle-orm";
import { createDb, type Db } from "../db";
import { meteredD1, newD1Metrics, withD1Metrics } from "../db/metrics";
import { orderLines, orders } from "../db/schema";
import type { Bindings } from "../env";
import { dispatchOrder, sendDispatch } from "../forwarding/forwarding.service";
import { deliverWebhook } from "../events/delivery.service";
import { publishAndContinue, publishAfterPipeline } from "../events/publish.service";
import { routeOrder } from "../routing/routing.service";
import { enqueue, type PipelineMessage } from "./messages";

const REMATCH_PAGE = 50;

export async function handlePipelineBatch(batch: MessageBatch<PipelineMessage>, env: Bindings): Promise<void> {
  // Benchmark runs meter the pipeline too: one log line per message with its D1 statements.
  const bench = env.BENCH_METRICS === "1";
  const db = createDb(bench ? meteredD1(env.DB) : env.DB);
  for (const message of batch.messages) {
    try {
      if (bench) {
        const metrics = { ...newD1Metrics(), statements: [] };
        await withD1Metrics(metrics, () => handle(db, env, message.body));
        console.warn(`bench:pipeline ${JSON.stringify({ type: message.body.type, ...metrics })}`);
      } else {
        await handle(db, env, message.body);
      }
      message.ack();
    } catch (error) {
      const delaySeconds = Math.min(600, 5 * 2 ** Math.max(0, message.attempts - 1));
      console.error(JSON.stringify({ level: "error", event: "pipeline_failed", body: message.body, attempts: message.attempts, error: String(error) }));
      message.retry({ delaySeconds });
    }
  }
  await publishAfterPipeline(env, batch.messages.map((m) => m.body));
}

export async function handle(db: Db, env: Bindings, body: PipelineMessage): Promise<void> {
  switch (body.type) {
    case "route_order":
      await routeAndDispatch(db, env, body.orderId);
      return;
    case "send_dispatch": {
      const result = await sendDispatch(db, env, body.dispatchId);
      // Backoff through the queue: a new delayed message, so supplier outages do not use up the
      // queue's own retries (those are kept for failures of our code).
      if (!result.done) await enqueue(env, [body], result.retryInSeconds);
      return;
    }
    case "rematch_account":
      await rematchAccount(db, env, body.accountId, body.afterOrderId ?? 0);
      return;
    case "publish_events":
      await publishAndContinue(db, env);
      return;
    case "deliver_webhook":
      await deliverWebhook(db, env, body.deliveryId);
      return;
  }
}

/** Matches the order's pending lines, then queues a send for each supplier's share of the ruled ones. */
async function routeAndDispatch(db: Db, env: Bindings, orderId: number) {
  await routeOrder(db, orderId);
  const waiting = await dispatchOrder(db, orderId);
  await enqueue(env, waiting.map((dispatchId) => ({ type: "send_dispatch" as const, dispatchId })));
}

/** Routes the next page of the account's unblocked orders with pending lines, then queues the rest. */
async function rematchAccount(db: Db, env: Bindings, accountId: number, afterOrderId: number) {
  const rows = await db
    .selectDistinct({ orderId: orderLines.orderId })
    .from(orderLines)
    .innerJoin(orders, eq(orders.id, orderLines.orderId))
    .where(
      and(
        eq(orderLines.accountId, accountId),
        eq(orderLines.currentStatus, "pending"),
        gt(orderLines.orderId, afterOrderId),
        eq(orders.blocked, false),
      ),
    )
    .orderBy(asc(orderLines.orderId))
    .limit(REMATCH_PAGE);
  for (const { orderId } of rows) await routeAndDispatch(db, env, orderId);
  if (rows.length === REMATCH_PAGE) {
    await enqueue(env, [{ type: "rematch_account", accountId, afterOrderId: rows[rows.length - 1].orderId }]);
  }
}

