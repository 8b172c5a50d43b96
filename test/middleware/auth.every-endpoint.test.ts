// Credentials on every endpoint, listed from the OpenAPI document so that a new endpoint is
// covered the day it is added: /api/v1 refuses missing, wrong, expired, revoked and cross-account
// credentials; the admin API refuses account keys; the supplier API refuses account keys and
// revoked supplier keys. Every refusal is the exact 401 and changes nothing.
import { beforeAll, describe, expect, it } from "vitest";
import { accountState, createAccount, createOrder } from "../helpers/factories";
import { ADMIN, call, type Credentials } from "../helpers/http";
import { supplierWithRule } from "../helpers/suppliers";
import { pipelineIdle, waitFor } from "../helpers/wait";

const unauthorized = (error: string) => ({ message: "Unauthorized", error });

type Endpoint = { method: string; template: string; path: string; hasBody: boolean };

/** Every operation of the OpenAPI document, its path filled with ids of the given account. */
async function endpoints(ids: Record<string, string>): Promise<Endpoint[]> {
  const doc = (await call("GET", "/openapi.json")).json;
  return Object.entries<Record<string, { requestBody?: unknown }>>(doc.paths).flatMap(([template, operations]) =>
    Object.entries(operations).map(([method, op]) => ({
      method: method.toUpperCase(),
      template,
      // Ids the account owns where the test knows them, else any id: credentials are judged first.
      path: template.replace(/\{(\w+)\}/g, (_, name: string) => ids[`${template.split("/")[3]}.${name}`] ?? ids[name] ?? "1"),
      hasBody: !!op.requestBody,
    })),
  );
}

const isSupplierApi = (e: Endpoint) => /^\/api\/v1\/(supplier|supplier-callbacks)(\/|$)/.test(e.template);
const isAccountApi = (e: Endpoint) => e.template.startsWith("/api/v1") && !isSupplierApi(e);
const isAdminApi = (e: Endpoint) => e.template.startsWith("/admin/");
/** A shop platform's own callbacks (Shopify's webhooks): signed with the connection's secret, tested in test/shops/platforms/shopify.test.ts. */
const isShopCallback = (e: Endpoint) => e.template.startsWith("/shopify/webhooks/");

async function send(e: Endpoint, headers: Record<string, string>) {
  return call(e.method, e.path, e.hasBody ? { headers: { ...headers, "content-type": "application/json" }, rawBody: "{}" } : { headers });
}

let a: Credentials & { name: string };
let b: Credentials & { name: string };
let all: Endpoint[];
let keys: { expired: string; revoked: string; supplier: string; revokedSupplier: string; deactivatedSupplier: string };

beforeAll(async () => {
  let doomed: Credentials;
  [a, b, doomed] = await Promise.all([createAccount(), createAccount(), createAccount()]);
  const issue = async (body: Record<string, unknown>) =>
    (await call("POST", `/admin/v1/accounts/${a.accountId}/api-keys`, { headers: ADMIN, body })).json as { id: number; api_key: string };
  const expired = await issue({ expires_at: "2020-01-01T00:00:00Z" });
  const revoked = await issue({});
  expect((await call("DELETE", `/admin/v1/api-keys/${revoked.id}`, { headers: ADMIN })).status).toBe(204);

  // A pull supplier with an order waiting for it, a valid key, a revoked key; and a deactivated supplier's key.
  const { supplier, rule } = await supplierWithRule(a, { channel: "pull" });
  const issueSupplierKey = async (id: number) => (await call("POST", `/api/v1/suppliers/${id}/keys`, { creds: a, body: {} })).json as { id: number; key: string };
  const supplierKey = await issueSupplierKey(supplier.id);
  const revokedSupplierKey = await issueSupplierKey(supplier.id);
  expect((await call("DELETE", `/api/v1/suppliers/${supplier.id}/keys/${revokedSupplierKey.id}`, { creds: a })).status).toBe(204);
  const retired = (await call("POST", "/api/v1/suppliers", { creds: a, body: { name: "Retired" } })).json;
  const retiredKey = await issueSupplierKey(retired.id);
  expect((await call("DELETE", `/api/v1/suppliers/${retired.id}`, { creds: a })).status).toBe(200);

  const { reference } = await createOrder(a);
  const dispatch = await waitFor(async () => {
    const d = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds: a })).json.data[0];
    return d?.status === "awaiting_pickup" ? d : null;
  });
  // Nothing of the pipeline is still on its way: the refusals below must find the state as it is.
  await pipelineIdle(a.accountId);
  all = await endpoints({
    reference,
    "suppliers.id": String(supplier.id),
    keyId: String(supplierKey.id),
    "routing-rules.id": String(rule.id),
    dispatchId: String(dispatch.id),
    supplierId: String(supplier.id),
    // Admin paths: an account of their own (DELETE /admin/v1/accounts/{id} with the admin token deletes it
    // once it has no open work), and a's revoked key (revoking it again changes nothing).
    "accounts.id": String(doomed.accountId),
    "api-keys.id": String(revoked.id),
  });
  keys = { expired: expired.api_key, revoked: revoked.api_key, supplier: supplierKey.key, revokedSupplier: revokedSupplierKey.key, deactivatedSupplier: retiredKey.key };
});

