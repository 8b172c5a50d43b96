// Forwarding: ruled lines become one dispatch per (order, supplier), and each dispatch is sent
// through its supplier's channel. Sending is at-most-once per attempt (a lease on the dispatch,
// longer than the time-boxed call), every write after the call is guarded by that lease, and a
// retry by hand sends the same dispatch with the same idempotency key: a redelivered queue message,
// a double click or a Worker that died mid-send never makes the supplier see an order twice
// without the means to tell.
import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { runBatch, type Db } from "../db";
import { LOST, retryLostRaces, runGuarded } from "../db/guards";
import { dispatches, orderLines, orders, suppliers, type Dispatch, type LineStatus, type OrderLine } from "../db/schema";
import type { Bindings } from "../env";
import { ApiError } from "../lib/errors";
import { enqueue, type Pipeline } from "../lib/queue";
import { leaseUntil, sendSettings } from "../lib/outbound";
import { isoMicro } from "../lib/time";
import {
  completionStatements,
  lineStatements,
  moveLinesStatements,
  newToken,
  noteLinesStatements,
  owedToPipeline,
  type LineChange,
} from "../orders/lifecycle";
import { findOrder } from "../orders/orders.service";
import { planReroutes } from "../routing/reroute";
import { postWebhook, sendEmail, type Attempt } from "./channels";
import { ackDeadlineStatements, answeredStatements } from "./deadlines";
import { buildDocument } from "./document";
import { claim, retryDelaySeconds, underLease } from "./lease";

/**
 * Claims the order's ruled, not yet dispatched lines into one dispatch per supplier, marks the
 * pipeline's work on the order done, and returns every dispatch of the order that waits to be sent
 * (new ones, ones a block held back, ones a retry queued again). Two batches, whatever the number
 * of lines and suppliers; D1 runs batches one at a time, so a concurrent run finds the lines claimed.
 */
export async function dispatchOrder(db: Db, orderId: number): Promise<number[]> {
  const [orderRows, lines] = await db.batch([
    db.select().from(orders).where(eq(orders.id, orderId)),
    db
      .select({ supplierId: orderLines.matchedSupplierId, channel: suppliers.channel })
      .from(orderLines)
      .leftJoin(suppliers, eq(suppliers.id, orderLines.matchedSupplierId))
      .where(and(eq(orderLines.orderId, orderId), eq(orderLines.currentStatus, "ruled"), sql`${orderLines.dispatchId} IS NULL`)),
  ]);
  const order = orderRows[0];
  if (!order || order.parkedAt) return [];
  const now = isoMicro();
  const claims = new Map<number, { supplier: number; channel: string; key: string }>();
  if (!order.blocked) {
    for (const line of lines) {
      if (line.supplierId === null || claims.has(line.supplierId)) continue;
      claims.set(line.supplierId, { supplier: line.supplierId, channel: line.channel ?? "manual", key: crypto.randomUUID() });
    }
  }
  const claimsJson = JSON.stringify([...claims.values()]);
  const statements: SQL[] = [];
  if (claims.size > 0) {
    statements.push(
      // A dispatch only for a supplier that still has unclaimed lines (a concurrent run claimed them otherwise).
      sql`INSERT INTO dispatches (account_id, order_id, supplier_id, channel, status, idempotency_key, attempts, created_at, updated_at)
          SELECT ${order.accountId}, ${orderId}, j.value ->> '$.supplier', j.value ->> '$.channel', 'queued', j.value ->> '$.key', 0, ${now}, ${now}
          FROM json_each(${claimsJson}) AS j
          WHERE EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = ${orderId} AND l.matched_supplier_id = j.value ->> '$.supplier'
            AND l.current_status = 'ruled' AND l.dispatch_id IS NULL)
          ORDER BY j.key`,
      sql`UPDATE order_lines SET dispatch_id = d.id, updated_at = ${now}
          FROM dispatches d
          WHERE d.idempotency_key IN (SELECT j.value ->> '$.key' FROM json_each(${claimsJson}) AS j)
            AND order_lines.order_id = ${orderId} AND order_lines.matched_supplier_id = d.supplier_id
            AND order_lines.current_status = 'ruled' AND order_lines.dispatch_id IS NULL`,
    );
  }
  // Done with the order, unless someone handed it to the pipeline again since it was read (then the
  // sweeper must still see it): attempts start over.
  statements.push(
    sql`UPDATE orders SET routed_at = ${now}, routing_attempts = 0, routing_error = NULL
        WHERE id = ${orderId} AND route_requested_at = ${order.routeRequestedAt} AND parked_at IS NULL`,
  );
  // A blocked order's dispatches wait (unblocking hands the order to the pipeline again).
  if (!order.blocked) statements.push(sql`SELECT id FROM dispatches WHERE order_id = ${orderId} AND status = 'queued' ORDER BY id`);
  const results = await runBatch(db, statements);
  return order.blocked ? [] : (results[results.length - 1].results as { id: number }[]).map((r) => r.id);
}

export type SendResult = { done: true } | { done: false; retryInSeconds: number };

