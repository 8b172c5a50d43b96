// Supplier deadlines on a line: an answer (accept, decline, partial, ship, acknowledge) within the
// supplier's acknowledgement hours of the send, a shipment within its shipping days of the
// acceptance. Each is a due-at column, set when its clock starts and cleared when it is met; the cron
// sweeper fires what is due from an index range (never a scan), once: the statement that fires a
// deadline clears it, and a sweep that overlaps or repeats finds nothing left to fire.
import { sql, type SQL } from "drizzle-orm";
import { notMoving } from "../db/moving";
import { runBatch, toStatement, type Db, type Row } from "../db";
import type { Supplier } from "../db/schema";
import { lineOverdueEvents, type Overdue } from "../events/outbox";
import { isoMicro } from "../lib/time";
import { newToken } from "../orders/lifecycle";
import { count } from "../lib/plural";

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** Starts the acknowledgement clock of lines that just reached the supplier (none without a deadline). */
export function ackDeadlineStatements(supplier: Pick<Supplier, "ackDeadlineHours">, lineIds: number[], from: Date): SQL[] {
  const due = ackDueAtOf(supplier, from);
  if (!due || lineIds.length === 0) return [];
  return [
    sql`UPDATE order_lines SET ack_due_at = ${due}
        WHERE id IN (SELECT value FROM json_each(${JSON.stringify(lineIds)})) AND current_status IN ('ruled', 'completed')`,
  ];
}

/** When the acknowledgement clock started at `from` runs out (null: the supplier has no such deadline). */
export function ackDueAtOf(supplier: Pick<Supplier, "ackDeadlineHours">, from: Date): string | null {
  return supplier.ackDeadlineHours ? isoMicro(new Date(from.getTime() + supplier.ackDeadlineHours * HOUR_MS)) : null;
}

/** What a supplier's answer does to a line's clocks. */
export type Answered = { lineId: number; orderId: number; shipping: "start" | "stop" | "keep" };

/**
 * Any answer stops the acknowledgement clock (and a pending re-route for silence, and an overdue
 * acknowledgement); an acceptance starts the shipping clock of the line's supplier (when it has one
 * and it is not running); a shipment or a decline stops it. One statement for any number of lines.
 */
export function answeredStatements(answered: Answered[], now: string): SQL[] {
  if (answered.length === 0) return [];
  const json = JSON.stringify(answered.map((a) => ({ i: a.lineId, o: a.orderId, s: a.shipping })));
  const stopsOverdue = sql`(j.value ->> '$.s' = 'stop' OR order_lines.overdue_deadline = 'acknowledgement')`;
  // The due time in the service's timestamp form (six fractional digits, Z), so text comparison orders it.
  const shipDue = sql`(SELECT strftime('%Y-%m-%dT%H:%M:%f', ${now}, '+' || s.ship_deadline_days || ' days') || '000Z'
      FROM suppliers s WHERE s.id = order_lines.matched_supplier_id AND s.ship_deadline_days IS NOT NULL)`;
  return [
    sql`UPDATE order_lines SET ack_due_at = NULL, reroute_reason = NULL,
          ship_due_at = CASE j.value ->> '$.s' WHEN 'stop' THEN NULL WHEN 'start' THEN coalesce(ship_due_at, ${shipDue}) ELSE ship_due_at END,
          overdue_at = CASE WHEN ${stopsOverdue} THEN NULL ELSE overdue_at END,
          overdue_deadline = CASE WHEN ${stopsOverdue} THEN NULL ELSE overdue_deadline END
        FROM json_each(${json}) AS j
        WHERE order_lines.id = j.value ->> '$.i' AND order_lines.order_id = j.value ->> '$.o'`,
  ];
}

/** At most this many deadlines of each kind per sweep; the next sweep takes the rest. */
const FIRE_LIMIT = 200;

type Due = { id: number; orderId: number; supplierId: number; supplierName: string; hours: number | null; days: number | null; reroute: boolean; dueAt: string };

const dueLines = (column: "ack_due_at" | "ship_due_at", at: string) =>
  sql`SELECT l.id, l.order_id, l.matched_supplier_id AS supplier_id, s.name AS supplier_name, s.ack_deadline_hours AS hours,
        s.ship_deadline_days AS days, l.${sql.raw(column)} AS due_at,
        -- A line the shop is cancelling is not re-routed (src/routing/reroute.ts holds it too).
        s.ack_deadline_reroute AND NOT EXISTS (SELECT 1 FROM cancellation_lines c
          WHERE c.order_line_id = l.id AND c.status = 'requested' AND c.purpose = 'cancel') AS reroute
      FROM order_lines l JOIN suppliers s ON s.id = l.matched_supplier_id
      WHERE l.${sql.raw(column)} <= ${at} AND ${notMoving("l.account_id")} ORDER BY l.${sql.raw(column)} LIMIT ${FIRE_LIMIT}`;

const toDue = (r: Row): Due => ({
  id: r.id as number,
  orderId: r.order_id as number,
  supplierId: r.supplier_id as number,
  supplierName: r.supplier_name as string,
  hours: r.hours as number | null,
  days: r.days as number | null,
  reroute: Boolean(r.reroute),
  dueAt: r.due_at as string,
});

export type FiredDeadlines = { acknowledgement: number[]; shipping: number[]; rerouteOrders: number[] };

