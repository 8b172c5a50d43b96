// The pipeline's route_order step for any number of orders (a queue batch's, a re-match page's):
// one round trip reads them all with their accounts' rules, suppliers and catalogue candidates; one
// batch matches their pending lines and creates their dispatches already claimed for the first step
// of their channel (a push send under its lease, a pull supplier's pickup, a manual one, a test
// order's dry run), and marks the orders routed; then the push sends go out side by side, each
// time-boxed below its lease, and every delivered one is finished in one more batch. A send that
// fails stays with its dispatch, queued with backoff (a send_dispatch message), exactly as a send
// of src/forwarding does; the sweepers recover a lost message or a crash mid-send from the same
// durable marks (routed_at, a queued or leased dispatch).
import { sql, type SQL } from "drizzle-orm";
import { runBatch, type Db } from "../db";
import { runGuarded } from "../db/guards";
import type { Dispatch, LineStatus, OrderLine } from "../db/schema";
import type { Bindings } from "../env";
import { ackDueAtOf } from "../forwarding/deadlines";
import { buildDocument, type DispatchDocument } from "../forwarding/document";
import {
  attemptSend,
  concludeAttempt,
  deliveredStatements,
  dryRunMessage,
  newDispatchStatement,
  pickupNote,
  type Held,
  type NewDispatch,
} from "../forwarding/forwarding.service";
import { enqueue, type PipelineMessage } from "../lib/queue";
import { leaseUntil, sendSettings } from "../lib/outbound";
import { isoMicro } from "../lib/time";
import { queuedCancellations } from "../orders/cancellations.service";
import { blockStatements, completionStatements, lineStatements, newToken, parkStatements, type LineChange } from "../orders/lifecycle";
import { loadOrdersToRoute, subjectOf } from "../routing/context";
import { decideLine } from "../routing/matching";
import { routeOrder } from "../routing/routing.service";
import { maxRoutingAttempts } from "./settings";

export type RouteRequest = { orderId: number; redelivered: boolean };

/**
 * Routes and dispatches the orders. Safe to run any number of times, concurrently too: every write
 * is guarded by what it read (a line's status and move token, a dispatch's lease), so a repeat
 * changes nothing. Throws when a write fails: the caller retries its messages.
 */