/** One attempt at sending a dispatch. Safe to call for a dispatch that is done or being sent. */
export async function sendDispatch(db: Db, env: Bindings, dispatchId: number): Promise<SendResult> {
  const settings = sendSettings(env);
  const started = new Date();
  const nowIso = isoMicro(started);
  const lease = isoMicro(leaseUntil(started, settings.timeoutMs));
  const claimed = await claim(db, "dispatches", dispatchId, nowIso, lease);
  if (!claimed) return { done: true };

  const [orderRows, lines, supplierRows] = await db.batch([
    db.select().from(orders).where(eq(orders.id, claimed.orderId)),
    db.select().from(orderLines).where(and(eq(orderLines.dispatchId, claimed.id), eq(orderLines.currentStatus, "ruled"))).orderBy(asc(orderLines.position), asc(orderLines.id)),
    db.select().from(suppliers).where(eq(suppliers.id, claimed.supplierId)),
  ]);
  const order = orderRows[0];
  const supplier = supplierRows[0];
  const doc = buildDocument(claimed, order, supplier, lines);
  const payload = JSON.stringify(doc);
  const lineIds = lines.map((l) => l.id);

  /** Every write after the claim, only while this attempt still holds its lease (./lease.ts). */
  const leased = (set: SQL, then: SQL[] = []) => underLease(db, "dispatches", claimed.id, lease, set, then);
  const finish = (status: Dispatch["status"], changes: LineChange[], then: SQL[] = [], lastError: string | null = null, token?: string) => {
    const at = isoMicro();
    return leased(
      sql`status = ${status}, lease_until = NULL, payload = ${payload}, last_error = ${lastError},
          sent_at = ${status === "sent" || status === "dry_run" ? sql`${at}` : sql`sent_at`}`,
      [...lineStatements(changes, at, { token }), ...then, ...completionStatements([order.id], at)],
    );
  };
  const moveAll = (to: LineStatus, message: string): LineChange[] =>
    lines.map((l) => ({ kind: "move", lineId: l.id, orderId: order.id, from: "ruled", to, message }));
  // The supplier's acknowledgement deadline starts when the lines reach it.
  const ackDeadline = () => ackDeadlineStatements(supplier, lineIds, started);

  if (order.blocked) {
    // Held back; unblocking hands the order to the pipeline again, which re-queues this dispatch.
    await leased(sql`status = 'queued', lease_until = NULL, attempts = attempts - 1`);
    return { done: true };
  }
  if (lines.length === 0) {
    await leased(sql`status = 'sent', lease_until = NULL`);
    return { done: true };
  }
  if (order.test) {
    await finish("dry_run", moveAll("completed", `Test order: dry run, nothing was sent to supplier ${supplier.name}`));
    return { done: true };
  }
  if (claimed.channel === "manual") {
    // Nothing is sent and nothing is logged: the lines wait, ruled, for POST .../complete.
    await leased(sql`status = 'manual', lease_until = NULL, payload = ${payload}`, ackDeadline());
    return { done: true };
  }
  if (claimed.channel === "pull") {
    const note = `Waiting for supplier ${supplier.name} to fetch and acknowledge the order`;
    await leased(sql`status = 'awaiting_pickup', lease_until = NULL, payload = ${payload}`, [
      ...noteLinesStatements(
        lines.map((l) => ({ lineId: l.id, orderId: order.id, message: note })),
        nowIso,
      ),
      ...ackDeadline(),
    ]);
    return { done: true };
  }

  let attempt: Attempt;
  if (claimed.channel === "webhook") {
    const secrets = [supplier.webhookSecret, supplier.webhookSecretPrevious].filter((s): s is string => !!s);
    attempt = supplier.webhookUrl
      ? await postWebhook(supplier.webhookUrl, secrets, doc, settings.timeoutMs)
      : { outcome: "rejected", detail: "the supplier has no webhook URL" };
  } else {
    attempt = supplier.email ? await sendEmail(env, supplier.email, doc, settings.timeoutMs) : { outcome: "rejected", detail: "the supplier has no e-mail address" };
  }

  if (attempt.outcome === "delivered") {
    const message = claimed.channel === "email" ? `Successfully sent to supplier ${supplier.name} by e-mail` : "Successfully sent to supplier";
    await finish("sent", moveAll("completed", message), ackDeadline());
    return { done: true };
  }
  if (attempt.outcome === "rejected" || claimed.attempts >= settings.maxAttempts) {
    const message =
      attempt.outcome === "rejected"
        ? `Supplier ${supplier.name} rejected the order: ${attempt.detail}`
        : `Sending to supplier ${supplier.name} failed after ${claimed.attempts} attempts: ${attempt.detail}`;
    // The lines go to the next eligible supplier when the account re-routes (src/routing/reroute.ts).
    const plan = await planReroutes(
      db,
      order.accountId,
      lines.map((line) => ({ line, from: "ruled", to: "failed", cause: "failed", supplier, message })),
      isoMicro(),
      order,
    );
    const token = newToken();
    const owed = plan.rerouted > 0 ? [owedToPipeline(order.id, isoMicro())] : [];
    const written = await finish("failed", plan.changes, [...plan.statements(token), ...owed], message, token);
    if (written && plan.rerouted > 0) await enqueue(env, [{ type: "route_order", orderId: order.id }]);
    return { done: true };
  }
  const requeued = await leased(sql`status = 'queued', lease_until = NULL, last_error = ${attempt.detail}, payload = ${payload}`);
  // Not ours any more: whoever took the lease over carries the dispatch on.
  if (!requeued) return { done: true };
  return { done: false, retryInSeconds: retryDelaySeconds(settings, claimed.attempts) };
}

