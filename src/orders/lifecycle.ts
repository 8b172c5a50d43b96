// The order-line state machine: the one table of allowed moves, and the only way to change a
// line's status. Every change is written in the caller's batch as a constant number of set-based
// statements, whatever the number of lines: one guarded UPDATE that stamps this batch's random
// token on exactly the lines it changed, then the log entries and events of exactly those lines.
// A redelivered queue message, a double click or a lost race changes and logs nothing.
import { sql, type SQL } from "drizzle-orm";
import { expectChanges, expectCount } from "../db/guards";
import type { LineStatus, RerouteHop } from "../db/schema";
import { linesSplitEvents, linesStatusChangedEvents, ordersCompletedEvent, orderBlockedEvent, orderParkedEvent } from "../events/outbox";

export const TRANSITIONS: Record<LineStatus, readonly LineStatus[]> = {
  pending: ["ruled", "skipped"],
  ruled: ["completed", "failed", "pending", "skipped", "declined", "partially_completed"],
  // -> ruled: retried, or re-routed to the next supplier; -> skipped: cancelled (it never reached a supplier).
  failed: ["ruled", "completed", "pending", "skipped"],
  // -> skipped: the supplier confirmed a cancellation.
  completed: ["partially_completed", "declined", "skipped"],
  partially_completed: ["completed", "declined", "skipped"],
  // -> ruled: re-routed to the next supplier; -> skipped: a cancellation the supplier confirmed after declining.
  declined: ["pending", "ruled", "skipped"],
  skipped: ["pending"],
};

/** States in which a line still needs work; an order with none of them is complete. */
export const OPEN_STATES: readonly LineStatus[] = ["pending", "ruled", "failed"];

/**
 * A partly confirmed line whose rest (what its supplier did not confirm) no other supplier has: a
 * person can still send the rest on, re-route it or cancel it (src/routing/line-actions.ts restOf), so
 * the line is neither final nor settled. Once the rest goes on it is split off and the line's quantity
 * is what was confirmed. `l`: the alias of order_lines in the caller's query.
 */
export const restWaits = (l: string): SQL =>
  sql.raw(`(${l}.current_status = 'partially_completed' AND ${l}.confirmed_quantity IS NOT NULL AND ${l}.confirmed_quantity < ${l}.quantity)`);

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
  /** Columns set (or cleared, with null) in the same UPDATE; left as they are when undefined. */
  matchedSupplierId?: number | null;
  dispatchId?: number | null;
  /** The dispatch with this idempotency key, created earlier in the same batch (src/forwarding/claims.ts). */
  dispatchKey?: string;
  confirmedQuantity?: number | null;
  /** The acknowledgement deadline that starts with this move (src/forwarding/deadlines.ts). */
  ackDueAt?: string | null;
  /**
   * The line's move_token as the caller read it: the move applies only to the line as read, not to
   * one that left that state and came back meanwhile (declined and re-routed to ruled, say).
   */
  version?: string | null;
};

/**
 * A log entry that changes no status. `status`: what the line is then (default: what it is after the
 * batch); `version`: the line's move_token as read (with allOrNothing, the line must still carry it).
 */
export type Note = { lineId: number; orderId: number; message: string; status?: LineStatus; version?: string | null };

export type LineChange = ({ kind: "move" } & Move) | ({ kind: "note" } & Note);

export type LineStatementsOptions = {
  /**
   * Abort the whole batch (src/db/guards.ts) unless every moved line was still in the state the
   * caller read: for writes whose caller answers a client with what it wrote.
   */
  allOrNothing?: boolean;
  /**
   * The batch token to stamp (default: a new one): a caller that adds statements about exactly the
   * lines this batch moved (re-routing, splits) passes its own and gates them on it.
   */
  token?: string;
  /** A condition on each moved line (order_lines, and its entry j.value): a dispatch's lease still held, say. */
  guard?: SQL;
};

export const newToken = () => crypto.randomUUID();

/**
 * The statements of any number of moves and notes, in their order: at most four, whatever their
 * number. Several moves of one line chain (ruled -> completed -> declined): the UPDATE goes from
 * the first state to the last, and every step is logged and evented. Notes are skipped when they
 * would repeat the line's last log entry (unless the line moved in this batch).
 * Throws TransitionError for a move the table does not allow.
 */
