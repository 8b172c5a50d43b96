// Cancelling an order, some of its lines, or part of a line's quantity. What no supplier has been
// sent yet ends `skipped` at once; what a supplier has is asked of it on its own channel
// (./cancellation-requests.ts), and the line keeps its state until the supplier confirms (-> skipped,
// or the cancelled quantity split off as a skipped line) or refuses (it shipped: logged, nothing
// else changes). All or nothing per call, judged against the lines as they are when it is written:
// a concurrent send, shipment or second cancellation aborts the batch and it is judged again.
import { sql, type SQL } from "drizzle-orm";
import { ofAccount, rowMapper, toStatement, type Db, type Row } from "../db";
import { expectChanges, expectCount } from "../db/guards";
import { cancellationLines, cancellations, orderLines, type Cancellation, type CancellationLine, type Channel, type LineStatus, type Order, type OrderLine } from "../db/schema";
import { cancellationAnswerEvents, cancelledUnsentLineEvents, orderCancelledEvent, type CancellationAnswer, type LineRef } from "../events/outbox";
import { ApiError, type ValidationErrors } from "../lib/errors";
import { carryOut, runPlan, type Plan } from "../lib/plan";
import type { Pipeline } from "../lib/queue";
import { isoMicro } from "../lib/time";
import { cancellationRequestStatements, type CancellationRequest } from "./cancellation-requests";
import { canMove, completionStatements, lineStatements, newToken, splitStatements, type LineChange, type Split } from "./lifecycle";
import { findOrder } from "./orders.service";

export type CancelInput = {
  reason?: string;
  line_ids?: number[];
  lines?: { line_id: number; quantity?: number }[];
};

/** An open cancellation of a line (from cancellation_lines), as the services read it. */
export type OpenRequest = Pick<CancellationLine, "id" | "cancellationId" | "supplierId" | "purpose" | "quantity"> & { reason: string | null };

/** A line with what cancelling it depends on. */
export type CancellableLine = OrderLine & {
  dispatchStatus: string | null;
  dispatchAttempts: number | null;
  supplierName: string | null;
  supplierChannel: Channel | null;
  /** The line's supplier's deadlines, if it has them. */
  supplierShipDays: number | null;
  supplierAckHours: number | null;
  shipped: number;
  openRequest: OpenRequest | null;
};

/**
 * Nothing of the line has reached a supplier: not matched yet, matched but not handed to a send
 * (or its send never attempted), its send failed, or a test order's dry run. UNSENT_SQL says the
 * same in SQL (l: the line, d: its dispatch), for the write's guard.
 */
export function isUnsent(l: Pick<CancellableLine, "currentStatus" | "dispatchId" | "dispatchStatus" | "dispatchAttempts">): boolean {
  if (l.currentStatus === "pending" || l.currentStatus === "failed") return true;
  if (l.currentStatus !== "ruled" && l.currentStatus !== "completed") return false;
  return (l.currentStatus === "ruled" && l.dispatchId === null) || (l.dispatchStatus === "queued" && l.dispatchAttempts === 0) || l.dispatchStatus === "dry_run";
}
const UNSENT_SQL = sql`(l.current_status IN ('pending', 'failed') OR (l.current_status IN ('ruled', 'completed') AND (
    (l.current_status = 'ruled' AND l.dispatch_id IS NULL) OR (d.status = 'queued' AND d.attempts = 0) OR d.status = 'dry_run')))`;

/** How much of the line can still be cancelled (0: nothing; it is finished). */
export function cancellableQuantity(l: Pick<CancellableLine, "currentStatus" | "quantity" | "shipped">): number {
  if (l.currentStatus === "declined" || l.currentStatus === "skipped") return 0;
  return Math.max(0, l.quantity - l.shipped);
}

const toOrderLine = rowMapper(orderLines);
const shippedOf = sql`(SELECT coalesce(sum(sh.quantity), 0) FROM shipments sh WHERE sh.order_id = l.order_id AND sh.order_line_id = l.id)`;

