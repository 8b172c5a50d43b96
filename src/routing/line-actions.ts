// A person acts on one stuck line (declined, failed, or never matched): sends it to a supplier of
// their choosing, or re-routes it now to the next eligible supplier by the rules of an automatic
// re-route (./reroute.ts decides, as it does for a supplier's decline). Either is one guarded batch:
// the line must still be as read, its order not blocked, no cancellation of it waiting, the chosen
// supplier still active; a racing action, answer or cancellation makes it lose, and it is judged
// again against what won (a 409 then). The pipeline then dispatches the line through the normal
// forwarding path (src/routing/journey.ts, planRoute), as it does a re-routed one.
import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db";
import { expectCount, LOST, retryLostRaces, runGuarded } from "../db/guards";
import { cancellationLines, orderLineLogs, orderLines, suppliers, type Actor, type LineStatus, type ManualDecision, type Order, type OrderLine, type RerouteHop } from "../db/schema";
import { lineAssignedEvent } from "../events/outbox";
import { ApiError } from "../lib/errors";
import type { Pipeline } from "../lib/queue";
import { isoMicro } from "../lib/time";
import { completionStatements, lineStatements, newToken, owedToPipeline } from "../orders/lifecycle";
import { findOrder } from "../orders/orders.service";
import { CANCELLATION_HOLD, planLeaving } from "./journey";

/** The states a line can be sent to a supplier by hand from: it has no supplier working on it. */
export const ASSIGNABLE: readonly LineStatus[] = ["pending", "failed", "declined"];
/** The states a line can be re-routed from by hand: its supplier let it go. */
export const REROUTABLE: readonly LineStatus[] = ["failed", "declined"];

/** Who acted, in the log's words. */
export const actorWords = (by: Actor) =>
  by.channel === "api" ? `by hand (API key #${by.api_key_id})` : `by hand (console session #${by.session_id}, API key #${by.api_key_id})`;

export type LineActionResult = { orderId: number; lineId: number; supplier: { id: number; name: string } };

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

function refuseUnless(read: Read, allowed: readonly LineStatus[], what: string) {
  const { order, line } = read;
  if (!allowed.includes(line.currentStatus)) {
    throw ApiError.conflict(`Order line ${line.id} is ${line.currentStatus}; only ${wordList(allowed)} lines can be ${what}.`);
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
 * explain. A supplier the line had before goes into its re-route chain, as an automatic re-route
 * records it. 422: not a supplier of the account, or an inactive one; 409: the line's state, a
 * blocked order, a cancellation waiting; 404: an unknown order or line.
 */
export async function assignLine(db: Db, pipeline: Pipeline, accountId: number, reference: string, lineId: number, supplierId: number, by: Actor): Promise<LineActionResult> {
  const result = await retryLostRaces(async () => {
    const [read, [supplier]] = await Promise.all([
      readLine(db, accountId, reference, lineId),
      db.select().from(suppliers).where(and(eq(suppliers.id, supplierId), eq(suppliers.accountId, accountId))),
    ]);
    if (!supplier) throw ApiError.validation({ supplier_id: ["The selected supplier_id is invalid."] });
    if (!supplier.active) throw ApiError.validation({ supplier_id: [`Supplier ${supplier.name} is inactive; choose an active supplier.`] });
    refuseUnless(read, ASSIGNABLE, "sent to a supplier by hand");
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
    return written ? { orderId: order.id, lineId: line.id, supplier: { id: supplier.id, name: supplier.name } } : LOST;
  });
  await pipeline.send([{ type: "route_order", orderId: result.orderId }]);
  return result;
}

const supplierName = async (db: Db, id: number) => (await db.select({ name: suppliers.name }).from(suppliers).where(eq(suppliers.id, id)))[0]?.name;

/**
 * Re-routes a failed or declined line now to the next eligible supplier, exactly as an automatic
 * re-route would (./reroute.ts: the next rule that holds, else the cheapest catalogue offer with
 * stock, else the supplier field; never a supplier the line had; within the account's cap; not past
 * a rule's no_reroute), even while the account's automatic re-routing is switched off. When no
 * supplier can take it, a 409 says why and nothing is written.
 */
export async function rerouteLine(db: Db, pipeline: Pipeline, accountId: number, reference: string, lineId: number, by: Actor): Promise<LineActionResult> {
  const result = await retryLostRaces(async () => {
    const read = await readLine(db, accountId, reference, lineId);
    refuseUnless(read, REROUTABLE, "re-routed");
    const { order, line } = read;
    if (line.matchedSupplierId === null) throw ApiError.conflict(`Order line ${line.id} has no supplier to re-route from; send it to a supplier by hand.`);
    const from = line.currentStatus as "failed" | "declined";
    const now = isoMicro();
    const plan = await planLeaving(
      db,
      accountId,
      [{ line, from, to: from, cause: from, supplier: { id: line.matchedSupplierId }, message: read.lastMessage ?? from, openCancellationId: null, byHand: actorWords(by) }],
      now,
      order,
    );
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
    const move = plan.changes.find((c) => c.kind === "move" && c.to === "ruled");
    const to = move?.kind === "move" ? move.matchedSupplierId! : 0;
    return { result: { orderId: order.id, lineId: line.id, supplier: { id: to, name: (await supplierName(db, to)) ?? `#${to}` } }, followUps: plan.followUps };
  });
  await pipeline.send(result.followUps);
  return result.result;
}
