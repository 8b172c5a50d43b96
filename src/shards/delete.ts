// Deleting an account (the operator's command: DELETE /admin/v1/accounts/{id}, `npm run admin --
// accounts:delete <id>`): a shop owner leaving, or an erasure. A state machine like the move's
// (src/shards/move.ts), its phase and cursor in the directory (directory_deletions), so running the
// command again continues after a crash:
//   stop       in one batch on the shard: every API key and supplier key revoked, every console
//              session gone, and the account's rows marked 'leaving', which the move's triggers
//              make refuse every write but a delete: nothing is claimed, sent or written back after
//              (queue messages for it are dropped: src/shards/redirect.ts; crons skip it as they
//              skip a move's leaving rows). From the first answer its keys get 401.
//   rows       the account's rows of every table the move knows (MOVED_TABLES), in chunks, children
//              first (the move's own delete), then what the triggers kept (counters, facets).
//   archive    its archived orders' objects in R2, a listing page at a time.
//   directory  its directory entries: credentials, suppliers, moves, the account; done.
// Each call does a bounded amount of work and answers where it stands; the CLI calls again until
// done, and the cron carries on a deletion nobody has advanced for a minute (continueDeletions), so
// one left half-way by a crashed CLI still ends. Each step saves its progress only over the state it
// started from: two runners at once (the CLI and the cron) never undo each other's progress.
// What is deleted is the shard's; what it is (the open work, the archive) the caller passes in.
import { and, asc, eq, lt, ne, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { createDb, type Db } from "../db";
import type { Bindings } from "../env";
import { ApiError } from "../lib/errors";
import { isoMicro } from "../lib/time";
import { forgetAccount } from "./directory";
import { directoryAccounts, directoryDeletions, directoryMoves, type OpenWork } from "./directory.schema";
import { deleteChunk, deleteDerived, MOVED_TABLES, STEPS_PER_CALL } from "./move";
import { shardBinding } from "./shards";

/** A deletion as the directory records it (src/admin/deletions.present.ts shows it). */
export type DeletionRow = typeof directoryDeletions.$inferSelect;

/** What a deletion asks of the account's domain: the work still open, and its archive's objects. */
export type DeletionHooks = {
  openWork: (db: Db, accountId: number) => Promise<OpenWork>;
  /** Open work in words, for the 409 that asks for `force`. */
  describe: (open: OpenWork) => string;
  /** Deletes up to one listing page of the account's archived objects; how many (0: none left). */
  deleteObjects: (accountId: number) => Promise<number>;
};

/**
 * Starts the account's deletion, or continues the one under way, and works until it is done or the
 * call's budget is spent. Refused (409) while the account moves, and when work is still open and
 * `force` is not given; 404 for an account that never was. `stopAfter`: the phase after which the
 * call returns (a test's crash in the middle; the next call goes on).
 */
export async function deleteAccount(env: Bindings, accountId: number, force: boolean, hooks: DeletionHooks, stopAfter?: number): Promise<DeletionRow> {
  const dir = drizzle(env.DIRECTORY);
  let deletion = await dir.select().from(directoryDeletions).where(eq(directoryDeletions.accountId, accountId)).get();
  if (!deletion) {
    const move = await dir
      .select({ toShard: directoryMoves.toShard })
      .from(directoryMoves)
      .where(and(eq(directoryMoves.accountId, accountId), ne(directoryMoves.phase, "done")))
      .get();
    if (move) throw ApiError.conflict(`Account ${accountId} is being moved to shard ${move.toShard}; run that move to its end first, then delete it.`);
    const entry = await dir.select().from(directoryAccounts).where(eq(directoryAccounts.id, accountId)).get();
    const shard = entry?.shard ?? 0;
    const exists = await shardBinding(env, shard).prepare("SELECT 1 FROM accounts WHERE id = ?").bind(accountId).first();
    if (!exists) throw ApiError.notFound(`Account with id '${accountId}' not found`);
    const openWork = await hooks.openWork(createDb(shardBinding(env, shard)), accountId);
    const open = hooks.describe(openWork);
    if (open && !force) {
      throw ApiError.conflict(`Account ${accountId} still has work under way: ${open}. Nothing was deleted; delete it with force to give that work up.`);
    }
    const now = isoMicro();
    await dir.insert(directoryDeletions).values({ accountId, shard, phase: "stop", openWork, startedAt: now, updatedAt: now }).onConflictDoNothing();
    deletion = (await dir.select().from(directoryDeletions).where(eq(directoryDeletions.accountId, accountId)).get())!;
  }
  for (let steps = 0; deletion.phase !== "done" && steps < (stopAfter ?? STEPS_PER_CALL); steps++) {
    const at = deletion;
    deletion = await step(env, deletion, hooks).catch((error: unknown) => {
      const table = at.phase === "rows" ? ` (${MOVED_TABLES[at.tableIndex]?.table})` : "";
      throw new Error(`Deletion of account ${accountId}, phase ${at.phase}${table}: ${String(error)}`, { cause: error });
    });
  }
  return deletion;
}

/** One bounded step of the deletion; the directory row as it stands after it. */
async function step(env: Bindings, deletion: DeletionRow, hooks: DeletionHooks): Promise<DeletionRow> {
  const id = deletion.accountId;
  const shard = shardBinding(env, deletion.shard);
  const dir = drizzle(env.DIRECTORY);
  // A change of phase or table: over the phase and table this step started from only (every step
  // changes one of them); another runner's newer state wins, and is read back (this one goes on from there).
  const save = async (change: Partial<DeletionRow>) => {
    const [row] = await dir
      .update(directoryDeletions)
      .set({ ...change, updatedAt: isoMicro() })
      .where(and(eq(directoryDeletions.accountId, id), eq(directoryDeletions.phase, deletion.phase), eq(directoryDeletions.tableIndex, deletion.tableIndex)))
      .returning();
    return row ?? (await dir.select().from(directoryDeletions).where(eq(directoryDeletions.accountId, id)).get())!;
  };
  // What a step deleted is added whatever another runner did meanwhile (each counts its own).
  const count = async (column: "rowsDeleted" | "objectsDeleted", deleted: number) => {
    const [row] = await dir
      .update(directoryDeletions)
      .set({ [column]: sql`${directoryDeletions[column]} + ${deleted}`, updatedAt: isoMicro() })
      .where(eq(directoryDeletions.accountId, id))
      .returning();
    return row;
  };
  switch (deletion.phase) {
    case "stop": {
      const now = isoMicro();
      // The revokes first: once the account says 'leaving', its triggers refuse every update.
      await shard.batch([
        shard.prepare("UPDATE api_keys SET revoked_at = ?2 WHERE account_id = ?1 AND revoked_at IS NULL").bind(id, now),
        shard.prepare("UPDATE supplier_keys SET revoked_at = ?2 WHERE account_id = ?1 AND revoked_at IS NULL").bind(id, now),
        shard.prepare("DELETE FROM console_sessions WHERE account_id = ?").bind(id),
        shard.prepare("UPDATE accounts SET moving = 'leaving' WHERE id = ?").bind(id),
      ]);
      forgetAccount(id);
      return save({ phase: "rows", tableIndex: MOVED_TABLES.length - 1 });
    }
    case "rows": {
      if (deletion.tableIndex < 0) {
        await deleteDerived(env, deletion.shard, id);
        return save({ phase: "archive" });
      }
      const deleted = await deleteChunk(env, deletion.shard, id, deletion.tableIndex);
      // None left (a leaving account's rows take no inserts): on to the table before it.
      if (deleted === 0) return save({ tableIndex: deletion.tableIndex - 1 });
      return count("rowsDeleted", deleted);
    }
    case "archive": {
      const deleted = await hooks.deleteObjects(id);
      if (deleted === 0) return save({ phase: "directory" });
      return count("objectsDeleted", deleted);
    }
    case "directory": {
      // Children first (their foreign keys name the account); the deletion's own row stays, as the record.
      await env.DIRECTORY.batch([
        env.DIRECTORY.prepare("DELETE FROM directory_credentials WHERE account_id = ?").bind(id),
        env.DIRECTORY.prepare("DELETE FROM directory_suppliers WHERE account_id = ?").bind(id),
        env.DIRECTORY.prepare("DELETE FROM directory_moves WHERE account_id = ?").bind(id),
        env.DIRECTORY.prepare("DELETE FROM directory_accounts WHERE id = ?").bind(id),
      ]);
      forgetAccount(id);
      return save({ phase: "done", finishedAt: isoMicro() });
    }
    case "done":
      return deletion;
  }
}

/** A deletion nobody has advanced for this long is carried on by the cron. */
export const DELETION_IDLE_MS = 60_000;
/** Steps the cron gives a deletion per tick: a share of the tick's budget, beside the sweepers. */
export const DELETION_STEPS_PER_TICK = 20;

/**
 * The cron's part, in the cron of the deletion's shard (each shard's cron runs at once: one runner
 * per deletion): the deletion under way there that was advanced least recently, if nobody has for
 * DELETION_IDLE_MS, goes on for DELETION_STEPS_PER_TICK steps. One that fails is set behind the
 * others (its time moved on), so it never holds them up, and the sweeper's error says why. How many
 * deletions it carried on (0 or 1).
 */
export async function continueDeletions(env: Bindings, shard: number, hooks: DeletionHooks, now: Date): Promise<number> {
  const dir = drizzle(env.DIRECTORY);
  const idle = await dir
    .select({ accountId: directoryDeletions.accountId })
    .from(directoryDeletions)
    .where(and(ne(directoryDeletions.phase, "done"), lt(directoryDeletions.updatedAt, isoMicro(new Date(now.getTime() - DELETION_IDLE_MS))), eq(directoryDeletions.shard, shard)))
    .orderBy(asc(directoryDeletions.updatedAt))
    .get();
  if (!idle) return 0;
  try {
    await deleteAccount(env, idle.accountId, true, hooks, DELETION_STEPS_PER_TICK);
  } catch (error) {
    await dir.update(directoryDeletions).set({ updatedAt: isoMicro() }).where(eq(directoryDeletions.accountId, idle.accountId));
    throw error;
  }
  return 1;
}

/** Whether the account is being deleted or was: its queue messages are dropped, not retried. */
export async function isDeleted(env: Bindings, accountId: number): Promise<boolean> {
  const row = await drizzle(env.DIRECTORY)
    .select({ phase: directoryDeletions.phase })
    .from(directoryDeletions)
    .where(eq(directoryDeletions.accountId, accountId))
    .get();
  return row !== undefined;
}
