// A stock-synced account moved to another shard (src/shards/move.ts) takes its stock-sync state
// along: the catalogue's change sequence, the connection's cursor and map with the last values
// written, its syncs and their products; frozen, those rows refuse writes; on the new shard the
// next import writes only what changed, without listing the shop again.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MOVED_TABLES } from "../../src/shards/move";
import { call } from "../helpers/http";
import { accountOn, move } from "../helpers/moves";
import { pushOffers, received, STOCK_ON, supplierFeed, syncsEnded, wooShop } from "../helpers/stock";

const STOCK_TABLES = ["catalogue_sequences", "shop_stock_cursors", "shop_stock_items", "stock_syncs", "stock_sync_items"];

async function stockRows(db: D1Database, accountId: number) {
  const tables = MOVED_TABLES.filter((t) => STOCK_TABLES.includes(t.table));
  const answers = await db.batch(tables.map(({ table, scope }) => db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${scope}`).bind(accountId)));
  return Object.fromEntries(tables.map(({ table }, i) => [table, (answers[i].results[0] as { n: number }).n]));
}

describe("stock sync and account moves", () => {
  it("the stock-sync rows move with the account, refuse writes while frozen, and the next sync on the new shard writes only what changed", async () => {
    const creds = await accountOn(0);
    const { shop, connectionId } = await wooShop(creds, [{ id: 501, sku: "MUG-1" }, { id: 502, sku: "CUP-1" }], STOCK_ON);
    const { feedId } = await supplierFeed(creds);
    await pushOffers(creds, feedId, [{ sku: "MUG-1", stock_quantity: 7 }, { sku: "CUP-1", stock_quantity: 2 }]);
    const [first] = await syncsEnded(creds, connectionId);
    const before = await stockRows(env.DB, creds.accountId);
    expect(before).toEqual({ catalogue_sequences: 1, shop_stock_cursors: 1, shop_stock_items: 2, stock_syncs: 1, stock_sync_items: 2 });

    const paused = await move(creds.accountId, { shard: 1, pause_after: "copy" });
    expect(paused.phase).toBe("switch");
    for (const write of [
      "UPDATE stock_syncs SET done = done WHERE account_id = ?1",
      "UPDATE shop_stock_items SET quantity = 0 WHERE connection_id IN (SELECT id FROM shop_connections WHERE account_id = ?1)",
      "UPDATE catalogue_sequences SET seq = seq WHERE account_id = ?1",
    ]) {
      await expect(env.DB.prepare(write).bind(creds.accountId).run()).rejects.toThrow(/account_moving/);
    }
    await move(creds.accountId, { shard: 1 });
    expect(await stockRows(env.SHARD_1, creds.accountId)).toEqual(before);
    expect(await stockRows(env.DB, creds.accountId)).toEqual({ catalogue_sequences: 0, shop_stock_cursors: 0, shop_stock_items: 0, stock_syncs: 0, stock_sync_items: 0 });
    const moved = await call("GET", `/api/v1/shop-connections/${connectionId}/stock-syncs/${first.id}`, { creds });
    expect(moved.json).toMatchObject({ id: first.id, status: "succeeded", total: 2, counts: first.counts });

    const seen = (await received(shop)).length;
    await pushOffers(creds, feedId, [{ sku: "MUG-1", stock_quantity: 3 }]);
    const [second] = await syncsEnded(creds, connectionId, 2);
    expect(second).toMatchObject({ full: false, total: 1, counts: { updated: 1, unchanged: 0, unknown: 0, skipped: 0, failed: 0 } });
    expect((await received(shop)).slice(seen)).toEqual([["POST", "/wp-json/wc/v3/products/batch", { update: [{ id: 501, manage_stock: true, stock_quantity: 3 }] }]]);
  });
});
