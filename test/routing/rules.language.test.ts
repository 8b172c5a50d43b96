// Every operator on every kind of variable, seen through the explain endpoint's per-condition
// results, and each variable kind deciding real orders end to end.
import { describe, expect, it } from "vitest";
import { createAccount, createOrder, orderPayload } from "../helpers/factories";
import { call } from "../helpers/http";
import { assignTo, createRule, createSupplier, matchNow } from "../helpers/routing";

const line = {
  external_id: 501,
  ean13: "0012345678905",
  name: "Blue Mug XL",
  reference: "MUG-BLUE",
  quantity: 3,
  stock_quantity: 0,
  price: 12.5,
  brand: "Mugs Inc",
  category: "Kitchen",
  supplier: null,
  custom: { color: "Blue", gift: true, weight: 2.5, size: "42", dims: { w: 10 } },
};

const order = orderPayload({
  external_id: "WEB-1001",
  source: "Woo Shop",
  total: "1,234.50",
  shipping: { cost: "4.95" },
  email: "Jan@Example.com",
  shipping_address: {
    first_name: "Jan",
    last_name: "Jansen",
    company_name: "",
    address1: "Damrak 1",
    address2: null,
    postcode: "1012 LG",
    city: "Amsterdam",
    country: "Netherlands",
    phone: 612345678,
  },
  products: [line],
});

type Case = [variable: string, operator: string, value: unknown, expected: boolean];

const CASES: Case[] = [
  // text: case-insensitive
  ["line.brand", "is", "mugs inc", true],
  ["line.brand", "is", "Mugs", false],
  ["line.brand", "is_not", "MUGS INC", false],
  ["line.brand", "is_not", "Other", true],
  ["line.supplier", "is", "x", false],
  ["line.supplier", "is_not", "x", true],
  ["line.name", "contains", "MUG", true],
  ["line.name", "contains", "cup", false],
  ["line.name", "does_not_contain", "cup", true],
  ["line.name", "does_not_contain", "blue", false],
  ["line.reference", "begins_with", "mug-", true],
  ["line.reference", "begins_with", "BLUE", false],
  ["line.reference", "ends_with", "-blue", true],
  ["line.reference", "ends_with", "MUG", false],
  ["line.ean13", "is", "0012345678905", true],
  ["line.ean13", "is", 12345678905, false],
  ["line.ean13", "begins_with", "00123", true],
  ["line.external_id", "is", 501, true],
  ["line.category", "in_list", ["kitchen", "Garden"], true],
  ["line.category", "in_list", "garden, KITCHEN", true],
  ["line.category", "in_list", ["Garden", "Tools"], false],
  ["line.category", "not_in_list", ["Garden"], true],
  ["line.category", "not_in_list", ["KITCHEN"], false],
  ["line.brand", "is_empty", undefined, false],
  ["line.brand", "is_not_empty", undefined, true],
  ["line.supplier", "is_empty", undefined, true],
  ["line.supplier", "is_not_empty", undefined, false],
  // number
  ["line.quantity", "is", 3, true],
  ["line.quantity", "is", "3", true],
  ["line.quantity", "is", 4, false],
  ["line.quantity", "is_not", 3, false],
  ["line.quantity", "is_not", 4, true],
  ["line.quantity", "greater_than", 2, true],
  ["line.quantity", "greater_than", 3, false],
  ["line.quantity", "smaller_than", 4, true],
  ["line.quantity", "smaller_than", 3, false],
  ["line.quantity", "in_list", [1, 3, 5], true],
  ["line.quantity", "in_list", "1, 2", false],
  ["line.quantity", "not_in_list", [3], false],
  ["line.quantity", "not_in_list", ["4", "5"], true],
  ["line.price", "greater_than", 12.49, true],
  ["line.stock_quantity", "is", 0, true],
  ["line.stock_quantity", "is_empty", undefined, false],
  ["line.purchase_price", "is_empty", undefined, true],
  ["line.purchase_price", "is_not_empty", undefined, false],
  ["line.purchase_price", "greater_than", -1, false],
  ["line.purchase_price", "smaller_than", 100, false],
  ["order.total", "greater_than", 1000, true],
  ["order.total", "smaller_than", 1234.5, false],
  ["order.shipping_cost", "is", 4.95, true],
  // boolean
  ["order.test", "is", false, true],
  ["order.test", "is", true, false],
  ["order.test", "is_not", true, true],
  ["order.test", "is_not", false, false],
  // order text fields and the shipping address
  ["order.external_id", "begins_with", "web-", true],
  ["order.source", "is", "WOO SHOP", true],
  ["order.email", "ends_with", "@example.com", true],
  ["order.shipping_address.country", "is", "nl", true],
  ["order.shipping_address.country", "in_list", ["BE", "DE"], false],
  ["order.shipping_address.postcode", "begins_with", "1012", true],
  ["order.shipping_address.city", "contains", "DAM", true],
  ["order.shipping_address.first_name", "is", "jan", true],
  ["order.shipping_address.last_name", "ends_with", "SEN", true],
  ["order.shipping_address.address1", "contains", "damrak", true],
  ["order.shipping_address.company_name", "is_empty", undefined, true],
  ["order.shipping_address.address2", "is_not_empty", undefined, false],
  ["order.shipping_address.state", "is_empty", undefined, true],
  ["order.shipping_address.phone", "is", "612345678", true],
  // line.custom.<key>: any type
  ["line.custom.color", "is", "blue", true],
  ["line.custom.color", "in_list", ["red", "BLUE"], true],
  ["line.custom.color", "contains", "lu", true],
  ["line.custom.gift", "is", true, true],
  ["line.custom.gift", "is", false, false],
  ["line.custom.weight", "greater_than", 2, true],
  ["line.custom.weight", "smaller_than", 2, false],
  ["line.custom.size", "is", 42, true],
  ["line.custom.dims.w", "is", 10, true],
  ["line.custom.missing", "is_empty", undefined, true],
  ["line.custom.missing", "is", "x", false],
  ["line.custom.missing", "is_not", "x", true],
];