export function lineStatements(changes: LineChange[], now: string, options: LineStatementsOptions = {}): SQL[] {
  if (changes.length === 0) return [];
  const token = options.token ?? newToken();
  // Per line: the first state, the last, and the columns set along the way (the last one wins).
  const updates = new Map<
    number,
    { i: number; o: number; f: LineStatus; t: LineStatus; ms?: number | null; d?: number | null; dk?: string; q?: number | null; a?: string | null; v?: string | null }
  >();
  for (const c of changes) {
    if (c.kind !== "move") continue;
    if (!canMove(c.from, c.to)) throw new TransitionError(`A line cannot move from ${c.from} to ${c.to}.`);
    const u = updates.get(c.lineId) ?? { i: c.lineId, o: c.orderId, f: c.from, t: c.from };
    if (u.t !== c.from) throw new TransitionError(`Line ${c.lineId} is moved from ${c.from} after a move to ${u.t}.`);
    u.t = c.to;
    if (c.matchedSupplierId !== undefined) u.ms = c.matchedSupplierId;
    if (c.dispatchId !== undefined) u.d = c.dispatchId;
    if (c.dispatchKey !== undefined) u.dk = c.dispatchKey;
    if (c.confirmedQuantity !== undefined) u.q = c.confirmedQuantity;
    if (c.ackDueAt !== undefined) u.a = c.ackDueAt;
    if (c.version !== undefined) u.v = c.version;
    updates.set(c.lineId, u);
  }
  // k: m(ove) or n(ote); s: the status logged (a note without one logs the line's status); f: from.
  // A note that repeats the line's previous entry of this same set is dropped here.
  const previous = new Map<number, string>();
  const kept = changes.filter((c) => {
    const repeat = c.kind === "note" && previous.get(c.lineId) === c.message;
    previous.set(c.lineId, c.message);
    return !repeat;
  });
  const entries = kept.map((c) =>
    c.kind === "move"
      ? { k: "m", i: c.lineId, o: c.orderId, f: c.from, s: c.to, m: c.message }
      : { k: "n", i: c.lineId, o: c.orderId, s: c.status ?? null, m: c.message },
  );
  const statements: SQL[] = [];
  if (updates.size > 0) {
    // A key absent from the JSON leaves its column as it is; present (null included) sets it.
    const column = (name: string, key: string) =>
      sql.raw(`${name} = CASE WHEN json_type(j.value, '$.${key}') IS NULL THEN order_lines.${name} ELSE j.value ->> '$.${key}' END`);
    const values = [...updates.values()];
    // Columns only some callers set are written only when one of them is in this set.
    const dispatch = values.some((u) => u.dk !== undefined)
      ? sql.raw(`dispatch_id = CASE WHEN json_type(j.value, '$.dk') IS NOT NULL
            THEN (SELECT d.id FROM dispatches d WHERE d.idempotency_key = j.value ->> '$.dk')
            WHEN json_type(j.value, '$.d') IS NULL THEN order_lines.dispatch_id ELSE j.value ->> '$.d' END`)
      : column("dispatch_id", "d");
    const ackDue = values.some((u) => u.a !== undefined) ? sql`, ${column("ack_due_at", "a")}` : sql``;
    statements.push(sql`UPDATE order_lines SET current_status = j.value ->> '$.t', updated_at = ${now}, move_token = ${token},
        ${column("matched_supplier_id", "ms")}, ${dispatch}, ${column("confirmed_quantity", "q")}${ackDue}
      FROM json_each(${JSON.stringify(values)}) AS j
      WHERE order_lines.id = j.value ->> '$.i' AND order_lines.order_id = j.value ->> '$.o'
        AND order_lines.current_status = j.value ->> '$.f'
        AND (json_type(j.value, '$.v') IS NULL OR order_lines.move_token IS j.value ->> '$.v')
        ${options.guard ? sql`AND ${options.guard}` : sql``}`);
    if (options.allOrNothing) statements.push(expectChanges(updates.size));
  }
  if (options.allOrNothing) {
    // Lines that are only noted must still be in the state the caller judged them by.
    const held = new Map<number, { i: number; o: number; s: LineStatus; v?: string | null }>();
    for (const c of changes) {
      if (c.kind === "note" && c.status && !updates.has(c.lineId)) held.set(c.lineId, { i: c.lineId, o: c.orderId, s: c.status, v: c.version });
    }
    if (held.size > 0) {
      statements.push(
        expectCount(
          sql`SELECT count(*) FROM json_each(${JSON.stringify([...held.values()])}) AS j
            JOIN order_lines l ON l.id = j.value ->> '$.i' AND l.order_id = j.value ->> '$.o' AND l.current_status = j.value ->> '$.s'
              AND (json_type(j.value, '$.v') IS NULL OR l.move_token IS j.value ->> '$.v')`,
          held.size,
        ),
      );
    }
  }
  // The log is keyed (order_id, order_line_id) like its index, so the lookups never leave the order.
  const lastMessage = sql`(SELECT g.message FROM order_line_logs g WHERE g.id =
      (SELECT max(id) FROM order_line_logs WHERE order_id = l.order_id AND order_line_id = l.id))`;
  statements.push(sql`INSERT INTO order_line_logs (order_line_id, order_id, status, message, created_at)
    SELECT l.id, l.order_id, coalesce(j.value ->> '$.s', l.current_status), j.value ->> '$.m', ${now}
    FROM json_each(${JSON.stringify(entries)}) AS j
    JOIN order_lines l ON l.id = j.value ->> '$.i' AND l.order_id = j.value ->> '$.o'
    WHERE CASE WHEN j.value ->> '$.k' = 'm' THEN l.move_token IS ${token}
      ELSE l.move_token IS ${token} OR ${lastMessage} IS NOT j.value ->> '$.m' END
    ORDER BY j.key`);
  if (updates.size > 0) statements.push(linesStatusChangedEvents(JSON.stringify(entries.filter((e) => e.k === "m")), token, now));
  return statements;
}

