// The directory database (binding DIRECTORY): which shard holds each account, and which account
// each API key and supplier key belongs to. Small and read through a per-isolate cache
// (src/shards/directory.ts); everything else of an account lives on its shard.
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const directoryAccounts = sqliteTable(
  "directory_accounts",
  {
    // The account's id everywhere: minted here, so it is unique across shards and kept by a move.
    id: integer("id").primaryKey({ autoIncrement: true }),
    shard: integer("shard").notNull(),
    // Placed there by an operator: the placement of new accounts never counts on it moving.
    pinned: integer("pinned", { mode: "boolean" }).notNull().default(false),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("directory_accounts_shard_idx").on(t.shard)],
);

export const directoryCredentials = sqliteTable(
  "directory_credentials",
  {
    // SHA-256 hex of an API key or a supplier key (the secret itself is stored nowhere).
    keyHash: text("key_hash").primaryKey(),
    kind: text("kind", { enum: ["api_key", "supplier_key"] }).notNull(),
    accountId: integer("account_id")
      .notNull()
      .references(() => directoryAccounts.id),
  },
  (t) => [index("directory_credentials_account_idx").on(t.accountId)],
);
