// What travels on the order pipeline queue, and the one place that sends it.
import type { Bindings } from "../env";

export type PipelineMessage =
  /** Match the order's pending lines (after create, unblock, retry, replay, or on demand), then dispatch. */
  | { type: "route_order"; orderId: number }
  /**
   * Rules or suppliers changed: match the account's pending lines again, a page of orders at a
   * time. `requestedAt` is the account's rematch_requested_at this run answers (cleared at the end).
   */
  | { type: "rematch_account"; accountId: number; afterOrderId?: number; requestedAt?: string }
  /** Send one dispatch (an order's lines for one supplier) through the supplier's channel. */
  | { type: "send_dispatch"; dispatchId: number }
  /** Turn unpublished events into webhook deliveries (src/events/publish.service.ts). */
  | { type: "publish_events" }
  /** Send (or re-send) one webhook delivery to the shop (src/events/delivery.service.ts). */
  | { type: "deliver_webhook"; deliveryId: number };

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
 * request; the sweeper picks the work up within a minute or two.
 */
export async function enqueueBestEffort(env: Bindings, messages: PipelineMessage[]): Promise<void> {
  try {
    await enqueue(env, messages);
  } catch (error) {
    console.error(JSON.stringify({ level: "warn", event: "enqueue_failed", error: String(error), messages }));
  }
}

const positive = (raw: string | undefined, fallback: number) => {
  const n = Number(raw);
  return raw !== undefined && raw !== "" && Number.isFinite(n) && n >= 0 ? n : fallback;
};

/** Routing attempts in a row before an order is parked for an operator. */
export const maxRoutingAttempts = (env: Bindings) => Math.max(1, positive(env.ROUTING_MAX_ATTEMPTS, 20));

/** Seconds before the queue redelivers a message whose handling failed, after `attempts` deliveries. */
export const pipelineRetryDelay = (env: Bindings, attempts: number) =>
  Math.min(600, positive(env.PIPELINE_RETRY_BASE_SECONDS, 5) * 2 ** Math.max(0, attempts - 1));
