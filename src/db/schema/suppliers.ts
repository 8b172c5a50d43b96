// Suppliers an account routes order lines to. The routing and forwarding capabilities extend them.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

export const CHANNELS = ["webhook", "pull", "email", "manual"] as const;
export type Channel = (typeof CHANNELS)[number];

export const suppliers = sqliteTable(
  "suppliers",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name").notNull(),
    code: text("code"),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    // Lower number wins ties (catalogue price ties, listing order).
    priority: integer("priority").notNull().default(100),
    // How matched lines reach the supplier (see src/forwarding).
    channel: text("channel", { enum: CHANNELS }).notNull().default("manual"),
    webhookUrl: text("webhook_url"),
    // HMAC secrets; during a rotation both the current and the previous one are valid.
    webhookSecret: text("webhook_secret"),
    webhookSecretPrevious: text("webhook_secret_previous"),
    email: text("email"),
    // Deadlines (optional): an answer (accept, decline, partial, ship, acknowledge) within this many
    // hours of the send; a shipment within this many days of the acceptance. A passed acknowledgement
    // deadline re-routes the line when ack_deadline_reroute is set.
    ackDeadlineHours: integer("ack_deadline_hours"),
    ackDeadlineReroute: integer("ack_deadline_reroute", { mode: "boolean" }).notNull().default(false),
    shipDeadlineDays: integer("ship_deadline_days"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("suppliers_account_name_uq").on(t.accountId, t.name),
    index("suppliers_account_code_idx").on(t.accountId, t.code),
  ],
);

export type Supplier = typeof suppliers.$inferSelect;

/** Keys scoped to one supplier: the pull channel and the supplier's answers use them. */
export const supplierKeys = sqliteTable(
  "supplier_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    supplierId: integer("supplier_id")
      .notNull()
      .references(() => suppliers.id),
    name: text("name"),
    keyHash: text("key_hash").notNull().unique(),
    prefix: text("prefix").notNull(),
    revokedAt: text("revoked_at"),
    lastUsedAt: text("last_used_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("supplier_keys_supplier_idx").on(t.supplierId)],
);

export type SupplierKey = typeof supplierKeys.$inferSelect;
