// What the stock sync writes: each quantity rule and the buffer, a product no offer carries any
// more, prices on and off, and connections that write nothing (stock sync disabled, paused).
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { pushOffers, received, shopStock, STOCK_ON, supplierFeed, syncs, syncsEnded, syncWithProducts, wooShop } from "../helpers/stock";

const WC = "/wp-json/wc/v3";
const KETTLE = [{ id: 71, sku: "KETTLE", regular_price: "30.00" }];

/** Supplier A (priority 5): 3 kettles at 20.00; supplier B (priority 10): 8 at 15.00. */
async function twoSuppliers(creds: Credentials) {
  const a = await supplierFeed(creds, 5);
  const b = await supplierFeed(creds, 10);
  await pushOffers(creds, a.feedId, [{ sku: "KETTLE", stock_quantity: 3, purchase_price: 20 }]);
  await pushOffers(creds, b.feedId, [{ sku: "KETTLE", stock_quantity: 8, purchase_price: 15 }]);
  return { a, b };
}

/** Starts a sync on demand and waits for it to end. */
async function syncNow(creds: Credentials, connectionId: number, count = 1) {
  const res = await call("POST", `/api/v1/shop-connections/${connectionId}/stock-syncs`, { creds });
  expect(res.status).toBe(202);
  return (await syncsEnded(creds, connectionId, count))[0];
}