/**
 * The lines of an order (or the lines with these ids of the account) with their send, supplier,
 * shipped quantity and open cancellation: the open `cancel` one, or with `supplierId` the open one
 * (cancel or withdrawal) addressed to that supplier. One statement; toCancellableLine maps its rows.
 */
export function cancellableLinesQuery(where: { orderId: number } | { lineIds: number[]; accountId: number }, supplierId?: number): SQL {
  const filter =
    "orderId" in where
      ? sql`l.order_id = ${where.orderId}`
      : sql`l.id IN (SELECT value FROM json_each(${JSON.stringify(where.lineIds)})) AND ${ofAccount("l", where.accountId)}`;
  const addressed = supplierId === undefined ? sql`c.purpose = 'cancel'` : sql`c.supplier_id = ${supplierId}`;
  return sql`SELECT l.*, d.status AS dispatch_status, d.attempts AS dispatch_attempts, s.name AS supplier_name, s.channel AS supplier_channel,
      s.ship_deadline_days AS supplier_ship_days, s.ack_deadline_hours AS supplier_ack_hours, ${shippedOf} AS shipped,
      (SELECT json_object('id', c.id, 'cancellationId', c.cancellation_id, 'supplierId', c.supplier_id, 'purpose', c.purpose, 'quantity', c.quantity,
          'reason', (SELECT reason FROM cancellations WHERE id = c.cancellation_id))
        FROM cancellation_lines c WHERE c.order_line_id = l.id AND c.status = 'requested' AND ${addressed} LIMIT 1) AS open_request
    FROM order_lines l LEFT JOIN dispatches d ON d.id = l.dispatch_id LEFT JOIN suppliers s ON s.id = l.matched_supplier_id
    WHERE ${filter} ORDER BY l.order_id, l.position, l.id`;
}

export function toCancellableLine(row: Row): CancellableLine {
  return {
    ...toOrderLine(row),
    dispatchStatus: row.dispatch_status as string | null,
    dispatchAttempts: row.dispatch_attempts as number | null,
    supplierName: row.supplier_name as string | null,
    supplierChannel: row.supplier_channel as Channel | null,
    supplierShipDays: row.supplier_ship_days as number | null,
    supplierAckHours: row.supplier_ack_hours as number | null,
    shipped: Number(row.shipped),
    openRequest: row.open_request ? (JSON.parse(row.open_request as string) as OpenRequest) : null,
  };
}

async function readCancellableLines(db: Db, orderId: number): Promise<CancellableLine[]> {
  const { results } = await toStatement(db, cancellableLinesQuery({ orderId })).all<Row>();
  return results.map(toCancellableLine);
}

const withReason = (reason: string | null | undefined) => (reason ? `: ${reason}` : "");

/** Which lines, and how much of each, the call asks to cancel; 422 for what does not exist or is too much. */
function targetsOf(lines: CancellableLine[], input: CancelInput): { scope: "order" | "lines"; targets: { line: CancellableLine; quantity: number | null }[] } {
  const byId = new Map(lines.map((l) => [l.id, l]));
  const errors: ValidationErrors = {};
  if (input.line_ids) {
    const targets = input.line_ids.map((id, i) => {
      const line = byId.get(id);
      if (!line) errors[`line_ids.${i}`] = [`The selected line_ids.${i} is invalid.`];
      return { line: line!, quantity: null };
    });
    if (Object.keys(errors).length) throw ApiError.validation(errors);
    return { scope: "lines", targets };
  }
  if (input.lines) {
    const targets = input.lines.map((item, i) => {
      const line = byId.get(item.line_id);
      if (!line) errors[`lines.${i}.line_id`] = [`The selected lines.${i}.line_id is invalid.`];
      else if (item.quantity !== undefined && cancellableQuantity(line) > 0 && item.quantity > cancellableQuantity(line)) {
        errors[`lines.${i}.quantity`] = [`The lines.${i}.quantity field must not be greater than ${cancellableQuantity(line)}.`];
      }
      return { line: line!, quantity: item.quantity ?? null };
    });
    if (Object.keys(errors).length) throw ApiError.validation(errors);
    return { scope: "lines", targets };
  }
  return { scope: "order", targets: lines.map((line) => ({ line, quantity: null })) };
}