describe("the endpoint list", () => {
  it("comes from the OpenAPI document and holds every part of the API", () => {
    expect(all.filter(isAccountApi).length).toBeGreaterThanOrEqual(20);
    expect(all.filter(isSupplierApi).length).toBeGreaterThanOrEqual(4);
    expect(all.filter(isAdminApi).length).toBeGreaterThanOrEqual(3);
    expect(all.every((e) => isAccountApi(e) || isSupplierApi(e) || isAdminApi(e) || isShopCallback(e))).toBe(true);
    expect(all.some((e) => e.path.includes("{"))).toBe(false);
  });
});

describe("/api/v1/supplier (supplier keys)", () => {
  it("refuses account keys, revoked supplier keys and deactivated suppliers' keys", async () => {
    const cases: [string, Record<string, string>, string][] = [
      ["account credentials", { "api-key": a.apiKey, "account-id": String(a.accountId) }, "The Authorization header must carry a supplier key: Bearer <key>."],
      ["an account key as Bearer", { authorization: `Bearer ${a.apiKey}` }, "The supplier key is invalid or revoked."],
      ["the admin token as Bearer", ADMIN, "The supplier key is invalid or revoked."],
      ["a revoked supplier key", { authorization: `Bearer ${keys.revokedSupplier}` }, "The supplier key is invalid or revoked."],
      ["a deactivated supplier's key", { authorization: `Bearer ${keys.deactivatedSupplier}` }, "The supplier is deactivated."],
    ];
    const state = accountState(a.accountId);
    const before = await state();
    const targets = all.filter((e) => isSupplierApi(e) && e.template.startsWith("/api/v1/supplier/"));
    for (const e of targets) {
      for (const [name, headers, error] of cases) {
        const res = await send(e, headers);
        expect(res.status, `${e.method} ${e.path}: ${name}`).toBe(401);
        expect(res.json, `${e.method} ${e.path}: ${name}`).toEqual(unauthorized(error));
      }
    }
    expect(await state()).toEqual(before);
    for (const e of targets) {
      const res = await send(e, { authorization: `Bearer ${keys.supplier}` });
      expect(res.status, `${e.method} ${e.path} with the supplier key: ${res.text.slice(0, 200)}`).not.toBe(401);
    }
  });

  it("refuses supplier callbacks without a valid signature, whatever other credentials come along", async () => {
    const callbacks = all.filter((e) => e.template.startsWith("/api/v1/supplier-callbacks/"));
    expect(callbacks.length).toBeGreaterThan(0);
    const state = accountState(a.accountId);
    const before = await state();
    for (const e of callbacks) {
      for (const headers of [{ "api-key": a.apiKey, "account-id": String(a.accountId) }, { authorization: `Bearer ${keys.supplier}` }, ADMIN]) {
        const res = await call(e.method, e.path, { headers: { ...headers, "content-type": "application/json" }, rawBody: "{}" });
        expect(res.status, `${e.method} ${e.path}`).toBe(401);
        expect(res.json).toEqual(unauthorized("The X-Webhook-Signature header is missing."));
      }
    }
    expect(await state()).toEqual(before);
  });
});

