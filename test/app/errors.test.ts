// Errors everywhere are JSON: 400, 404, 405, 413, 415 and the generic 500, never a stack or SQL.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { createAccount, orderPayload, rows } from "../helpers/factories";
import { authHeaders, call } from "../helpers/http";

const MiB = 1024 * 1024;

/** A valid order whose JSON is `bytes` long, padded in a custom field. */
function orderOfSize(bytes: number) {
  const base = JSON.stringify(orderPayload({ external_id: "sized", custom: { pad: "" } })).length;
  const json = JSON.stringify(orderPayload({ external_id: "sized", custom: { pad: "x".repeat(bytes - base) } }));
  expect(json.length).toBe(bytes);
  return json;
}

function stream(text: string) {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.slice(i, i + 64 * 1024));
      controller.close();
    },
  });
}

describe("request body limits", () => {
  const tooLarge = { message: "Payload Too Large", error: "The request body must not be larger than 1 MiB." };

  it("answers 413 JSON for a body over 1 MiB, and writes nothing", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/orders", {
      creds,
      rawBody: orderOfSize(MiB + 1),
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(413);
    expect(res.json).toEqual(tooLarge);
    expect(await rows("SELECT id FROM orders WHERE account_id = ?", creds.accountId)).toEqual([]);
  });

  it("answers 413 for a streamed body without Content-Length", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/orders", {
      creds,
      rawBody: stream(orderOfSize(2 * MiB)),
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(413);
    expect(res.json).toEqual(tooLarge);
  });

  it("accepts a body of exactly 1 MiB up to validation", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/orders", {
      creds,
      rawBody: orderOfSize(MiB),
      headers: { "content-type": "application/json" },
    });
    // It gets past the size limit; its 1 MiB custom field is then refused by validation.
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ message: "Errors", errors: { custom: ["The custom field must not be larger than 16 kilobytes."] } });
  });

  it("answers 413 on the admin API too", async () => {
    const res = await call("POST", "/admin/v1/accounts", {
      headers: { authorization: "Bearer test-admin-token", "content-type": "application/json" },
      rawBody: JSON.stringify({ name: "x".repeat(MiB) }),
    });
    expect(res.status).toBe(413);
    expect(res.json).toEqual(tooLarge);
  });
});

describe("malformed requests", () => {
  it("answers 400 JSON for malformed JSON", async () => {
    const creds = await createAccount();
    // (An empty body is no body: test/app/bodies.empty.test.ts.)
    for (const rawBody of ['{"external_id": "x",', "not json", " ", "{'a': 1}"]) {
      const res = await call("POST", "/api/v1/orders", { creds, rawBody, headers: { "content-type": "application/json" } });
      expect(res.status, JSON.stringify(rawBody)).toBe(400);
      expect(res.json).toEqual({ message: "Bad Request", error: "Malformed JSON in request body" });
    }
  });

  it("answers 415 JSON naming the accepted types for a body of another type", async () => {
    const creds = await createAccount();
    for (const headers of [{ "content-type": "text/plain" }, { "content-type": "application/xml" }, {} as Record<string, string>]) {
      const res = await call("POST", "/api/v1/orders", { creds, rawBody: JSON.stringify(orderPayload()), headers });
      expect(res.status, JSON.stringify(headers)).toBe(415);
      expect(res.json).toEqual({
        message: "Unsupported Media Type",
        error: "Send the body as application/json, application/x-www-form-urlencoded or multipart/form-data.",
      });
    }
    // The other write endpoints take JSON only (no plugin sends them a form), and say so.
    for (const [path, headers] of [
      ["/api/v1/suppliers", authHeaders(creds)],
      ["/api/v1/routing-rules", authHeaders(creds)],
      ["/admin/v1/accounts", { authorization: "Bearer test-admin-token" }],
    ] as const) {
      for (const type of ["application/x-www-form-urlencoded", "text/plain"]) {
        const res = await call("POST", path, { rawBody: "name=x", headers: { ...headers, "content-type": type } });
        expect(res.status, `${path} ${type}`).toBe(415);
        expect(res.json).toEqual({ message: "Unsupported Media Type", error: "Send the body as application/json." });
      }
    }
  });
});

