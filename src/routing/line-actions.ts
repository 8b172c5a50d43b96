// A person acts on one stuck line (declined, failed, or never matched), or on the rest of a partly
// confirmed one that no supplier took: sends it to a supplier of their choosing, re-routes it now to
// the next eligible supplier by the rules of an automatic re-route (./journey.ts planLeaving decides,
// as it does for a supplier's decline), or (the rest only) cancels it. Each is one guarded batch:
// the line must still be as read, its order not blocked, no cancellation of it waiting, the chosen
// supplier still active; a racing action, answer or cancellation makes it lose, and it is judged
// again against what won (a 409 then). The pipeline then dispatches the line through the normal
// forwarding path (src/routing/journey.ts, planRoute), as it does a re-routed one.
import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db";
import { expectCount, LOST, retryLostRaces, runGuarded } from "../db/guards";
import { cancellationLines, orderLineLogs, orderLines, suppliers, type Actor, type LineStatus, type ManualDecision, type Order, type OrderLine, type RerouteHop } from "../db/schema";
import { cancelledUnsentLineEvents, lineAssignedEvent } from "../events/outbox";
import { ApiError } from "../lib/errors";
import type { Pipeline } from "../lib/queue";
import { isoMicro } from "../lib/time";
import { completionStatements, lineStatements, newToken, owedToPipeline, splitStatements, type Split } from "../orders/lifecycle";
import { offersFor, type Offer } from "../catalogue/products.service";
import { findOrder } from "../orders/orders.service";
import { CANCELLATION_HOLD, planLeaving, type Leaving } from "./journey";

/** The states a line can be sent to a supplier by hand from: it has no supplier working on it. */
export const ASSIGNABLE: readonly LineStatus[] = ["pending", "failed", "declined"];
/** The states a line can be re-routed from by hand: its supplier let it go. */
export const REROUTABLE: readonly LineStatus[] = ["failed", "declined"];

type ActionLine = Pick<OrderLine, "currentStatus" | "matchedSupplierId" | "quantity" | "confirmedQuantity">;

/**
 * The rest of a partly confirmed line that no supplier has: its quantity past what its supplier
 * confirmed (0 when there is none: the supplier confirmed all of it that is left, or the rest went on
 * to another supplier as a line of its own, or was cancelled).
 */
export const restOf = (line: Pick<OrderLine, "currentStatus" | "quantity" | "confirmedQuantity">): number =>
  line.currentStatus === "partially_completed" && line.confirmedQuantity !== null ? Math.max(0, line.quantity - line.confirmedQuantity) : 0;

/**
 * What a person can do with a line (assign: send it, or its rest, to a supplier chosen; reroute: to
 * the next eligible supplier; cancel_rest: cancel the rest of a partly confirmed line): the one rule
 * the services enforce and both faces offer. A stuck line (pending, failed, declined) is sent on
 * whole; a partly confirmed line only its rest, while its supplier delivers what it confirmed.
 */
export function lineActions(line: ActionLine): LineAction[] {
  if (ASSIGNABLE.includes(line.currentStatus)) return REROUTABLE.includes(line.currentStatus) && line.matchedSupplierId !== null ? ["assign", "reroute"] : ["assign"];
  if (restOf(line) > 0) return line.matchedSupplierId !== null ? ["assign", "reroute", "cancel_rest"] : ["assign", "cancel_rest"];
  return [];
}
export type LineAction = "assign" | "reroute" | "cancel_rest";

/** Who acted, in the log's words. */
export const actorWords = (by: Actor) =>
  by.channel === "api" ? `by hand (API key #${by.api_key_id})` : `by hand (console session #${by.session_id}, API key #${by.api_key_id})`;

/** `rest`: how many of a partly confirmed line went on as a new line (0: the whole line did). */
export type LineActionResult = { orderId: number; lineId: number; supplier: { id: number; name: string }; rest: number };

type Read = { order: Order; line: OrderLine; lastMessage: string | null; cancelling: boolean; supplierName: string | null };

/**
 * The order (404 when not the account's), the line (404 when not the order's), its last log entry,
 * whether a cancellation of it waits, and its supplier's name: two round trips.
 */
