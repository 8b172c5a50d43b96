// POST /api/v1/routing-rules/explain: per line, which rule or catalogue product would match and
// why the others would not; writes nothing.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { createAccount, createOrder, orderPayload } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { seedFeed, seedProduct } from "../helpers/catalogue-seed";
import { assignTo, createRule, createSupplier, getOrder, logRows, logsOf, matchNow } from "../helpers/routing";

const EAN = "0012345678905";
const explain = (creds: Credentials, body: unknown) => call("POST", "/api/v1/routing-rules/explain", { creds, body });
const byProductId = (a: { product_id: number }, b: { product_id: number }) => a.product_id - b.product_id;

async function ordersRowCount(accountId: number) {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM orders WHERE account_id = ?").bind(accountId).first<{ n: number }>();
  return row!.n;
}

describe.concurrent("explain an order payload", () => {
  it("answers the decision, every rule with per-condition results, every catalogue candidate with its reason, and the supplier field", async () => {
    const creds = await createAccount();
    const target = await createSupplier(creds, { name: "Rule target" });
    const named = await createSupplier(creds, { name: "MugSupplier" });
    const seeded = async (name: string, p: Parameters<typeof seedProduct>[2], active = true) => {
      const s = await createSupplier(creds, { name, active });
      const feed = await seedFeed(creds.accountId, s.id);
      return { supplier: s, productId: (await seedProduct(creds.accountId, feed.id, { ...p, sku: p?.sku ?? `${name}-sku` })).id };
    };
    const cheap = await seeded("Cheap", { ean13: EAN, purchasePrice: 3, stockQuantity: 1 });
    const dear = await seeded("Dear", { ean13: EAN, purchasePrice: 8, stockQuantity: 50 });
    const off = await seeded("Off", { ean13: EAN, purchasePrice: 1 }, false);
    const pricey = await seeded("Pricey", { ean13: EAN, purchasePrice: 9, stockQuantity: null });
    const bySku = await seeded("Sku Co", { ean13: null, sku: "MUG-BLUE", purchasePrice: 0.5 });

    const gift = await createRule(creds, { name: "gift", conditions: [{ variable: "line.name", operator: "contains", value: "gift" }], action: { type: "skip" } });
    const toInactive = await createRule(creds, { name: "to inactive", conditions: [{ variable: "line.brand", operator: "is", value: "mugs inc" }], action: assignTo(target.id) });
    const wrongBrand = await createRule(creds, { name: "wrong brand", match: "any", conditions: [{ variable: "line.brand", operator: "is", value: "other" }], action: { type: "block" } });
    expect((await call("DELETE", `/api/v1/suppliers/${target.id}`, { creds })).status).toBe(200);

    const base = orderPayload().products[0];
    const payload = orderPayload({ products: [base, { ...base, external_id: "wrap", name: "Gift wrap", ean13: null, reference: null, supplier: null }] });
    const res = await explain(creds, { order: payload });
    expect(res.status).toBe(200);
    const [mug, wrap] = res.json.lines;
    mug.catalogue.sort(byProductId);

    expect(res.json).toMatchObject({ reference: null, blocked: false, outcome: "would_route" });
    expect(mug).toEqual({
      position: 0,
      line_id: null,
      external_id: "sku-1",
      current_status: null,
      decision: {
        action: "assign_supplier",
        decided_by: "catalogue",
        supplier: { id: dear.supplier.id, name: "Dear" },
        rule_id: null,
        product_id: dear.productId,
        message: `Matched to supplier Dear by catalogue product #${dear.productId} (EAN ${EAN}, purchase price 8)`,
      },
      manual_decision: null,
      rules: [
        {
          id: gift.id,
          name: "gift",
          priority: 10,
          matched: false,
          conditions: [{ variable: "line.name", operator: "contains", value: "gift", actual: "Blue mug", result: false }],
        },
        {
          id: toInactive.id,
          name: "to inactive",
          priority: 20,
          matched: false,
          note: "conditions hold, but its supplier is inactive or gone",
          conditions: [{ variable: "line.brand", operator: "is", value: "mugs inc", actual: "Mugs Inc", result: true }],
        },
        {
          id: wrongBrand.id,
          name: "wrong brand",
          priority: 30,
          matched: false,
          conditions: [{ variable: "line.brand", operator: "is", value: "other", actual: "Mugs Inc", result: false }],
        },
      ],
      catalogue: [
        {
          product_id: cheap.productId,
          sku: "Cheap-sku",
          ean13: EAN,
          matched_on: "ean13",
          supplier: { id: cheap.supplier.id, name: "Cheap" },
          purchase_price: 3,
          stock_quantity: 1,
          eligible: false,
          reason: "not enough stock (1 < 2)",
        },
        {
          product_id: dear.productId,
          sku: "Dear-sku",
          ean13: EAN,
          matched_on: "ean13",
          supplier: { id: dear.supplier.id, name: "Dear" },
          purchase_price: 8,
          stock_quantity: 50,
          eligible: true,
          reason: null,
        },
        {
          product_id: off.productId,
          sku: "Off-sku",
          ean13: EAN,
          matched_on: "ean13",
          supplier: { id: off.supplier.id, name: "Off" },
          purchase_price: 1,
          stock_quantity: null,
          eligible: false,
          reason: "supplier inactive",
        },
        {
          product_id: pricey.productId,
          sku: "Pricey-sku",
          ean13: EAN,
          matched_on: "ean13",
          supplier: { id: pricey.supplier.id, name: "Pricey" },
          purchase_price: 9,
          stock_quantity: null,
          eligible: true,
          reason: null,
          note: `dearer than product #${dear.productId}`,
        },
        {
          product_id: bySku.productId,
          sku: "MUG-BLUE",
          ean13: null,
          matched_on: "sku",
          supplier: { id: bySku.supplier.id, name: "Sku Co" },
          purchase_price: 0.5,
          stock_quantity: null,
          eligible: true,
          reason: null,
          note: `an EAN match comes first (product #${dear.productId})`,
        },
      ],
      supplier_field: { value: "MugSupplier", supplier: { id: named.id, name: "MugSupplier" } },
      // An order not yet placed was never re-routed: its first supplier, of the account's default cap.
      reroute: { enabled: true, attempt: 1, max_attempts: 3, split_from_line_id: null, chain: [] },
    });

    expect(wrap).toMatchObject({
      position: 1,
      external_id: "wrap",
      decision: { action: "skip", decided_by: "rule", supplier: null, rule_id: gift.id, product_id: null, message: `Skipped by rule #${gift.id} 'gift'` },
      catalogue: [],
      supplier_field: { value: null, supplier: null },
    });
    expect(wrap.rules.map((r: { matched: boolean }) => r.matched)).toEqual([true, false, false]);

    // Nothing was written: no order, no log.
    expect(await ordersRowCount(creds.accountId)).toBe(0);
    const list = await call("GET", "/api/v1/orders?include_test=true", { creds });
    expect(list.json.meta.total).toBe(0);
  });

  it("says why a rule that holds did not decide, and why catalogue candidates lost to a rule or on price ties", async () => {
    const creds = await createAccount();
    const a = await createSupplier(creds, { name: "A", priority: 1 });
    const b = await createSupplier(creds, { name: "B", priority: 2 });
    const feedA = await seedFeed(creds.accountId, a.id);
    const feedB = await seedFeed(creds.accountId, b.id);
    const pa = await seedProduct(creds.accountId, feedA.id, { ean13: EAN, purchasePrice: 5 });
    const pb = await seedProduct(creds.accountId, feedB.id, { ean13: EAN, purchasePrice: 5 });

    const tie = await explain(creds, { order: orderPayload() });
    expect(tie.json.lines[0].decision.product_id).toBe(pa.id);
    const loser = tie.json.lines[0].catalogue.find((c: { product_id: number }) => c.product_id === pb.id);
    expect(loser).toMatchObject({ eligible: true, reason: null, note: `same price as product #${pa.id}, whose supplier comes first` });

    const first = await createRule(creds, { name: "first", action: assignTo(b.id) });
    const second = await createRule(creds, { name: "second", action: assignTo(a.id) });
    const res = await explain(creds, { order: orderPayload() });
    const line = res.json.lines[0];
    expect(line.decision).toMatchObject({ decided_by: "rule", rule_id: first.id, supplier: { id: b.id, name: "B" } });
    expect(line.rules).toEqual([
      { id: first.id, name: "first", priority: 10, matched: true, conditions: [] },
      { id: second.id, name: "second", priority: 20, matched: false, note: `conditions hold, but rule #${first.id} decided first`, conditions: [] },
    ]);
    expect(line.catalogue.sort(byProductId).map((c: { note?: string }) => c.note)).toEqual([
      `rule #${first.id} decided first`,
      `rule #${first.id} decided first`,
    ]);
  });

  it("announces a block", async () => {
    const creds = await createAccount();
    const rule = await createRule(creds, { name: "no NL", conditions: [{ variable: "order.shipping_address.country", operator: "is", value: "NL" }], action: { type: "block" } });
    const res = await explain(creds, { order: orderPayload() });
    expect(res.status).toBe(200);
    expect(res.json.outcome).toBe("would_block");
    expect(res.json.lines[0].decision).toEqual({
      action: "block",
      decided_by: "rule",
      supplier: null,
      rule_id: rule.id,
      product_id: null,
      message: `Order blocked by rule #${rule.id} 'no NL'`,
    });
  });

  it("validates the order payload like POST /orders", async () => {
    const creds = await createAccount();
    const payload = orderPayload();
    const res = await explain(creds, { order: { ...payload, total: "lots", products: [{ ...payload.products[0], external_id: "" }] } });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: "Errors",
      errors: {
        "order.total": ["The order.total field must be a number."],
        "order.products.0.external_id": ["The order.products.0.external_id field is required."],
      },
    });
    const empty = await explain(creds, {});
    expect(empty.status).toBe(422);
    expect(empty.json).toEqual({ message: "Errors", errors: { reference: ["The reference field is required when order is not present."] } });
  });
});

