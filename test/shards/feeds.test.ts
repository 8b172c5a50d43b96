// The cron's feed pulls on every shard (src/index.ts runs the cron once per shard): a scheduled
// feed of an account on shard 1 is pulled and imported there. The supplier's server is faked at
// the network edge (the Worker's own fetch() is intercepted), as in test/catalogue/pull.test.ts.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { ADMIN, call } from "../helpers/http";
import { unique } from "../helpers/factories";

afterEach(() => vi.restoreAllMocks());

describe("the cron on shard 1", () => {
  it("pulls a scheduled feed of a shard-1 account and imports it there", async () => {
    const account = await call("POST", "/admin/v1/accounts", { headers: ADMIN, body: { name: unique("feeds"), shard: 1 } });
    const key = await call("POST", `/admin/v1/accounts/${account.json.id}/api-keys`, { headers: ADMIN, body: {} });
    const creds = { accountId: account.json.id, apiKey: key.json.api_key };
    const supplier = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Feeder", channel: "pull" } });
    const url = `https://feeds.supplier.test/${unique("shard1")}.csv`;
    const feed = await call("POST", "/api/v1/product-feeds", { creds, body: { supplier_id: supplier.json.id, name: "stock", format: "csv", url, schedule: "hourly" } });
    expect(feed.status, feed.text).toBe(201);
    const pulled: string[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      pulled.push(request.url);
      return request.url === url
        ? new Response("sku,name,stock_quantity\nS1,Shard one,7\n", { headers: { "content-type": "text/csv" } })
        : new Response("Not Found", { status: 404, statusText: "Not Found" });
    });

    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController({ scheduledTime: Date.now() + 1000, cron: "* * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);

    expect(pulled.filter((u) => u === url)).toEqual([url]);
    const imports = await call("GET", `/api/v1/product-feeds/${feed.json.id}/imports`, { creds });
    expect(imports.json.data[0]).toMatchObject({ trigger: "schedule", status: "succeeded", source: url, created: 1 });
    const onShard = (db: D1Database) => db.prepare("SELECT sku, stock_quantity FROM products WHERE account_id = ?").bind(creds.accountId).all();
    expect((await onShard(env.SHARD_1)).results).toEqual([{ sku: "S1", stock_quantity: 7 }]);
    expect((await onShard(env.DB)).results).toEqual([]);
  });
});
