import { describe, expect, it } from "vitest";
import { createAccount, createOrder, orderPayload } from "../helpers/factories";
import { seedFeed, seedProduct } from "../helpers/catalogue-seed";
import { assignTo, createRule, createSupplier } from "../helpers/routing";
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

describe("POST -> queue -> every matching step, seen through GET and the list filters", () => {
  it("routes each line by its own step after the 200 answer", async () => {
    const creds = await createAccount();
    const byRule = await createSupplier(creds, { name: "By rule" });
    const byCatalogue = await createSupplier(creds, { name: "By catalogue" });
    const byField = await createSupplier(creds, { name: "Field Co", code: "FIELD" });
    const feed = await seedFeed(creds.accountId, byCatalogue.id);
    const product = await seedProduct(creds.accountId, feed.id, { ean13: "8712345678906", sku: "CAT-1", purchasePrice: 3.5, stockQuantity: 10 });
    const rule = await createRule(creds, { name: "knives", conditions: [{ variable: "line.category", operator: "is", value: "knives" }], action: assignTo(byRule.id) });
    const wrap = await createRule(creds, { name: "wrap", conditions: [{ variable: "line.name", operator: "contains", value: "wrap" }], action: { type: "skip" } });

    const base = orderPayload().products[0];
    const created = await call("POST", "/api/v1/orders", {
      creds,
      body: orderPayload({
        products: [
          { ...base, external_id: "knife", category: "Knives", supplier: null },
          { ...base, external_id: "catalogue", ean13: "8712345678906", reference: null, supplier: null },
          { ...base, external_id: "field", ean13: null, reference: null, supplier: "field" },
          { ...base, external_id: "wrap", name: "Gift wrap", ean13: null, reference: null, supplier: null },
          { ...base, external_id: "nothing", ean13: null, reference: null, supplier: null },
        ],
      }),
    });
    expect(created.status).toBe(200);
    expect(created.json).toEqual({ message: "Order created", reference: expect.any(Number) });
    const reference = String(created.json.reference);

    const order = await waitFor(async () => {
      const res = await call("GET", `/api/v1/orders/${reference}`, { creds });
      return res.json.order_lines.every((l: { logs: unknown[] }) => l.logs.length === 2) ? res.json : null;
    });
    expect(order.order_lines.map((l: any) => [l.external_id, l.current_status, l.matched_supplier, l.logs[1].message])).toEqual([
      ["knife", "ruled", { id: byRule.id, name: "By rule" }, `Matched to supplier By rule by rule #${rule.id} 'knives'`],
      [
        "catalogue",
        "ruled",
        { id: byCatalogue.id, name: "By catalogue" },
        `Matched to supplier By catalogue by catalogue product #${product.id} (EAN 8712345678906, purchase price 3.5)`,
      ],
      ["field", "ruled", { id: byField.id, name: "Field Co" }, "Matched to supplier Field Co by the line's supplier field"],
      ["wrap", "skipped", null, `Skipped by rule #${wrap.id} 'wrap'`],
      ["nothing", "pending", null, "No supplier matched: no routing rule applies; no catalogue product with this EAN or SKU; no supplier named on the line"],
    ]);
    expect(order.suppliers).toEqual([
      { id: byRule.id, name: "By rule" },
      { id: byCatalogue.id, name: "By catalogue" },
      { id: byField.id, name: "Field Co" },
    ]);

    const bySupplier = await call("GET", `/api/v1/orders?supplier_ids=${byCatalogue.id}`, { creds });
    expect(bySupplier.json.data.map((o: { reference: string }) => o.reference)).toEqual([reference]);
    const list = await call("GET", "/api/v1/orders?statuses=skipped", { creds });
    expect(list.json.data[0].order_lines.map((l: { current_status: string }) => l.current_status)).toEqual(["ruled", "ruled", "ruled", "skipped", "pending"]);
  });
});
