// What suppliers tell us back: accept, decline, partial confirmation, shipments, acknowledgement
// of a pulled order. All or nothing per call, against the state it was judged by: if another
// answer changed one of its lines first, nothing of it is written and it is judged again against
// what won (applied, or refused with a 409 naming the line's state). Every move goes through the
// state machine; any number of answers costs the same few statements.
import { and, asc, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { runBatch, toStatement, type Db, type Row } from "../db";
import { expectCount, LOST, retryLostRaces, runGuarded } from "../db/guards";
import { dispatches, orderLines, orders, shipments, type Dispatch, type DispatchStatus, type LineStatus, type Order, type OrderLine, type Shipment } from "../db/schema";
import type { AuthenticatedSupplier } from "../env";
import { shipmentStatements, type ShipmentRecord } from "../events/outbox";
import { ApiError } from "../lib/errors";
import { offsetOf, type PageRequest } from "../lib/pagination";
import type { Pipeline } from "../lib/queue";
import { isoMicro } from "../lib/time";
import {
  cancellableLinesQuery,
  settleCancellations,
  toCancellableLine,
  type CancellableLine,
  type Settlement,
} from "../orders/cancellations.service";
import { canMove, completionStatements, lineStatements, moveLinesStatements, newToken, owedToPipeline, type LineChange } from "../orders/lifecycle";
import { CANCELLATION_HOLD, planReroutes, type Leaving } from "../routing/reroute";
import { answeredStatements, type Answered } from "./deadlines";

export type Answer = {
  line_id: number;
  action: "accept" | "decline" | "partial" | "ship" | "confirm_cancellation" | "refuse_cancellation";
  reason?: string;
  quantity?: number;
  carrier?: string;
  tracking_number?: string;
  tracking_url?: string;
  shipment_id?: string;
};

/** States in which a supplier can report a shipment (a ruled line is accepted by it). */
const SHIPPABLE: readonly LineStatus[] = ["ruled", "completed", "partially_completed"];

/**
 * The answers that change something for a line in its current state (what the supplier portal
 * offers): accept a ruled line; decline or confirm part of it where the state machine allows it
 * (part only of more than one); report a shipment once it is accepted or still to accept.
 * (accept on an accepted line is taken too, as a note, but changes nothing.)
 */
export function offeredAnswers(line: Pick<OrderLine, "currentStatus" | "quantity">): Answer["action"][] {
  const s = line.currentStatus;
  const offered: Answer["action"][] = [];
  if (s === "ruled") offered.push("accept");
  if (canMove(s, "declined")) offered.push("decline");
  if (canMove(s, "partially_completed") && line.quantity > 1) offered.push("partial");
  if (SHIPPABLE.includes(s)) offered.push("ship");
  return offered;
}

function refuse(line: Pick<OrderLine, "id" | "currentStatus">, action: string): never {
  throw ApiError.conflict(`Order line ${line.id} is ${line.currentStatus}; it cannot be given the answer '${action}'.`);
}

const notFound = (id: number) => ApiError.notFound(`Order line with id '${id}' not found`);

/**
 * A supplier's answers, per line. A decline, or the rest of a partial confirmation, goes to the next
 * eligible supplier when the account re-routes (src/routing/reroute.ts), in the same batch; the
 * results still show each line as the answer left it for this supplier. A cancellation it is asked
 * for is confirmed or refused here too; a shipment that leaves less than a requested cancellation
 * refuses it. Re-routed lines are handed to the pipeline to be sent.
 */
export async function applyAnswers(db: Db, pipeline: Pipeline, supplier: AuthenticatedSupplier, answers: Answer[]) {
  const ids = [...new Set(answers.map((a) => a.line_id))];
  const result = await retryLostRaces(async () => {
    const { results: lineRows } = await toStatement(db, cancellableLinesQuery({ lineIds: ids, accountId: supplier.accountId }, supplier.id)).all<Row>();
    const lines = lineRows.map(toCancellableLine);
    const byId = new Map(lines.map((l) => [l.id, l]));
    const ours = (l: CancellableLine) => l.matchedSupplierId === supplier.id;
    // Lines of other suppliers or accounts are indistinguishable from unknown ones.
    for (const answer of answers) {
      const line = byId.get(answer.line_id);
      const asked = answer.action === "confirm_cancellation" || answer.action === "refuse_cancellation";
      if (!line || !(ours(line) || (asked && line.openRequest))) throw notFound(answer.line_id);
    }

    const now = isoMicro();
    const changes: LineChange[] = [];
    const shipments: ShipmentRecord[] = [];
    const settlements: Settlement[] = [];
    const leaving = new Map<number, Leaving>();
    const shipping = new Map<number, Answered["shipping"]>();
    const shippedNow = new Map<number, number>();
    const settled = new Set<number>();
    const status = new Map<number, LineStatus>(lines.map((l) => [l.id, l.currentStatus]));
    // What the supplier has confirmed of each line so far (a partial answer earlier in this call counts).
    const confirmed = new Map<number, number | null>(lines.map((l) => [l.id, l.confirmedQuantity]));
    const who = { id: supplier.id, name: supplier.name };
    // A line that leaves this supplier and then gets another answer in the same call leaves without re-routing.
    const flush = (line: OrderLine) => {
      const l = leaving.get(line.id);
      if (!l || !l.to) return;
      changes.push({ kind: "move", lineId: line.id, orderId: line.orderId, from: l.from, to: l.to, message: l.message, confirmedQuantity: l.confirmedQuantity, version: line.moveToken });
      leaving.delete(line.id);
    };
    const move = (line: OrderLine, action: Answer["action"], to: LineStatus, message: string) => {
      const from = status.get(line.id)!;
      if (!canMove(from, to)) refuse({ id: line.id, currentStatus: from }, action);
      changes.push({ kind: "move", lineId: line.id, orderId: line.orderId, from, to, message, version: line.moveToken });
      status.set(line.id, to);
    };
    // Every change carries the line's token as read: a line that moved meanwhile (and maybe came back
    // to the same state, re-routed to another supplier) makes the batch lose, and it is judged again.
    const note = (line: OrderLine, message: string) =>
      changes.push({ kind: "note", lineId: line.id, orderId: line.orderId, message, status: status.get(line.id)!, version: line.moveToken });
    const leave = (line: CancellableLine, action: Answer["action"], to: "declined" | "partially_completed", l: Omit<Leaving, "line" | "from" | "to" | "supplier">) => {
      const from = status.get(line.id)!;
      if (!canMove(from, to)) refuse({ id: line.id, currentStatus: from }, action);
      // A cancellation waiting for this supplier's answer: the line goes nowhere else meanwhile.
      const openCancellationId = line.openRequest?.purpose === "cancel" ? line.openRequest.id : null;
      const hold = openCancellationId !== null && !settled.has(openCancellationId) ? CANCELLATION_HOLD : undefined;
      leaving.set(line.id, { ...l, line, from, to, supplier: who, hold, openCancellationId });
      status.set(line.id, to);
    };

    for (const answer of answers) {
      const line = byId.get(answer.line_id)!;
      flush(line);
      const current = status.get(line.id)!;
      switch (answer.action) {
        case "accept":
          if (current === "ruled") move(line, "accept", "completed", `Accepted by supplier ${supplier.name}`);
          else if (current === "completed" || current === "partially_completed") note(line, `Accepted by supplier ${supplier.name}`);
          else refuse({ id: line.id, currentStatus: current }, "accept");
          if (shipping.get(line.id) !== "stop") shipping.set(line.id, "start");
          break;
        case "decline":
          leave(line, "decline", "declined", { cause: "declined", message: `Declined by supplier ${supplier.name}: ${answer.reason}` });
          shipping.set(line.id, "stop");
          break;
        case "partial": {
          const q = answer.quantity!;
          if (q >= line.quantity) {
            throw ApiError.validation({ quantity: [`The quantity field must be less than the line's quantity (${line.quantity}).`] });
          }
          leave(line, "partial", "partially_completed", {
            cause: "partial",
            confirmedQuantity: q,
            message: `Supplier ${supplier.name} confirmed ${q} of ${line.quantity}${answer.reason ? `: ${answer.reason}` : ""}`,
          });
          confirmed.set(line.id, q);
          if (shipping.get(line.id) !== "stop") shipping.set(line.id, "start");
          break;
        }
        case "ship": {
          if (!SHIPPABLE.includes(current)) refuse({ ...line, currentStatus: current }, "ship");
          if (current === "ruled") move(line, "ship", "completed", `Accepted by supplier ${supplier.name}`);
          const shipment = {
            lineId: line.id,
            orderId: line.orderId,
            accountId: line.accountId,
            // Without a quantity: all of what was confirmed (the whole line, or the part confirmed).
            quantity: answer.quantity ?? (status.get(line.id) === "partially_completed" ? confirmed.get(line.id) : null) ?? line.quantity,
            carrier: answer.carrier ?? null,
            trackingNumber: answer.tracking_number ?? null,
            trackingUrl: answer.tracking_url ?? null,
            // A repeated report of the same shipment (same shipment_id, or tracking number) is recorded once.
            externalId: answer.shipment_id ?? answer.tracking_number ?? null,
          };
          shipments.push(shipment);
          shippedNow.set(line.id, (shippedNow.get(line.id) ?? 0) + shipment.quantity);
          note(
            line,
            `Shipped ${shipment.quantity} by supplier ${supplier.name}${shipment.carrier ? ` via ${shipment.carrier}` : ""}${shipment.trackingNumber ? ` (tracking ${shipment.trackingNumber})` : ""}`,
          );
          shipping.set(line.id, "stop");
          break;
        }
        case "confirm_cancellation":
        case "refuse_cancellation": {
          const request = line.openRequest;
          if (!request || settled.has(request.id)) throw ApiError.conflict(`Order line ${line.id} has no cancellation waiting for an answer.`);
          settled.add(request.id);
          const outcome = answer.action === "confirm_cancellation" ? "confirmed" : "refused";
          settlements.push({ line, status: current, request, outcome, by: "supplier", supplier: who, reason: answer.reason });
          if (outcome === "confirmed" && request.purpose === "cancel" && request.quantity >= line.quantity) status.set(line.id, "skipped");
          break;
        }
      }
    }
    // A shipment that leaves less than a requested cancellation takes: that cancellation is refused.
    for (const [lineId, quantity] of shippedNow) {
      const line = byId.get(lineId)!;
      const request = line.openRequest;
      if (!request || request.purpose !== "cancel" || settled.has(request.id)) continue;
      if (line.quantity - line.shipped - quantity >= request.quantity) continue;
      settled.add(request.id);
      settlements.push({ line, status: status.get(lineId)!, request, outcome: "refused", by: "shipment", supplier: who, reason: `it shipped ${quantity}` });
    }

    const plan = await planReroutes(db, supplier.accountId, [...leaving.values()], now);
    const settlement = settleCancellations(settlements, now);
    // The lines' clocks, only where one runs or may (a supplier with deadlines): most answers touch none.
    const answered: Answered[] = [...shipping]
      .filter(([lineId]) => {
        const l = byId.get(lineId)!;
        return l.supplierShipDays !== null || l.supplierAckHours !== null || l.ackDueAt !== null || l.shipDueAt !== null || l.rerouteReason !== null || l.overdueAt !== null;
      })
      .map(([lineId, s]) => ({ lineId, orderId: byId.get(lineId)!.orderId, shipping: s }));
    const orderIds = lines.map((l) => l.orderId);
    const token = newToken();
    // A shipment is judged against the line's open cancellation as read: one requested meanwhile
    // makes this batch lose, and the shipment is judged again (and refuses it).
    const shippedLines = JSON.stringify([...shippedNow.keys()].map((i) => ({ i, r: byId.get(i)!.openRequest?.purpose === "cancel" ? byId.get(i)!.openRequest!.id : null })));
    const cancellationAsRead = expectCount(
      sql`SELECT count(*) FROM json_each(${shippedLines}) AS j
          WHERE (SELECT c.id FROM cancellation_lines c WHERE c.order_line_id = j.value ->> '$.i' AND c.status = 'requested' AND c.purpose = 'cancel') IS j.value ->> '$.r'`,
      shippedNow.size,
    );
    const written = await runGuarded(db, [
      ...(shippedNow.size ? [cancellationAsRead] : []),
      ...lineStatements([...changes, ...plan.changes, ...settlement.changes], now, { allOrNothing: true, token }),
      ...plan.statements(token),
      ...settlement.statements(token),
      ...shipmentStatements(shipments, now),
      ...answeredStatements(answered, now),
      ...(plan.reroutedOrders.length ? [owedToPipeline(plan.reroutedOrders, now)] : []),
      ...pickedUpStatements(lines, now),
      ...completionStatements(orderIds, now),
    ]);
    if (!written) return LOST;
    return { results: ids.map((id) => ({ line_id: id, current_status: status.get(id)! })), rerouted: plan.reroutedOrders };
  });
  await pipeline.send(result.rerouted.map((orderId) => ({ type: "route_order" as const, orderId })));
  return result.results;
}

/**
 * A pulled order whose every line the supplier has answered is no longer waiting for pickup: it is
 * acknowledged (the supplier has it, or it would not have answered), so it leaves the open list of
 * GET /api/v1/supplier/orders and of the portal. After the batch's moves: only when no line of it is
 * still ruled. No statement unless an answered line is on a dispatch awaiting pickup.
 */
function pickedUpStatements(lines: CancellableLine[], now: string): SQL[] {
  const waiting = [...new Set(lines.filter((l) => l.dispatchStatus === "awaiting_pickup").map((l) => l.dispatchId))];
  if (waiting.length === 0) return [];
  return [
    sql`UPDATE dispatches SET status = 'acknowledged', acknowledged_at = coalesce(acknowledged_at, ${now}), updated_at = ${now}
        WHERE id IN (SELECT value FROM json_each(${JSON.stringify(waiting)})) AND status = 'awaiting_pickup'
          AND NOT EXISTS (SELECT 1 FROM order_lines l WHERE l.dispatch_id = dispatches.id AND l.current_status = 'ruled')`,
  ];
}

export type SupplierDispatch = { dispatch: Dispatch; order: Order; lines: OrderLine[] };

/**
 * The supplier portal's two lists. Open: what waits for the supplier (a pulled order to fetch and
 * acknowledge; a manual or sent dispatch with a line still waiting for its answer). History: the
 * rest (acknowledged, answered, failed, still being sent, ...).
 */
export type PortalView = "open" | "history";
// Written out table-qualified: inside a one-table select Drizzle writes its columns bare.
const OPEN_DISPATCH = sql`(dispatches.status = 'awaiting_pickup' OR (dispatches.status IN ('manual', 'sent')
  AND EXISTS (SELECT 1 FROM order_lines l WHERE l.dispatch_id = dispatches.id AND l.current_status = 'ruled')))`;
const PORTAL_VIEWS: Record<PortalView, SQL> = { open: OPEN_DISPATCH, history: sql`NOT ${OPEN_DISPATCH}` };

/**
 * The supplier's dispatches in these states (or of a portal view), oldest first (or newest first),
 * each with its order and lines (document.ts presents them for the API; the portal renders them).
 */
export async function listSupplierDispatches(
  db: Db,
  supplier: AuthenticatedSupplier,
  filter: readonly DispatchStatus[] | PortalView,
  page: PageRequest,
  order: "oldest" | "newest" = "oldest",
): Promise<{ total: number; dispatches: SupplierDispatch[] }> {
  // Only dispatches that still carry a line for it: lines re-routed to another supplier have left
  // theirs. The API's documents also leave out cancelled (skipped) lines: they are not to be
  // delivered; the portal shows them, with their status.
  const view = typeof filter === "string";
  const deliverable = view ? sql`` : sql`AND l.current_status <> 'skipped'`;
  const where = and(
    eq(dispatches.supplierId, supplier.id),
    view ? PORTAL_VIEWS[filter] : inArray(dispatches.status, [...filter]),
    sql`EXISTS (SELECT 1 FROM order_lines l WHERE l.dispatch_id = ${dispatches.id} ${deliverable})`,
  );
  const [countRows, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(dispatches).where(where),
    db
      .select()
      .from(dispatches)
      .where(where)
      .orderBy(order === "oldest" ? asc(dispatches.id) : desc(dispatches.id))
      .limit(page.perPage)
      .offset(offsetOf(page)),
  ]);
  if (rows.length === 0) return { total: countRows[0]?.total ?? 0, dispatches: [] };
  const [orderRows, lineRows] = await db.batch([
    db.select().from(orders).where(sql`${orders.id} IN (SELECT value FROM json_each(${JSON.stringify(rows.map((d) => d.orderId))}))`),
    db
      .select()
      .from(orderLines)
      .where(
        sql`${orderLines.dispatchId} IN (SELECT value FROM json_each(${JSON.stringify(rows.map((d) => d.id))})) ${view ? sql`` : sql`AND ${orderLines.currentStatus} <> 'skipped'`}`,
      )
      .orderBy(asc(orderLines.position), asc(orderLines.id)),
  ]);
  const ordersById = new Map(orderRows.map((o) => [o.id, o]));
  return {
    total: countRows[0]?.total ?? 0,
    dispatches: rows.map((dispatch) => ({ dispatch, order: ordersById.get(dispatch.orderId)!, lines: lineRows.filter((l) => l.dispatchId === dispatch.id) })),
  };
}