// ---- Shop and operator actions -------------------------------------------------

/**
 * Failed lines go back to ruled in the same dispatch, which is queued again with its idempotency
 * key: the supplier can recognise the repeat. The order is handed to the pipeline in the same batch
 * (routed_at cleared), so the sweeper sends it even if the queue message is lost.
 */
export async function retryFailedLines(db: Db, pipeline: Pipeline, accountId: number, reference: string) {
  const order = await findOrder(db, accountId, reference);
  const failed = await db.select().from(orderLines).where(and(eq(orderLines.orderId, order.id), eq(orderLines.currentStatus, "failed")));
  if (failed.length === 0) return { orderId: order.id, retried: 0 };
  const now = isoMicro();
  const dispatchIds = [...new Set(failed.map((l) => l.dispatchId).filter((id): id is number => id !== null))];
  await runBatch(db, [
    ...moveLinesStatements(
      failed.map((line) => ({ lineId: line.id, orderId: order.id, from: "failed", to: "ruled", message: "Retry requested: sending again" })),
      now,
    ),
    sql`UPDATE dispatches SET status = 'queued', attempts = 0, lease_until = NULL, updated_at = ${now}
        WHERE id IN (SELECT value FROM json_each(${JSON.stringify(dispatchIds)})) AND order_id = ${order.id} AND status = 'failed'`,
    sql`UPDATE orders SET routed_at = NULL, route_requested_at = ${now} WHERE id = ${order.id}`,
    ...completionStatements([order.id], now),
  ]);
  await pipeline.send([{ type: "route_order", orderId: order.id }]);
  return { orderId: order.id, retried: failed.length };
}

/**
 * Manual channel: the shop or operator marks ruled lines completed (all of them, or the ids given).
 * With ids, all or nothing: a listed line that is not ruled, now or by the time the batch runs
 * (a concurrent completion or answer), is a 409 and nothing is written.
 */
export async function completeByHand(db: Db, accountId: number, reference: string, lineIds?: number[]) {
  const order = await findOrder(db, accountId, reference);
  return retryLostRaces(async () => {
    const lines: OrderLine[] = await db
      .select()
      .from(orderLines)
      .where(and(eq(orderLines.orderId, order.id), lineIds ? sql`${orderLines.id} IN (SELECT value FROM json_each(${JSON.stringify(lineIds)}))` : undefined));
    if (lineIds && lines.length !== new Set(lineIds).size) {
      throw ApiError.validation({ line_ids: ["The selected line_ids is invalid."] });
    }
    const open = lines.filter((l) => l.currentStatus === "ruled");
    if (lineIds && open.length !== lines.length) {
      const stuck = lines.find((l) => l.currentStatus !== "ruled")!;
      throw ApiError.conflict(`Order line ${stuck.id} is ${stuck.currentStatus}; only ruled lines can be completed by hand.`);
    }
    const now = isoMicro();
    const moves = open.map((line) => ({ lineId: line.id, orderId: order.id, from: "ruled" as const, to: "completed" as const, message: "Completed by hand" }));
    const written = await runGuarded(db, [
      ...moveLinesStatements(moves, now, { allOrNothing: lineIds !== undefined }),
      // Placed by hand with the supplier: accepted, so its acknowledgement clock stops and its shipping clock starts.
      ...answeredStatements(open.map((l) => ({ lineId: l.id, orderId: order.id, shipping: "start" as const })), now),
      sql`UPDATE dispatches SET status = 'sent', sent_at = ${now}, updated_at = ${now}
          WHERE order_id = ${order.id} AND status = 'manual'
            AND NOT EXISTS (SELECT 1 FROM order_lines WHERE dispatch_id = dispatches.id AND current_status = 'ruled')`,
      ...completionStatements([order.id], now),
    ]);
    return written ? order.id : LOST;
  });
}

export type DispatchWithLines = { dispatch: Dispatch; lineIds: number[] };

/** The order's dispatches, oldest first, each with the ids of the lines it carries. */
export async function listDispatches(db: Db, accountId: number, reference: string): Promise<DispatchWithLines[]> {
  const order = await findOrder(db, accountId, reference);
  const [rows, lines] = await db.batch([
    db.select().from(dispatches).where(eq(dispatches.orderId, order.id)).orderBy(asc(dispatches.id)),
    db.select({ id: orderLines.id, dispatchId: orderLines.dispatchId }).from(orderLines).where(eq(orderLines.orderId, order.id)),
  ]);
  return rows.map((dispatch) => ({ dispatch, lineIds: lines.filter((l) => l.dispatchId === dispatch.id).map((l) => l.id) }));
}
