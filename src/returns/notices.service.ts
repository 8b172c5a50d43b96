// Sending a return's notice to its supplier: one attempt under the outbound engine's lease, on the
// supplier's channel (webhook signed like a dispatch, e-mail, file), the same backoff and park as a
// cancellation request. A notice that cannot be delivered leaves the return waiting: the supplier
// still sees it in the pull API and the portal, and the shop sees the failure on the return.
import { eq, sql, type SQL } from "drizzle-orm";
import { rowMapper, type Db } from "../db";
import { orderLines, orders, returnLines, returnNotices, returns, suppliers, type ReturnNotice } from "../db/schema";
import type { Bindings } from "../env";
import { channelFor } from "../forwarding/channels";
import { returnMailSubject, returnMailText, type ReturnDocument } from "../forwarding/return-document";
import { sendLedger } from "../forwarding/x12/numbers";
import { afterFailure, claim, jobSettings, Lease, underLease } from "../lib/outbound-job";
import { count } from "../lib/plural";
import { isoMicro } from "../lib/time";
import { RETURN_NOTICE_JOB } from "./notices";

const noticeRow = rowMapper(returnNotices);

/** The document of a return as its supplier receives it. Two round trips at most (one batch). */
export async function returnDocument(db: Db, returnId: number, kind: "requested" | "cancelled", key: string): Promise<ReturnDocument> {
  const [[ret], [order], [supplier], returnRows, lineRows] = await db.batch([
    db.select().from(returns).where(eq(returns.id, returnId)),
    db.select().from(orders).where(sql`${orders.id} = (SELECT order_id FROM returns WHERE id = ${returnId})`),
    db.select().from(suppliers).where(sql`${suppliers.id} = (SELECT supplier_id FROM returns WHERE id = ${returnId})`),
    // Two statements, not a join: D1 keys a row's columns by name, and both tables have id and quantity.
    db.select().from(returnLines).where(eq(returnLines.returnId, returnId)).orderBy(returnLines.id),
    db.select().from(orderLines).where(sql`${orderLines.id} IN (SELECT order_line_id FROM return_lines WHERE return_id = ${returnId})`),
  ]);
  const linesById = new Map(lineRows.map((l) => [l.id, l]));
  const lines = returnRows.map((rl) => ({ rl, l: linesById.get(rl.orderLineId)! }));
  return {
    id: key,
    type: kind === "cancelled" ? "return.cancelled" : "return.requested",
    return_id: ret.id,
    status: ret.status,
    created_at: ret.createdAt,
    test: order.test,
    supplier: { id: supplier.id, name: supplier.name },
    order: { reference: order.reference, external_id: order.externalId },
    note: ret.note,
    customer_tracking: ret.customerTracking,
    rma: ret.rma,
    return_address: ret.returnAddress,
    cancel_reason: ret.cancelReason,
    lines: lines.map(({ rl, l }) => ({ id: l.id, external_id: l.externalId, name: l.name, reference: l.reference, ean13: l.ean13, quantity: rl.quantity, reason: rl.reason })),
  };
}

export type NoticeResult = { done: true } | { done: false; retryInSeconds: number };

/** One attempt at sending a notice. Safe to call for one that is done or being sent. */
export async function sendReturnNotice(db: Db, env: Bindings, noticeId: number): Promise<NoticeResult> {
  const settings = jobSettings(env, "return_notice");
  const lease = Lease.for(settings);
  const row = await claim(db, RETURN_NOTICE_JOB, noticeId, lease);
  if (!row) return { done: true };
  const claimed: ReturnNotice = noticeRow(row);
  lease.on(db, RETURN_NOTICE_JOB, claimed.id).hold();
  try {
    const [supplier] = await db.select().from(suppliers).where(eq(suppliers.id, claimed.supplierId));
    const doc = await returnDocument(db, claimed.returnId, claimed.kind, claimed.idempotencyKey);
    const payload = JSON.stringify(doc);
    const leased = (set: SQL) => underLease(db, RETURN_NOTICE_JOB, claimed.id, lease, set);
    const mail = { subject: returnMailSubject(doc), text: returnMailText(doc), headers: { "X-Return-Id": String(doc.return_id) } };
    const attempt = await channelFor(claimed.channel).send({ kind: "return", document: doc, mail }, supplier, { env, timeoutMs: settings.timeoutMs, ledger: sendLedger(db, supplier) });
    if (attempt.outcome === "delivered") {
      await leased(sql`status = 'sent', lease_until = NULL, payload = ${payload}, last_error = NULL, sent_at = ${isoMicro()}`);
      return { done: true };
    }
    const next = afterFailure(settings, claimed.attempts, { final: attempt.outcome === "rejected" });
    if (!next.retry) {
      const detail = attempt.outcome === "rejected" ? `supplier ${supplier.name} rejected it: ${attempt.detail}` : `failed after ${count(claimed.attempts, "attempt")}: ${attempt.detail}`;
      await leased(sql`status = 'failed', lease_until = NULL, payload = ${payload}, last_error = ${detail}`);
      return { done: true };
    }
    const requeued = await leased(sql`status = 'queued', lease_until = NULL, last_error = ${attempt.detail}, payload = ${payload}`);
    return requeued ? { done: false, retryInSeconds: next.delaySeconds } : { done: true };
  } finally {
    await lease.release();
  }
}
