// The order aggregate: an order, its lines, and each line's status log.
import { sql, type SQL } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";
import { money } from "./columns";
import { suppliers } from "./suppliers";

export const LINE_STATUSES = [
  "pending",
  "ruled",
  "completed",
  "partially_completed",
  "failed",
  "declined",
  "skipped",
] as const;
export type LineStatus = (typeof LINE_STATUSES)[number];

/**
 * The amount bucket of a total (INTEGER units, >= 0): three per decade (leading digit 1, 2-4, 5-9),
 * increasing with the amount; totalBucket() in src/orders/list.query.ts is its twin. An index
 * expression: a query must use this same expression for SQLite to match the index. (No commas:
 * drizzle-kit splits an index expression at them.)
 */
export const totalBucket = (total: SQLiteColumn | SQL) =>
  sql`length(${total}) * 3 + (CAST(${total} AS TEXT) >= '2') + (CAST(${total} AS TEXT) >= '5')`;

export const orders = sqliteTable(
  "orders",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    // Random, non-sequential, unique across the service; digits only (a JSON number on create).
    reference: text("reference").notNull().unique(),
    externalId: text("external_id").notNull(),
    source: text("source").notNull(),
    test: integer("test", { mode: "boolean" }).notNull().default(false),
    blocked: integer("blocked", { mode: "boolean" }).notNull().default(false),
    // Money columns hold exact INTEGER ten-thousandths (./columns.ts, src/lib/money.ts).
    total: money("total").notNull(),
    // ISO 4217, only when the shop sent one; null: the account's currency (src/lib/currency.ts).
    currency: text("currency"),
    email: text("email"),
    shippingCost: money("shipping_cost"),
    shippingName: text("shipping_name"),
    shippingDescription: text("shipping_description"),
    shippingNote: text("shipping_note"),
    // YYYY-MM-DD
    shippingDeliveryDate: text("shipping_delivery_date"),
    firstName: text("first_name").notNull(),
    lastName: text("last_name").notNull(),
    companyName: text("company_name"),
    address1: text("address1").notNull(),
    address2: text("address2"),
    postcode: text("postcode").notNull(),
    city: text("city").notNull(),
    state: text("state"),
    // ISO 3166-1 alpha-2
    country: text("country").notNull(),
    phone: text("phone"),
    custom: text("custom", { mode: "json" }).$type<Record<string, unknown>>(),
    completedAt: text("completed_at"),
    // When the pipeline last finished with the order (matched, sends queued). Null while the pipeline
    // owes it work: since create, or since an unblock, retry or match by hand cleared it in the same
    // batch as its own change. The sweeper re-queues such orders once route_requested_at is old.
    routedAt: text("routed_at"),
    routeRequestedAt: text("route_requested_at").notNull(),
    // Routing attempts since the last success; past ROUTING_MAX_ATTEMPTS the order is parked.
    routingAttempts: integer("routing_attempts").notNull().default(0),
    // Set when the order was parked (it failed too often): the sweeper leaves it to an operator.
    parkedAt: text("parked_at"),
    // The last error of a failed routing attempt (for the operator).
    routingError: text("routing_error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    // Idempotency of create: one order per (account, external_id), enforced by the database.
    uniqueIndex("orders_account_external_uq").on(t.accountId, t.externalId),
    // The orders the pipeline owes routing (routed_at null), oldest request first: only those, so a
    // create writes the entry that routing then deletes, and a routed order carries none.
    // (routed_at first, though always null there: the queries then search it, a plan the checks of
    // full scans tell from a scan of orders.)
    index("orders_unrouted_idx").on(t.routedAt, t.routeRequestedAt).where(sql`${t.routedAt} IS NULL`),
    index("orders_parked_idx").on(t.parkedAt).where(sql`${t.parkedAt} IS NOT NULL`),
    // The list (src/orders/list.query.ts) picks a page's ids from one of these, newest first, and
    // reads only as many entries as the page needs. Every one starts with (account_id, test):
    // include_test reads both values of test (an IN that SQLite walks value by value, stopping each
    // once it is older than the page). Counts come from `counters` (./counts.ts), not from these.
    index("orders_account_test_created_idx").on(t.accountId, t.test, t.createdAt, t.id),
    index("orders_account_test_blocked_idx").on(t.accountId, t.test, t.blocked, t.createdAt),
    // The source filter compares case-insensitively (as the original service's MySQL collation
    // does): the index carries the same collation, so it serves the comparison.
    index("orders_account_test_source_idx").on(t.accountId, t.test, sql`${t.source} COLLATE NOCASE`, t.createdAt),
    // total_min/total_max: the page walks the amount buckets on the matching side newest first
    // (totalBucket: three per decade), the edge bucket filtered by the total the index holds.
    index("orders_account_test_total_bucket_idx").on(t.accountId, t.test, totalBucket(t.total), t.createdAt, t.id, t.total),
    // ... and when few orders match, reads exactly them by amount.
    index("orders_account_test_total_idx").on(t.accountId, t.test, t.total, t.createdAt),
    // completed_since: the completed orders newest first (the page), or the range by completion
    // when few orders match.
    index("orders_completed_created_idx").on(t.accountId, t.test, t.createdAt, t.id, t.completedAt).where(sql`${t.completedAt} IS NOT NULL`),
    // Only completed orders (every query of it bounds completed_at): a create writes no entry.
    index("orders_account_test_completed_idx").on(t.accountId, t.test, t.completedAt, t.createdAt).where(sql`${t.completedAt} IS NOT NULL`),
  ],
);

