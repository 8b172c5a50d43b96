// A supplier's dispatches as the supplier sees them: its portal's two lists (open, history), the
// API's list by status (GET /api/v1/supplier/orders), one dispatch with its shipments, and the
// acknowledgement of a pulled order (every ruled line of it accepted in one batch). The answers to its
// lines are answers.service.ts's.
import type { SupplierDispatch } from "./document";
import { and, asc, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { runBatch, type Db } from "../db";
import { dispatches, orderLines, orders, shipments, type DispatchStatus, type LineStatus, type Shipment } from "../db/schema";
import type { AuthenticatedSupplier } from "../env";
import { ApiError } from "../lib/errors";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { isoMicro } from "../lib/time";
import { completionStatements, moveLinesStatements } from "../orders/lifecycle";
import { answeredStatements } from "./deadlines";

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

/**
 * Pull channel: the supplier took the order; its lines are completed. Repeating it changes nothing
 * (and answers the first acknowledgement's time).
 */
/**
 * Whether acknowledging a dispatch still tells the shop something (what the supplier portal offers):
 * a pulled order not yet acknowledged, no line of it answered and nothing of it shipped. Once a line
 * is answered or shipped the supplier plainly has the order; acknowledging then would only accept
 * the lines still waiting, which their own Accept says.
 */
export function acknowledgeOffered({ dispatch, lines, shipments }: SupplierDispatchDetail): boolean {
  if (dispatch.status !== "awaiting_pickup" || shipments.length > 0) return false;
  return lines.some((l) => l.currentStatus === "ruled") && !lines.some((l) => ANSWERED.includes(l.currentStatus));
}

/** A line's states once its supplier answered it. */
const ANSWERED: readonly LineStatus[] = ["completed", "partially_completed", "declined"];

export async function acknowledgeDispatch(db: Db, supplier: AuthenticatedSupplier, dispatchId: number): Promise<{ dispatchId: number; acknowledgedAt: string }> {
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
  return { dispatchId, acknowledgedAt: dispatch.acknowledgedAt ?? now };
}
