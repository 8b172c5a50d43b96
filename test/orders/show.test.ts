// GET /api/v1/orders/{reference}: the whole Order object, logs oldest first, and 404s.
import { describe, expect, it } from "vitest";
import { ISO_MICRO, createAccount, createOrder, exec, orderIdOf, rows, seedSupplier } from "../helpers/factories";
import { call } from "../helpers/http";

const stamp = expect.stringMatching(ISO_MICRO);

describe("GET /api/v1/orders/{reference}", () => {
  it("answers every field of the spec", async () => {
    const creds = await createAccount();
    const startedAt = new Date().toISOString();
    const { payload, reference } = await createOrder(creds, { custom: { channel: "web", tags: ["a", "b"] } });
    const res = await call("GET", `/api/v1/orders/${reference}`, { creds });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      id: expect.any(Number),
      external_id: payload.external_id,
      reference,
      source: "Test shop",
      test: false,
      blocked: false,
      total: 59.9,
      shipping_address: {
        email: "jan@example.com",
        first_name: "Jan",
        last_name: "Jansen",
        company_name: "Jansen BV",
        phone: "0612345678",
        address1: "Damrak 1",
        address2: "3hoog",
        city: "Amsterdam",
        postcode: "1012LG",
        state: "Noord-Holland",
        country: "NL",
      },
      shipping: { cost: 4.95, name: "PostNL", description: "Standard", note: "Ring twice", delivery_date: "2026-11-30" },
      custom: { channel: "web", tags: ["a", "b"] },
      order_lines: [
        {
          id: expect.any(Number),
          external_id: "sku-1",
          name: "Blue mug",
          ean13: "0012345678905",
          reference: "MUG-BLUE",
          quantity: 2,
          stock_quantity: 10,
          price: 12.5,
          purchase_price: 6.25,
          brand: "Mugs Inc",
          category: "Kitchen",
          image_url: "https://img.example.com/mug.png",
          custom: { color: "blue" },
          current_status: "pending",
          matched_supplier: null,
          confirmed_quantity: null,
          shipments: [],
          split_from_line_id: null,
          cancellation: null,
          height: null,
          width: null,
          length: null,
          weight: null,
          logs: [{ id: expect.any(Number), status: "pending", message: "Order line created", created_at: stamp }],
        },
      ],
      suppliers: [],
      created_at: stamp,
      updated_at: stamp,
    });
    // Timestamps: ISO 8601 UTC, six fractional digits, taken when the order was created.
    expect(res.json.created_at >= startedAt.replace("Z", "000Z")).toBe(true);
    expect(res.json.created_at <= new Date().toISOString().replace("Z", "999Z")).toBe(true);
    expect(res.json.updated_at).toBe(res.json.created_at);
    expect(res.json.order_lines[0].logs[0].created_at).toBe(res.json.created_at);
  });

  it("shows matched suppliers, distinct suppliers, and every line's logs oldest first", async () => {
    const creds = await createAccount();
    const line = (external_id: string) => ({ external_id, name: external_id, quantity: 1, price: 1 });
    const { reference } = await createOrder(creds, { products: [line("a"), line("b"), line("c")] });
    const orderId = await orderIdOf(reference);
    const s1 = await seedSupplier(creds.accountId, "Supplier One");
    const s2 = await seedSupplier(creds.accountId, "Supplier Two");
    const lines = await rows<{ id: number }>("SELECT id FROM order_lines WHERE order_id = ? ORDER BY position", orderId);

    // Lines a and b both go to Supplier One, c to Supplier Two; a is also completed.
    for (const [lineId, supplier] of [[lines[0].id, s1.id], [lines[1].id, s1.id], [lines[2].id, s2.id]]) {
      await exec("UPDATE order_lines SET matched_supplier_id = ?, current_status = 'ruled' WHERE id = ?", supplier, lineId);
      await exec(
        "INSERT INTO order_line_logs (order_line_id, order_id, status, message, created_at) VALUES (?, ?, 'ruled', 'Matched', '2030-01-01T00:00:00.000000Z')",
        lineId,
        orderId,
      );
    }
    await exec("UPDATE order_lines SET current_status = 'completed' WHERE id = ?", lines[0].id);
    await exec(
      "INSERT INTO order_line_logs (order_line_id, order_id, status, message, created_at) VALUES (?, ?, 'completed', 'Sent to supplier', '2030-01-01T00:05:00.000000Z')",
      lines[0].id,
      orderId,
    );

    const res = await call("GET", `/api/v1/orders/${reference}`, { creds });
    expect(res.json.suppliers).toEqual([
      { id: s1.id, name: "Supplier One" },
      { id: s2.id, name: "Supplier Two" },
    ]);
    const shown = res.json.order_lines.map((l: any) => ({
      external_id: l.external_id,
      current_status: l.current_status,
      matched_supplier: l.matched_supplier,
      logs: l.logs.map((g: any) => [g.status, g.message]),
    }));
    expect(shown).toEqual([
      {
        external_id: "a",
        current_status: "completed",
        matched_supplier: { id: s1.id, name: "Supplier One" },
        logs: [["pending", "Order line created"], ["ruled", "Matched"], ["completed", "Sent to supplier"]],
      },
      {
        external_id: "b",
        current_status: "ruled",
        matched_supplier: { id: s1.id, name: "Supplier One" },
        logs: [["pending", "Order line created"], ["ruled", "Matched"]],
      },
      {
        external_id: "c",
        current_status: "ruled",
        matched_supplier: { id: s2.id, name: "Supplier Two" },
        logs: [["pending", "Order line created"], ["ruled", "Matched"]],
      },
    ]);
    const logIds = res.json.order_lines[0].logs.map((g: any) => g.id);
    expect([...logIds].sort((x: number, y: number) => x - y)).toEqual(logIds);
    // The line keeps its name although the supplier's name is joined in.
    expect(res.json.order_lines.map((l: any) => l.name)).toEqual(["a", "b", "c"]);
  });

  it("answers 404 with the reference named for an unknown reference", async () => {
    const creds = await createAccount();
    for (const reference of ["1234567890123456", "nope", "0"]) {
      const res = await call("GET", `/api/v1/orders/${reference}`, { creds });
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ message: "Not Found", error: `Order with reference '${reference}' not found` });
    }
  });

  it("answers another account's reference exactly like an unknown one", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const { reference } = await createOrder(owner);
    const foreign = await call("GET", `/api/v1/orders/${reference}`, { creds: other });
    const unknownRef = String(Number(reference) + 1);
    const unknown = await call("GET", `/api/v1/orders/${unknownRef}`, { creds: other });
    expect(foreign.status).toBe(404);
    expect(foreign.json).toEqual({ message: "Not Found", error: `Order with reference '${reference}' not found` });
    expect(foreign.text).toBe(unknown.text.replace(unknownRef, reference));
    expect([...foreign.headers.keys()].sort()).toEqual([...unknown.headers.keys()].sort());
  });

  it("shows a test order and a blocked order by reference", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds, { test: true });
    await exec("UPDATE orders SET blocked = 1 WHERE reference = ?", reference);
    const res = await call("GET", `/api/v1/orders/${reference}`, { creds });
    expect(res.status).toBe(200);
    expect(res.json.test).toBe(true);
    expect(res.json.blocked).toBe(true);
  });
});
