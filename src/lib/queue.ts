// What travels on the order pipeline queue, and the one place that sends it (nothing else touches
// env.PIPELINE: the consumer, the cron, the shards and every service send through enqueue). Services hand work
// to the pipeline through a Pipeline (the API and the console pass the request's, see
// src/middleware/request-id.ts), so no route or page handler sends messages itself.
import type { Bindings } from "../env";

export type PipelineMessage = (
  /** Match the order's pending lines (after create, unblock, retry, replay, or on demand), then dispatch. */
  | { type: "route_order"; orderId: number }
  /**
   * Rules or suppliers changed: match the account's pending lines again, a page of orders at a
   * time. `requestedAt` is the account's rematch_requested_at this run answers (cleared at the end).
   */
  | { type: "rematch_account"; accountId: number; afterOrderId?: number; requestedAt?: string }
  /** Send one dispatch (an order's lines for one supplier) through the supplier's channel. */
  | { type: "send_dispatch"; dispatchId: number }
  /** Send one cancellation request (or withdrawal) to its supplier, on the supplier's channel. */
  | { type: "send_cancellation"; cancellationId: number }
  /** Turn unpublished events into webhook deliveries (src/events/publish.service.ts). */
  | { type: "publish_events" }
  /** Send (or re-send) one webhook delivery to the shop (src/events/delivery.service.ts). */
  | { type: "deliver_webhook"; deliveryId: number }
  /** Run the next page of a stock sync into a shop connection (src/shops/stock/stock-sync.service.ts). */
  | { type: "stock_sync"; syncId: number }
) & {
  /** The shard whose database the message's ids belong to (src/shards/shards.ts); none: shard 0. */
  shard?: number;
};

export async function enqueue(env: Bindings, messages: PipelineMessage[], delaySeconds?: number): Promise<void> {
  // sendBatch takes at most 100 messages.
  for (let i = 0; i < messages.length; i += 100) {
    await env.PIPELINE.sendBatch(
      messages.slice(i, i + 100).map((body) => ({ body, contentType: "json" as const })),
      delaySeconds ? { delaySeconds } : undefined,
    );
  }
}

/**
 * For request handlers: the client's data is already stored, and so is the mark that the pipeline
 * owes it work (routed_at cleared, rematch_requested_at set), so a failed send must not fail the
 * request; the sweeper picks the work up within 90 seconds (docs/operations.md, "After a crash").
 */
export async function enqueueBestEffort(env: Bindings, messages: PipelineMessage[]): Promise<void> {
  try {
    await enqueue(env, messages);
  } catch (error) {
    console.error(JSON.stringify({ level: "warn", event: "enqueue_failed", error: String(error), messages }));
  }
}

/** How a service hands work to the pipeline. Both never throw: the work's durable mark in D1 is already written, and the sweeper picks it up should the message be lost. */
export type Pipeline = {
  /** Sends now and waits for the queue to take it. */
  send(messages: PipelineMessage[]): Promise<void>;
  /** Sends without holding up the caller (after the response, on the request path). */
  sendAfterResponse(messages: PipelineMessage[]): void;
};

export function pipelineFor(env: Bindings, waitUntil: (promise: Promise<unknown>) => void): Pipeline {
  return {
    send: (messages) => enqueueBestEffort(env, messages),
    sendAfterResponse: (messages) => waitUntil(enqueueBestEffort(env, messages)),
  };
}
