// Routing an order: load what the decisions need (in one round trip), decide each pending line,
// and write every outcome through the state machine in one batch.
import { and, asc, eq, isNull, like, sql, type SQL } from "drizzle-orm";
import { runBatch, type Db } from "../db";
import { orderLineLogs, orderLines, orders, type ManualDecision, type Order, type OrderLine, type RerouteHop, type RoutingRule } from "../db/schema";
import { expectCount } from "../db/guards";
import { blockStatements, completionStatements, lineStatements, newToken, parkStatements, type LineChange } from "../orders/lifecycle";
import type { Pipeline } from "../lib/queue";
import { isoMicro } from "../lib/time";
import type { CreateOrderInput } from "../orders/orders.schemas";
import { findOrder, lineColumns, orderColumns } from "../orders/orders.service";
import { loadRoutingContext, subjectOf, UNBLOCKED_BY_HAND, type LineLike, type OrderLike } from "./context";
import { decideLine, DRAFT_RULE_ID } from "./matching";
import { planReroutes } from "./reroute";
import type { CreateRuleInput } from "./rules.schemas";


const unblockedByHand = (db: Db, orderId: number) =>
  db
    .select({ id: orderLineLogs.id })
    .from(orderLineLogs)
    .where(and(eq(orderLineLogs.orderId, orderId), like(orderLineLogs.message, `${UNBLOCKED_BY_HAND}%`)))
    .limit(1);

export type RouteOutcome = {
  status: "not_found" | "blocked" | "parked" | "routed";
  ruled: number;
  skipped: number;
  unmatched: number;
  blockedNow: boolean;
  /** Lines re-routed after their supplier's acknowledgement deadline passed. */
  rerouted: number;
  /** Withdrawals written for the silent suppliers of those lines (the caller sends the queued ones). */
  withdrawn: number;
};

export type RouteOptions = {
  /**
   * Set by the pipeline: an order that has failed this many routing attempts in a row is parked
   * instead of routed (the pipeline's dispatch step resets the count when all went well).
   * Unset (matching on demand): the order is handed to the pipeline to be dispatched instead.
   */
  maxAttempts?: number;
  /**
   * This run follows a failed attempt (a redelivery of its queue message): counted in the read's
   * own transaction, before anything can fail, so even an attempt that crashed the Worker counts.
   * First deliveries do not count, so concurrent runs that all succeed never add up.
   */
  countAttempt?: boolean;
};

/**
 * Matches the order's pending lines. Safe to run any number of times, concurrently too: every
 * write is guarded by the line's current status, so a repeat changes and logs nothing. Any
 * number of lines costs the same few statements (lifecycle.ts).
 */
