// Generated query strings, credentials headers, paths and methods. Whatever arrives, the answer
// is a success or a documented 4xx, and credentials are judged exactly.
import { exports } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createAccount, createOrder, orderPayload, rows, seedProducts } from "../helpers/factories";
import { fuzz, text } from "../helpers/fuzz";
import { ADMIN, BASE, call, type Credentials } from "../helpers/http";
import { expectConsoleAnswer, expectDocumentedError, expectNoServerError, isConsolePath } from "../helpers/invariants";

const BATCH = 10;

/** encodeURIComponent, except that a lone surrogate becomes the bytes of one (invalid UTF-8) instead of throwing. */
const encode = (value: string) =>
  value
    .split(/([\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff])/)
    .map((part) => (/^[\ud800-\udfff]$/.test(part) ? "%ED%A0%80" : encodeURIComponent(part)))
    .join("");

// ---- Query strings ------------------------------------------------------------------

const FILTERS = ["external_id", "date_from", "date_to", "completed_since", "statuses", "supplier_ids", "total_min", "total_max", "blocked", "include_test", "per_page", "page"];

const queryValue = fc.oneof(
  text,
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom("true", "false", "1", "0", "yes", "TRUE", "pending,ruled", "pending,,ruled", ",", "completed, failed", "bogus", "1,2,x", "1,2,3"),
  fc.constantFrom("2026-01-01", "2026-02-30", "2026-01-01T10:00:00Z", "2026-01-01 10:00", "2026-01-01T10:00:00.1234567+02:00", "01-01-2026", "9999-12-31", "0000-00-00"),
  fc.constantFrom("-1", "0", "999999999999999999999", "1e3", "0x10", " 5 ", "5.5", "NaN", "Infinity"),
  fc.integer({ min: 1, max: 150 }).map((n) => Array.from({ length: n }, (_, i) => i).join(",")),
  fc.integer({ min: 256, max: 5000 }).map((n) => "x".repeat(n)),
  // Around the caps of the database rather than of the validation (D1: 50-byte LIKE patterns).
  fc.integer({ min: 30, max: 255 }).map((n) => "é%_x".repeat(n).slice(0, n)),
);

/** A raw query string: known and unknown keys, repeats, and encodings a URL parser lets through. */
const queryString = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...FILTERS), queryValue).map(([k, v]) => `${k}=${encode(v)}`) },
      { weight: 1, arbitrary: fc.tuple(text, queryValue).map(([k, v]) => `${encode(k)}=${encode(v)}`) },
      { weight: 1, arbitrary: fc.constantFrom(...FILTERS).map((k) => `${k}[]=1&${k}[]=2`) },
      { weight: 1, arbitrary: fc.constantFrom("%", "%zz", "page=%E0%A4%A", "statuses=%00", "=", "&&", "per_page", "a=b=c", "total_min=%2B5", "external_id=%25%5F") },
    ),
    { maxLength: 6 },
  )
  .map((parts) => parts.join("&"));

const looksLikePage = (json: any) =>
  json !== null && typeof json === "object" && Number.isInteger(json.current_page) && Array.isArray(json.data);

