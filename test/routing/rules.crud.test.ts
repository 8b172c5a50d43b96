import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { BASE, call } from "../helpers/http";
import { assignTo, createRule, createSupplier } from "../helpers/routing";

const ISO_MICRO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
// What a 422 on an unknown rule variable lists.
const VARIABLES =
  "Allowed values: line.external_id, line.ean13, line.name, line.reference, line.quantity, line.stock_quantity, line.price, line.purchase_price, line.brand, line.category, line.supplier, line.height, line.width, line.length, line.weight, order.external_id, order.source, order.test, order.total, order.shipping_cost, order.email, order.shipping_address.first_name, order.shipping_address.last_name, order.shipping_address.company_name, order.shipping_address.address1, order.shipping_address.address2, order.shipping_address.postcode, order.shipping_address.city, order.shipping_address.state, order.shipping_address.country, order.shipping_address.phone, line.custom.<key>.";
const brandIs = (value: string) => ({ variable: "line.brand", operator: "is", value });

describe.concurrent("POST /api/v1/routing-rules", () => {
  it("creates a rule and answers 201 with its JSON; without a priority it goes last (10, 20, ...)", async () => {
    const creds = await createAccount();
    const supplier = await createSupplier(creds);
    const res = await call("POST", "/api/v1/routing-rules", {
      creds,
      body: { name: "Mugs", conditions: [brandIs("Mugs Inc")], action: assignTo(supplier.id) },
    });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      id: expect.any(Number),
      name: "Mugs",
      priority: 10,
      match: "all",
      conditions: [{ variable: "line.brand", operator: "is", value: "Mugs Inc" }],
      action: { type: "assign_supplier", supplier_id: supplier.id },
      active: true,
      no_reroute: false,
      created_at: ISO_MICRO,
      updated_at: res.json.created_at,
    });
    const second = await createRule(creds, { action: { type: "skip" } });
    expect(second.priority).toBe(20);
    const explicit = await createRule(creds, { action: { type: "block" }, priority: 5, match: "any", active: false });
    expect(explicit).toMatchObject({ priority: 5, match: "any", active: false, action: { type: "block" }, conditions: [] });
    const fourth = await createRule(creds, { action: { type: "skip" } });
    expect(fourth.priority).toBe(30);
  });

  it("accepts line.custom.<key> variables, nested keys included", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/routing-rules", {
      creds,
      body: {
        name: "Custom",
        conditions: [
          { variable: "line.custom.color", operator: "is", value: "blue" },
          { variable: "line.custom.dims.weight", operator: "greater_than", value: 2 },
        ],
        action: { type: "skip" },
      },
    });
    expect(res.status).toBe(201);
  });
});