async function readLine(db: Db, accountId: number, reference: string, lineId: number): Promise<Read> {
  const order = await findOrder(db, accountId, reference);
  const [lines, logs, cancelling, supplier] = await db.batch([
    db.select().from(orderLines).where(and(eq(orderLines.id, lineId), eq(orderLines.orderId, order.id))),
    db
      .select({ message: orderLineLogs.message })
      .from(orderLineLogs)
      .where(and(eq(orderLineLogs.orderId, order.id), eq(orderLineLogs.orderLineId, lineId)))
      .orderBy(desc(orderLineLogs.id))
      .limit(1),
    db
      .select({ n: sql<number>`count(*)` })
      .from(cancellationLines)
      .where(and(eq(cancellationLines.orderLineId, lineId), eq(cancellationLines.status, "requested"), eq(cancellationLines.purpose, "cancel"))),
    db
      .select({ name: suppliers.name })
      .from(suppliers)
      .where(sql`${suppliers.id} = (SELECT matched_supplier_id FROM order_lines WHERE id = ${lineId} AND order_id = ${order.id})`),
  ]);
  const line = lines[0];
  if (!line) throw ApiError.notFound(`Order line with id '${lineId}' not found`);
  return { order, line, lastMessage: logs[0]?.message ?? null, cancelling: Number(cancelling[0]?.n ?? 0) > 0, supplierName: supplier[0]?.name ?? null };
}

const REFUSALS: Record<LineAction, { states: readonly LineStatus[]; what: string }> = {
  assign: { states: ASSIGNABLE, what: "sent to a supplier by hand" },
  reroute: { states: REROUTABLE, what: "re-routed" },
  cancel_rest: { states: [], what: "cancelled in part this way" },
};

function refuseUnless(read: Read, action: LineAction) {
  const { order, line } = read;
  if (!lineActions(line).includes(action)) {
    const { states, what } = REFUSALS[action];
    // A partly confirmed line is refused in its own words: only its unconfirmed rest can be acted on.
    if (line.currentStatus === "partially_completed") {
      throw ApiError.conflict(`Order line ${line.id} is partially_completed with no rest left: its supplier confirmed all ${line.quantity} of it; it cannot be ${what}.`);
    }
    const rest = ", or the rest of a partly confirmed line,";
    throw ApiError.conflict(
      states.length ? `Order line ${line.id} is ${line.currentStatus}; only ${wordList(states)} lines${rest} can be ${what}.` : `Order line ${line.id} is ${line.currentStatus}; only the rest of a partly confirmed line can be cancelled this way.`,
    );
  }
  if (order.blocked) throw ApiError.conflict(`Order ${order.reference} is blocked; unblock it first.`);
  if (read.cancelling) throw ApiError.conflict(`Order line ${line.id} stays as it is: ${CANCELLATION_HOLD}.`);
}

