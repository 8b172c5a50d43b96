// The queue consumer: runs each pipeline message; failures are retried with exponential backoff
// and, past the queue's max_retries, land in the dead-letter queue (./dead-letters.ts). It only
// carries: a message, one domain call per message type, then the batch, the sends and the
// follow-ups the domain returns (the route step's decisions are made in src/routing/journey.ts).
import { sendReturnNotice } from "../returns/notices.service";
import { sql } from "drizzle-orm";
import { createDb, runBatch, type Db } from "../db";
import { meteredD1, meteredWork } from "../db/metrics";
import type { Bindings } from "../env";
import { deliverWebhook } from "../events/delivery.service";
import { publishAfterPipeline, publishAndContinue } from "../events/publish.service";
import { sendCancellation } from "../forwarding/supplier-cancellations.service";
import { sendSettings } from "../lib/outbound";
import { carrierPipeline, type Pipeline, type PipelineMessage } from "../lib/queue";
import { deliverWriteBack } from "../shops/write-back.service";
import { stockSyncMessages } from "../shops/stock/queue";
import { maxRoutingAttempts, pipelineRetryDelay } from "./settings";
import { planOverdue, planRoute, type RouteRequest } from "../routing/journey";
import { rematchAccount } from "../routing/rematch";
import { attemptDispatch, attemptHandedOver } from "../routing/failed-sends";
import { runStockSyncPage } from "../shops/stock/stock-sync.service";

export async function handlePipelineBatch(batch: MessageBatch<PipelineMessage>, env: Bindings): Promise<void> {
  // Benchmark runs meter the pipeline too: one log line per message (or per group of route_order
  // messages handled together) with its D1 statements.
  const bench = env.BENCH_METRICS === "1";
  const db = createDb(bench ? meteredD1(env.DB) : env.DB);
  const metered = (type: string, messages: number, fn: () => Promise<void>) => meteredWork(bench, type, messages, fn);
  const failed = async (message: Message<PipelineMessage>, error: unknown) => {
    console.error(JSON.stringify({ level: "error", event: "pipeline_failed", body: message.body, attempts: message.attempts, error: String(error) }));
    if (message.body.type === "route_order") await recordRoutingError(db, message.body.orderId, error);
    message.retry({ delaySeconds: pipelineRetryDelay(env, message.attempts) });
  };
  // The batch's route_order messages are routed together: one read and one write for all their
  // orders (runRouteStep below). Should that fail, each is tried on its own, so one order
  // that cannot be routed holds up no other.
  const routing = batch.messages.filter((m) => m.body.type === "route_order") as Message<Extract<PipelineMessage, { type: "route_order" }>>[];
  const others = batch.messages.filter((m) => m.body.type !== "route_order");
  const requests = (ms: typeof routing) => ms.map((m) => ({ orderId: m.body.orderId, redelivered: m.attempts > 1 }));
  // The messages of a batch run side by side: a supplier whose endpoint takes its whole time box
  // holds up its own send, not the routing of other orders. Each message is acked or retried alone.
  await Promise.all([
    (async () => {
      if (routing.length === 0) return;
      try {
        await metered("route_order", routing.length, () => runRouteStep(db, env, requests(routing)));
        for (const m of routing) m.ack();
      } catch (error) {
        if (routing.length === 1) return failed(routing[0], error);
        // The attempt is counted already (the joint read counted the redelivered ones).
        await Promise.all(
          routing.map(async (m) => {
            try {
              await metered("route_order", 1, () => runRouteStep(db, env, [{ orderId: m.body.orderId, redelivered: false }]));
              m.ack();
            } catch (alone) {
              await failed(m, alone);
            }
          }),
        );
      }
    })(),
    ...others.map(async (message) => {
      try {
        await metered(message.body.type, 1, () => handle(db, env, message.body, message.attempts > 1));
        message.ack();
      } catch (error) {
        await failed(message, error);
      }
    }),
  ]);
  await publishAfterPipeline(env, carrierPipeline(env), batch.messages.map((m) => m.body));
}

/** Best effort (D1 may be what failed): the operator sees it on a parked order. */
async function recordRoutingError(db: Db, orderId: number, error: unknown) {
  try {
    await runBatch(db, [sql`UPDATE orders SET routing_error = ${String(error).slice(0, 500)} WHERE id = ${orderId}`]);
  } catch {
    // Already logged above.
  }
}

/**
 * The route step for any number of orders (a queue batch's, a re-match page's): the journey's plan,
 * its batch, then the follow-ups queued, the first attempts at its push dispatches among them. Orders
 * with overdue lines are re-routed first and then planned again. Throws when a write fails: the
 * caller retries its messages.
 */
export async function runRouteStep(db: Db, env: Bindings, requests: RouteRequest[]): Promise<void> {
  const options = { maxAttempts: maxRoutingAttempts(env), timeoutMs: sendSettings(env).timeoutMs };
  const pipeline = carrierPipeline(env);
  let next = requests;
  while (next.length > 0) {
    const plan = await planRoute(db, next, options);
    // The follow-ups include the first attempts at the new push dispatches (send_dispatches, on
    // the outbound queue, their lease handed over): the route step never waits on a supplier.
    await pipeline.send(plan.settle(await runBatch(db, plan.statements)).followUps);
    for (const { order, lines } of plan.overdue) {
      const overdue = await planOverdue(db, order, lines);
      await pipeline.send(overdue.settle(await runBatch(db, overdue.statements)).followUps);
    }
    next = plan.overdue.map(({ order }) => ({ orderId: order.id, redelivered: false }));
  }
}

/** `redelivered`: the queue delivers this message again because an attempt at it failed. */
export async function handle(db: Db, env: Bindings, body: PipelineMessage, redelivered = false): Promise<void> {
  const pipeline: Pipeline = carrierPipeline(env);
  switch (body.type) {
    case "route_order":
      await runRouteStep(db, env, [{ orderId: body.orderId, redelivered }]);
      return;
    case "send_dispatch":
    case "send_cancellation":
    case "send_return_notice": {
      const result =
        body.type === "send_dispatch"
          ? await attemptDispatch(db, env, pipeline, body.dispatchId)
          : body.type === "send_cancellation"
            ? await sendCancellation(db, env, body.cancellationId)
            : await sendReturnNotice(db, env, body.noticeId);
      // Backoff through the queue: a new delayed message, so supplier outages do not use up the
      // queue's own retries (those are kept for failures of our code).
      if (!result.done) await pipeline.send([body], result.retryInSeconds);
      return;
    }
    case "send_dispatches":
      await attemptHandedOver(db, env, pipeline, body.dispatchIds, body.lease);
      return;
    case "rematch_account":
      await pipeline.send(await rematchAccount(db, body, (orderIds) => runRouteStep(db, env, orderIds.map((orderId) => ({ orderId, redelivered: false })))));
      return;
    case "publish_events":
      await publishAndContinue(db, pipeline);
      return;
    case "deliver_webhook":
      await deliverWebhook(db, env, pipeline, body.deliveryId);
      return;
    case "write_back":
      await deliverWriteBack(db, env, pipeline, body.writeBackId);
      return;
    case "stock_sync": {
      const step = await runStockSyncPage(db, env, body.syncId);
      await pipeline.send(stockSyncMessages(step.followUps));
      if (step.next !== "none") await pipeline.send([body], step.next === "later" ? Math.min(step.delaySeconds, 43_200) : undefined);
      return;
    }
  }
}

