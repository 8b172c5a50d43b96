// The stock sync's guards and settings changes, against the stand-in WooCommerce shop: settings.
// sync_guards validated (each limit at its maximum and one past); a price under the minimum price
// or margin not written (skipped, saying why); a price drop past max_drop_percent, or more changed
// products than max_changed_percent, stopping the sync before any write until it is confirmed (or
// discarded); the old → new values of each product; a full sync queued by a settings change that
// reaches every product; and the preview of the next sync, which writes nothing.
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { pushOffers, received, type Offer, shopStock, STOCK_ON, supplierFeed, syncs, syncsEnded, syncWithProducts, wooShop } from "../helpers/stock";
import { waitFor } from "../helpers/wait";
import { storedConnections, WOO_BODY } from "./support";

const WC = "/wp-json/wc/v3";
/** The issue's shop: prices 12.50, 30.00 and 99.00; the suppliers' purchase prices 5.95, 20.95 and 55.95. */
const SHOP = [
  { id: 11, sku: "A", stock_quantity: 1, manage_stock: true, regular_price: "12.50" },
  { id: 12, sku: "B", stock_quantity: 1, manage_stock: true, regular_price: "30.00" },
  { id: 13, sku: "C", stock_quantity: 1, manage_stock: true, regular_price: "99.00" },
];
const OFFERS = [
  { sku: "A", stock_quantity: 5, purchase_price: 5.95 },
  { sku: "B", stock_quantity: 6, purchase_price: 20.95 },
  { sku: "C", stock_quantity: 7, purchase_price: 55.95 },
];
const PRICES_ON = { price_sync: { enabled: true } };

/** A connection to a fresh shop of SHOP with these settings; the supplier's feed then pushes OFFERS (which queues a sync). */
async function importedInto(settings: Record<string, unknown>, offers: Offer[] = OFFERS, products: typeof SHOP = SHOP) {
  const creds = await createAccount();
  const { shop, connectionId } = await wooShop(creds, products, { ...STOCK_ON, ...settings });
  const { feedId } = await supplierFeed(creds);
  await pushOffers(creds, feedId, offers);
  return { creds, shop, connectionId, feedId };
}

/** Waits until the connection's newest sync is in this state. */
async function newestIs(creds: Credentials, connectionId: number, status: string) {
  return waitFor(async () => {
    const [newest] = await syncs(creds, connectionId);
    return newest?.status === status ? newest : null;
  });
}

const writesIn = async (shop: Parameters<typeof received>[0]) => (await received(shop)).filter(([method]) => method !== "GET");

