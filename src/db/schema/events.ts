// Events to the shop: an outbox written in the same batch as the change it reports, the shop's
// webhook subscriptions, and every delivery and attempt.
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

export const EVENT_TYPES = [
  "order.created",
  "order.blocked",
  "order_line.status_changed",
  "order_line.shipped",
  "order.completed",
  "order.parked",
  "order.cancelled",
  "order_line.cancellation_confirmed",
  "order_line.cancellation_refused",
  "order_line.rerouted",
  "order_line.overdue",
  "order_line.assigned",
  // Returns (src/returns/): each change of a return, per supplier.
  "return.requested",
  "return.authorised",
  "return.declined",
  "return.in_transit",
  "return.received",
  "return.credited",
  "return.closed",
  "return.cancelled",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const webhookSubscriptions = sqliteTable(
  "webhook_subscriptions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    url: text("url").notNull(),
    secret: text("secret").notNull(),
    events: text("events", { mode: "json" }).$type<EventType[]>().notNull(),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("webhook_subscriptions_account_idx").on(t.accountId, t.active)],
);

export const events = sqliteTable(
  "events",
  {
    // "evt_" + random hex: unique, so a shop can drop duplicate deliveries.
    id: text("id").primaryKey(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    type: text("type", { enum: EVENT_TYPES }).notNull(),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: text("created_at").notNull(),
    // Set once deliveries have been created for every matching subscription.
    publishedAt: text("published_at"),
  },
  (t) => [
    index("events_unpublished_idx").on(t.publishedAt, t.createdAt),
    // The console's order page: the events of one order (every event names its order), newest first.
    // A query must use this very expression to use the index (src/events/order-events.service.ts).
    index("events_account_order_idx").on(t.accountId, sql`json_extract(data, '$.order.reference')`, t.createdAt),
  ],
);

export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id").notNull(),
    subscriptionId: integer("subscription_id")
      .notNull()
      .references(() => webhookSubscriptions.id),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id),
    status: text("status", { enum: ["pending", "delivering", "delivered", "failed"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    leaseUntil: text("lease_until"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    deliveredAt: text("delivered_at"),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_subscription_event_uq").on(t.subscriptionId, t.eventId),
    index("webhook_deliveries_subscription_idx").on(t.subscriptionId, t.id),
    // The console's "Needs attention": an account's failing deliveries, newest first.
    index("webhook_deliveries_account_status_idx").on(t.accountId, t.status, t.id),
    // The operator's pipeline page: pending and failing deliveries of every account, newest first.
    index("webhook_deliveries_status_idx").on(t.status, t.id),
    // An event's deliveries (the order page's events, with how each delivery went).
    index("webhook_deliveries_event_idx").on(t.eventId),
  ],
);

export const webhookDeliveryAttempts = sqliteTable(
  "webhook_delivery_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    deliveryId: integer("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id),
    statusCode: integer("status_code"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("webhook_delivery_attempts_delivery_idx").on(t.deliveryId, t.id)],
);

export type WebhookSubscription = typeof webhookSubscriptions.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