/** Why a line cannot be cancelled (now), or null. */
function refusal(line: CancellableLine): string | null {
  if (line.currentStatus === "declined" || line.currentStatus === "skipped") return `Order line ${line.id} is ${line.currentStatus}; it cannot be cancelled.`;
  if (cancellableQuantity(line) === 0) return `Order line ${line.id} was shipped in full; it cannot be cancelled.`;
  if (line.openRequest) return `Order line ${line.id} already has a cancellation waiting for supplier ${line.supplierName ?? "?"}'s answer.`;
  return null;
}

export type CancelResult = { orderId: number; cancelled: number; requested: number; queued: number[] };

/**
 * The shop cancels the whole order (every line that can still be cancelled), some lines
 * (`line_ids`), or quantities of lines (`lines`). Another account's order is a 404; a listed line that
 * is finished, shipped in full or already being cancelled is a 409; nothing cancellable at all is a
 * 409. The requests it queued (to suppliers that have the lines) are handed to the pipeline to be sent.
 */
export async function cancelOrder(db: Db, pipeline: Pipeline, accountId: number, reference: string, input: CancelInput): Promise<CancelResult> {
  const order = await findOrder(db, accountId, reference);
  return carryOut(db, pipeline, () => planCancel(db, order, input));
}

/**
 * The cancellation as a plan, judged against the lines as read: what no supplier has is skipped (or
 * split off) at once, what a supplier has is asked of it; one batch, and the follow-ups are the
 * requests it queued, to be sent on their suppliers' channels. Writes nothing.
 */