const wordList = (words: readonly string[]) => (words.length === 1 ? words[0] : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`);

/**
 * Guards of the write, in one statement: the order still not blocked, no cancellation of the line
 * requested meanwhile, and (assign) the chosen supplier still active.
 */
const stillActionable = (order: Order, lineId: number, supplierId?: number): SQL =>
  expectCount(
    sql`SELECT (SELECT blocked FROM orders WHERE id = ${order.id}) = 0
        AND NOT EXISTS (SELECT 1 FROM cancellation_lines WHERE order_line_id = ${lineId} AND status = 'requested' AND purpose = 'cancel')
        ${supplierId === undefined ? sql`` : sql`AND EXISTS (SELECT 1 FROM suppliers WHERE id = ${supplierId} AND account_id = ${order.accountId} AND active = 1)`}`,
    1,
  );

/**
 * Sends a pending, failed or declined line to the supplier chosen (any active supplier of the
 * account), logged with who chose it, evented (order_line.assigned) and kept on the line for
 * explain. A supplier the line had goes into its re-route chain, as an automatic re-route records
 * it. Of a partly confirmed line only its rest goes, split off as a new line (sendRest). 422: not a
 * supplier of the account, or an inactive one; 409: the line's state, a blocked order, a
 * cancellation waiting; 404: an unknown order or line.
 */
export async function assignLine(db: Db, pipeline: Pipeline, accountId: number, reference: string, lineId: number, supplierId: number, by: Actor): Promise<LineActionResult> {
  const result = await retryLostRaces(async () => {
    const [read, [supplier]] = await Promise.all([
      readLine(db, accountId, reference, lineId),
      db.select().from(suppliers).where(and(eq(suppliers.id, supplierId), eq(suppliers.accountId, accountId))),
    ]);
    if (!supplier) throw ApiError.validation({ supplier_id: ["The selected supplier_id is invalid."] });
    if (!supplier.active) throw ApiError.validation({ supplier_id: [`Supplier ${supplier.name} is inactive; choose an active supplier.`] });
    refuseUnless(read, "assign");
    if (read.line.currentStatus === "partially_completed") return sendRest(db, read, supplier, by);
    const { order, line } = read;
    const now = isoMicro();
    const token = newToken();
    const previous = line.matchedSupplierId;
    const hop: RerouteHop | null =
      previous !== null && (line.currentStatus === "declined" || line.currentStatus === "failed")
        ? {
            supplier_id: previous,
            supplier_name: read.supplierName ?? `#${previous}`,
            outcome: line.currentStatus,
            reason: read.lastMessage ?? line.currentStatus,
            line_id: line.id,
            at: now,
          }
        : null;
    const decision: ManualDecision = { supplier_id: supplier.id, supplier_name: supplier.name, by, at: now };
    const chain = hop ? [...(line.rerouteChain ?? []), hop] : line.rerouteChain;
    const message = `Sent to supplier ${supplier.name} ${actorWords(by)}`;
    const written = await runGuarded(db, [
      stillActionable(order, line.id, supplier.id),
      ...lineStatements(
        [{ kind: "move", lineId: line.id, orderId: order.id, from: line.currentStatus, to: "ruled", message, matchedSupplierId: supplier.id, dispatchId: null, confirmedQuantity: null, version: line.moveToken }],
        now,
        { token, allOrNothing: true },
      ),
      // The line starts afresh with its new supplier, as a re-routed one does: its old deadlines and marks go.
      sql`UPDATE order_lines SET manual_decision = ${JSON.stringify(decision)}, reroute_chain = ${chain ? JSON.stringify(chain) : null},
            reroute_reason = NULL, ack_due_at = NULL, ship_due_at = NULL, overdue_at = NULL, overdue_deadline = NULL
          WHERE id = ${line.id} AND order_id = ${order.id} AND move_token = ${token}`,
      lineAssignedEvent({ o: order.id, i: line.id, t: token }, hop && { id: hop.supplier_id, name: hop.supplier_name }, supplier, by, now),
      owedToPipeline(order.id, now),
      ...completionStatements([order.id], now, { closes: false }),
    ]);
    return written ? { orderId: order.id, lineId: line.id, supplier: { id: supplier.id, name: supplier.name }, rest: 0 } : LOST;
  });
  await pipeline.send([{ type: "route_order", orderId: result.orderId }]);
  return result;
}

/** How a partly confirmed line's supplier left the rest, in its log's and chain's words. */
const partialWords = (read: Read) => `Supplier ${read.supplierName ?? `#${read.line.matchedSupplierId}`} confirmed ${read.line.confirmedQuantity} of ${read.line.quantity}`;

/**
 * The rest of a partly confirmed line to the supplier chosen: split off as a new line, ruled to it
 * (the pipeline then sends it, as any matched line), with the partial supplier in its re-route chain
 * and the choice kept for explain; the line itself keeps what its supplier confirmed and says where
 * the rest went. The split holds only while the line is still as read (its state, move token and
 * quantity), so two such actions at once send the rest once.
 */
async function sendRest(db: Db, read: Read, supplier: { id: number; name: string }, by: Actor): Promise<LineActionResult | typeof LOST> {
  const { order, line } = read;
  const rest = restOf(line);
  const now = isoMicro();
  const splitToken = newToken();
  const from = line.matchedSupplierId;
  const hop: RerouteHop | null =
    from === null ? null : { supplier_id: from, supplier_name: read.supplierName ?? `#${from}`, outcome: "partial", reason: partialWords(read), line_id: line.id, at: now };
  const decision: ManualDecision = { supplier_id: supplier.id, supplier_name: supplier.name, by, at: now };
  const sent = `Sent to supplier ${supplier.name} ${actorWords(by)}`;
  const split: Split = {
    parentId: line.id,
    orderId: order.id,
    parentQuantity: line.quantity,
    quantity: rest,
    status: "ruled",
    matchedSupplierId: supplier.id,
    rerouteChain: hop ? [...(line.rerouteChain ?? []), hop] : line.rerouteChain,
    log: [
      { status: "pending", message: `Split from line #${line.id}: the ${rest} of ${line.quantity} ${hop ? `supplier ${hop.supplier_name}` : "its supplier"} did not confirm` },
      { status: "ruled", message: sent },
    ],
  };
  const written = await runGuarded(db, [
    stillActionable(order, line.id, supplier.id),
    ...lineStatements(
      [{ kind: "note", lineId: line.id, orderId: order.id, status: "partially_completed", version: line.moveToken, message: `The other ${rest} sent to supplier ${supplier.name} ${actorWords(by)}, as a new line` }],
      now,
      { allOrNothing: true },
    ),
    ...splitStatements([split], now, splitToken),
    sql`UPDATE order_lines SET manual_decision = ${JSON.stringify(decision)}
        WHERE order_id = ${order.id} AND split_from_line_id = ${line.id} AND move_token = ${splitToken}`,
    lineAssignedEvent({ o: order.id, p: line.id, t: splitToken }, hop && { id: hop.supplier_id, name: hop.supplier_name }, supplier, by, now),
    owedToPipeline(order.id, now),
    ...completionStatements([order.id], now, { closes: false }),
  ]);
  return written ? { orderId: order.id, lineId: line.id, supplier: { id: supplier.id, name: supplier.name }, rest } : LOST;
}

