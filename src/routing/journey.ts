// The journey: where an order's next step is decided. Routing (the pipeline's route step, "Match
// now", a re-match), re-routing a line that leaves its supplier (declined, confirmed in part, failed
// to send, silent past its deadline, or re-routed by hand), parking after failed attempts and the
// blocking rules all decide here, with one decision loop. Nothing here writes: every function
// returns a plan (the statements of one batch, then the sends and the follow-ups to queue). The
// pipeline's consumer carries the route step's and the overdue lines' (src/pipeline/consumer.ts),
// "Match now" its own (planRoute's match mode, routing.service.ts matchNow); a supplier's answer, a
// failed send and a line action put the plan of the lines that leave (planLeaving) in their own
// batch and queue its follow-ups.
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../db";
import { expectCount } from "../db/guards";
import type { Order, OrderLine } from "../db/schema";
import { newDispatchStatement, planDispatch, type Carried, type NewDispatch } from "./dispatch-plan";
import type { Plan } from "../lib/plan";
import type { PipelineMessage } from "../lib/queue";
import { leaseUntil } from "../lib/outbound";
import { isoMicro } from "../lib/time";
import { queuedCancellations } from "../orders/cancellations.service";
import { blockStatements, completionStatements, lineStatements, newToken, owedToPipeline, parkStatements, type LineChange } from "../orders/lifecycle";
import { loadOrdersToRoute, subjectOf } from "./context";
import { decideLine, type RoutingContext } from "./matching";
import { planReroutes, type Leaving, type ReroutePlan } from "./reroute";

export { CANCELLATION_HOLD, type Leaving } from "./reroute";

// ---- The decisions, shared by every way an order is routed ----------------------

/** The park an order gets once it has failed `maxAttempts` routing attempts in a row; null while it has not. */
function parkIfExhausted(order: Order, maxAttempts: number, now: string): SQL[] | null {
  if (order.routingAttempts < maxAttempts) return null;
  const message = `Order parked after ${order.routingAttempts} failed routing attempts${order.routingError ? ` (last error: ${order.routingError})` : ""}; an operator can replay it`;
  return parkStatements(order.id, message, now);
}

/** Lines whose supplier stayed silent past its acknowledgement deadline (src/forwarding/deadlines.ts), marked for re-routing. */
const overdueLines = (lines: OrderLine[]) => lines.filter((l) => l.rerouteReason !== null && l.matchedSupplierId !== null);

type OrderDecision =
  | { block: string }
  | {
      block: null;
      /** In the lines' order: a supplier for the line, or the change (skipped, or a note) that records why it has none. */
      decided: ({ assign: number; line: OrderLine; message: string } | { assign: null; change: LineChange })[];
    };

/**
 * Decides the order's pending lines. A blocking rule stops the whole order: no line is matched or
 * forwarded until it is unblocked. `guarded`: the changes carry each line's move token as read.
 */
function decideOrder(order: Order, pending: OrderLine[], ctx: RoutingContext, guarded: boolean): OrderDecision {
  const decisions = pending.map((line) => ({ line, ...decideLine(subjectOf(order, line), ctx) }));
  const blocker = decisions.find((d) => d.decision.action === "block");
  if (blocker) return { block: blocker.decision.message };
  return {
    block: null,
    decided: decisions.map(({ line, decision }) => {
      const base = { lineId: line.id, orderId: order.id, message: decision.message, ...(guarded ? { version: line.moveToken } : {}) };
      if (decision.action === "assign_supplier") return { assign: decision.supplier.id, line, message: decision.message };
      if (decision.action === "skip") return { assign: null, change: { kind: "move" as const, ...base, from: "pending" as const, to: "skipped" as const } };
      return { assign: null, change: { kind: "note" as const, ...base } };
    }),
  };
}

// ---- Lines leaving their supplier -------------------------------------------------

export type LeavingPlan = Omit<ReroutePlan, "statements" | "reroutedOrders"> & {
  /** After the lines' own statements, stamped with the same token: the re-routes and the mark that the pipeline owes their orders a dispatch. */
  statements: (token: string) => SQL[];
  /** Once the batch is written: the route step for each order with a line that went to another supplier. */
  followUps: PipelineMessage[];
};

/**
 * Where lines that leave their supplier go next (./reroute.ts decides each line: the next eligible
 * supplier, or why it stays), for any caller that writes their leaving: a supplier's answer
 * (declined, confirmed in part), a send that failed for the last time, a re-route asked for by hand.
 * The caller writes `changes` through lineStatements with its token and then `statements(token)`,
 * in its own batch, and queues `followUps` once that batch is written. One round trip, none when no
 * line may move on.
 */