describe("routing errors", () => {
  it("answers 404 JSON for an unknown route", async () => {
    const creds = await createAccount();
    for (const path of ["/nope", "/api/v2/orders", "/api/v1/orders/123/lines", "/api/v1/unknown"]) {
      const res = await call("GET", path, { creds });
      expect(res.status, path).toBe(404);
      expect(res.json).toEqual({ message: "Not Found", error: `The route GET ${path} does not exist.` });
    }
  });

  it("answers 405 JSON with an Allow header for a wrong method", async () => {
    const creds = await createAccount();
    const cases: [string, string, string[]][] = [
      ["DELETE", "/api/v1/orders", ["GET", "POST"]],
      ["PUT", "/api/v1/orders", ["GET", "POST"]],
      ["POST", "/api/v1/orders/1234567890123456", ["GET"]],
      ["DELETE", "/api/v1/products", ["GET"]],
      ["POST", "/api/v1", ["GET"]],
      ["DELETE", "/admin/v1/accounts", ["GET", "POST"]],
      ["POST", "/openapi.json", ["GET"]],
      // A fixed path is its own route, never an id of the route beside it.
      ["GET", "/api/v1/routing-rules/explain", ["POST"]],
      ["GET", "/api/v1/routing-rules/reorder", ["POST"]],
      ["PATCH", "/api/v1/routing-rules/reorder/", ["POST"]],
      ["DELETE", "/api/v1/routing-rules/explain", ["POST"]],
    ];
    for (const [method, path, allowed] of cases) {
      const headers: Record<string, string> = path.startsWith("/admin") ? { authorization: "Bearer test-admin-token" } : {};
      const res = await call(method, path, { creds, headers });
      expect(res.status, `${method} ${path}`).toBe(405);
      const allow = res.headers.get("allow")!.split(", ").sort();
      expect(allow).toEqual(allowed);
      expect(res.json).toEqual({
        message: "Method Not Allowed",
        error: `The ${method} method is not supported for this route. Supported: ${res.headers.get("allow")}.`,
      });
    }
  });

  it("still reads any other segment in an id's place as an id", async () => {
    const creds = await createAccount();
    for (const id of ["123456", "explains", "reorder-me"]) {
      const res = await call("GET", `/api/v1/routing-rules/${id}`, { creds });
      expect(res.status, id).toBe(404);
      expect(res.json).toEqual({ message: "Not Found", error: `Routing rule with id '${id}' not found` });
    }
  });

  it("serves a path with a trailing slash as the path without it, as Laravel does", async () => {
    const creds = await createAccount();
    const created = await call("POST", "/api/v1/orders/", { creds, body: orderPayload() });
    expect(created.status).toBe(200);
    expect(created.json.message).toBe("Order created");
    const list = await call("GET", "/api/v1/orders/?per_page=1", { creds });
    expect(list.status).toBe(200);
    expect(list.json.meta).toMatchObject({ total: 1, path: "http://orders.test/api/v1/orders" });
    expect(list.json.links.first).toBe("http://orders.test/api/v1/orders?per_page=1&page=1");
    const shown = await call("GET", `/api/v1/orders/${created.json.reference}/`, { creds });
    expect(shown.json.reference).toBe(String(created.json.reference));
    expect((await call("GET", "/api/v1/", { creds })).json).toEqual({ id: creds.accountId, name: creds.name });
    const products = await call("GET", "/api/v1/products/", { creds });
    expect(products.json.path).toBe("http://orders.test/api/v1/products");
    const wrong = await call("DELETE", "/api/v1/orders/", { creds });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")!.split(", ").sort()).toEqual(["GET", "POST"]);
  });

  it("answers JSON 401 before routing on /api/v1 without credentials", async () => {
    const res = await call("DELETE", "/api/v1/orders");
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ message: "Unauthorized", error: "The api-key header is missing." });
  });

  it("serves /health without credentials", async () => {
    const res = await call("GET", "/health");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: "ok" });
  });
});

describe("unexpected failures", () => {
  async function appWith(route: (app: ReturnType<typeof createApp>) => void, path: string, init: RequestInit = {}) {
    const app = createApp();
    route(app);
    const ctx = createExecutionContext();
    const res = await app.request(path, init, env, ctx);
    await waitOnExecutionContext(ctx);
    return { status: res.status, headers: res.headers, text: await res.text() };
  }

  it("answers the generic 500 without a stack or SQL, and logs it with the request id", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const res = await appWith(
        (app) =>
          app.get("/boom", async (c) => {
            await c.get("db").$client.prepare("SELECT secret_column FROM no_such_table").all();
            return c.json({});
          }),
        "/boom",
        { headers: { "x-request-id": "req-123" } },
      );
      expect(res.status).toBe(500);
      expect(JSON.parse(res.text)).toEqual({
        message: "Internal Server Error",
        error: "Something went wrong on our side, please retry later.",
      });
      expect(res.text).not.toMatch(/no_such_table|secret_column|SELECT|at |\.ts/);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const lines = logged.mock.calls.map((args) => args.join(" "));
      expect(lines.some((l) => l.includes("req-123") && l.includes("no_such_table"))).toBe(true);
    } finally {
      logged.mockRestore();
    }
  });

  it("answers the generic 500 for a thrown non-Error", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const res = await appWith(
        (app) =>
          app.get("/boom", () => {
            throw "raw string with /etc/passwd";
          }),
        "/boom",
      );
      expect(res.status).toBe(500);
      expect(JSON.parse(res.text)).toEqual({
        message: "Internal Server Error",
        error: "Something went wrong on our side, please retry later.",
      });
    } finally {
      logged.mockRestore();
    }
  });

  it("keeps the status of Hono's HTTPException, as JSON", async () => {
    const res = await appWith(
      (app) =>
        app.get("/teapot", () => {
          throw new HTTPException(429, { message: "Slow down" });
        }),
      "/teapot",
    );
    expect(res.status).toBe(429);
    expect(JSON.parse(res.text)).toEqual({ message: "Too Many Requests", error: "Slow down" });
  });
});

describe("request id", () => {
  it("echoes a sane X-Request-Id and makes one up otherwise", async () => {
    const given = await call("GET", "/health", { headers: { "x-request-id": "abc-123" } });
    expect(given.headers.get("x-request-id")).toBe("abc-123");
    const made = await call("GET", "/health", { headers: { "x-request-id": "bad id with spaces" } });
    expect(made.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const error = await call("GET", "/nope");
    expect(error.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