describe("generated query strings", () => {
  it("GET /api/v1/orders, /products and the other lists answer a page or a documented 4xx", async () => {
    const creds = await createAccount();
    await createOrder(creds);
    await createOrder(creds, { test: true });
    await seedProducts(creds.accountId, 3);
    const lists = ["/api/v1/orders", "/api/v1/products", "/api/v1/suppliers", "/api/v1/routing-rules"];
    let pages = 0;
    let refused = 0;
    await fuzz(fc.array(fc.tuple(fc.constantFrom(...lists), queryString), { minLength: BATCH, maxLength: BATCH }), 20, async (batch) => {
      const answers = await Promise.all(batch.map(([path, query]) => call("GET", `${path}?${query}`, { creds })));
      answers.forEach((res, i) => {
        const label = `GET ${batch[i][0]}?${batch[i][1].slice(0, 300)}`;
        if (res.status === 200) {
          expect(looksLikePage(res.json), label).toBe(true);
          pages++;
        } else {
          expectDocumentedError(res, label);
          expect(res.status, label).toBe(422);
          refused++;
        }
      });
    });
    expect(pages).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});

describe("the external_id filter at its length cap", () => {
  it("finds an order by any part of its external_id up to 255 characters, % and _ taken literally", async () => {
    const creds = await createAccount();
    // Far over D1's 50-byte cap on LIKE patterns, in characters and even more in bytes.
    const externalId = `WC-${"Ää%_".repeat(63)}`;
    expect(externalId).toHaveLength(255);
    const { reference } = await createOrder(creds, { external_id: externalId });
    await createOrder(creds, { external_id: "WC-other" });
    // (Case is ignored for ASCII letters, as LIKE does.)
    for (const query of [externalId, externalId.slice(100), externalId.slice(0, 200).replace("WC", "wc")]) {
      const res = await call("GET", `/api/v1/orders?external_id=${encodeURIComponent(query)}`, { creds });
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      expect(res.json.data.map((o: { reference: string }) => o.reference), query).toEqual([reference]);
    }
    const tooLong = await call("GET", `/api/v1/orders?external_id=${"x".repeat(256)}`, { creds });
    expect(tooLong.status).toBe(422);
    expect(tooLong.json).toEqual({ message: "Errors", errors: { external_id: ["The external_id field must not be greater than 255 characters."] } });
  });
});

// ---- Credentials headers --------------------------------------------------------------

/** What a client may put in a header: printable ASCII (the Fetch API refuses control characters). */
const headerText = fc.string({ unit: "binary-ascii", maxLength: 80 }).map((s) => s.replace(/[^\x20-\x7e]/g, "").trim());

type KeyChoice = "valid" | "padded" | "other" | "revoked" | "expired" | "mangled" | "random" | "empty" | "absent" | "twice";
type AccountChoice = "valid" | "padded" | "other" | "leading-zero" | "random" | "empty" | "absent";

const ERRORS = {
  missingKey: "The api-key header is missing.",
  missingAccount: "The account-id header is missing.",
  invalid: "The api-key header is invalid.",
  revoked: "The api-key header holds a revoked key.",
  expired: "The api-key header holds an expired key.",
  mismatch: "The account-id header does not match the api-key.",
};

describe("generated credentials", () => {
  it("answers 200 only for exactly the right pair, and otherwise the 401 that names the problem", async () => {
    const creds = await createAccount();
    const other = await createAccount();
    const issue = async (body: Record<string, unknown>) =>
      (await call("POST", `/admin/v1/accounts/${creds.accountId}/api-keys`, { headers: ADMIN, body })).json as { id: number; api_key: string };
    const revoked = await issue({});
    expect((await call("DELETE", `/admin/v1/api-keys/${revoked.id}`, { headers: ADMIN })).status).toBe(204);
    const expired = await issue({ expires_at: "2020-01-01T00:00:00Z" });

    const arbitrary = fc.record({
      key: fc.constantFrom<KeyChoice>("valid", "padded", "other", "revoked", "expired", "mangled", "random", "empty", "absent", "twice"),
      account: fc.constantFrom<AccountChoice>("valid", "padded", "other", "leading-zero", "random", "empty", "absent"),
      keyName: fc.constantFrom("api-key", "Api-Key", "API-KEY"),
      accountName: fc.constantFrom("account-id", "Account-Id", "ACCOUNT-ID"),
      noise: headerText,
      edit: fc.tuple(fc.nat(), fc.constantFrom("drop", "flip-case", "append", "replace")),
      path: fc.constantFrom("/api/v1", "/api/v1/orders", "/api/v1/products", "/api/v1/suppliers", "/api/v1/routing-rules"),
    });

    const mangle = (key: string, [at, how]: [number, string], noise: string) => {
      const i = at % key.length;
      if (how === "drop") return key.slice(0, i) + key.slice(i + 1);
      if (how === "append") return key + (noise || "x");
      if (how === "replace") return key.slice(0, i) + (key[i] === "A" ? "B" : "A") + key.slice(i + 1);
      const flipped = key.replace(/[a-z]/, (c) => c.toUpperCase());
      return flipped === key ? key.replace(/[A-Z]/, (c) => c.toLowerCase()) : flipped;
    };

    let accepted = 0;
    await fuzz(fc.array(arbitrary, { minLength: BATCH, maxLength: BATCH }), 20, async (batch) => {
      const answers = await Promise.all(
        batch.map(async (c) => {
          const headers = new Headers({ accept: "application/json" });
          const keyValue = {
            valid: creds.apiKey,
            padded: ` \t${creds.apiKey} `,
            other: other.apiKey,
            revoked: revoked.api_key,
            expired: expired.api_key,
            mangled: mangle(creds.apiKey, c.edit, c.noise),
            random: c.noise,
            empty: "",
            twice: creds.apiKey,
            absent: undefined,
          }[c.key];
          if (keyValue !== undefined) headers.append(c.keyName, keyValue);
          if (c.key === "twice") headers.append(c.keyName.toLowerCase(), creds.apiKey);
          const accountValue = {
            valid: String(creds.accountId),
            padded: `  ${creds.accountId}\t`,
            other: String(other.accountId),
            "leading-zero": `0${creds.accountId}`,
            random: c.noise,
            empty: "",
            absent: undefined,
          }[c.account];
          if (accountValue !== undefined) headers.set(c.accountName, accountValue);
          const res = await exports.default.fetch(new Request(`${BASE}${c.path}`, { headers }));
          const body = await res.text();
          return { status: res.status, headers: res.headers, text: body, json: JSON.parse(body) };
        }),
      );
      answers.forEach((res, i) => {
        const c = batch[i];
        const expected = expectedAnswer(c, creds, other);
        const label = JSON.stringify(c);
        if (expected === "ok") {
          expect(res.status, `${label} -> ${res.text}`).toBe(200);
          accepted++;
        } else {
          expect(res.status, label).toBe(401);
          expect(res.json, label).toEqual({ message: "Unauthorized", error: expected });
        }
      });
    });
    expect(accepted).toBeGreaterThan(0);
  });

  it("never writes an order for refused credentials", async () => {
    const creds = await createAccount();
    const headerSets = fc.record({ "api-key": fc.oneof(headerText, fc.constant(creds.apiKey)), "account-id": fc.oneof(headerText, fc.constant(String(creds.accountId))) }, { requiredKeys: [] });
    let created = 0;
    await fuzz(fc.array(headerSets, { minLength: BATCH, maxLength: BATCH }), 6, async (batch) => {
      const answers = await Promise.all(batch.map((headers) => call("POST", "/api/v1/orders", { headers, body: orderPayload() })));
      answers.forEach((res, i) => {
        const exact = batch[i]["api-key"] === creds.apiKey && batch[i]["account-id"] === String(creds.accountId);
        if (exact) {
          expect(res.json.message, JSON.stringify(batch[i])).toBe("Order created");
          created++;
        } else {
          expect(res.status, JSON.stringify(batch[i])).toBe(401);
          expectDocumentedError(res, JSON.stringify(batch[i]));
        }
      });
      expect((await rows("SELECT id FROM orders WHERE account_id = ?", creds.accountId)).length).toBe(created);
    });
    expect(created).toBeGreaterThan(0);
  });
});

/** The answer a client must get for a pair of credentials: "ok", or the 401 error naming the first problem. */
function expectedAnswer(c: { key: KeyChoice; account: AccountChoice; noise: string }, creds: Credentials, other: Credentials): string {
  const key = c.key === "mangled" ? "invalid" : c.key;
  if (key === "empty" || key === "absent" || (key === "random" && c.noise === "")) return ERRORS.missingKey;
  if (c.account === "empty" || c.account === "absent" || (c.account === "random" && c.noise === "")) return ERRORS.missingAccount;
  // Two api-key headers arrive joined ("k, k"), which is no key.
  if (key === "invalid" || key === "random" || key === "twice") return ERRORS.invalid;
  if (key === "revoked") return ERRORS.revoked;
  if (key === "expired") return ERRORS.expired;
  const keyAccount = key === "other" ? other.accountId : creds.accountId;
  const sent = { valid: String(creds.accountId), padded: String(creds.accountId), other: String(other.accountId), "leading-zero": `0${creds.accountId}`, random: c.noise.trim() }[c.account];
  return sent === String(keyAccount) ? "ok" : ERRORS.mismatch;
}

// ---- Paths and methods ------------------------------------------------------------------

const SEGMENTS = [
  "api", "v1", "v2", "orders", "products", "suppliers", "routing-rules", "explain", "reorder", "keys", "rotate-secret",
  "block", "unblock", "match", "retry", "complete", "dispatches", "supplier", "answers", "ack", "supplier-callbacks",
  "admin", "accounts", "api-keys", "openapi.json", "health", "1", "0", "-1", "99999999999999999999", "..", ".", "",
  "%2e%2e", "%", "%zz", "%00", "%C0%AE", "%E0%A4%A", "%F0%9F%98%80", "__proto__", "constructor", "*", ":id", "{reference}",
];
// Every method workerd lets a client send (it refuses unknown ones such as CONNECT or FOO itself).
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "TRACE", "PROPFIND", "MKCOL", "PURGE", "REPORT", "SEARCH", "QUERY", "get", "patch"];

describe("generated paths and methods", () => {
  it("answers every path and method with a success or a documented error", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    const supplier = (await call("POST", "/api/v1/suppliers", { creds, body: { name: "Fuzz supplier" } })).json;
    const segment = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...SEGMENTS, reference, String(supplier.id)) },
      { weight: 1, arbitrary: text.map(encode) },
    );
    const request = fc.record({
      path: fc.oneof(
        fc.array(segment, { minLength: 1, maxLength: 6 }).map((s) => `/${s.join("/")}`),
        fc.array(segment, { maxLength: 4 }).map((s) => `/api/v1/${s.join("/")}`),
      ),
      method: fc.constantFrom(...METHODS),
      authenticated: fc.boolean(),
      body: fc.option(fc.constantFrom("{}", '{"name": "x"}', "{", "[]", "null"), { nil: undefined }),
    });
    await fuzz(fc.array(request, { minLength: BATCH, maxLength: BATCH }), 25, async (batch) => {
      const answers = await Promise.all(
        batch.map((r) =>
          call(r.method, r.path, {
            creds: r.authenticated ? creds : undefined,
            rawBody: ["GET", "HEAD"].includes(r.method.toUpperCase()) ? undefined : r.body,
            headers: r.body ? { "content-type": "application/json" } : {},
          }),
        ),
      );
      answers.forEach((res, i) => {
        const label = `${batch[i].method} ${batch[i].path} ${batch[i].authenticated ? "(authenticated)" : ""}`;
        if (batch[i].method === "HEAD") expect(res.status, label).toBeLessThan(500);
        else if (isConsolePath(batch[i].path)) expectConsoleAnswer(res, label);
        else expectNoServerError(res, label);
      });
    });
  });
});
