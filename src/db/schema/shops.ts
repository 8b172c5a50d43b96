// Shop connections: the shop's own REST API (WooCommerce, Shopware 6, Magento 2, PrestaShop) that
// shipments, tracking and line outcomes are written back into (src/shops).
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

export const SHOP_PLATFORMS = ["woocommerce", "shopware", "magento", "prestashop"] as const;
export type ShopPlatformName = (typeof SHOP_PLATFORMS)[number];

export const shopConnections = sqliteTable(
  "shop_connections",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    platform: text("platform", { enum: SHOP_PLATFORMS }).notNull(),
    name: text("name").notNull(),
    /** The shop's address, without a trailing slash; every API path is appended to it. */
    baseUrl: text("base_url").notNull(),
    /** The credentials' JSON, sealed (src/lib/sealed.ts) and bound to "shop_connection:<account>:<platform>". */
    credentialsSealed: text("credentials_sealed").notNull(),
    /** What reads show of the credentials: each field's masked hint, e.g. {"consumer_key": "…ab12"}. */
    credentialsHint: text("credentials_hint", { mode: "json" }).$type<Record<string, string>>().notNull(),
    /** The order `source` values the connection serves; null: every order of the account. */
    sources: text("sources", { mode: "json" }).$type<string[] | null>(),
    /** Platform settings as validated by the platform's adapter, with `mode` ("live" | "dry_run"). */
    settings: text("settings", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    /** Deleted connections are kept (their write-backs' history still names them) but write nothing. */
    deletedAt: text("deleted_at"),
  },
  (t) => [index("shop_connections_account_idx").on(t.accountId, t.deletedAt, t.active)],
);

export type ShopConnectionRow = typeof shopConnections.$inferSelect;