export async function planLeaving(db: Db, accountId: number, leaving: Leaving[], now: string, known?: Order): Promise<LeavingPlan> {
  const { statements, reroutedOrders, ...plan } = await planReroutes(db, accountId, leaving, now, known);
  return {
    ...plan,
    statements: (token) => [...statements(token), ...(reroutedOrders.length ? [owedToPipeline(reroutedOrders, now)] : [])],
    followUps: reroutedOrders.map((orderId) => ({ type: "route_order" as const, orderId })),
  };
}

// ---- Routing: the pipeline's route step (match and dispatch), and "Match now" ------

export type RouteRequest = { orderId: number; redelivered: boolean };

/**
 * The pipeline's route step: match and dispatch; `maxAttempts`: an order that has failed this many
 * attempts is parked instead; `timeoutMs`: a push send's time box (its lease outlives it). Or
 * "Match now" (`match`): match only, and hand the order to the pipeline for its dispatch.
 */
export type RouteMode = { maxAttempts: number; timeoutMs: number } | { match: "now" };

/** What one order's routing did, for "Match now" to answer. */
export type RouteOutcome = {
  status: "not_found" | "blocked" | "parked" | "routed";
  ruled: number;
  skipped: number;
  unmatched: number;
  blockedNow: boolean;
  /** Lines re-routed after their supplier's acknowledgement deadline passed. */
  rerouted: number;
  /** Withdrawals written for the silent suppliers of those lines (the sweeper sends the queued ones). */
  withdrawn: number;
};

/** What the caller carries out: run `statements` in one batch, then `settle` its results. */
export type RoutePlan = {
  statements: SQL[];
  /** From the batch's results: the messages to queue, among them the first attempts at its push dispatches (send_dispatches, their lease handed over). */
  settle(results: D1Result[]): { followUps: PipelineMessage[] };
  /** The route step: orders (as read) with lines to re-route after a supplier's silence: `planOverdue` each and run its batch, then plan them again. */
  overdue: { order: Order; lines: OrderLine[] }[];
  /** Match now: what the plan does to each order. */
  outcomes: Map<number, RouteOutcome>;
};

/**
 * Plans routing for the orders: one round trip reads them all with their accounts' rules, suppliers
 * and catalogue candidates. The route step's batch matches their pending lines, creates their
 * dispatches already claimed for the first step of their channel (./dispatch-plan.ts: planDispatch),
 * and marks the orders routed. "Match now" (mode `match`) matches the pending lines without
 * dispatching them and re-routes the overdue ones in the same batch; the order is handed to the
 * pipeline (marked in that batch, and its route_order the follow-up). Safe to carry out any number
 * of times, concurrently too: every write is guarded by what it read (a line's status and move
 * token, a dispatch's lease), so a repeat changes nothing.
 */
