// The order-line state machine: the one table of allowed moves, and the only way to change a
// line's status. Every change is a guarded UPDATE plus its log entry, written in the caller's
// batch; the log is inserted only when the UPDATE changed the row (SQLite's changes()), so a
// redelivered queue message or a double click never doubles a status change or a log entry.
import { sql, type SQL } from "drizzle-orm";
import type { LineStatus } from "../db/schema";
import { orderBlockedEvent, orderCompletedEvent, statusChangedEvent } from "../events/outbox";

export const TRANSITIONS: Record<LineStatus, readonly LineStatus[]> = {
  pending: ["ruled", "skipped"],
  ruled: ["completed", "failed", "pending", "skipped", "declined", "partially_completed"],
  failed: ["ruled", "completed", "pending"],
  completed: ["partially_completed", "declined"],
  partially_completed: ["completed", "declined"],
  declined: ["pending"],
  skipped: ["pending"],
};

/** States in which a line still needs work; an order with none of them is complete. */
export const OPEN_STATES: readonly LineStatus[] = ["pending", "ruled", "failed"];

export class TransitionError extends Error {}

export function canMove(from: LineStatus, to: LineStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export type Move = {
  lineId: number;
  orderId: number;
  from: LineStatus;
  to: LineStatus;
  message: string;
  /** Columns set (or cleared, with null) in the same UPDATE. */
  matchedSupplierId?: number | null;
  dispatchId?: number | null;
  confirmedQuantity?: number | null;
};

/** The statements of one move. Throws TransitionError for a move the table does not allow. */
export function moveStatements(move: Move, now: string): SQL[] {
  if (!canMove(move.from, move.to)) {
    throw new TransitionError(`A line cannot move from ${move.from} to ${move.to}.`);
  }
  const extra: SQL[] = [];
  if (move.matchedSupplierId !== undefined) extra.push(sql`, matched_supplier_id = ${move.matchedSupplierId}`);
  if (move.dispatchId !== undefined) extra.push(sql`, dispatch_id = ${move.dispatchId}`);
  if (move.confirmedQuantity !== undefined) extra.push(sql`, confirmed_quantity = ${move.confirmedQuantity}`);
  return [
    sql`UPDATE order_lines SET current_status = ${move.to}, updated_at = ${now}${sql.join(extra)}
        WHERE id = ${move.lineId} AND current_status = ${move.from}`,
    sql`INSERT INTO order_line_logs (order_line_id, order_id, status, message, created_at)
        SELECT ${move.lineId}, ${move.orderId}, ${move.to}, ${move.message}, ${now} WHERE changes() = 1`,
    statusChangedEvent(move.lineId, move.from, move.to, move.message, now),
  ];
}

/** A log entry that changes no status (a note), skipped when it would repeat the line's last entry. */
export function noteStatement(lineId: number, orderId: number, message: string, now: string): SQL {
  return sql`INSERT INTO order_line_logs (order_line_id, order_id, status, message, created_at)
    SELECT l.id, l.order_id, l.current_status, ${message}, ${now} FROM order_lines l
    WHERE l.id = ${lineId} AND l.order_id = ${orderId}
      AND NOT EXISTS (SELECT 1 FROM order_line_logs g WHERE g.id =
        (SELECT max(id) FROM order_line_logs WHERE order_line_id = ${lineId}) AND g.message = ${message})`;
}

/**
 * Keeps orders.completed_at true to the lines: set when no line is open any more, cleared
 * when one moves back. Run after the moves, in the same batch (with the same `now`).
 * updated_at moves only when something did: completed_at changed, or this batch logged a change
 * (every change logs, stamped `now`), so a redelivered message leaves the order as it was.
 */
export function completionStatements(orderId: number, now: string): SQL[] {
  const completedAt = sql`CASE WHEN EXISTS (SELECT 1 FROM order_lines WHERE order_id = ${orderId}
        AND current_status IN (${sql.join(OPEN_STATES.map((s) => sql`${s}`), sql`, `)})) THEN NULL ELSE coalesce(completed_at, ${now}) END`;
  return [orderCompletedEvent(orderId, OPEN_STATES, now), sql`UPDATE orders SET
      completed_at = ${completedAt},
      updated_at = CASE WHEN completed_at IS NOT ${completedAt}
        OR EXISTS (SELECT 1 FROM order_line_logs WHERE order_id = ${orderId} AND created_at = ${now})
        THEN ${now} ELSE updated_at END
    WHERE id = ${orderId}`];
}

/**
 * Sets (or clears) the order's blocked flag and logs it on every line, once: the log insert runs
 * only when the flag actually changed.
 */
export function blockStatements(orderId: number, blocked: boolean, message: string, now: string): SQL[] {
  return [
    sql`UPDATE orders SET blocked = ${blocked ? 1 : 0}, updated_at = ${now} WHERE id = ${orderId} AND blocked = ${blocked ? 0 : 1}`,
    sql`INSERT INTO order_line_logs (order_line_id, order_id, status, message, created_at)
        SELECT id, order_id, current_status, ${message}, ${now} FROM order_lines
        WHERE order_id = ${orderId} AND changes() = 1 ORDER BY position`,
    ...(blocked ? [orderBlockedEvent(orderId, message, now)] : []),
  ];
}
