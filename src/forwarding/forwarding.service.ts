// Forwarding: ruled lines become one dispatch per (order, supplier), and each dispatch is sent
// through its supplier's channel. Sending is at-most-once per attempt (a lease on the dispatch,
// longer than the time-boxed call), every write after the call is guarded by that lease, and a
// retry by hand sends the same dispatch with the same idempotency key: a redelivered queue message,
// a double click or a Worker that died mid-send never makes the supplier see an order twice
// without the means to tell.
import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { jsonRow, rowMapper, runBatch, type Db, type Row } from "../db";
import { LOST, retryLostRaces, runGuarded } from "../db/guards";
import {
  ATTEMPT_LOG_KEPT,
  dispatches,
  orderLines,
  orders,
  suppliers,
  type AttemptRecord,
  type Dispatch,
  type LineStatus,
  type Order,
  type OrderLine,
  type Supplier,
} from "../db/schema";
import type { Bindings } from "../env";
import { RETRIED_BY_HAND } from "../events/outbox";
import { ApiError } from "../lib/errors";
import type { Pipeline } from "../lib/queue";
import { isoMicro } from "../lib/time";
import {
  completionStatements,
  lineStatements,
  moveLinesStatements,
  newToken,
  noteLinesStatements,
  type LineChange,
} from "../orders/lifecycle";
import { findOrder } from "../orders/orders.service";
import { channelFor, type Attempt } from "./channels";
import { orderMail } from "./channels/email";
import { ackDeadlineStatements, ackDueAtOf, answeredStatements } from "./deadlines";
import { buildDocument, type DispatchDocument } from "./document";
import { afterFailure, appendAttempt as appendTo, claimStatement, heldBy, jobSettings, Lease, underLease } from "../lib/outbound-job";
import { DISPATCH_JOB } from "./lease";
import { count } from "../lib/plural";
import { sendLedger } from "./x12/numbers";

/**
 * Send them: push sends held under their leases, side by side, each time-boxed below its lease;
 * the delivered ones finished in one batch, the others concluded one by one (queued again with
 * backoff). Returns the ones given up on, whose lines the caller moves on (src/routing/failed-sends.ts).
 */
export async function sendHeldDispatches(db: Db, env: Bindings, pipeline: Pipeline, sends: Held[], timeoutMs: number): Promise<FailedSend[]> {
  if (sends.length === 0) return [];
  const settings = jobSettings(env, "dispatch");
  const attempts = await Promise.all(
    sends.map(async (held) => {
      const doc: DispatchDocument = buildDocument(held.dispatch, held.order, held.supplier, held.lines);
      return { held, doc, attempt: await whileHeld(db, settings.leaseMs, held, () => attemptSend(db, env, held, doc, timeoutMs)) };
    }),
  );
  const delivered = attempts.filter((a) => a.attempt.outcome === "delivered");
  const leaving: FailedSend[] = [];
  await runGuarded(db, deliveredStatements(delivered, isoMicro()));
  for (const { held, doc, attempt } of attempts) {
    if (attempt.outcome === "delivered") continue;
    const result = await concludeAttempt(db, env, held, doc, attempt);
    if (!result.done) await pipeline.send([{ type: "send_dispatch", dispatchId: held.dispatch.id }], result.retryInSeconds);
    else if (result.leaving) leaving.push(result.leaving);
  }
  return leaving;
}

/**
 * How an attempt ended: done (`leaving`: a dispatch given up on, whose lines the caller moves on
 * through the journey: src/routing/failed-sends.ts), or to be tried again after `retryInSeconds`.
 */
export type SendResult = { done: true; leaving?: FailedSend } | { done: false; retryInSeconds: number };

/** A dispatch given up on, still held: why (`message`, the lines' log), and what its failed row records. */
export type FailedSend = { held: Held; message: string; payload: string; record: AttemptRecord };

/** A dispatch this attempt holds under its lease, with everything its send needs. */
export type Held = { dispatch: Dispatch; order: Order; supplier: Supplier; lines: OrderLine[]; lease: string; started: Date };

const dispatchRow = rowMapper(dispatches);
const orderRow = rowMapper(orders);
const lineRow = rowMapper(orderLines);
const supplierRow = rowMapper(suppliers);

/**
 * One attempt at sending a dispatch (its queue message, a retry's, the sweeper's). Safe to call for a
 * dispatch that is done or being sent. The claim and everything the send reads travel in one round
 * trip: the reads run after the claim in the same transaction, so they see exactly what it claimed.
 */
