// Queuing stock syncs, as one statement another batch can carry (a feed import's own batch), so a
// sync owed is never lost between the catalogue's change and the queue.
import { sql, type SQL } from "drizzle-orm";
import { rawBatch, type Db } from "../../db";
import type { Pipeline } from "../../lib/queue";
import { isoMicro } from "../../lib/time";

/** The connections whose stock is synced: active, not deleted, settings.stock_sync.enabled. */
export const syncingConnections = (accountId: number) =>
  sql`c.account_id = ${accountId} AND c.active = 1 AND c.deleted_at IS NULL AND json_extract(c.settings, '$.stock_sync.enabled') = 1`;

/**
 * One queued sync per syncing connection of the account that has none waiting (a waiting one
 * covers every change up to when it starts), when `when` holds. RETURNING the new syncs' ids. OR
 * IGNORE: should another queue one first, the unique index keeps one and this import still applies.
 */
export function queueStockSyncsAfterImport(accountId: number, when: SQL): SQL {
  return sql`INSERT OR IGNORE INTO stock_syncs (account_id, connection_id, status, "trigger", created_at)
    SELECT c.account_id, c.id, 'queued', 'import', ${isoMicro()} FROM shop_connections c
    WHERE ${syncingConnections(accountId)} AND ${when}
      AND NOT EXISTS (SELECT 1 FROM stock_syncs q WHERE q.connection_id = c.id AND q.status = 'queued')
    RETURNING id`;
}

/** The messages that start these syncs (each runs its first page). */
export function stockSyncMessages(syncIds: number[]): { type: "stock_sync"; syncId: number }[] {
  return syncIds.map((syncId) => ({ type: "stock_sync" as const, syncId }));
}

/**
 * A change of settings that reaches every product (sync-settings.ts, affectsEveryProduct): a full
 * sync queued, or the one already waiting made full, and a sync that waits for confirmation
 * superseded (its values were planned under the old settings; the full sync covers its products).
 * The domain hands the message to the pipeline port it is given.
 */
export async function fullSyncAfterSettingsChange(db: Db, pipeline: Pipeline, accountId: number, connectionId: number): Promise<number[]> {
  const at = isoMicro();
  const [, , waiting] = await rawBatch(db, [
    sql`UPDATE stock_syncs SET status = 'failed', finished_at = ${at}, lease_until = NULL,
          error = 'Superseded: the stock or price settings changed before it was confirmed, and a full sync was queued instead; nothing was written.'
        WHERE connection_id = ${connectionId} AND status = 'needs_confirmation'`,
    sql`INSERT OR IGNORE INTO stock_syncs (account_id, connection_id, status, "trigger", "full", created_at)
        SELECT ${accountId}, ${connectionId}, 'queued', 'settings', 1, ${at}
        WHERE NOT EXISTS (SELECT 1 FROM stock_syncs WHERE connection_id = ${connectionId} AND status = 'queued')`,
    sql`UPDATE stock_syncs SET "full" = 1 WHERE connection_id = ${connectionId} AND status = 'queued' RETURNING id`,
  ]);
  const ids = waiting.map((r) => Number(r.id));
  await pipeline.send(stockSyncMessages(ids));
  return ids;
}
