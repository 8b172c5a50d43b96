// Runs after every other file of the Workers project, in the same local D1 (vitest.config.ts):
// whatever the whole suite wrote, by every path (API, pipeline, console, tests' own SQL), the
// counters, facets and external_id index the lists read must equal what the base tables say.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { countsDiff } from "../helpers/counts";
import { rows } from "../helpers/factories";

describe("after the whole suite", () => {
  it("every counter, facet and search entry equals a recomputation from orders, order_lines and products", async () => {
    const [{ written }] = await rows<{ written: number }>("SELECT (SELECT count(*) FROM orders) + (SELECT count(*) FROM products) AS written");
    // An empty database would prove nothing (the whole suite leaves thousands of orders and products).
    expect(written).toBeGreaterThan(0);
    expect(await countsDiff(env.DB)).toEqual({ counters: [], facets: [], fts: [] });
  }, 120_000);

  it("so on shard 1 too (accounts created there, and accounts moved in and out by test/shards)", async () => {
    const [{ written }] = (await env.SHARD_1.prepare("SELECT (SELECT count(*) FROM orders) + (SELECT count(*) FROM products) AS written").all<{ written: number }>()).results;
    expect(written).toBeGreaterThan(0);
    expect(await countsDiff(env.SHARD_1)).toEqual({ counters: [], facets: [], fts: [] });
  }, 120_000);
});
