// Cancellations that must reach a supplier: a request per (cancel call, supplier), sent on the
// supplier's own channel like a dispatch (lease, idempotency key, retries), and its lines, each
// confirmed or refused by the supplier. Lines nobody was sent yet are cancelled at once and need
// no request. A withdrawal is the same request for a line re-routed away from a silent supplier.
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sendColumns } from "./forwarding";
import { orderLines } from "./orders";

export const CANCELLATION_PURPOSES = ["cancel", "withdraw"] as const;
export type CancellationPurpose = (typeof CANCELLATION_PURPOSES)[number];

export const CANCELLATION_STATUSES = [
  "queued", // waiting for (another) attempt at sending it (webhook, e-mail)
  "sending", // an attempt holds the lease
  "requested", // the supplier has it (or sees it: pull, portal, manual) and owes an answer
  "answered", // every line of it is confirmed or refused
  "failed", // could not be delivered; the supplier can still answer, the shop sees it
] as const;
export type CancellationStatus = (typeof CANCELLATION_STATUSES)[number];

export const cancellations = sqliteTable(
  "cancellations",
  {
    ...sendColumns(CANCELLATION_STATUSES),
    purpose: text("purpose", { enum: CANCELLATION_PURPOSES }).notNull(),
    reason: text("reason"),
  },
  (t) => [
    index("cancellations_order_idx").on(t.orderId),
    index("cancellations_supplier_status_idx").on(t.supplierId, t.status, t.id),
    index("cancellations_account_status_idx").on(t.accountId, t.status, t.id),
    // The sweeper's two questions, as for dispatches: queued and untouched, sending past its lease.
    index("cancellations_status_updated_idx").on(t.status, t.updatedAt),
    index("cancellations_status_lease_idx").on(t.status, t.leaseUntil),
  ],
);

export const CANCELLATION_LINE_STATUSES = ["requested", "confirmed", "refused"] as const;
export type CancellationLineStatus = (typeof CANCELLATION_LINE_STATUSES)[number];

export const cancellationLines = sqliteTable(
  "cancellation_lines",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    cancellationId: integer("cancellation_id")
      .notNull()
      .references(() => cancellations.id),
    accountId: integer("account_id").notNull(),
    orderId: integer("order_id").notNull(),
    orderLineId: integer("order_line_id")
      .notNull()
      .references(() => orderLines.id),
    supplierId: integer("supplier_id").notNull(),
    purpose: text("purpose", { enum: CANCELLATION_PURPOSES }).notNull(),
    // How much of the line is to be cancelled: its whole quantity, or part of it.
    quantity: integer("quantity").notNull(),
    status: text("status", { enum: CANCELLATION_LINE_STATUSES }).notNull(),
    // Who settled it: the supplier (API, callback, portal), the shop on its behalf, or a shipment.
    answeredBy: text("answered_by", { enum: ["supplier", "shop", "shipment"] }),
    answerReason: text("answer_reason"),
    createdAt: text("created_at").notNull(),
    answeredAt: text("answered_at"),
  },
  (t) => [
    index("cancellation_lines_cancellation_idx").on(t.cancellationId),
    index("cancellation_lines_line_idx").on(t.orderLineId, t.status),
    // One open cancellation per line: a second request for it, even at the same moment, is refused
    // by the database.
    uniqueIndex("cancellation_lines_open_uq")
      .on(t.orderLineId)
      .where(sql`${t.status} = 'requested' AND ${t.purpose} = 'cancel'`),
  ],
);

export type Cancellation = typeof cancellations.$inferSelect;
export type CancellationLine = typeof cancellationLines.$inferSelect;
