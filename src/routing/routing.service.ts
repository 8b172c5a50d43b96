// Routing's actions on one order (block, unblock, "Match now") and explain. The decisions
// themselves are made in ./journey.ts; "Match now" carries out its plan here.
import { asc, eq } from "drizzle-orm";
import { runBatch, type Db } from "../db";
import { orderLines, type ManualDecision, type RerouteHop, type RoutingRule } from "../db/schema";
import { blockStatements } from "../orders/lifecycle";
import type { Pipeline } from "../lib/queue";
import { isoMicro } from "../lib/time";
import type { CreateOrderInput } from "../orders/orders.schemas";
import { findOrder, lineColumns, orderColumns } from "../orders/orders.service";
import { loadRoutingContext, subjectOf, unblockedByHand, UNBLOCKED_BY_HAND, type LineLike, type OrderLike } from "./context";
import { decideLine, DRAFT_RULE_ID } from "./matching";
import { planRoute } from "./journey";
import type { CreateRuleInput } from "./rules.schemas";


// ---- Operator and shop actions on one order ----------------------------------

/**
 * Blocks or unblocks by hand; logs once on every line. An unblocked order goes back to the
 * pipeline (marked in the same batch, so the sweeper routes it should the message be lost).
 * Returns the order's id.
 */
/**
 * Blocks or unblocks an order by hand. `changed`: whether this call did it; false when the order
 * already was so (a racing action got there first), and then nothing was written.
 */
export async function setBlocked(db: Db, pipeline: Pipeline, accountId: number, reference: string, blocked: boolean, reason?: string) {
  const order = await findOrder(db, accountId, reference);
  const message = blocked ? `Order blocked by hand${reason ? `: ${reason}` : ""}` : `${UNBLOCKED_BY_HAND}${reason ? `: ${reason}` : ""}`;
  const [flag] = await runBatch(db, blockStatements(order.id, blocked, message, isoMicro()));
  if (!blocked) await pipeline.send([{ type: "route_order", orderId: order.id }]);
  return { orderId: order.id, changed: flag.meta.changes > 0 };
}

/**
 * "Match now": the journey's routing plan for the order in its `match` mode (src/routing/journey.ts
 * planRoute, as the pipeline's route step), carried out here; the lines that became ruled go on to
 * their suppliers through the pipeline. Returns the order's id and what matching did.
 */
export async function matchNow(db: Db, pipeline: Pipeline, accountId: number, reference: string) {
  const order = await findOrder(db, accountId, reference);
  const plan = await planRoute(db, [{ orderId: order.id, redelivered: false }], { match: "now" });
  const { followUps } = plan.settle(await runBatch(db, plan.statements));
  await pipeline.send(followUps);
  return { orderId: order.id, outcome: plan.outcomes.get(order.id)! };
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