describe("stock sync: guards", () => {
  it("settings.sync_guards: each limit at its maximum and one past, at most two decimals, unknown fields named; nothing stored", async () => {
    const creds = await createAccount();
    const cases: [Record<string, unknown>, Record<string, string[]> | null][] = [
      [{ min_price: 1_000_000, min_margin_percent: 1000, max_drop_percent: 100, max_changed_percent: 100 }, null],
      [{ min_price: 1_000_000.01 }, { "settings.sync_guards.min_price": ["The settings.sync_guards.min_price field must not be greater than 1000000."] }],
      [{ min_margin_percent: 1000.01 }, { "settings.sync_guards.min_margin_percent": ["The settings.sync_guards.min_margin_percent field must not be greater than 1000."] }],
      [{ max_drop_percent: 100.01 }, { "settings.sync_guards.max_drop_percent": ["The settings.sync_guards.max_drop_percent field must not be greater than 100."] }],
      [{ max_changed_percent: 100.01 }, { "settings.sync_guards.max_changed_percent": ["The settings.sync_guards.max_changed_percent field must not be greater than 100."] }],
      [{ min_price: -0.01 }, { "settings.sync_guards.min_price": ["The settings.sync_guards.min_price field must be at least 0."] }],
      [{ min_price: 9.995 }, { "settings.sync_guards.min_price": ["The settings.sync_guards.min_price field must have at most 2 decimals."] }],
      [{ max_drop_percent: "10" }, { "settings.sync_guards.max_drop_percent": ["The settings.sync_guards.max_drop_percent field must be a number."] }],
      [
        { max_drop: 10 },
        { "settings.sync_guards.max_drop": ["The settings.sync_guards.max_drop field is not one woocommerce takes; its settings.sync_guards fields are min_price, min_margin_percent, max_drop_percent, max_changed_percent."] },
      ],
    ];
    for (const [guards, errors] of cases) {
      const before = (await storedConnections(creds.accountId)).length;
      const res = await call("POST", "/api/v1/shop-connections", { creds, body: { ...WOO_BODY, settings: { sync_guards: guards } } });
      if (errors === null) expect([res.status, res.json.settings.sync_guards]).toEqual([201, guards]);
      else {
        expect({ guards, status: res.status, json: res.json }).toEqual({ guards, status: 422, json: { message: "Errors", errors } });
        expect(await storedConnections(creds.accountId)).toHaveLength(before);
      }
    }
    const defaults = await call("POST", "/api/v1/shop-connections", { creds, body: { ...WOO_BODY, settings: { sync_guards: {} } } });
    expect(defaults.json.settings.sync_guards).toEqual({ min_price: null, min_margin_percent: null, max_drop_percent: null, max_changed_percent: null });
  });

  it("a minimum price: a product priced at it is written, one a cent under is skipped, saying why, with nothing written for it", async () => {
    const { creds, shop, connectionId } = await importedInto({ ...PRICES_ON, sync_guards: { min_price: 20.95 } }, [
      { sku: "A", stock_quantity: 5, purchase_price: 20.94 },
      { sku: "B", stock_quantity: 6, purchase_price: 20.95 },
    ]);
    const [sync] = await syncsEnded(creds, connectionId);
    expect(sync).toMatchObject({ status: "succeeded", total: 2, done: 2, counts: { updated: 1, unchanged: 0, unknown: 0, skipped: 1, failed: 0 } });
    expect(await writesIn(shop)).toEqual([["POST", `${WC}/products/batch`, { update: [{ id: 12, manage_stock: true, stock_quantity: 6, regular_price: "20.95" }] }]]);
    expect((await shopStock(shop))[11]).toEqual([1, "12.50", true]);
    expect((await syncWithProducts(creds, connectionId, sync.id)).products.data).toEqual([
      { key: "A", outcome: "skipped", old_quantity: null, quantity: 5, old_price: null, price: 20.94, shop_product_id: "11", reason: "The price 20.94 is under the minimum price 20.95: not written." },
      { key: "B", outcome: "updated", old_quantity: null, quantity: 6, old_price: null, price: 20.95, shop_product_id: "12", reason: null },
    ]);
  });

  it("a minimum margin over the purchase price: 25% markup passes a 25% margin, and is skipped under 25.01%", async () => {
    for (const [margin, outcome] of [
      [25, "updated"],
      [25.01, "skipped"],
    ] as const) {
      const { creds, connectionId } = await importedInto({ price_sync: { enabled: true, markup_percent: 25 }, sync_guards: { min_margin_percent: margin } }, [{ sku: "B", stock_quantity: 6, purchase_price: 20 }]);
      const [sync] = await syncsEnded(creds, connectionId);
      const [item] = (await syncWithProducts(creds, connectionId, sync.id)).products.data;
      expect([margin, item.outcome, item.price, item.reason]).toEqual([
        margin,
        outcome,
        25,
        outcome === "updated" ? null : "The price 25.00 is under the purchase price 20.00 plus the minimum margin of 25.01%: not written.",
      ]);
    }
  });

  it("a price drop at max_drop_percent is written; one past it stops the sync before any write, shows old → new, and Confirm writes it", async () => {
    // 12.50 → 5.95 is a drop of exactly 52.4%.
    const atMax = await importedInto({ ...PRICES_ON, sync_guards: { max_drop_percent: 52.4 } });
    const [passed] = await syncsEnded(atMax.creds, atMax.connectionId);
    expect(passed).toMatchObject({ status: "succeeded", guard_reason: null, counts: { updated: 3 } });
    expect((await shopStock(atMax.shop))[11]).toEqual([5, "5.95", true]);

    const { creds, shop, connectionId } = await importedInto({ ...PRICES_ON, sync_guards: { max_drop_percent: 52.39 } });
    const stopped = await newestIs(creds, connectionId, "needs_confirmation");
    expect(stopped).toMatchObject({
      status: "needs_confirmation",
      total: 3,
      done: 0,
      guard_reason: "Stopped before writing: 1 product's price would drop by more than 52.39% (the most: A from 12.50 to 5.95). Confirm to write what it planned, or discard it.",
      confirmed_at: null,
      finished_at: null,
    });
    // The shop was read, never written; the products wait with the shop's values read before.
    expect(await writesIn(shop)).toEqual([]);
    expect(await received(shop)).toContainEqual(["GET", `${WC}/products?include=11%2C12%2C13&per_page=100`, null]);
    expect((await syncWithProducts(creds, connectionId, stopped.id)).products.data).toEqual([
      { key: "A", outcome: "planned", old_quantity: 1, quantity: 5, old_price: 12.5, price: 5.95, shop_product_id: "11", reason: null },
      { key: "B", outcome: "planned", old_quantity: 1, quantity: 6, old_price: 30, price: 20.95, shop_product_id: "12", reason: null },
      { key: "C", outcome: "planned", old_quantity: 1, quantity: 7, old_price: 99, price: 55.95, shop_product_id: "13", reason: null },
    ]);
    // A later import waits behind it: what was planned is never overwritten by a newer sync first.
    const confirmed = await call("POST", `/api/v1/shop-connections/${connectionId}/stock-syncs/${stopped.id}/confirm`, { creds });
    expect([confirmed.status, confirmed.json.id, confirmed.json.confirmed_at]).toEqual([202, stopped.id, expect.any(String)]);
    const [done] = await syncsEnded(creds, connectionId);
    expect(done).toMatchObject({ id: stopped.id, status: "succeeded", total: 3, done: 3, counts: { updated: 3, unchanged: 0, unknown: 0, skipped: 0, failed: 0 } });
    expect(await writesIn(shop)).toEqual([
      [
        "POST",
        `${WC}/products/batch`,
        {
          update: [
            { id: 11, manage_stock: true, stock_quantity: 5, regular_price: "5.95" },
            { id: 12, manage_stock: true, stock_quantity: 6, regular_price: "20.95" },
            { id: 13, manage_stock: true, stock_quantity: 7, regular_price: "55.95" },
          ],
        },
      ],
    ]);
    expect((await syncWithProducts(creds, connectionId, stopped.id)).products.data[0]).toEqual({
      key: "A",
      outcome: "updated",
      old_quantity: 1,
      quantity: 5,
      old_price: 12.5,
      price: 5.95,
      shop_product_id: "11",
      reason: null,
    });
    // Only a sync that waits can be confirmed.
    const again = await call("POST", `/api/v1/shop-connections/${connectionId}/stock-syncs/${stopped.id}/confirm`, { creds });
    expect([again.status, again.json]).toEqual([409, { message: "Conflict", error: "Only a sync that needs confirmation can be confirmed; this one is succeeded." }]);
  });

  it("max_changed_percent: 1 of 4 mapped products changing passes at 25% and stops at 24.99%; Discard writes nothing and the next sync covers it", async () => {
    const four = [...SHOP, { id: 14, sku: "D", stock_quantity: 1, manage_stock: true, regular_price: "1.00" }];
    const one = [{ sku: "A", stock_quantity: 5 }];
    const atMax = await importedInto({ sync_guards: { max_changed_percent: 25 } }, one, four);
    expect((await syncsEnded(atMax.creds, atMax.connectionId))[0]).toMatchObject({ status: "succeeded", counts: { updated: 1 } });

    const { creds, shop, connectionId, feedId } = await importedInto({ sync_guards: { max_changed_percent: 24.99 } }, one, four);
    const stopped = await newestIs(creds, connectionId, "needs_confirmation");
    expect(stopped.guard_reason).toBe("Stopped before writing: 1 of the shop's 4 products would change, more than 24.99%. Confirm to write what it planned, or discard it.");
    // An import meanwhile queues a sync that waits behind the stopped one.
    await pushOffers(creds, feedId, [{ sku: "B", stock_quantity: 2 }]);
    const queued = await waitFor(async () => ((await syncs(creds, connectionId)).length === 2 ? (await syncs(creds, connectionId))[0] : null));
    expect(queued.status).toBe("queued");
    const discarded = await call("POST", `/api/v1/shop-connections/${connectionId}/stock-syncs/${stopped.id}/discard`, { creds });
    expect([discarded.status, discarded.json.status, discarded.json.error]).toEqual([202, "failed", "Discarded: what the guards stopped was not written."]);
    // The next sync covers A again with B; 2 of 4 still stops it.
    const next = await newestIs(creds, connectionId, "needs_confirmation");
    expect([next.id, next.total, next.guard_reason]).toEqual([queued.id, 2, "Stopped before writing: 2 of the shop's 4 products would change, more than 24.99%. Confirm to write what it planned, or discard it."]);
    expect(await writesIn(shop)).toEqual([]);
  });
});

