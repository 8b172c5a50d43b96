import { env } from "cloudflare:workers";
// Failing endpoints: every attempt recorded, backoff through the queue, a final failure, re-sending.
// The tests set SEND_MAX_ATTEMPTS=3, RETRY_BASE_SECONDS=0 and OUTBOUND_TIMEOUT_MS=300 (vitest.config.ts).
import { describe, expect, it } from "vitest";
import { createAccount, createOrder } from "../helpers/factories";
import { received, remoteUrl } from "../helpers/fake-remote";
import { call } from "../helpers/http";
import { waitFor } from "../helpers/wait";
import { deliveries, EVENT_ID, ISO, settledDeliveries, shopVerifies, subscribe } from "./support";

const attempt = (status_code: number | null, error: string | null) => ({ status_code, error, duration_ms: expect.any(Number), created_at: ISO });

describe.concurrent("failing webhook endpoints", () => {
  it("retries a 500 and gives up after SEND_MAX_ATTEMPTS, with every attempt recorded", async ({ expect }) => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "status-500", ["order.created"]);
    await createOrder(creds);
    const [delivery] = await settledDeliveries(creds, hook.id, 1);
    const error = 'HTTP 500: {"error":"status 500"}';
    expect(delivery).toMatchObject({
      status: "failed",
      next_attempt_at: null,
      last_status_code: 500,
      last_error: error,
      delivered_at: null,
      attempts: [attempt(500, error), attempt(500, error), attempt(500, error)],
    });
    const sent = await received(hook.url);
    expect(sent).toHaveLength(3);
    // One event, one id and the same bytes on every attempt, so the shop can drop duplicates.
    expect(new Set(sent.map((r) => r.headers["x-webhook-id"]))).toEqual(new Set([delivery.event.id]));
    expect(new Set(sent.map((r) => r.body)).size).toBe(1);
  });

  it("waits as long as a 429's Retry-After asks before the next attempt (the backoff alone would retry at once here)", async ({ expect }) => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "retry-after-120", ["order.created"]);
    await createOrder(creds);
    const delivery = await waitFor(async () => {
      const [d] = (await deliveries(creds, hook.id)).data;
      return d?.status === "pending" && d.attempts.length === 1 ? d : null;
    });
    const error = 'HTTP 429: {"error":"slow down"}';
    expect(delivery).toMatchObject({ status: "pending", last_status_code: 429, last_error: error, attempts: [attempt(429, error)] });
    const wait = (Date.parse(delivery.next_attempt_at) - Date.parse(delivery.attempts[0].created_at)) / 1000;
    expect(wait).toBeGreaterThanOrEqual(119);
    expect(wait).toBeLessThanOrEqual(121);
    expect(await received(hook.url)).toHaveLength(1);
  });

  it("delivers on the third attempt to an endpoint that fails twice", async ({ expect }) => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "flaky-2", ["order.created"]);
    await createOrder(creds);
    const [delivery] = await settledDeliveries(creds, hook.id, 1);
    expect(delivery).toMatchObject({
      status: "delivered",
      last_status_code: 200,
      last_error: null,
      delivered_at: ISO,
      attempts: [attempt(500, 'HTTP 500: {"error":"flaky"}'), attempt(500, 'HTTP 500: {"error":"flaky"}'), attempt(200, null)],
    });
    const sent = await received(hook.url);
    expect(sent).toHaveLength(3);
    expect(delivery.event.id).toMatch(EVENT_ID);
    for (const request of sent) {
      expect(request.headers["x-webhook-id"]).toBe(delivery.event.id);
      expect(JSON.parse(request.body).id).toBe(delivery.event.id);
      expect(await shopVerifies(request.headers["x-webhook-signature"], hook.secret, request.body)).toBe(true);
    }
  });

  it("records a timeout as an error without a status code", async ({ expect }) => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "slow", ["order.created"]);
    await createOrder(creds);
    const [delivery] = await settledDeliveries(creds, hook.id, 1);
    const error = `Timed out after ${env.OUTBOUND_TIMEOUT_MS} ms`;
    expect(delivery).toMatchObject({
      status: "failed",
      last_status_code: null,
      last_error: error,
      attempts: [attempt(null, error), attempt(null, error), attempt(null, error)],
    });
    for (const a of delivery.attempts) expect(a.duration_ms).toBeGreaterThanOrEqual(Number(env.OUTBOUND_TIMEOUT_MS) - 50);
  });

  it("records a network error", async ({ expect }) => {
    const creds = await createAccount();
    // Nothing listens on port 9 (discard) of loopback: the connection is refused.
    const created = await call("POST", "/api/v1/webhooks", { creds, body: { url: "http://127.0.0.1:9/hook", events: ["order.created"] } });
    await createOrder(creds);
    const [delivery] = await settledDeliveries(creds, created.json.id, 1);
    expect(delivery.status).toBe("failed");
    expect(delivery.last_status_code).toBeNull();
    expect(delivery.attempts).toHaveLength(3);
    expect(delivery.last_error).toBe("Network error: Network connection lost.");
  });

  it("re-sends a failed delivery once per click, with a fresh round of attempts", async ({ expect }) => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "status-503", ["order.created"]);
    await createOrder(creds);
    const [failed] = await settledDeliveries(creds, hook.id, 1);
    expect(failed.status).toBe("failed");

    // The shop fixes its endpoint, then double-clicks "re-send".
    const fixed = remoteUrl("ok");
    await call("PATCH", `/api/v1/webhooks/${hook.id}`, { creds, body: { url: fixed } });
    const path = `/api/v1/webhooks/${hook.id}/deliveries/${failed.id}/redeliver`;
    const clicks = await Promise.all([call("POST", path, { creds }), call("POST", path, { creds })]);
    expect(clicks.map((c) => c.status).sort()).toEqual([202, 409]);
    const accepted = clicks.find((c) => c.status === 202)!;
    expect(accepted.json).toMatchObject({ id: failed.id, status: "pending", next_attempt_at: null, attempts: failed.attempts });
    expect(clicks.find((c) => c.status === 409)!.json).toEqual({
      message: "Conflict",
      error: `Delivery ${failed.id} is already waiting to be sent or being sent.`,
    });

    const [delivered] = await settledDeliveries(creds, hook.id, 1);
    expect(delivered).toMatchObject({ status: "delivered", last_status_code: 200, last_error: null });
    expect(delivered.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([503, 503, 503, 200]);
    const sent = await received(fixed);
    expect(sent).toHaveLength(1);
    expect(sent[0].headers["x-webhook-id"]).toBe(failed.event.id);

    // A delivered one can be re-sent too (the shop lost it): same event id again.
    const again = await call("POST", path, { creds });
    expect(again.status).toBe(202);
    await waitFor(async () => (await received(fixed)).length === 2);
    const [second] = await settledDeliveries(creds, hook.id, 1);
    expect(second.attempts).toHaveLength(5);
    expect((await received(fixed)).map((r) => r.headers["x-webhook-id"])).toEqual([failed.event.id, failed.event.id]);
  });

  it("refuses to re-send while the subscription is paused, and 404s an unknown delivery", async ({ expect }) => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "status-404", ["order.created"]);
    await createOrder(creds);
    const [failed] = await settledDeliveries(creds, hook.id, 1);
    expect(failed.attempts).toHaveLength(3);
    await call("PATCH", `/api/v1/webhooks/${hook.id}`, { creds, body: { active: false } });
    const paused = await call("POST", `/api/v1/webhooks/${hook.id}/deliveries/${failed.id}/redeliver`, { creds });
    expect(paused.status).toBe(409);
    expect(paused.json).toEqual({ message: "Conflict", error: `Webhook ${hook.id} is not active; activate it before re-sending.` });
    const unknown = await call("POST", `/api/v1/webhooks/${hook.id}/deliveries/999999999/redeliver`, { creds });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ message: "Not Found", error: "Delivery with id '999999999' not found" });
    const one = await call("GET", `/api/v1/webhooks/${hook.id}/deliveries/${failed.id}`, { creds });
    expect(one.json).toEqual({ ...failed, updated_at: one.json.updated_at });
  });
});
