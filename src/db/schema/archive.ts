// What D1 keeps of an archived order (src/archive, docs/archive.md): a stub that finds it by reference,
// keeps create idempotent (account, external_id) and lists it; the order itself is a line of a gzip
// NDJSON object in R2. Small on purpose: the bench holds it to 400 bytes an order, indexes included.
import { sql, type SQL } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex, type AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { money } from "./columns";

/**
 * A value as the list's `q` keys it (searchKey in src/orders/search-key.ts, drizzle/0023): spaces,
 * tabs and line breaks dropped, ASCII lower-cased. The stubs' search indexes are on this expression,
 * and src/archive/list.ts queries it written the same way so SQLite uses them.
 */
export const stubSearchKey = (column: AnySQLiteColumn | SQL) =>
  sql`lower(replace(replace(replace(replace(${column}, ' ', ''), char(9), ''), char(10), ''), char(13), ''))`;

export const archivedOrders = sqliteTable(
  "archived_orders",
  {
    // The order's own id (ids are unique across shards by construction): the API's `id` and the
    // move's copy key, and the rowid, so it costs no index of its own.
    id: integer("id").primaryKey(),
    accountId: integer("account_id").notNull(),
    reference: text("reference").notNull(),
    externalId: text("external_id").notNull(),
    source: text("source").notNull(),
    test: integer("test", { mode: "boolean" }).notNull(),
    createdAt: text("created_at").notNull(),
    // The line statuses the order ended with, one bit each in LINE_STATUSES' order (the list's
    // `statuses` filter); every line of an archived order is final.
    statuses: integer("statuses").notNull(),
    total: money("total").notNull(),
    currency: text("currency"),
    email: text("email"),
    firstName: text("first_name").notNull(),
    lastName: text("last_name").notNull(),
    companyName: text("company_name"),
    postcode: text("postcode").notNull(),
    city: text("city").notNull(),
    country: text("country").notNull(),
    // Where the order is: the object <account>/<day of created_at>/<part>.ndjson.gz, and its line
    // (0-based) in it (src/archive/objects.ts).
    part: text("part").notNull(),
    line: integer("line").notNull(),
  },
  (t) => [
    uniqueIndex("archived_orders_reference_uq").on(t.reference),
    // Idempotent create: one order per (account, external_id), live or archived (orders.service.ts).
    uniqueIndex("archived_orders_account_external_uq").on(t.accountId, t.externalId),
    // The list's archived orders, newest first (the rowid, the id, is in every index entry).
    index("archived_orders_account_test_created_idx").on(t.accountId, t.test, t.createdAt),
    // q: an external_id whole, and an e-mail address whole or by its start (an index range), at a
    // cost bounded by the matches, not the account's stubs (docs/archive.md, "Lists").
    index("archived_orders_account_external_key_idx").on(t.accountId, stubSearchKey(t.externalId)),
    index("archived_orders_account_email_key_idx").on(t.accountId, stubSearchKey(t.email)),
  ],
);

export type ArchivedOrder = typeof archivedOrders.$inferSelect;

/**
 * What D1 keeps of an archived order's returns (docs/archive.md, "Returns"): the return itself is in
 * the order's line of its object. The row finds it by id (GET /api/v1/returns/{id}: which order) and
 * keeps the supplier page's credits per month whole (a credited return's amount, currency and when).
 */
export const archivedReturns = sqliteTable(
  "archived_returns",
  {
    // The return's own id (the rowid: no index of its own), as the API showed it.
    id: integer("id").primaryKey(),
    accountId: integer("account_id").notNull(),
    // The archived order's id (its stub's).
    orderId: integer("order_id").notNull(),
    supplierId: integer("supplier_id").notNull(),
    status: text("status").notNull(),
    creditAmount: money("credit_amount"),
    creditCurrency: text("credit_currency"),
    updatedAt: text("updated_at").notNull(),
  },
  // The credits per month: one range per supplier, as the live returns' returns_supplier_updated_idx.
  (t) => [index("archived_returns_supplier_status_updated_idx").on(t.supplierId, t.status, t.updatedAt)],
);

export type ArchivedReturn = typeof archivedReturns.$inferSelect;
