// What the lists read instead of counting rows: exact counters per account, and per-order facets
// (which line states and which suppliers an order has). Derived from orders, order_lines and
// products by SQLite triggers (drizzle/0011_list_counts_triggers.sql, 0012) in the same statement as the
// write they describe, so every code path keeps them exact; the application never writes them.
// Both are WITHOUT ROWID tables (the custom migration rebuilds them so): the primary key is the
// only b-tree. The README's "GET /api/v1/orders" section explains what each counts.
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** A line state's code: its bit in an order's state mask and its value in order_facets. */
export const lineStatusCodes = sqliteTable("line_status_codes", {
  code: integer("code").primaryKey(),
  status: text("status").notNull().unique(),
});

/**
 * n = how many orders (or products) of (account_id, test) have `key` under `kind`. Kinds:
 * orders, orders.blocked, orders.source (lower(source)), orders.mask (the set of line states, as
 * a bit mask; an order without lines has none), orders.supplier (supplier id), orders.supplier_pair ("a,b", a < b: orders with lines
 * at both), orders.created:L and orders.completed:L (the first L characters of the timestamp, L =
 * 4, 7, 10, 13: year, month, day, hour), orders.unshipped (key '': orders with a line not yet
 * shipped, FACET_UNSHIPPED), orders.total:L (two digits of length, then the first L
 * digits of the total in units, down to whole units of money), products and products.feed
 * (product_feed_id; test is 0).
 */
export const counters = sqliteTable(
  "counters",
  {
    accountId: integer("account_id").notNull(),
    test: integer("test").notNull(),
    kind: text("kind").notNull(),
    key: text("key").notNull(),
    n: integer("n").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.test, t.kind, t.key] })],
);

/**
 * One row per order and line state present among its lines (kind 0, value = line_status_codes.code)
 * and per order and supplier its lines are matched to (kind 1, value = supplier id); n = how many
 * of its lines. Keyed so that one (account, test, kind, value) is a range of orders newest first.
 */
export const orderFacets = sqliteTable(
  "order_facets",
  {
    accountId: integer("account_id").notNull(),
    test: integer("test").notNull(),
    kind: integer("kind").notNull(),
    value: integer("value").notNull(),
    createdAt: text("created_at").notNull(),
    orderId: integer("order_id").notNull(),
    n: integer("n").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.test, t.kind, t.value, t.createdAt, t.orderId] })],
);

export const FACET_STATUS = 0;
export const FACET_SUPPLIER = 1;
/**
 * Kind 2, value 0: the order has lines not yet shipped (not cancelled, shipments short of their
 * quantity); n = how many. Counters kind orders.unshipped, key '': how many orders have one
 * (drizzle/0040_order_unshipped.sql; the list's shipping=not_shipped).
 */
export const FACET_UNSHIPPED = 2;

/**
 * The order search (`q` on the order list): one row per order and search key, each key a value of
 * the order normalised as searchKey() in src/orders/list.query.ts does (whitespace dropped, ASCII
 * letters lower-cased). Whole values: its reference, external_id, first name, last name, first and
 * last name together, company name, e-mail, postcode, city and each line's product name. Prefixes
 * (3 to 24 characters): of the name and the company and the city from each of their words on, of the
 * e-mail, and of each product name (drizzle/0037_order_search_prefixes.sql). Keyed so that one key
 * of (account, test) is a range of orders newest first; counters kind orders.search holds how many
 * orders have each key. Derived from orders and order_lines by triggers, never written by the
 * application.
 */
export const orderSearchKeys = sqliteTable(
  "order_search_keys",
  {
    accountId: integer("account_id").notNull(),
    test: integer("test").notNull(),
    key: text("key").notNull(),
    createdAt: text("created_at").notNull(),
    orderId: integer("order_id").notNull(),
    /** How many of the order's values give it this key (a key leaves the order when none is left). */
    n: integer("n").notNull().default(1),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.test, t.key, t.createdAt, t.orderId] })],
);