export const orderLines = sqliteTable(
  "order_lines",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orderId: integer("order_id")
      .notNull()
      .references(() => orders.id),
    accountId: integer("account_id").notNull(),
    position: integer("position").notNull(),
    externalId: text("external_id").notNull(),
    name: text("name").notNull(),
    ean13: text("ean13"),
    reference: text("reference"),
    quantity: integer("quantity").notNull(),
    stockQuantity: integer("stock_quantity"),
    price: money("price").notNull(),
    purchasePrice: money("purchase_price"),
    brand: text("brand"),
    category: text("category"),
    // The supplier the shop named on the line (free text), not the matched one.
    supplier: text("supplier"),
    imageUrl: text("image_url"),
    custom: text("custom", { mode: "json" }).$type<Record<string, unknown>>(),
    // The product's size and weight as the shop sends them (PrestaShop 1.7), in the shop's own units.
    height: real("height"),
    width: real("width"),
    length: real("length"),
    weight: real("weight"),
    currentStatus: text("current_status", { enum: LINE_STATUSES }).notNull().default("pending"),
    matchedSupplierId: integer("matched_supplier_id").references(() => suppliers.id),
    // The send that carries this line to its supplier (null until forwarded).
    dispatchId: integer("dispatch_id"),
    // What the supplier confirmed when it confirmed only part of the quantity.
    confirmedQuantity: integer("confirmed_quantity"),
    // The random token of the last batch that changed this line's status (lifecycle.ts): that
    // batch logs exactly the lines carrying its token, so a repeat or a lost race logs nothing.
    moveToken: text("move_token"),
    // Set on a line split off another mid-life (a partial confirmation's remainder routed elsewhere,
    // a partly cancelled quantity): the line it came from. The quantities of a line and of the lines
    // split from it sum to what the shop ordered.
    splitFromLineId: integer("split_from_line_id"),
    // Every supplier this line (and the line it was split from) already had, oldest first, and why it
    // left it: re-routing never sends it to one of them again, and the cap counts them.
    rerouteChain: text("reroute_chain", { mode: "json" }).$type<RerouteHop[]>(),
    // A re-route the pipeline owes this line (set by the deadline sweeper, settled by src/routing/journey.ts).
    rerouteReason: text("reroute_reason"),
    // The line's supplier was chosen by a person (POST .../lines/{id}/assign): whom, who chose it, when.
    // Cleared when the line leaves that supplier for the next one (src/routing/reroute.ts).
    manualDecision: text("manual_decision", { mode: "json" }).$type<ManualDecision>(),
    // Deadlines of the line's supplier: no answer by ack_due_at, no shipment by ship_due_at. Cleared
    // when met, or when they fire (once: the sweep that fires one clears it in the same statement).
    ackDueAt: text("ack_due_at"),
    shipDueAt: text("ship_due_at"),
    // The last deadline that passed unmet, until the supplier answers or ships (the console's list).
    overdueAt: text("overdue_at"),
    overdueDeadline: text("overdue_deadline", { enum: ["acknowledgement", "shipping"] }),
    // The random token of the sweep that fired the line's last deadline (its log and event follow it).
    deadlineToken: text("deadline_token"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("order_lines_order_idx").on(t.orderId, t.position),
    // Re-matching an account's waiting lines, the attention page's lines by state. (The order list
    // filters by line status and supplier through order_facets, ./counts.ts.)
    index("order_lines_account_status_idx").on(t.accountId, t.currentStatus, t.orderId),
    // Sending a dispatch reads its lines: without this, a scan of every line of every account.
    // Only lines with a dispatch (every query of it asks for one): a create's lines write no entry.
    index("order_lines_dispatch_idx").on(t.dispatchId).where(sql`${t.dispatchId} IS NOT NULL`),
    // The deadline sweeper's two questions, answered from index ranges of only the lines that wait.
    index("order_lines_ack_due_idx").on(t.ackDueAt).where(sql`${t.ackDueAt} IS NOT NULL`),
    index("order_lines_ship_due_idx").on(t.shipDueAt).where(sql`${t.shipDueAt} IS NOT NULL`),
    // The console's overdue lines of an account.
    index("order_lines_account_overdue_idx").on(t.accountId, t.overdueAt).where(sql`${t.overdueAt} IS NOT NULL`),
  ],
);

