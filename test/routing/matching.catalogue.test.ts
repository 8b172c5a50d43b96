// Step 2 of matching: the catalogue (products of active feeds of active suppliers), and how the
// steps fall through: rule > catalogue > the line's supplier field > pending with a reason.
import { describe, expect, it } from "vitest";
import { createAccount, createOrder, orderPayload } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { seedFeed, seedProduct, type SeedProduct } from "../helpers/catalogue-seed";
import { assignTo, createRule, createSupplier, logsOf, matchNow } from "../helpers/routing";

const EAN = "0012345678905";
const SKU = "MUG-BLUE";
const CREATED = ["pending", "Order line created"];

/** A supplier with one feed (active unless told) holding the given products. */
async function supplierWithProducts(
  creds: Credentials,
  supplier: { name: string; priority?: number; active?: boolean },
  products: SeedProduct[],
  feed: { active?: boolean } = {},
) {
  const s = await createSupplier(creds, supplier);
  const f = await seedFeed(creds.accountId, s.id, feed);
  const ids: number[] = [];
  for (const p of products) ids.push((await seedProduct(creds.accountId, f.id, p)).id);
  return { ...s, feedId: f.id, productIds: ids };
}

/** The default line: EAN 0012345678905, reference MUG-BLUE, quantity 2, supplier field "MugSupplier". */
async function orderAndMatch(creds: Credentials, line: Record<string, unknown> = {}) {
  const { reference } = await createOrder(creds, { products: [{ ...orderPayload().products[0], ...line }] });
  const order = await matchNow(creds, reference);
  return order.order_lines[0];
}

