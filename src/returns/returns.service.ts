// Reading returns: one with its lines and log, an order's, the account's list (filtered, paginated
// like the orders list: one count, one page, one batch for the page's children), a supplier's open
// ones, and whether an order still has one open (an order with an open return is not finished).
import { and, asc, desc, eq, gte, inArray, lte, sql, type SQL } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../db";
import { orderLines, orders, returnLines, returnLogs, returnNotices, returns, suppliers, type Return, type ReturnLine, type ReturnLog, type ReturnNotice, type ReturnStatus } from "../db/schema";
import { ApiError } from "../lib/errors";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { findOrder } from "../orders/orders.service";

/** States in which a return still waits for something (the supplier, the customer's parcel). */
export const OPEN_RETURN_STATUSES: ReturnStatus[] = ["requested", "authorised", "in_transit", "received"];
/** States in which the supplier owes the next step. */
export const WAITING_ON_SUPPLIER: ReturnStatus[] = ["requested", "in_transit", "received"];

export type ReturnLineView = ReturnLine & { name: string; externalId: string; reference: string | null };
export type ReturnView = {
  ret: Return;
  order: { reference: string; externalId: string };
  supplier: { id: number; name: string };
  lines: ReturnLineView[];
  logs: ReturnLog[];
  notices: ReturnNotice[];
};

/**
 * The returns a scope names (SQL that selects their ids), each with its order's and supplier's names
 * and its children (lines, log, notices): one batch, one round trip, whatever the number of returns.
 */
async function viewsOf(db: Db, scope: SQL, order: "asc" | "desc" = "asc"): Promise<ReturnView[]> {
  const inScope = (col: SQL | AnySQLiteColumn) => sql`${col} IN (${scope})`;
  const [parents, lineRows, logRows, noticeRows] = await db.batch([
    db
      // The order's and supplier's columns under names of their own: D1 keys a batch's row columns by name.
      .select({
        ret: returns,
        orderReference: sql<string>`${orders.reference}`.as("order_reference"),
        orderExternalId: sql<string>`${orders.externalId}`.as("order_external_id"),
        supplierName: sql<string>`${suppliers.name}`.as("supplier_name"),
      })
      .from(returns)
      .innerJoin(orders, eq(orders.id, returns.orderId))
      .innerJoin(suppliers, eq(suppliers.id, returns.supplierId))
      .where(inScope(returns.id))
      .orderBy(order === "asc" ? asc(returns.id) : desc(returns.id)),
    db
      .select({ rl: returnLines, name: orderLines.name, externalId: orderLines.externalId, reference: orderLines.reference })
      .from(returnLines)
      .innerJoin(orderLines, eq(orderLines.id, returnLines.orderLineId))
      .where(inScope(returnLines.returnId))
      .orderBy(asc(returnLines.id)),
    db.select().from(returnLogs).where(inScope(returnLogs.returnId)).orderBy(asc(returnLogs.id)),
    db.select().from(returnNotices).where(inScope(returnNotices.returnId)).orderBy(asc(returnNotices.id)),
  ]);
  return parents.map((p) => ({
    ret: p.ret,
    order: { reference: p.orderReference, externalId: p.orderExternalId },
    supplier: { id: p.ret.supplierId, name: p.supplierName },
    lines: lineRows
      .filter((l) => l.rl.returnId === p.ret.id)
      .map((l) => ({ ...l.rl, name: l.name, externalId: l.externalId, reference: l.reference })),
    logs: logRows.filter((l) => l.returnId === p.ret.id),
    notices: noticeRows.filter((n) => n.returnId === p.ret.id),
  }));
}

/** A page of returns (their ids, in the page's order) with their children: one round trip. */
const withChildren = async (db: Db, rows: Return[], order: "asc" | "desc"): Promise<ReturnView[]> =>
  rows.length === 0 ? [] : viewsOf(db, sql`SELECT value FROM json_each(${JSON.stringify(rows.map((r) => r.id))})`, order);

export const returnNotFound = (id: number) => ApiError.notFound(`Return with id '${id}' not found`);

/** One return of the account (404 otherwise). */
export async function getReturn(db: Db, accountId: number, id: number): Promise<ReturnView> {
  const [view] = await viewsOf(db, sql`SELECT id FROM returns WHERE id = ${id} AND account_id = ${accountId}`);
  if (!view) throw returnNotFound(id);
  return view;
}

