// An empty body is no body, whatever its Content-Type says: where the body is optional the request
// goes on without it, where it is required the 422 names the missing fields. Never "Malformed JSON".
import { describe, expect, it } from "vitest";
import { createAccount, createOrder } from "../helpers/factories";
import { ADMIN, authHeaders, call, type Credentials } from "../helpers/http";
import { getOrder, logsOf, waitForLineStatus } from "../helpers/routing";
import { supplierWithRule } from "../helpers/suppliers";

/** The ways a client sends nothing with a Content-Type: a zero Content-Length, a stream that ends at once, another type. */
const EMPTY: [string, () => { rawBody: BodyInit; type: string }][] = [
  ["Content-Type: application/json and no bytes", () => ({ rawBody: "", type: "application/json" })],
  [
    "a JSON type with a charset and an empty stream (no Content-Length)",
    () => ({ rawBody: new ReadableStream({ start: (c) => c.close() }), type: "application/json; charset=utf-8" }),
  ],
  ["Content-Type: text/plain and no bytes", () => ({ rawBody: "", type: "text/plain" })],
];

function post(path: string, headers: Record<string, string>, empty: () => { rawBody: BodyInit; type: string }) {
  const { rawBody, type } = empty();
  return call("POST", path, { rawBody, headers: { ...headers, "content-type": type } });
}

describe("an empty body where the body is optional", () => {
  for (const [how, empty] of EMPTY) {
    it(`${how}: block, unblock, complete and rotate-secret go on without one`, async () => {
      const creds = await createAccount();
      const { supplier } = await supplierWithRule(creds, { channel: "manual" });
      const { reference } = await createOrder(creds);
      await waitForLineStatus(creds, reference, "ruled");
      const headers = authHeaders(creds);

      const blocked = await post(`/api/v1/orders/${reference}/block`, headers, empty);
      expect(blocked.status, blocked.text).toBe(200);
      expect(blocked.json.blocked).toBe(true);
      const unblocked = await post(`/api/v1/orders/${reference}/unblock`, headers, empty);
      expect(unblocked.status, unblocked.text).toBe(200);
      expect(unblocked.json.blocked).toBe(false);
      expect(logsOf(unblocked.json.order_lines[0]).slice(-2).map(([, message]) => message)).toEqual([
        "Order blocked by hand",
        "Order unblocked",
      ]);

      const completed = await post(`/api/v1/orders/${reference}/complete`, headers, empty);
      expect(completed.status, completed.text).toBe(200);
      expect(completed.json.order_lines.map((l: { current_status: string }) => l.current_status)).toEqual(["completed"]);

      const rotated = await post(`/api/v1/suppliers/${supplier.id}/rotate-secret`, headers, empty);
      expect(rotated.status, rotated.text).toBe(200);
      expect(rotated.json.webhook_secret).not.toBe(supplier.webhook_secret);
      expect(rotated.json.previous_secret_valid).toBe(true);
    });
  }

  it("still refuses a body that is there and is not JSON", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    for (const rawBody of ["{", " ", "reason=late"]) {
      const res = await call("POST", `/api/v1/orders/${reference}/block`, { creds, rawBody, headers: { "content-type": "application/json" } });
      expect(res.status, JSON.stringify(rawBody)).toBe(400);
      expect(res.json).toEqual({ message: "Bad Request", error: "Malformed JSON in request body" });
    }
    expect((await getOrder(creds, reference)).blocked).toBe(false);
  });
});

describe("an empty body where the body is required", () => {
  const required: [string, (creds: Credentials) => Record<string, string>, Record<string, string[]>][] = [
    [
      "/api/v1/orders",
      authHeaders,
      {
        external_id: ["The external_id field is required."],
        source: ["The source field is required."],
        total: ["The total field is required."],
        shipping_address: ["The shipping_address field is required."],
        products: ["The products field is required."],
      },
    ],
    ["/api/v1/suppliers", authHeaders, { name: ["The name field is required."] }],
    ["/api/v1/routing-rules/explain", authHeaders, { reference: ["The reference field is required when order is not present."] }],
    ["/admin/v1/accounts", () => ADMIN, { name: ["The name field is required."] }],
  ];
  for (const [how, empty] of EMPTY) {
    it(`${how}: a 422 naming the missing fields`, async () => {
      const creds = await createAccount();
      for (const [path, headers, errors] of required) {
        const res = await post(path, headers(creds), empty);
        expect(res.status, `${path} ${res.text}`).toBe(422);
        expect(res.json).toEqual({ message: "Errors", errors });
      }
    });
  }
});
