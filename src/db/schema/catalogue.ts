// The catalogue: suppliers' product feeds and the products they carry.
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";
import { suppliers } from "./suppliers";

export const FEED_FORMATS = ["csv", "json", "xml"] as const;

export const productFeeds = sqliteTable(
  "product_feeds",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    supplierId: integer("supplier_id")
      .notNull()
      .references(() => suppliers.id),
    name: text("name").notNull(),
    format: text("format", { enum: FEED_FORMATS }).notNull(),
    // Maps product fields (sku, ean13, name, ...) to the feed's column or field names.
    mapping: text("mapping", { mode: "json" }).$type<Record<string, string>>(),
    url: text("url"),
    schedule: text("schedule"),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("product_feeds_account_idx").on(t.accountId, t.id)],
);

export const products = sqliteTable(
  "products",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    // The spec's project_id: the owning account.
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    productFeedId: integer("product_feed_id")
      .notNull()
      .references(() => productFeeds.id),
    sku: text("sku").notNull(),
    ean13: text("ean13"),
    name: text("name").notNull(),
    purchasePrice: real("purchase_price"),
    stockQuantity: integer("stock_quantity"),
    active: integer("active").notNull().default(1),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("products_feed_sku_uq").on(t.productFeedId, t.sku),
    index("products_account_id_idx").on(t.accountId, t.id),
    index("products_account_ean_idx").on(t.accountId, t.ean13),
    index("products_account_sku_idx").on(t.accountId, t.sku),
  ],
);

export type ProductFeed = typeof productFeeds.$inferSelect;
export type Product = typeof products.$inferSelect;
