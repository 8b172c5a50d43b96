// Moving an account to another shard (the operator's command: POST /admin/v1/accounts/{id}/move,
// `npm run admin -- accounts:move <id> <shard>`). A state machine whose phase and cursor live in
// the directory (directory_moves), so running the command again continues after a crash:
//   freeze  the account's rows on its shard refuse every write (accounts.moving = 'frozen': the
//           triggers of drizzle/0015; the API answers 503 with Retry-After); reads go on there.
//   copy    every table's rows of the account, in chunks, to the target (ids kept: they are unique
//           across shards by construction), a chunk's cursor saved after it lands (a chunk copied
//           twice changes nothing: the ids are there already).
//   switch  the copy checked table by table; the directory points at the target; the old shard's
//           rows say 'leaving' (a request or message that still finds them is sent on).
//   delete  the old rows, in chunks, children first; done.
// Each call does a bounded amount of work (D1 allows 1,000 statements per invocation) and answers
// where it stands; the CLI calls again until the move is done.
import { and, eq, ne } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { FIRST_SPARE_BLOCK, idRangeStatements, ID_RANGE, LAST_BLOCK } from "../../scripts/lib/shards.mjs";
import type { Bindings } from "../env";
import { enqueue } from "../lib/queue";
import { ApiError } from "../lib/errors";
import { isoMicro } from "../lib/time";
import { forgetAccount } from "./directory";
import { directoryAccounts, directoryDeletions, directoryMoves, type MovePhase } from "./directory.schema";
import { shardBinding, shardEnv, shardNumbers } from "./shards";

/** Every table holding an account's rows, parents first (the copy's order; the delete's reversed). */
export const MOVED_TABLES: { table: string; scope: string }[] = [
  { table: "accounts", scope: "id = ?1" },
  { table: "suppliers", scope: "account_id = ?1" },
  { table: "api_keys", scope: "account_id = ?1" },
  { table: "supplier_keys", scope: "account_id = ?1" },
  { table: "console_sessions", scope: "account_id = ?1" },
  { table: "routing_rules", scope: "account_id = ?1" },
  { table: "product_feeds", scope: "account_id = ?1" },
  { table: "products", scope: "account_id = ?1" },
  { table: "product_imports", scope: "account_id = ?1" },
  { table: "product_import_rows", scope: "import_id IN (SELECT id FROM product_imports WHERE account_id = ?1)" },
  { table: "orders", scope: "account_id = ?1" },
  // Archived orders' stubs (src/archive): their objects in R2 are per account and stay where they are.
  { table: "archived_orders", scope: "account_id = ?1" },
  // And what D1 keeps of their returns (their ids, and the credits the supplier page sums).
  { table: "archived_returns", scope: "account_id = ?1" },
  { table: "order_lines", scope: "account_id = ?1" },
  { table: "order_line_logs", scope: "order_id IN (SELECT id FROM orders WHERE account_id = ?1)" },
  { table: "dispatches", scope: "account_id = ?1" },
  { table: "x12_interchanges", scope: "account_id = ?1" },
  { table: "supplier_invoice_lines", scope: "account_id = ?1" },
  { table: "shipments", scope: "account_id = ?1" },
  { table: "cancellations", scope: "account_id = ?1" },
  { table: "cancellation_lines", scope: "account_id = ?1" },
  { table: "events", scope: "account_id = ?1" },
  { table: "webhook_subscriptions", scope: "account_id = ?1" },
  { table: "webhook_deliveries", scope: "account_id = ?1" },
  { table: "webhook_delivery_attempts", scope: "delivery_id IN (SELECT id FROM webhook_deliveries WHERE account_id = ?1)" },
  { table: "dead_letters", scope: "account_id = ?1" },
  { table: "shop_connections", scope: "account_id = ?1" },
  { table: "shop_write_backs", scope: "account_id = ?1" },
  { table: "shop_write_back_attempts", scope: "write_back_id IN (SELECT id FROM shop_write_backs WHERE account_id = ?1)" },
  { table: "catalogue_sequences", scope: "account_id = ?1" },
  { table: "shop_stock_cursors", scope: "account_id = ?1" },
  { table: "shop_stock_items", scope: "connection_id IN (SELECT id FROM shop_connections WHERE account_id = ?1)" },
  { table: "stock_syncs", scope: "account_id = ?1" },
  { table: "stock_sync_items", scope: "sync_id IN (SELECT id FROM stock_syncs WHERE account_id = ?1)" },
  { table: "supplier_return_settings", scope: "account_id = ?1" },
  { table: "returns", scope: "account_id = ?1" },
  { table: "return_lines", scope: "account_id = ?1" },
  { table: "return_logs", scope: "return_id IN (SELECT id FROM returns WHERE account_id = ?1)" },
  { table: "return_notices", scope: "account_id = ?1" },
];
/** Tables keyed by other columns than an id (a copy repeated after a crash skips their rows all the same). */
const KEYED_OTHERWISE = new Set(["catalogue_sequences", "shop_stock_cursors", "shop_stock_items", "stock_sync_items", "supplier_return_settings"]);
/** Tables whose rows have no numeric id of the shard's id range (events' ids are random). */
const WITHOUT_IDS = new Set(["events", ...KEYED_OTHERWISE]);
// counters and order_facets are not copied: the target's triggers build them from the rows copied
// in, and the old shard's are deleted with the account (drizzle/0011).