describe("/admin/v1", () => {
  it("refuses account keys and supplier keys on every admin endpoint", async () => {
    const cases: [string, Record<string, string>, string][] = [
      ["account credentials", { "api-key": a.apiKey, "account-id": String(a.accountId) }, "The Authorization header is missing or is not a Bearer token."],
      ["an account key as Bearer", { authorization: `Bearer ${a.apiKey}` }, "The admin token is invalid."],
      ["a supplier key as Bearer", { authorization: `Bearer ${keys.supplier}` }, "The admin token is invalid."],
      ["the admin token without Bearer", { authorization: "test-admin-token" }, "The Authorization header is missing or is not a Bearer token."],
      ["a prefix of the admin token", { authorization: "Bearer test-admin-toke" }, "The admin token is invalid."],
    ];
    const targets = all.filter(isAdminApi);
    for (const e of targets) {
      for (const [name, headers, error] of cases) {
        const res = await send(e, headers);
        expect(res.status, `${e.method} ${e.path}: ${name}`).toBe(401);
        expect(res.json, `${e.method} ${e.path}: ${name}`).toEqual(unauthorized(error));
      }
      const res = await send(e, ADMIN);
      expect(res.status, `${e.method} ${e.path} with the admin token`).not.toBe(401);
    }
    // a's own key was never touched.
    expect((await call("GET", "/api/v1", { creds: a })).status).toBe(200);
  });
});

// Last: its successful requests deactivate the supplier, revoke its key and so on.
describe("/api/v1 (account credentials)", () => {
  it("refuses every bad pair of credentials on every endpoint with the exact 401, changing nothing", async () => {
    const id = String(a.accountId);
    const cases: [string, Record<string, string>, string][] = [
      ["no credentials", {}, "The api-key header is missing."],
      ["missing api-key", { "account-id": id }, "The api-key header is missing."],
      ["empty api-key", { "api-key": "", "account-id": id }, "The api-key header is missing."],
      ["missing account-id", { "api-key": a.apiKey }, "The account-id header is missing."],
      ["wrong api-key", { "api-key": `${a.apiKey.slice(0, -1)}x`, "account-id": id }, "The api-key header is invalid."],
      ["a supplier key as api-key", { "api-key": keys.supplier, "account-id": id }, "The api-key header is invalid."],
      ["the admin token as api-key", { "api-key": "test-admin-token", "account-id": id }, "The api-key header is invalid."],
      ["an account key as Bearer only", { authorization: `Bearer ${a.apiKey}` }, "The api-key header is missing."],
      ["expired api-key", { "api-key": keys.expired, "account-id": id }, "The api-key header holds an expired key."],
      ["revoked api-key", { "api-key": keys.revoked, "account-id": id }, "The api-key header holds a revoked key."],
      ["a's key with b's account-id", { "api-key": a.apiKey, "account-id": String(b.accountId) }, "The account-id header does not match the api-key."],
      ["b's key with a's account-id", { "api-key": b.apiKey, "account-id": id }, "The account-id header does not match the api-key."],
    ];
    const state = accountState(a.accountId);
    const before = await state();
    const targets = all.filter(isAccountApi);
    await Promise.all(
      targets.flatMap((e) =>
        cases.map(async ([name, headers, error]) => {
          const res = await send(e, headers);
          expect(res.status, `${e.method} ${e.path}: ${name}`).toBe(401);
          expect(res.json, `${e.method} ${e.path}: ${name}`).toEqual(unauthorized(error));
        }),
      ),
    );
    expect(await state()).toEqual(before);

    // The same requests with a's own credentials get past authentication (so the refusals above
    // were the credentials' doing). Last: some of them change things.
    for (const e of targets) {
      const res = await send(e, { "api-key": a.apiKey, "account-id": id });
      expect(res.status, `${e.method} ${e.path}: ${res.text.slice(0, 200)}`).not.toBe(401);
      expect(res.status, `${e.method} ${e.path}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
    }
  });
});
