// Re-routing: a line its supplier cannot deliver (declined, confirmed only in part, unsendable after
// the last attempt, or silent past its acknowledgement deadline) goes to the next eligible supplier:
// the next routing rule that holds, else the cheapest catalogue offer with stock, else the supplier
// named on the line, never one that already had the line. The account switches it on or off and
// caps the suppliers per line; a rule with no_reroute keeps its lines with its supplier; a line the
// shop is cancelling (its request waits for the supplier's answer) never moves on to another one.
// The decision is made where the supplier's answer (or failure) is written, in the same batch: the
// line moves on in one step ("Declined by supplier X: out of stock; routed to supplier Y"), or
// stays as it is. Every hop is kept on the line (reroute_chain), logged and evented.
import { sql, type SQL } from "drizzle-orm";
import { toStatement, type Db, type Row } from "../db";
import { expectCount } from "../db/guards";
import type { LineStatus, OrderLine, RerouteHop } from "../db/schema";
import { lineReroutedEvents, type Rerouted } from "../events/outbox";
import { cancellationRequestStatements, type CancellationRequest } from "../orders/cancellation-requests";
import { newToken, splitStatements, type LineChange, type Split } from "../orders/lifecycle";
import { loadRoutingContext, subjectOf, type OrderLike, type ReroutePolicy } from "./context";
import { decideLine, type SupplierRef } from "./matching";
import { count } from "../lib/plural";

export type RerouteCause = RerouteHop["outcome"];

/** A line leaving its supplier: the move its caller writes anyway, and why. */
export type Leaving = {
  /** The line as read. */
  line: OrderLine;
  /** The state the caller judged it in (an answer may move a line twice in one call). */
  from: LineStatus;
  /** The caller's own move; null: the line moves only if another supplier takes it (overdue). */
  to: "declined" | "failed" | "partially_completed" | null;
  cause: RerouteCause;
  /** The supplier it leaves (its name is looked up when not given). */
  supplier: { id: number; name?: string };
  /** The caller's log message for its move (or, overdue, why the line leaves). */
  message: string;
  /** partial: what the supplier confirmed (the rest goes on, split into a new line). */
  confirmedQuantity?: number;
  /**
   * The caller settles the line's open cancellation (openCancellationId) itself, before this line
   * leaves (a supplier that confirmed or refused it earlier in the same answers): it holds the line no more.
   */
  cancellationSettled?: boolean;
  /**
   * The line's open cancellation (purpose cancel) as the caller read it: its id, or null for none.
   * Undefined: the caller did not read it, and the decision does (a line the shop is cancelling
   * never goes to another supplier). The write holds only while it is still so (a guard).
   */
  openCancellationId?: number | null;
  /**
   * A person asked for the re-route (POST .../lines/{id}/reroute), in words for the log ("by hand
   * (API key #3)"): the account's on/off switch is for automatic re-routes and does not apply; its
   * cap, the rules' no_reroute and a waiting cancellation do. With `to` equal to `from`, the line
   * left its supplier already (declined, failed) and only moves on; a partly confirmed one stays as
   * it is, and only its rest moves on, split off as a new line.
   */
  byHand?: string;
};

/** Why a line whose cancellation waits for its supplier's answer stays where it is. */
export const CANCELLATION_HOLD = "a cancellation of it waits for the supplier's answer";

type Decision =
  | { kind: "reroute"; leaving: Leaving; to: SupplierRef; match: string; chain: RerouteHop[]; attempt: number }
  | { kind: "stay"; leaving: Leaving; why: string | null };

export type ReroutePlan = {
  /** The callers' moves (messages completed) and the moves on to the next supplier. */
  changes: LineChange[];
  /** What must follow the lines' own statements, stamped with the same `token`: splits, chains, events, withdrawals. */
  statements: (token: string) => SQL[];
  /** Lines that went to another supplier (or whose remainder did): the order's pipeline then owes a dispatch. */
  rerouted: number;
  /** Withdrawals written for silent suppliers (queued to be sent when on webhook or e-mail). */
  withdrawn: number;
  /** The orders of the re-routed lines: the pipeline owes each a dispatch (see owedToPipeline). */
  reroutedOrders: number[];
  /** Where each re-routed line (or its rest) goes: its id to the next supplier's. */
  destinations: Map<number, number>;
  /** The lines that stay with their supplier, and why (a re-route asked for by hand is refused with it). */
  stayed: { lineId: number; why: string }[];
};

