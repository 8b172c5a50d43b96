// Cancellation requests on the supplier's side of forwarding: sent on its channel under the same
// lease, idempotency key and retry rules as a dispatch (./lease.ts), listed for pull suppliers and
// the portal, acknowledged. How a request is made and settled: src/orders/cancellations.service.ts.
import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { rowMapper, type Db } from "../db";
import {
  cancellationLines,
  cancellations,
  orderLines,
  orders,
  suppliers,
  type Cancellation,
  type CancellationLine,
  type CancellationStatus,
  type Order,
  type OrderLine,
} from "../db/schema";
import type { AuthenticatedSupplier, Bindings } from "../env";
import { ApiError } from "../lib/errors";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { isoMicro } from "../lib/time";
import { noteLinesStatements } from "../orders/lifecycle";
import { buildCancellationDocument, cancellationMailSubject, cancellationMailText, type CancellationLineRow } from "./cancellation-document";
import { channelFor } from "./channels";
import { afterFailure, claim, jobSettings, Lease, underLease } from "../lib/outbound-job";
import { CANCELLATION_JOB } from "./lease";
import type { SendResult } from "./forwarding.service";
import { count } from "../lib/plural";
import { sendLedger } from "./x12/numbers";

/**
 * The request lines of these cancellations and their order lines: two statements for the caller's
 * batch (a join would collide on the column names D1 keys rows by), put together by withLines.
 */
const requestLines = (db: Db, cancellationIds: number[]) => {
  const ids = JSON.stringify(cancellationIds);
  return [
    db.select().from(cancellationLines).where(sql`${cancellationLines.cancellationId} IN (SELECT value FROM json_each(${ids}))`),
    db
      .select()
      .from(orderLines)
      .where(sql`${orderLines.id} IN (SELECT order_line_id FROM cancellation_lines WHERE cancellation_id IN (SELECT value FROM json_each(${ids})))`)
      .orderBy(asc(orderLines.position), asc(orderLines.id)),
  ] as const;
};

const cancellationRow = rowMapper(cancellations);

/** Each order line with its request, in the lines' order. */
function withLines(requests: CancellationLine[], lines: OrderLine[]): CancellationLineRow[] {
  return lines.flatMap((line) => requests.filter((r) => r.orderLineId === line.id).map((request) => ({ request, line })));
}

/** One attempt at sending a cancellation request. Safe to call for one that is done or being sent. */
export async function sendCancellation(db: Db, env: Bindings, cancellationId: number): Promise<SendResult> {
  const settings = jobSettings(env, "cancellation");
  const lease = Lease.for(settings);
  const row = await claim(db, CANCELLATION_JOB, cancellationId, lease);
  if (!row) return { done: true };
  const claimed = cancellationRow(row);
  // Renewed while the attempt lives; the first write after the call stops it (underLease).
  lease.on(db, CANCELLATION_JOB, claimed.id).hold();
  try {
    return await sendClaimed(db, env, claimed, lease);
  } finally {
    await lease.release();
  }
}

