// The account's own API keys through /api/v1/api-keys: list, create (shown once), revoke; a key
// that revokes itself, the last live key, another account's key, and the console sessions a
// revoked key ends at once.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { ADMIN, call } from "../helpers/http";

const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/);

describe("the account's API keys", () => {
  it("lists the keys newest first, creates one shown once, and revokes it", async () => {
    const shop = await createAccount();
    const created = await call("POST", "/api/v1/api-keys", { creds: shop, body: { name: "shopware", expires_at: "2031-01-01T00:00:00Z" } });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.any(Number),
      account_id: shop.accountId,
      name: "shopware",
      api_key: expect.stringMatching(/^oik_/),
      prefix: created.json.api_key.slice(0, 10),
      expires_at: "2031-01-01T00:00:00.000000Z",
      created_at: iso,
    });
    const second = { accountId: shop.accountId, apiKey: created.json.api_key as string };
    const list = await call("GET", "/api/v1/api-keys", { creds: second });
    expect(list.status).toBe(200);
    expect(list.json.meta.total).toBe(2);
    expect(list.json.data[0]).toEqual({
      id: created.json.id,
      name: "shopware",
      prefix: created.json.prefix,
      state: "active",
      current: true,
      expires_at: "2031-01-01T00:00:00.000000Z",
      last_used_at: iso,
      revoked_at: null,
      created_at: iso,
    });
    expect(list.json.data[1]).toMatchObject({ name: null, state: "active", current: false, revoked_at: null });
    expect(JSON.stringify(list.json)).not.toContain(created.json.api_key);

    // The first key revokes the new one; it stops working at once.
    expect((await call("DELETE", `/api/v1/api-keys/${created.json.id}`, { creds: shop })).status).toBe(204);
    expect((await call("GET", "/api/v1", { creds: second })).json).toEqual({ message: "Unauthorized", error: "The api-key header holds a revoked key." });
    const after = await call("GET", "/api/v1/api-keys", { creds: shop });
    expect(after.json.data[0]).toMatchObject({ id: created.json.id, state: "revoked", revoked_at: iso });
    // Again: nothing changes.
    expect((await call("DELETE", `/api/v1/api-keys/${created.json.id}`, { creds: shop })).status).toBe(204);
  });

  it("lets a key revoke itself (the request succeeds, the next is refused), but never the account's last live key", async () => {
    const shop = await createAccount();
    const list = await call("GET", "/api/v1/api-keys", { creds: shop });
    const own = list.json.data[0].id;
    const last = await call("DELETE", `/api/v1/api-keys/${own}`, { creds: shop });
    expect(last.status).toBe(409);
    expect(last.json).toEqual({ message: "Conflict", error: "This is the account's last live API key: create another key first, then revoke this one." });
    expect((await call("GET", "/api/v1", { creds: shop })).status).toBe(200);

    // An expired key does not count as live.
    await call("POST", "/api/v1/api-keys", { creds: shop, body: { expires_at: "2020-01-01T00:00:00Z" } });
    expect((await call("DELETE", `/api/v1/api-keys/${own}`, { creds: shop })).status).toBe(409);

    const spare = await call("POST", "/api/v1/api-keys", { creds: shop, body: { name: "spare" } });
    expect((await call("DELETE", `/api/v1/api-keys/${own}`, { creds: shop })).status).toBe(204);
    expect((await call("GET", "/api/v1", { creds: shop })).json).toEqual({ message: "Unauthorized", error: "The api-key header holds a revoked key." });
    expect((await call("GET", "/api/v1", { creds: { accountId: shop.accountId, apiKey: spare.json.api_key } })).status).toBe(200);
  });

  it("answers another account's key exactly like an unknown one, and changes nothing", async () => {
    const a = await createAccount();
    const b = await createAccount();
    await call("POST", "/api/v1/api-keys", { creds: b, body: {} });
    const bKeys = (await call("GET", "/api/v1/api-keys", { creds: b })).json.data;
    const theirs = await call("DELETE", `/api/v1/api-keys/${bKeys[0].id}`, { creds: a });
    const unknown = await call("DELETE", "/api/v1/api-keys/999999999", { creds: a });
    expect(theirs.status).toBe(404);
    expect(theirs.json).toEqual({ message: "Not Found", error: `API key with id '${bKeys[0].id}' not found` });
    expect(unknown.json).toEqual({ message: "Not Found", error: "API key with id '999999999' not found" });
    expect((await call("DELETE", "/api/v1/api-keys/abc", { creds: a })).status).toBe(404);
    expect((await call("GET", "/api/v1/api-keys", { creds: b })).json.data.map((k: { state: string }) => k.state)).toEqual(["active", "active"]);
    expect((await call("GET", "/api/v1/api-keys", { creds: a })).json.meta.total).toBe(1);
  });

  it("refuses a bad create with the API's 422", async () => {
    const shop = await createAccount();
    const res = await call("POST", "/api/v1/api-keys", { creds: shop, body: { name: "x".repeat(256), expires_at: "soon" } });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: "Errors",
      errors: { name: ["The name field must not be greater than 255 characters."], expires_at: ["The expires_at field must be a valid ISO 8601 date."] },
    });
  });

  it("ends the console sessions opened with a key the moment it is revoked (by the shop or the operator)", async () => {
    const shop = await createAccount();
    const spare = await call("POST", "/api/v1/api-keys", { creds: shop, body: {} });
    const keys = (await call("GET", "/api/v1/api-keys", { creds: shop })).json.data;
    const first = keys[1].id;
    const now = new Date().toISOString();
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const session = (hash: string, keyId: number) =>
      env.DB.prepare(
        "INSERT INTO console_sessions (token_hash, role, account_id, api_key_id, created_at, last_seen_at, expires_at) VALUES (?1, 'shop', ?2, ?3, ?4, ?4, ?5)",
      ).bind(hash, shop.accountId, keyId, now, later);
    await env.DB.batch([session(`t-${first}-a`, first), session(`t-${first}-b`, first), session(`t-${spare.json.id}`, spare.json.id)]);
    const count = async (keyId: number) => (await env.DB.prepare("SELECT count(*) AS n FROM console_sessions WHERE api_key_id = ?1").bind(keyId).first<{ n: number }>())!.n;
    expect(await count(first)).toBe(2);
    expect((await call("DELETE", `/api/v1/api-keys/${first}`, { creds: { accountId: shop.accountId, apiKey: spare.json.api_key } })).status).toBe(204);
    expect([await count(first), await count(spare.json.id)]).toEqual([0, 1]);
    expect((await call("DELETE", `/admin/v1/api-keys/${spare.json.id}`, { headers: ADMIN })).status).toBe(204);
    expect(await count(spare.json.id)).toBe(0);
  });
});