export async function routeOrders(db: Db, env: Bindings, requests: RouteRequest[]): Promise<void> {
  const maxAttempts = maxRoutingAttempts(env);
  const settings = sendSettings(env);
  const started = new Date();
  const now = isoMicro(started);
  const lease = isoMicro(leaseUntil(started, settings.timeoutMs));
  const orderIds = [...new Set(requests.map((r) => r.orderId))];
  const redelivered = [...new Set(requests.filter((r) => r.redelivered).map((r) => r.orderId))];
  const { orders, accounts } = await loadOrdersToRoute(db, orderIds, redelivered);

  const statements: SQL[] = [];
  const changes: LineChange[] = [];
  const created: NewDispatch[] = [];
  /** Orders this batch marks routed, with the request time it answers. */
  const routed: { i: number; r: string | null }[] = [];
  /** Orders with lines to re-route after a supplier's silence: the full routing of src/routing does them. */
  const silent: number[] = [];
  const waiting: PipelineMessage[] = [];
  let closes = false;

  for (const orderId of orderIds) {
    const loaded = orders.get(orderId);
    if (!loaded) continue;
    const { order, lines } = loaded;
    if (order.parkedAt) continue;
    if (order.routingAttempts >= maxAttempts) {
      const message = `Order parked after ${order.routingAttempts} failed routing attempts${order.routingError ? ` (last error: ${order.routingError})` : ""}; an operator can replay it`;
      statements.push(...parkStatements(order.id, message, now));
      continue;
    }
    if (lines.some((l) => l.rerouteReason !== null && l.matchedSupplierId !== null) && !order.blocked) {
      silent.push(order.id);
      continue;
    }
    routed.push({ i: order.id, r: order.routeRequestedAt });
    // Held: unblocking hands the order back to the pipeline; its waiting dispatches wait too.
    if (order.blocked) continue;
    waiting.push(...loaded.queuedDispatchIds.map((dispatchId) => ({ type: "send_dispatch" as const, dispatchId })));
    const ctx = { ...accounts.get(order.accountId)!, unblockedByHand: loaded.unblockedByHand };
    const pending = lines.filter((l) => l.currentStatus === "pending");
    const decisions = pending.map((line) => ({ line, ...decideLine(subjectOf(order, line), ctx) }));
    const blocker = decisions.find((d) => d.decision.action === "block");
    if (blocker) {
      // A blocking rule stops the whole order: no line is matched or forwarded until it is unblocked.
      statements.push(...blockStatements(order.id, true, blocker.decision.message, now));
      continue;
    }
    // Per supplier, the lines its dispatch carries: the ones matched now, and ruled ones that have
    // none yet (re-routed to it, or matched on demand).
    const bySupplier = new Map<number, { line: OrderLine; from: LineStatus; message?: string }[]>();
    const carry = (supplierId: number, entry: { line: OrderLine; from: LineStatus; message?: string }) =>
      bySupplier.set(supplierId, [...(bySupplier.get(supplierId) ?? []), entry]);
    for (const { line, decision } of decisions) {
      const base = { lineId: line.id, orderId: order.id, message: decision.message, version: line.moveToken };
      if (decision.action === "assign_supplier") carry(decision.supplier.id, { line, from: "pending", message: decision.message });
      else if (decision.action === "skip") {
        changes.push({ kind: "move", ...base, from: "pending", to: "skipped" });
        closes = true;
      } else changes.push({ kind: "note", ...base });
    }
    for (const line of lines) {
      if (line.currentStatus === "ruled" && line.dispatchId === null && line.matchedSupplierId !== null) carry(line.matchedSupplierId, { line, from: "ruled" });
    }
    for (const [supplierId, carried] of bySupplier) {
      const supplier = ctx.supplierRows.get(supplierId);
      const key = crypto.randomUUID();
      const channel = supplier?.channel ?? "manual";
      const status: Dispatch["status"] = order.test ? "dry_run" : channel === "manual" ? "manual" : channel === "pull" ? "awaiting_pickup" : "sending";
      const ackDueAt = status === "manual" || status === "awaiting_pickup" ? ackDueAtOf(supplier ?? { ackDeadlineHours: null }, started) : null;
      for (const { line, from, message } of carried) {
        const base = { lineId: line.id, orderId: order.id, version: line.moveToken };
        if (from === "pending") {
          changes.push({ kind: "move", ...base, from: "pending", to: "ruled", message: message!, matchedSupplierId: supplierId, dispatchKey: key, ...(ackDueAt ? { ackDueAt } : {}) });
        }
        if (status === "dry_run") {
          changes.push({ kind: "move", ...base, from: "ruled", to: "completed", message: dryRunMessage(supplier!), ...(from === "ruled" ? { dispatchKey: key } : {}) });
          closes = true;
        } else if (status === "awaiting_pickup") {
          changes.push({ kind: "note", lineId: line.id, orderId: order.id, message: pickupNote(supplier!) });
        }
      }
      const held = carried.map((c) => c.line);
      const dispatch: Dispatch = {
        id: 0,
        accountId: order.accountId,
        orderId: order.id,
        supplierId,
        channel,
        status,
        idempotencyKey: key,
        attempts: 1,
        leaseUntil: status === "sending" ? lease : null,
        lastError: null,
        payload: null,
        createdAt: now,
        updatedAt: now,
        sentAt: status === "dry_run" ? now : null,
        acknowledgedAt: null,
        attemptLog: null,
      };
      created.push({ dispatch, lines: carried.map((c) => ({ line: c.line, from: c.from })), doc: supplier ? buildDocument(dispatch, order, supplier, held) : null, supplier, ackDueAt });
    }
  }

  // Ruled lines that already had a dispatch id keep it; the rest get their new dispatch's (by key).
  const claimedRuled = created.flatMap((c) =>
    c.lines.filter((l) => l.from === "ruled" && c.dispatch.status !== "dry_run").map((l) => ({ i: l.line.id, o: l.line.orderId, k: c.dispatch.idempotencyKey, a: c.ackDueAt })),
  );
  const routedMark = sql`parked_at IS NULL
      AND route_requested_at IS (SELECT j.value ->> '$.r' FROM json_each(${JSON.stringify(routed)}) AS j WHERE j.value ->> '$.i' = orders.id)
      AND (blocked = 1 OR NOT EXISTS (SELECT 1 FROM order_lines WHERE order_id = orders.id AND current_status = 'ruled' AND dispatch_id IS NULL))`;
  const newDispatchAt = statements.length;
  if (created.length) statements.push(newDispatchStatement(created, now));
  const token = newToken();
  statements.push(...lineStatements(changes, now, { token }));
  if (claimedRuled.length) {
    statements.push(sql`UPDATE order_lines SET dispatch_id = d.id, updated_at = ${now}, ack_due_at = coalesce(j.value ->> '$.a', order_lines.ack_due_at)
        FROM json_each(${JSON.stringify(claimedRuled)}) AS j JOIN dispatches d ON d.idempotency_key = j.value ->> '$.k'
        WHERE order_lines.id = j.value ->> '$.i' AND order_lines.order_id = j.value ->> '$.o'
          AND order_lines.current_status = 'ruled' AND order_lines.dispatch_id IS NULL`);
  }
  if (routed.length) {
    statements.push(
      ...completionStatements(
        routed.map((r) => r.i),
        now,
        {
          closes,
          // Done with the order, unless someone handed it to the pipeline again since it was read
          // (then the sweeper must still see it), or a line matched now found no dispatch (a
          // concurrent change): attempts start over.
          set: sql`routed_at = CASE WHEN ${routedMark} THEN ${now} ELSE routed_at END,
            routing_attempts = CASE WHEN ${routedMark} THEN 0 ELSE routing_attempts END,
            routing_error = CASE WHEN ${routedMark} THEN NULL ELSE routing_error END`,
        },
      ),
    );
  }
  const results = await runBatch(db, statements);

  // The dispatches this batch created (a dispatch is created only when every line it carries was
  // still as read, so it carries exactly them); an order whose dispatch was not created goes round again.
  const ids = new Map(created.length ? (results[newDispatchAt].results as { id: number; idempotency_key: string }[]).map((r) => [r.idempotency_key, r.id]) : []);
  const again = new Set<number>();
  const sends: Held[] = [];
  for (const c of created) {
    const id = ids.get(c.dispatch.idempotencyKey);
    if (id === undefined) {
      again.add(c.dispatch.orderId);
      continue;
    }
    if (c.dispatch.status !== "sending") continue;
    const loaded = orders.get(c.dispatch.orderId)!;
    // The lines as this batch left them (the ones it moved carry its token).
    const lines = c.lines.map(({ line, from }) => ({
      ...line,
      currentStatus: "ruled" as const,
      matchedSupplierId: c.dispatch.supplierId,
      dispatchId: id,
      moveToken: from === "pending" ? token : line.moveToken,
      updatedAt: now,
    }));
    sends.push({ dispatch: { ...c.dispatch, id }, order: loaded.order, supplier: c.supplier!, lines, lease, started });
  }
  await enqueue(env, [...waiting, ...[...again].map((orderId) => ({ type: "route_order" as const, orderId }))]);

  // The sends first: their leases are running.
  await sendAll(db, env, sends, settings.timeoutMs);

  // Orders with lines to re-route after a supplier's silence: the full routing (its own reads), then round again.
  for (const orderId of silent) {
    const outcome = await routeOrder(db, orderId, { maxAttempts });
    if (outcome.withdrawn > 0) {
      const [queued] = await runBatch(db, [queuedCancellations(orderId)]);
      await enqueue(env, (queued.results as { id: number }[]).map((r) => ({ type: "send_cancellation" as const, cancellationId: r.id })));
    }
  }
  if (silent.length) await routeOrders(db, env, silent.map((orderId) => ({ orderId, redelivered: false })));
}

/**
 * The push sends, side by side, each time-boxed below its lease; the delivered ones finished in one
 * batch, the others concluded one by one (re-routed, or queued again with backoff).
 */
async function sendAll(db: Db, env: Bindings, sends: Held[], timeoutMs: number) {
  if (sends.length === 0) return;
  const attempts = await Promise.all(
    sends.map(async (held) => {
      const doc: DispatchDocument = buildDocument(held.dispatch, held.order, held.supplier, held.lines);
      return { held, doc, attempt: await attemptSend(env, held, doc, timeoutMs) };
    }),
  );
  const delivered = attempts.filter((a) => a.attempt.outcome === "delivered");
  await runGuarded(db, deliveredStatements(delivered, isoMicro()));
  for (const { held, doc, attempt } of attempts) {
    if (attempt.outcome === "delivered") continue;
    const result = await concludeAttempt(db, env, held, doc, attempt);
    if (!result.done) await enqueue(env, [{ type: "send_dispatch", dispatchId: held.dispatch.id }], result.retryInSeconds);
  }
}
