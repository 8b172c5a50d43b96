// The benchmark's opt-in D1 metering: X-D1-* headers only when BENCH_METRICS is "1".
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { createAccount, createOrder, orderPayload } from "../helpers/factories";
import { authHeaders, BASE, call } from "../helpers/http";
import { forgetAccount } from "../../src/shards/directory";

const app = createApp();

async function fetchWith(vars: Record<string, string>, path: string, headers: Record<string, string>, init: RequestInit = {}) {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`${BASE}${path}`, { headers, ...init }), { ...env, ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("D1 metering for the benchmark", () => {
  it("counts statements and rows read per request when BENCH_METRICS is 1", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    const res = await fetchWith({ BENCH_METRICS: "1" }, `/api/v1/orders/${reference}`, authHeaders(creds));
    expect(res.status).toBe(200);
    // The auth lookup and the order's one batch of two.
    expect(res.headers.get("X-D1-Queries")).toBe("3");
    expect(res.headers.get("X-D1-Round-Trips")).toBe("2");
    expect(res.headers.get("X-D1-Unmetered")).toBe("0");
    expect(Number(res.headers.get("X-D1-Rows-Read"))).toBeGreaterThan(0);
    expect((await res.json()) as { reference: string }).toMatchObject({ reference });
  });

  it("authenticates GET /api/v1 with exactly one query", async () => {
    const creds = await createAccount();
    await call("GET", "/api/v1", { creds }); // the first use writes last_used_at
    const res = await fetchWith({ BENCH_METRICS: "1" }, "/api/v1", authHeaders(creds));
    expect(res.status).toBe(200);
    expect(res.headers.get("X-D1-Queries")).toBe("1");
    expect(res.headers.get("X-D1-Rows-Written")).toBe("0");
  });

  it("counts the rows a create writes, its triggers' rows included", async () => {
    const creds = await createAccount();
    await call("GET", "/api/v1", { creds });
    const body = JSON.stringify(orderPayload());
    const res = await fetchWith({ BENCH_METRICS: "1" }, "/api/v1/orders", { ...authHeaders(creds), "content-type": "application/json" }, { method: "POST", body });
    expect(res.status).toBe(200);
    console.log("rows written by a create:", res.headers.get("X-D1-Rows-Written"));
    expect(Number(res.headers.get("X-D1-Rows-Written"))).toBeGreaterThan(0);
  });

  it("counts the directory's statements apart: one lookup for an account it has not cached, none after", async () => {
    const creds = await createAccount();
    await call("GET", "/api/v1", { creds });
    // As on an isolate that has not seen the account yet.
    forgetAccount(creds.accountId);
    const cold = await fetchWith({ BENCH_METRICS: "1" }, "/api/v1", authHeaders(creds));
    expect(cold.status).toBe(200);
    expect([cold.headers.get("X-D1-Queries"), cold.headers.get("X-D1-Directory-Queries")]).toEqual(["1", "1"]);
    const cached = await fetchWith({ BENCH_METRICS: "1" }, "/api/v1", authHeaders(creds));
    expect([cached.headers.get("X-D1-Queries"), cached.headers.get("X-D1-Directory-Queries")]).toEqual(["1", "0"]);
  });

  it("adds nothing when it is off", async () => {
    const creds = await createAccount();
    const res = await call("GET", "/api/v1", { creds });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-D1-Queries")).toBeNull();
  });
});