export type SupplierDispatchDetail = SupplierDispatch & { shipments: Shipment[] };

/**
 * One dispatch of this supplier with its order, lines and their shipments, in one round trip.
 * Another supplier's (or account's) dispatch is not found, exactly like an unknown one.
 */
export async function getSupplierDispatch(db: Db, supplier: AuthenticatedSupplier, dispatchId: number): Promise<SupplierDispatchDetail> {
  const orderOfDispatch = sql`(SELECT order_id FROM dispatches WHERE id = ${dispatchId} AND supplier_id = ${supplier.id})`;
  const [dispatchRows, orderRows, lines, shipmentRows] = await db.batch([
    db.select().from(dispatches).where(and(eq(dispatches.id, dispatchId), eq(dispatches.supplierId, supplier.id))),
    db.select().from(orders).where(sql`${orders.id} = ${orderOfDispatch}`),
    db.select().from(orderLines).where(eq(orderLines.dispatchId, dispatchId)).orderBy(asc(orderLines.position), asc(orderLines.id)),
    // Through shipments_order_idx: the order's shipments of this dispatch's lines.
    db
      .select()
      .from(shipments)
      .where(and(sql`${shipments.orderId} = ${orderOfDispatch}`, sql`${shipments.orderLineId} IN (SELECT id FROM order_lines WHERE dispatch_id = ${dispatchId})`))
      .orderBy(asc(shipments.id)),
  ]);
  const [dispatch] = dispatchRows;
  const [order] = orderRows;
  if (!dispatch || !order) throw ApiError.notFound(`Order with dispatch id '${dispatchId}' not found`);
  return { dispatch, order, lines, shipments: shipmentRows };
}

