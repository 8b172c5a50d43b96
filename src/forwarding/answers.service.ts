// What suppliers tell us back: accept, decline, partial confirmation, shipments (the acknowledgement
// of a pulled order is supplier-dispatches.service.ts's). All or nothing per call, against the state it was judged by: if another
// answer changed one of its lines first, nothing of it is written and it is judged again against
// what won (applied, or refused with a 409 naming the line's state). Every move goes through the
// state machine, no line ships more than it confirms; any number of answers costs the same few statements.
import { sql, type SQL } from "drizzle-orm";
import { rawBatch, toStatement, type Db, type Row } from "../db";
import { expectCount } from "../db/guards";
import type { LineStatus } from "../db/schema";
import type { AuthenticatedSupplier } from "../env";
import { shipmentStatements } from "../events/outbox";
import { ApiError, type ValidationErrors } from "../lib/errors";
import { carryOut, type Plan } from "../lib/plan";
import type { Pipeline } from "../lib/queue";
import { isoMicro } from "../lib/time";
import { cancellableLinesQuery, settleCancellations, toCancellableLine, type CancellableLine } from "../orders/cancellations.service";
import { completionStatements, lineStatements, newToken } from "../orders/lifecycle";
import { planLeaving } from "../routing/journey";
import { answeredStatements, type Answered } from "./deadlines";
import { judgeAnswers, notFound, type Answer, type Answerer } from "./answers.judge";

/**
 * The lines these answers name (of the supplier's account) and, of the shipments they report with an
 * id, those recorded already: one round trip.
 */
async function readAnswered(db: Db, supplier: AuthenticatedSupplier, answers: readonly Answer[]): Promise<{ lines: CancellableLine[]; recorded: Set<string> }> {
  const ids = [...new Set(answers.map((a) => a.line_id))];
  const linesQuery = cancellableLinesQuery({ lineIds: ids, accountId: supplier.accountId }, supplier.id);
  const reported = answers.flatMap((a) => {
    const e = a.action === "ship" ? (a.shipment_id ?? a.tracking_number) : undefined;
    return e === undefined ? [] : [{ i: a.line_id, e }];
  });
  if (reported.length === 0) return { lines: (await toStatement(db, linesQuery).all<Row>()).results.map(toCancellableLine), recorded: new Set() };
  const [lineRows, recordedRows] = await rawBatch(db, [
    linesQuery,
    // Through shipments_line_external_uq: one index search per reported shipment.
    sql`SELECT sh.order_line_id AS line_id, sh.external_id FROM json_each(${JSON.stringify(reported)}) AS j
        JOIN shipments sh ON sh.order_line_id = j.value ->> '$.i' AND sh.external_id = j.value ->> '$.e'`,
  ]);
  return { lines: lineRows.map(toCancellableLine), recorded: new Set(recordedRows.map((r) => `${r.line_id} ${r.external_id}`)) };
}

/**
 * What the lines find wrong with answers whose other fields the schema refused (null: an answer it
 * could not read at all): the quantity fields, as applyAnswers would name them. Nothing is written.
 */
export async function answerErrors(db: Db, supplier: Answerer, answers: readonly (Answer | null)[]): Promise<ValidationErrors> {
  const readable = answers.filter((a): a is Answer => a !== null);
  if (readable.length === 0) return {};
  const { lines, recorded } = await readAnswered(db, supplier, readable);
  return judgeAnswers(lines, recorded, supplier, answers).errors;
}

export type AnswerResult = { lineId: number; status: LineStatus };

/**
 * A supplier's answers, per line: judged against the lines as read, then planned as one batch. A
 * decline, or the rest of a partial confirmation, goes where the journey sends a line that leaves its
 * supplier (src/routing/journey.ts planLeaving: the next eligible supplier when the account
 * re-routes), in the same batch; the results still show each line as the answer left it for this
 * supplier, and the follow-ups are the route step of each order with a re-routed line. A
 * cancellation it is asked for is confirmed or refused here too; a shipment that leaves less than
 * a requested cancellation refuses it. A line never ships more than it confirms, however many
 * answers (racing ones too) add to it. Refusals, in this order: every failing field (422), a line
 * that is not this supplier's (404), the first answer that does not fit its line's state (409).
 * Writes nothing: applyAnswers carries it out.
 */
