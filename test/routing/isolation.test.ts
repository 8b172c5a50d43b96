// Tenancy: an account never sees, changes or is routed by another account's suppliers, rules or
// catalogue.
import { describe, expect, it } from "vitest";
import { createAccount, createOrder } from "../helpers/factories";
import { call } from "../helpers/http";
import { seedFeed, seedProduct } from "../helpers/catalogue-seed";
import { assignTo, createRule, createSupplier, logsOf, matchNow, waitRouted } from "../helpers/routing";

describe.concurrent("suppliers of another account", () => {
  it("answer 404 on GET, PATCH and DELETE, exactly like an unknown id, and stay unchanged", async () => {
    const mine = await createAccount();
    const theirs = await createAccount();
    const foreign = await createSupplier(theirs, { name: "Theirs", code: "T" });
    for (const [method, body] of [["GET"], ["PATCH", { name: "Hijacked", active: false }], ["DELETE"]] as const) {
      const res = await call(method, `/api/v1/suppliers/${foreign.id}`, { creds: mine, body });
      expect(res.status, method).toBe(404);
      expect(res.json).toEqual({ message: "Not Found", error: `Supplier with id '${foreign.id}' not found` });
    }
    expect((await call("GET", `/api/v1/suppliers/${foreign.id}`, { creds: theirs })).json).toEqual(foreign);
    expect((await call("GET", "/api/v1/suppliers", { creds: mine })).json.data).toEqual([]);
  });

  it("cannot be named in a rule: 422 on create and on update", async () => {
    const mine = await createAccount();
    const foreign = await createSupplier(await createAccount());
    const error = { message: "Errors", errors: { "action.supplier_id": ["The selected action.supplier_id is invalid."] } };
    const created = await call("POST", "/api/v1/routing-rules", { creds: mine, body: { name: "steal", conditions: [], action: assignTo(foreign.id) } });
    expect(created.status).toBe(422);
    expect(created.json).toEqual(error);
    const rule = await createRule(mine, { action: { type: "skip" } });
    const patched = await call("PATCH", `/api/v1/routing-rules/${rule.id}`, { creds: mine, body: { action: assignTo(foreign.id) } });
    expect(patched.status).toBe(422);
    expect(patched.json).toEqual(error);
    expect((await call("GET", "/api/v1/routing-rules", { creds: mine })).json.data).toEqual([rule]);
  });
});

describe.concurrent("rules of another account", () => {
  it("answer 404 on GET, PATCH and DELETE and are not listed", async () => {
    const mine = await createAccount();
    const theirs = await createAccount();
    const foreign = await createRule(theirs, { name: "theirs", action: { type: "skip" } });
    for (const [method, body] of [["GET"], ["PATCH", { active: false }], ["DELETE"]] as const) {
      const res = await call(method, `/api/v1/routing-rules/${foreign.id}`, { creds: mine, body });
      expect(res.status, method).toBe(404);
      expect(res.json).toEqual({ message: "Not Found", error: `Routing rule with id '${foreign.id}' not found` });
    }
    expect((await call("GET", `/api/v1/routing-rules/${foreign.id}`, { creds: theirs })).json).toEqual(foreign);
    expect((await call("GET", "/api/v1/routing-rules", { creds: mine })).json.meta.total).toBe(0);
  });

  it("never apply to my orders, nor do their catalogue and suppliers", async () => {
    const theirs = await createAccount();
    const their = await createSupplier(theirs, { name: "MugSupplier" });
    await createRule(theirs, { name: "block all", priority: 1, action: { type: "block" } });
    await createRule(theirs, { name: "skip all", priority: 2, action: { type: "skip" } });
    await createRule(theirs, { name: "all to theirs", priority: 3, action: assignTo(their.id) });
    const feed = await seedFeed(theirs.accountId, their.id);
    await seedProduct(theirs.accountId, feed.id, { ean13: "0012345678905", sku: "MUG-BLUE", purchasePrice: 1 });

    const mine = await createAccount();
    const { reference } = await createOrder(mine);
    const order = await waitRouted(mine, reference);
    expect(order.blocked).toBe(false);
    expect(order.order_lines[0].current_status).toBe("pending");
    expect(logsOf(order.order_lines[0])).toEqual([
      ["pending", "Order line created"],
      ["pending", "No supplier matched: no routing rules; no catalogue product with this EAN or SKU; no active supplier named 'MugSupplier'"],
    ]);

    const explained = await call("POST", "/api/v1/routing-rules/explain", { creds: mine, body: { reference } });
    expect(explained.json.lines[0]).toMatchObject({ rules: [], catalogue: [], supplier_field: { value: "MugSupplier", supplier: null } });

    // Their own order, for contrast, is blocked by their rule.
    const theirOrder = await createOrder(theirs);
    expect((await matchNow(theirs, theirOrder.reference)).blocked).toBe(true);
  });
});