describe.concurrent("catalogue lookup", () => {
  it("matches a product with the same EAN-13 and logs which product decided", async () => {
    const creds = await createAccount();
    const s = await supplierWithProducts(creds, { name: "Ean Co" }, [{ ean13: EAN, sku: "OTHER", purchasePrice: 5, stockQuantity: 10 }]);
    const line = await orderAndMatch(creds);
    expect(line.current_status).toBe("ruled");
    expect(line.matched_supplier).toEqual({ id: s.id, name: "Ean Co" });
    expect(logsOf(line)).toEqual([
      CREATED,
      ["ruled", `Matched to supplier Ean Co by catalogue product #${s.productIds[0]} (EAN ${EAN}, purchase price 5)`],
    ]);
  });

  it("falls back to a product whose SKU equals the line's reference", async () => {
    const creds = await createAccount();
    const s = await supplierWithProducts(creds, { name: "Sku Co" }, [{ ean13: "9999999999999", sku: SKU, purchasePrice: 4.5 }]);
    const line = await orderAndMatch(creds);
    expect(logsOf(line)).toEqual([
      CREATED,
      ["ruled", `Matched to supplier Sku Co by catalogue product #${s.productIds[0]} (SKU ${SKU}, purchase price 4.5)`],
    ]);
  });

  it("prefers an EAN match over a cheaper SKU match", async () => {
    const creds = await createAccount();
    const byEan = await supplierWithProducts(creds, { name: "By EAN" }, [{ ean13: EAN, purchasePrice: 9 }]);
    await supplierWithProducts(creds, { name: "By SKU" }, [{ sku: SKU, purchasePrice: 1 }]);
    const line = await orderAndMatch(creds);
    expect(line.matched_supplier).toEqual({ id: byEan.id, name: "By EAN" });
  });

  it("uses the SKU match when no EAN match is eligible", async () => {
    const creds = await createAccount();
    await supplierWithProducts(creds, { name: "By EAN" }, [{ ean13: EAN, purchasePrice: 1, stockQuantity: 1 }]);
    const bySku = await supplierWithProducts(creds, { name: "By SKU" }, [{ sku: SKU, purchasePrice: 9 }]);
    const line = await orderAndMatch(creds, { quantity: 2 });
    expect(line.matched_supplier).toEqual({ id: bySku.id, name: "By SKU" });
  });

  it("needs enough stock for the quantity; a null stock is not tracked and counts as enough", async () => {
    const creds = await createAccount();
    await supplierWithProducts(creds, { name: "Two" }, [{ ean13: EAN, purchasePrice: 1, stockQuantity: 2 }]);
    await supplierWithProducts(creds, { name: "Three" }, [{ ean13: EAN, purchasePrice: 2, stockQuantity: 3 }]);
    const untracked = await supplierWithProducts(creds, { name: "Untracked" }, [{ ean13: EAN, purchasePrice: 3, stockQuantity: null }]);
    expect((await orderAndMatch(creds, { quantity: 2 })).matched_supplier.name).toBe("Two");
    expect((await orderAndMatch(creds, { quantity: 3 })).matched_supplier.name).toBe("Three");
    expect((await orderAndMatch(creds, { quantity: 4 })).matched_supplier).toEqual({ id: untracked.id, name: "Untracked" });
  });

  it("picks the cheapest eligible product; an unknown purchase price comes last", async () => {
    const creds = await createAccount();
    await supplierWithProducts(creds, { name: "Unknown price" }, [{ ean13: EAN, purchasePrice: null }]);
    await supplierWithProducts(creds, { name: "Dear" }, [{ ean13: EAN, purchasePrice: 7.5 }]);
    const cheap = await supplierWithProducts(creds, { name: "Cheap" }, [{ ean13: EAN, purchasePrice: 6.25 }]);
    const line = await orderAndMatch(creds);
    expect(logsOf(line)[1]).toEqual(["ruled", `Matched to supplier Cheap by catalogue product #${cheap.productIds[0]} (EAN ${EAN}, purchase price 6.25)`]);

    const creds2 = await createAccount();
    const unknown = await supplierWithProducts(creds2, { name: "Only unknown" }, [{ ean13: EAN, purchasePrice: null }]);
    expect(logsOf(await orderAndMatch(creds2))[1]).toEqual([
      "ruled",
      `Matched to supplier Only unknown by catalogue product #${unknown.productIds[0]} (EAN ${EAN}, purchase price unknown)`,
    ]);
  });

  it("breaks price ties by supplier priority (lower first), then by supplier id", async () => {
    const creds = await createAccount();
    await supplierWithProducts(creds, { name: "Prio 50", priority: 50 }, [{ ean13: EAN, purchasePrice: 5 }]);
    const prio10 = await supplierWithProducts(creds, { name: "Prio 10", priority: 10 }, [{ ean13: EAN, purchasePrice: 5 }]);
    expect((await orderAndMatch(creds)).matched_supplier).toEqual({ id: prio10.id, name: "Prio 10" });

    const creds2 = await createAccount();
    const older = await supplierWithProducts(creds2, { name: "Older", priority: 10 }, [{ ean13: EAN, purchasePrice: 5 }]);
    await supplierWithProducts(creds2, { name: "Newer", priority: 10 }, [{ ean13: EAN, purchasePrice: 5 }]);
    expect((await orderAndMatch(creds2)).matched_supplier).toEqual({ id: older.id, name: "Older" });
  });

  it("ignores inactive products, inactive feeds and inactive suppliers", async () => {
    const creds = await createAccount();
    await supplierWithProducts(creds, { name: "Inactive product" }, [{ ean13: EAN, purchasePrice: 1, active: false }]);
    await supplierWithProducts(creds, { name: "Inactive feed" }, [{ ean13: EAN, purchasePrice: 1 }], { active: false });
    await supplierWithProducts(creds, { name: "Inactive supplier", active: false }, [{ ean13: EAN, purchasePrice: 1 }]);
    const active = await supplierWithProducts(creds, { name: "Active" }, [{ ean13: EAN, purchasePrice: 100 }]);
    expect((await orderAndMatch(creds)).matched_supplier).toEqual({ id: active.id, name: "Active" });
  });

  it("a supplier deactivated after its products were loaded is no longer matched", async () => {
    const creds = await createAccount();
    const cheap = await supplierWithProducts(creds, { name: "Cheap" }, [{ ean13: EAN, purchasePrice: 1 }]);
    await supplierWithProducts(creds, { name: "Dear" }, [{ ean13: EAN, purchasePrice: 2 }]);
    expect((await call("PATCH", `/api/v1/suppliers/${cheap.id}`, { creds, body: { active: false } })).status).toBe(200);
    expect((await orderAndMatch(creds)).matched_supplier.name).toBe("Dear");
  });
});