/** Moves only (see lineStatements). */
export function moveLinesStatements(moves: Move[], now: string, options?: LineStatementsOptions): SQL[] {
  return lineStatements(moves.map((m) => ({ kind: "move" as const, ...m })), now, options);
}

/** Notes only (see lineStatements). */
export function noteLinesStatements(notes: Note[], now: string): SQL[] {
  return lineStatements(notes.map((n) => ({ kind: "note" as const, ...n })), now);
}

/**
 * A line split in two mid-life: `quantity` of the parent goes to a new line (same product, prices and
 * position, `split_from_line_id` = the parent), which starts in `status` with its own log entries;
 * the parent keeps the rest. Used for the remainder of a partial confirmation that goes to another
 * supplier, and for a partly cancelled quantity (a new `skipped` line). Quantities always sum to what
 * the shop ordered.
 */
export type Split = {
  parentId: number;
  orderId: number;
  /** The parent's quantity as judged: the split applies only to that (compare-and-set). */
  parentQuantity: number;
  quantity: number;
  status: LineStatus;
  matchedSupplierId: number | null;
  rerouteChain: RerouteHop[] | null;
  /** The new line's log entries, oldest first, each with the status it logs. */
  log: { status: LineStatus; message: string }[];
};

/**
 * Any number of splits in five statements: the parents' quantities (and confirmed quantities, which
 * never exceed them), a guard that every parent was still as judged (or the batch aborts whole), the
 * new lines stamped with `token`, their log entries, and their order_line.status_changed events
 * (previous_status null: the line did not exist). `parentToken`: split only parents that a move of
 * this same batch stamped with it.
 */
export function splitStatements(splits: Split[], now: string, token: string, parentToken?: string): SQL[] {
  if (splits.length === 0) return [];
  const json = JSON.stringify(
    splits.map((s) => ({ p: s.parentId, o: s.orderId, pq: s.parentQuantity, q: s.quantity, s: s.status, ms: s.matchedSupplierId, c: s.rerouteChain, l: s.log })),
  );
  const parentMoved = parentToken ? sql`AND order_lines.move_token = ${parentToken}` : sql``;
  return [
    sql`UPDATE order_lines SET quantity = quantity - (j.value ->> '$.q'),
          confirmed_quantity = min(confirmed_quantity, quantity - (j.value ->> '$.q')), updated_at = ${now}
        FROM json_each(${json}) AS j
        WHERE order_lines.id = j.value ->> '$.p' AND order_lines.order_id = j.value ->> '$.o'
          AND order_lines.quantity = j.value ->> '$.pq' AND j.value ->> '$.q' < order_lines.quantity ${parentMoved}`,
    expectChanges(splits.length),
    sql`INSERT INTO order_lines (order_id, account_id, position, external_id, name, ean13, reference, quantity, stock_quantity, price,
          purchase_price, brand, category, supplier, image_url, custom, height, width, length, weight, current_status,
          matched_supplier_id, split_from_line_id, reroute_chain, move_token, created_at, updated_at)
        SELECT p.order_id, p.account_id, p.position, p.external_id, p.name, p.ean13, p.reference, j.value ->> '$.q', p.stock_quantity, p.price,
          p.purchase_price, p.brand, p.category, p.supplier, p.image_url, p.custom, p.height, p.width, p.length, p.weight, j.value ->> '$.s',
          j.value ->> '$.ms', p.id, CASE WHEN json_type(j.value, '$.c') = 'array' THEN j.value -> '$.c' END, ${token}, ${now}, ${now}
        FROM json_each(${json}) AS j JOIN order_lines p ON p.id = j.value ->> '$.p' AND p.order_id = j.value ->> '$.o'
        ORDER BY j.key`,
    sql`INSERT INTO order_line_logs (order_line_id, order_id, status, message, created_at)
        SELECT n.id, n.order_id, e.value ->> '$.status', e.value ->> '$.message', ${now}
        FROM json_each(${json}) AS j
        JOIN order_lines n ON n.order_id = j.value ->> '$.o' AND n.split_from_line_id = j.value ->> '$.p' AND n.move_token = ${token},
          json_each(j.value, '$.l') AS e
        ORDER BY j.key, e.key`,
    linesSplitEvents(json, token, now),
  ];
}

