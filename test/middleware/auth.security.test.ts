// Authentication of every /api/v1 endpoint: api-key + account-id, and the exact 401 bodies.
import { describe, expect, it } from "vitest";
import { ADMIN, call, type Credentials } from "../helpers/http";
import { createAccount, createOrder, orderPayload, rows } from "../helpers/factories";

const unauthorized = (error: string) => ({ message: "Unauthorized", error });

/** Every public endpoint, with a request that would succeed with good credentials. */
async function endpoints(creds: Credentials) {
  const { reference } = await createOrder(creds);
  return [
    { method: "GET", path: "/api/v1" },
    { method: "GET", path: "/api/v1/orders" },
    { method: "POST", path: "/api/v1/orders", body: orderPayload() },
    { method: "GET", path: `/api/v1/orders/${reference}` },
    { method: "GET", path: "/api/v1/products" },
  ];
}

async function issueKey(accountId: number, body: Record<string, unknown> = {}) {
  const res = await call("POST", `/admin/v1/accounts/${accountId}/api-keys`, { headers: ADMIN, body });
  expect(res.status).toBe(201);
  return res.json as { id: number; api_key: string; expires_at: string | null };
}

describe("GET /api/v1 (test connection)", () => {
  it("answers the account's id and name", async () => {
    const creds = await createAccount("Shop Amsterdam");
    const res = await call("GET", "/api/v1", { creds });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: creds.accountId, name: "Shop Amsterdam" });
  });

  it("accepts header names in any case (WooCommerce sends Api-Key / Account-Id)", async () => {
    const creds = await createAccount();
    for (const [k, a] of [["Api-Key", "Account-Id"], ["API-KEY", "ACCOUNT-ID"]]) {
      const res = await call("GET", "/api/v1", { headers: { [k]: creds.apiKey, [a]: String(creds.accountId) } });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ id: creds.accountId, name: creds.name });
    }
  });

  it("accepts case-insensitive headers on order create too", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/orders", {
      headers: { "Api-Key": creds.apiKey, "Account-Id": String(creds.accountId) },
      body: orderPayload(),
    });
    expect(res.status).toBe(200);
    expect(res.json.message).toBe("Order created");
  });
});