/** One return of this supplier (another supplier's, or none: 404). */
export async function getSupplierReturn(db: Db, supplier: { id: number; accountId: number }, id: number): Promise<ReturnView> {
  const [view] = await viewsOf(db, sql`SELECT id FROM returns WHERE id = ${id} AND supplier_id = ${supplier.id} AND account_id = ${supplier.accountId}`);
  if (!view) throw returnNotFound(id);
  return view;
}

/** The order's returns, oldest first (404: no such order of the account). */
export async function listOrderReturns(db: Db, accountId: number, reference: string): Promise<ReturnView[]> {
  const views = await viewsOf(db, sql`SELECT id FROM returns WHERE order_id = (SELECT id FROM orders WHERE account_id = ${accountId} AND reference = ${reference})`);
  // None: the order may have none, or not be found (findOrder says which: not found, or archived).
  if (views.length === 0) await findOrder(db, accountId, reference);
  return views;
}

/** The returns of the order with this id, oldest first (the archive reads them to keep them with it). */
export const returnsOfOrder = (db: Db, orderId: number): Promise<ReturnView[]> => viewsOf(db, sql`SELECT id FROM returns WHERE order_id = ${orderId}`);

export type ReturnFilters = { status?: ReturnStatus[]; supplierId?: number; createdFrom?: string; createdTo?: string };

/** The account's returns, newest first, one page of them. */
export async function listReturns(db: Db, accountId: number, filters: ReturnFilters, page: PageRequest): Promise<{ total: number; data: ReturnView[] }> {
  const where = and(
    eq(returns.accountId, accountId),
    filters.status?.length ? inArray(returns.status, filters.status) : undefined,
    filters.supplierId !== undefined ? eq(returns.supplierId, filters.supplierId) : undefined,
    filters.createdFrom ? gte(returns.createdAt, filters.createdFrom) : undefined,
    filters.createdTo ? lte(returns.createdAt, filters.createdTo) : undefined,
  );
  const [countRows, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(returns).where(where),
    db.select().from(returns).where(where).orderBy(desc(returns.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  return { total: countRows[0]?.total ?? 0, data: await withChildren(db, rows, "desc") };
}

/** The supplier's returns in these states, oldest first (the pull API, the portal). */
export async function listSupplierReturns(db: Db, supplier: { id: number }, statuses: ReturnStatus[], page: PageRequest): Promise<{ total: number; data: ReturnView[] }> {
  const where = and(eq(returns.supplierId, supplier.id), inArray(returns.status, statuses));
  const [countRows, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(returns).where(where),
    db.select().from(returns).where(where).orderBy(asc(returns.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  return { total: countRows[0]?.total ?? 0, data: await withChildren(db, rows, "asc") };
}

/**
 * Whether the order has a return still open (requested, authorised, in transit or received but not
 * yet credited or closed): such an order is not finished (archiving must leave it). One indexed query.
 */
export async function hasOpenReturns(db: Db, orderId: number): Promise<boolean> {
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(returns)
    .where(and(eq(returns.orderId, orderId), inArray(returns.status, OPEN_RETURN_STATUSES)));
  return (row?.n ?? 0) > 0;
}

/** The same as SQL, for a query over orders (`o`: orders): true while one of its returns is open. */
export const openReturnOf = (orderAlias: string) =>
  sql.raw(`EXISTS (SELECT 1 FROM returns r WHERE r.order_id = ${orderAlias}.id AND r.status IN (${OPEN_RETURN_STATUSES.map((s) => `'${s}'`).join(", ")}))`);

/** The Returns page's tabs and filter: how many of the account's returns are in each state, and the account's suppliers by name. One batch. */
export async function returnsOverview(db: Db, accountId: number): Promise<{ counts: Partial<Record<ReturnStatus, number>>; suppliers: { id: number; name: string }[] }> {
  const [countRows, supplierRows] = await db.batch([
    db.select({ status: returns.status, n: sql<number>`count(*)` }).from(returns).where(eq(returns.accountId, accountId)).groupBy(returns.status),
    db.select({ id: suppliers.id, name: suppliers.name }).from(suppliers).where(eq(suppliers.accountId, accountId)).orderBy(asc(suppliers.name)),
  ]);
  return { counts: Object.fromEntries(countRows.map((r) => [r.status, Number(r.n)])), suppliers: supplierRows };
}
