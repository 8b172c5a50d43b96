// Blocking and unblocking by hand (POST /orders/{reference}/block, /unblock), and /match on demand.
import { describe, expect, it } from "vitest";
import { createAccount, createOrder, orderPayload, seedSupplier } from "../helpers/factories";
import { call } from "../helpers/http";
import { assignTo, createRule, createSupplier, getOrder, logsOf, matchNow, seedRule, waitForLineStatus, waitRouted } from "../helpers/routing";
import { waitFor } from "../helpers/wait";

const CREATED = ["pending", "Order line created"];
const NO_MATCH = ["pending", "No supplier matched: no routing rules; no catalogue product with this EAN or SKU; no active supplier named 'MugSupplier'"];

describe.concurrent("blocking by hand", () => {
  it("sets blocked, logs once on every line, and answers the order JSON", async () => {
    const creds = await createAccount();
    const base = orderPayload().products[0];
    const { reference } = await createOrder(creds, { products: [base, { ...base, external_id: "sku-2" }] });
    await matchNow(creds, reference);

    const res = await call("POST", `/api/v1/orders/${reference}/block`, { creds, body: { reason: "Suspicious address" } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual(await getOrder(creds, reference));
    expect(res.json.blocked).toBe(true);
    for (const line of res.json.order_lines) {
      expect(logsOf(line)).toEqual([CREATED, NO_MATCH, ["pending", "Order blocked by hand: Suspicious address"]]);
    }

    // Blocking a blocked order changes and logs nothing.
    const again = await call("POST", `/api/v1/orders/${reference}/block`, { creds });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(res.json);

    const list = await call("GET", "/api/v1/orders?blocked=true", { creds });
    expect(list.json.data.map((o: { reference: string }) => o.reference)).toEqual([reference]);
  });

  it("without a reason, logs 'Order blocked by hand'", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    await matchNow(creds, reference);
    const res = await call("POST", `/api/v1/orders/${reference}/block`, { creds });
    expect(logsOf(res.json.order_lines[0])).toEqual([CREATED, NO_MATCH, ["pending", "Order blocked by hand"]]);
  });

  it("a blocked order is not matched, not even on demand or after a rule change", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    await matchNow(creds, reference);
    await call("POST", `/api/v1/orders/${reference}/block`, { creds });
    const s = await createSupplier(creds, { name: "MugSupplier" });
    await createRule(creds, { action: assignTo(s.id) });
    const order = await matchNow(creds, reference);
    expect(order.blocked).toBe(true);
    expect(order.order_lines[0].current_status).toBe("pending");
    expect(order.order_lines[0].matched_supplier).toBeNull();
    expect(logsOf(order.order_lines[0])).toEqual([CREATED, NO_MATCH, ["pending", "Order blocked by hand"]]);
  });

  it("validates the reason", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    const res = await call("POST", `/api/v1/orders/${reference}/block`, { creds, body: { reason: "x".repeat(501) } });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ message: "Errors", errors: { reason: ["The reason field must not be greater than 500 characters."] } });
    expect((await getOrder(creds, reference)).blocked).toBe(false);
  });
});