describe("stock sync: a change of settings", () => {
  it("turning price sync on queues a full sync by itself that writes every product's price; a change that reaches no product queues none", async () => {
    const { creds, shop, connectionId } = await importedInto({});
    await syncsEnded(creds, connectionId);
    // The "0 of 0": nothing changed in the catalogue, so a plain sync has nothing to write.
    const renamed = await call("PATCH", `/api/v1/shop-connections/${connectionId}`, { creds, body: { name: "Renamed", settings: { stock_sync: { enabled: true } } } });
    expect(renamed.status).toBe(200);
    const on = await call("PATCH", `/api/v1/shop-connections/${connectionId}`, { creds, body: { settings: { price_sync: { enabled: true, markup_percent: 100 } } } });
    expect(on.status).toBe(200);
    const [full, first] = await syncsEnded(creds, connectionId, 2);
    expect(first.trigger).toBe("import");
    expect(full).toMatchObject({ trigger: "settings", full: true, status: "succeeded", total: 3, counts: { updated: 3, unchanged: 0, unknown: 0, skipped: 0, failed: 0 } });
    expect(await shopStock(shop)).toEqual({ 11: [5, "11.90", true], 12: [6, "41.90", true], 13: [7, "111.90", true] });
    // A full sync lists the shop's products again, forgetting the last values written: the old ones are not known (docs/shops-stock.md).
    expect((await syncWithProducts(creds, connectionId, full.id)).products.data[0]).toEqual({
      key: "A",
      outcome: "updated",
      old_quantity: null,
      quantity: 5,
      old_price: null,
      price: 11.9,
      shop_product_id: "11",
      reason: null,
    });
    // Turning it off again reaches no product: no sync.
    await call("PATCH", `/api/v1/shop-connections/${connectionId}`, { creds, body: { settings: { price_sync: { enabled: false } } } });
    expect(await syncs(creds, connectionId)).toHaveLength(2);
  });
});