export async function sendDispatch(db: Db, env: Bindings, dispatchId: number): Promise<SendResult> {
  const started = new Date();
  const claim = Lease.for(jobSettings(env, "dispatch"), started);
  const lease = claim.until;
  const mine = sql`(SELECT id FROM dispatches WHERE ${heldBy(DISPATCH_JOB, dispatchId, lease)})`;
  const [claimed, orderRows, lineRows, supplierRows] = await runBatch(db, [
    claimStatement(DISPATCH_JOB, dispatchId, claim, { now: started }),
    sql`SELECT * FROM orders WHERE id = (SELECT order_id FROM dispatches WHERE id = ${mine})`,
    sql`SELECT * FROM order_lines WHERE dispatch_id = ${mine} AND current_status = 'ruled' ORDER BY position, id`,
    sql`SELECT * FROM suppliers WHERE id = (SELECT supplier_id FROM dispatches WHERE id = ${mine})`,
  ]);
  const row = (claimed.results as Row[])[0];
  if (!row) return { done: true };
  const held: Held = {
    dispatch: dispatchRow(row),
    order: orderRow((orderRows.results as Row[])[0]),
    lines: (lineRows.results as Row[]).map(lineRow),
    supplier: supplierRow((supplierRows.results as Row[])[0]),
    lease,
    started,
  };
  return sendHeld(db, env, held);
}

/**
 * The first attempt at push dispatches the route step created already claimed under `lease`
 * (their send_dispatches message): taken over with a fresh lease, in one statement that also reads
 * what the sends need, and only where the lease is still `lease`. A copy of the message, or one
 * that comes after the lease ran out and the sweeper's attempt took the dispatch, takes nothing
 * over, so two attempts never run at once. Then sent as the route step used to send them: side by
 * side, the delivered ones finished in one batch. Returns the ones given up on.
 */
export async function sendHandedOver(db: Db, env: Bindings, pipeline: Pipeline, dispatchIds: number[], lease: string): Promise<FailedSend[]> {
  const settings = jobSettings(env, "dispatch");
  const started = new Date();
  const fresh = Lease.for(settings, started).until;
  const [taken] = await runBatch(db, [
    // `+status`: the ids drive the write (the primary key), not every dispatch being sent.
    sql`UPDATE dispatches SET lease_until = ${fresh}, updated_at = ${isoMicro(started)}
        WHERE id IN (SELECT value FROM json_each(${JSON.stringify(dispatchIds)})) AND +status = 'sending' AND lease_until = ${lease}
        RETURNING *,
          (SELECT ${jsonRow(orders, "o")} FROM orders o WHERE o.id = dispatches.order_id) AS order_json,
          (SELECT json_group_array(${jsonRow(orderLines, "l")}) FROM order_lines l WHERE l.dispatch_id = dispatches.id AND l.current_status = 'ruled') AS lines_json,
          (SELECT ${jsonRow(suppliers, "s")} FROM suppliers s WHERE s.id = dispatches.supplier_id) AS supplier_json`,
  ]);
  const held: Held[] = (taken.results as Row[]).map((row) => ({
    dispatch: dispatchRow(row),
    order: orderRow(JSON.parse(row.order_json as string) as Row),
    lines: (JSON.parse(row.lines_json as string) as Row[]).map(lineRow).sort((a, b) => a.position - b.position || a.id - b.id),
    supplier: supplierRow(JSON.parse(row.supplier_json as string) as Row),
    lease: fresh,
    started,
  }));
  // Blocked, or left without lines, since the route step (rare): each as a lone attempt concludes it.
  const odd = held.filter((h) => h.order.blocked || h.lines.length === 0);
  for (const h of odd) await sendHeld(db, env, h);
  return sendHeldDispatches(db, env, pipeline, held.filter((h) => !odd.includes(h)), settings.timeoutMs);
}

/** Every write after the claim, only while this attempt still holds its lease (the engine's guard). */
const leasedBy = (db: Db, held: Held) => (set: SQL, then: SQL[] = []) => underLease(db, DISPATCH_JOB, held.dispatch.id, held.lease, set, then);

/**
 * The attempt's call, with its lease renewed while it runs (the engine's heartbeat): a lease that
 * runs out means the Worker died. `held.lease` is the lease as renewed, for the writes that follow.
 */
async function whileHeld<T>(db: Db, leaseMs: number, held: Held, call: () => Promise<T>): Promise<T> {
  const lease = new Lease(leaseMs, held.started, held.lease).on(db, DISPATCH_JOB, held.dispatch.id).hold();
  try {
    return await call();
  } finally {
    held.lease = (await lease.release()) ?? held.lease;
  }
}