describe("401 on every /api/v1 endpoint", () => {
  it("refuses a missing api-key header", async () => {
    const creds = await createAccount();
    for (const e of await endpoints(creds)) {
      const res = await call(e.method, e.path, { body: e.body, headers: { "account-id": String(creds.accountId) } });
      expect(res.status, `${e.method} ${e.path}`).toBe(401);
      expect(res.json).toEqual(unauthorized("The api-key header is missing."));
    }
  });

  it("refuses a missing account-id header", async () => {
    const creds = await createAccount();
    for (const e of await endpoints(creds)) {
      const res = await call(e.method, e.path, { body: e.body, headers: { "api-key": creds.apiKey } });
      expect(res.status, `${e.method} ${e.path}`).toBe(401);
      expect(res.json).toEqual(unauthorized("The account-id header is missing."));
    }
  });

  it("refuses no credentials at all, naming the api-key first", async () => {
    const creds = await createAccount();
    for (const e of await endpoints(creds)) {
      const res = await call(e.method, e.path, { body: e.body });
      expect(res.status, `${e.method} ${e.path}`).toBe(401);
      expect(res.json).toEqual(unauthorized("The api-key header is missing."));
    }
  });

  it("treats empty headers as missing", async () => {
    const creds = await createAccount();
    let res = await call("GET", "/api/v1/orders", { headers: { "api-key": "", "account-id": String(creds.accountId) } });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(unauthorized("The api-key header is missing."));
    res = await call("GET", "/api/v1/orders", { headers: { "api-key": creds.apiKey, "account-id": " " } });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(unauthorized("The account-id header is missing."));
  });

  it("refuses an invalid api-key", async () => {
    const creds = await createAccount();
    for (const apiKey of [`${creds.apiKey}x`, creds.apiKey.slice(0, -1), "oik_nonsense", "x"]) {
      for (const e of await endpoints(creds)) {
        const res = await call(e.method, e.path, { body: e.body, creds: { ...creds, apiKey } });
        expect(res.status, `${e.method} ${e.path}`).toBe(401);
        expect(res.json).toEqual(unauthorized("The api-key header is invalid."));
      }
    }
  });

  it("refuses an account-id that does not match the key, even another real account's id", async () => {
    const creds = await createAccount();
    const other = await createAccount();
    for (const accountId of [String(other.accountId), "0", "abc", `${creds.accountId}0`]) {
      for (const e of await endpoints(creds)) {
        const res = await call(e.method, e.path, {
          body: e.body,
          headers: { "api-key": creds.apiKey, "account-id": accountId },
        });
        expect(res.status, `${e.method} ${e.path} ${accountId}`).toBe(401);
        expect(res.json).toEqual(unauthorized("The account-id header does not match the api-key."));
      }
    }
  });

  it("refuses a key whose expires_at is in the past", async () => {
    const creds = await createAccount();
    const key = await issueKey(creds.accountId, { expires_at: "2020-01-01T00:00:00Z" });
    expect(key.expires_at).toBe("2020-01-01T00:00:00.000000Z");
    const expired = { accountId: creds.accountId, apiKey: key.api_key };
    for (const e of await endpoints(creds)) {
      const res = await call(e.method, e.path, { body: e.body, creds: expired });
      expect(res.status, `${e.method} ${e.path}`).toBe(401);
      expect(res.json).toEqual(unauthorized("The api-key header holds an expired key."));
    }
  });

  it("accepts a key until its expires_at, and refuses it from then on", async () => {
    const creds = await createAccount();
    const key = await issueKey(creds.accountId, { expires_at: new Date(Date.now() + 1500).toISOString() });
    const expiring = { accountId: creds.accountId, apiKey: key.api_key };
    const before = await call("GET", "/api/v1", { creds: expiring });
    expect(before.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(key.expires_at!) - Date.now() + 50));
    const after = await call("GET", "/api/v1", { creds: expiring });
    expect(after.status).toBe(401);
    expect(after.json).toEqual(unauthorized("The api-key header holds an expired key."));
  });

  it("refuses a revoked key at once, while the account's other keys keep working", async () => {
    const creds = await createAccount();
    const second = await issueKey(creds.accountId);
    const secondCreds = { accountId: creds.accountId, apiKey: second.api_key };
    expect((await call("GET", "/api/v1/orders", { creds: secondCreds })).status).toBe(200);

    const revoke = await call("DELETE", `/admin/v1/api-keys/${second.id}`, { headers: ADMIN });
    expect(revoke.status).toBe(204);

    for (const e of await endpoints(creds)) {
      const res = await call(e.method, e.path, { body: e.body, creds: secondCreds });
      expect(res.status, `${e.method} ${e.path}`).toBe(401);
      expect(res.json).toEqual(unauthorized("The api-key header holds a revoked key."));
    }
    expect((await call("GET", "/api/v1", { creds })).status).toBe(200);
  });

  it("does not let a refused request write anything", async () => {
    const creds = await createAccount();
    const payload = orderPayload();
    const res = await call("POST", "/api/v1/orders", { body: payload, creds: { ...creds, apiKey: "oik_wrong" } });
    expect(res.status).toBe(401);
    expect(await rows("SELECT id FROM orders WHERE account_id = ?", creds.accountId)).toEqual([]);
  });
});

describe("last_used_at", () => {
  it("is set on use, without a write on every request", async () => {
    const creds = await createAccount();
    const keyRow = async () =>
      (await rows<{ last_used_at: string | null }>(
        "SELECT last_used_at FROM api_keys WHERE account_id = ?",
        creds.accountId,
      ))[0].last_used_at;
    expect(await keyRow()).toBeNull();
    expect((await call("GET", "/api/v1", { creds })).status).toBe(200);
    let first: string | null = null;
    for (let i = 0; i < 50 && first === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      first = await keyRow();
    }
    expect(first).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect((await call("GET", "/api/v1", { creds })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await keyRow()).toBe(first);
  });
});