/**
 * Cancels the rest of a partly confirmed line: what its supplier did not confirm is split off as a
 * skipped line (no supplier has it, so none is asked), evented to the shop as a cancellation
 * confirmed at once; the line keeps what its supplier confirmed. `reason`, when given, ends the log
 * entry and the event's reason. 409 as the other actions. The console and the API both call this.
 */
export async function cancelRest(
  db: Db,
  accountId: number,
  reference: string,
  lineId: number,
  by: Actor,
  reason: string | null = null,
): Promise<{ orderId: number; lineId: number; quantity: number }> {
  return retryLostRaces(async () => {
    const read = await readLine(db, accountId, reference, lineId);
    refuseUnless(read, "cancel_rest");
    const { order, line } = read;
    const rest = restOf(line);
    const now = isoMicro();
    const splitToken = newToken();
    const why = `${partialWords(read)}; the other ${rest} cancelled ${actorWords(by)}${reason ? `: ${reason}` : ""}`;
    const split: Split = {
      parentId: line.id,
      orderId: order.id,
      parentQuantity: line.quantity,
      quantity: rest,
      status: "skipped",
      matchedSupplierId: line.matchedSupplierId,
      rerouteChain: null,
      log: [{ status: "skipped", message: `Split from line #${line.id}: ${why}` }],
    };
    const written = await runGuarded(db, [
      stillActionable(order, line.id),
      ...lineStatements([{ kind: "note", lineId: line.id, orderId: order.id, status: "partially_completed", version: line.moveToken, message: why }], now, { allOrNothing: true }),
      ...splitStatements([split], now, splitToken),
      cancelledUnsentLineEvents([{ o: order.id, p: line.id, t: splitToken, quantity: rest, reason: why }], now),
      ...completionStatements([order.id], now),
    ]);
    return written ? { orderId: order.id, lineId: line.id, quantity: rest } : LOST;
  });
}

const supplierName = async (db: Db, id: number) => (await db.select({ name: suppliers.name }).from(suppliers).where(eq(suppliers.id, id)))[0]?.name;

/**
 * Re-routes a failed or declined line (or the rest of a partly confirmed one, split off as a new
 * line) now to the next eligible supplier, exactly as an automatic
 * re-route would (./reroute.ts: the next rule that holds, else the cheapest catalogue offer with
 * stock, else the supplier field; never a supplier the line had; within the account's cap; not past
 * a rule's no_reroute), even while the account's automatic re-routing is switched off. When no
 * supplier can take it, a 409 says why and nothing is written.
 */