/** What a held dispatch's lines become on its channel, without sending anything: test orders, manual, pull. */
async function sendHeld(db: Db, env: Bindings, held: Held): Promise<SendResult> {
  const { dispatch: claimed, order, supplier, lines } = held;
  const doc = buildDocument(claimed, order, supplier, lines);
  const payload = JSON.stringify(doc);
  const leased = leasedBy(db, held);
  const nowIso = isoMicro(held.started);
  const moveAll = (to: LineStatus, message: string): LineChange[] =>
    lines.map((l) => ({ kind: "move", lineId: l.id, orderId: order.id, from: "ruled", to, message }));
  const ackDeadline = () => ackDeadlineStatements(supplier, lines.map((l) => l.id), held.started);

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
    const at = isoMicro();
    await leased(sql`status = 'dry_run', lease_until = NULL, payload = ${payload}, last_error = NULL, sent_at = ${at}`, [
      ...lineStatements(moveAll("completed", dryRunMessage(supplier)), at),
      ...completionStatements([order.id], at),
    ]);
    return { done: true };
  }
  const channel = channelFor(claimed.channel);
  if (channel.starts === "manual") {
    // Nothing is sent and nothing is logged: the lines wait, ruled, for POST .../complete.
    await leased(sql`status = 'manual', lease_until = NULL, payload = ${payload}`, ackDeadline());
    return { done: true };
  }
  if (channel.starts === "awaiting_pickup") {
    await leased(sql`status = 'awaiting_pickup', lease_until = NULL, payload = ${payload}`, [
      ...noteLinesStatements(
        lines.map((l) => ({ lineId: l.id, orderId: order.id, message: pickupNote(supplier) })),
        nowIso,
      ),
      ...ackDeadline(),
    ]);
    return { done: true };
  }
  const settings = jobSettings(env, "dispatch");
  const attempt = await whileHeld(db, settings.leaseMs, held, () => attemptSend(db, env, held, doc, settings.timeoutMs));
  if (attempt.outcome === "delivered") {
    await runGuarded(db, deliveredStatements([{ held, doc, attempt }], isoMicro()));
    return { done: true };
  }
  return concludeAttempt(db, env, held, doc, attempt);
}

export const dryRunMessage = (supplier: Pick<Supplier, "name">) => `Test order: dry run, nothing was sent to supplier ${supplier.name}`;
export const pickupNote = (supplier: Pick<Supplier, "name">) => `Waiting for supplier ${supplier.name} to fetch and acknowledge the order`;

/** An attempt at a push send, with its record for the dispatch's attempt_log. */
export type SentAttempt = Attempt & { record: AttemptRecord };

/** The call itself, on a push channel (./channels/: the dispatch's own, never a stand-in), time-boxed; timed and recorded. */
async function attemptSend(db: Db, env: Bindings, held: Held, doc: DispatchDocument, timeoutMs: number): Promise<SentAttempt> {
  const { supplier } = held;
  const channel = held.dispatch.channel;
  const adapter = channelFor(channel);
  const at = new Date();
  const attempt = await adapter.send({ kind: "order", document: doc, mail: orderMail(doc) }, supplier, { env, timeoutMs, ledger: sendLedger(db, supplier) });
  const to = attempt.to ?? adapter.address(supplier);
  const record: AttemptRecord = {
    attempt: held.dispatch.attempts,
    at: isoMicro(at),
    channel,
    to,
    lines: doc.lines.length,
    outcome: outcomeOf(attempt, to, adapter.recordOutcome?.(attempt) ?? null),
    http_status: attempt.http ?? null,
    response: attempt.response ?? (to ? null : attempt.detail),
    duration_ms: Date.now() - at.getTime(),
  };
  return { ...attempt, record };
}

function outcomeOf(attempt: Attempt, to: string | null, channelSays: AttemptRecord["outcome"] | null): AttemptRecord["outcome"] {
  if (!to) return "not_sent";
  if (attempt.outcome === "delivered") return "accepted";
  if (channelSays) return channelSays;
  if (attempt.http !== undefined) return "http_error";
  return attempt.failure === "timeout" ? "timeout" : attempt.failure === "email" ? "email_error" : "network_error";
}

/**
 * attempt_log with `entry` (an AttemptRecord as JSON text) appended, keeping the last
 * ATTEMPT_LOG_KEPT: part of the UPDATE that records the attempt's outcome, so no statement of its own.
 */
