// The operator's API: accounts, API keys (shown once, stored hashed), revocation, and its own auth.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { ADMIN, authHeaders, call } from "../helpers/http";
import { ISO_MICRO, createAccount, rows, unique } from "../helpers/factories";

async function sha256Hex(input: string) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(input));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function newAccount(name = unique("acct")) {
  const res = await call("POST", "/admin/v1/accounts", { headers: ADMIN, body: { name, shard: 0 } });
  expect(res.status).toBe(201);
  return res.json as { id: number; name: string; created_at: string };
}

describe("POST /admin/v1/accounts", () => {
  it("creates an account: 201 with id, name, created_at", async () => {
    // Pinned to shard 0, which rows() reads (test/shards covers placement).
    const res = await call("POST", "/admin/v1/accounts", { headers: ADMIN, body: { name: "  Webshop Utrecht ", shard: 0 } });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ id: expect.any(Number), name: "Webshop Utrecht", created_at: expect.stringMatching(ISO_MICRO), shard: 0 });
    const [row] = await rows("SELECT id, name, created_at FROM accounts WHERE id = ?", res.json.id);
    const { shard: _shard, ...account } = res.json;
    expect(row).toEqual(account);
  });

  it("gives every account its own id", async () => {
    const a = await newAccount();
    const b = await newAccount();
    expect(a.id).not.toBe(b.id);
  });

  it("answers 422 for a missing, empty, wrongly typed or too long name", async () => {
    const cases: [unknown, string][] = [
      [{}, "The name field is required."],
      [{ name: "" }, "The name field is required."],
      [{ name: "   " }, "The name field is required."],
      [{ name: null }, "The name field is required."],
      [{ name: { x: 1 } }, "The name field must be a string."],
      [{ name: "x".repeat(256) }, "The name field must not be greater than 255 characters."],
    ];
    for (const [body, message] of cases) {
      const res = await call("POST", "/admin/v1/accounts", { headers: ADMIN, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json).toEqual({ message: "Errors", errors: { name: [message] } });
    }
  });

  it("answers 400 for malformed JSON", async () => {
    const res = await call("POST", "/admin/v1/accounts", {
      headers: { ...ADMIN, "content-type": "application/json" },
      rawBody: '{"name": ',
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ message: "Bad Request", error: "Malformed JSON in request body" });
  });
});