export const orderLineLogs = sqliteTable(
  "order_line_logs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orderLineId: integer("order_line_id")
      .notNull()
      .references(() => orderLines.id),
    orderId: integer("order_id").notNull(),
    status: text("status", { enum: LINE_STATUSES }).notNull(),
    message: text("message").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    index("order_line_logs_order_idx").on(t.orderId, t.orderLineId, t.id),
    // The foreign key's own: deleting a line (the archive) checks that no log refers to it; without
    // it SQLite scanned every log of the shard per line deleted (bench/RESULTS.md, "The archive").
    index("order_line_logs_line_idx").on(t.orderLineId),
  ],
);

/** Who acted on a line by hand: the API key of an API call, or the console session (and its key). */
export type Actor = { channel: "api" | "console"; api_key_id: number; session_id: number | null };

/** A supplier chosen for a line by a person. */
export type ManualDecision = { supplier_id: number; supplier_name: string; by: Actor; at: string };

/** One supplier a line had before it was re-routed, and why it left that supplier. */
export type RerouteHop = {
  supplier_id: number;
  supplier_name: string;
  /** declined, partial (the rest of a partial confirmation), failed (the send), overdue (no answer in time). */
  outcome: "declined" | "partial" | "failed" | "overdue";
  reason: string;
  /** The line that had it (the line itself, or the one it was split from). */
  line_id: number;
  at: string;
};

export type Order = typeof orders.$inferSelect;
export type OrderLine = typeof orderLines.$inferSelect;
export type OrderLineLog = typeof orderLineLogs.$inferSelect;

// References this shard minted whose orders moved to another shard with their account
// (src/shards/move.ts): the shard never mints them again (a trigger refuses them as the unique index
// would, drizzle/0016), so a reference stays unique across the service however accounts move.
export const retiredReferences = sqliteTable("retired_references", {
  reference: text("reference").primaryKey(),
});