export async function planRoute(db: Db, requests: RouteRequest[], mode: RouteMode): Promise<RoutePlan> {
  const started = new Date();
  const now = isoMicro(started);
  const matchNow = "match" in mode;
  const lease = isoMicro(leaseUntil(started, matchNow ? 0 : mode.timeoutMs));
  const orderIds = [...new Set(requests.map((r) => r.orderId))];
  const redelivered = [...new Set(requests.filter((r) => r.redelivered).map((r) => r.orderId))];
  const { orders, accounts } = await loadOrdersToRoute(db, orderIds, redelivered);

  const statements: SQL[] = [];
  const changes: LineChange[] = [];
  const created: NewDispatch[] = [];
  /** Orders this batch marks routed, with the request time it answers. */
  const routed: { i: number; r: string | null }[] = [];
  const overdue: { order: Order; lines: OrderLine[] }[] = [];
  const waiting: PipelineMessage[] = [];
  const outcomes = new Map<number, RouteOutcome>();
  let closes = false;

  for (const orderId of orderIds) {
    const loaded = orders.get(orderId);
    const outcome: RouteOutcome = { status: "routed", ruled: 0, skipped: 0, unmatched: 0, blockedNow: false, rerouted: 0, withdrawn: 0 };
    outcomes.set(orderId, outcome);
    if (matchNow) waiting.push({ type: "route_order", orderId });
    if (!loaded) {
      outcome.status = "not_found";
      continue;
    }
    const { order, lines } = loaded;
    if (order.parkedAt) {
      outcome.status = "parked";
      continue;
    }
    const park = matchNow ? null : parkIfExhausted(order, mode.maxAttempts, now);
    if (park) {
      statements.push(...park);
      continue;
    }
    // Held: unblocking hands the order back to the pipeline; its waiting dispatches wait too.
    if (order.blocked) {
      outcome.status = "blocked";
      if (!matchNow) routed.push({ i: order.id, r: order.routeRequestedAt });
      continue;
    }
    const ctx = { ...accounts.get(order.accountId)!, unblockedByHand: loaded.unblockedByHand };
    const decided = decideOrder(
      order,
      lines.filter((l) => l.currentStatus === "pending"),
      ctx,
      !matchNow,
    );
    if (matchNow) {
      statements.push(...(await matchNowStatements(db, order, lines, decided, outcome, now)));
      continue;
    }
    // Lines to re-route after their supplier's silence go first (unless a blocking rule stops the
    // order): the rest of the order is planned again once they are.
    const overdueNow = overdueLines(lines).length > 0;
    if (overdueNow && decided.block === null) {
      overdue.push({ order, lines });
      continue;
    }
    routed.push({ i: order.id, r: order.routeRequestedAt });
    if (!overdueNow) waiting.push(...loaded.queuedDispatchIds.map((dispatchId) => ({ type: "send_dispatch" as const, dispatchId })));
    if (decided.block !== null) {
      statements.push(...blockStatements(order.id, true, decided.block, now));
      continue;
    }
    // Per supplier, the lines its dispatch carries: the ones matched now, and ruled ones that have
    // none yet (re-routed to it, or matched on demand).
    const bySupplier = new Map<number, Carried[]>();
    const carry = (supplierId: number, entry: Carried) => bySupplier.set(supplierId, [...(bySupplier.get(supplierId) ?? []), entry]);
    for (const d of decided.decided) {
      if (d.assign !== null) carry(d.assign, { line: d.line, from: "pending", message: d.message });
      else {
        changes.push(d.change);
        if (d.change.kind === "move") closes = true;
      }
    }
    for (const line of lines) {
      if (line.currentStatus === "ruled" && line.dispatchId === null && line.matchedSupplierId !== null) carry(line.matchedSupplierId, { line, from: "ruled" });
    }
    for (const [supplierId, carried] of bySupplier) {
      const planned = planDispatch(order, supplierId, ctx.supplierRows.get(supplierId), carried, { now, lease, started });
      changes.push(...planned.changes);
      closes ||= planned.closes;
      created.push(planned.created);
    }
  }

  // Ruled lines that already had a dispatch id keep it; the rest get their new dispatch's (by key).
  const claimedRuled = created.flatMap((c) =>
    c.lines.filter((l) => l.from === "ruled" && c.dispatch.status !== "dry_run").map((l) => ({ i: l.line.id, o: l.line.orderId, k: c.dispatch.idempotencyKey, a: c.ackDueAt })),
  );
  const routedMark = sql`parked_at IS NULL
      AND route_requested_at IS (SELECT j.value ->> '$.r' FROM json_each(${JSON.stringify(routed)}) AS j WHERE j.value ->> '$.i' = orders.id)
      AND (blocked = 1 OR NOT EXISTS (SELECT 1 FROM order_lines WHERE order_id = orders.id AND current_status = 'ruled' AND dispatch_id IS NULL))`;
  const newDispatchAt = statements.length;
  if (created.length) statements.push(newDispatchStatement(created, now));
  const token = newToken();
  statements.push(...lineStatements(changes, now, { token }));
  if (claimedRuled.length) {
    statements.push(sql`UPDATE order_lines SET dispatch_id = d.id, updated_at = ${now}, ack_due_at = coalesce(j.value ->> '$.a', order_lines.ack_due_at)
        FROM json_each(${JSON.stringify(claimedRuled)}) AS j JOIN dispatches d ON d.idempotency_key = j.value ->> '$.k'
        WHERE order_lines.id = j.value ->> '$.i' AND order_lines.order_id = j.value ->> '$.o'
          AND order_lines.current_status = 'ruled' AND order_lines.dispatch_id IS NULL`);
  }
  if (routed.length) {
    statements.push(
      ...completionStatements(
        routed.map((r) => r.i),
        now,
        {
          closes,
          // Done with the order, unless someone handed it to the pipeline again since it was read
          // (then the sweeper must still see it), or a line matched now found no dispatch (a
          // concurrent change): attempts start over.
          set: sql`routed_at = CASE WHEN ${routedMark} THEN ${now} ELSE routed_at END,
            routing_attempts = CASE WHEN ${routedMark} THEN 0 ELSE routing_attempts END,
            routing_error = CASE WHEN ${routedMark} THEN NULL ELSE routing_error END`,
        },
      ),
    );
  }

  const settle = (results: D1Result[]) => {
    // The dispatches this batch created (a dispatch is created only when every line it carries was
    // still as read, so it carries exactly them); an order whose dispatch was not created goes round again.
    const ids = new Map(created.length ? (results[newDispatchAt].results as { id: number; idempotency_key: string }[]).map((r) => [r.idempotency_key, r.id]) : []);
    const again = new Set<number>();
    // The push dispatches it created claimed under `lease`, per account: their first attempt is
    // handed over to the outbound queue with that lease, so routing never waits on a supplier.
    const handOver = new Map<number, number[]>();
    for (const c of created) {
      const id = ids.get(c.dispatch.idempotencyKey);
      if (id === undefined) {
        again.add(c.dispatch.orderId);
        continue;
      }
      if (c.dispatch.status !== "sending") continue;
      handOver.set(c.dispatch.accountId, [...(handOver.get(c.dispatch.accountId) ?? []), id]);
    }
    const sends = [...handOver.values()].map((dispatchIds) => ({ type: "send_dispatches" as const, dispatchIds, lease }));
    return { followUps: [...waiting, ...[...again].map((orderId) => ({ type: "route_order" as const, orderId })), ...sends] };
  };
  return { statements, settle, overdue, outcomes };
}