describe.concurrent("the rule language, operator by operator", () => {
  it("evaluates every case as expected (explain's per-condition results)", async () => {
    const creds = await createAccount();
    const rules = await Promise.all(
      CASES.map(([variable, operator, value], i) =>
        createRule(creds, {
          name: `case ${i}`,
          priority: i + 1,
          conditions: [value === undefined ? { variable, operator } : { variable, operator, value }],
          action: { type: "skip" },
        }),
      ),
    );
    const res = await call("POST", "/api/v1/routing-rules/explain", { creds, body: { order } });
    expect(res.status).toBe(200);
    const traced = res.json.lines[0].rules as { id: number; conditions: { result: boolean }[] }[];
    expect(traced.map((r) => r.id)).toEqual(rules.map((r) => r.id));
    const actual = CASES.map(([variable, operator, value], i) => [variable, operator, value ?? null, traced[i].conditions[0].result]);
    expect(actual).toEqual(CASES.map(([variable, operator, value, expected]) => [variable, operator, value ?? null, expected]));
  });

  it("shows the value each condition read", async () => {
    const creds = await createAccount();
    await createRule(creds, {
      conditions: [
        { variable: "order.total", operator: "greater_than", value: 1000 },
        { variable: "order.shipping_address.country", operator: "is", value: "nl" },
        { variable: "line.custom.dims.w", operator: "is", value: 10 },
        { variable: "line.supplier", operator: "is_empty" },
      ],
      action: { type: "skip" },
    });
    const res = await call("POST", "/api/v1/routing-rules/explain", { creds, body: { order } });
    expect(res.json.lines[0].rules[0].conditions).toEqual([
      { variable: "order.total", operator: "greater_than", value: 1000, actual: 1234.5, result: true },
      { variable: "order.shipping_address.country", operator: "is", value: "nl", actual: "NL", result: true },
      { variable: "line.custom.dims.w", operator: "is", value: 10, actual: 10, result: true },
      { variable: "line.supplier", operator: "is_empty", value: null, actual: null, result: true },
    ]);
  });
});

describe.concurrent("each variable kind decides real orders", () => {
  it("text, number, boolean, line.custom.<key> and order address fields route lines to their suppliers", async () => {
    const creds = await createAccount();
    const [custom, number, text, bool, address] = await Promise.all(
      ["By custom", "By number", "By text", "By boolean", "By address"].map((name) => createSupplier(creds, { name })),
    );
    await createRule(creds, { name: "custom", conditions: [{ variable: "line.custom.kind", operator: "is", value: "C" }], action: assignTo(custom.id) });
    await createRule(creds, { name: "number", conditions: [{ variable: "line.quantity", operator: "greater_than", value: 50 }], action: assignTo(number.id) });
    await createRule(creds, { name: "text", conditions: [{ variable: "line.brand", operator: "is", value: "textbrand" }], action: assignTo(text.id) });
    await createRule(creds, { name: "boolean", conditions: [{ variable: "order.test", operator: "is", value: true }], action: assignTo(bool.id) });
    await createRule(creds, {
      name: "address",
      conditions: [{ variable: "order.shipping_address.country", operator: "is", value: "be" }],
      action: assignTo(address.id),
    });

    const base = orderPayload().products[0];
    const lines = [
      { ...base, external_id: "l-custom", custom: { kind: "c" } },
      { ...base, external_id: "l-number", quantity: 60, custom: null },
      { ...base, external_id: "l-text", brand: "TextBrand", custom: null },
      { ...base, external_id: "l-other", custom: null },
    ];
    const address1 = { ...orderPayload().shipping_address, country: "BE" };
    const testOrder = await createOrder(creds, { test: true, shipping_address: address1, products: lines });
    const realOrder = await createOrder(creds, { shipping_address: address1, products: [lines[3]] });

    const routed = await matchNow(creds, testOrder.reference);
    expect(routed.order_lines.map((l: { matched_supplier: { name: string } }) => l.matched_supplier)).toEqual([
      { id: custom.id, name: "By custom" },
      { id: number.id, name: "By number" },
      { id: text.id, name: "By text" },
      { id: bool.id, name: "By boolean" },
    ]);
    const real = await matchNow(creds, realOrder.reference);
    expect(real.order_lines[0].matched_supplier).toEqual({ id: address.id, name: "By address" });
    expect(real.order_lines[0].current_status).toBe("ruled");
  });
});
