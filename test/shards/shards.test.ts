// Sharding by account (src/shards): accounts live on shards (DB is shard 0, SHARD_1 the other
// here), the directory says where, and every path (the API, the supplier API, the console, the
// queue, the cron) finds the account's shard. Raw reads go to the shard named, so a row in the
// wrong database fails the test.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { isoMicro } from "../../src/lib/time";
import { ADMIN, call, type Credentials } from "../helpers/http";
import { orderPayload } from "../helpers/factories";
import { waitFor } from "../helpers/wait";

const ID_RANGE = 2 ** 40;
const shards = [env.DB, env.SHARD_1];

async function accountOn(shard: number | undefined, name = `shop-${crypto.randomUUID().slice(0, 8)}`): Promise<Credentials & { shard: number }> {
  const account = await call("POST", "/admin/v1/accounts", { headers: ADMIN, body: shard === undefined ? { name } : { name, shard } });
  expect(account.status, account.text).toBe(201);
  const key = await call("POST", `/admin/v1/accounts/${account.json.id}/api-keys`, { headers: ADMIN, body: {} });
  expect(key.status, key.text).toBe(201);
  return { accountId: account.json.id, apiKey: key.json.api_key, shard: account.json.shard };
}

async function rowsOn<T>(shard: number, query: string, ...params: unknown[]): Promise<T[]> {
  return (await shards[shard].prepare(query).bind(...params).all<T>()).results;
}

/** A supplier taking everything (pull channel: the dispatch waits for it) and a rule to it. */
async function supplierAndRule(creds: Credentials) {
  const supplier = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Acme", channel: "pull" } });
  expect(supplier.status, supplier.text).toBe(201);
  const rule = await call("POST", "/api/v1/routing-rules", { creds, body: { name: "all", conditions: [], action: { type: "assign_supplier", supplier_id: supplier.json.id } } });
  expect(rule.status, rule.text).toBe(201);
  return supplier.json as { id: number };
}

describe("placement", () => {
  it("puts a new account on the shard with the most room, or where the operator pins it", async () => {
    // The smallest database (D1 reports its size with every result); a tie goes to the lower number.
    const sizes = await Promise.all(shards.map(async (d) => ((await d.prepare("SELECT 1").run()).meta as { size_after: number }).size_after));
    const placed = await accountOn(undefined);
    expect(placed.shard).toBe(sizes[1] < sizes[0] ? 1 : 0);
    const other = 1 - placed.shard;
    const pinned = await accountOn(other);
    expect(pinned.shard).toBe(other);
    expect(await rowsOn(placed.shard, "SELECT id FROM accounts WHERE id = ?", placed.accountId)).toEqual([{ id: placed.accountId }]);
    expect(await rowsOn(other, "SELECT id FROM accounts WHERE id = ?", placed.accountId)).toEqual([]);
    expect(await rowsOn(other, "SELECT id FROM accounts WHERE id = ?", pinned.accountId)).toEqual([{ id: pinned.accountId }]);
    // Account ids come from the directory: one sequence for all shards.
    expect(pinned.accountId).toBeGreaterThan(placed.accountId);
    const refused = await call("POST", "/admin/v1/accounts", { headers: ADMIN, body: { name: "nowhere", shard: 7 } });
    expect([refused.status, refused.json]).toEqual([422, { message: "Errors", errors: { shard: ["The selected shard is invalid. Shards: 0, 1."] } }]);
  });
});

