// Ids a shard mints after taking in an account: in its own id block, never in the block the
// account's rows came from (which its old shard still mints in). A dispatch id minted after the
// largest id alone landed in the old block on a shard whose only dispatches had moved in, and the
// next move of an account between the two shards lost a row to ON CONFLICT and never passed its
// check. This file runs the real Worker over a deployment of its own (IDS_* in vitest.config.ts),
// whose shards start with no dispatch at all, and runs the queue's messages itself.
import { applyD1Migrations, createExecutionContext, createMessageBatch, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { idRangeStatements } from "../../scripts/lib/shards.mjs";
import worker from "../../src/index";
import type { PipelineMessage } from "../../src/lib/queue";
import { orderPayload, unique } from "../helpers/factories";
import { ADMIN, authHeaders, BASE, type Credentials } from "../helpers/http";

const BLOCK = 2 ** 40;
const deployment = { ...env, DB: env.IDS_DB, SHARD_1: env.IDS_SHARD_1, DIRECTORY: env.IDS_DIRECTORY, PIPELINE: env.IDS_PIPELINE, OUTBOUND: env.IDS_PIPELINE } as typeof env;
const shards = [env.IDS_DB, env.IDS_SHARD_1];

async function call(method: string, path: string, opts: { creds?: Credentials; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { accept: "application/json", ...(opts.creds ? authHeaders(opts.creds) : {}), ...opts.headers };
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${BASE}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }), deployment, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, text };
}

/** An account on `shard` that routes every line to a pull supplier. */
async function shopOn(shard: number): Promise<Credentials> {
  const account = await call("POST", "/admin/v1/accounts", { headers: ADMIN, body: { name: unique("ids"), shard } });
  const key = await call("POST", `/admin/v1/accounts/${account.json.id}/api-keys`, { headers: ADMIN, body: {} });
  const creds = { accountId: account.json.id as number, apiKey: key.json.api_key as string };
  const supplier = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Acme", channel: "pull" } });
  const rule = await call("POST", "/api/v1/routing-rules", { creds, body: { name: "all", conditions: [], action: { type: "assign_supplier", supplier_id: supplier.json.id } } });
  expect([account.status, key.status, supplier.status, rule.status]).toEqual([201, 201, 201, 201]);
  return creds;
}

/** Creates an order and runs its routing (this deployment's queue has no consumer): its dispatch id. */
async function routedOrder(creds: Credentials, shard: number): Promise<{ orderId: number; dispatchId: number }> {
  const created = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
  expect(created.status, created.text).toBe(200);
  const order = await shards[shard].prepare("SELECT id FROM orders WHERE reference = ?").bind(String(created.json.reference)).first<{ id: number }>();
  const body: PipelineMessage = { type: "route_order", orderId: order!.id, shard };
  const batch = createMessageBatch<PipelineMessage>("order-pipeline", [{ id: unique("msg"), timestamp: new Date(), attempts: 1, body }]);
  await worker.queue!(batch, deployment);
  const dispatch = await shards[shard].prepare("SELECT id FROM dispatches WHERE order_id = ?").bind(order!.id).first<{ id: number }>();
  expect(dispatch, "the order was routed to its supplier").not.toBeNull();
  return { orderId: order!.id, dispatchId: dispatch!.id };
}

async function moveTo(accountId: number, shard: number) {
  for (let i = 0; i < 50; i++) {
    const res = await call("POST", `/admin/v1/accounts/${accountId}/move`, { headers: ADMIN, body: { shard } });
    expect(res.status, res.text).toBe(200);
    if (res.json.done) return res.json;
  }
  throw new Error("the move did not finish in 50 calls");
}

const count = async (shard: number, accountId: number) =>
  (await shards[shard].prepare("SELECT count(*) AS n FROM dispatches WHERE account_id = ?").bind(accountId).first<{ n: number }>())!.n;

beforeAll(async () => {
  for (const db of shards) await applyD1Migrations(db, env.TEST_MIGRATIONS);
  await env.IDS_SHARD_1.batch(idRangeStatements(1).map((s) => env.IDS_SHARD_1.prepare(s)));
  await applyD1Migrations(env.IDS_DIRECTORY, env.TEST_DIRECTORY_MIGRATIONS);
});

describe("ids minted after a move", () => {
  it("a shard whose only dispatches moved in mints its next one in its own block, and the account moves back whole", async () => {
    const a = await shopOn(0);
    const first = await routedOrder(a, 0);
    expect(Math.floor(first.dispatchId / BLOCK)).toBe(0);

    expect((await moveTo(a.accountId, 1)).done).toBe(true);
    // Shard 1's only dispatch is a's, from block 0. Its next one is shard 1's own.
    const second = await routedOrder(a, 1);
    expect(Math.floor(second.dispatchId / BLOCK)).toBe(Math.floor(second.orderId / BLOCK));
    expect(Math.floor(second.dispatchId / BLOCK)).toBeGreaterThanOrEqual(1);

    // Shard 0 goes on minting in block 0 for another shop.
    const b = await shopOn(0);
    const other = await routedOrder(b, 0);
    expect(other.dispatchId).not.toBe(second.dispatchId);

    // So a's dispatches come back to shard 0 whole.
    expect((await moveTo(a.accountId, 0)).done).toBe(true);
    expect([await count(0, a.accountId), await count(1, a.accountId), await count(0, b.accountId)]).toEqual([2, 0, 1]);
  });
});