describe.concurrent("422 on bad rule bodies", () => {
  const post = async (body: Record<string, unknown>) => {
    const creds = await createAccount();
    return call("POST", "/api/v1/routing-rules", { creds, body });
  };

  it("names every missing field", async () => {
    const res = await post({});
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: "Errors",
      errors: {
        name: ["The name field is required."],
        conditions: ["The conditions field is required."],
        action: ["The action field is required."],
      },
    });
  });

  it("rejects unknown variables, unknown operators, operators that do not fit the type and bad values, per condition", async () => {
    const res = await post({
      name: "Bad",
      action: { type: "skip" },
      conditions: [
        { variable: "line.colour", operator: "is", value: "x" },
        { variable: "line.brand", operator: "greater_than", value: 5 },
        { variable: "line.quantity", operator: "contains", value: "1" },
        { variable: "order.test", operator: "is_empty" },
        { variable: "line.brand", operator: "looks_like", value: "x" },
        { variable: "line.quantity", operator: "is", value: "lots" },
        { variable: "order.test", operator: "is", value: "yes" },
        { variable: "order.shipping_address.country", operator: "in_list", value: [] },
        { variable: "line.brand", operator: "is" },
        { variable: "line.custom", operator: "is", value: "x" },
        { variable: "line.price", operator: "in_list", value: ["1", "cheap"] },
        { variable: "line.brand", operator: "is", value: { nested: true } },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: "Errors",
      errors: {
        "conditions.0.variable": [`The selected conditions.0.variable is invalid. ${VARIABLES}`],
        "conditions.1.operator": ["The conditions.1.operator greater_than does not fit the text variable line.brand."],
        "conditions.2.operator": ["The conditions.2.operator contains does not fit the number variable line.quantity."],
        "conditions.3.operator": ["The conditions.3.operator is_empty does not fit the boolean variable order.test."],
        "conditions.4.operator": ["The selected conditions.4.operator is invalid. Allowed values: is, is_not, contains, does_not_contain, begins_with, ends_with, in_list, not_in_list, is_empty, is_not_empty."],
        "conditions.5.value": ["The conditions.5.value field must be a number."],
        "conditions.6.value": ["The conditions.6.value field must be true or false."],
        "conditions.7.value": ["The conditions.7.value field must be a non-empty list of strings or numbers."],
        "conditions.8.value": ["The conditions.8.value field is required."],
        "conditions.9.variable": [`The selected conditions.9.variable is invalid. ${VARIABLES}`],
        "conditions.10.value": ["The conditions.10.value field must list numbers."],
        "conditions.11.value": ["The conditions.11.value field must be a string, number or boolean."],
      },
    });
  });

  it("reports condition errors together with the other fields' errors", async () => {
    const res = await post({
      conditions: [{ variable: "line.nope", operator: "is", value: "x" }, { operator: "is" }],
      action: { type: "explode" },
    });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: "Errors",
      errors: {
        name: ["The name field is required."],
        "conditions.0.variable": [`The selected conditions.0.variable is invalid. ${VARIABLES}`],
        "conditions.1.variable": ["The conditions.1.variable field is required."],
        "action.type": ["The selected action.type is invalid. Allowed values: assign_supplier, skip, block."],
      },
    });
  });

  it("rejects an invalid match, a non-array conditions and an assign action without supplier", async () => {
    const res = await post({ name: "X", match: "most", conditions: "line.brand is x", action: { type: "assign_supplier" } });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: "Errors",
      errors: {
        match: ["The selected match is invalid. Allowed values: all, any."],
        conditions: ["The conditions field must be an array."],
        "action.supplier_id": ["The action.supplier_id field is required."],
      },
    });
  });

  it("rejects a supplier that does not exist", async () => {
    const res = await post({ name: "X", conditions: [], action: assignTo(999_999_999) });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ message: "Errors", errors: { "action.supplier_id": ["The selected action.supplier_id is invalid."] } });
  });
});

describe.concurrent("GET /api/v1/routing-rules", () => {
  it("lists the account's rules in evaluation order (priority, then id), paginated", async () => {
    const creds = await createAccount();
    const late = await createRule(creds, { name: "late", priority: 50, action: { type: "skip" } });
    const early = await createRule(creds, { name: "early", priority: 1, action: { type: "skip" } });
    const tieA = await createRule(creds, { name: "tieA", priority: 20, action: { type: "skip" } });
    const tieB = await createRule(creds, { name: "tieB", priority: 20, action: { type: "skip" } });
    await createRule(await createAccount(), { name: "not mine", priority: 0, action: { type: "skip" } });

    const res = await call("GET", "/api/v1/routing-rules", { creds });
    expect(res.status).toBe(200);
    expect(res.json.data.map((r: { id: number }) => r.id)).toEqual([early.id, tieA.id, tieB.id, late.id]);
    expect(res.json.data[0]).toEqual(early);
    expect(res.json.meta).toEqual({ current_page: 1, from: 1, last_page: 1, path: `${BASE}/api/v1/routing-rules`, per_page: 50, to: 4, total: 4 });

    const page = await call("GET", "/api/v1/routing-rules?per_page=3&page=2", { creds });
    expect(page.json.data.map((r: { id: number }) => r.id)).toEqual([late.id]);
    expect(page.json.links).toEqual({
      first: `${BASE}/api/v1/routing-rules?per_page=3&page=1`,
      last: `${BASE}/api/v1/routing-rules?per_page=3&page=2`,
      prev: `${BASE}/api/v1/routing-rules?per_page=3&page=1`,
      next: null,
    });
  });
});