const remainderOf = (l: Leaving) => l.line.quantity - (l.confirmedQuantity ?? 0);

/**
 * Decides where each leaving line goes: one round trip (the account's re-routing settings, rules,
 * suppliers and the catalogue products of these lines) when any of them may move on, none otherwise.
 */
async function decide(
  db: Db,
  accountId: number,
  known: (OrderLike & { id: number }) | undefined,
  leaving: Leaving[],
  now: string,
): Promise<{ decisions: Decision[]; channels: Map<number, SupplierRef["channel"]>; policy: ReroutePolicy | undefined }> {
  const candidates: { l: Leaving; excluded: Set<number>; attempt: number }[] = [];
  const decisions: Decision[] = leaving.map((l) => {
    const excluded = new Set([...(l.line.rerouteChain ?? []).map((h) => h.supplier_id), l.supplier.id]);
    // A line the shop is cancelling waits for its supplier's answer: it goes nowhere else meanwhile.
    if (l.openCancellationId != null && !l.cancellationSettled) return { kind: "stay", leaving: l, why: CANCELLATION_HOLD };
    if (l.cause === "partial" && remainderOf(l) < 1) return { kind: "stay", leaving: l, why: null };
    candidates.push({ l, excluded, attempt: excluded.size + 1 });
    return { kind: "stay", leaving: l, why: null };
  });
  if (candidates.length === 0) return { decisions, channels: new Map(), policy: undefined };
  const subjectLine = (l: Leaving) => (l.cause === "partial" ? { ...l.line, quantity: remainderOf(l) } : l.line);
  // The lines' orders come with the context, unless the caller has the one order already.
  const orderIds = [...new Set(candidates.map((o) => o.l.line.orderId))].filter((id) => id !== known?.id);
  const unread = candidates.filter((o) => o.l.openCancellationId === undefined).map((o) => o.l.line.id);
  const [ctx, cancelling] = await Promise.all([
    loadRoutingContext(db, accountId, candidates.map((o) => subjectLine(o.l)), orderIds),
    openCancellations(db, unread),
  ]);
  const policy = ctx.policy;
  const open = candidates.filter((o) => {
    const index = leaving.indexOf(o.l);
    if (!policy.enabled && !o.l.byHand) return false;
    if (o.l.openCancellationId === undefined) {
      o.l.openCancellationId = cancelling.get(o.l.line.id) ?? null;
      if (o.l.openCancellationId !== null) {
        decisions[index] = { kind: "stay", leaving: o.l, why: CANCELLATION_HOLD };
        return false;
      }
    }
    if (o.attempt > policy.maxAttempts) decisions[index] = { kind: "stay", leaving: o.l, why: `${policy.maxAttempts} of ${count(policy.maxAttempts, "supplier")} tried` };
    return o.attempt <= policy.maxAttempts;
  });
  for (const o of open) {
    o.l.supplier.name ??= ctx.suppliers.get(o.l.supplier.id)?.name ?? `#${o.l.supplier.id}`;
    const order = o.l.line.orderId === known?.id ? known : ctx.orders.get(o.l.line.orderId)!;
    const subject = subjectOf(order, subjectLine(o.l));
    const index = leaving.indexOf(o.l);
    // A rule that keeps its lines with its supplier decides first, whoever declined.
    const first = decideLine(subject, ctx).decision;
    if (first.action !== "none" && first.decidedBy === "rule" && first.rule.noReroute) {
      decisions[index] = { kind: "stay", leaving: o.l, why: `rule #${first.rule.id} '${first.rule.name}' does not re-route` };
      continue;
    }
    const next = decideLine(subject, ctx, o.excluded).decision;
    if (next.action !== "assign_supplier") continue;
    const hops = `${next.message} (re-routed: supplier ${o.attempt} of at most ${policy.maxAttempts})`;
    const match = o.l.byHand ? `Re-routed ${o.l.byHand}: ${hops}` : hops;
    const hop: RerouteHop = {
      supplier_id: o.l.supplier.id,
      supplier_name: o.l.supplier.name,
      outcome: o.l.cause,
      reason: o.l.message,
      line_id: o.l.line.id,
      at: now,
    };
    decisions[index] = { kind: "reroute", leaving: o.l, to: next.supplier, match, chain: [...(o.l.line.rerouteChain ?? []), hop], attempt: o.attempt };
  }
  // The suppliers' channels: a silent supplier's withdrawal goes out on its own.
  return { decisions, policy, channels: new Map([...ctx.suppliers.values()].map((s) => [s.id, s.channel])) };
}

