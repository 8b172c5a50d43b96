// The dead-letter queue's consumer: every message the pipeline gave up on is recorded in D1, with
// what it was about, so nothing dies silently. Operators list and replay them (recovery.service.ts).
import { sql, type SQL } from "drizzle-orm";
import { createDb, runBatch } from "../db";
import type { Bindings } from "../env";
import { isoMicro } from "../lib/time";
import type { PipelineMessage } from "../lib/queue";

/** The dead-letter queues of the order pipeline and of the outbound queue (wrangler.toml): one consumer records both. */
export const DEAD_LETTER_QUEUES: ReadonlySet<string> = new Set(["order-pipeline-dlq", "order-outbound-dlq"]);

/** account_id, order_id and dispatch_id of what the message names, looked up in the same statement. */
function subjectOf(body: PipelineMessage): { account: SQL; order: SQL; dispatch: SQL } {
  const none = sql`NULL`;
  switch (body.type) {
    case "route_order":
      return { account: sql`(SELECT account_id FROM orders WHERE id = ${body.orderId})`, order: sql`${body.orderId}`, dispatch: none };
    case "send_dispatch":
      return {
        account: sql`(SELECT account_id FROM dispatches WHERE id = ${body.dispatchId})`,
        order: sql`(SELECT order_id FROM dispatches WHERE id = ${body.dispatchId})`,
        dispatch: sql`${body.dispatchId}`,
      };
    case "send_dispatches":
      return {
        account: sql`(SELECT account_id FROM dispatches WHERE id = ${body.dispatchIds[0]})`,
        order: sql`(SELECT order_id FROM dispatches WHERE id = ${body.dispatchIds[0]})`,
        dispatch: sql`${body.dispatchIds[0]}`,
      };
    case "send_cancellation":
      return {
        account: sql`(SELECT account_id FROM cancellations WHERE id = ${body.cancellationId})`,
        order: sql`(SELECT order_id FROM cancellations WHERE id = ${body.cancellationId})`,
        dispatch: none,
      };
    case "send_return_notice":
      return {
        account: sql`(SELECT account_id FROM return_notices WHERE id = ${body.noticeId})`,
        order: sql`(SELECT order_id FROM return_notices WHERE id = ${body.noticeId})`,
        dispatch: none,
      };
    case "rematch_account":
      return { account: sql`${body.accountId}`, order: none, dispatch: none };
    case "deliver_webhook":
      return { account: sql`(SELECT account_id FROM webhook_deliveries WHERE id = ${body.deliveryId})`, order: none, dispatch: none };
    case "write_back":
      return {
        account: sql`(SELECT account_id FROM shop_write_backs WHERE id = ${body.writeBackId})`,
        order: sql`(SELECT order_id FROM shop_write_backs WHERE id = ${body.writeBackId})`,
        dispatch: none,
      };
    default:
      return { account: none, order: none, dispatch: none };
  }
}

export async function handleDeadLetterBatch(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  const db = createDb(env.DB);
  const now = isoMicro();
  const statements = batch.messages.map((message) => {
    const body = (message.body && typeof message.body === "object" ? message.body : { type: "unknown", body: message.body }) as PipelineMessage;
    const subject = subjectOf(body);
    console.error(JSON.stringify({ level: "error", event: "dead_letter", queue: batch.queue, id: message.id, body, attempts: message.attempts }));
    // A redelivered dead letter is recorded once (its message id).
    return sql`INSERT INTO dead_letters (message_id, queue, type, body, account_id, order_id, dispatch_id, status, received_at)
      VALUES (${message.id}, ${batch.queue}, ${String(body.type ?? "unknown")}, ${JSON.stringify(body)}, ${subject.account}, ${subject.order},
        ${subject.dispatch}, 'open', ${now})
      ON CONFLICT (message_id) DO NOTHING`;
  });
  try {
    await runBatch(db, statements);
    batch.ackAll();
  } catch (error) {
    // D1 is down: the dead-letter queue tries again (its own retries) rather than drop them.
    console.error(JSON.stringify({ level: "error", event: "dead_letter_record_failed", error: String(error) }));
    batch.retryAll({ delaySeconds: 30 });
  }
}
