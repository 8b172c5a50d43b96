// Each error response of /openapi.json carries an example of its own, in the documented shape of
// its status (test/helpers/invariants.ts); the ones a test can provoke anywhere (415, 401) are
// exactly what the endpoint answers.
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { ADMIN, authHeaders, call } from "../helpers/http";
import { expectDocumentedError } from "../helpers/invariants";

type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };

const INTERNAL_ERROR = { message: "Internal Server Error", error: "Something went wrong on our side, please retry later." };

function errorsOf(doc: Doc) {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).flatMap(([method, op]) =>
      Object.entries<any>(op.responses)
        .filter(([status]) => Number(status) >= 400)
        .map(([status, response]) => ({ where: `${method.toUpperCase()} ${path} ${status}`, method, path, op, status: Number(status), response })),
    ),
  );
}

describe("the error responses of the OpenAPI document", () => {
  it("each has its own example, in the shape of its status", async () => {
    const doc: Doc = (await call("GET", "/openapi.json")).json;
    const errors = errorsOf(doc);
    expect(errors.length).toBeGreaterThan(100);
    const missing = errors.filter((e) => e.response.content?.["application/json"]?.example === undefined).map((e) => e.where);
    expect(missing, `Error responses without an example:\n${missing.join("\n")}`).toEqual([]);

    const seen = new Map<number, Set<string>>();
    for (const { where, status, response } of errors) {
      const media = response.content["application/json"];
      const example = { ...media.example };
      // A route's own shape extends the documented one with the import record (feed pushes and pulls).
      const schema = media.schema.$ref?.replace("#/components/schemas/", "");
      if (schema === "FailedUpload" || schema === "FailedPull") {
        expect(example.import, where).toMatchObject({ status: "failed", error: expect.any(String) });
        delete example.import;
      } else {
        expect(["Error", "ValidationError"], where).toContain(schema);
      }
      if (status === 500) expect(example, where).toEqual(INTERNAL_ERROR);
      else if (status === 502) expect(example, where).toEqual({ message: "Bad Gateway", error: expect.any(String) });
      // Without SECRETS_KEY, the endpoints that keep or use a shop's credentials (src/shops/connections.service.ts).
      else if (status === 503) expect(example, where).toEqual({ message: "Service Unavailable", error: 'SECRETS_KEY is not set: this Worker cannot keep credentials (docs/operations.md, "Secrets")' });
      else {
        const text = JSON.stringify(example);
        expectDocumentedError({ status, headers: new Headers({ "content-type": "application/json" }), json: example, text }, where);
      }
      seen.set(status, (seen.get(status) ?? new Set()).add(JSON.stringify(example)));
    }
    // Not one body for every status: each status shows its own.
    expect([...seen.keys()].sort()).toEqual([400, 401, 404, 409, 413, 415, 422, 429, 500, 502, 503]);
    const bodies = [...seen.values()].flatMap((set) => [...set]);
    expect(new Set(bodies).size).toBe(bodies.length);
  });

  it("every endpoint with a body documents its 415, naming exactly what that endpoint answers", async () => {
    const doc: Doc = (await call("GET", "/openapi.json")).json;
    const creds = await createAccount();
    const supplier = (await call("POST", "/api/v1/suppliers", { creds, body: { name: "Tuinhout" } })).json;
    const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key;
    const headersFor = (scheme: string | undefined): Record<string, string> =>
      scheme === "AdminToken" ? ADMIN : scheme === "SupplierKey" ? { authorization: `Bearer ${key}` } : authHeaders(creds);
    const withBody = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).filter(([, op]) => op.requestBody).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    );
    expect(withBody.length).toBeGreaterThanOrEqual(20);
    const compared: string[] = [];
    for (const { method, path, op } of withBody) {
      const documented = op.responses["415"]?.content["application/json"].example;
      expect(documented, `${method} ${path}`).toBeDefined();
      const headers = headersFor(Object.keys(op.security?.[0] ?? {})[0]);
      const url = path.replace(/\{[^}]+\}/g, "1");
      const res = await call(method, url, { rawBody: "x", headers: { ...headers, "content-type": "image/png" } });
      // Routes that look the resource up first answer 404 for id 1 of another account; those that read the body first, 415.
      if (res.status === 415) {
        expect(res.json, `${method} ${path}`).toEqual(documented);
        compared.push(`${method} ${path}`);
      } else expect(res.status, `${method} ${path} ${res.text}`).toBe(404);
    }
    expect(compared.length).toBeGreaterThan(withBody.length / 2);
  });

  it("the 401 examples are what a request without credentials gets", async () => {
    const doc: Doc = (await call("GET", "/openapi.json")).json;
    const probes: Record<string, [string, string]> = {
      "The api-key header is missing.": ["GET", "/api/v1/orders"],
      "The Authorization header must carry a supplier key: Bearer <key>.": ["GET", "/api/v1/supplier/orders"],
      "The admin token is invalid.": ["POST", "/admin/v1/accounts"],
      "The signature does not match.": ["POST", "/api/v1/supplier-callbacks/1"],
    };
    const documented = new Set(errorsOf(doc).filter((e) => e.status === 401).map((e) => e.response.content["application/json"].example.error));
    expect([...documented].sort()).toEqual(Object.keys(probes).sort());
    for (const [error, [method, path]] of Object.entries(probes)) {
      const headers: Record<string, string> = path.startsWith("/admin") ? { authorization: "Bearer wrong" } : {};
      if (path.includes("callbacks")) headers["x-webhook-signature"] = `t=${Math.floor(Date.now() / 1000)},v1=${"0".repeat(64)}`;
      const res = await call(method, path, { headers, ...(method === "POST" ? { body: {} } : {}) });
      expect(res.status, path).toBe(401);
      expect(res.json, path).toEqual({ message: "Unauthorized", error });
    }
  });
});
