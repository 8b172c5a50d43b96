// The pipeline's own bookkeeping: the guard table of all-or-nothing batches (src/db/guards.ts), the
// dead letters of the order pipeline queue, kept so that nothing dies silently, and what each cron
// run of the sweepers did (the operator's pipeline page).
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";

/** Never holds a row: inserting one (ok = 0) fails the CHECK, which aborts the batch. */
export const batchGuards = sqliteTable(
  "batch_guards",
  { ok: integer("ok").notNull() },
  (t) => [check("batch_guard_lost_race", sql`${t.ok} = 1`)],
);

export const DEAD_LETTER_STATUSES = ["open", "replayed"] as const;
export type DeadLetterStatus = (typeof DEAD_LETTER_STATUSES)[number];

export const deadLetters = sqliteTable(
  "dead_letters",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    // The queue's message id: a redelivered dead letter is recorded once.
    messageId: text("message_id").notNull(),
    queue: text("queue").notNull(),
    // The message type (route_order, send_dispatch, ...) and its whole body, as sent.
    type: text("type").notNull(),
    body: text("body", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    // What the message was about, when it names it; null for messages of no account (publishing).
    accountId: integer("account_id"),
    orderId: integer("order_id"),
    dispatchId: integer("dispatch_id"),
    status: text("status", { enum: DEAD_LETTER_STATUSES }).notNull().default("open"),
    receivedAt: text("received_at").notNull(),
    replayedAt: text("replayed_at"),
  },
  (t) => [uniqueIndex("dead_letters_message_uq").on(t.messageId), index("dead_letters_status_idx").on(t.status, t.id)],
);

export type DeadLetter = typeof deadLetters.$inferSelect;

/**
 * One row per cron run (src/pipeline/cron.ts): when it ran, how many items each sweeper handled,
 * and the error of any sweeper that failed. Pruned by the cron itself (a week is kept).
 */
export const sweeperRuns = sqliteTable(
  "sweeper_runs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    // The time the cron fired for (every age the sweepers measure is measured from it).
    scheduledAt: text("scheduled_at").notNull(),
    startedAt: text("started_at").notNull(),
    finishedAt: text("finished_at").notNull(),
    // Items per sweeper (orders re-queued, events published, ...): {"unrouted_orders": 2, ...}.
    counts: text("counts", { mode: "json" }).$type<Record<string, number>>().notNull(),
    // The message of each sweeper that failed, or null when all of them finished.
    errors: text("errors", { mode: "json" }).$type<Record<string, string>>(),
  },
  (t) => [index("sweeper_runs_started_idx").on(t.startedAt)],
);

export type SweeperRun = typeof sweeperRuns.$inferSelect;