export async function routeOrder(db: Db, orderId: number, options: RouteOptions = {}): Promise<RouteOutcome> {
  const pipeline = options.maxAttempts !== undefined;
  const now = isoMicro();
  const reads = [
    db.select().from(orders).where(eq(orders.id, orderId)),
    db.select().from(orderLines).where(eq(orderLines.orderId, orderId)).orderBy(asc(orderLines.position), asc(orderLines.id)),
    unblockedByHand(db, orderId),
  ] as const;
  let orderRows: Order[], lineRows: OrderLine[], unblockedRows: { id: number }[];
  if (pipeline && options.countAttempt) {
    const attempt = db
      .update(orders)
      .set({ routingAttempts: sql`${orders.routingAttempts} + 1` })
      .where(and(eq(orders.id, orderId), isNull(orders.parkedAt)));
    [, orderRows, lineRows, unblockedRows] = await db.batch([attempt, ...reads]);
  } else {
    [orderRows, lineRows, unblockedRows] = await db.batch(reads);
  }
  const order = orderRows[0];
  const outcome: RouteOutcome = { status: "routed", ruled: 0, skipped: 0, unmatched: 0, blockedNow: false, rerouted: 0, withdrawn: 0 };
  if (!order) return { ...outcome, status: "not_found" };
  if (order.parkedAt) return { ...outcome, status: "parked" };
  if (pipeline && order.routingAttempts >= options.maxAttempts!) {
    const message = `Order parked after ${order.routingAttempts} failed routing attempts${order.routingError ? ` (last error: ${order.routingError})` : ""}; an operator can replay it`;
    await runBatch(db, parkStatements(order.id, message, now));
    return { ...outcome, status: "parked" };
  }
  // Held: unblocking hands the order back to the pipeline.
  if (order.blocked) return { ...outcome, status: "blocked" };
  const pending = lineRows.filter((l) => l.currentStatus === "pending");
  const statements: SQL[] = [];

  if (pending.length > 0) {
    const ctx = { ...(await loadRoutingContext(db, order.accountId, pending)), unblockedByHand: unblockedRows.length > 0 };
    const decisions = pending.map((line) => ({ line, ...decideLine(subjectOf(order, line), ctx) }));
    const blocker = decisions.find((d) => d.decision.action === "block");
    if (blocker) {
      // A blocking rule stops the whole order: no line is matched or forwarded until it is unblocked.
      statements.push(...blockStatements(order.id, true, blocker.decision.message, now));
      outcome.blockedNow = true;
    } else {
      const changes: LineChange[] = [];
      for (const { line, decision } of decisions) {
        const base = { lineId: line.id, orderId: order.id, message: decision.message };
        if (decision.action === "assign_supplier") {
          outcome.ruled++;
          changes.push({ kind: "move", ...base, from: "pending", to: "ruled", matchedSupplierId: decision.supplier.id });
        } else if (decision.action === "skip") {
          outcome.skipped++;
          changes.push({ kind: "move", ...base, from: "pending", to: "skipped" });
        } else {
          outcome.unmatched++;
          changes.push({ kind: "note", ...base });
        }
      }
      statements.push(...lineStatements(changes, now));
    }
  }
  // Lines whose supplier stayed silent past its acknowledgement deadline (src/forwarding/deadlines.ts).
  const silent = lineRows.filter((l) => l.rerouteReason !== null && l.matchedSupplierId !== null);
  if (silent.length > 0 && !outcome.blockedNow) statements.push(...(await silentStatements(db, order, silent, now, outcome)));
  // On demand, the pipeline still owes the order its dispatch: marked in the same batch.
  if (!pipeline) statements.push(sql`UPDATE orders SET routed_at = NULL, route_requested_at = ${now} WHERE id = ${order.id}`);
  statements.push(...completionStatements([order.id], now));
  await runBatch(db, statements);
  return outcome;
}

/**
 * Re-routes (or, when no other supplier can take it, leaves with a note) each line marked for
 * re-routing after its supplier's silence. All of it only while every mark is still as read: a
 * supplier's answer that came in meanwhile clears the mark, and this batch then aborts (the
 * message is redelivered and finds the answer).
 */
