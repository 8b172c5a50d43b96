// Sends to suppliers ("dispatches": one per order and supplier) and what suppliers report back.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";
import { orderLines, orders } from "./orders";
import { CHANNELS, suppliers, type Channel } from "./suppliers";

export const DISPATCH_STATUSES = [
  "queued", // waiting for (another) attempt
  "sending", // an attempt holds the lease
  "sent", // the supplier's endpoint or mailbox took it
  "awaiting_pickup", // pull channel: waiting for the supplier to fetch and acknowledge
  "acknowledged", // pull channel: fetched and acknowledged
  "manual", // manual channel: the shop or operator completes the lines
  "dry_run", // a test order: nothing left the service
  "failed", // given up; lines are failed
] as const;
export type DispatchStatus = (typeof DISPATCH_STATUSES)[number];

/**
 * The columns of anything sent to a supplier about an order, on its channel under a lease
 * (src/forwarding/lease.ts): a dispatch, a cancellation request. `statuses`: its own.
 */
export const sendColumns = <S extends readonly [string, ...string[]]>(statuses: S) => ({
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
  channel: text("channel", { enum: CHANNELS }).notNull(),
  status: text("status", { enum: statuses }).notNull(),
  // Stays the same across every retry of this send, so the supplier can drop duplicates.
  idempotencyKey: text("idempotency_key").notNull().unique(),
  attempts: integer("attempts").notNull().default(0),
  leaseUntil: text("lease_until"),
  lastError: text("last_error"),
  // What was (or would have been) sent: the JSON document, or the e-mail's text.
  payload: text("payload"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
  sentAt: text("sent_at"),
  acknowledgedAt: text("acknowledged_at"),
});

/** A dispatch keeps its last this many attempts (attempt_log); `attempts` counts every one. */
export const ATTEMPT_LOG_KEPT = 20;

/**
 * One attempt at sending a dispatch on a push channel, as its attempt_log keeps it (JSON, in the
 * public API's field names): when, to where, what came back and how long it took.
 */
export type AttemptRecord = {
  /** The attempt's number: the dispatch's `attempts` once it was claimed (a retry by hand starts it over). */
  attempt: number;
  at: string;
  channel: Channel;
  /** The webhook URL, the e-mail address or where the file went (sftp://host:port/path); null when the supplier has none (nothing was sent). */
  to: string | null;
  /** How many lines the document carried. */
  lines: number;
  /** accepted; http_error (the supplier answered another status); network_error; timeout; email_error (the send_email binding refused); file_error (the file server refused or failed: response says what, in words); not_sent (no URL, address or file server). */
  outcome: "accepted" | "http_error" | "network_error" | "timeout" | "email_error" | "file_error" | "not_sent";
  http_status: number | null;
  /** The supplier's answer (its body) or the error, at most 500 characters. */
  response: string | null;
  duration_ms: number;
};

export const dispatches = sqliteTable(
  "dispatches",
  {
    ...sendColumns(DISPATCH_STATUSES),
    // The last ATTEMPT_LOG_KEPT attempts (AttemptRecord[], oldest first), appended by the UPDATE that
    // records each attempt's outcome; null before the first (and for dispatches older than the log).
    attemptLog: text("attempt_log", { mode: "json" }).$type<AttemptRecord[]>(),
  },
  (t) => [
    index("dispatches_order_idx").on(t.orderId),
    index("dispatches_supplier_status_idx").on(t.supplierId, t.status, t.id),
    // The dispatch sweeper's two questions: queued and untouched for long, sending past its lease.
    index("dispatches_status_updated_idx").on(t.status, t.updatedAt),
    index("dispatches_status_lease_idx").on(t.status, t.leaseUntil),
  ],
);

export const shipments = sqliteTable(
  "shipments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    orderId: integer("order_id")
      .notNull()
      .references(() => orders.id),
    orderLineId: integer("order_line_id")
      .notNull()
      .references(() => orderLines.id),
    quantity: integer("quantity").notNull(),
    carrier: text("carrier"),
    trackingNumber: text("tracking_number"),
    trackingUrl: text("tracking_url"),
    // The supplier's own id for the shipment, so a repeated report is recorded once.
    externalId: text("external_id"),
    // The random token of the answer batch that recorded it: its order_line.shipped event follows
    // exactly the shipments that batch inserted.
    batchToken: text("batch_token"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    index("shipments_order_idx").on(t.orderId, t.orderLineId),
    uniqueIndex("shipments_line_external_uq").on(t.orderLineId, t.externalId),
  ],
);

export type Dispatch = typeof dispatches.$inferSelect;
export type Shipment = typeof shipments.$inferSelect;
