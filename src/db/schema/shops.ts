// Shop connections: the shop's own REST API (WooCommerce, Shopware 6, Magento 2, PrestaShop) that
// shipments, tracking and line outcomes are written back into (src/shops).
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

export const SHOP_PLATFORMS = ["woocommerce", "shopware", "magento", "prestashop", "shopify"] as const;
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
    /**
     * Where the reconciliation pull of a platform that has one (src/shops/order-pull.service.ts)
     * goes on from: the adapter's own cursor, null before the first pull. `pulledAt`: when it last
     * ran, so that each tick takes the connections that waited longest.
     */
    pullCursor: text("pull_cursor", { mode: "json" }).$type<Record<string, unknown> | null>(),
    pulledAt: text("pulled_at"),
  },
  (t) => [index("shop_connections_account_idx").on(t.accountId, t.deletedAt, t.active)],
);

export type ShopConnectionRow = typeof shopConnections.$inferSelect;

/**
 * shipment: a line shipped; note: a private note (a line given up on, a cancellation answered, a
 * line given up on that is with a supplier again); hold: a line waits for a person, the shop's order
 * is put on hold; release: nothing waits any more, it is taken off hold; complete: every line final.
 */
export const WRITE_BACK_KINDS = ["shipment", "note", "hold", "release", "complete"] as const;
export type WriteBackKind = (typeof WRITE_BACK_KINDS)[number];
export const WRITE_BACK_STATUSES = ["pending", "delivering", "done", "failed", "skipped"] as const;
export type WriteBackStatus = (typeof WRITE_BACK_STATUSES)[number];
export const ATTEMPT_OUTCOMES = ["written", "found", "skipped", "failed", "interrupted"] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/**
 * Write-backs: one per connection, event and kind (created when the event is published, so a
 * re-publish creates nothing twice), delivered under a lease like a webhook delivery
 * (src/shops/write-back.service.ts). Per connection and order they go one after the other, in id order.
 */
export const shopWriteBacks = sqliteTable(
  "shop_write_backs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id").notNull(),
    connectionId: integer("connection_id")
      .notNull()
      .references(() => shopConnections.id),
    orderId: integer("order_id").notNull(),
    eventId: text("event_id").notNull(),
    kind: text("kind", { enum: WRITE_BACK_KINDS }).notNull(),
    /** The line a shipment or a note is about (null: the order's completion). */
    lineId: integer("line_id"),
    /** A shipment: whether every line of the order had shipped in full with it (Shopware: ship vs ship_partially). */
    shippedInFull: integer("shipped_in_full", { mode: "boolean" }),
    status: text("status", { enum: WRITE_BACK_STATUSES }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    /** While delivering: until when the attempt holds it; while pending after a failure: when the next attempt is due. */
    leaseUntil: text("lease_until"),
    /** The shop's ids of what the write created (or found there already). */
    shopIds: text("shop_ids", { mode: "json" }).$type<string[]>(),
    /** The shop's order as found on the first attempt (a retry does not look it up again). */
    shopOrder: text("shop_order", { mode: "json" }).$type<Record<string, unknown>>(),
    /**
     * The last attempt's outcome was unclear (a timeout, a 5xx, or it never reported back: the
     * Worker stopped mid-attempt): the next one looks before writing.
     */
    unclear: integer("unclear", { mode: "boolean" }).notNull().default(false),
    /** While delivering: when the attempt holding the lease began (an interrupted one is recorded from it). */
    attemptStartedAt: text("attempt_started_at"),
    /**
     * Attempts that never reported back (their Worker stopped mid-attempt; the lease ran out and the
     * next attempt took over), [{started_at, given_up_at}], until that attempt records them among the
     * attempts (outcome "interrupted").
     */
    interrupted: text("interrupted", { mode: "json" }).$type<{ started_at: string; given_up_at: string }[]>(),
    /** Done in dry-run mode: the writes were recorded, not sent. */
    dryRun: integer("dry_run", { mode: "boolean" }).notNull().default(false),
    /** The last failure, or why nothing was written (skipped), in words. */
    lastError: text("last_error"),
    /**
     * The last failure's facts, for the platform's adapter to explain in a shop owner's words
     * (explainFailure): {kind, status, call, answer}; null after a success.
     */
    lastFailure: text("last_failure", { mode: "json" }).$type<{ kind: string; status: number | null; call: string | null; answer: string | null }>(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    doneAt: text("done_at"),
  },
  (t) => [
    uniqueIndex("shop_write_backs_event_uq").on(t.connectionId, t.eventId, t.kind),
    // An order is completed in the shop once per connection, whichever event found it final.
    uniqueIndex("shop_write_backs_complete_uq").on(t.connectionId, t.orderId).where(sql`${t.kind} = 'complete'`),
    // The order's write-backs (GET /orders/{reference}/shop-sync), and the ones before a write-back (in order).
    index("shop_write_backs_order_idx").on(t.orderId, t.connectionId, t.id),
    // A connection's recent write-backs (the connections page).
    index("shop_write_backs_connection_idx").on(t.connectionId, t.id),
    // Needs attention (an account's failing ones), the operator's failing deliveries and the cron's safety net.
    index("shop_write_backs_account_status_idx").on(t.accountId, t.status, t.id),
    index("shop_write_backs_status_idx").on(t.status, t.id),
    // A publish run's write-backs (the ones its page of events made).
    index("shop_write_backs_event_idx").on(t.eventId),
  ],
);

/** Every attempt at a write-back: the calls it made (as ShopHttp recorded them, credentials left out). */
export const shopWriteBackAttempts = sqliteTable(
  "shop_write_back_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    writeBackId: integer("write_back_id")
      .notNull()
      .references(() => shopWriteBacks.id),
    /** ShopCall[] (src/shops/platforms/http.ts). */
    calls: text("calls", { mode: "json" }).$type<unknown[]>().notNull(),
    dryRun: integer("dry_run", { mode: "boolean" }).notNull().default(false),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
    /**
     * written (the shop took the write), found (looked first: it was there already, nothing written),
     * skipped, failed, or interrupted (never reported back: its Worker stopped mid-attempt).
     */
    outcome: text("outcome", { enum: ATTEMPT_OUTCOMES }).notNull().default("written"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("shop_write_back_attempts_write_back_idx").on(t.writeBackId, t.id)],
);

export type ShopWriteBackRow = typeof shopWriteBacks.$inferSelect;
