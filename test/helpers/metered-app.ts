// The Worker with the benchmark's metering on (BENCH_METRICS=1), as the pipeline tests count it:
// requests through the app answer their D1 work in X-D1-* headers, and the queue consumer logs its
// own per message group. Statements, round trips and rows read do not swing with the machine's load.
import { createExecutionContext, createMessageBatch, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { createApp } from "../../src/app";
import type { Bindings } from "../../src/env";
import type { PipelineMessage } from "../../src/lib/queue";
import { handlePipelineBatch } from "../../src/pipeline/consumer";
import { authHeaders, BASE, call, type Credentials } from "./http";
import type { Captured } from "./statements";

const app = createApp();

export type Counted = { queries: number; roundTrips: number };

/**
 * The Worker's env with metering on, and a queue producer that keeps what is sent (the test hands
 * each message to the consumer itself, so no other delivery can handle it first).
 */
export function benchEnv() {
  const sent: PipelineMessage[] = [];
  const PIPELINE = {
    send: async (body: PipelineMessage) => void sent.push(body),
    sendBatch: async (messages: { body: PipelineMessage }[]) => void sent.push(...messages.map((m) => m.body)),
  };
  // Both queues (src/lib/queue.ts: outside calls travel on OUTBOUND) keep what is sent, in order.
  return { env: { ...env, BENCH_METRICS: "1", PIPELINE, OUTBOUND: PIPELINE } as unknown as Bindings, sent };
}

/** A request through the app with metering on: its status, JSON and D1 work (statements, round trips, rows read). */
export async function request(view: Bindings, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`${BASE}${path}`, { method, headers: { accept: "application/json", "content-type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body) }),
    view,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const counted: Counted = { queries: Number(res.headers.get("X-D1-Queries")), roundTrips: Number(res.headers.get("X-D1-Round-Trips")) };
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, counted, rowsRead: Number(res.headers.get("X-D1-Rows-Read")) };
}

export type ConsumedGroup = Counted & { type: string; messages: number; rowsRead: number; statements: (Captured & { rowsRead?: number })[] };

let seq = 0;
/** Hands the messages to the consumer as one queue batch; what it metered, per logged group. */
export async function consume(view: Bindings, bodies: PipelineMessage[]): Promise<ConsumedGroup[]> {
  const logged: string[] = [];
  const spy = vi.spyOn(console, "warn").mockImplementation((line: unknown) => void logged.push(String(line)));
  try {
    const batch = createMessageBatch<PipelineMessage>("order-pipeline", bodies.map((body) => ({ id: `metered-${++seq}`, timestamp: new Date(), attempts: 1, body })));
    await handlePipelineBatch(batch, view);
  } finally {
    spy.mockRestore();
  }
  return logged.filter((l) => l.startsWith("bench:pipeline ")).map((l) => JSON.parse(l.slice("bench:pipeline ".length)));
}

/**
 * An order's life in the decline setting (routing.ts pullThenWebhook), metered: the create, its
 * route_order message, the pull supplier's decline of every line, and the route_order messages that
 * re-route them (with the first attempts they hand to the outbound queue). Each step's answer or consumed groups; the lines' ids in their order.
 */
export async function declinedOrderLife(creds: Credentials, supplierKey: string, body: unknown) {
  const { env: view, sent } = benchEnv();
  const created = await request(view, "POST", "/api/v1/orders", authHeaders(creds), body);
  expect(created.status).toBe(200);
  const routed = await consume(view, sent.splice(0));
  const reference = String(created.json.reference);
  const lineIds = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines.map((l: { id: number }) => l.id) as number[];
  const declined = await request(view, "POST", "/api/v1/supplier/answers", { authorization: `Bearer ${supplierKey}` }, {
    answers: lineIds.map((id) => ({ line_id: id, action: "decline", reason: "out of stock" })),
  });
  expect(declined.status).toBe(200);
  expect(declined.json).toEqual({ results: lineIds.map((id) => ({ line_id: id, current_status: "declined" })) });
  const rerouting = await consume(view, sent.splice(0).filter((m) => m.type === "route_order"));
  // The route step hands the first attempt at the next supplier's push dispatch to the outbound queue.
  const rerouted = [...rerouting, ...(await consume(view, sent.splice(0).filter((m) => m.type === "send_dispatches")))];
  return { reference, lineIds, created, routed, declined, rerouted };
}
