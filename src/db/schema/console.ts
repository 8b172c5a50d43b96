// Sign-in sessions of the console (shop), the supplier portal and the operator (src/console).
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts, apiKeys } from "./accounts";
import { supplierKeys } from "./suppliers";

export const CONSOLE_ROLES = ["shop", "supplier", "operator"] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

export const consoleSessions = sqliteTable(
  "console_sessions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    // SHA-256 hex of the random session id in the cookie; the id itself is never stored.
    tokenHash: text("token_hash").notNull().unique(),
    role: text("role", { enum: CONSOLE_ROLES }).notNull(),
    // The credential the session was opened with: revoking it ends the session at once.
    accountId: integer("account_id").references(() => accounts.id),
    apiKeyId: integer("api_key_id").references(() => apiKeys.id),
    supplierKeyId: integer("supplier_key_id").references(() => supplierKeys.id),
    // Operator sessions: SHA-256 of the ADMIN_TOKEN they were opened with (a new token ends them).
    operatorTokenHash: text("operator_token_hash"),
    createdAt: text("created_at").notNull(),
    lastSeenAt: text("last_seen_at").notNull(),
    // The absolute end; the idle limit counts from last_seen_at.
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("console_sessions_expires_idx").on(t.expiresAt)],
);

export type ConsoleSession = typeof consoleSessions.$inferSelect;