export async function planAnswers(db: Db, supplier: Answerer, answers: Answer[]): Promise<Plan<AnswerResult[]>> {
  const ids = [...new Set(answers.map((a) => a.line_id))];
  const { lines, recorded } = await readAnswered(db, supplier, answers);
  const byId = new Map(lines.map((l) => [l.id, l]));
  const j = judgeAnswers(lines, recorded, supplier, answers);
  if (Object.keys(j.errors).length) throw ApiError.validation(j.errors);
  if (j.missing !== null) throw notFound(j.missing);
  if (j.conflict) throw j.conflict;

  const now = isoMicro();
  const plan = await planLeaving(db, supplier.accountId, [...j.leaving.values()], now);
  const settlement = settleCancellations(j.settlements, now);
  // The lines' clocks, only where one runs or may (a supplier with deadlines): most answers touch none.
  const answered: Answered[] = [...j.shipping]
    .filter(([lineId]) => {
      const l = byId.get(lineId)!;
      return l.supplierShipDays !== null || l.supplierAckHours !== null || l.ackDueAt !== null || l.shipDueAt !== null || l.rerouteReason !== null || l.overdueAt !== null;
    })
    .map(([lineId, s]) => ({ lineId, orderId: byId.get(lineId)!.orderId, shipping: s }));
  const orderIds = lines.map((l) => l.orderId);
  const token = newToken();
  // A shipment is judged against the line's open cancellation as read: one requested meanwhile
  // makes this batch lose, and the shipment is judged again (and refuses it).
  const shippedLines = JSON.stringify([...j.shippedNow.keys()].map((i) => ({ i, r: byId.get(i)!.openRequest?.purpose === "cancel" ? byId.get(i)!.openRequest!.id : null })));
  const cancellationAsRead = expectCount(
    sql`SELECT count(*) FROM json_each(${shippedLines}) AS j
        WHERE (SELECT c.id FROM cancellation_lines c WHERE c.order_line_id = j.value ->> '$.i' AND c.status = 'requested' AND c.purpose = 'cancel') IS j.value ->> '$.r'`,
    j.shippedNow.size,
  );
  // Judged against the shipments as read; written, the line must still ship no more than it
  // confirms, with every shipment recorded by then (a racing answer's too): else this batch loses,
  // and is judged again against what won (a 422 naming the quantity).
  const bounded = JSON.stringify([...j.bounded].map((i) => ({ i, o: byId.get(i)!.orderId })));
  const withinConfirmed = expectCount(
    sql`SELECT count(*) FROM json_each(${bounded}) AS j JOIN order_lines l ON l.id = j.value ->> '$.i' AND l.order_id = j.value ->> '$.o'
        WHERE (SELECT coalesce(sum(sh.quantity), 0) FROM shipments sh WHERE sh.order_id = l.order_id AND sh.order_line_id = l.id)
          <= coalesce(l.confirmed_quantity, l.quantity)`,
    j.bounded.size,
  );
  return {
    statements: [
      ...(j.shippedNow.size ? [cancellationAsRead] : []),
      ...lineStatements([...j.changes, ...plan.changes, ...settlement.changes], now, { allOrNothing: true, token }),
      ...plan.statements(token),
      ...settlement.statements(token),
      ...shipmentStatements(j.shipments, now),
      ...(j.bounded.size ? [withinConfirmed] : []),
      ...answeredStatements(answered, now),
      ...pickedUpStatements(lines, now),
      ...placedByHandStatements(lines, now),
      ...completionStatements(orderIds, now),
    ],
    settle: () => ({ result: ids.map((id) => ({ lineId: id, status: j.status.get(id)! })), followUps: plan.followUps }),
  };
}

/** A supplier's answers (planAnswers), written in one batch and judged again should it lose a race; re-routed lines are handed to the pipeline to be sent. */
export function applyAnswers(db: Db, pipeline: Pipeline, supplier: Answerer, answers: Answer[]): Promise<AnswerResult[]> {
  return carryOut(db, pipeline, () => planAnswers(db, supplier, answers));
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
  // `+status`: by the dispatches' ids, never by their status. Left to itself SQLite walked
  // dispatches_status_lease_idx through every dispatch awaiting pickup, of every account (the decline
  // read 206 rows here in the bench, 465 in all), and kept the ids for a bloom filter.
  return [
    sql`UPDATE dispatches SET status = 'acknowledged', acknowledged_at = coalesce(acknowledged_at, ${now}), updated_at = ${now}
        WHERE id IN (SELECT value FROM json_each(${JSON.stringify(waiting)})) AND +status = 'awaiting_pickup'
          AND NOT EXISTS (SELECT 1 FROM order_lines l WHERE l.dispatch_id = dispatches.id AND l.current_status = 'ruled')`,
  ];
}

/**
 * A manual dispatch whose lines a shipment recorded by hand accepted (none of them still ruled) is
 * placed with its supplier, as "Complete chosen lines" leaves it (forwarding.service.ts
 * completeByHand): sent. No statement unless an answered line is on a manual dispatch.
 */
function placedByHandStatements(lines: CancellableLine[], now: string): SQL[] {
  const manual = [...new Set(lines.filter((l) => l.dispatchStatus === "manual").map((l) => l.dispatchId))];
  if (manual.length === 0) return [];
  // `+status`: by the ids, as pickedUpStatements (else every manual dispatch of every account is read).
  return [
    sql`UPDATE dispatches SET status = 'sent', sent_at = coalesce(sent_at, ${now}), updated_at = ${now}
        WHERE id IN (SELECT value FROM json_each(${JSON.stringify(manual)})) AND +status = 'manual'
          AND NOT EXISTS (SELECT 1 FROM order_lines l WHERE l.dispatch_id = dispatches.id AND l.current_status = 'ruled')`,
  ];
}