/** Pull channel: the supplier took the order; its lines are completed. Repeating it changes nothing. */
export async function acknowledgeDispatch(db: Db, supplier: AuthenticatedSupplier, dispatchId: number) {
  const dispatch = await db.query.dispatches.findFirst({ where: and(eq(dispatches.id, dispatchId), eq(dispatches.supplierId, supplier.id)) });
  if (!dispatch) throw ApiError.notFound(`Order with dispatch id '${dispatchId}' not found`);
  if (dispatch.status !== "awaiting_pickup" && dispatch.status !== "acknowledged") {
    throw ApiError.conflict(`Dispatch ${dispatchId} is ${dispatch.status}; only orders awaiting pickup can be acknowledged.`);
  }
  const lines = await db.select().from(orderLines).where(and(eq(orderLines.dispatchId, dispatchId), eq(orderLines.currentStatus, "ruled")));
  const now = isoMicro();
  // Repeating it (or two at once) changes nothing more: the moves are guarded by the lines' state.
  await runBatch(db, [
    sql`UPDATE dispatches SET status = 'acknowledged', acknowledged_at = coalesce(acknowledged_at, ${now}), updated_at = ${now}
        WHERE id = ${dispatchId} AND status IN ('awaiting_pickup', 'acknowledged')`,
    ...moveLinesStatements(
      lines.map((l) => ({ lineId: l.id, orderId: l.orderId, from: "ruled", to: "completed", message: `Acknowledged by supplier ${supplier.name}` })),
      now,
    ),
    // Acknowledged is accepted: the acknowledgement clock stops, the shipping clock starts.
    ...answeredStatements(lines.map((l) => ({ lineId: l.id, orderId: l.orderId, shipping: "start" })), now),
    ...completionStatements([dispatch.orderId], now),
  ]);
  return { dispatch_id: dispatchId, status: "acknowledged" as const, acknowledged_at: dispatch.acknowledgedAt ?? now };
}
