// The directory database (binding DIRECTORY): which shard holds each account, and which account
// each API key and supplier key belongs to. Small and read through a per-isolate cache
// (src/shards/directory.ts); everything else of an account lives on its shard.
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

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

// A signed supplier callback names only its supplier: the supplier's account, recorded when the
// supplier is created (suppliers from before sharding are not here: the id's range says shard 0).
export const directorySuppliers = sqliteTable("directory_suppliers", {
  supplierId: integer("supplier_id").primaryKey(),
  accountId: integer("account_id")
    .notNull()
    .references(() => directoryAccounts.id),
});

// Id blocks of 2^40: shard n starts in block n (n < 64, scripts/lib/shards.mjs); a shard that takes
// in an account holding ids of a block above its own moves on to a new block from 64 up, so that
// every shard mints only in a block no other shard mints in (src/shards/move.ts).
export const directoryIdBlocks = sqliteTable("directory_id_blocks", {
  block: integer("block").primaryKey(),
  shard: integer("shard").notNull(),
  createdAt: text("created_at").notNull(),
});

export const MOVE_PHASES = ["freeze", "copy", "switch", "delete", "done"] as const;
export type MovePhase = (typeof MOVE_PHASES)[number];

// Moves of accounts between shards: the phase and the cursor live here, so that running the move
// command again continues where a crash left it (src/shards/move.ts).
export const directoryMoves = sqliteTable(
  "directory_moves",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => directoryAccounts.id),
    fromShard: integer("from_shard").notNull(),
    toShard: integer("to_shard").notNull(),
    phase: text("phase", { enum: MOVE_PHASES }).notNull(),
    // Copy and delete: the table being worked on (an index into the move's table list) and the last
    // rowid done there.
    tableIndex: integer("table_index").notNull().default(0),
    cursor: integer("cursor").notNull().default(0),
    rowsCopied: integer("rows_copied").notNull().default(0),
    rowsDeleted: integer("rows_deleted").notNull().default(0),
    startedAt: text("started_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    finishedAt: text("finished_at"),
  },
  (t) => [uniqueIndex("directory_moves_open_idx").on(t.accountId).where(sql`${t.phase} <> 'done'`)],
);

export const DELETION_PHASES = ["stop", "rows", "archive", "directory", "done"] as const;
export type DeletionPhase = (typeof DELETION_PHASES)[number];

// Deletions of accounts (src/shards/delete.ts): like a move, the phase and the cursor live here so
// that running the delete again continues where a crash left it. The row outlives the account (no
// foreign key): a second delete answers where the first stands, or that it is done.
export const directoryDeletions = sqliteTable("directory_deletions", {
  accountId: integer("account_id").primaryKey(),
  shard: integer("shard").notNull(),
  phase: text("phase", { enum: DELETION_PHASES }).notNull(),
  // Rows: the table being emptied (an index into the move's table list, counting down: children first).
  tableIndex: integer("table_index").notNull().default(0),
  rowsDeleted: integer("rows_deleted").notNull().default(0),
  objectsDeleted: integer("objects_deleted").notNull().default(0),
  // What was still open when the delete started (given up with `force`): the operator's record.
  openWork: text("open_work", { mode: "json" }).$type<OpenWork>().notNull(),
  startedAt: text("started_at").notNull(),
  updatedAt: text("updated_at").notNull(),
  finishedAt: text("finished_at"),
},
  // The cron's look for a deletion left half-way (src/shards/delete.ts continueDeletions): the ones under way only.
  (t) => [index("directory_deletions_under_way_idx").on(t.updatedAt).where(sql`${t.phase} <> 'done'`)],
);

/** An account's work still under way when its deletion started (src/shards/delete.ts). */
export type OpenWork = {
  orders: number;
  returns: number;
  sends: { supplier_id: number; supplier_name: string; dispatches: number }[];
};