export async function rerouteLine(db: Db, pipeline: Pipeline, accountId: number, reference: string, lineId: number, by: Actor): Promise<LineActionResult> {
  const result = await retryLostRaces(async () => {
    const read = await readLine(db, accountId, reference, lineId);
    refuseUnless(read, "reroute");
    const { order, line } = read;
    if (line.matchedSupplierId === null) throw ApiError.conflict(`Order line ${line.id} has no supplier to re-route from; send it to a supplier by hand.`);
    const now = isoMicro();
    // A partly confirmed line's rest leaves as it would have when its supplier answered: split off to the next supplier.
    const leaving: Leaving =
      line.currentStatus === "partially_completed"
        ? { line, from: "partially_completed", to: "partially_completed", cause: "partial", confirmedQuantity: line.confirmedQuantity!, supplier: { id: line.matchedSupplierId, name: read.supplierName ?? undefined }, message: partialWords(read), openCancellationId: null, byHand: actorWords(by) }
        : { line, from: line.currentStatus, to: line.currentStatus as "failed" | "declined", cause: line.currentStatus as "failed" | "declined", supplier: { id: line.matchedSupplierId }, message: read.lastMessage ?? line.currentStatus, openCancellationId: null, byHand: actorWords(by) };
    const plan = await planLeaving(db, accountId, [leaving], now, order);
    const stayed = plan.stayed[0];
    if (stayed) throw ApiError.conflict(`Order line ${line.id} cannot be re-routed: ${stayed.why}. Send it to a supplier by hand instead.`);
    const token = newToken();
    const written = await runGuarded(db, [
      stillActionable(order, line.id),
      ...lineStatements(plan.changes, now, { token, allOrNothing: true }),
      ...plan.statements(token),
      ...completionStatements([order.id], now, { closes: false }),
    ]);
    if (!written) return LOST;
    const to = plan.destinations.get(line.id) ?? 0;
    const rest = restOf(line);
    return { result: { orderId: order.id, lineId: line.id, supplier: { id: to, name: (await supplierName(db, to)) ?? `#${to}` }, rest }, followUps: plan.followUps };
  });
  await pipeline.send(result.followUps);
  return result.result;
}

/** A supplier the line (or its rest) can be sent to by hand, with what the catalogue says of it. */
export type AssignChoice = {
  id: number;
  name: string;
  /** Its catalogue offer of the line's product (null: none), and whether its stock covers what is sent. */
  offer: Offer | null;
  enoughStock: boolean;
  /** When it had this line before and let it go (declined it, confirmed only part, could not be sent to, stayed silent). */
  had: { outcome: RerouteHop["outcome"]; at: string; reason: string } | null;
};

/**
 * The account's active suppliers to send the line (or its rest) to, each with its catalogue offer of
 * the line's product and whether it had the line before; in the order a person would choose by:
 * those that never had it first, offers with enough stock cheapest first, then offers short of
 * stock, then suppliers without an offer by name. Two round trips.
 */
export async function assignChoices(
  db: Db,
  accountId: number,
  reference: string,
  lineId: number,
): Promise<{ order: Order; line: OrderLine; supplierName: string | null; quantity: number; choices: AssignChoice[] }> {
  const read = await readLine(db, accountId, reference, lineId);
  const { line } = read;
  const [active, offers] = await Promise.all([
    db.select({ id: suppliers.id, name: suppliers.name }).from(suppliers).where(and(eq(suppliers.accountId, accountId), eq(suppliers.active, true))),
    offersFor(db, accountId, line),
  ]);
  const quantity = restOf(line) || line.quantity;
  const had = new Map<number, AssignChoice["had"]>();
  for (const hop of line.rerouteChain ?? []) had.set(hop.supplier_id, { outcome: hop.outcome, at: hop.at, reason: hop.reason });
  // The supplier it is with now, when it let it go: not in the chain until the line leaves it.
  const left = line.currentStatus === "partially_completed" ? "partial" : line.currentStatus === "declined" || line.currentStatus === "failed" ? line.currentStatus : null;
  if (left && line.matchedSupplierId !== null) {
    had.set(line.matchedSupplierId, { outcome: left, at: line.updatedAt, reason: left === "partial" ? partialWords(read) : (read.lastMessage ?? left) });
  }
  const byId = new Map(offers.map((o) => [o.supplierId, o]));
  const choices = active.map((s): AssignChoice => {
    const offer = byId.get(s.id) ?? null;
    return { id: s.id, name: s.name, offer, enoughStock: offer !== null && (offer.stockQuantity === null || offer.stockQuantity >= quantity), had: had.get(s.id) ?? null };
  });
  const rank = (c: AssignChoice) => (c.had ? 3 : 0) + (c.offer ? (c.enoughStock ? 0 : 1) : 2);
  choices.sort((a, b) => rank(a) - rank(b) || (a.offer?.purchasePrice ?? Infinity) - (b.offer?.purchasePrice ?? Infinity) || a.name.localeCompare(b.name) || a.id - b.id);
  return { order: read.order, line, supplierName: read.supplierName, quantity, choices };
}
