// What a person set aside on Needs attention (src/attention): an item dismissed until its cause
// recurs, or snoozed until a time. One row per account and item key (the item's cause, e.g.
// "send:12:http_error:500"); setting it aside again overwrites the row.
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const attentionSetAsides = sqliteTable(
  "attention_set_asides",
  {
    accountId: integer("account_id").notNull(),
    /** The item's key as src/attention/attention.service.ts builds it: its section and its cause. */
    itemKey: text("item_key").notNull(),
    /** When it was dismissed or snoozed: a failure of the same cause after this brings a dismissed item back. */
    dismissedAt: text("dismissed_at").notNull(),
    /** Snoozed: hidden until then, whatever happens meanwhile; null: dismissed until its cause recurs. */
    snoozedUntil: text("snoozed_until"),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.itemKey] })],
);

export type AttentionSetAside = typeof attentionSetAsides.$inferSelect;
