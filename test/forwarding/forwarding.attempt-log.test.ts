// Every attempt at sending a dispatch, as GET /api/v1/orders/{reference}/dispatches (and the
// console's order page) show it: when, what went where, the outcome, the supplier's answer and how
// long it took; kept in the dispatch's attempt_log by the same UPDATE that records the outcome, the
// last 20 of them, while `attempts` keeps counting. The suppliers are the fake remote (a loopback
// HTTP server) and the send_email binding.
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { createDb } from "../../src/db";
import { attemptDispatch } from "../../src/routing/failed-sends";
import { carrierPipeline } from "../../src/lib/queue";
import type { Bindings } from "../../src/env";
import { claimedNotSent } from "../helpers/cancellations";
import { createAccount, createOrder, exec } from "../helpers/factories";
import { remoteUrl } from "../helpers/fake-remote";
import { call, type Credentials } from "../helpers/http";
import { createSupplier } from "../helpers/routing";
import { orderSettled, supplierWithRule } from "../helpers/suppliers";

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
const MS = expect.any(Number);

const dispatchesOf = async (creds: Credentials, reference: string) => (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;

/** An order of one line to a supplier on this channel, settled in one of `states`; its one dispatch. */
async function sent(settings: Record<string, unknown>, states: string[]) {
  const creds = await createAccount();
  const { supplier } = await supplierWithRule(creds, settings);
  const { reference } = await createOrder(creds, { products: [{ external_id: "mug", name: "Blue mug", quantity: 1, price: 10 }] });
  await orderSettled(creds, reference, states);
  const [dispatch] = await dispatchesOf(creds, reference);
  return { creds, supplier, reference, dispatch };
}

describe("the attempt log of a dispatch", () => {
  it("a webhook that fails once, then accepts: both attempts, in order, with their statuses and answers", async () => {
    const url = remoteUrl("flaky-1");
    const { dispatch } = await sent({ channel: "webhook", webhook_url: url }, ["completed"]);
    expect(dispatch).toMatchObject({ status: "sent", attempts: 2, last_error: null });
    expect(dispatch.attempt_log).toEqual([
      { attempt: 1, at: ISO, channel: "webhook", to: url, lines: 1, outcome: "http_error", http_status: 500, response: '{"error":"flaky"}', duration_ms: MS },
      { attempt: 2, at: ISO, channel: "webhook", to: url, lines: 1, outcome: "accepted", http_status: 200, response: '{"received":true}', duration_ms: MS },
    ]);
    expect(dispatch.attempt_log[0].at < dispatch.attempt_log[1].at).toBe(true);
  });

  it("a supplier that refuses (4xx): one attempt, its answer, the dispatch failed", async () => {
    const url = remoteUrl("status-422");
    const { dispatch } = await sent({ channel: "webhook", webhook_url: url }, ["failed"]);
    expect(dispatch).toMatchObject({ status: "failed", attempts: 1 });
    expect(dispatch.attempt_log).toEqual([
      { attempt: 1, at: ISO, channel: "webhook", to: url, lines: 1, outcome: "http_error", http_status: 422, response: '{"error":"status 422"}', duration_ms: MS },
    ]);
  });

  it("network errors and timeouts: every attempt up to the last (SEND_MAX_ATTEMPTS = 3 here), each said", async () => {
    const refused = `${inject("closedPortUrl")}/orders`;
    const network = await sent({ channel: "webhook", webhook_url: refused }, ["failed"]);
    expect(network.dispatch).toMatchObject({ status: "failed", attempts: 3 });
    expect(network.dispatch.attempt_log.map((a: { attempt: number; outcome: string; http_status: number | null; to: string }) => [a.attempt, a.outcome, a.http_status, a.to])).toEqual([
      [1, "network_error", null, refused],
      [2, "network_error", null, refused],
      [3, "network_error", null, refused],
    ]);
    expect(network.dispatch.attempt_log[0].response).toMatch(/^.{1,500}$/s);

    const slow = remoteUrl("slow");
    const timedOut = await sent({ channel: "webhook", webhook_url: slow }, ["failed"]);
    expect(timedOut.dispatch.attempt_log.map((a: { outcome: string; response: string }) => [a.outcome, a.response])).toEqual(
      Array(3).fill(["timeout", "no answer within 1000 ms"]),
    );
    // Each attempt took the time box (OUTBOUND_TIMEOUT_MS = 1000 in the tests).
    for (const a of timedOut.dispatch.attempt_log) expect(a.duration_ms).toBeGreaterThanOrEqual(1000);
  });

  it("the e-mail channel: the attempt, to the supplier's address", async () => {
    const { dispatch } = await sent({ channel: "email", email: "orders@supplier.example" }, ["completed"]);
    expect(dispatch.attempt_log).toEqual([
      { attempt: 1, at: ISO, channel: "email", to: "orders@supplier.example", lines: 1, outcome: "accepted", http_status: null, response: null, duration_ms: MS },
    ]);
  });

  it("pull and manual dispatches send nothing: no attempt is logged", async () => {
    const pull = await sent({ channel: "pull" }, ["ruled"]);
    expect(pull.dispatch).toMatchObject({ status: "awaiting_pickup", attempt_log: [] });
    const manual = await sent({ channel: "manual" }, ["ruled"]);
    expect(manual.dispatch).toMatchObject({ status: "manual", attempt_log: [] });
  });

  it("keeps the last 20 attempts: at 20 all of them, at 21 the first is dropped and the count says 21", async () => {
    const creds = await createAccount();
    const url = remoteUrl("status-503");
    // No rule: the pipeline leaves the order's lines alone, the seeded dispatch carries them.
    const supplier = await createSupplier(creds, { channel: "webhook", webhook_url: url });
    const { reference, dispatchId } = await claimedNotSent(creds, { id: supplier.id, channel: "webhook" });
    // 19 earlier attempts, as the log keeps them.
    const earlier = Array.from({ length: 19 }, (_, i) => ({
      attempt: i + 1,
      at: `2026-11-01T00:00:${String(i).padStart(2, "0")}.000000Z`,
      channel: "webhook",
      to: url,
      lines: 2,
      outcome: "http_error",
      http_status: 503,
      response: '{"error":"status 503"}',
      duration_ms: 5,
    }));
    await exec("UPDATE dispatches SET attempts = 19, attempt_log = ? WHERE id = ?", JSON.stringify(earlier), dispatchId);
    // Attempts are not given up before the 100th here: the 20th and the 21st are queued again.
    const patient = { ...env, SEND_MAX_ATTEMPTS: "100" } as Bindings;
    const db = createDb(env.DB);

    expect(await attemptDispatch(db, patient, carrierPipeline(patient), dispatchId)).toEqual({ done: false, retryInSeconds: 0 });
    let [dispatch] = await dispatchesOf(creds, reference);
    expect(dispatch.id).toBe(dispatchId);
    expect(dispatch).toMatchObject({ status: "queued", attempts: 20 });
    expect(dispatch.attempt_log).toHaveLength(20);
    expect(dispatch.attempt_log.slice(0, 19)).toEqual(earlier);
    expect(dispatch.attempt_log[19]).toEqual({ attempt: 20, at: ISO, channel: "webhook", to: url, lines: 2, outcome: "http_error", http_status: 503, response: '{"error":"status 503"}', duration_ms: MS });

    expect(await attemptDispatch(db, patient, carrierPipeline(patient), dispatchId)).toEqual({ done: false, retryInSeconds: 0 });
    [dispatch] = await dispatchesOf(creds, reference);
    expect(dispatch).toMatchObject({ status: "queued", attempts: 21 });
    expect(dispatch.attempt_log).toHaveLength(20);
    expect(dispatch.attempt_log.map((a: { attempt: number }) => a.attempt)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect(dispatch.attempt_log.slice(0, 18)).toEqual(earlier.slice(1));
  });
});
