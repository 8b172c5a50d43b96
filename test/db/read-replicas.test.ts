// D1 read replication (src/db/sessions.ts): every request runs in a D1 session, every answer carries
// x-d1-bookmark, a client that sends it back reads its own writes, and credentials are read at the
// primary whatever the bookmark. Local D1 has no replicas, so where a statement may read is proven
// by recording which session (opened with which constraint or bookmark) ran it, on the real local
// D1 underneath; the answers themselves come from the real Worker.
import { createExecutionContext, createMessageBatch, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import worker from "../../src/index";
import type { PipelineMessage } from "../../src/lib/queue";
import { runCron } from "../../src/pipeline/cron";
import { ADMIN, authHeaders, BASE, call, type Credentials } from "../helpers/http";
import { createAccount, createOrder, orderIdOf, orderPayload } from "../helpers/factories";

const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8,64}$/;

type Ran = { session: string; sql: string };

/**
 * The real local D1, with a record of every statement: the constraint or bookmark of the session
 * it ran in, or "binding" for a statement run without a session (D1 runs those on the primary).
 */
function recordingD1(ran: Ran[]): D1Database {
  const recordPrepare = (target: { prepare(q: string): D1PreparedStatement }, session: string) => (query: string) => {
    ran.push({ session, sql: query });
    return target.prepare(query);
  };
  return new Proxy(env.DB, {
    get(target, prop) {
      if (prop === "prepare") return recordPrepare(target, "binding");
      if (prop === "withSession") {
        return (start: string) => {
          const session = target.withSession(start);
          return new Proxy(session, {
            get(s, p) {
              if (p === "prepare") return recordPrepare(s, start);
              const value = Reflect.get(s, p) as unknown;
              return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(s) : value;
            },
          });
        };
      }
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const app = createApp();

/** A request through the app over the recording D1; what it answered and where each statement ran. */
async function recorded(method: string, path: string, creds: Credentials, headers: Record<string, string> = {}, body?: unknown) {
  const ran: Ran[] = [];
  const ctx = createExecutionContext();
  const init: RequestInit = { method, headers: { accept: "application/json", ...authHeaders(creds), ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  const res = await app.fetch(new Request(`${BASE}${path}`, init), { ...env, DB: recordingD1(ran) }, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, bookmark: res.headers.get("x-d1-bookmark"), json: (await res.json()) as Record<string, unknown>, ran };
}

const keyLookups = (ran: Ran[]) => ran.filter((r) => /^select .*\bfrom "?api_keys"?/i.test(r.sql) && /key_hash"? = \?/i.test(r.sql));
const sessionsOf = (ran: Ran[]) => [...new Set(ran.map((r) => r.session))].sort();

describe("x-d1-bookmark on every answer", () => {
  it("answers D1's bookmark on reads, writes, errors and the console, and a write moves it forward", async () => {
    const creds = await createAccount();
    const read = await call("GET", "/api/v1/orders", { creds });
    expect(read.status).toBe(200);
    const before = read.headers.get("x-d1-bookmark")!;
    expect(before).toMatch(BOOKMARK);

    const created = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
    expect(created.status).toBe(200);
    const after = created.headers.get("x-d1-bookmark")!;
    expect(after).toMatch(BOOKMARK);
    expect(after > before).toBe(true);

    const answers = [
      await call("POST", "/api/v1/orders", { creds, body: {} }), // 422
      await call("GET", "/api/v1/orders", { creds: { ...creds, apiKey: "oik_wrong" } }), // 401
      await call("GET", "/api/v1/orders/0000000000000000", { creds }), // 404
      // (An account's own admin paths run in a session on its shard; the list of all accounts reads
      // every shard's primary directly, so it has no bookmark to give.)
      await call("GET", `/admin/v1/accounts/${creds.accountId}/api-keys`, { headers: ADMIN }),
    ];
    expect(answers.map((a) => a.status)).toEqual([422, 401, 404, 200]);
    for (const a of answers) expect(a.headers.get("x-d1-bookmark")).toMatch(BOOKMARK);
  });

  it("hands back the client's own bookmark from a request that read nothing, and an empty one when there is none", async () => {
    const creds = await createAccount();
    const { headers } = await call("GET", "/api/v1", { creds });
    const bookmark = headers.get("x-d1-bookmark")!;
    expect((await call("GET", "/health", { headers: { "x-d1-bookmark": bookmark } })).headers.get("x-d1-bookmark")).toBe(bookmark);
    expect((await call("GET", "/health")).headers.get("x-d1-bookmark")).toBe("");
    expect((await call("GET", "/console/sign-in", { headers: { accept: "text/html" } })).headers.get("x-d1-bookmark")).toBe("");
  });
});

describe("where a request reads", () => {
  it("reads a GET without a bookmark from any replica (first-unconstrained), its api key at the primary", async () => {
    const creds = await createAccount();
    const res = await recorded("GET", "/api/v1/orders", creds);
    expect(res.status).toBe(200);
    expect(res.bookmark).toMatch(BOOKMARK);
    expect(keyLookups(res.ran).map((r) => r.session)).toEqual(["first-primary"]);
    // At the primary: the key (and the key's last-used mark); everything else where it is nearest.
    expect(res.ran.filter((r) => r.session === "first-primary" && !/"?api_keys"?/.test(r.sql))).toEqual([]);
    expect(res.ran.filter((r) => r.session === "first-unconstrained").length).toBeGreaterThan(0);
    expect(sessionsOf(res.ran)).toEqual(["first-primary", "first-unconstrained"]);
  });

  it("reads a GET carrying a bookmark at least that fresh (its own writes), its api key still at the primary", async () => {
    const creds = await createAccount();
    const created = await recorded("POST", "/api/v1/orders", creds, {}, orderPayload());
    expect(created.status).toBe(200);
    // A write runs all of it, its checks included, in one session that starts at the primary (and
    // what it hands on after the answer, event publishing, on the binding: the primary too).
    expect(sessionsOf(created.ran).filter((s) => s !== "binding")).toEqual(["first-primary"]);
    expect(keyLookups(created.ran).map((r) => r.session)).toEqual(["first-primary"]);
    const bookmark = created.bookmark!;
    expect(bookmark).toMatch(BOOKMARK);

    const reference = String(created.json.reference);
    const read = await recorded("GET", `/api/v1/orders/${reference}`, creds, { "x-d1-bookmark": bookmark });
    expect(read.status).toBe(200);
    expect(read.json.reference).toBe(reference);
    expect(keyLookups(read.ran).map((r) => r.session)).toEqual(["first-primary"]);
    expect(read.ran.filter((r) => r.session === "first-primary" && !/"?api_keys"?/.test(r.sql))).toEqual([]);
    expect(read.ran.filter((r) => r.session === bookmark).length).toBeGreaterThan(0);
    expect(sessionsOf(read.ran)).toEqual([bookmark, "first-primary"].sort());
    // Never older than what the client already had.
    expect(read.bookmark! >= bookmark).toBe(true);
  });

  it("ignores a bookmark that is not D1's (a freshness hint never costs a request)", async () => {
    const creds = await createAccount();
    const res = await recorded("GET", "/api/v1/orders", creds, { "x-d1-bookmark": "not-a-bookmark' OR 1=1" });
    expect(res.status).toBe(200);
    expect(sessionsOf(res.ran)).toEqual(["first-primary", "first-unconstrained"]);
    expect(res.bookmark).toMatch(BOOKMARK);
  });
});

describe("authentication stays current", () => {
  it("refuses a revoked key at once, even on a GET that carries a bookmark from before the revocation", async () => {
    const creds = await createAccount();
    const old = await recorded("GET", "/api/v1/orders", creds);
    expect(old.status).toBe(200);
    const keys = await call("GET", `/admin/v1/accounts/${creds.accountId}/api-keys`, { headers: ADMIN });
    const [key] = keys.json.data as { id: number }[];
    expect((await call("DELETE", `/admin/v1/api-keys/${key.id}`, { headers: ADMIN })).status).toBe(204);

    const refused = await recorded("GET", "/api/v1/orders", creds, { "x-d1-bookmark": old.bookmark! });
    expect(refused).toMatchObject({ status: 401, json: { message: "Unauthorized", error: "The api-key header holds a revoked key." } });
    // The refusal came from the primary: the stale bookmark only ever steers the data reads.
    expect(keyLookups(refused.ran).map((r) => r.session)).toEqual(["first-primary"]);
    expect(refused.ran.filter((r) => r.session === old.bookmark)).toEqual([]);
  });

  it("ends a console session at once: after sign-out the old cookie and a bookmark from before get the sign-in page", async () => {
    const creds = await createAccount();
    const jar = new Map<string, string>();
    const send = async (path: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
      if (init.method === "POST") headers.set("origin", BASE), headers.set("content-type", "application/x-www-form-urlencoded");
      const res = await exports.default.fetch(new Request(`${BASE}${path}`, { ...init, headers, redirect: "manual" }));
      for (const cookie of res.headers.getSetCookie()) {
        const [pair] = cookie.split(";");
        const [name, value] = [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)];
        if (value) jar.set(name, value);
        else jar.delete(name);
      }
      return res;
    };
    await send("/console/sign-in");
    const signIn = await send("/console/sign-in", {
      method: "POST",
      body: new URLSearchParams({ _csrf: jar.get("__Host-oi_signin_csrf")!, account_id: String(creds.accountId), api_key: creds.apiKey }),
    });
    expect(signIn.status).toBe(303);
    // The browser keeps the bookmark of its last answer (off localhost with the __Host- prefix), so
    // the page it is redirected to reads at least what the sign-in wrote.
    expect(jar.get("__Host-oi_d1_bookmark")).toBe(signIn.headers.get("x-d1-bookmark"));
    const page = await send("/console/orders");
    expect(page.status).toBe(200);
    const before = jar.get("__Host-oi_d1_bookmark")!;
    expect(before).toMatch(BOOKMARK);

    const token = /name="_csrf" value="([0-9a-f]{64})"/.exec(await page.text())![1];
    const session = jar.get("__Host-oi_shop_session")!;
    expect((await send("/console/sign-out", { method: "POST", body: new URLSearchParams({ _csrf: token }) })).status).toBe(303);
    // The ended session's cookie again, with the bookmark from before the sign-out.
    jar.set("__Host-oi_shop_session", session);
    jar.set("__Host-oi_d1_bookmark", before);
    const after = await send("/console/orders");
    expect([after.status, after.headers.get("location")]).toEqual([303, "/console/sign-in?next=%2Fconsole%2Forders"]);
  });
});

describe("off the request path: the primary", () => {
  it("runs the queue consumer and the cron on the binding itself (no session: every statement on the primary)", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    const ran: Ran[] = [];
    const primaryOnly = { ...env, DB: recordingD1(ran) };
    const batch = createMessageBatch<PipelineMessage>("order-pipeline", [
      { id: `rr-${reference}`, timestamp: new Date(), attempts: 1, body: { type: "route_order", orderId: await orderIdOf(reference) } },
    ]);
    await worker.queue(batch, primaryOnly);
    const ctx = createExecutionContext();
    await runCron(primaryOnly, new Date(Date.now() + 41));
    await waitOnExecutionContext(ctx);
    expect(ran.length).toBeGreaterThan(3);
    expect(sessionsOf(ran)).toEqual(["binding"]);
  });
});
