// Waiting (pending) lines are matched again, through the queue, when rules or suppliers change:
// no new order and no /match call needed. Everything a test sets up beforehand is seeded straight
// into the tables (no queue message), and each order's own route_order is consumed (routed_at set)
// before the change under test, so only the re-match that change queues can match the line.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { createAccount, createOrder, orderPayload, seedSupplier } from "../helpers/factories";
import { call } from "../helpers/http";
import { waitFor } from "../helpers/wait";
import { assignTo, createRule, createSupplier, getOrder, logsOf, seedRule, waitForLineStatus, waitRouted } from "../helpers/routing";

const CREATED = ["pending", "Order line created"];
const brandIs = (value: string) => ({ variable: "line.brand", operator: "is", value });

describe.concurrent("re-matching waiting lines", () => {
  it("after a rule is created", async () => {
    const creds = await createAccount();
    const s = await seedSupplier(creds.accountId, "Acme");
    const { reference } = await createOrder(creds);
    await waitRouted(creds, reference);
    const rule = await createRule(creds, { name: "mugs", conditions: [brandIs("mugs inc")], action: assignTo(s.id) });
    const order = await waitForLineStatus(creds, reference, "ruled");
    expect(logsOf(order.order_lines[0])).toEqual([
      CREATED,
      ["pending", "No supplier matched: no routing rules; no catalogue product with this EAN or SKU; no active supplier named 'MugSupplier'"],
      ["ruled", `Matched to supplier Acme by rule #${rule.id} 'mugs'`],
    ]);
  });

  it("after a rule is changed", async () => {
    const creds = await createAccount();
    const s = await seedSupplier(creds.accountId, "Acme");
    const rule = await seedRule(creds.accountId, { name: "mugs", priority: 10, conditions: [brandIs("cups inc")], action: assignTo(s.id) });
    const { reference } = await createOrder(creds);
    const waiting = await waitRouted(creds, reference);
    expect(logsOf(waiting.order_lines[0])[1]).toEqual([
      "pending",
      "No supplier matched: no routing rule applies; no catalogue product with this EAN or SKU; no active supplier named 'MugSupplier'",
    ]);
    const patched = await call("PATCH", `/api/v1/routing-rules/${rule.id}`, { creds, body: { conditions: [brandIs("mugs inc")] } });
    expect(patched.status).toBe(200);
    const order = await waitForLineStatus(creds, reference, "ruled");
    expect(logsOf(order.order_lines[0]).at(-1)).toEqual(["ruled", `Matched to supplier Acme by rule #${rule.id} 'mugs'`]);
  });

  it("after an inactive rule is switched on", async () => {
    const creds = await createAccount();
    const s = await seedSupplier(creds.accountId, "Acme");
    const rule = await seedRule(creds.accountId, { name: "off for now", priority: 10, active: false, action: assignTo(s.id) });
    const { reference } = await createOrder(creds);
    expect((await waitRouted(creds, reference)).order_lines[0].current_status).toBe("pending");
    expect((await call("PATCH", `/api/v1/routing-rules/${rule.id}`, { creds, body: { active: true } })).status).toBe(200);
    const order = await waitForLineStatus(creds, reference, "ruled");
    expect(logsOf(order.order_lines[0]).at(-1)).toEqual(["ruled", `Matched to supplier Acme by rule #${rule.id} 'off for now'`]);
  });

  it("after a supplier is created (the line's supplier field now names one)", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    await waitRouted(creds, reference);
    const s = await createSupplier(creds, { name: "MugSupplier" });
    const order = await waitForLineStatus(creds, reference, "ruled");
    expect(order.order_lines[0].matched_supplier).toEqual({ id: s.id, name: "MugSupplier" });
    expect(logsOf(order.order_lines[0]).at(-1)).toEqual(["ruled", "Matched to supplier MugSupplier by the line's supplier field"]);
  });

  it("after a supplier is updated (given the code the line names)", async () => {
    const creds = await createAccount();
    const s = await seedSupplier(creds.accountId, "Mug Wholesale BV");
    const { reference } = await createOrder(creds);
    await waitRouted(creds, reference);
    expect((await call("PATCH", `/api/v1/suppliers/${s.id}`, { creds, body: { code: "MUGSUPPLIER" } })).status).toBe(200);
    const order = await waitForLineStatus(creds, reference, "ruled");
    expect(order.order_lines[0].matched_supplier).toEqual({ id: s.id, name: "Mug Wholesale BV" });
  });

  it("lines already matched keep their supplier when rules change", async () => {
    const creds = await createAccount();
    const first = await seedSupplier(creds.accountId, "First");
    const second = await seedSupplier(creds.accountId, "Second");
    const rule = await seedRule(creds.accountId, { name: "r", priority: 10, conditions: [brandIs("mugs inc")], action: assignTo(first.id) });
    const matched = await createOrder(creds);
    const before = await waitRouted(creds, matched.reference);
    expect(before.order_lines[0].matched_supplier.name).toBe("First");
    const waiting = await createOrder(creds, { products: [{ ...orderPayload().products[0], brand: "Other" }] });
    await waitRouted(creds, waiting.reference);

    await call("PATCH", `/api/v1/routing-rules/${rule.id}`, { creds, body: { conditions: [], action: assignTo(second.id) } });
    // The re-match ran (the waiting line got matched), and the matched line was left as it was.
    await waitForLineStatus(creds, waiting.reference, "ruled");
    expect(await getOrder(creds, matched.reference)).toEqual(before);
  });

  it("pages through many waiting orders (more than one re-match page)", async () => {
    const creds = await createAccount();
    for (let i = 0; i < 5; i++) await Promise.all(Array.from({ length: 11 }, () => createOrder(creds)));
    // Every order's own route_order message has been consumed (each sets routed_at), so only the
    // re-match can match them from here on.
    await waitFor(async () => {
      const row = await env.DB.prepare("SELECT count(*) AS n FROM orders WHERE account_id = ? AND routed_at IS NULL")
        .bind(creds.accountId)
        .first<{ n: number }>();
      return row!.n === 0;
    }, 15_000);
    await createSupplier(creds, { name: "MugSupplier" });
    await waitFor(async () => {
      const res = await call("GET", "/api/v1/orders?statuses=pending&per_page=1", { creds });
      return res.json.meta.total === 0;
    }, 15_000);
    const ruled = await call("GET", "/api/v1/orders?statuses=ruled&per_page=1", { creds });
    expect(ruled.json.meta.total).toBe(55);
  });
});