describe.concurrent("GET/PATCH/DELETE /api/v1/routing-rules/{id}", () => {
  it("fetches, updates only the fields sent, and deletes", async () => {
    const creds = await createAccount();
    const supplier = await createSupplier(creds);
    const rule = await createRule(creds, { name: "r", conditions: [brandIs("a")], action: assignTo(supplier.id) });

    const got = await call("GET", `/api/v1/routing-rules/${rule.id}`, { creds });
    expect(got.status).toBe(200);
    expect(got.json).toEqual(rule);

    const patched = await call("PATCH", `/api/v1/routing-rules/${rule.id}`, {
      creds,
      body: { conditions: [brandIs("b"), { variable: "line.quantity", operator: "greater_than", value: 3 }], match: "any" },
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toEqual({
      ...rule,
      match: "any",
      conditions: [brandIs("b"), { variable: "line.quantity", operator: "greater_than", value: 3 }],
      updated_at: ISO_MICRO,
    });

    const deactivated = await call("PATCH", `/api/v1/routing-rules/${rule.id}`, { creds, body: { active: false, action: { type: "skip" } } });
    expect(deactivated.json).toMatchObject({ active: false, action: { type: "skip" }, match: "any", name: "r" });

    const deleted = await call("DELETE", `/api/v1/routing-rules/${rule.id}`, { creds });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    const gone = await call("GET", `/api/v1/routing-rules/${rule.id}`, { creds });
    expect(gone.status).toBe(404);
    expect(gone.json).toEqual({ message: "Not Found", error: `Routing rule with id '${rule.id}' not found` });
  });

  it("validates a PATCH like a create", async () => {
    const creds = await createAccount();
    const rule = await createRule(creds, { action: { type: "skip" } });
    const res = await call("PATCH", `/api/v1/routing-rules/${rule.id}`, {
      creds,
      body: { conditions: [{ variable: "order.total", operator: "begins_with", value: "1" }], action: assignTo(999_999_999) },
    });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: "Errors",
      errors: { "conditions.0.operator": ["The conditions.0.operator begins_with does not fit the number variable order.total."] },
    });
    const res2 = await call("PATCH", `/api/v1/routing-rules/${rule.id}`, { creds, body: { action: assignTo(999_999_999) } });
    expect(res2.status).toBe(422);
    expect(res2.json).toEqual({ message: "Errors", errors: { "action.supplier_id": ["The selected action.supplier_id is invalid."] } });
    expect((await call("GET", `/api/v1/routing-rules/${rule.id}`, { creds })).json).toEqual(rule);
  });

  it("answers 404 for unknown or malformed ids", async () => {
    const creds = await createAccount();
    for (const id of ["999999999", "x1"]) {
      for (const method of ["GET", "PATCH", "DELETE"]) {
        const res = await call(method, `/api/v1/routing-rules/${id}`, { creds, body: method === "PATCH" ? { name: "n" } : undefined });
        expect(res.status, `${method} ${id}`).toBe(404);
        expect(res.json).toEqual({ message: "Not Found", error: `Routing rule with id '${id}' not found` });
      }
    }
  });
});

describe.concurrent("POST /api/v1/routing-rules/reorder", () => {
  it("gives the listed rules priorities 10, 20, 30 in the order given and answers the new order", async () => {
    const creds = await createAccount();
    const a = await createRule(creds, { name: "a", action: { type: "skip" } });
    const b = await createRule(creds, { name: "b", action: { type: "skip" } });
    const c = await createRule(creds, { name: "c", priority: 7, action: { type: "skip" } });
    const res = await call("POST", "/api/v1/routing-rules/reorder", { creds, body: { ids: [b.id, c.id, a.id] } });
    expect(res.status).toBe(200);
    expect(res.json.data.map((r: { id: number; priority: number }) => [r.id, r.priority])).toEqual([
      [b.id, 10],
      [c.id, 20],
      [a.id, 30],
    ]);
    const list = await call("GET", "/api/v1/routing-rules", { creds });
    expect(list.json.data).toEqual(res.json.data);
  });

  it("answers 422 unless every rule of the account is listed exactly once", async () => {
    const creds = await createAccount();
    const a = await createRule(creds, { action: { type: "skip" } });
    const b = await createRule(creds, { action: { type: "skip" } });
    const foreign = await createRule(await createAccount(), { action: { type: "skip" } });
    const error = { message: "Errors", errors: { ids: ["The ids field must list each of the account's routing rules exactly once."] } };
    for (const ids of [[a.id], [a.id, b.id, b.id], [a.id, b.id, foreign.id], [a.id, foreign.id]]) {
      const res = await call("POST", "/api/v1/routing-rules/reorder", { creds, body: { ids } });
      expect(res.status, JSON.stringify(ids)).toBe(422);
      expect(res.json).toEqual(error);
    }
    const empty = await call("POST", "/api/v1/routing-rules/reorder", { creds, body: { ids: [] } });
    expect(empty.status).toBe(422);
    expect(empty.json).toEqual({ message: "Errors", errors: { ids: ["The ids field is required."] } });
    // Nothing moved.
    const list = await call("GET", "/api/v1/routing-rules", { creds });
    expect(list.json.data.map((r: { id: number; priority: number }) => [r.id, r.priority])).toEqual([
      [a.id, 10],
      [b.id, 20],
    ]);
  });
});