/**
 * Fires every deadline due at `now` (up to FIRE_LIMIT of each kind): one read of two index ranges,
 * then one batch that clears each due-at, marks the lines overdue (only lines still waiting on the
 * supplier: a cancelled or re-routed line's deadline is simply cleared), logs it and sends
 * order_line.overdue, exactly for the lines this batch fired (its token). A passed acknowledgement
 * deadline of a supplier that re-routes marks the line for re-routing and hands its order to the
 * pipeline (whose message the caller sends); returns what fired.
 */
export async function fireDeadlines(db: Db, now: Date): Promise<FiredDeadlines> {
  const at = isoMicro(now);
  const [ackRows, shipRows] = await db.$client.batch<Row>([toStatement(db, dueLines("ack_due_at", at)), toStatement(db, dueLines("ship_due_at", at))]);
  const ack = ackRows.results.map(toDue);
  const ship = shipRows.results.map(toDue);
  if (ack.length === 0 && ship.length === 0) return { acknowledgement: [], shipping: [], rerouteOrders: [] };

  const token = newToken();
  const plural = (n: number | null, unit: string) => (n === null ? `the ${unit}s set` : count(n, unit));
  const message = (d: Due, kind: "acknowledgement" | "shipping") =>
    kind === "acknowledgement"
      ? `No answer from supplier ${d.supplierName} within ${plural(d.hours, "hour")} of the send (acknowledgement deadline)`
      : `No shipment from supplier ${d.supplierName} within ${plural(d.days, "day")} of its acceptance (shipping deadline)`;
  const entries = [
    ...ack.map((d) => ({ d, kind: "acknowledgement" as const, m: message(d, "acknowledgement"), r: d.reroute })),
    ...ship.map((d) => ({ d, kind: "shipping" as const, m: message(d, "shipping"), r: false })),
  ];
  const json = JSON.stringify(entries.map((e) => ({ i: e.d.id, o: e.d.orderId, k: e.kind, m: e.m, r: e.r })));
  const events: Overdue[] = entries.map((e) => ({
    o: e.d.orderId,
    i: e.d.id,
    t: token,
    deadline: e.kind,
    dueAt: e.d.dueAt,
    supplier: { id: e.d.supplierId, name: e.d.supplierName },
    reroute: e.r,
  }));
  // A line still waits on its supplier: for an answer (ruled: pull or manual, completed: pushed), or for a shipment.
  const waiting = sql`CASE j.value ->> '$.k'
      WHEN 'acknowledgement' THEN order_lines.current_status IN ('ruled', 'completed') AND order_lines.ack_due_at <= ${at}
      ELSE order_lines.current_status IN ('completed', 'partially_completed') AND order_lines.ship_due_at <= ${at} END`;
  const results = await runBatch(db, [
    sql`UPDATE order_lines SET
          ack_due_at = CASE WHEN j.value ->> '$.k' = 'acknowledgement' THEN NULL ELSE ack_due_at END,
          ship_due_at = CASE WHEN j.value ->> '$.k' = 'shipping' THEN NULL ELSE ship_due_at END,
          overdue_at = CASE WHEN ${waiting} THEN ${at} ELSE overdue_at END,
          overdue_deadline = CASE WHEN ${waiting} THEN j.value ->> '$.k' ELSE overdue_deadline END,
          reroute_reason = CASE WHEN ${waiting} AND j.value ->> '$.r' THEN j.value ->> '$.m' ELSE reroute_reason END,
          deadline_token = CASE WHEN ${waiting} THEN ${token} ELSE deadline_token END
        FROM json_each(${json}) AS j
        WHERE order_lines.id = j.value ->> '$.i' AND order_lines.order_id = j.value ->> '$.o'
          AND (CASE j.value ->> '$.k' WHEN 'acknowledgement' THEN order_lines.ack_due_at ELSE order_lines.ship_due_at END) <= ${at}
          -- Read before its write: an account frozen in between is left for later, not failing the batch.
          AND ${notMoving("order_lines.account_id")}`,
    sql`INSERT INTO order_line_logs (order_line_id, order_id, status, message, created_at)
        SELECT l.id, l.order_id, l.current_status, j.value ->> '$.m', ${at}
        FROM json_each(${json}) AS j JOIN order_lines l ON l.id = j.value ->> '$.i' AND l.order_id = j.value ->> '$.o'
        WHERE l.deadline_token = ${token} ORDER BY j.key`,
    lineOverdueEvents(events, at),
    // The pipeline owes a re-route to the orders of lines whose supplier re-routes on silence.
    sql`UPDATE orders SET routed_at = NULL, route_requested_at = ${at}
        WHERE id IN (SELECT l.order_id FROM json_each(${json}) AS j JOIN order_lines l ON l.id = j.value ->> '$.i' AND l.order_id = j.value ->> '$.o'
                     WHERE j.value ->> '$.r' AND l.deadline_token = ${token} AND l.reroute_reason IS NOT NULL)
        RETURNING id`,
    sql`SELECT j.value ->> '$.i' AS id, j.value ->> '$.k' AS kind FROM json_each(${json}) AS j
        JOIN order_lines l ON l.id = j.value ->> '$.i' AND l.order_id = j.value ->> '$.o' WHERE l.deadline_token = ${token}`,
  ]);
  const fired = results[4].results as { id: number; kind: "acknowledgement" | "shipping" }[];
  return {
    acknowledgement: fired.filter((f) => f.kind === "acknowledgement").map((f) => Number(f.id)),
    shipping: fired.filter((f) => f.kind === "shipping").map((f) => Number(f.id)),
    rerouteOrders: (results[3].results as { id: number }[]).map((r) => r.id),
  };
}
