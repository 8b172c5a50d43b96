// Rate limits through real (miniflare) rate-limiting bindings, configured tight for this file.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { createAccount } from "../helpers/factories";
import { authHeaders, BASE } from "../helpers/http";

const app = createApp();
const tightEnv = { ...env, API_RATE_LIMITER: env.TIGHT_API_LIMITER, AUTH_FAILURE_LIMITER: env.TIGHT_AUTH_FAILURE_LIMITER };

async function get(path: string, headers: Record<string, string>) {
  const res = await app.fetch(new Request(`${BASE}${path}`, { headers }), tightEnv, createExecutionContext());
  return { status: res.status, retryAfter: res.headers.get("retry-after"), json: await res.json() };
}

describe("rate limits", () => {
  it("answers 429 with Retry-After once a key goes over its limit", async () => {
    const creds = await createAccount();
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await get("/api/v1", authHeaders(creds))).status);
    expect(statuses).toEqual([200, 200, 200]);
    expect(await get("/api/v1/orders", authHeaders(creds))).toEqual({
      status: 429,
      retryAfter: "60",
      json: { message: "Too Many Requests", error: "Rate limit exceeded for this key; retry after 60 seconds." },
    });
    // Another key has its own budget.
    expect((await get("/api/v1", authHeaders(await createAccount()))).status).toBe(200);
  });

  it("limits failed authentication per client address, more strictly, even for a right key afterwards", async () => {
    const creds = await createAccount();
    // An address range no other file uses: test/console/console.http.test.ts blocks random TEST-NET-3
    // addresses, and a blocked address is remembered by the isolate these files share.
    const address = { "cf-connecting-ip": `198.18.0.${Math.floor(Math.random() * 250)}` };
    const wrong = { ...address, "api-key": "oik_wrong", "account-id": String(creds.accountId) };
    expect((await get("/api/v1", wrong)).status).toBe(401);
    expect((await get("/api/v1", wrong)).status).toBe(401);
    const blocked = await get("/api/v1", wrong);
    expect(blocked).toEqual({
      status: 429,
      retryAfter: "60",
      json: { message: "Too Many Requests", error: "Too many failed authentication attempts; retry after 60 seconds." },
    });
    expect((await get("/api/v1", { ...address, ...authHeaders(creds) })).status).toBe(429);
    // Another address is not affected.
    expect((await get("/api/v1", { "cf-connecting-ip": "198.51.100.7", ...authHeaders(creds) })).status).toBe(200);
  });
});
