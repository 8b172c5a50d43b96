// 200 simultaneous creates of 50 distinct orders (4 copies of each): exactly 50 orders, each
// whole, one "Order created" per order and the same reference in all four answers.
import { describe, expect, it } from "vitest";
import { createAccount, orderPayload, rows, unique } from "../helpers/factories";
import { call } from "../helpers/http";

const ORDERS = 50;
const COPIES = 4;

describe("POST /api/v1/orders under concurrency", () => {
  it("creates exactly 50 whole orders from 200 simultaneous posts of 50 orders", async () => {
    const creds = await createAccount();
    const payloads = Array.from({ length: ORDERS }, (_, i) =>
      orderPayload({
        external_id: unique(`c${i}`),
        total: i + 0.5,
        products: Array.from({ length: (i % 4) + 1 }, (_, j) => ({ ...orderPayload().products[0], external_id: `${i}-${j}`, quantity: j + 1 })),
      }),
    );
    // Interleaved, so copies of one order are never neighbours in the burst.
    const sends = Array.from({ length: COPIES }, () => payloads).flat();
    const answers = await Promise.all(sends.map((body) => call("POST", "/api/v1/orders", { creds, body })));

    expect(answers.map((a) => a.status)).toEqual(Array(ORDERS * COPIES).fill(200));
    const byOrder = new Map<string, { message: string; reference: number }[]>();
    answers.forEach((a, i) => {
      expect(Object.keys(a.json).sort()).toEqual(["message", "reference"]);
      byOrder.set(sends[i].external_id, [...(byOrder.get(sends[i].external_id) ?? []), a.json]);
    });
    expect(byOrder.size).toBe(ORDERS);
    for (const [externalId, list] of byOrder) {
      expect(list.map((a) => a.message).sort(), externalId).toEqual(["Order already exists", "Order already exists", "Order already exists", "Order created"]);
      expect(new Set(list.map((a) => a.reference)).size, externalId).toBe(1);
    }

    // D1: exactly the 50 orders, each with exactly its lines, each line with one first log entry.
    const stored = await rows<{ external_id: string; reference: string; total: number; lines: string; first_logs: number }>(
      `SELECT o.external_id, o.reference, o.total / 10000.0 AS total,
         (SELECT json_group_array(json_array(l.external_id, l.quantity)) FROM (SELECT * FROM order_lines WHERE order_id = o.id ORDER BY position) l) AS lines,
         (SELECT count(*) FROM order_line_logs g WHERE g.order_id = o.id AND g.status = 'pending' AND g.message = 'Order line created') AS first_logs
       FROM orders o WHERE o.account_id = ? ORDER BY o.id`,
      creds.accountId,
    );
    expect(stored).toHaveLength(ORDERS);
    const [{ lines, logs }] = await rows<{ lines: number; logs: number }>(
      `SELECT (SELECT count(*) FROM order_lines WHERE account_id = ?1) AS lines,
              (SELECT count(*) FROM order_line_logs g JOIN orders o ON o.id = g.order_id WHERE o.account_id = ?1 AND g.message = 'Order line created') AS logs`,
      creds.accountId,
    );
    const sentLines = payloads.reduce((n, p) => n + p.products.length, 0);
    expect([lines, logs]).toEqual([sentLines, sentLines]);
    for (const payload of payloads) {
      const order = stored.find((o) => o.external_id === payload.external_id)!;
      expect(order.reference).toBe(String(byOrder.get(payload.external_id)![0].reference));
      expect(order.total).toBe(payload.total);
      expect(JSON.parse(order.lines)).toEqual(payload.products.map((p) => [p.external_id, p.quantity]));
      expect(order.first_logs).toBe(payload.products.length);
    }

    // And the client sees the same 50 through the API.
    const listed = await call("GET", "/api/v1/orders?per_page=100", { creds });
    expect(listed.json.meta.total).toBe(ORDERS);
    expect(listed.json.data.map((o: { reference: string }) => o.reference).sort()).toEqual(stored.map((o) => o.reference).sort());
  });
});
