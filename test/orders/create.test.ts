// POST /api/v1/orders: the 200 body, the reference, the initial line state, atomicity and many lines.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { createOrder as createOrderService } from "../../src/orders/orders.service";
import type { CreateOrderInput } from "../../src/orders/orders.schemas";
import { ISO_MICRO, createAccount, orderPayload, rows, unique } from "../helpers/factories";
import { call } from "../helpers/http";
import { losingPipeline } from "../helpers/pipeline";

const line = (i: number) => ({
  external_id: `p-${i}`,
  ean13: String(8700000000000 + i),
  name: `Product ${i}`,
  reference: `REF-${i}`,
  quantity: (i % 7) + 1,
  stock_quantity: i,
  price: i + 0.5,
  purchase_price: i / 4,
  image_url: `https://img.example.com/${i}.png`,
  brand: `Brand ${i % 3}`,
  category: `Category ${i % 5}`,
  supplier: `Supplier ${i % 2}`,
  custom: { i },
  height: i,
  width: i + 0.25,
  length: 2 * i,
  weight: i / 8,
});

describe("POST /api/v1/orders", () => {
  it("answers 200 Order created with the reference as a JSON number", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.json).toEqual({ message: "Order created", reference: expect.any(Number) });
    expect(res.text).toMatch(/^\{"message":"Order created","reference":\d{16}\}$/);
    expect(Number.isSafeInteger(res.json.reference)).toBe(true);
  });

  it("reads the reference back as a string of the same digits", async () => {
    const creds = await createAccount();
    const created = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
    const digits = String(created.json.reference);
    const shown = await call("GET", `/api/v1/orders/${digits}`, { creds });
    expect(shown.status).toBe(200);
    expect(shown.json.reference).toBe(digits);
    const listed = await call("GET", "/api/v1/orders", { creds });
    expect(listed.json.data[0].reference).toBe(digits);
    // Exactly the same digits in the raw JSON: a number on create, a string on read.
    expect(created.text).toContain(`"reference":${digits}`);
    expect(shown.text).toContain(`"reference":"${digits}"`);
  });

  it("gives unique, non-sequential references", async () => {
    const creds = await createAccount();
    const refs: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
      refs.push(res.json.reference);
    }
    expect(new Set(refs).size).toBe(refs.length);
    const gaps = refs.slice(1).map((r, i) => Math.abs(r - refs[i]));
    // Sequential or near-sequential references would reveal order volumes.
    expect(gaps.every((g) => g > 1000)).toBe(true);
  });

  it("starts every line pending with exactly one log entry", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/orders", { creds, body: orderPayload({ products: [line(1), line(2), line(3)] }) });
    expect(res.status).toBe(200);
    const shown = await call("GET", `/api/v1/orders/${res.json.reference}`, { creds });
    expect(shown.json.order_lines).toHaveLength(3);
    for (const l of shown.json.order_lines) {
      expect(l.current_status).toBe("pending");
      expect(l.matched_supplier).toBeNull();
      expect(l.logs).toEqual([
        { id: expect.any(Number), status: "pending", message: "Order line created", created_at: expect.stringMatching(ISO_MICRO) },
      ]);
    }
    const [{ lines }] = await rows<{ lines: number }>(
      "SELECT count(*) AS lines FROM order_lines l JOIN orders o ON o.id = l.order_id WHERE o.reference = ?",
      String(res.json.reference),
    );
    const [{ logs }] = await rows<{ logs: number }>(
      "SELECT count(*) AS logs FROM order_line_logs g JOIN orders o ON o.id = g.order_id WHERE o.reference = ?",
      String(res.json.reference),
    );
    expect([lines, logs]).toEqual([3, 3]);
  });

  it("stores 500 lines (far more than 100 bound parameters) in the order they were sent", async () => {
    const creds = await createAccount();
    const products = Array.from({ length: 500 }, (_, i) => line(i));
    const res = await call("POST", "/api/v1/orders", { creds, body: orderPayload({ products }) });
    expect(res.status).toBe(200);
    expect(res.json.message).toBe("Order created");
    const shown = await call("GET", `/api/v1/orders/${res.json.reference}`, { creds });
    expect(shown.json.order_lines).toHaveLength(500);
    shown.json.order_lines.forEach((l: any, i: number) => {
      const { logs, id, current_status, matched_supplier, confirmed_quantity, shipments, split_from_line_id, cancellation, ...rest } = l;
      const { supplier, ...sent } = line(i);
      expect(rest).toEqual(sent);
      expect(current_status).toBe("pending");
      expect(logs).toHaveLength(1);
      expect(logs[0].status).toBe("pending");
    });
    const ids: number[] = shown.json.order_lines.map((l: any) => l.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it("refuses 501 lines with 422 and writes nothing", async () => {
    const creds = await createAccount();
    const products = Array.from({ length: 501 }, (_, i) => line(i));
    const res = await call("POST", "/api/v1/orders", { creds, body: orderPayload({ products }) });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ message: "Errors", errors: { products: ["The products field must not have more than 500 items."] } });
    expect(await rows("SELECT id FROM orders WHERE account_id = ?", creds.accountId)).toEqual([]);
  });

  it("accepts the Expect: 100-continue header and a charset in the content type", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/orders", {
      creds,
      body: orderPayload(),
      headers: { expect: "100-continue", "content-type": "application/json; charset=UTF-8" },
    });
    expect(res.status).toBe(200);
    expect(res.json.message).toBe("Order created");
  });

  it("writes the whole order or nothing (one D1 batch)", async () => {
    // A line that passes no validation reaches the database only through the service: the
    // batch fails on its NOT NULL after the order row and hundreds of lines were already written.
    const creds = await createAccount();
    const externalId = unique("atomic");
    const products = Array.from({ length: 300 }, (_, i) => line(i)).map((l, i) =>
      i === 250 ? { ...l, name: null as unknown as string } : l,
    );
    const input = { ...orderPayload({ external_id: externalId, products }), shipping: { delivery_date: "2026-11-30" } } as unknown as CreateOrderInput;
    await expect(createOrderService(createDb(env.DB), losingPipeline(), creds.accountId, input)).rejects.toThrow(/NOT NULL/);
    expect(await rows("SELECT id FROM orders WHERE account_id = ?", creds.accountId)).toEqual([]);
    expect(await rows("SELECT id FROM order_lines WHERE account_id = ?", creds.accountId)).toEqual([]);

    // And the same order without the fault goes through whole.
    products[250] = line(250);
    const ok = await createOrderService(createDb(env.DB), losingPipeline(), creds.accountId, { ...input, products } as CreateOrderInput);
    expect(ok.created).toBe(true);
    expect(await rows("SELECT id FROM order_lines WHERE account_id = ?", creds.accountId)).toHaveLength(300);
    expect(await rows("SELECT g.id FROM order_line_logs g WHERE g.order_id = ?", ok.orderId)).toHaveLength(300);
  });
});