/** Everything stored about an order: its row, its lines and its logs. */
async function snapshot(reference: string) {
  const order = await env.DB.prepare("SELECT * FROM orders WHERE reference = ?").bind(reference).first();
  const lines = await env.DB.prepare("SELECT l.* FROM order_lines l JOIN orders o ON o.id = l.order_id WHERE o.reference = ? ORDER BY l.id")
    .bind(reference)
    .all();
  return { order, lines: lines.results, logs: await logRows(reference) };
}

describe.concurrent("explain a stored order by reference", () => {
  it("explains what matching would do now and writes nothing (no log, status or timestamp changes)", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    await matchNow(creds, reference); // pending, with its note; the queue's own run can change nothing more
    // Blocked by hand, so the re-match queued by the changes below leaves it alone.
    expect((await call("POST", `/api/v1/orders/${reference}/block`, { creds })).status).toBe(200);
    const s = await createSupplier(creds, { name: "Rule target" });
    const rule = await createRule(creds, { name: "mugs", conditions: [{ variable: "line.brand", operator: "is", value: "mugs inc" }], action: assignTo(s.id) });

    const before = await snapshot(reference);
    const res = await explain(creds, { reference });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ reference, blocked: true, outcome: "already_blocked" });
    expect(res.json.lines[0]).toMatchObject({
      position: 0,
      external_id: "sku-1",
      current_status: "pending",
      decision: {
        action: "assign_supplier",
        decided_by: "rule",
        rule_id: rule.id,
        supplier: { id: s.id, name: "Rule target" },
        message: `Matched to supplier Rule target by rule #${rule.id} 'mugs'`,
      },
    });
    expect(await snapshot(reference)).toEqual(before);
    expect(logsOf((await getOrder(creds, reference)).order_lines[0]).map(([status]) => status)).toEqual(["pending", "pending", "pending"]);
  });

  it("explains a pending order that nothing matches and writes nothing", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    await matchNow(creds, reference);
    const before = await snapshot(reference);
    const res = await explain(creds, { reference });
    expect(res.json).toMatchObject({ reference, blocked: false, outcome: "would_route" });
    expect(res.json.lines[0].decision).toEqual({
      action: "none",
      decided_by: null,
      supplier: null,
      rule_id: null,
      product_id: null,
      message: "No supplier matched: no routing rules; no catalogue product with this EAN or SKU; no active supplier named 'MugSupplier'",
    });
    expect(await snapshot(reference)).toEqual(before);
  });

  it("answers 404 for an unknown reference and for another account's order", async () => {
    const creds = await createAccount();
    const other = await createOrder(await createAccount());
    for (const reference of ["1234567890123456", other.reference]) {
      const res = await explain(creds, { reference });
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ message: "Not Found", error: `Order with reference '${reference}' not found` });
    }
  });
});
