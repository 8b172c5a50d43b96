// Waiting (pending) lines are matched again, through the queue, when rules or suppliers change:
// no new order and no /match call needed.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { createAccount, createOrder, orderPayload } from "../helpers/factories";
import { call } from "../helpers/http";
import { waitFor } from "../helpers/wait";
import { assignTo, createRule, createSupplier, getOrder, logsOf, matchNow, waitForLineStatus } from "../helpers/routing";

const CREATED = ["pending", "Order line created"];

describe("re-matching waiting lines", () => {
  it("after a rule is created", async () => {
    const creds = await createAccount();
    const s = await createSupplier(creds, { name: "Acme" });
    const { reference } = await createOrder(creds);
    await matchNow(creds, reference);
    const rule = await createRule(creds, { name: "mugs", conditions: [{ variable: "line.brand", operator: "is", value: "mugs inc" }], action: assignTo(s.id) });
    const order = await waitForLineStatus(creds, reference, "ruled");
    expect(logsOf(order.order_lines[0])).toEqual([
      CREATED,
      ["pending", "No supplier matched: no routing rules; no catalogue product with this EAN or SKU; no active supplier named 'MugSupplier'"],
      ["ruled", `Matched to supplier Acme by rule #${rule.id} 'mugs'`],
    ]);
  });

  it("after a rule is changed", async () => {
    const creds = await createAccount();
    const s = await createSupplier(creds, { name: "Acme" });
    const rule = await createRule(creds, { name: "mugs", conditions: [{ variable: "line.brand", operator: "is", value: "cups inc" }], action: assignTo(s.id) });
    const { reference } = await createOrder(creds);
    const waiting = await matchNow(creds, reference);
    expect(logsOf(waiting.order_lines[0])[1]).toEqual([
      "pending",
      "No supplier matched: no routing rule applies; no catalogue product with this EAN or SKU; no active supplier named 'MugSupplier'",
    ]);
    const patched = await call("PATCH", `/api/v1/routing-rules/${rule.id}`, {
      creds,
      body: { conditions: [{ variable: "line.brand", operator: "is", value: "mugs inc" }] },
    });
    expect(patched.status).toBe(200);
    const order = await waitForLineStatus(creds, reference, "ruled");
    expect(order.order_lines[0].logs[2]).toMatchObject({ status: "ruled", message: `Matched to supplier Acme by rule #${rule.id} 'mugs'` });
  });

  it("after an inactive rule is switched on", async () => {
    const creds = await createAccount();
    const s = await createSupplier(creds, { name: "Acme" });
    const rule = await createRule(creds, { name: "off for now", active: false, action: assignTo(s.id) });
    const { reference } = await createOrder(creds);
    expect((await matchNow(creds, reference)).order_lines[0].current_status).toBe("pending");
    expect((await call("PATCH", `/api/v1/routing-rules/${rule.id}`, { creds, body: { active: true } })).status).toBe(200);
    const order = await waitForLineStatus(creds, reference, "ruled");
    expect(logsOf(order.order_lines[0]).at(-1)).toEqual(["ruled", `Matched to supplier Acme by rule #${rule.id} 'off for now'`]);
  });

  it("after a supplier is created (the line's supplier field now names one)", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    await matchNow(creds, reference);
    const s = await createSupplier(creds, { name: "MugSupplier" });
    const order = await waitForLineStatus(creds, reference, "ruled");
    expect(order.order_lines[0].matched_supplier).toEqual({ id: s.id, name: "MugSupplier" });
    expect(logsOf(order.order_lines[0]).at(-1)).toEqual(["ruled", "Matched to supplier MugSupplier by the line's supplier field"]);
  });

  it("after a supplier is updated (given the code the line names)", async () => {
    const creds = await createAccount();
    const s = await createSupplier(creds, { name: "Mug Wholesale BV" });
    const { reference } = await createOrder(creds);
    await matchNow(creds, reference);
    expect((await call("PATCH", `/api/v1/suppliers/${s.id}`, { creds, body: { code: "MUGSUPPLIER" } })).status).toBe(200);
    const order = await waitForLineStatus(creds, reference, "ruled");
    expect(order.order_lines[0].matched_supplier).toEqual({ id: s.id, name: "Mug Wholesale BV" });
  });

  it("lines already matched keep their supplier when rules change", async () => {
    const creds = await createAccount();
    const first = await createSupplier(creds, { name: "First" });
    const second = await createSupplier(creds, { name: "Second" });
    const rule = await createRule(creds, { name: "r", conditions: [{ variable: "line.brand", operator: "is", value: "mugs inc" }], action: assignTo(first.id) });
    const matched = await createOrder(creds);
    const before = await matchNow(creds, matched.reference);
    expect(before.order_lines[0].matched_supplier.name).toBe("First");
    const waiting = await createOrder(creds, { products: [{ ...orderPayload().products[0], brand: "Other" }] });
    await matchNow(creds, waiting.reference);

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