describe("POST /admin/v1/accounts/{id}/api-keys", () => {
  it("issues a key: 201 with the secret shown once", async () => {
    const account = await newAccount();
    const res = await call("POST", `/admin/v1/accounts/${account.id}/api-keys`, {
      headers: ADMIN,
      body: { name: "WooCommerce", expires_at: "2030-06-01T12:00:00+02:00" },
    });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      id: expect.any(Number),
      account_id: account.id,
      name: "WooCommerce",
      api_key: expect.stringMatching(/^oik_[A-Za-z0-9_-]{43}$/),
      prefix: res.json.api_key.slice(0, 10),
      expires_at: "2030-06-01T10:00:00.000000Z",
      created_at: expect.stringMatching(ISO_MICRO),
    });
    const me = await call("GET", "/api/v1", { headers: authHeaders({ accountId: account.id, apiKey: res.json.api_key }) });
    expect(me.json).toEqual({ id: account.id, name: account.name });
  });

  it("issues a key without name or expiry", async () => {
    const account = await newAccount();
    const res = await call("POST", `/admin/v1/accounts/${account.id}/api-keys`, { headers: ADMIN, body: {} });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ account_id: account.id, name: null, expires_at: null });
  });

  it("stores only the SHA-256 digest of the secret, never the secret itself", async () => {
    const account = await newAccount();
    const res = await call("POST", `/admin/v1/accounts/${account.id}/api-keys`, { headers: ADMIN, body: { name: "k" } });
    const secret: string = res.json.api_key;
    const [row] = await rows<{ key_hash: string }>("SELECT key_hash FROM api_keys WHERE id = ?", res.json.id);
    expect(row.key_hash).toBe(await sha256Hex(secret));
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);

    // Nowhere in any table of the database.
    const tables = await rows<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
    );
    expect(tables.map((t) => t.name)).toContain("api_keys");
    for (const { name } of tables) {
      const dump = JSON.stringify(await rows(`SELECT * FROM "${name}"`));
      expect(dump.includes(secret), `secret found in ${name}`).toBe(false);
    }
  });

  it("issues a different random secret every time", async () => {
    const account = await newAccount();
    const keys = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const res = await call("POST", `/admin/v1/accounts/${account.id}/api-keys`, { headers: ADMIN, body: {} });
      keys.add(res.json.api_key);
    }
    expect(keys.size).toBe(5);
  });

  it("answers 404 for an unknown account", async () => {
    const res = await call("POST", "/admin/v1/accounts/999999999/api-keys", { headers: ADMIN, body: {} });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ message: "Not Found", error: "Account with id '999999999' not found" });
  });

  it("answers 422 for a bad expires_at or name", async () => {
    const account = await newAccount();
    const cases: [unknown, Record<string, string[]>][] = [
      [{ expires_at: "tomorrow" }, { expires_at: ["The expires_at field must be a valid ISO 8601 date."] }],
      [{ expires_at: "2030-02-30T00:00:00Z" }, { expires_at: ["The expires_at field must be a valid ISO 8601 date."] }],
      [{ expires_at: 12 }, { expires_at: ["The expires_at field must be a string."] }],
      [{ name: "x".repeat(256) }, { name: ["The name field must not be greater than 255 characters."] }],
    ];
    for (const [body, errors] of cases) {
      const res = await call("POST", `/admin/v1/accounts/${account.id}/api-keys`, { headers: ADMIN, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json).toEqual({ message: "Errors", errors });
    }
    expect(await rows("SELECT id FROM api_keys WHERE account_id = ?", account.id)).toEqual([]);
  });
});

describe("GET /admin/v1/accounts/{id}/api-keys", () => {
  it("lists every key of the account, newest first, live or not, never the secret", async () => {
    const account = await newAccount();
    const issue = async (body: Record<string, unknown>) => (await call("POST", `/admin/v1/accounts/${account.id}/api-keys`, { headers: ADMIN, body })).json;
    const first = await issue({ name: "plugin", expires_at: "2030-01-01" });
    const second = await issue({});
    expect((await call("DELETE", `/admin/v1/api-keys/${second.id}`, { headers: ADMIN })).status).toBe(204);
    // The first key is used: last_used_at is set by authentication.
    expect((await call("GET", "/api/v1", { creds: { accountId: account.id, apiKey: first.api_key } })).status).toBe(200);
    const [revoked] = await rows<{ revoked_at: string }>("SELECT revoked_at FROM api_keys WHERE id = ?", second.id);

    const res = await call("GET", `/admin/v1/accounts/${account.id}/api-keys`, { headers: ADMIN });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual([
      { id: second.id, account_id: account.id, name: null, prefix: second.prefix, created_at: second.created_at, last_used_at: null, expires_at: null, revoked_at: revoked.revoked_at },
      {
        id: first.id,
        account_id: account.id,
        name: "plugin",
        prefix: first.prefix,
        created_at: first.created_at,
        last_used_at: expect.stringMatching(ISO_MICRO),
        expires_at: "2030-01-01T00:00:00.000000Z",
        revoked_at: null,
      },
    ]);
    expect(JSON.stringify(res.json)).not.toContain(first.api_key);
    expect(res.json.meta).toMatchObject({ current_page: 1, per_page: 50, total: 2, from: 1, to: 2, last_page: 1 });
  });

  it("pages like every list (per_page up to 100), and an account without keys lists none", async () => {
    const account = await newAccount();
    expect((await call("GET", `/admin/v1/accounts/${account.id}/api-keys`, { headers: ADMIN })).json).toMatchObject({ data: [], meta: { total: 0 } });
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await call("POST", `/admin/v1/accounts/${account.id}/api-keys`, { headers: ADMIN, body: {} })).json.id);
    const page2 = await call("GET", `/admin/v1/accounts/${account.id}/api-keys?per_page=2&page=2`, { headers: ADMIN });
    expect(page2.json.data.map((k: { id: number }) => k.id)).toEqual([ids[0]]);
    expect(page2.json.meta).toMatchObject({ current_page: 2, per_page: 2, total: 3, last_page: 2 });
    expect((await call("GET", `/admin/v1/accounts/${account.id}/api-keys?per_page=0`, { headers: ADMIN })).status).toBe(422);
  });

  it("answers 404 for an unknown account, 422 for an id that is not a number, 401 without the admin token", async () => {
    expect(await call("GET", "/admin/v1/accounts/999999999/api-keys", { headers: ADMIN })).toMatchObject({
      status: 404,
      json: { message: "Not Found", error: "Account with id '999999999' not found" },
    });
    expect(await call("GET", "/admin/v1/accounts/abc/api-keys", { headers: ADMIN })).toMatchObject({ status: 422, json: { message: "Errors", errors: { id: ["The id field format is invalid."] } } });
    const creds = await createAccount();
    expect((await call("GET", `/admin/v1/accounts/${creds.accountId}/api-keys`, { creds })).status).toBe(401);
  });
});