describe("stock sync: what is written", () => {
  it("each quantity rule and the buffer: sum, max, first by priority, and never below 0", async () => {
    const creds = await createAccount();
    await twoSuppliers(creds);
    const rules = [
      [{ quantity: "sum" }, 11],
      [{ quantity: "max" }, 8],
      [{ quantity: "first_by_priority" }, 3],
      [{ quantity: "sum", buffer: 2 }, 9],
      [{ quantity: "first_by_priority", buffer: 4 }, 0],
    ] as const;
    for (const [rule, expected] of rules) {
      const { shop, connectionId } = await wooShop(creds, KETTLE, { stock_sync: { enabled: true, ...rule } });
      const sync = await syncNow(creds, connectionId);
      expect(sync).toMatchObject({ status: "succeeded", trigger: "manual", full: true, counts: { updated: 1, unchanged: 0, unknown: 0, skipped: 0, failed: 0 } });
      expect(await received(shop)).toEqual([
        ["GET", `${WC}/products?per_page=100&page=1`, null],
        ["POST", `${WC}/products/batch`, { update: [{ id: 71, manage_stock: true, stock_quantity: expected }] }],
      ]);
    }
  });

  it("a product no active offer carries: written as 0 (without_offer zero), or left as the shop has it (leave)", async () => {
    const creds = await createAccount();
    const { feedId } = await supplierFeed(creds);
    await pushOffers(creds, feedId, [{ sku: "KETTLE", stock_quantity: 6 }]);
    const zero = await wooShop(creds, KETTLE, { stock_sync: { enabled: true, without_offer: "zero" } });
    const leave = await wooShop(creds, KETTLE, { stock_sync: { enabled: true, without_offer: "leave" } });
    await syncNow(creds, zero.connectionId);
    await syncNow(creds, leave.connectionId);
    // The supplier stops offering it: the import queues a sync of both connections.
    await pushOffers(creds, feedId, [{ sku: "KETTLE", stock_quantity: 6, active: false }]);
    const [zeroSync] = await syncsEnded(creds, zero.connectionId, 2);
    const [leaveSync] = await syncsEnded(creds, leave.connectionId, 2);
    expect((await received(zero.shop)).slice(-1)).toEqual([["POST", `${WC}/products/batch`, { update: [{ id: 71, manage_stock: true, stock_quantity: 0 }] }]]);
    expect((await shopStock(zero.shop))[71]).toEqual([0, "30.00", true]);
    expect((await received(leave.shop)).map(([m]) => m)).toEqual(["GET", "POST"]);
    expect((await shopStock(leave.shop))[71]).toEqual([6, "30.00", true]);
    expect(zeroSync.counts).toEqual({ updated: 1, unchanged: 0, unknown: 0, skipped: 0, failed: 0 });
    expect((await syncWithProducts(creds, leave.connectionId, leaveSync.id)).products.data).toEqual([
      { key: "KETTLE", outcome: "unchanged", quantity: null, price: null, old_quantity: 6, old_price: null, shop_product_id: "71", reason: "No active offer: the shop's stock is left as it is (without_offer is leave)." },
    ]);
  });

  it("price sync on: the cheapest offer in stock plus the markup, raised to the next .99; off (the default): no price is sent", async () => {
    const creds = await createAccount();
    await twoSuppliers(creds);
    const rounded = await wooShop(creds, KETTLE, { ...STOCK_ON, price_sync: { enabled: true, markup_percent: 25, round_to: 0.99 } });
    const exact = await wooShop(creds, KETTLE, { ...STOCK_ON, price_sync: { enabled: true, markup_percent: 25 } });
    const off = await wooShop(creds, KETTLE, STOCK_ON);
    const sync = await syncNow(creds, rounded.connectionId);
    await syncNow(creds, exact.connectionId);
    await syncNow(creds, off.connectionId);
    // 15.00 (supplier B, in stock and cheapest) + 25% = 18.75.
    expect((await received(rounded.shop))[1]).toEqual(["POST", `${WC}/products/batch`, { update: [{ id: 71, manage_stock: true, stock_quantity: 11, regular_price: "18.99" }] }]);
    expect((await received(exact.shop))[1]).toEqual(["POST", `${WC}/products/batch`, { update: [{ id: 71, manage_stock: true, stock_quantity: 11, regular_price: "18.75" }] }]);
    expect((await received(off.shop))[1]).toEqual(["POST", `${WC}/products/batch`, { update: [{ id: 71, manage_stock: true, stock_quantity: 11 }] }]);
    expect((await shopStock(rounded.shop))[71]).toEqual([11, "18.99", true]);
    expect((await syncWithProducts(creds, rounded.connectionId, sync.id)).products.data).toEqual([
      { key: "KETTLE", outcome: "updated", quantity: 11, price: 18.99, old_quantity: null, old_price: null, shop_product_id: "71", reason: null },
    ]);
  });

  it("a connection with stock sync disabled, or paused, gets no sync and the shop receives nothing; starting one is a 409", async () => {
    const creds = await createAccount();
    const disabled = await wooShop(creds, KETTLE, { stock_sync: { enabled: false } });
    const unset = await wooShop(creds, KETTLE, {});
    const paused = await wooShop(creds, KETTLE, STOCK_ON, { active: false });
    const on = await wooShop(creds, KETTLE, STOCK_ON);
    const { feedId } = await supplierFeed(creds);
    await pushOffers(creds, feedId, [{ sku: "KETTLE", stock_quantity: 4 }]);
    await syncsEnded(creds, on.connectionId);
    expect((await shopStock(on.shop))[71]).toEqual([4, "30.00", true]);
    for (const quiet of [disabled, unset, paused]) {
      expect(await syncs(creds, quiet.connectionId)).toEqual([]);
      expect(await received(quiet.shop)).toEqual([]);
    }
    for (const [quiet, error] of [
      [disabled, "Stock sync is not enabled on this connection (settings.stock_sync.enabled); nothing was written."],
      [unset, "Stock sync is not enabled on this connection (settings.stock_sync.enabled); nothing was written."],
      [paused, "The shop connection is paused; nothing was written."],
    ] as const) {
      const res = await call("POST", `/api/v1/shop-connections/${quiet.connectionId}/stock-syncs`, { creds, body: {} });
      expect([res.status, res.json]).toEqual([409, { message: "Conflict", error }]);
    }
    expect(await received(paused.shop)).toEqual([]);
  });
});
