// All-or-nothing writes against concurrent writers. A D1 batch is one transaction, and a statement
// that fails rolls the whole batch back: `expectChanges(n)` placed directly after a guarded write
// fails exactly when that write changed fewer than n rows (someone else got there first), so the
// batch leaves nothing behind and its caller learns that it lost the race.
import { sql, type SQL } from "drizzle-orm";
import { runBatch, type Db } from ".";
import { ApiError } from "../lib/errors";

/** The CHECK constraint of batch_guards; its failure is the signal, never a real error. */
export const LOST_RACE_CONSTRAINT = "batch_guard_lost_race";

/** Inserts nothing when the previous statement changed at least `expected` rows; otherwise fails the batch. */
export function expectChanges(expected: number): SQL {
  return sql`INSERT INTO batch_guards (ok) SELECT 0 WHERE changes() < ${expected}`;
}

export function isLostRace(error: unknown): boolean {
  const text = `${String(error)} ${String((error as { cause?: unknown })?.cause ?? "")}`;
  return text.includes(`CHECK constraint failed: ${LOST_RACE_CONSTRAINT}`);
}

/** Runs the batch; `false` when one of its guards failed (nothing was written), `true` when all of it was. */
export async function runGuarded(db: Db, statements: SQL[]): Promise<boolean> {
  return (await tryBatch(db, statements)) !== LOST;
}

/** What an attempt returns when its batch lost a race (nothing was written). */
export const LOST: unique symbol = Symbol("lost race");

/** Runs the batch: its statements' results, or LOST when one of its guards failed (nothing was written). */
export async function tryBatch(db: Db, statements: SQL[]): Promise<D1Result[] | typeof LOST> {
  try {
    return await runBatch(db, statements);
  } catch (error) {
    if (isLostRace(error)) return LOST;
    throw error;
  }
}

/**
 * Runs `attempt` (read, validate, write all-or-nothing) again when it lost a race, so that it is
 * judged against the state that won: it then either applies to that state, or refuses with what
 * the state now is (the caller's own 409). Gives up with a 409 after `tries` lost races.
 */
export async function retryLostRaces<T>(attempt: () => Promise<T | typeof LOST>, tries = 3): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const result = await attempt();
    if (result !== LOST) return result;
  }
  throw ApiError.conflict("The lines changed while this request was applied, again and again; nothing of it was written. Send it again.");
}

/** Fails the batch unless `countQuery` (a scalar count) is at least `expected`. */
export function expectCount(countQuery: SQL, expected: number): SQL {
  return sql`INSERT INTO batch_guards (ok) SELECT 0 WHERE (${countQuery}) < ${expected}`;
}