describe.concurrent("the order of the steps", () => {
  it("a rule beats the catalogue", async () => {
    const creds = await createAccount();
    await supplierWithProducts(creds, { name: "Catalogue" }, [{ ean13: EAN, purchasePrice: 1 }]);
    const byRule = await createSupplier(creds, { name: "By rule" });
    await createRule(creds, { action: assignTo(byRule.id) });
    expect((await orderAndMatch(creds)).matched_supplier.name).toBe("By rule");
  });

  it("the catalogue beats the line's supplier field", async () => {
    const creds = await createAccount();
    await createSupplier(creds, { name: "MugSupplier" });
    await supplierWithProducts(creds, { name: "Catalogue" }, [{ ean13: EAN, purchasePrice: 1 }]);
    expect((await orderAndMatch(creds)).matched_supplier.name).toBe("Catalogue");
  });

  it("without rule or catalogue product: the supplier whose name or code equals the line's supplier field, case-insensitively", async () => {
    const creds = await createAccount();
    const byName = await createSupplier(creds, { name: "MugSupplier" });
    const line = await orderAndMatch(creds, { supplier: "mugsupplier" });
    expect(line.matched_supplier).toEqual({ id: byName.id, name: "MugSupplier" });
    expect(logsOf(line)).toEqual([CREATED, ["ruled", "Matched to supplier MugSupplier by the line's supplier field"]]);

    const byCode = await createSupplier(creds, { name: "Acme Wholesale", code: "ACME" });
    const line2 = await orderAndMatch(creds, { supplier: "acme" });
    expect(line2.matched_supplier).toEqual({ id: byCode.id, name: "Acme Wholesale" });
  });

  it("an inactive supplier is not matched by the supplier field", async () => {
    const creds = await createAccount();
    await createSupplier(creds, { name: "MugSupplier", active: false });
    const line = await orderAndMatch(creds);
    expect(line.current_status).toBe("pending");
    expect(line.matched_supplier).toBeNull();
  });

  it("nothing matches: the line stays pending with a log entry saying why, written once", async () => {
    const creds = await createAccount();
    const line = await orderAndMatch(creds);
    expect(line.current_status).toBe("pending");
    expect(line.matched_supplier).toBeNull();
    const why = "No supplier matched: no routing rules; no catalogue product with this EAN or SKU; no active supplier named 'MugSupplier'";
    expect(logsOf(line)).toEqual([CREATED, ["pending", why]]);

    // Asking again (and the queue's own run) does not repeat it.
    const { reference } = await createOrder(creds, { products: [{ ...orderPayload().products[0], supplier: null }] });
    await matchNow(creds, reference);
    await matchNow(creds, reference);
    const order = await matchNow(creds, reference);
    expect(logsOf(order.order_lines[0])).toEqual([
      CREATED,
      ["pending", "No supplier matched: no routing rules; no catalogue product with this EAN or SKU; no supplier named on the line"],
    ]);
  });

  it("the reason names rules that did not apply and catalogue products that were not eligible", async () => {
    const creds = await createAccount();
    const s = await createSupplier(creds, { name: "Rule target" });
    await createRule(creds, { conditions: [{ variable: "line.brand", operator: "is", value: "nope" }], action: assignTo(s.id) });
    await supplierWithProducts(creds, { name: "No stock" }, [{ ean13: EAN, purchasePrice: 1, stockQuantity: 0 }]);
    const line = await orderAndMatch(creds);
    expect(logsOf(line)).toEqual([
      CREATED,
      ["pending", "No supplier matched: no routing rule applies; no eligible catalogue product (see explain); no active supplier named 'MugSupplier'"],
    ]);
  });
});
