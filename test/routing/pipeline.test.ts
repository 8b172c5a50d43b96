import { describe, expect, it } from "vitest";
import { createAccount, createOrder } from "../helpers/factories";
import { call } from "../helpers/http";
import { waitFor } from "../helpers/wait";

describe("POST -> queue -> ruled", () => {
  it("matches a line by rule after the 200 answer, seen through GET /orders/{reference}", async () => {
    const creds = await createAccount();
    const supplier = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Acme Wholesale", code: "ACME" } });
    expect(supplier.status).toBe(201);
    const rule = await call("POST", "/api/v1/routing-rules", {
      creds,
      body: {
        name: "Mugs to Acme",
        conditions: [{ variable: "line.brand", operator: "is", value: "mugs inc" }],
        action: { type: "assign_supplier", supplier_id: supplier.json.id },
      },
    });
    expect(rule.status).toBe(201);
    const { reference } = await createOrder(creds);
    const order = await waitFor(async () => {
      const res = await call("GET", `/api/v1/orders/${reference}`, { creds });
      return res.json.order_lines[0].current_status === "ruled" ? res.json : null;
    });
    const line = order.order_lines[0];
    expect(line.matched_supplier).toEqual({ id: supplier.json.id, name: "Acme Wholesale" });
    expect(order.suppliers).toEqual([{ id: supplier.json.id, name: "Acme Wholesale" }]);
    expect(line.logs.map((l: any) => [l.status, l.message])).toEqual([
      ["pending", "Order line created"],
      ["ruled", `Matched to supplier Acme Wholesale by rule #${rule.json.id} 'Mugs to Acme'`],
    ]);
  });
});
