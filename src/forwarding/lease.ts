// The send lease shared by everything that goes out to a supplier on its channel (dispatches,
// cancellation requests): an attempt claims its row with a guarded UPDATE (queued, or sending past an
// expired lease), calls out within its time box, and writes what followed only while it still holds
// the lease. A redelivered message or a Worker that died mid-send never makes two attempts at once.
import { sql, type SQL } from "drizzle-orm";
import { rowMapper, toStatement, type Db, type Row } from "../db";
import { expectChanges, runGuarded } from "../db/guards";
import { cancellations, dispatches } from "../db/schema";
import type { SendSettings } from "../lib/outbound";
import { isoMicro } from "../lib/time";

const TABLES = { dispatches, cancellations } as const;
type Leased = keyof typeof TABLES;
type RowOf<T extends Leased> = (typeof TABLES)[T]["$inferSelect"];

const mappers = { dispatches: rowMapper(dispatches), cancellations: rowMapper(cancellations) };

/** Claims the row for one attempt (attempts + 1) under `lease`; undefined when it is done or another attempt holds it. */
export async function claim<T extends Leased>(db: Db, table: T, id: number, now: string, lease: string): Promise<RowOf<T> | undefined> {
  const { results } = await toStatement(db, claimStatement(table, id, now, lease)).all<Row>();
  return results[0] ? (mappers[table](results[0]) as RowOf<T>) : undefined;
}

/** The claim as a statement (returning the claimed row, or none), for a caller that reads in the same batch. */
export function claimStatement(table: Leased, id: number, now: string, lease: string): SQL {
  return sql`UPDATE ${sql.raw(table)} SET status = 'sending', lease_until = ${lease}, attempts = attempts + 1, updated_at = ${now}
      WHERE id = ${id} AND (status = 'queued' OR (status = 'sending' AND lease_until < ${now}))
      RETURNING *`;
}

/**
 * Every write after the claim: the row's own UPDATE (`set`), only while this attempt still holds its
 * lease, then whatever goes with it. When the lease is gone (it ran out and another attempt took
 * over), the batch aborts and nothing of it is written: false.
 */
export function underLease(db: Db, table: Leased, id: number, lease: string, set: SQL, then: SQL[] = []): Promise<boolean> {
  return runGuarded(db, [
    sql`UPDATE ${sql.raw(table)} SET ${set}, updated_at = ${isoMicro()} WHERE id = ${id} AND status = 'sending' AND lease_until = ${lease}`,
    expectChanges(1),
    ...then,
  ]);
}

/** Seconds before the next attempt after `attempts` failed ones: exponential, at most an hour. */
export const retryDelaySeconds = (settings: SendSettings, attempts: number) => Math.min(3600, settings.retryBaseSeconds * 2 ** (attempts - 1));