describe("two accounts on two shards", () => {
  it("are fully isolated, every id minted in its shard's range, and every endpoint finds the right shard", async () => {
    const a = await accountOn(0);
    const b = await accountOn(1);
    const supplierB = await supplierAndRule(b);
    expect(supplierB.id).toBeGreaterThanOrEqual(ID_RANGE);

    const created = await call("POST", "/api/v1/orders", { creds: b, body: orderPayload() });
    expect(created.status, created.text).toBe(200);
    const reference = String(created.json.reference);
    const [order] = await rowsOn<{ id: number }>(1, "SELECT id FROM orders WHERE reference = ?", reference);
    expect(order.id).toBeGreaterThanOrEqual(ID_RANGE);
    expect(await rowsOn(0, "SELECT id FROM orders WHERE reference = ?", reference)).toEqual([]);

    // The pipeline (queue messages stamped with shard 1) routes it to B's supplier.
    const routed = await waitFor(async () => {
      const res = await call("GET", `/api/v1/orders/${reference}`, { creds: b });
      const logs: { message: string }[] = res.json.order_lines?.[0]?.logs ?? [];
      return logs.some((l) => l.message === "Waiting for supplier Acme to fetch and acknowledge the order") ? res.json : null;
    });
    expect(routed.order_lines[0].logs[1].message).toMatch(/^Matched to supplier Acme by rule #\d+ 'all'$/);

    // A cannot see, list or touch B's order, supplier or rule: 404 like an unknown one.
    expect((await call("GET", `/api/v1/orders/${reference}`, { creds: a })).status).toBe(404);
    expect((await call("GET", "/api/v1/orders", { creds: a })).json.data).toEqual([]);
    expect((await call("GET", `/api/v1/suppliers/${supplierB.id}`, { creds: a })).status).toBe(404);
    expect((await call("POST", `/api/v1/orders/${reference}/block`, { creds: a, body: {} })).status).toBe(404);
    // B's reads and writes all on shard 1.
    expect((await call("GET", "/api/v1/orders", { creds: b })).json.data.map((o: { reference: string }) => o.reference)).toEqual([reference]);
    expect((await call("GET", "/api/v1", { creds: b })).json.id).toBe(b.accountId);
    expect((await call("GET", "/api/v1/suppliers", { creds: b })).json.data.map((s: { id: number }) => s.id)).toEqual([supplierB.id]);

    // The supplier API: B's supplier key (registered in the directory) reaches shard 1.
    const key = await call("POST", `/api/v1/suppliers/${supplierB.id}/keys`, { creds: b, body: { name: "portal" } });
    expect(key.status, key.text).toBe(201);
    const pickup = await call("GET", "/api/v1/supplier/orders", { headers: { authorization: `Bearer ${key.json.key}` } });
    expect(pickup.status, pickup.text).toBe(200);
    expect(JSON.stringify(pickup.json)).toContain(reference);
  });

  it("refuses a revoked key of a shard-1 account at once (the key is read on the shard's primary, not from the cache)", async () => {
    const b = await accountOn(1);
    expect((await call("GET", "/api/v1", { creds: b })).status).toBe(200);
    const keys = await call("GET", `/admin/v1/accounts/${b.accountId}/api-keys`, { headers: ADMIN });
    expect(keys.json.data).toHaveLength(1);
    expect((await call("DELETE", `/admin/v1/api-keys/${keys.json.data[0].id}`, { headers: ADMIN })).status).toBe(204);
    const refused = await call("GET", "/api/v1", { creds: b });
    expect([refused.status, refused.json]).toEqual([401, { message: "Unauthorized", error: "The api-key header holds a revoked key." }]);
  });

  it("lists the accounts of every shard to the operator, ids ascending", async () => {
    const a = await accountOn(0);
    const b = await accountOn(1);
    const ids: number[] = [];
    for (let page = 1; ; page++) {
      const res = await call("GET", `/admin/v1/accounts?per_page=100&page=${page}`, { headers: ADMIN });
      ids.push(...res.json.data.map((x: { id: number }) => x.id));
      if (res.json.data.length < 100) break;
    }
    expect(ids).toContain(a.accountId);
    expect(ids).toContain(b.accountId);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
  });

  it("signs a shard-1 shop in to the console, and its pages read shard 1", async () => {
    const b = await accountOn(1);
    const jar = new Map<string, string>();
    const send = async (path: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
      if (init.method === "POST") headers.set("origin", "http://orders.test"), headers.set("content-type", "application/x-www-form-urlencoded");
      const res = await worker.fetch!(new Request(`http://orders.test${path}`, { ...init, headers, redirect: "manual" }) as never, env, createExecutionContext());
      for (const cookie of res.headers.getSetCookie()) {
        const [pair] = cookie.split(";");
        jar.set(pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1));
      }
      return res;
    };
    await send("/console/sign-in");
    const signIn = await send("/console/sign-in", {
      method: "POST",
      body: new URLSearchParams({ _csrf: jar.get("__Host-oi_signin_csrf")!, account_id: String(b.accountId), api_key: b.apiKey }),
    });
    expect(signIn.status).toBe(303);
    expect(jar.get("__Host-oi_shop_session")).toMatch(new RegExp(`^a${b.accountId}\\.`));
    expect(await rowsOn(1, "SELECT count(*) AS n FROM console_sessions WHERE account_id = ?", b.accountId)).toEqual([{ n: 1 }]);
    const page = await send("/console/orders");
    expect(page.status).toBe(200);
  });
});

describe("the cron on every shard", () => {
  it("re-queues a shard-1 order whose message was lost, and records the run on shard 1", async () => {
    const b = await accountOn(1);
    await supplierAndRule(b);
    const created = await call("POST", "/api/v1/orders", { creds: b, body: orderPayload() });
    const reference = String(created.json.reference);
    const routedAt = async () => (await rowsOn<{ r: string | null }>(1, "SELECT routed_at AS r FROM orders WHERE reference = ?", reference))[0]?.r;
    await waitFor(routedAt);
    // Lost: never routed, asked for three minutes ago.
    await shards[1].prepare("UPDATE orders SET routed_at = NULL, route_requested_at = ? WHERE reference = ?").bind(isoMicro(new Date(Date.now() - 3 * 60_000)), reference).run();
    const scheduledTime = Date.now() + 53;
    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController({ cron: "* * * * *", scheduledTime }), env, ctx);
    await waitOnExecutionContext(ctx);
    await waitFor(routedAt);
    const [run] = await rowsOn<{ counts: string }>(1, "SELECT counts FROM sweeper_runs WHERE scheduled_at = ?", isoMicro(new Date(scheduledTime)));
    expect(JSON.parse(run.counts).unrouted_orders).toBeGreaterThanOrEqual(1);
    expect(await rowsOn(0, "SELECT id FROM sweeper_runs WHERE scheduled_at = ?", isoMicro(new Date(scheduledTime)))).toHaveLength(1);
  });
});
