// Tenants and their credentials. An account is the spec's "user or project".
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const accounts = sqliteTable(
  "accounts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    createdAt: text("created_at").notNull(),
    // Rules or suppliers changed and the account's waiting lines must be matched again: set with
    // the change, cleared by the re-match that finished for exactly this request. The sweeper
    // re-queues the re-match when its message was lost.
    rematchRequestedAt: text("rematch_requested_at"),
    // Re-routing (src/routing/reroute.ts): a declined, partly confirmed, unsendable or overdue line
    // goes to the next eligible supplier, at most this many suppliers per line, the first included.
    rerouteEnabled: integer("reroute_enabled", { mode: "boolean" }).notNull().default(true),
    rerouteMaxAttempts: integer("reroute_max_attempts").notNull().default(3),
    // The ISO 4217 code of the account's amounts (src/lib/currency.ts): of its catalogue, and of
    // every order that came without a currency of its own.
    currency: text("currency").notNull().default("EUR"),
    // Finished orders older than this many days are archived to R2 by the cron (src/archive,
    // docs/archive.md): at least 7, so a late question still finds the order live for a week.
    archiveAfterDays: integer("archive_after_days").notNull().default(90),
    // A move to another shard (src/shards/move.ts): 'frozen' while its rows are copied (the
    // triggers of drizzle/0015 refuse every write of the account), 'leaving' once the directory
    // points elsewhere (only the move's deletes pass), 'arriving' on the target until the switch.
    moving: text("moving", { enum: ["frozen", "leaving", "arriving"] }),
  },
  (t) => [
    index("accounts_rematch_idx").on(t.rematchRequestedAt),
    // Only moving accounts: the freeze triggers (drizzle/0019) probe it on every write, and an
    // empty index costs them no row read while no account moves.
    index("accounts_moving_idx").on(t.id, t.moving).where(sql`${t.moving} IS NOT NULL`),
  ],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name"),
    // SHA-256 hex of the secret; the secret itself is never stored.
    keyHash: text("key_hash").notNull().unique(),
    // First characters of the secret, so an operator can tell keys apart.
    prefix: text("prefix").notNull(),
    expiresAt: text("expires_at"),
    revokedAt: text("revoked_at"),
    lastUsedAt: text("last_used_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("api_keys_account_idx").on(t.accountId)],
);

export type Account = typeof accounts.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;
