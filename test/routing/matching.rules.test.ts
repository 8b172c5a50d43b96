// Step 1 of matching: the first rule by priority whose conditions hold decides, with its action.
import { describe, expect, it } from "vitest";
import { createAccount, createOrder, orderPayload } from "../helpers/factories";
import { call } from "../helpers/http";
import { assignTo, createRule, createSupplier, logsOf, matchNow, waitForLineStatus } from "../helpers/routing";

const brandIs = (value: string) => ({ variable: "line.brand", operator: "is", value });
const CREATED = ["pending", "Order line created"];

describe.concurrent("rule priority", () => {
  it("the rule with the lowest priority number decides when several hold", async () => {
    const creds = await createAccount();
    const first = await createSupplier(creds, { name: "First" });
    const second = await createSupplier(creds, { name: "Second" });
    await createRule(creds, { name: "later", priority: 20, conditions: [brandIs("Mugs Inc")], action: assignTo(second.id) });
    const winner = await createRule(creds, { name: "earlier", priority: 10, conditions: [brandIs("Mugs Inc")], action: assignTo(first.id) });
    const { reference } = await createOrder(creds);
    const order = await matchNow(creds, reference);
    expect(order.order_lines[0].matched_supplier).toEqual({ id: first.id, name: "First" });
    expect(logsOf(order.order_lines[0])).toEqual([CREATED, ["ruled", `Matched to supplier First by rule #${winner.id} 'earlier'`]]);
  });

  it("equal priorities: the older rule (lower id) decides", async () => {
    const creds = await createAccount();
    const a = await createSupplier(creds, { name: "A" });
    const b = await createSupplier(creds, { name: "B" });
    await createRule(creds, { name: "older", priority: 10, action: assignTo(a.id) });
    await createRule(creds, { name: "newer", priority: 10, action: assignTo(b.id) });
    const { reference } = await createOrder(creds);
    expect((await matchNow(creds, reference)).order_lines[0].matched_supplier.name).toBe("A");
  });

  it("reordering changes which rule decides", async () => {
    const creds = await createAccount();
    const a = await createSupplier(creds, { name: "A" });
    const b = await createSupplier(creds, { name: "B" });
    const ruleA = await createRule(creds, { name: "to A", action: assignTo(a.id) });
    const ruleB = await createRule(creds, { name: "to B", action: assignTo(b.id) });
    const before = await createOrder(creds);
    expect((await matchNow(creds, before.reference)).order_lines[0].matched_supplier.name).toBe("A");

    const reorder = await call("POST", "/api/v1/routing-rules/reorder", { creds, body: { ids: [ruleB.id, ruleA.id] } });
    expect(reorder.status).toBe(200);
    const after = await createOrder(creds);
    const order = await matchNow(creds, after.reference);
    expect(order.order_lines[0].matched_supplier).toEqual({ id: b.id, name: "B" });
    expect(order.order_lines[0].logs[1].message).toBe(`Matched to supplier B by rule #${ruleB.id} 'to B'`);
    // The line matched before the reorder stays where it is.
    expect((await matchNow(creds, before.reference)).order_lines[0].matched_supplier.name).toBe("A");
  });
});