describe("DELETE /admin/v1/api-keys/{id}", () => {
  it("revokes a key: 204 without a body, and the key is refused at once", async () => {
    const creds = await createAccount();
    const [key] = await rows<{ id: number }>("SELECT id FROM api_keys WHERE account_id = ?", creds.accountId);
    const res = await call("DELETE", `/admin/v1/api-keys/${key.id}`, { headers: ADMIN });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const [row] = await rows<{ revoked_at: string }>("SELECT revoked_at FROM api_keys WHERE id = ?", key.id);
    expect(row.revoked_at).toMatch(ISO_MICRO);
    expect((await call("GET", "/api/v1", { creds })).status).toBe(401);
  });

  it("answers 204 again for a key already revoked", async () => {
    const creds = await createAccount();
    const [key] = await rows<{ id: number }>("SELECT id FROM api_keys WHERE account_id = ?", creds.accountId);
    expect((await call("DELETE", `/admin/v1/api-keys/${key.id}`, { headers: ADMIN })).status).toBe(204);
    expect((await call("DELETE", `/admin/v1/api-keys/${key.id}`, { headers: ADMIN })).status).toBe(204);
  });

  it("answers 404 for an unknown key", async () => {
    const res = await call("DELETE", "/admin/v1/api-keys/999999999", { headers: ADMIN });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ message: "Not Found", error: "API key with id '999999999' not found" });
  });

  it("answers 422 for an id that is not a number", async () => {
    const res = await call("DELETE", "/admin/v1/api-keys/abc", { headers: ADMIN });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ message: "Errors", errors: { id: ["The id field format is invalid."] } });
  });
});

describe("DELETE /admin/v1/supplier-keys/{id}", () => {
  it("revokes a supplier key: 204 without a body, the key refused at once, and 204 again", async () => {
    const creds = await createAccount();
    const supplier = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Revoked by the operator", channel: "pull" } });
    const key = await call("POST", `/api/v1/suppliers/${supplier.json.id}/keys`, { creds, body: { name: "portal" } });
    const auth = { authorization: `Bearer ${key.json.key}` };
    expect((await call("GET", "/api/v1/supplier/orders", { headers: auth })).status).toBe(200);
    const res = await call("DELETE", `/admin/v1/supplier-keys/${key.json.id}`, { headers: ADMIN });
    expect([res.status, res.text]).toEqual([204, ""]);
    const refused = await call("GET", "/api/v1/supplier/orders", { headers: auth });
    expect([refused.status, refused.json]).toEqual([401, { message: "Unauthorized", error: "The supplier key is invalid or revoked." }]);
    const listed = await call("GET", `/api/v1/suppliers/${supplier.json.id}/keys`, { creds });
    expect(listed.json.data.map((k: { id: number; revoked_at: string | null }) => [k.id, k.revoked_at])).toEqual([[key.json.id, expect.stringMatching(ISO_MICRO)]]);
    expect((await call("DELETE", `/admin/v1/supplier-keys/${key.json.id}`, { headers: ADMIN })).status).toBe(204);
  });

  it("answers 404 for an unknown key and 422 for an id that is not a number", async () => {
    const missing = await call("DELETE", "/admin/v1/supplier-keys/999999999", { headers: ADMIN });
    expect([missing.status, missing.json]).toEqual([404, { message: "Not Found", error: "Supplier key with id '999999999' not found" }]);
    const bad = await call("DELETE", "/admin/v1/supplier-keys/abc", { headers: ADMIN });
    expect([bad.status, bad.json]).toEqual([422, { message: "Errors", errors: { id: ["The id field format is invalid."] } }]);
  });
});