export async function planCancel(db: Db, order: Order, input: CancelInput): Promise<Plan<CancelResult>> {
  const reason = input.reason ?? null;
  const { accountId, reference } = order;
  const lines = await readCancellableLines(db, order.id);
  const { scope, targets } = targetsOf(lines, input);
  const chosen = targets.filter((t) => {
    const refused = refusal(t.line);
    if (refused && scope === "lines") throw ApiError.conflict(refused);
    return !refused;
  });
  if (chosen.length === 0) throw ApiError.conflict(`Order ${reference} has nothing left to cancel: every line is skipped, declined, shipped or already being cancelled.`);

  const now = isoMicro();
  const token = newToken();
  const changes: LineChange[] = [];
  const splits: Split[] = [];
  const unsent: number[] = [];
  const sent: { i: number; q: number }[] = [];
  const requests = new Map<number, CancellationRequest>();
  const confirmed: (LineRef & { quantity: number; reason: string | null })[] = [];
  const summary: { id: number; external_id: string; quantity: number; outcome: "cancelled" | "requested" }[] = [];
  for (const { line, quantity } of chosen) {
    const q = quantity ?? cancellableQuantity(line);
    const base = { lineId: line.id, orderId: order.id, version: line.moveToken };
    const event = { quantity: q, reason };
    if (isUnsent(line)) {
      unsent.push(line.id);
      summary.push({ id: line.id, external_id: line.externalId, quantity: q, outcome: "cancelled" });
      if (q === line.quantity) {
        changes.push({ kind: "move", ...base, from: line.currentStatus, to: "skipped", message: `Cancelled${withReason(reason)}` });
        confirmed.push({ o: order.id, i: line.id, t: token, ...event });
      } else {
        changes.push({ kind: "note", ...base, status: line.currentStatus, message: `${q} of ${line.quantity} cancelled${withReason(reason)}; they are split off as a skipped line` });
        splits.push(cancelledPart(line, q, `Split from line #${line.id}: ${q} of ${line.quantity} cancelled${withReason(reason)}`));
        confirmed.push({ o: order.id, i: line.id, ...event });
      }
      continue;
    }
    // A supplier has it: ask it. The line keeps its state meanwhile.
    const supplierId = line.matchedSupplierId!;
    sent.push({ i: line.id, q });
    summary.push({ id: line.id, external_id: line.externalId, quantity: q, outcome: "requested" });
    changes.push({
      kind: "note",
      ...base,
      status: line.currentStatus,
      message: `Cancellation of ${q} of ${line.quantity} requested from supplier ${line.supplierName}${withReason(reason)}`,
    });
    const request = requests.get(supplierId) ?? {
      accountId,
      orderId: order.id,
      supplierId,
      channel: line.supplierChannel ?? "manual",
      purpose: "cancel" as const,
      reason,
      lines: [],
    };
    request.lines.push({ lineId: line.id, quantity: q });
    requests.set(supplierId, request);
  }

  const guards: SQL[] = [];
  if (unsent.length) {
    // Still not sent when this is written: a send that claimed the dispatch meanwhile wins, and this is judged again.
    guards.push(
      expectCount(
        sql`SELECT count(*) FROM json_each(${JSON.stringify(unsent)}) AS j JOIN order_lines l ON l.id = j.value AND l.order_id = ${order.id}
            LEFT JOIN dispatches d ON d.id = l.dispatch_id WHERE ${UNSENT_SQL}`,
        unsent.length,
      ),
    );
  }
  if (sent.length) {
    // No shipment meanwhile took what this asks to cancel.
    guards.push(
      expectCount(
        sql`SELECT count(*) FROM json_each(${JSON.stringify(sent)}) AS j JOIN order_lines l ON l.id = j.value ->> '$.i' AND l.order_id = ${order.id}
            WHERE l.quantity - ${shippedOf} >= j.value ->> '$.q'`,
        sent.length,
      ),
    );
  }
  const requestStatements = cancellationRequestStatements([...requests.values()], now);
  const statements = [
    ...guards,
    ...lineStatements(changes, now, { allOrNothing: true, token }),
    ...splitStatements(splits, now, newToken()),
    ...requestStatements,
    // A second cancellation of the same line that got there first leaves this one's line out: abort.
    ...(requestStatements.length ? [expectChanges(sent.length)] : []),
    orderCancelledEvent(order.id, scope, reason, summary, now),
    ...(confirmed.length ? [cancelledUnsentLineEvents(confirmed, now)] : []),
    ...completionStatements([order.id], now),
    queuedCancellations(order.id),
  ];
  return {
    statements,
    settle: (results) => {
      const queued = (results[results.length - 1].results as { id: number }[]).map((r) => r.id);
      return {
        result: { orderId: order.id, cancelled: unsent.length, requested: sent.length, queued },
        followUps: queued.map((cancellationId) => ({ type: "send_cancellation" as const, cancellationId })),
      };
    },
  };
}

/** The order's cancellation requests that wait to be sent (webhook, e-mail). */
export const queuedCancellations = (orderId: number) => sql`SELECT id FROM cancellations WHERE order_id = ${orderId} AND status = 'queued' ORDER BY id`;

/** The split that takes a cancelled quantity off a line as a new skipped line. */
function cancelledPart(line: OrderLine, quantity: number, message: string): Split {
  return {
    parentId: line.id,
    orderId: line.orderId,
    parentQuantity: line.quantity,
    quantity,
    status: "skipped",
    matchedSupplierId: line.matchedSupplierId,
    rerouteChain: null,
    log: [{ status: "skipped", message }],
  };
}

// ---- Settling a cancellation: the supplier's answer (or the shop's, on its behalf) ---------------