const CHUNK_ROWS = 100;
// A chunk travels as one JSON parameter; D1 takes up to 2 MB in one value.
const CHUNK_BYTES = 1_000_000;
/** Chunks (and phase steps) one call works through: well inside D1's 1,000 statements per invocation. */
export const STEPS_PER_CALL = 60;

/** A move as the directory records it (src/admin/moves.present.ts shows it). */
export type MoveRow = typeof directoryMoves.$inferSelect;

/**
 * Starts the account's move to `toShard`, or continues the one under way (to the same shard), and
 * works until it is done, the call's budget is spent, or the phase `pauseAfter` has finished.
 */
export async function moveAccount(env: Bindings, accountId: number, toShard: number, pauseAfter?: MovePhase): Promise<MoveRow> {
  if (!shardNumbers(env).includes(toShard)) {
    throw ApiError.validation({ shard: [`The selected shard is invalid. Shards: ${shardNumbers(env).join(", ")}.`] });
  }
  const dir = drizzle(env.DIRECTORY);
  let move = await dir
    .select()
    .from(directoryMoves)
    .where(and(eq(directoryMoves.accountId, accountId), ne(directoryMoves.phase, "done")))
    .get();
  if (move && move.toShard !== toShard) {
    throw ApiError.conflict(`Account ${accountId} is being moved to shard ${move.toShard}; run that move to its end first.`);
  }
  if (!move) {
    // An account being deleted (src/shards/delete.ts) goes nowhere.
    const deleting = await dir.select({ phase: directoryDeletions.phase }).from(directoryDeletions).where(eq(directoryDeletions.accountId, accountId)).get();
    if (deleting) throw ApiError.conflict(`Account ${accountId} is being deleted (${deleting.phase}); it cannot move.`);
    const entry = await dir.select().from(directoryAccounts).where(eq(directoryAccounts.id, accountId)).get();
    const fromShard = entry?.shard ?? 0;
    const exists = await shardBinding(env, fromShard).prepare("SELECT 1 FROM accounts WHERE id = ?").bind(accountId).first();
    if (!exists) throw ApiError.notFound(`Account with id '${accountId}' not found`);
    if (fromShard === toShard) throw ApiError.conflict(`Account ${accountId} is on shard ${toShard} already.`);
    const now = isoMicro();
    // An account from before sharding gets its directory entry now (shard 0, where it is).
    if (!entry) await dir.insert(directoryAccounts).values({ id: accountId, shard: 0, createdAt: now }).onConflictDoNothing();
    [move] = await dir
      .insert(directoryMoves)
      .values({ accountId, fromShard, toShard, phase: "freeze", startedAt: now, updatedAt: now })
      .returning();
  }
  for (let steps = 0; move.phase !== "done" && steps < STEPS_PER_CALL; steps++) {
    const before = move.phase;
    const at = move;
    move = await step(env, move).catch((error: unknown) => {
      if (error instanceof ApiError) throw error;
      const table = MOVED_TABLES[at.tableIndex]?.table;
      throw new Error(`Move of account ${accountId}, phase ${at.phase}${at.phase === "copy" || at.phase === "delete" ? ` (${table})` : ""}: ${String(error)}`, { cause: error });
    });
    if (pauseAfter && before === pauseAfter && move.phase !== before) break;
  }
  return move;
}

