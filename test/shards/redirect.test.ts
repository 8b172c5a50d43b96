// Queue messages in flight for an account that moves (src/shards/redirect.ts): a message stamped
// with the old shard waits while the account is frozen, and once the account has moved it is sent
// on to the new shard, once, and acked where it arrived.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import type { PipelineMessage } from "../../src/lib/queue";
import { ADMIN, call } from "../helpers/http";
import { orderPayload, unique } from "../helpers/factories";
import { waitFor } from "../helpers/wait";

let seq = 0;
async function deliver(body: PipelineMessage) {
  const batch = createMessageBatch<PipelineMessage>("order-pipeline", [{ id: `redirect-${++seq}`, timestamp: new Date(), attempts: 1, body }]);
  const ctx = createExecutionContext();
  await worker.queue!(batch, env);
  return getQueueResult(batch, ctx);
}

const routedAt = async (db: D1Database, id: number) => (await db.prepare("SELECT routed_at FROM orders WHERE id = ?").bind(id).first<{ routed_at: string | null }>())?.routed_at;

describe("a queue message of an account that moves", () => {
  it("waits while the account is frozen, then goes on to the new shard once, where it runs", async () => {
    const account = await call("POST", "/admin/v1/accounts", { headers: ADMIN, body: { name: unique("redirect"), shard: 0 } });
    const key = await call("POST", `/admin/v1/accounts/${account.json.id}/api-keys`, { headers: ADMIN, body: {} });
    const creds = { accountId: account.json.id, apiKey: key.json.api_key };
    const supplier = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Acme", channel: "pull" } });
    await call("POST", "/api/v1/routing-rules", { creds, body: { name: "all", conditions: [], action: { type: "assign_supplier", supplier_id: supplier.json.id } } });
    const created = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
    const [{ id: orderId }] = (await env.DB.prepare("SELECT id FROM orders WHERE reference = ?").bind(String(created.json.reference)).all<{ id: number }>()).results;
    await waitFor(() => routedAt(env.DB, orderId));

    // Frozen mid-move: the message (stamped shard 0) is retried, not run.
    const frozen = await call("POST", `/admin/v1/accounts/${creds.accountId}/move`, { headers: ADMIN, body: { shard: 1, pause_after: "freeze" } });
    expect(frozen.json.phase).toBe("copy");
    const waiting = await deliver({ type: "route_order", orderId, shard: 0 });
    expect([waiting.explicitAcks, waiting.retryMessages.map((m) => m.msgId)]).toEqual([[], [`redirect-${seq}`]]);

    // Moved: the order's row is on shard 1 only. Its routing is owed again there (a lost message,
    // say), and the message that still names shard 0 is acked there and runs on shard 1.
    for (let i = 0; i < 50; i++) if ((await call("POST", `/admin/v1/accounts/${creds.accountId}/move`, { headers: ADMIN, body: { shard: 1 } })).json.done) break;
    expect(await routedAt(env.DB, orderId)).toBeUndefined();
    await env.SHARD_1.prepare("UPDATE orders SET routed_at = NULL WHERE id = ?").bind(orderId).run();
    const moved = await deliver({ type: "route_order", orderId, shard: 0 });
    expect([moved.explicitAcks, moved.retryMessages.map((m) => m.msgId)]).toEqual([[`redirect-${seq}`], []]);
    await waitFor(() => routedAt(env.SHARD_1, orderId));
    // Sent once: the order still has its one dispatch.
    expect(await env.SHARD_1.prepare("SELECT count(*) AS n FROM dispatches WHERE order_id = ?").bind(orderId).first()).toEqual({ n: 1 });
  });
});
