// The stock-sync API's edges: settings.stock_sync and price_sync validated in our 422 shape (each
// limit at its maximum and one past), another account's connection and an unknown sync not found,
// starting a full sync on demand (joining the one already waiting), and the pages of a sync's products.
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { call } from "../helpers/http";
import { pushOffers, STOCK_ON, supplierFeed, syncs, syncsEnded, wooShop } from "../helpers/stock";
import { storedConnections, WOO_BODY } from "./support";

describe("stock sync: the API", () => {
  it("settings.stock_sync and settings.price_sync: every bad field named, limits at their maximum and one past, nothing stored", async () => {
    const creds = await createAccount();
    const cases: [Record<string, unknown>, Record<string, string[]> | null][] = [
      [{ stock_sync: { buffer: 1_000_000 } }, null],
      [{ stock_sync: { buffer: 1_000_001 } }, { "settings.stock_sync.buffer": ["The settings.stock_sync.buffer field must not be greater than 1000000."] }],
      [{ stock_sync: { buffer: -1 } }, { "settings.stock_sync.buffer": ["The settings.stock_sync.buffer field must be at least 0."] }],
      [{ stock_sync: { buffer: 1.5 } }, { "settings.stock_sync.buffer": ["The settings.stock_sync.buffer field must be an integer."] }],
      [
        { stock_sync: { match_by: "gtin", quantity: "min", without_offer: "keep" } },
        {
          "settings.stock_sync.match_by": ["The selected settings.stock_sync.match_by is invalid. Allowed values: sku, ean13."],
          "settings.stock_sync.quantity": ["The selected settings.stock_sync.quantity is invalid. Allowed values: sum, max, first_by_priority."],
          "settings.stock_sync.without_offer": ["The selected settings.stock_sync.without_offer is invalid. Allowed values: zero, leave."],
        },
      ],
      [
        { stock_sync: { enabled: true, margin: 2 } },
        { "settings.stock_sync.margin": ["The settings.stock_sync.margin field is not one woocommerce takes; its settings.stock_sync fields are enabled, match_by, quantity, buffer, without_offer."] },
      ],
      [{ stock_sync: "on" }, { "settings.stock_sync": ["The settings.stock_sync field must be an object."] }],
      [{ price_sync: { enabled: true, markup_percent: 1000, round_to: 0.99 } }, null],
      [{ price_sync: { markup_percent: 1000.01 } }, { "settings.price_sync.markup_percent": ["The settings.price_sync.markup_percent field must not be greater than 1000."] }],
      [{ price_sync: { round_to: 1 } }, { "settings.price_sync.round_to": ["The settings.price_sync.round_to field must not be greater than 0.99."] }],
      [{ price_sync: { round_to: 0.505 } }, { "settings.price_sync.round_to": ["The settings.price_sync.round_to field must have at most 2 decimals."] }],
    ];
    for (const [settings, errors] of cases) {
      const before = (await storedConnections(creds.accountId)).length;
      const res = await call("POST", "/api/v1/shop-connections", { creds, body: { ...WOO_BODY, settings } });
      if (errors === null) {
        expect([res.status, res.json.settings]).toEqual([201, expect.objectContaining(settings.stock_sync ? { stock_sync: expect.objectContaining(settings.stock_sync) } : { price_sync: settings.price_sync })]);
      } else {
        expect({ settings, status: res.status, json: res.json }).toEqual({ settings, status: 422, json: { message: "Errors", errors } });
        expect(await storedConnections(creds.accountId)).toHaveLength(before);
      }
    }
  });

  it("the defaults: stock_sync given as {enabled: true} reads back with every field; price_sync off unless given", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/shop-connections", { creds, body: { ...WOO_BODY, settings: STOCK_ON } });
    expect(res.json.settings).toEqual({
      mode: "live",
      complete_status: "completed",
      tracking: "auto",
      stock_sync: { enabled: true, match_by: "sku", quantity: "sum", buffer: 0, without_offer: "zero" },
    });
  });

  it("another account's connection, and a sync of another connection, are not found", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const { connectionId } = await wooShop(owner, [{ id: 1, sku: "A" }], STOCK_ON);
    const mine = await wooShop(other, [{ id: 1, sku: "A" }], STOCK_ON);
    const notFound = { message: "Not Found", error: `Shop connection with id '${connectionId}' not found` };
    for (const [method, path] of [
      ["GET", `/api/v1/shop-connections/${connectionId}/stock-syncs`],
      ["POST", `/api/v1/shop-connections/${connectionId}/stock-syncs`],
      ["GET", `/api/v1/shop-connections/${connectionId}/stock-syncs/1`],
    ]) {
      const res = await call(method, path, { creds: other });
      expect([method, path, res.status, res.json]).toEqual([method, path, 404, notFound]);
    }
    const started = await call("POST", `/api/v1/shop-connections/${connectionId}/stock-syncs`, { creds: owner });
    const res = await call("GET", `/api/v1/shop-connections/${mine.connectionId}/stock-syncs/${started.json.id}`, { creds: other });
    expect([res.status, res.json]).toEqual([404, { message: "Not Found", error: `Stock sync with id '${started.json.id}' not found` }]);
    await syncsEnded(owner, connectionId);
  });

  it("on demand: 202 with the queued sync, full when asked, a plain one after it with nothing to do; its products paged by key", async () => {
    const creds = await createAccount();
    const { feedId } = await supplierFeed(creds);
    await pushOffers(creds, feedId, [{ sku: "A", stock_quantity: 1 }, { sku: "B", stock_quantity: 2 }, { sku: "C", stock_quantity: 3 }]);
    const { connectionId } = await wooShop(creds, [{ id: 1, sku: "A" }, { id: 2, sku: "B" }], STOCK_ON, { active: false });
    // Paused, the sync cannot start; resumed, two requests queue one sync.
    expect((await call("POST", `/api/v1/shop-connections/${connectionId}/stock-syncs`, { creds })).status).toBe(409);
    await call("PATCH", `/api/v1/shop-connections/${connectionId}`, { creds, body: { active: true } });
    const first = await call("POST", `/api/v1/shop-connections/${connectionId}/stock-syncs`, { creds });
    expect(first.status).toBe(202);
    expect(first.json).toMatchObject({ connection_id: connectionId, status: expect.stringMatching(/^(queued|running|succeeded)$/), trigger: "manual" });
    const [done] = await syncsEnded(creds, connectionId);
    expect(done).toMatchObject({ id: first.json.id, status: "succeeded", full: true, total: 3, counts: { updated: 2, unchanged: 0, unknown: 1, skipped: 0, failed: 0 } });
    const page2 = await call("GET", `/api/v1/shop-connections/${connectionId}/stock-syncs/${done.id}?per_page=2&page=2`, { creds });
    expect(page2.json.products.data).toEqual([{ key: "C", outcome: "unknown", quantity: 3, price: null, old_quantity: null, old_price: null, shop_product_id: null, reason: "The shop has no product with SKU C." }]);
    expect(page2.json.products.meta).toMatchObject({ current_page: 2, from: 3, to: 3, last_page: 2, per_page: 2, total: 3 });
    // Nothing changed since; a full sync lists the shop's products again and writes every one (it repairs stock changed in the shop by hand).
    await call("POST", `/api/v1/shop-connections/${connectionId}/stock-syncs`, { creds, body: { full: true } });
    const [full] = await syncsEnded(creds, connectionId, 2);
    expect(full).toMatchObject({ trigger: "manual", full: true, total: 3, counts: { updated: 2, unchanged: 0, unknown: 1, skipped: 0, failed: 0 } });
    // A plain one has nothing to do.
    await call("POST", `/api/v1/shop-connections/${connectionId}/stock-syncs`, { creds });
    const [plain] = await syncsEnded(creds, connectionId, 3);
    expect(plain).toMatchObject({ status: "succeeded", full: false, total: 0, done: 0 });
    const bad = await call("POST", `/api/v1/shop-connections/${connectionId}/stock-syncs`, { creds, body: { full: "yes please", all: 1 } });
    expect(bad.status).toBe(422);
    expect((await syncs(creds, connectionId)).length).toBe(3);
  });
});
