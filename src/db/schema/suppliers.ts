// Suppliers an account routes order lines to. The routing and forwarding capabilities extend them.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

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
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("suppliers_account_name_uq").on(t.accountId, t.name),
    index("suppliers_account_code_idx").on(t.accountId, t.code),
  ],
);

export type Supplier = typeof suppliers.$inferSelect;
