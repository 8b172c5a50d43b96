// The console at the HTTP level, inside workerd: where a browser and an API client land at /,
// the session cookie's attributes and its hashed row, CSRF refusals, the sign-in rate limit, the
// cleanup of ended sessions, and the admin API's account list.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { deleteEndedSessions } from "../../src/accounts/sign-in-sessions";
import { createDb } from "../../src/db";
import { sha256Hex } from "../../src/lib/crypto";
import { createAccount, exec, rows } from "../helpers/factories";
import { ADMIN, BASE, call } from "../helpers/http";
import { send, signIn, type Jar } from "../helpers/console-http";

describe("GET /", () => {
  it("sends a browser to the console and tells an API client where things are", async () => {
    const browser = await send("/", { headers: { accept: "text/html,application/xhtml+xml" } });
    expect([browser.status, browser.headers.get("location"), browser.headers.get("vary")]).toEqual([302, "/console", "Accept"]);
    const client = await call("GET", "/");
    expect([client.status, client.json]).toEqual([200, { message: "Order intake API", api: "/api/v1", docs: "/docs", openapi: "/openapi.json", console: "/console" }]);
  });
});

describe("console sessions over HTTP", () => {
  it("sets a Secure, HttpOnly, SameSite=Lax __Host- cookie off localhost, and stores only its hash", async () => {
    const creds = await createAccount();
    const { res, jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
    expect([res.status, res.headers.get("location")]).toEqual([303, "/console"]);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("__Host-oi_shop_session="))!;
    // The account and the secret (the account says the shard: docs/console.md "Sessions").
    expect(cookie).toMatch(new RegExp(`^__Host-oi_shop_session=a${creds.accountId}\\.[\\w-]{43}; Max-Age=604800; Path=/; HttpOnly; Secure; SameSite=Lax$`));
    const secret = jar.get("__Host-oi_shop_session")!.replace(/^a\d+\./, "");
    const stored = await rows<{ token_hash: string; role: string }>("SELECT token_hash, role FROM console_sessions WHERE account_id = ?", creds.accountId);
    expect(stored).toEqual([{ token_hash: await sha256Hex(secret), role: "shop" }]);

    const page = await send("/console/orders", { jar });
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");

    // Sign-out needs the session's CSRF token; then the row is gone.
    const html = await page.text();
    const token = /name="_csrf" value="([0-9a-f]{64})"/.exec(html)![1];
    const refused = await send("/console/sign-out", { method: "POST", jar, body: new URLSearchParams({ _csrf: "0".repeat(64) }), headers: { origin: BASE, "content-type": "application/x-www-form-urlencoded" } });
    expect(refused.status).toBe(403);
    const out = await send("/console/sign-out", { method: "POST", jar, body: new URLSearchParams({ _csrf: token }), headers: { origin: BASE, "content-type": "application/x-www-form-urlencoded" } });
    expect([out.status, out.headers.get("location")]).toEqual([303, "/console/sign-in"]);
    expect(await rows("SELECT id FROM console_sessions WHERE account_id = ?", creds.accountId)).toEqual([]);
  });

  it("refuses a sign-in without an Origin or Sec-Fetch-Site of this site, or without the form's token", async () => {
    const creds = await createAccount();
    const jar: Jar = new Map();
    await send("/console/sign-in", { jar });
    const form = new URLSearchParams({ _csrf: jar.get("__Host-oi_signin_csrf")!, account_id: String(creds.accountId), api_key: creds.apiKey });
    const type = { "content-type": "application/x-www-form-urlencoded" };
    expect((await send("/console/sign-in", { method: "POST", body: form, jar, headers: type })).status).toBe(403);
    expect((await send("/console/sign-in", { method: "POST", body: form, jar, headers: { ...type, origin: "https://elsewhere.example" } })).status).toBe(403);
    form.set("_csrf", "f".repeat(32));
    expect((await send("/console/sign-in", { method: "POST", body: form, jar, headers: { ...type, "sec-fetch-site": "same-origin" } })).status).toBe(403);
    expect(await rows("SELECT id FROM console_sessions WHERE account_id = ?", creds.accountId)).toEqual([]);
  });

  it("rate-limits failed sign-ins per address like failed API authentication", async () => {
    const app = createApp();
    const tight = { ...env, API_RATE_LIMITER: env.TIGHT_API_LIMITER, AUTH_FAILURE_LIMITER: env.TIGHT_AUTH_FAILURE_LIMITER };
    const fetcher = (r: Request) => Promise.resolve(app.fetch(r, tight, createExecutionContext()));
    const creds = await createAccount();
    const address = `203.0.113.${Math.floor(Math.random() * 250)}`;
    const wrong = { account_id: String(creds.accountId), api_key: "oik_wrong" };
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await signIn(wrong, new Map(), fetcher, address)).res.status);
    expect(statuses).toEqual([401, 401, 429]);
    const right = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey }, new Map(), fetcher, address);
    expect([right.res.status, right.res.headers.get("retry-after")]).toEqual([429, "60"]);
    expect(await right.res.text()).toContain("Too many failed sign-in attempts from your address. Wait a minute, then try again.");
    // The same limiter as the API: that address is refused there too.
    const apiCall = await app.fetch(new Request(`${BASE}/api/v1`, { headers: { "cf-connecting-ip": address, "api-key": creds.apiKey, "account-id": String(creds.accountId) } }), tight, createExecutionContext());
    expect(apiCall.status).toBe(429);
  });

  it("checks the sign-in fields at their limits: a 255-character key is checked, one more is refused beside the field", async () => {
    const creds = await createAccount();
    const at = await signIn({ account_id: "9".repeat(15), api_key: "k".repeat(255) });
    expect(at.res.status).toBe(401);
    const past = await signIn({ account_id: "9".repeat(16), api_key: "k".repeat(256) });
    expect(past.res.status).toBe(422);
    const html = await past.res.text();
    expect(html).toContain('<small id="field-account_id-error" class="field-error">The Account ID field must be a number.</small>');
    expect(html).toContain('<small id="field-api_key-error" class="field-error">The API key field must not be greater than 255 characters.</small>');
    // What was typed stays in the form (but never the secret).
    expect(html).toContain(`value="${"9".repeat(16)}"`);
    expect(html).not.toContain("k".repeat(256));
    expect(await rows("SELECT id FROM console_sessions WHERE account_id = ?", creds.accountId)).toEqual([]);
  });

  it("answers an unknown console page with the console's 404 page, and the API's 404 stays JSON", async () => {
    const creds = await createAccount();
    const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
    const page = await send("/console/no-such-page", { jar });
    expect([page.status, page.headers.get("content-type")]).toEqual([404, "text/html; charset=UTF-8"]);
    expect(await page.text()).toContain("<h1>Page not found</h1>");
    expect((await call("GET", "/api/v1/no-such", { creds })).json).toEqual({ message: "Not Found", error: "The route GET /api/v1/no-such does not exist." });
  });

  it("cleans up sessions past their absolute or idle end, keeping live ones", async () => {
    const creds = await createAccount();
    const now = new Date();
    const iso = (ms: number) => new Date(now.getTime() + ms).toISOString().replace("Z", "000Z");
    const hour = 3_600_000;
    const insert = (role: string, lastSeen: string, expires: string) =>
      exec(
        "INSERT INTO console_sessions (token_hash, role, account_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
        crypto.randomUUID(),
        role,
        role === "operator" ? null : creds.accountId,
        iso(-2 * hour),
        lastSeen,
        expires,
      );
    await insert("shop", iso(-hour), iso(hour)); // live
    await insert("shop", iso(-hour), iso(-1)); // past its absolute end
    await insert("supplier", iso(-13 * hour), iso(hour)); // idle 13 h > 12 h
    await insert("operator", iso(-2 * hour), iso(hour)); // idle 2 h > 1 h
    await deleteEndedSessions(createDb(env.DB), now);
    expect(await rows("SELECT role FROM console_sessions WHERE account_id = ? OR (role = 'operator' AND created_at = ?)", creds.accountId, iso(-2 * hour))).toEqual([{ role: "shop" }]);
  });
});

