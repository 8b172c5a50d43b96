import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { BASE, call } from "../helpers/http";
import { ISO } from "./support";

const SECRET = /^whsec_[0-9a-f]{64}$/;

describe("webhook subscriptions", () => {
  it("creates a subscription and shows the generated secret only in that answer", async () => {
    const creds = await createAccount();
    const created = await call("POST", "/api/v1/webhooks", {
      creds,
      // Duplicates are dropped and the types come back in the documented order.
      body: { url: "https://shop.example.com/hooks/orders", events: ["order.completed", "order.created", "order.created"] },
    });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.any(Number),
      url: "https://shop.example.com/hooks/orders",
      events: ["order.created", "order.completed"],
      active: true,
      secret: expect.stringMatching(SECRET),
      created_at: ISO,
      updated_at: ISO,
    });

    const fetched = await call("GET", `/api/v1/webhooks/${created.json.id}`, { creds });
    expect(fetched.status).toBe(200);
    const { secret: _secret, ...withoutSecret } = created.json;
    expect(fetched.json).toEqual(withoutSecret);
  });

  it("keeps a secret the shop chose, and can start paused", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/webhooks", {
      creds,
      body: { url: "http://shop.example.com/hook", events: ["order.blocked"], secret: "my-own-secret-of-some-length", active: false },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ events: ["order.blocked"], active: false, secret: "my-own-secret-of-some-length" });
  });

  it("answers 422 with every invalid field", async () => {
    const creds = await createAccount();
    const cases: [unknown, Record<string, string[]>][] = [
      [{}, { url: ["The url field is required."], events: ["The events field is required."] }],
      [{ url: "", events: [] }, { url: ["The url field is required."], events: ["The events field is required."] }],
      [{ url: "ftp://shop.example.com/x", events: ["order.created"] }, { url: ["The url field must be a valid URL."] }],
      [{ url: "not a url", events: ["order.created"] }, { url: ["The url field must be a valid URL."] }],
      // An http(s) URL spelled out, as every URL we take: two slashes, a host, no user before it, no blank.
      [{ url: "https:shop.example.com/hook", events: ["order.created"] }, { url: ["The url field must be a valid URL."] }],
      [{ url: "https://shop.example.com@elsewhere.example/hook", events: ["order.created"] }, { url: ["The url field must be a valid URL."] }],
      [{ url: "https://shop.example.com/a hook", events: ["order.created"] }, { url: ["The url field must be a valid URL."] }],
      [{ url: "https://shop.example.com", events: ["order.created", "order.paid"] }, { "events.1": ["The selected events.1 is invalid. Allowed values: order.created, order.blocked, order_line.status_changed, order_line.shipped, order.completed, order.parked, order.cancelled, order_line.cancellation_confirmed, order_line.cancellation_refused, order_line.rerouted, order_line.overdue, order_line.assigned, return.requested, return.authorised, return.declined, return.in_transit, return.received, return.credited, return.closed, return.cancelled."] }],
      [{ url: "https://shop.example.com", events: "order.created" }, { events: ["The events field must be an array."] }],
      [
        { url: "https://shop.example.com", events: ["order.created"], secret: "short", active: "maybe" },
        { secret: ["The secret field must be at least 16 characters."], active: ["The active field must be true or false."] },
      ],
    ];
    for (const [body, errors] of cases) {
      const res = await call("POST", "/api/v1/webhooks", { creds, body });
      expect({ body, status: res.status, json: res.json }).toEqual({ body, status: 422, json: { message: "Errors", errors } });
    }
    const list = await call("GET", "/api/v1/webhooks", { creds });
    expect(list.json.meta.total).toBe(0);
  });

  it("lists the account's subscriptions with the usual pagination", async () => {
    const creds = await createAccount();
    const ids: number[] = [];
    for (const n of [1, 2, 3]) {
      const res = await call("POST", "/api/v1/webhooks", { creds, body: { url: `https://shop.example.com/${n}`, events: ["order.created"] } });
      ids.push(res.json.id);
    }
    const page = await call("GET", "/api/v1/webhooks?per_page=2&page=2", { creds });
    expect(page.status).toBe(200);
    expect(page.json).toEqual({
      current_page: 2,
      data: [{ id: ids[2], url: "https://shop.example.com/3", events: ["order.created"], active: true, created_at: ISO, updated_at: ISO }],
      links: {
        first: `${BASE}/api/v1/webhooks?per_page=2&page=1`,
        last: `${BASE}/api/v1/webhooks?per_page=2&page=2`,
        prev: `${BASE}/api/v1/webhooks?per_page=2&page=1`,
        next: null,
      },
      meta: { current_page: 2, from: 3, last_page: 2, path: `${BASE}/api/v1/webhooks`, per_page: 2, to: 3, total: 3 },
    });
  });

  it("updates only the fields sent, and shows a secret only when the update set one", async () => {
    const creds = await createAccount();
    const created = await call("POST", "/api/v1/webhooks", { creds, body: { url: "https://shop.example.com/a", events: ["order.created"] } });
    const path = `/api/v1/webhooks/${created.json.id}`;

    const moved = await call("PATCH", path, { creds, body: { url: "https://shop.example.com/b", active: false } });
    expect(moved.status).toBe(200);
    expect(moved.json).toEqual({
      id: created.json.id,
      url: "https://shop.example.com/b",
      events: ["order.created"],
      active: false,
      created_at: created.json.created_at,
      updated_at: ISO,
    });

    const rotated = await call("PATCH", path, { creds, body: { rotate_secret: true } });
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).toMatch(SECRET);
    expect(rotated.json.secret).not.toBe(created.json.secret);

    const chosen = await call("PATCH", path, { creds, body: { secret: "a-secret-the-shop-picked", events: ["order.blocked", "order_line.shipped"] } });
    expect(chosen.json).toMatchObject({ secret: "a-secret-the-shop-picked", events: ["order.blocked", "order_line.shipped"], active: false });

    const invalid = await call("PATCH", path, { creds, body: { rotate_secret: true, secret: "another-long-secret!", url: "mailto:x@y.z", events: [] } });
    expect(invalid.status).toBe(422);
    expect(invalid.json).toEqual({
      message: "Errors",
      errors: {
        url: ["The url field must be a valid URL."],
        events: ["The events field is required."],
        rotate_secret: ["The rotate_secret field cannot be combined with secret."],
      },
    });
  });

  it("deletes a subscription", async () => {
    const creds = await createAccount();
    const created = await call("POST", "/api/v1/webhooks", { creds, body: { url: "https://shop.example.com/a", events: ["order.created"] } });
    const del = await call("DELETE", `/api/v1/webhooks/${created.json.id}`, { creds });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    const gone = await call("GET", `/api/v1/webhooks/${created.json.id}`, { creds });
    expect(gone.status).toBe(404);
    const again = await call("DELETE", `/api/v1/webhooks/${created.json.id}`, { creds });
    expect(again.status).toBe(404);
  });

  it("answers another account's subscription exactly like an unknown one", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const created = await call("POST", "/api/v1/webhooks", { creds: owner, body: { url: "https://shop.example.com/a", events: ["order.created"] } });
    const id = created.json.id;
    const unknown = 999_999_999;
    const requests: [string, (id: number | string) => string, unknown?][] = [
      ["GET", (i) => `/api/v1/webhooks/${i}`],
      ["PATCH", (i) => `/api/v1/webhooks/${i}`, { active: false }],
      ["DELETE", (i) => `/api/v1/webhooks/${i}`],
      ["GET", (i) => `/api/v1/webhooks/${i}/deliveries`],
    ];
    for (const [method, path, body] of requests) {
      for (const target of [id, unknown]) {
        const res = await call(method, path(target), { creds: other, body });
        expect({ method, status: res.status, json: res.json }).toEqual({
          method,
          status: 404,
          json: { message: "Not Found", error: `Webhook with id '${target}' not found` },
        });
      }
    }
    const notNumeric = await call("GET", "/api/v1/webhooks/abc", { creds: other });
    expect(notNumeric.json).toEqual({ message: "Not Found", error: "Webhook with id 'abc' not found" });
    // Deliveries of someone else's subscription are not found either.
    const redeliver = await call("POST", `/api/v1/webhooks/${id}/deliveries/1/redeliver`, { creds: other });
    expect(redeliver.json).toEqual({ message: "Not Found", error: "Delivery with id '1' not found" });
    expect((await call("GET", "/api/v1/webhooks", { creds: other })).json.meta.total).toBe(0);
    // Untouched for its owner.
    expect((await call("GET", `/api/v1/webhooks/${id}`, { creds: owner })).json.active).toBe(true);
  });

  it("lists no deliveries for a new subscription", async () => {
    const creds = await createAccount();
    const created = await call("POST", "/api/v1/webhooks", { creds, body: { url: "https://shop.example.com/a", events: ["order.created"] } });
    const res = await call("GET", `/api/v1/webhooks/${created.json.id}/deliveries?status=failed`, { creds });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual([]);
    expect(res.json.meta.total).toBe(0);
    const bad = await call("GET", `/api/v1/webhooks/${created.json.id}/deliveries?status=lost`, { creds });
    expect(bad.json).toEqual({ message: "Errors", errors: { status: ["The selected status is invalid. Allowed values: pending, delivering, delivered, failed."] } });
  });
});
