// Forwarding: ruled lines become one dispatch per (order, supplier), and each dispatch is sent
// through its supplier's channel. Sending is at-most-once per attempt (a lease on the dispatch)
// and retried with backoff; a redelivered queue message or a double retry click never sends twice.
import { and, asc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import { toStatement, type Db } from "../db";
import { dispatches, orderLines, orders, suppliers, type Dispatch, type OrderLine } from "../db/schema";
import type { Bindings } from "../env";
import { ApiError } from "../lib/errors";
import { isoMicro } from "../lib/time";
import { completionStatements, moveStatements, noteStatement, type Move } from "../orders/lifecycle";
import { findOrder } from "../orders/orders.service";
import { postWebhook, sendEmail, type Attempt } from "./channels";
import { buildDocument } from "./document";

const LEASE_MS = 2 * 60 * 1000;

async function run(db: Db, statements: SQL[]) {
  if (statements.length > 0) await db.$client.batch(statements.map((s) => toStatement(db, s)));
}

/**
 * Claims the order's ruled, not yet dispatched lines into one dispatch per supplier, and returns
 * every dispatch of the order that waits to be sent (new ones and ones a block held back).
 * One batch per supplier; D1 runs batches one at a time, so a concurrent run finds the lines claimed.
 */
export async function dispatchOrder(db: Db, orderId: number): Promise<number[]> {
  const order = await db.query.orders.findFirst({ where: eq(orders.id, orderId) });
  if (!order || order.blocked) return [];
  const [lines, supplierRows] = await db.batch([
    db
      .select({ id: orderLines.id, supplierId: orderLines.matchedSupplierId })
      .from(orderLines)
      .where(and(eq(orderLines.orderId, orderId), eq(orderLines.currentStatus, "ruled"), isNull(orderLines.dispatchId))),
    db.select({ id: suppliers.id, channel: suppliers.channel }).from(suppliers).where(eq(suppliers.accountId, order.accountId)),
  ]);
  const channels = new Map(supplierRows.map((s) => [s.id, s.channel]));
  const bySupplier = new Map<number, number[]>();
  for (const line of lines) {
    if (line.supplierId === null) continue;
    bySupplier.set(line.supplierId, [...(bySupplier.get(line.supplierId) ?? []), line.id]);
  }
  const now = isoMicro();
  for (const [supplierId, lineIds] of bySupplier) {
    const key = crypto.randomUUID();
    const unclaimed = sql`EXISTS (SELECT 1 FROM order_lines WHERE id IN (${sql.join(lineIds.map((i) => sql`${i}`), sql`, `)})
      AND current_status = 'ruled' AND dispatch_id IS NULL)`;
    await run(db, [
      sql`INSERT INTO dispatches (account_id, order_id, supplier_id, channel, status, idempotency_key, attempts, created_at, updated_at)
          SELECT ${order.accountId}, ${orderId}, ${supplierId}, ${channels.get(supplierId) ?? "manual"}, 'queued', ${key}, 0, ${now}, ${now}
          WHERE ${unclaimed}`,
      sql`UPDATE order_lines SET dispatch_id = (SELECT id FROM dispatches WHERE idempotency_key = ${key}), updated_at = ${now}
          WHERE id IN (${sql.join(lineIds.map((i) => sql`${i}`), sql`, `)}) AND current_status = 'ruled' AND dispatch_id IS NULL
            AND EXISTS (SELECT 1 FROM dispatches WHERE idempotency_key = ${key})`,
    ]);
  }
  const waiting = await db
    .select({ id: dispatches.id })
    .from(dispatches)
    .where(and(eq(dispatches.orderId, orderId), eq(dispatches.status, "queued")));
  return waiting.map((d) => d.id);
}

export type SendResult = { done: true } | { done: false; retryInSeconds: number };

/** One attempt at sending a dispatch. Safe to call for a dispatch that is done or being sent. */
export async function sendDispatch(db: Db, env: Bindings, dispatchId: number): Promise<SendResult> {
  const now = new Date();
  const nowIso = isoMicro(now);
  const [claimed] = await db
    .update(dispatches)
    .set({ status: "sending", leaseUntil: isoMicro(new Date(now.getTime() + LEASE_MS)), attempts: sql`${dispatches.attempts} + 1`, updatedAt: nowIso })
    .where(
      and(
        eq(dispatches.id, dispatchId),
        sql`(${dispatches.status} = 'queued' OR (${dispatches.status} = 'sending' AND ${dispatches.leaseUntil} < ${nowIso}))`,
      ),
    )
    .returning();
  if (!claimed) return { done: true };

  const [orderRows, lines, supplierRows] = await db.batch([
    db.select().from(orders).where(eq(orders.id, claimed.orderId)),
    db.select().from(orderLines).where(and(eq(orderLines.dispatchId, claimed.id), eq(orderLines.currentStatus, "ruled"))).orderBy(asc(orderLines.position)),
    db.select().from(suppliers).where(eq(suppliers.id, claimed.supplierId)),
  ]);
  const order = orderRows[0];
  const supplier = supplierRows[0];
  if (order.blocked) {
    // Held back; unblocking routes the order again, which re-queues this dispatch.
    await db.update(dispatches).set({ status: "queued", leaseUntil: null, attempts: sql`${dispatches.attempts} - 1`, updatedAt: nowIso }).where(eq(dispatches.id, claimed.id));
    return { done: true };
  }
  const doc = buildDocument(claimed, order, supplier, lines);
  const payload = JSON.stringify(doc);
  const finish = (status: Dispatch["status"], lineMoves: Omit<Move, "lineId" | "orderId">[], extra: SQL[] = []) =>
    run(db, [
      sql`UPDATE dispatches SET status = ${status}, lease_until = NULL, payload = ${payload}, last_error = ${status === "failed" ? lineMoves[0]?.message ?? null : null},
          sent_at = CASE WHEN ${status} IN ('sent', 'dry_run') THEN ${nowIso} ELSE sent_at END, updated_at = ${nowIso}
          WHERE id = ${claimed.id}`,
      ...lines.flatMap((line, i) => moveStatements({ lineId: line.id, orderId: order.id, ...lineMoves[Math.min(i, lineMoves.length - 1)] }, nowIso)),
      ...extra,
      ...completionStatements(order.id, nowIso),
    ]);

  if (lines.length === 0) {
    await run(db, [sql`UPDATE dispatches SET status = 'sent', lease_until = NULL, updated_at = ${nowIso} WHERE id = ${claimed.id}`]);
    return { done: true };
  }
  if (order.test) {
    await finish("dry_run", [{ from: "ruled", to: "completed", message: `Test order: dry run, nothing was sent to supplier ${supplier.name}` }]);
    return { done: true };
  }
  if (claimed.channel === "manual") {
    // Nothing is sent and nothing is logged: the lines wait, ruled, for POST .../complete.
    await run(db, [sql`UPDATE dispatches SET status = 'manual', lease_until = NULL, payload = ${payload}, updated_at = ${nowIso} WHERE id = ${claimed.id}`]);
    return { done: true };
  }
  if (claimed.channel === "pull") {
    const note = `Waiting for supplier ${supplier.name} to fetch and acknowledge the order`;
    await run(db, [
      sql`UPDATE dispatches SET status = 'awaiting_pickup', lease_until = NULL, payload = ${payload}, updated_at = ${nowIso} WHERE id = ${claimed.id}`,
      ...lines.map((line) => noteStatement(line.id, order.id, note, nowIso)),
    ]);
    return { done: true };
  }

  let attempt: Attempt;
  if (claimed.channel === "webhook") {
    const secrets = [supplier.webhookSecret, supplier.webhookSecretPrevious].filter((s): s is string => !!s);
    attempt = supplier.webhookUrl
      ? await postWebhook(env, supplier.webhookUrl, secrets, doc)
      : { outcome: "rejected", detail: "the supplier has no webhook URL" };
  } else {
    attempt = supplier.email ? await sendEmail(env, supplier.email, doc) : { outcome: "rejected", detail: "the supplier has no e-mail address" };
  }

  if (attempt.outcome === "delivered") {
    const message = claimed.channel === "email" ? `Successfully sent to supplier ${supplier.name} by e-mail` : "Successfully sent to supplier";
    await finish("sent", [{ from: "ruled", to: "completed", message }]);
    return { done: true };
  }
  const maxAttempts = Number(env.SEND_MAX_ATTEMPTS) || 6;
  if (attempt.outcome === "rejected" || claimed.attempts >= maxAttempts) {
    const message =
      attempt.outcome === "rejected"
        ? `Supplier ${supplier.name} rejected the order: ${attempt.detail}`
        : `Sending to supplier ${supplier.name} failed after ${claimed.attempts} attempts: ${attempt.detail}`;
    await finish("failed", [{ from: "ruled", to: "failed", message }]);
    return { done: true };
  }
  await db
    .update(dispatches)
    .set({ status: "queued", leaseUntil: null, lastError: attempt.detail, payload, updatedAt: nowIso })
    .where(eq(dispatches.id, claimed.id));
  const base = Number(env.RETRY_BASE_SECONDS);
  return { done: false, retryInSeconds: Math.min(3600, (Number.isFinite(base) ? base : 30) * 2 ** (claimed.attempts - 1)) };
}

// ---- Shop and operator actions -------------------------------------------------

/** Failed lines go back to ruled (a new send); returns the order id and how many lines were retried. */
export async function retryFailedLines(db: Db, accountId: number, reference: string) {
  const order = await findOrder(db, accountId, reference);
  const failed = await db.select().from(orderLines).where(and(eq(orderLines.orderId, order.id), eq(orderLines.currentStatus, "failed")));
  const now = isoMicro();
  await run(db, [
    ...failed.flatMap((line) =>
      moveStatements({ lineId: line.id, orderId: order.id, from: "failed", to: "ruled", message: "Retry requested: sending again", dispatchId: null }, now),
    ),
    ...(failed.length ? completionStatements(order.id, now) : []),
  ]);
  return { orderId: order.id, retried: failed.length };
}

/** Manual channel: the shop or operator marks ruled lines completed (all of them, or the ids given). */
export async function completeByHand(db: Db, accountId: number, reference: string, lineIds?: number[]) {
  const order = await findOrder(db, accountId, reference);
  const lines: OrderLine[] = await db
    .select()
    .from(orderLines)
    .where(and(eq(orderLines.orderId, order.id), lineIds ? inArray(orderLines.id, lineIds) : undefined));
  if (lineIds && lines.length !== new Set(lineIds).size) {
    throw ApiError.validation({ line_ids: ["The selected line_ids is invalid."] });
  }
  const open = lines.filter((l) => l.currentStatus === "ruled");
  if (lineIds && open.length !== lines.length) {
    const stuck = lines.find((l) => l.currentStatus !== "ruled")!;
    throw ApiError.conflict(`Order line ${stuck.id} is ${stuck.currentStatus}; only ruled lines can be completed by hand.`);
  }
  const now = isoMicro();
  await run(db, [
    ...open.flatMap((line) => moveStatements({ lineId: line.id, orderId: order.id, from: "ruled", to: "completed", message: "Completed by hand" }, now)),
    sql`UPDATE dispatches SET status = 'sent', sent_at = ${now}, updated_at = ${now}
        WHERE order_id = ${order.id} AND status = 'manual'
          AND NOT EXISTS (SELECT 1 FROM order_lines WHERE dispatch_id = dispatches.id AND current_status = 'ruled')`,
    ...completionStatements(order.id, now),
  ]);
  return order.id;
}

export async function listDispatches(db: Db, accountId: number, reference: string) {
  const order = await findOrder(db, accountId, reference);
  const [rows, lines] = await db.batch([
    db.select().from(dispatches).where(eq(dispatches.orderId, order.id)).orderBy(asc(dispatches.id)),
    db.select({ id: orderLines.id, dispatchId: orderLines.dispatchId }).from(orderLines).where(eq(orderLines.orderId, order.id)),
  ]);
  return rows.map((d) => ({
    id: d.id,
    supplier_id: d.supplierId,
    channel: d.channel,
    status: d.status,
    idempotency_key: d.idempotencyKey,
    attempts: d.attempts,
    last_error: d.lastError,
    line_ids: lines.filter((l) => l.dispatchId === d.id).map((l) => l.id),
    payload: d.payload ? (JSON.parse(d.payload) as unknown) : null,
    created_at: d.createdAt,
    sent_at: d.sentAt,
    acknowledged_at: d.acknowledgedAt,
  }));
}
