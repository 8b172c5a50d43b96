// The operator's lists across shards (src/shards/accounts.ts): parked orders and dead letters of
// every shard, each saying its shard, replayable where they are; the console's account pages on
// the account's shard. A dead letter goes through the real dead-letter consumer.
import { createMessageBatch } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { ADMIN, call, type Credentials } from "../helpers/http";
import { orderPayload, unique } from "../helpers/factories";
import { waitFor } from "../helpers/wait";

async function accountOn(shard: number): Promise<Credentials> {
  const account = await call("POST", "/admin/v1/accounts", { headers: ADMIN, body: { name: unique("ops"), shard } });
  const key = await call("POST", `/admin/v1/accounts/${account.json.id}/api-keys`, { headers: ADMIN, body: {} });
  return { accountId: account.json.id, apiKey: key.json.api_key };
}

/** Every item of an admin list, all pages. */
async function everything(path: string) {
  const items: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    const res = await call("GET", `${path}${path.includes("?") ? "&" : "?"}per_page=100&page=${page}`, { headers: ADMIN });
    expect(res.status, res.text).toBe(200);
    items.push(...res.json.data);
    if (res.json.data.length < 100) return items;
  }
}

describe("the operator's lists across shards", () => {
  it("lists a shard-1 account with its shard", async () => {
    const b = await accountOn(1);
    const accounts = await everything("/admin/v1/accounts");
    expect(accounts.find((a) => a.id === b.accountId)).toMatchObject({ id: b.accountId, shard: 1, active_api_keys: 1 });
  });

  it("lists a shard-1 account's parked order with its shard, and replays it there", async () => {
    const b = await accountOn(1);
    const created = await call("POST", "/api/v1/orders", { creds: b, body: orderPayload() });
    const reference = String(created.json.reference);
    await waitFor(async () => (await env.SHARD_1.prepare("SELECT routed_at FROM orders WHERE reference = ?").bind(reference).first<{ routed_at: string | null }>())?.routed_at);
    await env.SHARD_1.prepare("UPDATE orders SET parked_at = ?, routing_attempts = 20, routing_error = 'broken' WHERE reference = ?").bind("2026-11-20T10:00:00.000000Z", reference).run();

    const parked = await everything("/admin/v1/parked-orders");
    expect(parked.find((o) => o.reference === reference)).toMatchObject({ account_id: b.accountId, reference, routing_attempts: 20, routing_error: "broken", shard: 1 });
    const replayed = await call("POST", `/admin/v1/parked-orders/${reference}/replay`, { headers: ADMIN });
    expect([replayed.status, replayed.json.reference]).toEqual([200, reference]);
    expect(await env.SHARD_1.prepare("SELECT parked_at, routing_attempts FROM orders WHERE reference = ?").bind(reference).first()).toEqual({ parked_at: null, routing_attempts: 0 });
  });

  it("records a shard-1 message's dead letter on shard 1, lists it with its shard, and replays it there", async () => {
    const b = await accountOn(1);
    const created = await call("POST", "/api/v1/orders", { creds: b, body: orderPayload() });
    const [order] = (await env.SHARD_1.prepare("SELECT id FROM orders WHERE reference = ?").bind(String(created.json.reference)).all<{ id: number }>()).results;
    const body = { type: "route_order", orderId: order.id, shard: 1 };
    const batch = createMessageBatch("order-pipeline-dlq", [{ id: `dlq-${crypto.randomUUID()}`, timestamp: new Date(), attempts: 1, body }]);
    await worker.queue!(batch as never, env);

    const letters = await everything("/admin/v1/dead-letters");
    const letter = letters.find((d) => d.order_id === order.id);
    expect(letter).toMatchObject({ queue: "order-pipeline-dlq", type: "route_order", body, account_id: b.accountId, status: "open", shard: 1 });
    expect(await env.DB.prepare("SELECT count(*) AS n FROM dead_letters WHERE order_id = ?").bind(order.id).first()).toEqual({ n: 0 });
    const replayed = await call("POST", `/admin/v1/dead-letters/${letter!.id}/replay`, { headers: ADMIN });
    expect(replayed.status, replayed.text).toBe(200);
    expect(replayed.json).toMatchObject({ id: letter!.id, status: "replayed", shard: 1 });
  });
});