async function silentStatements(db: Db, order: Order, silent: OrderLine[], now: string, outcome: RouteOutcome): Promise<SQL[]> {
  const plan = await planReroutes(
    db,
    order.accountId,
    silent.map((line) => ({ line, from: line.currentStatus, to: null, cause: "overdue" as const, supplier: { id: line.matchedSupplierId! }, message: line.rerouteReason! })),
    now,
    order,
  );
  outcome.rerouted = plan.rerouted;
  outcome.withdrawn = plan.withdrawn;
  const token = newToken();
  const marks = JSON.stringify(silent.map((l) => ({ i: l.id, r: l.rerouteReason })));
  return [
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
}

// ---- Operator and shop actions on one order ----------------------------------

/**
 * Blocks or unblocks by hand; logs once on every line. An unblocked order goes back to the
 * pipeline (marked in the same batch, so the sweeper routes it should the message be lost).
 * Returns the order's id.
 */
export async function setBlocked(db: Db, pipeline: Pipeline, accountId: number, reference: string, blocked: boolean, reason?: string) {
  const order = await findOrder(db, accountId, reference);
  const message = blocked ? `Order blocked by hand${reason ? `: ${reason}` : ""}` : `${UNBLOCKED_BY_HAND}${reason ? `: ${reason}` : ""}`;
  await runBatch(db, blockStatements(order.id, blocked, message, isoMicro()));
  if (!blocked) await pipeline.send([{ type: "route_order", orderId: order.id }]);
  return order.id;
}

/** Matches the order now (on demand); the lines that became ruled go on to their suppliers through the pipeline. Returns the order's id and what matching did. */
export async function routeNow(db: Db, pipeline: Pipeline, accountId: number, reference: string) {
  const order = await findOrder(db, accountId, reference);
  const outcome = await routeOrder(db, order.id);
  await pipeline.send([{ type: "route_order", orderId: order.id }]);
  return { orderId: order.id, outcome };
}

// ---- Explain: what would happen, writing nothing -------------------------------

/** A rule not saved yet, tried by explain: a new one, or a saved one (`id`) as it would be after an edit. */
export type DraftRule = CreateRuleInput & { id?: number };

/**
 * The rules with the draft among them, evaluated as if saved and active: in place of the saved rule
 * it edits, at its priority (without one: the edited rule's, or after every other rule).
 */
function withDraft(rules: RoutingRule[], accountId: number, draft: DraftRule): RoutingRule[] {
  const id = draft.id ?? DRAFT_RULE_ID;
  const others = rules.filter((r) => r.id !== id);
  const priority = draft.priority ?? rules.find((r) => r.id === id)?.priority ?? Math.max(0, ...others.map((r) => r.priority)) + 10;
  const rule: RoutingRule = {
    id,
    accountId,
    name: draft.name,
    priority,
    match: draft.match ?? "all",
    conditions: draft.conditions,
    action: draft.action,
    active: true,
    noReroute: draft.no_reroute ?? false,
    createdAt: "",
    updatedAt: "",
  };
  return [...others, rule].sort((a, b) => a.priority - b.priority || a.id - b.id);
}

export async function explainOrder(db: Db, accountId: number, input: { reference?: string; order?: CreateOrderInput; rule?: DraftRule }) {
  let order: OrderLike & { reference: string | null; blocked: boolean };
  let lines: (LineLike & { id: number | null; currentStatus: string | null; splitFromLineId: number | null; rerouteChain: RerouteHop[] | null; manualDecision: ManualDecision | null })[];
  let unblocked = false;
  if (input.reference !== undefined) {
    const found = await findOrder(db, accountId, input.reference);
    order = found;
    const [lineRows, unblockedRows] = await db.batch([
      db.select().from(orderLines).where(eq(orderLines.orderId, found.id)).orderBy(asc(orderLines.position), asc(orderLines.id)),
      unblockedByHand(db, found.id),
    ]);
    lines = lineRows;
    unblocked = unblockedRows.length > 0;
  } else {
    order = { ...orderColumns(input.order!), reference: null, blocked: false };
    lines = input.order!.products.map((p) => ({ ...lineColumns(p), id: null, currentStatus: null, splitFromLineId: null, rerouteChain: null, manualDecision: null }));
  }
  const loaded = await loadRoutingContext(db, accountId, lines);
  const policy = loaded.policy;
  const ctx = { ...loaded, rules: input.rule ? withDraft(loaded.rules, accountId, input.rule) : loaded.rules, unblockedByHand: unblocked };
  const draftId = input.rule ? (input.rule.id ?? DRAFT_RULE_ID) : null;
  const explained = lines.map((line, position) => {
    // A re-routed line is decided as re-routing decides it: without the suppliers it already had.
    const chain = line.rerouteChain ?? [];
    const { decision, trace } = decideLine(subjectOf(order, line), ctx, new Set(chain.map((h) => h.supplier_id)));
    return { position, line, chain, decision, trace };
  });
  const blocker = explained.find((l) => l.decision.action === "block");
  // Only pending lines are matched when the order is processed; a block stops the whole order.
  const outcome = order.blocked ? "already_blocked" : blocker ? "would_block" : "would_route";
  // src/routing/explain.present.ts shows it (the API's JSON, and the console's explain pages).
  return { reference: order.reference, blocked: order.blocked, outcome, policy, draftRuleId: draftId, lines: explained };
}