/** One bounded step of the move; the directory row as it stands after it. */
async function step(env: Bindings, move: MoveRow): Promise<MoveRow> {
  const source = shardBinding(env, move.fromShard);
  const target = shardBinding(env, move.toShard);
  const id = move.accountId;
  const save = async (change: Partial<MoveRow>) => {
    const [row] = await drizzle(env.DIRECTORY)
      .update(directoryMoves)
      .set({ ...change, updatedAt: isoMicro() })
      .where(eq(directoryMoves.id, move.id))
      .returning();
    return row;
  };

  switch (move.phase) {
    case "freeze": {
      await source.prepare("UPDATE accounts SET moving = 'frozen' WHERE id = ? AND moving IS NULL").bind(id).run();
      const refused = await makeRoomForIds(env, move);
      if (refused) {
        // Nothing was copied yet: the move is undone, as if it had never started.
        await source.prepare("UPDATE accounts SET moving = NULL WHERE id = ? AND moving = 'frozen'").bind(id).run();
        await drizzle(env.DIRECTORY).delete(directoryMoves).where(eq(directoryMoves.id, move.id));
        throw ApiError.conflict(refused);
      }
      forgetAccount(id);
      return save({ phase: "copy", tableIndex: 0, cursor: 0 });
    }
    case "copy": {
      if (move.tableIndex >= MOVED_TABLES.length) return save({ phase: "switch" });
      const { table, scope } = MOVED_TABLES[move.tableIndex];
      const { results } = await source
        .prepare(`SELECT rowid AS "__rowid", * FROM ${table} WHERE ${scope} AND rowid > ?2 ORDER BY rowid LIMIT ${CHUNK_ROWS}`)
        .bind(id, move.cursor)
        .all<Record<string, unknown>>();
      if (results.length === 0) return save({ tableIndex: move.tableIndex + 1, cursor: 0 });
      const rows: Record<string, unknown>[] = [];
      let bytes = 0;
      for (const row of results) {
        bytes += JSON.stringify(row).length;
        if (rows.length > 0 && bytes > CHUNK_BYTES) break;
        rows.push(row);
      }
      const columns = Object.keys(rows[0]).filter((c) => c !== "__rowid");
      const values = rows.map((r) => {
        const copy: Record<string, unknown> = {};
        for (const c of columns) copy[c] = r[c];
        // On the target the account is 'arriving': its rows may be written there (by this copy).
        if (table === "accounts") copy.moving = "arriving";
        return copy;
      });
      const select = columns.map((c) => `value ->> '$."${c}"'`).join(", ");
      const rowsJson = JSON.stringify(values);
      const insert = target
        .prepare(`INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(", ")}) SELECT ${select} FROM json_each(?1) WHERE true ON CONFLICT ${KEYED_OTHERWISE.has(table) ? "" : "(id) "}DO NOTHING`)
        .bind(rowsJson);
      // An order coming back to the shard that minted its reference takes it out of retirement.
      if (table === "orders" || table === "archived_orders") {
        await target.batch([target.prepare("DELETE FROM retired_references WHERE reference IN (SELECT value ->> '$.reference' FROM json_each(?1))").bind(rowsJson), insert]);
      } else await insert.run();
      return save({ cursor: Number(rows[rows.length - 1].__rowid), rowsCopied: move.rowsCopied + rows.length });
    }
    case "switch": {
      // Keys revoked on the old shard after their table was copied (an operator's revoke is the one
      // write the freeze lets through: src/shards/accounts.ts) are revoked on the copy too.
      for (const table of ["api_keys", "supplier_keys"]) {
        const { results } = await source.prepare(`SELECT id, revoked_at FROM ${table} WHERE account_id = ? AND revoked_at IS NOT NULL`).bind(id).all();
        if (results.length === 0) continue;
        await target
          .prepare(`UPDATE ${table} SET revoked_at = r.value ->> 'revoked_at' FROM json_each(?) r WHERE ${table}.id = r.value ->> 'id' AND ${table}.revoked_at IS NULL`)
          .bind(JSON.stringify(results))
          .run();
      }
      // The copy, checked table by table before anything points at it.
      const counts = (db: D1Database) => db.batch(MOVED_TABLES.map(({ table, scope }) => db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${scope}`).bind(id)));
      const [from, to] = await Promise.all([counts(source), counts(target)]);
      const short = MOVED_TABLES.filter((_, i) => (from[i].results[0] as { n: number }).n !== (to[i].results[0] as { n: number }).n).map((t) => t.table);
      if (short.length > 0) throw new Error(`Move of account ${id}: the copy on shard ${move.toShard} differs in ${short.join(", ")}; run the move again.`);
      await drizzle(env.DIRECTORY).update(directoryAccounts).set({ shard: move.toShard }).where(eq(directoryAccounts.id, id));
      forgetAccount(id);
      await source.prepare("UPDATE accounts SET moving = 'leaving' WHERE id = ?").bind(id).run();
      await target.prepare("UPDATE accounts SET moving = NULL WHERE id = ?").bind(id).run();
      return save({ phase: "delete", tableIndex: MOVED_TABLES.length - 1, cursor: 0 });
    }
    case "delete": {
      if (move.tableIndex < 0) {
        await deleteDerived(env, move.fromShard, id);
        // Unpublished events moved with the account: the target publishes them now, not at the next cron.
        await enqueue(shardEnv(env, move.toShard), [{ type: "publish_events" }]);
        return save({ phase: "done", finishedAt: isoMicro() });
      }
      const deleted = await deleteChunk(env, move.fromShard, id, move.tableIndex);
      if (deleted === 0) return save({ tableIndex: move.tableIndex - 1 });
      return save({ rowsDeleted: move.rowsDeleted + deleted });
    }
    case "done":
      return move;
  }
}

/**
 * Deletes one chunk of the account's rows of MOVED_TABLES[tableIndex] on the shard (a move's last
 * phase, an account's deletion: src/shards/delete.ts); the rows deleted, 0 once none is left there.
 * References the shard minted are retired with their orders: never minted there again.
 */
export async function deleteChunk(env: Bindings, shard: number, accountId: number, tableIndex: number): Promise<number> {
  const source = shardBinding(env, shard);
  const { table, scope } = MOVED_TABLES[tableIndex];
  const chunk = `SELECT rowid FROM ${table} WHERE ${scope} LIMIT ${CHUNK_ROWS}`;
  // Counted by what it returns: meta.changes counts what the tables' triggers change too (counters, search keys).
  const remove = source.prepare(`DELETE FROM ${table} WHERE rowid IN (${chunk}) RETURNING 1`).bind(accountId);
  // References this shard minted (its two digits after the first) are never minted here again.
  const retire = source
    .prepare(`INSERT OR IGNORE INTO retired_references (reference) SELECT reference FROM ${table} WHERE rowid IN (${chunk}) AND substr(reference, 2, 2) = ?2`)
    .bind(accountId, String(shard).padStart(2, "0"));
  const [result] = table === "orders" || table === "archived_orders" ? (await source.batch([retire, remove])).slice(1) : [await remove.all()];
  return result.results.length;
}

/** What the triggers kept for the account's rows (empty by now: counters, order_facets) goes with them. */
export async function deleteDerived(env: Bindings, shard: number, accountId: number): Promise<void> {
  const source = shardBinding(env, shard);
  await source.batch([source.prepare("DELETE FROM counters WHERE account_id = ?").bind(accountId), source.prepare("DELETE FROM order_facets WHERE account_id = ?").bind(accountId)]);
}

/**
 * Rows keep their ids on the target, and SQLite mints a table's next id above the largest there.
 * When the account holds ids of a higher block than the target mints in, the target moves on to a
 * new block above every block given out (the directory's), before any row arrives. Past the last
 * block (LAST_BLOCK) there is none: the reason the move is refused, else null.
 */
async function makeRoomForIds(env: Bindings, move: MoveRow): Promise<string | null> {
  const source = shardBinding(env, move.fromShard);
  const target = shardBinding(env, move.toShard);
  const withIds = MOVED_TABLES.filter((t) => !WITHOUT_IDS.has(t.table));
  const highest = await source
    // (Scalar subqueries: D1 allows few terms in a compound SELECT.)
    .prepare(`SELECT max(${withIds.map(({ table, scope }) => `coalesce((SELECT max(id) FROM ${table} WHERE ${scope}), 0)`).join(", ")}) AS m`)
    .bind(move.accountId)
    .first<{ m: number | null }>();
  const own = await target.prepare("SELECT coalesce(max(seq), 0) AS seq FROM sqlite_sequence").first<{ seq: number }>();
  const accountBlock = Math.floor((highest?.m ?? 0) / ID_RANGE);
  const targetBlock = Math.floor((own?.seq ?? 0) / ID_RANGE);
  if (accountBlock < targetBlock) return null;
  const row = await env.DIRECTORY.prepare(
    `INSERT INTO directory_id_blocks (block, shard, created_at)
       SELECT block, ?, ? FROM (SELECT max(coalesce(max(block) + 1, ${FIRST_SPARE_BLOCK}), ${FIRST_SPARE_BLOCK}) AS block FROM directory_id_blocks)
       WHERE block <= ${LAST_BLOCK} RETURNING block`,
  )
    .bind(move.toShard, isoMicro())
    .first<{ block: number }>();
  if (!row) {
    return (
      `Account ${move.accountId} cannot move to shard ${move.toShard}: it holds ids of block ${accountBlock}, not below the block shard ${move.toShard} ` +
      `mints in (${targetBlock}), so the shard would need a new id block, and all spare blocks (${FIRST_SPARE_BLOCK} to ${LAST_BLOCK}) are given out. ` +
      `The move was not started.`
    );
  }
  await target.batch(idRangeStatements(row.block).map((s) => target.prepare(s)));
  return null;
}
