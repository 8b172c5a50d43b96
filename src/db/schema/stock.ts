// The stock sync (src/shops/stock): the catalogue's stock, and optionally prices, written into a
// shop connection's products. Per connection: what we know of the shop's products (the map from
// our SKU or EAN to the shop's ids, with the last values written) and how far the catalogue's
// changes were seen; per sync: the job and each product's outcome.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";
import { shopConnections } from "./shops";

/** Per connection: the catalogue change sequence seen so far, and when the map was built. */
export const shopStockCursors = sqliteTable("shop_stock_cursors", {
  connectionId: integer("connection_id")
    .primaryKey()
    .references(() => shopConnections.id),
  accountId: integer("account_id").notNull(),
  /** Every change up to this catalogue_sequences.seq has been planned into a sync. */
  seenSeq: integer("seen_seq").notNull().default(0),
  /** When the shop's products were last listed into shop_stock_items; null: never (the next sync lists them). */
  mapBuiltAt: text("map_built_at"),
  /** The match_by the map was built for: another one rebuilds it. */
  mapMatchBy: text("map_match_by"),
});

/**
 * One of our products (its SKU or EAN, by the connection's match_by) as the shop has it: the
 * shop's product id (a variation's id, with its parent product's id), and the last quantity and
 * price written (null: never written). Kept small: this is the bytes kept per mapped product.
 */
export const shopStockItems = sqliteTable(
  "shop_stock_items",
  {
    connectionId: integer("connection_id").notNull(),
    matchKey: text("match_key").notNull(),
    shopId: text("shop_id").notNull(),
    /** A variation's parent product; null for a product. */
    shopParentId: text("shop_parent_id"),
    quantity: integer("quantity"),
    /** Ten-thousandths, as every amount (src/lib/money.ts). */
    price: integer("price"),
  },
  (t) => [primaryKey({ columns: [t.connectionId, t.matchKey] })],
);

/** needs_confirmation: a guard stopped it before it wrote anything (confirmed: it runs on; discarded: failed). */
export const STOCK_SYNC_STATUSES = ["queued", "running", "needs_confirmation", "succeeded", "failed"] as const;
export type StockSyncStatus = (typeof STOCK_SYNC_STATUSES)[number];
/** settings: a change of settings that affects every product queued a full sync by itself. */
export const STOCK_SYNC_TRIGGERS = ["import", "manual", "settings"] as const;
/** planned: checked by the guards, to be written once the sync runs on; skipped: under the minimum price, not written. */
export const STOCK_SYNC_OUTCOMES = ["pending", "planned", "sending", "updated", "unchanged", "unknown", "skipped", "failed"] as const;
export type StockSyncOutcome = (typeof STOCK_SYNC_OUTCOMES)[number];

export const stockSyncs = sqliteTable(
  "stock_syncs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    connectionId: integer("connection_id")
      .notNull()
      .references(() => shopConnections.id),
    status: text("status", { enum: STOCK_SYNC_STATUSES }).notNull(),
    trigger: text("trigger", { enum: STOCK_SYNC_TRIGGERS }).notNull(),
    /** Every product of the catalogue (and the map listed again), not only the changed ones. */
    full: integer("full", { mode: "boolean" }).notNull().default(false),
    /** The catalogue changes it covers: after from_seq, up to to_seq (set when it starts). */
    fromSeq: integer("from_seq"),
    toSeq: integer("to_seq"),
    total: integer("total").notNull().default(0),
    done: integer("done").notNull().default(0),
    updated: integer("updated").notNull().default(0),
    unchanged: integer("unchanged").notNull().default(0),
    unknown: integer("unknown").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    skipped: integer("skipped").notNull().default(0),
    /** The guards' check of every product ran (a connection with max_drop_percent or max_changed_percent); null: not yet, or no such guard. */
    checkedAt: text("checked_at"),
    /** Why a guard stopped the sync before writing, in words (status needs_confirmation). */
    guardReason: text("guard_reason"),
    /** When a person confirmed what the guards stopped (the sync then writes what was planned). */
    confirmedAt: text("confirmed_at"),
    /** A page is worked on under a lease; a lease that ran out (its Worker died) is taken over. */
    leaseUntil: text("lease_until"),
    /** Failed tries of the current page (a timeout, a 5xx): the page's products fail after the last. */
    attempts: integer("attempts").notNull().default(0),
    /** When the shop asked us to wait (429 Retry-After), the next page waits until then. */
    retryAt: text("retry_at"),
    createdAt: text("created_at").notNull(),
    startedAt: text("started_at"),
    finishedAt: text("finished_at"),
    error: text("error"),
  },
  (t) => [
    index("stock_syncs_connection_idx").on(t.connectionId, t.id),
    // One sync waits per connection: later imports join it.
    uniqueIndex("stock_syncs_one_queued_uq").on(t.connectionId).where(sql`status = 'queued'`),
    index("stock_syncs_open_idx").on(t.status, t.leaseUntil),
  ],
);

/** Each product of a sync: pending, sending (its write went out), then its outcome. */
export const stockSyncItems = sqliteTable(
  "stock_sync_items",
  {
    syncId: integer("sync_id").notNull(),
    matchKey: text("match_key").notNull(),
    outcome: text("outcome", { enum: STOCK_SYNC_OUTCOMES }).notNull(),
    quantity: integer("quantity"),
    price: integer("price"),
    /** The shop's values before: read from the shop where the sync read them, else the last ones this connection wrote; null: not known. */
    oldQuantity: integer("old_quantity"),
    oldPrice: integer("old_price"),
    shopId: text("shop_id"),
    reason: text("reason"),
  },
  (t) => [primaryKey({ columns: [t.syncId, t.matchKey] }), index("stock_sync_items_outcome_idx").on(t.syncId, t.outcome, t.matchKey)],
);

export type StockSync = typeof stockSyncs.$inferSelect;
export type StockSyncItem = typeof stockSyncItems.$inferSelect;
export type ShopStockItem = typeof shopStockItems.$inferSelect;
