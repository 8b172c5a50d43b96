// Returns: goods a customer sends back, per supplier (each supplier authorises, receives and credits
// its own). A return per (request, supplier), its lines (how much of which order line, and what
// arrived), its log (every change with who made it), the notices that tell the supplier on its own
// channel (sent under the outbound engine like a dispatch), and each supplier's return settings.
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";
import { money } from "./columns";
import { sendColumns } from "./forwarding";
import { orderLines, orders } from "./orders";
import { suppliers } from "./suppliers";

export const RETURN_STATUSES = ["requested", "authorised", "declined", "in_transit", "received", "credited", "closed", "cancelled"] as const;
export type ReturnStatus = (typeof RETURN_STATUSES)[number];

export const RETURN_CONDITIONS = ["new", "opened", "damaged"] as const;
export type ReturnCondition = (typeof RETURN_CONDITIONS)[number];

export const returns = sqliteTable(
  "returns",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    orderId: integer("order_id")
      .notNull()
      .references(() => orders.id),
    supplierId: integer("supplier_id")
      .notNull()
      .references(() => suppliers.id),
    status: text("status", { enum: RETURN_STATUSES }).notNull(),
    // Random, made in the Worker: the batch that creates the return finds its id by it, and the
    // supplier sees it as the return's idempotent reference.
    requestKey: text("request_key").notNull().unique(),
    note: text("note"),
    // Asked past the supplier's return window, on purpose.
    forced: integer("forced", { mode: "boolean" }).notNull().default(false),
    rma: text("rma"),
    returnAddress: text("return_address"),
    labelUrl: text("label_url"),
    declineReason: text("decline_reason"),
    customerTracking: text("customer_tracking"),
    customerCarrier: text("customer_carrier"),
    creditAmount: money("credit_amount"),
    creditCurrency: text("credit_currency"),
    closeReason: text("close_reason"),
    cancelReason: text("cancel_reason"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    // When it began waiting on the supplier (requested, in transit): Needs attention's clock.
    waitingSince: text("waiting_since"),
  },
  (t) => [
    index("returns_account_status_idx").on(t.accountId, t.status, t.id),
    index("returns_account_created_idx").on(t.accountId, t.createdAt),
    index("returns_order_idx").on(t.orderId),
    index("returns_supplier_status_idx").on(t.supplierId, t.status, t.id),
    // Needs attention: per supplier, only its returns waiting past its answer time (src/returns/waiting.ts).
    index("returns_supplier_waiting_idx").on(t.supplierId, t.status, t.waitingSince),
    // The supplier page's credits of the last 12 months: a credited return is not changed after its credit.
    index("returns_supplier_updated_idx").on(t.supplierId, t.status, t.updatedAt),
  ],
);

export const returnLines = sqliteTable(
  "return_lines",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    returnId: integer("return_id")
      .notNull()
      .references(() => returns.id),
    accountId: integer("account_id").notNull(),
    orderId: integer("order_id").notNull(),
    orderLineId: integer("order_line_id")
      .notNull()
      .references(() => orderLines.id),
    quantity: integer("quantity").notNull(),
    reason: text("reason"),
    receivedQuantity: integer("received_quantity"),
    condition: text("condition", { enum: RETURN_CONDITIONS }),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("return_lines_return_idx").on(t.returnId), index("return_lines_line_idx").on(t.orderLineId)],
);

export const returnLogs = sqliteTable(
  "return_logs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    returnId: integer("return_id")
      .notNull()
      .references(() => returns.id),
    // Null: the entry is about the whole return.
    returnLineId: integer("return_line_id"),
    status: text("status", { enum: RETURN_STATUSES }).notNull(),
    message: text("message").notNull(),
    // Who: "shop (API key #3)", "supplier Keukenhuis (API)", "supplier Keukenhuis (portal)", "automatic".
    actor: text("actor").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("return_logs_return_idx").on(t.returnId, t.id)],
);

export const RETURN_NOTICE_STATUSES = ["queued", "sending", "sent", "failed"] as const;
export type ReturnNoticeStatus = (typeof RETURN_NOTICE_STATUSES)[number];

/** What a supplier is told of a return on its channel: a new one to answer, or one the shop withdrew. */
export const returnNotices = sqliteTable(
  "return_notices",
  {
    ...sendColumns(RETURN_NOTICE_STATUSES),
    returnId: integer("return_id")
      .notNull()
      .references(() => returns.id),
    kind: text("kind", { enum: ["requested", "cancelled"] }).notNull(),
  },
  (t) => [
    index("return_notices_return_idx").on(t.returnId),
    // The foreign key to orders: deleting an order (the archive) checks no notice refers to it.
    index("return_notices_order_idx").on(t.orderId),
    index("return_notices_status_updated_idx").on(t.status, t.updatedAt),
    uniqueIndex("return_notices_return_kind_uq").on(t.returnId, t.kind),
  ],
);

/** A supplier's return terms (none stored: the defaults). */
export const supplierReturnSettings = sqliteTable("supplier_return_settings", {
  supplierId: integer("supplier_id")
    .primaryKey()
    .references(() => suppliers.id),
  accountId: integer("account_id").notNull(),
  autoAuthorise: integer("auto_authorise", { mode: "boolean" }).notNull().default(false),
  returnAddress: text("return_address"),
  windowDays: integer("window_days").notNull().default(30),
  answerWithinHours: integer("answer_within_hours"),
  updatedAt: text("updated_at").notNull().default(sql`''`),
});

export const DEFAULT_RETURN_WINDOW_DAYS = 30;

export type Return = typeof returns.$inferSelect;
export type ReturnLine = typeof returnLines.$inferSelect;
export type ReturnLog = typeof returnLogs.$inferSelect;
export type ReturnNotice = typeof returnNotices.$inferSelect;
export type SupplierReturnSettings = typeof supplierReturnSettings.$inferSelect;
