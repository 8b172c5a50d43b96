import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { BASE, call } from "../helpers/http";
import { createSupplier } from "../helpers/routing";

const ISO_MICRO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

describe.concurrent("POST /api/v1/suppliers", () => {
  it("creates a supplier with defaults and answers 201 with its JSON", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Acme Wholesale" } });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      id: expect.any(Number),
      name: "Acme Wholesale",
      code: null,
      active: true,
      priority: 100,
      channel: "manual",
      webhook_url: null,
      email: null,
      acknowledgement_deadline_hours: null,
      acknowledgement_deadline_reroute: false,
      shipping_deadline_days: null,
      file_transfer: null,
      previous_secret_valid: false,
      webhook_secret: expect.stringMatching(/^whsec_[0-9a-f]{64}$/),
      created_at: ISO_MICRO,
      updated_at: res.json.created_at,
    });
  });

  it("keeps code, active and priority as sent", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Beta", code: "BETA-01", active: false, priority: 5 } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ name: "Beta", code: "BETA-01", active: false, priority: 5 });
  });

  it("answers 422 when the name is already taken in the account", async () => {
    const creds = await createAccount();
    await createSupplier(creds, { name: "Acme" });
    const res = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Acme" } });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ message: "Errors", errors: { name: ["The name has already been taken."] } });
  });

  it("allows the same name in another account", async () => {
    const a = await createAccount();
    const b = await createAccount();
    await createSupplier(a, { name: "Shared Name" });
    const res = await call("POST", "/api/v1/suppliers", { creds: b, body: { name: "Shared Name" } });
    expect(res.status).toBe(201);
  });

  it("reports every invalid field at once in the 422 shape", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/suppliers", { creds, body: { code: "x".repeat(65), active: "maybe", priority: -1 } });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: "Errors",
      errors: {
        name: ["The name field is required."],
        code: ["The code field must not be greater than 64 characters."],
        active: ["The active field must be true or false."],
        priority: ["The priority field must be at least 0."],
      },
    });
  });

  it("names a channel's missing field beside the others in the same 422, and stores nothing", async () => {
    const creds = await createAccount();
    for (const [channel, field] of [["webhook", "webhook_url"], ["email", "email"], ["file", "file_transfer"]] as const) {
      const res = await call("POST", "/api/v1/suppliers", { creds, body: { channel, priority: -1 } });
      expect({ channel, status: res.status, json: res.json }).toEqual({
        channel,
        status: 422,
        json: {
          message: "Errors",
          errors: {
            name: ["The name field is required."],
            priority: ["The priority field must be at least 0."],
            [field]: [`The ${field} field is required when channel is ${channel}.`],
          },
        },
      });
    }
    expect((await call("GET", "/api/v1/suppliers", { creds })).json.data).toEqual([]);
  });

  it("requires credentials", async () => {
    const res = await call("POST", "/api/v1/suppliers", { body: { name: "Nope" } });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ message: "Unauthorized", error: "The api-key header is missing." });
  });
});

describe.concurrent("GET /api/v1/suppliers", () => {
  it("lists the account's suppliers by priority then id, paginated like the order list", async () => {
    const creds = await createAccount();
    const c = await createSupplier(creds, { name: "C", priority: 100 });
    const a = await createSupplier(creds, { name: "A", priority: 1 });
    const b = await createSupplier(creds, { name: "B", priority: 100 });
    const other = await createAccount();
    await createSupplier(other, { name: "Not mine", priority: 0 });

    const res = await call("GET", "/api/v1/suppliers?per_page=2", { creds });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      current_page: 1,
      data: [a, c],
      links: {
        first: `${BASE}/api/v1/suppliers?per_page=2&page=1`,
        last: `${BASE}/api/v1/suppliers?per_page=2&page=2`,
        prev: null,
        next: `${BASE}/api/v1/suppliers?per_page=2&page=2`,
      },
      meta: { current_page: 1, from: 1, last_page: 2, path: `${BASE}/api/v1/suppliers`, per_page: 2, to: 2, total: 3 },
    });

    const page2 = await call("GET", "/api/v1/suppliers?per_page=2&page=2", { creds });
    expect(page2.json.data).toEqual([b]);
    expect(page2.json.meta).toMatchObject({ from: 3, to: 3, total: 3 });
    expect(page2.json.links).toMatchObject({ prev: `${BASE}/api/v1/suppliers?per_page=2&page=1`, next: null });
  });

  it("answers an empty page for an account without suppliers", async () => {
    const creds = await createAccount();
    const res = await call("GET", "/api/v1/suppliers", { creds });
    expect(res.json.data).toEqual([]);
    expect(res.json.meta).toMatchObject({ from: null, to: null, total: 0, last_page: 1, per_page: 50 });
  });
});

describe.concurrent("GET/PATCH/DELETE /api/v1/suppliers/{id}", () => {
  it("fetches one supplier", async () => {
    const creds = await createAccount();
    const s = await createSupplier(creds, { name: "Acme", code: "ACME" });
    const res = await call("GET", `/api/v1/suppliers/${s.id}`, { creds });
    expect(res.status).toBe(200);
    expect(res.json).toEqual(s);
  });

  it("updates only the fields sent", async () => {
    const creds = await createAccount();
    const s = await createSupplier(creds, { name: "Acme", code: "ACME", priority: 10 });
    const res = await call("PATCH", `/api/v1/suppliers/${s.id}`, { creds, body: { priority: 3 } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ...s, priority: 3, updated_at: ISO_MICRO });
    expect((await call("GET", `/api/v1/suppliers/${s.id}`, { creds })).json).toEqual(res.json);
  });

  it("clears the code when PATCH sends code: null", async () => {
    const creds = await createAccount();
    const s = await createSupplier(creds, { name: "Acme", code: "ACME" });
    const res = await call("PATCH", `/api/v1/suppliers/${s.id}`, { creds, body: { code: null } });
    expect(res.status).toBe(200);
    expect(res.json.code).toBeNull();
  });

  it("answers 422 when renaming to a name taken in the account", async () => {
    const creds = await createAccount();
    await createSupplier(creds, { name: "Taken" });
    const s = await createSupplier(creds, { name: "Free" });
    const res = await call("PATCH", `/api/v1/suppliers/${s.id}`, { creds, body: { name: "Taken" } });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ message: "Errors", errors: { name: ["The name has already been taken."] } });
  });

  it("DELETE deactivates (kept for history) and answers 200 with active: false", async () => {
    const creds = await createAccount();
    const s = await createSupplier(creds, { name: "Acme" });
    const res = await call("DELETE", `/api/v1/suppliers/${s.id}`, { creds });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ...s, active: false, updated_at: ISO_MICRO });
    const again = await call("GET", `/api/v1/suppliers/${s.id}`, { creds });
    expect(again.json.active).toBe(false);
  });

  it("answers 404 for an unknown or malformed id", async () => {
    const creds = await createAccount();
    for (const id of ["999999999", "abc"]) {
      for (const method of ["GET", "PATCH", "DELETE"]) {
        const res = await call(method, `/api/v1/suppliers/${id}`, { creds, body: method === "PATCH" ? { priority: 1 } : undefined });
        expect(res.status, `${method} ${id}`).toBe(404);
        expect(res.json).toEqual({ message: "Not Found", error: `Supplier with id '${id}' not found` });
      }
    }
  });
});