const appendAttempt = (entry: SQL) => appendTo("attempt_log", entry, ATTEMPT_LOG_KEPT);

/**
 * Delivered sends, any number (of any orders) in one batch of six statements: their lines move to
 * completed with the acknowledgement clock started, each dispatch is marked sent; each part only
 * while its attempt still holds the dispatch's lease (one that lost it writes nothing).
 */
function deliveredStatements(sent: { held: Held; doc: DispatchDocument; attempt: SentAttempt }[], at: string): SQL[] {
  if (sent.length === 0) return [];
  const held = JSON.stringify(sent.map(({ held: h, doc, attempt }) => ({ d: h.dispatch.id, l: h.lease, p: doc, a: attempt.record })));
  const stillHeld = (dispatchId: SQL) =>
    sql`EXISTS (SELECT 1 FROM json_each(${held}) AS h JOIN dispatches d ON d.id = h.value ->> '$.d'
        WHERE d.id = ${dispatchId} AND d.status = 'sending' AND d.lease_until = h.value ->> '$.l')`;
  const changes: LineChange[] = sent.flatMap(({ held: h }) => {
    const message = channelFor(h.dispatch.channel).delivered(h.supplier.name);
    const ackDueAt = ackDueAtOf(h.supplier, h.started);
    return h.lines.map((l) => ({ kind: "move" as const, lineId: l.id, orderId: h.order.id, from: "ruled" as const, to: "completed" as const, message, ...(ackDueAt ? { ackDueAt } : {}) }));
  });
  return [
    ...lineStatements(changes, at, { guard: stillHeld(sql`order_lines.dispatch_id`) }),
    // `+status`: the ids drive the write (through the primary key), not every dispatch being sent.
    sql`UPDATE dispatches SET status = 'sent', lease_until = NULL, payload = h.value -> '$.p', last_error = NULL, sent_at = ${at}, updated_at = ${at},
          ${appendAttempt(sql`h.value -> '$.a'`)}
        FROM json_each(${held}) AS h
        WHERE dispatches.id = h.value ->> '$.d' AND +dispatches.status = 'sending' AND dispatches.lease_until = h.value ->> '$.l'`,
    ...completionStatements(sent.map((s) => s.held.order.id), at),
  ];
}

/**
 * A send that was not delivered: queued to be tried again, or, when the supplier refused it or it
 * failed for the last time, returned as `leaving`: where its lines go next is the journey's to say
 * (src/routing/failed-sends.ts writes that with writeFailedSend), so sending knows no routing.
 */
async function concludeAttempt(db: Db, env: Bindings, held: Held, doc: DispatchDocument, attempt: Exclude<SentAttempt, { outcome: "delivered" }>): Promise<SendResult> {
  const { dispatch: claimed, supplier } = held;
  const next = afterFailure(jobSettings(env, "dispatch"), claimed.attempts, { final: attempt.outcome === "rejected" });
  const payload = JSON.stringify(doc);
  if (!next.retry) {
    const message =
      attempt.outcome === "rejected"
        ? `Supplier ${supplier.name} rejected the order: ${attempt.detail}`
        : `Sending to supplier ${supplier.name} failed after ${count(claimed.attempts, "attempt")}: ${attempt.detail}`;
    return { done: true, leaving: { held, message, payload, record: attempt.record } };
  }
  const recorded = appendAttempt(sql`${JSON.stringify(attempt.record)}`);
  const requeued = await leasedBy(db, held)(sql`status = 'queued', lease_until = NULL, last_error = ${attempt.detail}, payload = ${payload}, ${recorded}`);
  // Not ours any more: whoever took the lease over carries the dispatch on.
  if (!requeued) return { done: true };
  return { done: false, retryInSeconds: next.delaySeconds };
}

/**
 * A send given up on (refused, or failed for the last time), still held under its lease: the
 * dispatch marked failed with its attempt recorded, and `then` (its lines' leaving, as the journey
 * planned it) in the same batch; only while the lease holds (false: another attempt took over, nothing written).
 */
export function writeFailedSend(db: Db, failed: FailedSend, then: SQL[]): Promise<boolean> {
  const recorded = appendAttempt(sql`${JSON.stringify(failed.record)}`);
  return leasedBy(db, failed.held)(sql`status = 'failed', lease_until = NULL, payload = ${failed.payload}, last_error = ${failed.message}, sent_at = sent_at, ${recorded}`, then);
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
      failed.map((line) => ({ lineId: line.id, orderId: order.id, from: "failed", to: "ruled", message: RETRIED_BY_HAND })),
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