describe("GET /admin/v1/accounts", () => {
  it("lists accounts, ids ascending, with their live keys, paginated like the order list", async () => {
    const a = await createAccount();
    const extra = await call("POST", `/admin/v1/accounts/${a.accountId}/api-keys`, { headers: ADMIN, body: {} });
    await call("POST", `/admin/v1/accounts/${a.accountId}/api-keys`, { headers: ADMIN, body: { expires_at: "2020-01-01T00:00:00Z" } });
    await call("DELETE", `/admin/v1/api-keys/${extra.json.id}`, { headers: ADMIN });
    const first = await call("GET", "/admin/v1/accounts?per_page=1", { headers: ADMIN });
    const total = first.json.meta.total;
    const last = await call("GET", `/admin/v1/accounts?per_page=1&page=${total}`, { headers: ADMIN });
    expect(last.status).toBe(200);
    // The highest id of every shard's accounts (the list merges the shards, src/shards).
    const newest = await Promise.all(
      [env.DB, env.SHARD_1].map(async (db, shard) => ({ shard, ...(await db.prepare("SELECT id, name, created_at FROM accounts ORDER BY id DESC LIMIT 1").first<{ id: number; name: string; created_at: string }>())! })),
    );
    const row = newest.filter((r) => r.id !== undefined).sort((x, y) => y.id - x.id)[0];
    expect(last.json).toEqual({
      current_page: total,
      data: [{ id: row.id, name: row.name, created_at: row.created_at, active_api_keys: row.id === a.accountId ? 1 : expect.any(Number), shard: row.shard }],
      links: {
        first: `${BASE}/admin/v1/accounts?per_page=1&page=1`,
        last: `${BASE}/admin/v1/accounts?per_page=1&page=${total}`,
        prev: total > 1 ? `${BASE}/admin/v1/accounts?per_page=1&page=${total - 1}` : null,
        next: null,
      },
      meta: { current_page: total, from: total, last_page: total, path: `${BASE}/admin/v1/accounts`, per_page: 1, to: total, total },
    });
    expect((await call("GET", "/admin/v1/accounts")).status).toBe(401);
  });
});