describe.concurrent("conditions combined with all / any", () => {
  const holds = { variable: "line.brand", operator: "is", value: "Mugs Inc" };
  const fails = { variable: "line.quantity", operator: "greater_than", value: 100 };

  it("match all: every condition must hold", async () => {
    const creds = await createAccount();
    const all = await createSupplier(creds, { name: "All" });
    const fallback = await createSupplier(creds, { name: "Fallback" });
    await createRule(creds, { name: "all", match: "all", conditions: [holds, fails], action: assignTo(all.id) });
    await createRule(creds, { name: "all-holding", match: "all", conditions: [holds, { ...fails, value: 1 }], action: assignTo(fallback.id) });
    const { reference } = await createOrder(creds);
    expect((await matchNow(creds, reference)).order_lines[0].matched_supplier.name).toBe("Fallback");
  });

  it("match any: one holding condition is enough", async () => {
    const creds = await createAccount();
    const any = await createSupplier(creds, { name: "Any" });
    await createRule(creds, { name: "any-none", match: "any", conditions: [fails, { ...holds, value: "other" }], action: { type: "skip" } });
    await createRule(creds, { name: "any", match: "any", conditions: [fails, holds], action: assignTo(any.id) });
    const { reference } = await createOrder(creds);
    expect((await matchNow(creds, reference)).order_lines[0].matched_supplier.name).toBe("Any");
  });

  it("a rule without conditions always holds (a catch-all)", async () => {
    const creds = await createAccount();
    const dflt = await createSupplier(creds, { name: "Default" });
    const rule = await createRule(creds, { name: "catch-all", conditions: [], action: assignTo(dflt.id) });
    const { reference } = await createOrder(creds, { products: [{ ...orderPayload().products[0], brand: null, supplier: null }] });
    const order = await matchNow(creds, reference);
    expect(logsOf(order.order_lines[0])).toEqual([CREATED, ["ruled", `Matched to supplier Default by rule #${rule.id} 'catch-all'`]]);
  });
});

describe.concurrent("rules that are passed over", () => {
  it("an inactive rule never applies", async () => {
    const creds = await createAccount();
    const a = await createSupplier(creds, { name: "A" });
    const b = await createSupplier(creds, { name: "B" });
    await createRule(creds, { name: "off", active: false, action: assignTo(a.id) });
    await createRule(creds, { name: "on", action: assignTo(b.id) });
    const { reference } = await createOrder(creds);
    expect((await matchNow(creds, reference)).order_lines[0].matched_supplier.name).toBe("B");
  });

  it("a rule whose supplier is inactive is passed over; the next rule decides", async () => {
    const creds = await createAccount();
    const gone = await createSupplier(creds, { name: "Gone" });
    const next = await createSupplier(creds, { name: "Next" });
    await createRule(creds, { name: "to gone", action: assignTo(gone.id) });
    const nextRule = await createRule(creds, { name: "to next", action: assignTo(next.id) });
    expect((await call("DELETE", `/api/v1/suppliers/${gone.id}`, { creds })).status).toBe(200);
    const { reference } = await createOrder(creds);
    const order = await matchNow(creds, reference);
    expect(logsOf(order.order_lines[0])).toEqual([CREATED, ["ruled", `Matched to supplier Next by rule #${nextRule.id} 'to next'`]]);
  });
});

