// The catalogue: suppliers' product feeds, the products they carry, and the record of every import.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";
import { money } from "./columns";
import { suppliers } from "./suppliers";

export const FEED_FORMATS = ["csv", "json", "xml"] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

/** The product fields a feed's mapping can fill. */
export const PRODUCT_FIELDS = ["sku", "ean13", "name", "purchase_price", "stock_quantity", "active"] as const;
export type ProductField = (typeof PRODUCT_FIELDS)[number];

/** A file server feed's login as stored: the secret is sealed in credentials_secret. */
export type FeedCredentials = { username: string; authentication: "password" | "private_key"; host_key_fingerprint: string | null };

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
    // A feed on a file server (ftp, ftps, sftp url): how it is logged in to, without the secret,
    // and the password or private key sealed apart (src/lib/sealed.ts). Null for http(s) feeds.
    credentials: text("credentials", { mode: "json" }).$type<FeedCredentials>(),
    credentialsSecret: text("credentials_secret"),
    // An interval ("hourly", "daily", "30m", "6h", "2d"); null: pulled only on demand.
    schedule: text("schedule"),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    // CSV separator; null: detected from the header line.
    csvDelimiter: text("csv_delimiter"),
    // JSON: dotted path to the array of products; XML: the element name of one product.
    recordPath: text("record_path"),
    // Character encoding of pulled files (a WHATWG label such as "windows-1252"); null: UTF-8
    // unless the server's Content-Type or the XML declaration names another.
    encoding: text("encoding"),
    // When the cron trigger pulls this feed next; null when it has no schedule.
    nextImportAt: text("next_import_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("product_feeds_account_idx").on(t.accountId, t.id),
    index("product_feeds_next_import_idx").on(t.nextImportAt),
  ],
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
    purchasePrice: money("purchase_price"),
    stockQuantity: integer("stock_quantity"),
    active: integer("active").notNull().default(1),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    /**
     * The account's catalogue_sequences.seq of the import that last changed the row (0: before
     * any). Imports commit one after another, so a stock sync that has seen up to N finds what
     * changed since in products_account_change_idx, reading only those rows.
     */
    changeSeq: integer("change_seq").notNull().default(0),
  },
  (t) => [
    index("products_account_change_idx").on(t.accountId, t.changeSeq),
    uniqueIndex("products_feed_sku_uq").on(t.productFeedId, t.sku),
    index("products_account_id_idx").on(t.accountId, t.id),
    index("products_account_ean_idx").on(t.accountId, t.ean13),
    index("products_account_sku_idx").on(t.accountId, t.sku),
    index("products_feed_id_idx").on(t.productFeedId, t.id),
    index("products_account_updated_idx").on(t.accountId, t.updatedAt),
  ],
);

export const IMPORT_STATUSES = ["running", "succeeded", "failed"] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
export const IMPORT_TRIGGERS = ["push", "manual", "schedule"] as const;
export type ImportTrigger = (typeof IMPORT_TRIGGERS)[number];

export type ImportRejection = { line: number; sku: string | null; reason: string };

/** One run of a feed into the catalogue, kept as its history. */
export const productImports = sqliteTable(
  "product_imports",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    productFeedId: integer("product_feed_id")
      .notNull()
      .references(() => productFeeds.id),
    trigger: text("trigger", { enum: IMPORT_TRIGGERS }).notNull(),
    status: text("status", { enum: IMPORT_STATUSES }).notNull(),
    // A full sync: products of the feed the file no longer lists are deactivated.
    replace: integer("replace", { mode: "boolean" }).notNull(),
    // The URL pulled, or "upload" for a push.
    source: text("source").notNull(),
    startedAt: text("started_at").notNull(),
    finishedAt: text("finished_at"),
    rowsRead: integer("rows_read").notNull().default(0),
    rowsCreated: integer("rows_created").notNull().default(0),
    rowsUpdated: integer("rows_updated").notNull().default(0),
    rowsUnchanged: integer("rows_unchanged").notNull().default(0),
    rowsDeactivated: integer("rows_deactivated").notNull().default(0),
    rowsRejected: integer("rows_rejected").notNull().default(0),
    // Why the whole import failed (fetch or parse); null when it succeeded.
    error: text("error"),
    // The first rejected rows with their line and reason.
    rejections: text("rejections", { mode: "json" }).$type<ImportRejection[]>().notNull(),
    // The file's columns (CSV), keys (JSON) or elements (XML) that no product field reads: their
    // values were not imported. The first 20, in the file's order.
    unmappedColumns: text("unmapped_columns", { mode: "json" }).$type<string[]>().notNull().default([]),
    // What the import did not do that the shop should know (unmapped columns), in words.
    warnings: text("warnings", { mode: "json" }).$type<string[]>().notNull().default([]),
  },
  (t) => [
    index("product_imports_feed_idx").on(t.productFeedId, t.id),
    index("product_imports_status_idx").on(t.status, t.startedAt),
  ],
);

/**
 * Scratch space of a running import: valid rows are staged here while the file streams in,
 * and moved into products in one atomic batch only once the whole file has parsed. So a file
 * that breaks halfway changes no product. Rows are deleted when the import ends.
 */
export const productImportRows = sqliteTable(
  "product_import_rows",
  {
    // A rowid alias (no AUTOINCREMENT): ranges of it split the final upsert into statements.
    id: integer("id").primaryKey(),
    importId: integer("import_id").notNull(),
    line: integer("line").notNull(),
    sku: text("sku").notNull(),
    ean13: text("ean13"),
    name: text("name").notNull(),
    purchasePrice: money("purchase_price"),
    stockQuantity: integer("stock_quantity"),
    active: integer("active").notNull(),
    // 1: the SKU's row was rejected. Kept only so that a full sync does not deactivate a product
    // whose row was bad this time: a bad row is not an unlisted product.
    rejected: integer("rejected").notNull().default(0),
  },
  (t) => [uniqueIndex("product_import_rows_import_sku_uq").on(t.importId, t.sku)],
);

/** Per account, a counter each import that changes products moves on by one, in its own batch. */
export const catalogueSequences = sqliteTable("catalogue_sequences", {
  accountId: integer("account_id")
    .primaryKey()
    .references(() => accounts.id),
  seq: integer("seq").notNull(),
});

export type ProductFeed = typeof productFeeds.$inferSelect;
export type Product = typeof products.$inferSelect;
export type ProductImport = typeof productImports.$inferSelect;