/** The open cancellations (purpose cancel) of these lines, by line: one index read, none without lines. */
async function openCancellations(db: Db, lineIds: number[]): Promise<Map<number, number>> {
  if (lineIds.length === 0) return new Map();
  const { results } = await toStatement(
    db,
    sql`SELECT order_line_id AS line_id, id FROM cancellation_lines
        WHERE order_line_id IN (SELECT value FROM json_each(${JSON.stringify(lineIds)})) AND status = 'requested' AND purpose = 'cancel'`,
  ).all<Row>();
  return new Map(results.map((r) => [Number(r.line_id), Number(r.id)]));
}

/**
 * The whole of it for a set of lines of the account leaving their suppliers (of any of its orders;
 * `known`: the one order the caller has read already): the caller writes `changes` through
 * lineStatements with its own token, then `statements(token)`, in one batch. One round trip, none
 * when no line may move on.
 */
export async function planReroutes(db: Db, accountId: number, leaving: Leaving[], now: string, known?: OrderLike & { id: number }): Promise<ReroutePlan> {
  const { decisions, channels: supplierChannels, policy } = await decide(db, accountId, known, leaving, now);
  const changes: LineChange[] = [];
  const splits: Split[] = [];
  // Rests split off a line that stays as it is (a partly confirmed line's rest re-routed by hand): not gated on a move.
  const restSplits: Split[] = [];
  const chains: { i: number; o: number; c: RerouteHop[] }[] = [];
  const moved: Rerouted[] = [];
  const split: Rerouted[] = [];
  const restSplit: Rerouted[] = [];
  const withdrawals: CancellationRequest[] = [];
  const eventOf = (d: Extract<Decision, { kind: "reroute" }>) => ({
    from: { id: d.leaving.supplier.id, name: d.leaving.supplier.name ?? "" },
    to: d.to,
    cause: d.leaving.cause,
    reason: d.leaving.message,
    attempt: d.attempt,
    maxAttempts: policy?.maxAttempts ?? null,
  });

  for (const d of decisions) {
    const l = d.leaving;
    const orderId = l.line.orderId;
    // Only the line as it was read: not one that was re-routed (and so is ruled again) meanwhile.
    const base = { lineId: l.line.id, orderId, version: l.line.moveToken };
    if (d.kind === "stay") {
      const suffix = d.why ? `; not re-routed: ${d.why}` : "";
      if (l.to) changes.push({ kind: "move", ...base, from: l.from, to: l.to, message: `${l.message}${suffix}`, confirmedQuantity: l.confirmedQuantity });
      else changes.push({ kind: "note", lineId: l.line.id, orderId, status: l.from, message: `${l.message}; not re-routed: ${d.why ?? "no other supplier can take it"}` });
      continue;
    }
    if (l.cause === "partial") {
      const rest = remainderOf(l);
      // By hand, the line was partly confirmed already: it stays so (a note, guarded by its token), only its rest moves on.
      const stays = l.from === "partially_completed";
      changes.push(
        stays
          ? { kind: "note", lineId: l.line.id, orderId, status: l.from, version: l.line.moveToken, message: `The other ${rest} go to supplier ${d.to.name} as a new line, re-routed ${l.byHand ?? "by hand"}` }
          : {
              kind: "move",
              ...base,
              from: l.from,
              to: "partially_completed",
              confirmedQuantity: l.confirmedQuantity,
              message: `${l.message}; the other ${rest} go to supplier ${d.to.name} as a new line`,
            },
      );
      (stays ? restSplits : splits).push({
        parentId: l.line.id,
        orderId,
        parentQuantity: l.line.quantity,
        quantity: rest,
        status: "ruled",
        matchedSupplierId: d.to.id,
        rerouteChain: d.chain,
        log: [
          { status: "pending", message: `Split from line #${l.line.id}: the ${rest} of ${l.line.quantity} supplier ${l.supplier.name} did not confirm` },
          { status: "ruled", message: d.match },
        ],
      });
      (stays ? restSplit : split).push({ o: orderId, p: l.line.id, ...eventOf(d) });
      continue;
    }
    // Through declined (or failed): the supplier no longer has it, then on to the next one.
    const via = l.to ?? "declined";
    if (via !== l.from) changes.push({ kind: "move", ...base, from: l.from, to: via, message: `${l.message}; routed to supplier ${d.to.name}` });
    const onward = via === l.from ? base : { lineId: l.line.id, orderId };
    changes.push({ kind: "move", ...onward, from: via, to: "ruled", message: d.match, matchedSupplierId: d.to.id, dispatchId: null, confirmedQuantity: null });
    chains.push({ i: l.line.id, o: orderId, c: d.chain });
    moved.push({ o: orderId, i: l.line.id, ...eventOf(d) });
    if (l.cause === "overdue") {
      // It reached the supplier, which never answered: tell it the line is withdrawn.
      withdrawals.push({
        accountId,
        orderId,
        supplierId: l.supplier.id,
        channel: supplierChannels.get(l.supplier.id) ?? "manual",
        purpose: "withdraw",
        reason: l.message,
        lines: [{ lineId: l.line.id, quantity: l.line.quantity }],
      });
    }
  }

  const rerouting = decisions.filter((d) => d.kind === "reroute");
  // Each line moves on only while its open cancellation is still the one read (none, mostly): a
  // cancellation requested meanwhile makes the batch lose, and the line is judged again (it stays).
  const asRead = JSON.stringify(rerouting.map((d) => ({ i: d.leaving.line.id, c: d.leaving.openCancellationId ?? null })));
  const cancellationAsRead = expectCount(
    sql`SELECT count(*) FROM json_each(${asRead}) AS j
        WHERE (SELECT c.id FROM cancellation_lines c WHERE c.order_line_id = j.value ->> '$.i' AND c.status = 'requested' AND c.purpose = 'cancel') IS j.value ->> '$.c'`,
    rerouting.length,
  );
  return {
    changes,
    rerouted: rerouting.length,
    stayed: decisions.flatMap((d) => (d.kind === "stay" ? [{ lineId: d.leaving.line.id, why: d.why ?? "no other supplier can take it" }] : [])),
    reroutedOrders: [...new Set(rerouting.map((d) => d.leaving.line.orderId))],
    destinations: new Map(rerouting.map((d) => [d.leaving.line.id, d.to.id])),
    withdrawn: withdrawals.length,
    statements: (token) => {
      const splitToken = newToken();
      const restToken = newToken();
      return [
        ...(rerouting.length ? [cancellationAsRead] : []),
        ...splitStatements(splits, now, splitToken, token),
        ...splitStatements(restSplits, now, restToken),
        ...(chains.length
          ? [
              // The line starts afresh with its new supplier: its old deadlines and marks go.
              sql`UPDATE order_lines SET reroute_chain = j.value -> '$.c', reroute_reason = NULL, ack_due_at = NULL, ship_due_at = NULL,
                    overdue_at = NULL, overdue_deadline = NULL, manual_decision = NULL
                  FROM json_each(${JSON.stringify(chains)}) AS j
                  WHERE order_lines.id = j.value ->> '$.i' AND order_lines.order_id = j.value ->> '$.o' AND order_lines.move_token = ${token}`,
            ]
          : []),
        ...(moved.length + split.length + restSplit.length
          ? [
              lineReroutedEvents(
                [...moved.map((e) => ({ ...e, t: token })), ...split.map((e) => ({ ...e, t: splitToken })), ...restSplit.map((e) => ({ ...e, t: restToken }))],
                now,
              ),
            ]
          : []),
        ...cancellationRequestStatements(withdrawals, now),
      ];
    },
  };
}
