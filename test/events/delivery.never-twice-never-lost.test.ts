// At least once, never twice at the same time. The queue may deliver a message twice or run two
// copies at once: a delivery must still be sent once. A message may get lost, or a Worker die
// mid-send: the cron (the safety net) must still get the event out. These call the Worker's queue
// and scheduled handlers directly with hand-made batches and controllers.
import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import worker from "../../src/index";
import type { PipelineMessage } from "../../src/lib/queue";
import { createAccount } from "../helpers/factories";
import { received } from "../helpers/fake-remote";
import { waitFor } from "../helpers/wait";
import { deliveries, minutesFromNow, seedDelivery, seedEvent, settledDeliveries, subscribe } from "./support";

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

async function runCron() {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: "* * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe.concurrent("the cron", () => {
  it("publishes an event nobody announced and delivers it", async ({ expect }) => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "ok", ["order.created"]);
    // Written as the outbox writes it, with no publish message behind it.
    const eventId = await seedEvent(creds.accountId, { published: false });
    await runCron();
    const published = await env.DB.prepare("SELECT published_at FROM events WHERE id = ?").bind(eventId).first<{ published_at: string | null }>();
    expect(published?.published_at).not.toBeNull();
    const [delivery] = await settledDeliveries(creds, hook.id, 1);
    expect(delivery).toMatchObject({ status: "delivered", event: { id: eventId, type: "order.created" } });
    expect(await received(hook.url)).toHaveLength(1);
  });

  it("publishes an event once however often it runs, and skips types nobody subscribed to", async ({ expect }) => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "ok", ["order.created"]);
    const created = await seedEvent(creds.accountId, { published: false });
    const shipped = await seedEvent(creds.accountId, { published: false, type: "order_line.shipped" });
    await Promise.all([runCron(), runCron()]);
    const rows = await env.DB.prepare("SELECT count(*) AS n FROM events WHERE id IN (?, ?) AND published_at IS NOT NULL").bind(created, shipped).first<{ n: number }>();
    expect(rows?.n).toBe(2);
    const [delivery] = await settledDeliveries(creds, hook.id, 1);
    expect(delivery.event.id).toBe(created);
    await waitFor(async () => (await received(hook.url)).length === 1);
    expect(await received(hook.url)).toHaveLength(1);
  });

  it("re-sends the message of a delivery whose message was lost", async ({ expect }) => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "ok", ["order.created"]);
    const eventId = await seedEvent(creds.accountId, { published: true });
    await seedDelivery(creds.accountId, hook.id, eventId, { updatedAt: minutesFromNow(-10) });
    await runCron();
    const [delivery] = await settledDeliveries(creds, hook.id, 1);
    expect(delivery).toMatchObject({ status: "delivered", last_status_code: 200 });
    expect(delivery.attempts).toHaveLength(1);
  });

  it("finishes a delivery whose Worker died mid-send, once its lease ran out", async ({ expect }) => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "ok", ["order.created"]);
    const eventId = await seedEvent(creds.accountId, { published: true });
    await seedDelivery(creds.accountId, hook.id, eventId, { status: "delivering", attempts: 1, leaseUntil: minutesFromNow(-1) });
    await runCron();
    const [delivery] = await settledDeliveries(creds, hook.id, 1);
    expect(delivery).toMatchObject({ status: "delivered", last_status_code: 200 });
  });

  it("sends nothing for a paused subscription", async ({ expect }) => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "ok", ["order.created"]);
    // An active subscription's overdue delivery beside it: the same cron's re-sent messages delivered
    // show that the cron ran and its messages were handled (no sleep standing for "long enough").
    const active = await subscribe(creds, "ok", ["order.created"]);
    const eventId = await seedEvent(creds.accountId, { published: true });
    await seedDelivery(creds.accountId, hook.id, eventId, { updatedAt: minutesFromNow(-10) });
    await seedDelivery(creds.accountId, active.id, eventId, { updatedAt: minutesFromNow(-10) });
    await env.DB.prepare("UPDATE webhook_subscriptions SET active = 0 WHERE id = ?").bind(hook.id).run();
    await runCron();
    const [sent] = await settledDeliveries(creds, active.id, 1);
    expect(sent).toMatchObject({ status: "delivered", last_status_code: 200 });
    expect(await received(active.url)).toHaveLength(1);
    expect(await received(hook.url)).toEqual([]);
    const paused = (await deliveries(creds, hook.id)).data[0];
    expect([paused.status, paused.attempts]).toEqual(["pending", []]);
  });
});
