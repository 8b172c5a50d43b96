// The queue delivers at least once: a repeated or concurrent message for the same delivery must
// not send it twice. These call the Worker's queue handler directly with hand-made batches.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import worker from "../../src/index";
import type { PipelineMessage } from "../../src/processing/messages";
import { createAccount } from "../helpers/factories";
import { received } from "../helpers/fake-remote";
import { deliveries, minutesFromNow, seedDelivery, seedEvent, subscribe } from "./support";

let seq = 0;
const message = (deliveryId: number) => ({
  id: `msg-${deliveryId}-${seq++}`,
  timestamp: new Date(),
  attempts: 1,
  body: { type: "deliver_webhook", deliveryId } as PipelineMessage,
});

async function runBatch(messages: ReturnType<typeof message>[]) {
  const batch = createMessageBatch<PipelineMessage>("order-pipeline", messages);
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}

async function seeded(scenario = "ok", delivery: Parameters<typeof seedDelivery>[3] = {}) {
  const creds = await createAccount();
  const hook = await subscribe(creds, scenario, ["order.created"]);
  const eventId = await seedEvent(creds.accountId, { published: true });
  const deliveryId = await seedDelivery(creds.accountId, hook.id, eventId, delivery);
  return { creds, hook, eventId, deliveryId };
}

describe.concurrent("duplicate queue messages", () => {
  it("sends once when the same message arrives twice in a batch", async ({ expect }) => {
    const { creds, hook, eventId, deliveryId } = await seeded();
    const first = message(deliveryId);
    const redelivered = { ...message(deliveryId), attempts: 2 };
    const result = await runBatch([first, redelivered]);
    expect(result.explicitAcks.sort()).toEqual([first.id, redelivered.id].sort());
    expect(result.retryMessages).toEqual([]);

    const sent = await received(hook.url);
    expect(sent).toHaveLength(1);
    expect(sent[0].headers["x-webhook-id"]).toBe(eventId);
    const [delivery] = (await deliveries(creds, hook.id)).data;
    expect(delivery).toMatchObject({ id: deliveryId, status: "delivered", last_status_code: 200 });
    expect(delivery.attempts).toHaveLength(1);
  });

  it("sends once when two consumers run the same delivery at the same time", async ({ expect }) => {
    const { creds, hook, deliveryId } = await seeded();
    await Promise.all([runBatch([message(deliveryId)]), runBatch([message(deliveryId)])]);
    expect(await received(hook.url)).toHaveLength(1);
    const [delivery] = (await deliveries(creds, hook.id)).data;
    expect(delivery.status).toBe("delivered");
    expect(delivery.attempts).toHaveLength(1);
  });

  it("stands back while another send holds the lease", async ({ expect }) => {
    const { creds, hook, deliveryId } = await seeded("ok", { status: "delivering", attempts: 1, leaseUntil: minutesFromNow(1) });
    const result = await runBatch([message(deliveryId)]);
    expect(result.retryMessages).toEqual([]);
    expect(await received(hook.url)).toEqual([]);
    expect((await deliveries(creds, hook.id)).data[0]).toMatchObject({ status: "delivering", attempts: [] });
  });

  it("takes over a send whose lease ran out (the Worker died mid-send)", async ({ expect }) => {
    const { creds, hook, deliveryId } = await seeded("ok", { status: "delivering", attempts: 1, leaseUntil: minutesFromNow(-1) });
    await runBatch([message(deliveryId)]);
    expect(await received(hook.url)).toHaveLength(1);
    expect((await deliveries(creds, hook.id)).data[0]).toMatchObject({ status: "delivered", last_status_code: 200 });
  });

  it("does not send a retry before it is due", async ({ expect }) => {
    const { creds, hook, deliveryId } = await seeded("ok", { status: "pending", attempts: 1, leaseUntil: minutesFromNow(10) });
    await runBatch([message(deliveryId)]);
    expect(await received(hook.url)).toEqual([]);
    expect((await deliveries(creds, hook.id)).data[0]).toMatchObject({ status: "pending", next_attempt_at: expect.any(String) });
  });
});