/**
 * "Match now" of one order, as decided: its pending lines ruled (without a dispatch: the pipeline
 * owes the order that, marked in the same batch), skipped or noted, or the order blocked; and its
 * overdue lines re-routed in the same batch. Any number of lines costs the same few statements.
 */
async function matchNowStatements(db: Db, order: Order, lines: OrderLine[], decided: OrderDecision, outcome: RouteOutcome, now: string): Promise<SQL[]> {
  const statements: SQL[] = [];
  if (decided.block !== null) {
    statements.push(...blockStatements(order.id, true, decided.block, now));
    outcome.blockedNow = true;
  } else {
    const changes: LineChange[] = decided.decided.map((d) => {
      if (d.assign !== null) {
        outcome.ruled++;
        return { kind: "move", lineId: d.line.id, orderId: order.id, message: d.message, from: "pending", to: "ruled", matchedSupplierId: d.assign };
      }
      if (d.change.kind === "move") outcome.skipped++;
      else outcome.unmatched++;
      return d.change;
    });
    statements.push(...lineStatements(changes, now));
  }
  const silent = overdueLines(lines);
  if (silent.length > 0 && !outcome.blockedNow) {
    const overdue = await overdueStatements(db, order, silent, now);
    statements.push(...overdue.statements);
    outcome.rerouted = overdue.rerouted;
    outcome.withdrawn = overdue.withdrawn;
  }
  statements.push(sql`UPDATE orders SET routed_at = NULL, route_requested_at = ${now} WHERE id = ${order.id}`);
  statements.push(...completionStatements([order.id], now));
  return statements;
}

/**
 * An order of a route plan's `overdue`, as that plan read it: its overdue lines re-routed (or left
 * with a note), in one batch of their own, which also reads the withdrawals it queued for the
 * silent suppliers; those are the follow-ups. The order's other lines are left to the next route
 * plan. Writes nothing: the caller runs the batch.
 */
export async function planOverdue(db: Db, order: Order, lines: OrderLine[]): Promise<Plan<null>> {
  const now = isoMicro();
  const overdue = await overdueStatements(db, order, overdueLines(lines), now);
  const statements = [...overdue.statements, ...completionStatements([order.id], now)];
  if (overdue.withdrawn > 0) statements.push(queuedCancellations(order.id));
  return {
    statements,
    settle: (results) => ({
      result: null,
      followUps:
        overdue.withdrawn === 0
          ? []
          : (results[results.length - 1].results as { id: number }[]).map((r) => ({ type: "send_cancellation" as const, cancellationId: r.id })),
    }),
  };
}

/**
 * Re-routes (or, when no other supplier can take it, leaves with a note) each line marked for
 * re-routing after its supplier's silence. All of it only while every mark is still as read: a
 * supplier's answer that came in meanwhile clears the mark, and this batch then aborts (the
 * message is redelivered and finds the answer).
 */
async function overdueStatements(db: Db, order: Order, silent: OrderLine[], now: string): Promise<{ statements: SQL[]; rerouted: number; withdrawn: number }> {
  const plan = await planReroutes(
    db,
    order.accountId,
    silent.map((line) => ({ line, from: line.currentStatus, to: null, cause: "overdue" as const, supplier: { id: line.matchedSupplierId! }, message: line.rerouteReason! })),
    now,
    order,
  );
  const token = newToken();
  const marks = JSON.stringify(silent.map((l) => ({ i: l.id, r: l.rerouteReason })));
  const statements = [
    expectCount(
      sql`SELECT count(*) FROM json_each(${marks}) AS j JOIN order_lines l ON l.id = j.value ->> '$.i' AND l.order_id = ${order.id}
          WHERE l.reroute_reason = j.value ->> '$.r'`,
      silent.length,
    ),
    ...lineStatements(plan.changes, now, { token }),
    ...plan.statements(token),
    // Settled either way: re-routed lines lost the mark with their chain update, the others lose it here.
    sql`UPDATE order_lines SET reroute_reason = NULL
        WHERE id IN (SELECT j.value ->> '$.i' FROM json_each(${marks}) AS j) AND order_id = ${order.id} AND reroute_reason IS NOT NULL`,
  ];
  return { statements, rerouted: plan.rerouted, withdrawn: plan.withdrawn };
}
