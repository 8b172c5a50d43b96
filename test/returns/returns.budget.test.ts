// A return's D1 cost, counted as the benchmark counts it (statements and round trips do not swing
// with the machine's load; auth included): the shop's request and each of the supplier's answers
// (authorise, receive, credit, close) stay within the supplier answer's budget, the decline
// request's 15 statements in 4 round trips (test/pipeline/pipeline.budget.test.ts; bench/RESULTS.md);
// a request of two suppliers' lines takes the same statements and round trips as one of one supplier.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { authHeaders, call } from "../helpers/http";
import { benchEnv, request } from "../helpers/metered-app";
import { createOrder } from "../helpers/factories";
import { shippedOrder } from "./support";

/** The supplier answer's budget: the decline request's statements and round trips. */
const BUDGET = { queries: 15, roundTrips: 4 };

describe("a return's D1 budget", () => {
  it("each answer and a one-supplier request: within the supplier answer's 15 statements in 4 round trips; a two-supplier request in the same 4 round trips", async () => {
    const s = await shippedOrder();
    // Another order of 400 lines in the account: a request reads in proportion to its own lines, not the account's.
    await createOrder(s.creds, { external_id: "other", products: Array.from({ length: 400 }, (_, i) => ({ external_id: `o-${i}`, name: `Other ${i}`, quantity: 1, price: 1 })) });
    await call("GET", "/api/v1", { creds: s.creds }); // the key's first use writes last_used_at
    const { env: view } = benchEnv();
    const supplier = (key: string) => ({ authorization: `Bearer ${key}` });
    const cost: Record<string, [number, number, number]> = {};
    const step = async (name: string, method: string, path: string, headers: Record<string, string>, body: unknown, status = 200) => {
      const res = await request(view, method, path, headers, body);
      expect(res.status, JSON.stringify(res.json)).toBe(status);
      cost[name] = [res.counted.queries, res.counted.roundTrips, res.rowsRead];
      return res.json;
    };
    // A supplier key's first use writes its last_used_at once: not the answer's own cost.
    await call("GET", "/api/v1/supplier/returns", { headers: supplier(s.plates.key) });
    await call("GET", "/api/v1/supplier/returns", { headers: supplier(s.cups.key) });

    const created = await step("request", "POST", `/api/v1/orders/${s.reference}/returns`, authHeaders(s.creds), {
      lines: [{ line_id: s.mugs, quantity: 1, reason: "Chipped" }, { line_id: s.plate, quantity: 1 }],
    }, 201);
    const [cups, plates] = (created.data as { id: number }[]).map((r) => r.id);
    await step("authorise", "POST", `/api/v1/supplier/returns/${cups}/answer`, supplier(s.cups.key), { action: "authorise", rma: "RMA-1", return_address: "Dock 1" });
    await step("receive", "POST", `/api/v1/supplier/returns/${cups}/answer`, supplier(s.cups.key), { action: "receive", lines: [{ line_id: s.mugs, quantity: 1, condition: "new" }] });
    await step("credit", "POST", `/api/v1/supplier/returns/${cups}/answer`, supplier(s.cups.key), { action: "credit", amount: 12.5, currency: "EUR" });
    await call("POST", `/api/v1/supplier/returns/${plates}/answer`, { headers: supplier(s.plates.key), body: { action: "authorise", rma: "P", return_address: "Kade" } });
    await call("POST", `/api/v1/supplier/returns/${plates}/answer`, { headers: supplier(s.plates.key), body: { action: "receive", lines: [{ line_id: s.plate, quantity: 1, condition: "damaged" }] } });
    await step("close", "POST", `/api/v1/supplier/returns/${plates}/answer`, supplier(s.plates.key), { action: "close", reason: "Broken" });
    // The other mug, a request of one supplier's line.
    await step("request (one supplier)", "POST", `/api/v1/orders/${s.reference}/returns`, authHeaders(s.creds), { lines: [{ line_id: s.mugs, quantity: 1 }] }, 201);
    console.log(`a return's D1 cost [statements, round trips, rows read]: ${JSON.stringify(cost)}`);

    // Auth, the read, the write (one batch), the answer read back (one batch). A request writes the
    // returns, their lines, logs and events (and the notices to push suppliers) one statement each,
    // for every supplier at once.
    const n = expect.any(Number);
    expect(cost).toEqual({
      request: [13, 4, n],
      "request (one supplier)": [13, 4, n],
      authorise: [11, 4, n],
      receive: [12, 4, n],
      credit: [11, 4, n],
      close: [11, 4, n],
    });
    // The request's rows: its order and lines, not the account's other 400 (the bench found it walking
    // them all). Each of its 4 inserts into an AUTOINCREMENT table (returns, return_lines, return_logs,
    // return_notices) also reads sqlite_sequence up to its table's row, as SQLite does on every such
    // insert: at most that table's rows, one per AUTOINCREMENT table of the schema (every shard has
    // them all: scripts/lib/shards.mjs idRangeStatements, run by test/setup.ts as by the migrations).
    const { sequence } = (await env.DB.prepare("SELECT count(*) AS sequence FROM sqlite_sequence").first<{ sequence: number }>())!;
    const ownRows = 200;
    expect(cost.request[2], "request: rows read").toBeLessThanOrEqual(ownRows + 4 * sequence);
    expect(cost["request (one supplier)"][2], "request (one supplier): rows read").toBeLessThanOrEqual(ownRows + 4 * sequence);
    for (const [name, [queries, roundTrips]] of Object.entries(cost)) {
      if (name !== "request") expect(queries, `${name}: statements`).toBeLessThanOrEqual(BUDGET.queries);
      expect(roundTrips, `${name}: round trips`).toBeLessThanOrEqual(BUDGET.roundTrips);
    }
  });
});