/** The claimed request sent, and what followed written under its lease. */
async function sendClaimed(db: Db, env: Bindings, claimed: Cancellation, lease: Lease): Promise<SendResult> {
  const settings = jobSettings(env, "cancellation");
  const [[order], [supplier], requests, orderLineRows] = await db.batch([
    db.select().from(orders).where(eq(orders.id, claimed.orderId)),
    db.select().from(suppliers).where(eq(suppliers.id, claimed.supplierId)),
    ...requestLines(db, [claimed.id]),
  ]);
  const lines = withLines(requests, orderLineRows);
  const doc = buildCancellationDocument(claimed, order, supplier, lines);
  const payload = JSON.stringify(doc);
  const leased = (set: SQL, then: SQL[] = []) => underLease(db, CANCELLATION_JOB, claimed.id, lease, set, then);

  // Settled before it went out (the shop recorded the supplier's answer): nothing to send.
  if (!lines.some((l) => l.request.status === "requested")) {
    await leased(sql`status = 'answered', lease_until = NULL, payload = ${payload}`);
    return { done: true };
  }
  // On its channel (./channels/). Pull and manual requests are never queued (the supplier sees them
  // where it looks); one that is, after a supplier changed its channel, waits where it is seen now.
  const mail = { subject: cancellationMailSubject(doc), text: cancellationMailText(doc), headers: { "X-Cancellation-Id": String(claimed.id) } };
  const attempt = await channelFor(claimed.channel).send({ kind: "cancellation", document: doc, mail }, supplier, { env, timeoutMs: settings.timeoutMs, ledger: sendLedger(db, supplier) });

  const at = isoMicro();
  if (attempt.outcome === "delivered") {
    await leased(sql`status = 'requested', lease_until = NULL, payload = ${payload}, last_error = NULL, sent_at = ${at}`);
    return { done: true };
  }
  const next = afterFailure(settings, claimed.attempts, { final: attempt.outcome === "rejected" });
  if (!next.retry) {
    const detail =
      attempt.outcome === "rejected" ? `supplier ${supplier.name} rejected it: ${attempt.detail}` : `failed after ${count(claimed.attempts, "attempt")}: ${attempt.detail}`;
    const open = lines.filter((l) => l.request.status === "requested");
    // The lines keep waiting for an answer: the supplier can still give it (API, portal), the shop sees it.
    await leased(sql`status = 'failed', lease_until = NULL, payload = ${payload}, last_error = ${detail}`, [
      ...noteLinesStatements(
        open.map(({ line }) => ({ lineId: line.id, orderId: line.orderId, status: line.currentStatus, message: `The cancellation request could not be sent: ${detail}` })),
        at,
      ),
    ]);
    return { done: true };
  }
  const requeued = await leased(sql`status = 'queued', lease_until = NULL, last_error = ${attempt.detail}, payload = ${payload}`);
  if (!requeued) return { done: true };
  return { done: false, retryInSeconds: next.delaySeconds };
}

/** Statuses of a request the supplier still owes an answer to, whether or not its push went through. */
export const OPEN_CANCELLATION_STATUSES: CancellationStatus[] = ["queued", "sending", "requested", "failed"];

export type SupplierCancellation = { cancellation: Cancellation; order: Order; lines: CancellationLineRow[] };

/** The supplier's cancellation requests in these states, oldest first, each with its order and lines. Two round trips. */
export async function listSupplierCancellations(
  db: Db,
  supplier: AuthenticatedSupplier,
  statuses: CancellationStatus[],
  page: PageRequest,
): Promise<{ total: number; cancellations: SupplierCancellation[] }> {
  const where = and(eq(cancellations.supplierId, supplier.id), inArray(cancellations.status, statuses));
  const [countRows, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(cancellations).where(where),
    db.select().from(cancellations).where(where).orderBy(asc(cancellations.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  const total = countRows[0]?.total ?? 0;
  if (rows.length === 0) return { total, cancellations: [] };
  const [orderRows, requests, orderLineRows] = await db.batch([
    db.select().from(orders).where(sql`${orders.id} IN (SELECT value FROM json_each(${JSON.stringify(rows.map((c) => c.orderId))}))`),
    ...requestLines(
      db,
      rows.map((c) => c.id),
    ),
  ]);
  const lines = withLines(requests, orderLineRows);
  const ordersById = new Map(orderRows.map((o) => [o.id, o]));
  return {
    total,
    cancellations: rows.map((cancellation) => ({
      cancellation,
      order: ordersById.get(cancellation.orderId)!,
      lines: lines.filter((l) => l.request.cancellationId === cancellation.id),
    })),
  };
}

/** The supplier has seen the request (pull): acknowledged_at is set once. Its lines still wait for confirm or refuse. */
export async function acknowledgeCancellation(db: Db, supplier: AuthenticatedSupplier, cancellationId: number) {
  const now = isoMicro();
  const [row] = await db
    .update(cancellations)
    .set({ acknowledgedAt: sql`coalesce(${cancellations.acknowledgedAt}, ${now})` })
    .where(and(eq(cancellations.id, cancellationId), eq(cancellations.supplierId, supplier.id)))
    .returning();
  if (!row) throw ApiError.notFound(`Cancellation with id '${cancellationId}' not found`);
  return row;
}