const openStates = sql.join(OPEN_STATES.map((s) => sql`${s}`), sql`, `);

/**
 * Keeps orders.completed_at true to the lines: set when no line is open any more, cleared
 * when one moves back. Run after the moves, in the same batch (with the same `now`).
 * updated_at moves only when something did: completed_at changed, or this batch logged a change
 * (every change logs, stamped `now`), so a redelivered message leaves the order as it was.
 * Any number of orders in two statements (one when the caller knows no line closed).
 */
export function completionStatements(
  orderIds: readonly number[],
  now: string,
  options: {
    /**
     * False when no move of the batch ends in a closed state: then no order can complete by it, and
     * its order.completed statement is left out.
     */
    closes?: boolean;
    /** More columns the caller sets in the same UPDATE (the pipeline's routed mark). */
    set?: SQL;
  } = {},
): SQL[] {
  const ids = JSON.stringify([...new Set(orderIds)]);
  const completedAt = sql`CASE WHEN EXISTS (SELECT 1 FROM order_lines WHERE order_id = orders.id
        AND current_status IN (${openStates})) THEN NULL ELSE coalesce(completed_at, ${now}) END`;
  return [
    ...(options.closes === false ? [] : [ordersCompletedEvent(ids, OPEN_STATES, now)]),
    sql`UPDATE orders SET ${options.set ? sql`${options.set},` : sql``}
      completed_at = ${completedAt},
      updated_at = CASE WHEN completed_at IS NOT ${completedAt}
        OR EXISTS (SELECT 1 FROM order_line_logs WHERE order_id = orders.id AND created_at = ${now})
        THEN ${now} ELSE updated_at END
    WHERE id IN (SELECT value FROM json_each(${ids}))`,
  ];
}

/**
 * The pipeline owes the order work again (a line was re-routed, retried or matched by hand and waits
 * to be claimed into a dispatch): its durable mark, which the sweeper finds should the queue message
 * be lost.
 */
export function owedToPipeline(orderIds: number | readonly number[], now: string): SQL {
  const ids = JSON.stringify(typeof orderIds === "number" ? [orderIds] : orderIds);
  return sql`UPDATE orders SET routed_at = NULL, route_requested_at = ${now} WHERE id IN (SELECT value FROM json_each(${ids}))`;
}

/** A log entry on every line of the order, only when the statement just before changed the order. */
const logOnEveryLineIfChanged = (orderId: number, message: string, now: string) =>
  sql`INSERT INTO order_line_logs (order_line_id, order_id, status, message, created_at)
      SELECT id, order_id, current_status, ${message}, ${now} FROM order_lines
      WHERE order_id = ${orderId} AND changes() = 1 ORDER BY position`;

/**
 * Sets (or clears) the order's blocked flag and logs it on every line, once: the log insert runs
 * only when the flag actually changed. Unblocking hands the order back to the pipeline in the
 * same statement (routed_at cleared), so a lost queue message cannot strand it.
 */
export function blockStatements(orderId: number, blocked: boolean, message: string, now: string): SQL[] {
  return [
    blocked
      ? sql`UPDATE orders SET blocked = 1, updated_at = ${now} WHERE id = ${orderId} AND blocked = 0`
      : sql`UPDATE orders SET blocked = 0, updated_at = ${now}, routed_at = NULL, route_requested_at = ${now} WHERE id = ${orderId} AND blocked = 1`,
    logOnEveryLineIfChanged(orderId, message, now),
    ...(blocked ? [orderBlockedEvent(orderId, message, now)] : []),
  ];
}

/**
 * Parks an order whose routing failed too often: the sweeper leaves it (routed_at set), every line
 * logs why, and the shop gets order.parked. Only the first park writes anything.
 */
export function parkStatements(orderId: number, message: string, now: string): SQL[] {
  return [
    sql`UPDATE orders SET parked_at = ${now}, routed_at = ${now}, updated_at = ${now} WHERE id = ${orderId} AND parked_at IS NULL`,
    logOnEveryLineIfChanged(orderId, message, now),
    orderParkedEvent(orderId, message, now),
  ];
}

/**
 * An operator's replay of a parked (or failing) order: attempts start again from zero and the
 * pipeline owes the order its routing (routed_at cleared), so the sweeper sees it if the queue
 * message is lost. Logged on every line once.
 */
export function replayStatements(orderId: number, message: string, now: string): SQL[] {
  return [
    sql`UPDATE orders SET parked_at = NULL, routing_attempts = 0, routing_error = NULL, routed_at = NULL,
          route_requested_at = ${now}, updated_at = ${now}
        WHERE id = ${orderId}`,
    logOnEveryLineIfChanged(orderId, message, now),
  ];
}