describe.concurrent("actions", () => {
  it("assign_supplier: the line is ruled, matched_supplier set, the order lists the supplier", async () => {
    const creds = await createAccount();
    const s = await createSupplier(creds, { name: "Acme" });
    const rule = await createRule(creds, { name: "all to acme", action: assignTo(s.id) });
    const base = orderPayload().products[0];
    const { reference } = await createOrder(creds, { products: [base, { ...base, external_id: "sku-2" }] });
    const order = await matchNow(creds, reference);
    expect(order.suppliers).toEqual([{ id: s.id, name: "Acme" }]);
    for (const line of order.order_lines) {
      expect(line.current_status).toBe("ruled");
      expect(line.matched_supplier).toEqual({ id: s.id, name: "Acme" });
      expect(logsOf(line)).toEqual([CREATED, ["ruled", `Matched to supplier Acme by rule #${rule.id} 'all to acme'`]]);
    }
    expect(order.blocked).toBe(false);
  });

  it("skip: only the matching line is skipped, the others are matched on", async () => {
    const creds = await createAccount();
    const s = await createSupplier(creds, { name: "Acme" });
    const skip = await createRule(creds, { name: "gift wrap", conditions: [{ variable: "line.name", operator: "contains", value: "gift wrap" }], action: { type: "skip" } });
    await createRule(creds, { name: "rest", action: assignTo(s.id) });
    const base = orderPayload().products[0];
    const { reference } = await createOrder(creds, { products: [base, { ...base, external_id: "wrap", name: "Gift Wrap" }] });
    const order = await matchNow(creds, reference);
    expect(order.order_lines.map((l: { current_status: string }) => l.current_status)).toEqual(["ruled", "skipped"]);
    expect(order.order_lines[1].matched_supplier).toBeNull();
    expect(logsOf(order.order_lines[1])).toEqual([CREATED, ["skipped", `Skipped by rule #${skip.id} 'gift wrap'`]]);
  });

  it("block: sets the order's blocked flag, logs once on every line and matches no line", async () => {
    const creds = await createAccount();
    const s = await createSupplier(creds, { name: "Acme" });
    const block = await createRule(creds, { name: "big orders", conditions: [{ variable: "order.total", operator: "greater_than", value: 1000 }], action: { type: "block" } });
    await createRule(creds, { name: "rest", action: assignTo(s.id) });
    const base = orderPayload().products[0];
    const { reference } = await createOrder(creds, { total: 2500, products: [base, { ...base, external_id: "sku-2" }, { ...base, external_id: "sku-3" }] });
    const order = await matchNow(creds, reference);
    expect(order.blocked).toBe(true);
    expect(order.suppliers).toEqual([]);
    for (const line of order.order_lines) {
      expect(line.current_status).toBe("pending");
      expect(line.matched_supplier).toBeNull();
      expect(logsOf(line)).toEqual([CREATED, ["pending", `Order blocked by rule #${block.id} 'big orders'`]]);
    }
    // Matching again changes and logs nothing.
    const again = await matchNow(creds, reference);
    expect(again.order_lines).toEqual(order.order_lines);

    const blockedList = await call("GET", "/api/v1/orders?blocked=true", { creds });
    expect(blockedList.json.data.map((o: { reference: string }) => o.reference)).toEqual([reference]);
    const unblockedList = await call("GET", "/api/v1/orders?blocked=false", { creds });
    expect(unblockedList.json.data).toEqual([]);
  });

  it("a block rule blocks the whole order even when another line matched a rule first", async () => {
    const creds = await createAccount();
    const s = await createSupplier(creds, { name: "Acme" });
    await createRule(creds, { name: "mugs", conditions: [brandIs("Mugs Inc")], action: assignTo(s.id) });
    const block = await createRule(creds, { name: "no knives", conditions: [{ variable: "line.category", operator: "is", value: "knives" }], action: { type: "block" } });
    const base = orderPayload().products[0];
    const { reference } = await createOrder(creds, { products: [base, { ...base, external_id: "knife", brand: "Blades", category: "Knives" }] });
    const order = await matchNow(creds, reference);
    expect(order.blocked).toBe(true);
    expect(order.order_lines.map((l: { current_status: string }) => l.current_status)).toEqual(["pending", "pending"]);
    expect(order.order_lines.map(logsOf)).toEqual([
      [CREATED, ["pending", `Order blocked by rule #${block.id} 'no knives'`]],
      [CREATED, ["pending", `Order blocked by rule #${block.id} 'no knives'`]],
    ]);
  });
});

describe.concurrent("test orders", () => {
  it("are matched like real ones, through the queue", async () => {
    const creds = await createAccount();
    const s = await createSupplier(creds, { name: "Acme" });
    const rule = await createRule(creds, { name: "test orders too", conditions: [brandIs("mugs inc")], action: assignTo(s.id) });
    const { reference } = await createOrder(creds, { test: true });
    // Matched, then the dry run in the same batch: the line passes through ruled to completed.
    const order = await waitForLineStatus(creds, reference, "completed");
    expect(order.test).toBe(true);
    expect(logsOf(order.order_lines[0])).toEqual([
      CREATED,
      ["ruled", `Matched to supplier Acme by rule #${rule.id} 'test orders too'`],
      ["completed", "Test order: dry run, nothing was sent to supplier Acme"],
    ]);
  });
});