describe("admin authentication", () => {
  const requests = (accountId: number, keyId: number) => [
    { method: "POST", path: "/admin/v1/accounts", body: { name: "x" } },
    { method: "POST", path: `/admin/v1/accounts/${accountId}/api-keys`, body: {} },
    { method: "DELETE", path: `/admin/v1/api-keys/${keyId}` },
  ];

  it("answers 401 for a missing, malformed or wrong admin token", async () => {
    const creds = await createAccount();
    const [key] = await rows<{ id: number }>("SELECT id FROM api_keys WHERE account_id = ?", creds.accountId);
    const cases: [Record<string, string>, string][] = [
      [{}, "The Authorization header is missing or is not a Bearer token."],
      [{ authorization: "test-admin-token" }, "The Authorization header is missing or is not a Bearer token."],
      [{ authorization: "Basic dGVzdDp0ZXN0" }, "The Authorization header is missing or is not a Bearer token."],
      [{ authorization: "Bearer wrong-token" }, "The admin token is invalid."],
      [{ authorization: "Bearer test-admin-tokenx" }, "The admin token is invalid."],
      [{ authorization: "Bearer test-admin-toke" }, "The admin token is invalid."],
    ];
    for (const r of requests(creds.accountId, key.id)) {
      for (const [headers, error] of cases) {
        const res = await call(r.method, r.path, { headers, body: r.body });
        expect(res.status, `${r.method} ${r.path} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.json).toEqual({ message: "Unauthorized", error });
      }
    }
    // Nothing was revoked or created.
    expect((await call("GET", "/api/v1", { creds })).status).toBe(200);
    expect(await rows("SELECT id FROM api_keys WHERE account_id = ?", creds.accountId)).toHaveLength(1);
  });

  it("refuses an account's api-key credentials", async () => {
    const creds = await createAccount();
    const [key] = await rows<{ id: number }>("SELECT id FROM api_keys WHERE account_id = ?", creds.accountId);
    for (const r of requests(creds.accountId, key.id)) {
      for (const headers of [authHeaders(creds), { authorization: `Bearer ${creds.apiKey}` }]) {
        const res = await call(r.method, r.path, { headers, body: r.body });
        expect(res.status, `${r.method} ${r.path}`).toBe(401);
        expect(res.json.message).toBe("Unauthorized");
      }
    }
    expect((await call("GET", "/api/v1", { creds })).status).toBe(200);
  });

  it("accepts the scheme name in any case", async () => {
    const res = await call("POST", "/admin/v1/accounts", { headers: { authorization: "bearer test-admin-token" }, body: { name: "x" } });
    expect(res.status).toBe(201);
  });

  it("is unavailable when no ADMIN_TOKEN is configured", async () => {
    const app = createApp();
    const res = await app.request(
      "/admin/v1/accounts",
      { method: "POST", headers: { ...ADMIN, "content-type": "application/json" }, body: JSON.stringify({ name: "x" }) },
      { ...env, ADMIN_TOKEN: undefined },
    );
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "Not Found", error: "The admin API is not enabled on this deployment." });
    const empty = await app.request(
      "/admin/v1/accounts",
      { method: "POST", headers: { authorization: "Bearer ", "content-type": "application/json" }, body: JSON.stringify({ name: "x" }) },
      { ...env, ADMIN_TOKEN: "" },
    );
    expect(empty.status).toBe(404);
  });
});