describe("stock sync: the preview", () => {
  it("shows what the next sync would write under unsaved settings, old values read from the shop, the guards' verdict; writes and stores nothing", async () => {
    const { creds, shop, connectionId } = await importedInto({});
    await syncsEnded(creds, connectionId);
    const sent = (await received(shop)).length;
    const res = await call("POST", `/api/v1/shop-connections/${connectionId}/stock-syncs/preview`, {
      creds,
      body: { settings: { price_sync: { enabled: true }, sync_guards: { max_drop_percent: 40, min_price: 10 } } },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      full: true,
      total: 3,
      old_values_from: "shop",
      read_error: null,
      products: [
        { key: "A", shop_product_id: "11", outcome: "skipped", old_quantity: 5, quantity: 5, old_price: 12.5, price: 5.95, price_drop_too_far: false, reason: "The price 5.95 is under the minimum price 10.00: not written." },
        { key: "B", shop_product_id: "12", outcome: "write", old_quantity: 6, quantity: 6, old_price: 30, price: 20.95, price_drop_too_far: false, reason: null },
        { key: "C", shop_product_id: "13", outcome: "write", old_quantity: 7, quantity: 7, old_price: 99, price: 55.95, price_drop_too_far: true, reason: null },
      ],
      guards: { price_drops_too_far: 1, changed: 2, mapped: 3, would_stop: true },
    });
    // One read of the shop, no write; the settings are as they were, and no sync was queued.
    expect((await received(shop)).slice(sent)).toEqual([["GET", `${WC}/products?include=11%2C12%2C13&per_page=100`, null]]);
    expect((await call("GET", `/api/v1/shop-connections/${connectionId}`, { creds })).json.settings.price_sync).toBeUndefined();
    expect(await syncs(creds, connectionId)).toHaveLength(1);
    // Under the stored settings: nothing changed since the last sync.
    const plain = await call("POST", `/api/v1/shop-connections/${connectionId}/stock-syncs/preview`, { creds });
    expect([plain.status, plain.json.full, plain.json.total, plain.json.products]).toEqual([200, false, 0, []]);
    const bad = await call("POST", `/api/v1/shop-connections/${connectionId}/stock-syncs/preview`, { creds, body: { settings: { price_sync: { markup_percent: 1000.01 } } } });
    expect([bad.status, bad.json]).toEqual([422, { message: "Errors", errors: { "settings.price_sync.markup_percent": ["The settings.price_sync.markup_percent field must not be greater than 1000."] } }]);
  });
});