describe.concurrent("unblocking by hand", () => {
  it("clears blocked, logs it, and resumes processing through the queue", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    await waitRouted(creds, reference); // its own message is consumed
    await call("POST", `/api/v1/orders/${reference}/block`, { creds });
    // Seeded straight into the table: no re-match queued, only the unblock can resume it.
    const s = await seedSupplier(creds.accountId, "MugSupplier");

    const res = await call("POST", `/api/v1/orders/${reference}/unblock`, { creds, body: { reason: "checked by phone" } });
    expect(res.status).toBe(200);
    expect(res.json.blocked).toBe(false);
    expect(logsOf(res.json.order_lines[0]).slice(-2)).toEqual([
      ["pending", "Order blocked by hand"],
      ["pending", "Order unblocked: checked by phone"],
    ]);

    // No /match: the queue picks it up.
    const order = await waitForLineStatus(creds, reference, "ruled");
    expect(order.order_lines[0].matched_supplier).toEqual({ id: s.id, name: "MugSupplier" });
    expect(logsOf(order.order_lines[0])).toEqual([
      CREATED,
      NO_MATCH,
      ["pending", "Order blocked by hand"],
      ["pending", "Order unblocked: checked by phone"],
      ["ruled", "Matched to supplier MugSupplier by the line's supplier field"],
    ]);
  });

  it("unblocking an order that is not blocked changes and logs nothing", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    const before = await matchNow(creds, reference);
    const res = await call("POST", `/api/v1/orders/${reference}/unblock`, { creds });
    expect(res.status).toBe(200);
    expect(res.json.order_lines).toEqual(before.order_lines);
    expect(res.json.blocked).toBe(false);
  });

  it("an order blocked by a rule and unblocked by hand is processed on, not blocked again by the same rule", async () => {
    const creds = await createAccount();
    const s = await seedSupplier(creds.accountId, "Acme");
    const block = await seedRule(creds.accountId, { name: "big", priority: 10, conditions: [{ variable: "order.total", operator: "greater_than", value: 1000 }], action: { type: "block" } });
    const rest = await seedRule(creds.accountId, { name: "rest", priority: 20, action: assignTo(s.id) });
    const { reference } = await createOrder(creds, { total: 5000 });
    const blocked = await waitRouted(creds, reference);
    expect(blocked.blocked).toBe(true);

    const res = await call("POST", `/api/v1/orders/${reference}/unblock`, { creds, body: { reason: "customer verified" } });
    expect(res.status).toBe(200);
    const order = await waitForLineStatus(creds, reference, "ruled");
    expect(order.blocked).toBe(false);
    expect(logsOf(order.order_lines[0])).toEqual([
      CREATED,
      ["pending", `Order blocked by rule #${block.id} 'big'`],
      ["pending", "Order unblocked: customer verified"],
      ["ruled", `Matched to supplier Acme by rule #${rest.id} 'rest'`],
    ]);
    // And it stays that way when matched again; explain says why the block rule no longer applies.
    expect((await matchNow(creds, reference)).order_lines).toEqual(order.order_lines);
    const explained = await call("POST", "/api/v1/routing-rules/explain", { creds, body: { reference } });
    expect(explained.json.outcome).toBe("would_route");
    expect(explained.json.lines[0].rules[0]).toMatchObject({ id: block.id, matched: false, note: "conditions hold, but the order was unblocked by hand" });
    // A new order is still blocked by the rule.
    const fresh = await createOrder(creds, { total: 5000 });
    expect((await matchNow(creds, fresh.reference)).blocked).toBe(true);
  });

  it("blocking by hand again after an unblock blocks again", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    await matchNow(creds, reference);
    await call("POST", `/api/v1/orders/${reference}/block`, { creds });
    await call("POST", `/api/v1/orders/${reference}/unblock`, { creds });
    // Processing resumed: the line still waits, and says so again after the unblock entry.
    await waitFor(async () => logsOf((await getOrder(creds, reference)).order_lines[0]).length === 5);
    const res = await call("POST", `/api/v1/orders/${reference}/block`, { creds, body: { reason: "again" } });
    expect(res.json.blocked).toBe(true);
    expect(logsOf(res.json.order_lines[0])).toEqual([
      CREATED,
      NO_MATCH,
      ["pending", "Order blocked by hand"],
      ["pending", "Order unblocked"],
      NO_MATCH,
      ["pending", "Order blocked by hand: again"],
    ]);
  });
});

describe.concurrent("order actions and tenancy", () => {
  it("block, unblock and match answer 404 for an unknown reference and for another account's order", async () => {
    const creds = await createAccount();
    const other = await createOrder(await createAccount());
    for (const action of ["block", "unblock", "match"]) {
      for (const reference of ["1234567890123456", other.reference]) {
        const res = await call("POST", `/api/v1/orders/${reference}/${action}`, { creds });
        expect(res.status, `${action} ${reference}`).toBe(404);
        expect(res.json).toEqual({ message: "Not Found", error: `Order with reference '${reference}' not found` });
      }
    }
  });
});
