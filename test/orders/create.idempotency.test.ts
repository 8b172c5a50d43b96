// Idempotency of POST /api/v1/orders per (account, external_id), also under concurrency.
import { describe, expect, it } from "vitest";
import { createAccount, orderPayload, rows, unique } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";

async function post(creds: Credentials, body: unknown) {
  return call("POST", "/api/v1/orders", { creds, body });
}

/** Everything stored for an account's orders, to prove a repeat changed nothing. */
async function snapshot(accountId: number) {
  return {
    orders: await rows("SELECT * FROM orders WHERE account_id = ? ORDER BY id", accountId),
    lines: await rows("SELECT * FROM order_lines WHERE account_id = ? ORDER BY id", accountId),
    logs: await rows(
      "SELECT g.* FROM order_line_logs g JOIN orders o ON o.id = g.order_id WHERE o.account_id = ? ORDER BY g.id",
      accountId,
    ),
  };
}

describe("POST /api/v1/orders idempotency", () => {
  it("answers a repeat with Order already exists and the same reference, changing nothing", async () => {
    const creds = await createAccount();
    const payload = orderPayload();
    const first = await post(creds, payload);
    expect(first.json).toEqual({ message: "Order created", reference: expect.any(Number) });
    const before = await snapshot(creds.accountId);
    const shownBefore = await call("GET", `/api/v1/orders/${first.json.reference}`, { creds });

    for (let i = 0; i < 3; i++) {
      const again = await post(creds, payload);
      expect(again.status).toBe(200);
      expect(again.json).toEqual({ message: "Order already exists", reference: first.json.reference });
    }
    expect(await snapshot(creds.accountId)).toEqual(before);
    expect((await call("GET", `/api/v1/orders/${first.json.reference}`, { creds })).json).toEqual(shownBefore.json);
  });

  it("keeps the first order even when the repeat carries a different payload", async () => {
    const creds = await createAccount();
    const payload = orderPayload();
    const first = await post(creds, payload);
    const before = await snapshot(creds.accountId);
    const changed = orderPayload({
      external_id: payload.external_id,
      total: 999,
      source: "Other shop",
      products: [payload.products[0], { ...payload.products[0], external_id: "sku-2" }],
    });
    const again = await post(creds, changed);
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ message: "Order already exists", reference: first.json.reference });
    expect(await snapshot(creds.accountId)).toEqual(before);
  });

  it("matches external ids sent as a number and as a string of the same digits", async () => {
    const creds = await createAccount();
    const id = Math.floor(Math.random() * 1e9);
    const first = await post(creds, orderPayload({ external_id: id }));
    expect(first.json.message).toBe("Order created");
    for (const external_id of [String(id), ` ${id} `]) {
      const again = await post(creds, orderPayload({ external_id }));
      expect(again.json).toEqual({ message: "Order already exists", reference: first.json.reference });
    }
    expect(await rows("SELECT external_id FROM orders WHERE account_id = ?", creds.accountId)).toEqual([
      { external_id: String(id) },
    ]);
  });

  it("is per account: another account's order with the same external_id is a new order", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const externalId = unique("shared");
    const ra = await post(a, orderPayload({ external_id: externalId }));
    const rb = await post(b, orderPayload({ external_id: externalId }));
    expect(ra.json.message).toBe("Order created");
    expect(rb.json.message).toBe("Order created");
    expect(rb.json.reference).not.toBe(ra.json.reference);
    expect((await call("GET", `/api/v1/orders/${rb.json.reference}`, { creds: b })).status).toBe(200);
    expect((await call("GET", `/api/v1/orders/${ra.json.reference}`, { creds: b })).status).toBe(404);
  });

  it("creates exactly one order when 25 identical POSTs arrive at once", async () => {
    const creds = await createAccount();
    const payload = orderPayload({ products: [orderPayload().products[0], { ...orderPayload().products[0], external_id: "sku-2" }] });
    const answers = await Promise.all(Array.from({ length: 25 }, () => post(creds, payload)));

    expect(answers.map((a) => a.status)).toEqual(Array(25).fill(200));
    const reference = answers[0].json.reference;
    expect(answers.every((a) => a.json.reference === reference)).toBe(true);
    expect(answers.filter((a) => a.json.message === "Order created")).toHaveLength(1);
    expect(answers.filter((a) => a.json.message === "Order already exists")).toHaveLength(24);

    const stored = await snapshot(creds.accountId);
    expect(stored.orders).toHaveLength(1);
    expect(stored.orders[0].reference).toBe(String(reference));
    expect(stored.lines).toHaveLength(2);
    expect(stored.logs).toHaveLength(2);
  });

  it("creates exactly one order when different payloads with one external_id race", async () => {
    const creds = await createAccount();
    const externalId = unique("race");
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post(creds, orderPayload({ external_id: externalId, total: i + 1 }))),
    );
    expect(new Set(answers.map((a) => a.json.reference)).size).toBe(1);
    expect(answers.filter((a) => a.json.message === "Order created")).toHaveLength(1);
    const stored = await snapshot(creds.accountId);
    expect(stored.orders).toHaveLength(1);
    expect(stored.lines).toHaveLength(1);
    expect(stored.logs).toHaveLength(1);
    // The winner's payload is the one stored.
    const winner = answers.findIndex((a) => a.json.message === "Order created");
    // Stored in ten-thousandths (src/lib/money.ts).
    expect(stored.orders[0].total).toBe((winner + 1) * 10_000);
  });

  it("creates every order when many distinct orders arrive at once", async () => {
    const creds = await createAccount();
    const payloads = Array.from({ length: 30 }, (_, i) =>
      orderPayload({ total: i, products: Array.from({ length: (i % 3) + 1 }, (_, j) => ({ ...orderPayload().products[0], external_id: `${i}-${j}` })) }),
    );
    const answers = await Promise.all(payloads.map((p) => post(creds, p)));
    expect(answers.map((a) => a.json.message)).toEqual(Array(30).fill("Order created"));
    expect(new Set(answers.map((a) => a.json.reference)).size).toBe(30);

    const stored = await snapshot(creds.accountId);
    expect(stored.orders).toHaveLength(30);
    expect(stored.lines).toHaveLength(payloads.reduce((n, p) => n + p.products.length, 0));
    expect(stored.logs).toHaveLength(stored.lines.length);
    // Each answer's reference leads to its own order with its own lines.
    for (const [i, answer] of answers.entries()) {
      const shown = await call("GET", `/api/v1/orders/${answer.json.reference}`, { creds });
      expect(shown.json.external_id).toBe(payloads[i].external_id);
      expect(shown.json.total).toBe(i);
      expect(shown.json.order_lines.map((l: any) => l.external_id)).toEqual(payloads[i].products.map((p) => p.external_id));
    }
  });
});