export type Settlement = {
  line: OrderLine;
  /** The line's state as judged (after any earlier answer of the same call). */
  status: LineStatus;
  request: OpenRequest;
  outcome: "confirmed" | "refused";
  by: "supplier" | "shop" | "shipment";
  supplier: { id: number; name: string };
  /** The supplier's reason for a refusal (or a note with a confirmation). */
  reason?: string;
};

export type SettlementPlan = { changes: LineChange[]; statements: (token: string) => SQL[] };

const byWhom = (s: Settlement) =>
  s.by === "shop" ? `supplier ${s.supplier.name} (recorded by the shop)` : s.by === "shipment" ? `supplier ${s.supplier.name}'s shipment` : `supplier ${s.supplier.name}`;

/**
 * The moves, notes and statements of confirmed and refused cancellations. A confirmed one skips the
 * line (or splits the cancelled quantity off as a skipped line); a refused one, or any answer to a
 * withdrawal, is logged only. All or nothing: every request must still be open when it is written.
 * Throws a 409 for a confirmation the line's state does not allow.
 */
export function settleCancellations(settlements: Settlement[], now: string): SettlementPlan {
  const changes: LineChange[] = [];
  const splits: Split[] = [];
  const confirmed: CancellationAnswer[] = [];
  const refused: CancellationAnswer[] = [];
  for (const s of settlements) {
    const base = { lineId: s.line.id, orderId: s.line.orderId, version: s.line.moveToken };
    const q = s.request.quantity;
    const answer = {
      quantity: q,
      reason: s.outcome === "refused" ? (s.reason ?? null) : s.request.reason,
      supplier: s.supplier,
      by: s.by,
      purpose: s.request.purpose,
    };
    if (s.request.purpose === "withdraw") {
      const what = s.outcome === "confirmed" ? "confirmed the withdrawal" : `refused the withdrawal${withReason(s.reason)}`;
      changes.push({ kind: "note", ...base, status: s.status, message: `${capitalised(byWhom(s))} ${what}` });
      (s.outcome === "confirmed" ? confirmed : refused).push({ o: s.line.orderId, i: s.line.id, ...answer });
      continue;
    }
    if (s.outcome === "refused") {
      changes.push({ kind: "note", ...base, status: s.status, message: `Cancellation of ${q} refused by ${byWhom(s)}${withReason(s.reason)}` });
      refused.push({ o: s.line.orderId, i: s.line.id, ...answer });
      continue;
    }
    const message = `Cancellation of ${q} of ${s.line.quantity} confirmed by ${byWhom(s)}${withReason(s.request.reason)}`;
    if (q >= s.line.quantity) {
      if (!canMove(s.status, "skipped")) throw ApiError.conflict(`Order line ${s.line.id} is ${s.status}; its cancellation cannot be confirmed.`);
      changes.push({ kind: "move", ...base, from: s.status, to: "skipped", message });
    } else {
      changes.push({ kind: "note", ...base, status: s.status, message: `${message}; they are split off as a skipped line` });
      splits.push(cancelledPart(s.line, q, `Split from line #${s.line.id}: ${message}`));
    }
    confirmed.push({ o: s.line.orderId, i: s.line.id, ...answer });
  }
  const answered = settlements.map((s) => ({ id: s.request.id, s: s.outcome, b: s.by, r: s.reason ?? null }));
  return {
    changes,
    statements: () =>
      settlements.length === 0
        ? []
        : [
            sql`UPDATE cancellation_lines SET status = j.value ->> '$.s', answered_by = j.value ->> '$.b', answer_reason = j.value ->> '$.r', answered_at = ${now}
                FROM json_each(${JSON.stringify(answered)}) AS j WHERE cancellation_lines.id = j.value ->> '$.id' AND cancellation_lines.status = 'requested'`,
            expectChanges(settlements.length),
            sql`UPDATE cancellations SET status = 'answered', updated_at = ${now}
                WHERE id IN (SELECT cancellation_id FROM cancellation_lines WHERE id IN (SELECT j.value ->> '$.id' FROM json_each(${JSON.stringify(answered)}) AS j))
                  AND NOT EXISTS (SELECT 1 FROM cancellation_lines c WHERE c.cancellation_id = cancellations.id AND c.status = 'requested')`,
            ...splitStatements(splits, now, newToken()),
            ...(confirmed.length ? [cancellationAnswerEvents("confirmed", confirmed, now)] : []),
            ...(refused.length ? [cancellationAnswerEvents("refused", refused, now)] : []),
          ],
  };
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

// ---- The shop records a supplier's answer (manual channel, or told by phone) ----------------------

export type ShopAnswer = { line_id: number; action: "confirm" | "refuse"; reason?: string };

/** Settles open cancellations of the order's lines on the supplier's behalf. 422 for a line of no open cancellation. */
export async function recordCancellationAnswers(db: Db, accountId: number, reference: string, answers: ShopAnswer[]) {
  const order = await findOrder(db, accountId, reference);
  return (await runPlan(db, () => planCancellationAnswers(db, order, answers))).result;
}

/** The shop's record of suppliers' answers, as a plan against the lines as read (it queues nothing). */
async function planCancellationAnswers(db: Db, order: Order, answers: ShopAnswer[]): Promise<Plan<number>> {
  const lines = await readCancellableLines(db, order.id);
  const byId = new Map(lines.map((l) => [l.id, l]));
  const errors: ValidationErrors = {};
  answers.forEach((a, i) => {
    const line = byId.get(a.line_id);
    if (!line) errors[`answers.${i}.line_id`] = [`The selected answers.${i}.line_id is invalid.`];
  });
  if (Object.keys(errors).length) throw ApiError.validation(errors);
  const settlements = answers.map((a) => {
    const line = byId.get(a.line_id)!;
    if (!line.openRequest) throw ApiError.conflict(`Order line ${line.id} has no cancellation waiting for an answer.`);
    return {
      line,
      status: line.currentStatus,
      request: line.openRequest,
      outcome: a.action === "confirm" ? ("confirmed" as const) : ("refused" as const),
      by: "shop" as const,
      supplier: { id: line.openRequest.supplierId, name: line.supplierName ?? "" },
      reason: a.reason,
    };
  });
  const now = isoMicro();
  const token = newToken();
  const plan = settleCancellations(settlements, now);
  return {
    statements: [...lineStatements(plan.changes, now, { allOrNothing: true, token }), ...plan.statements(token), ...completionStatements([order.id], now)],
    settle: () => ({ result: order.id, followUps: [] }),
  };
}

// ---- Reads ----------------------------------------------------------------------------------

export type CancellationWithLines = { cancellation: Cancellation & { supplierName: string }; lines: CancellationLine[] };

/** The order's cancellation requests to suppliers, oldest first, each with its lines. One round trip. */
export async function listCancellations(db: Db, accountId: number, reference: string): Promise<CancellationWithLines[]> {
  const order = await findOrder(db, accountId, reference);
  const [rows, lines] = await db.batch([
    db
      .select({ cancellation: cancellations, supplierName: sql<string>`(SELECT name FROM suppliers WHERE id = ${cancellations.supplierId})` })
      .from(cancellations)
      .where(sql`${cancellations.orderId} = ${order.id}`)
      .orderBy(cancellations.id),
    db
      .select()
      .from(cancellationLines)
      .where(sql`${cancellationLines.cancellationId} IN (SELECT id FROM cancellations WHERE order_id = ${order.id})`)
      .orderBy(cancellationLines.id),
  ]);
  return rows.map((r) => ({ cancellation: { ...r.cancellation, supplierName: r.supplierName }, lines: lines.filter((l) => l.cancellationId === r.cancellation.id) }));
}
