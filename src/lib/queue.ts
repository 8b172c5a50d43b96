// What travels on the pipeline's two queues, and the one place that sends it (nothing else touches
// env.PIPELINE or env.OUTBOUND). Work that talks to a shop or a supplier (OUTBOUND_TYPES) goes on the
// outbound queue, with a consumer of its own, so that a shop or a file server that hangs holds up
// only outside calls, never an order's routing, which goes on the order pipeline queue. Every service hands work to the pipeline through the Pipeline port below (the API
// and the console pass the request's, see src/shards/request.ts; the consumer and the cron their
// carrier's), so no route, page handler or service sends messages itself; only the shards' moves
// and redirects, which work below the domain, call enqueue.

/** The queue bindings the sends need (the Worker's Bindings has them; named here so lib knows no env.ts, which knows this port). */
type Bindings = { PIPELINE: Queue; OUTBOUND: Queue };

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
  /**
   * The first attempt at push dispatches the route step created already claimed under `lease`
   * (one account's): handed over to the outbound queue, so routing never waits on a supplier. The
   * attempt takes the lease over only while it is still `lease` (src/forwarding/forwarding.service.ts
   * sendHandedOver); a dispatch whose message is lost is swept once that lease runs out.
   */
  | { type: "send_dispatches"; dispatchIds: number[]; lease: string }
  /** Send one cancellation request (or withdrawal) to its supplier, on the supplier's channel. */
  | { type: "send_cancellation"; cancellationId: number }
  /** Tell a supplier of a return (a new one, or one the shop withdrew) on its channel (src/returns/notices.service.ts). */
  | { type: "send_return_notice"; noticeId: number }
  /** Turn unpublished events into webhook deliveries (src/events/publish.service.ts). */
  | { type: "publish_events" }
  /** Send (or re-send) one webhook delivery to the shop (src/events/delivery.service.ts). */
  | { type: "deliver_webhook"; deliveryId: number }
  /** Write one shipment, note or completion back into a shop (src/shops/write-back.service.ts). */
  | { type: "write_back"; writeBackId: number }
  /** Run the next page of a stock sync into a shop connection (src/shops/stock/stock-sync.service.ts). */
  | { type: "stock_sync"; syncId: number }
) & {
  /** The shard whose database the message's ids belong to (src/shards/shards.ts); none: shard 0. */
  shard?: number;
};

/**
 * The messages whose handling calls a shop or a supplier (a dispatch, the route step's first attempts at its new dispatches, or a cancellation sent on the
 * supplier's channel, a webhook delivery, a write-back, a stock-sync page): they go on the outbound
 * queue (order-outbound). Everything else (routing, re-matches, publishing events) only works on
 * D1 and goes on the order pipeline queue (order-pipeline), whose batches therefore never wait on a
 * time box. Either consumer still handles every type: a message sent before this split is not lost.
 */
export const OUTBOUND_TYPES: ReadonlySet<PipelineMessage["type"]> = new Set(["send_dispatch", "send_dispatches", "send_cancellation", "send_return_notice", "deliver_webhook", "write_back", "stock_sync"]);

/** Which queue a message travels on. */
export const queueOf = (message: Pick<PipelineMessage, "type">): "OUTBOUND" | "PIPELINE" => (OUTBOUND_TYPES.has(message.type) ? "OUTBOUND" : "PIPELINE");

export async function enqueue(env: Bindings, messages: PipelineMessage[], delaySeconds?: number): Promise<void> {
  for (const binding of ["PIPELINE", "OUTBOUND"] as const) {
    const mine = messages.filter((m) => queueOf(m) === binding);
    // sendBatch takes at most 100 messages.
    for (let i = 0; i < mine.length; i += 100) {
      await env[binding].sendBatch(
        mine.slice(i, i + 100).map((body) => ({ body, contentType: "json" as const })),
        delaySeconds ? { delaySeconds } : undefined,
      );
    }
  }
}

/**
 * For request handlers: the client's data is already stored, and so is the mark that the pipeline
 * owes it work (routed_at cleared, rematch_requested_at set), so a failed send must not fail the
 * request; the sweeper picks the work up within 90 seconds (docs/operations.md, "After a crash").
 */
export async function enqueueBestEffort(env: Bindings, messages: PipelineMessage[], delaySeconds?: number): Promise<void> {
  try {
    await enqueue(env, messages, delaySeconds);
  } catch (error) {
    console.error(JSON.stringify({ level: "warn", event: "enqueue_failed", error: String(error), messages }));
  }
}

/**
 * How a service hands work to the pipeline. On the request path (pipelineFor) a send never throws:
 * the work's durable mark in D1 is already written, and the sweeper picks it up should the message
 * be lost. The pipeline's carriers (carrierPipeline: the consumer, the cron) send the same way, but
 * a failed send throws, so that the message or run that asked for it is tried again.
 */
export type Pipeline = {
  /** Sends now and waits for the queue to take it; `delaySeconds`: the queue holds the messages that long first. */
  send(messages: PipelineMessage[], delaySeconds?: number): Promise<void>;
  /** Sends without holding up the caller (after the response, on the request path). */
  sendAfterResponse(messages: PipelineMessage[]): void;
  /** Sends now and throws when the queue did not take them: for a caller that puts its write back then. */
  sendOrFail(messages: PipelineMessage[]): Promise<void>;
};

export function pipelineFor(env: Bindings, waitUntil: (promise: Promise<unknown>) => void): Pipeline {
  return {
    send: (messages, delaySeconds) => enqueueBestEffort(env, messages, delaySeconds),
    sendAfterResponse: (messages) => waitUntil(enqueueBestEffort(env, messages)),
    sendOrFail: (messages) => enqueue(env, messages),
  };
}

/** The pipeline as its carriers (the queue consumer, the cron) hand work on: a send that fails throws. */
export function carrierPipeline(env: Bindings): Pipeline {
  return {
    send: (messages, delaySeconds) => enqueue(env, messages, delaySeconds),
    sendAfterResponse: (messages) => void enqueue(env, messages).catch((error) => console.error(JSON.stringify({ level: "warn", event: "enqueue_failed", error: String(error), messages }))),
    sendOrFail: (messages) => enqueue(env, messages),
  };
}
