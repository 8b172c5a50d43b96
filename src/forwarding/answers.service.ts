// What suppliers tell us back: accept, decline, partial confirmation, shipments, acknowledgement
// of a pulled order. All or nothing per call, against the state it was judged by: if another
// answer changed one of its lines first, nothing of it is written and it is judged again against
// what won (applied, or refused with a 409 naming the line's state). Every move goes through the
// state machine, no line ships more than it confirms; any number of answers costs the same few statements.
import type { SupplierDispatch } from "./document";
import { and, asc, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { rawBatch, runBatch, toStatement, type Db, type Row } from "../db";
import { expectCount } from "../db/guards";
import { dispatches, orderLines, orders, shipments, type Dispatch, type DispatchStatus, type LineStatus, type Order, type OrderLine, type Shipment } from "../db/schema";
import type { AuthenticatedSupplier } from "../env";
import { shipmentStatements, type ShipmentRecord } from "../events/outbox";
import { ApiError, type ValidationErrors } from "../lib/errors";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { carryOut, type Plan } from "../lib/plan";
import type { Pipeline } from "../lib/queue";
import { isoMicro } from "../lib/time";
import {
  cancellableLinesQuery,
  settleCancellations,
  toCancellableLine,
  type CancellableLine,
  type Settlement,
} from "../orders/cancellations.service";
import { canMove, completionStatements, lineStatements, moveLinesStatements, newToken, type LineChange } from "../orders/lifecycle";
import { planLeaving, type Leaving } from "../routing/journey";
import { answeredStatements, type Answered } from "./deadlines";

export type Answer = {
  line_id: number;
  action: "accept" | "decline" | "partial" | "ship" | "confirm_cancellation" | "refuse_cancellation";
  reason?: string;
  quantity?: number;
  carrier?: string;
  tracking_number?: string;
  tracking_url?: string;
  shipment_id?: string;
};

/**
 * Who gives the answers: the supplier itself, or the shop recording on its behalf what the supplier
 * did (a manual supplier's shipment, src/forwarding/shipments-by-hand.ts): then `recordedBy` says
 * who recorded it ("by hand (console session #3, API key #1)"), in every log entry it writes.
 */
export type Answerer = AuthenticatedSupplier & { recordedBy?: string };

/** States in which a supplier can report a shipment (a ruled line is accepted by it). */
const SHIPPABLE: readonly LineStatus[] = ["ruled", "completed", "partially_completed"];

/** What is left to ship of a line: what it confirms (its confirmed quantity, or else its quantity) less what is shipped of it. */
export const leftToShip = (line: Pick<OrderLine, "quantity" | "confirmedQuantity">, shipped: number) => (line.confirmedQuantity ?? line.quantity) - shipped;

/**
 * The answers that change something for a line in its current state, `shipped` of it shipped (what
 * the supplier portal offers): accept a ruled line; decline or confirm part of it where the state
 * machine allows it (part only of more than one, and not less than is shipped); report a shipment
 * once it is accepted or still to accept, while something is left to ship. A line shipped in full
 * (all it confirms) has nothing left to answer: declining it would send on goods already sent.
 * (accept on an accepted line is taken too, as a note, but changes nothing.)
 */
export function offeredAnswers(line: Pick<OrderLine, "currentStatus" | "quantity" | "confirmedQuantity">, shipped = 0): Answer["action"][] {
  const s = line.currentStatus;
  const offered: Answer["action"][] = [];
  if (s === "ruled") offered.push("accept");
  const left = leftToShip(line, shipped);
  if (declinable(line, shipped)) offered.push("decline");
  if (canMove(s, "partially_completed") && line.quantity > Math.max(1, shipped)) offered.push("partial");
  if (SHIPPABLE.includes(s) && left > 0) offered.push("ship");
  return offered;
}

/**
 * Whether the line can still be declined: the state machine allows it and something of what it
 * confirms is left to ship. The one rule of the portal's offer and of the API's judgement alike.
 */
const declinable = (line: Pick<OrderLine, "currentStatus" | "quantity" | "confirmedQuantity">, shipped: number) =>
  canMove(line.currentStatus, "declined") && leftToShip(line, shipped) > 0;

/** Why a line shipped in full cannot be declined (a 409): the goods are on their way already. */
const shippedInFull = (line: Pick<OrderLine, "id" | "quantity" | "confirmedQuantity">, shipped: number) =>
  ApiError.conflict(
    `Order line ${line.id} is shipped in full (${shipped} of ${line.confirmedQuantity ?? line.quantity}); it cannot be given the answer 'decline'.`,
  );

const notFound = (id: number) => ApiError.notFound(`Order line with id '${id}' not found`);

/**
 * This supplier's decline of the line, as read: the line is still declined with it, or it went on to
 * another supplier after the decline (its reroute chain says so). Whoever has the line now is not named.
 */
function declinedBy(line: CancellableLine, supplierId: number): boolean {
  if (line.matchedSupplierId === supplierId) return line.currentStatus === "declined";
  return (line.rerouteChain ?? []).some((hop) => hop.supplier_id === supplierId && hop.outcome === "declined" && hop.line_id === line.id);
}

/** Any later answer of a supplier to a line it declined (a racing decline too): what was recorded. */
const declineRecorded = (line: Pick<OrderLine, "id">, supplier: { name: string }, action: string) =>
  ApiError.conflict(`The decline of order line ${line.id} by supplier ${supplier.name} is already recorded; the line cannot be given the answer '${action}'.`);

/** Everything a call of answers would write, or why it cannot be written: judged against the lines as read, without I/O. */
type Judgement = {
  changes: LineChange[];
  shipments: ShipmentRecord[];
  settlements: Settlement[];
  leaving: Map<number, Leaving>;
  shipping: Map<number, Answered["shipping"]>;
  /** What each line ships in this call (repeats of a recorded shipment not counted). */
  shippedNow: Map<number, number>;
  /** Each line's status as the answers leave it. */
  status: Map<number, LineStatus>;
  /** Lines whose shipments must stay within what they confirm: the batch checks it again as written. */
  bounded: Set<number>;
  /** Every failing field (422), by answers.N.field. */
  errors: ValidationErrors;
  /** The first line that is not this supplier's (404). */
  missing: number | null;
  /** The first answer that does not fit its line's state (409). */
  conflict: ApiError | null;
};

/**
 * Judges answers (null: one the schema could not read, passed over) in their order against the lines
 * as read. `recorded`: "<line id> <shipment id>" of the shipments these answers report that are
 * recorded already (a repeat is recorded once, and counts once). Every answer is judged, so that
 * every failing field is named at once.
 */
function judgeAnswers(lines: CancellableLine[], recorded: Set<string>, supplier: Answerer, answers: readonly (Answer | null)[]): Judgement {
  const byId = new Map(lines.map((l) => [l.id, l]));
  const ours = (l: CancellableLine) => l.matchedSupplierId === supplier.id;
  const j: Judgement = {
    changes: [],
    shipments: [],
    settlements: [],
    leaving: new Map(),
    shipping: new Map(),
    shippedNow: new Map(),
    status: new Map(lines.map((l) => [l.id, l.currentStatus])),
    bounded: new Set(),
    errors: {},
    missing: null,
    conflict: null,
  };
  const { changes, leaving, shipping, status } = j;
  const settled = new Set<number>();
  const reported = new Set(recorded);
  // What the supplier has confirmed of each line so far (a partial answer earlier in this call counts),
  // and what is shipped of it (this call's shipments too).
  const confirmed = new Map<number, number | null>(lines.map((l) => [l.id, l.confirmedQuantity]));
  const shipped = new Map<number, number>(lines.map((l) => [l.id, l.shipped]));
  const who = { id: supplier.id, name: supplier.name };
  const recordedBy = supplier.recordedBy ? `; recorded ${supplier.recordedBy}` : "";
  // A line read as declined with this supplier was declined by it: any answer it cannot take says so.
  const refuse = (line: CancellableLine, from: LineStatus, action: string): never => {
    if (line.currentStatus === "declined" && from === "declined") throw declineRecorded(line, supplier, action);
    throw ApiError.conflict(`Order line ${line.id} is ${from}; it cannot be given the answer '${action}'.`);
  };
  // A line that leaves this supplier and then gets another answer in the same call leaves without re-routing.
  const flush = (line: OrderLine) => {
    const l = leaving.get(line.id);
    if (!l || !l.to) return;
    changes.push({ kind: "move", lineId: line.id, orderId: line.orderId, from: l.from, to: l.to, message: l.message, confirmedQuantity: l.confirmedQuantity, version: line.moveToken });
    leaving.delete(line.id);
  };
  const move = (line: CancellableLine, action: Answer["action"], to: LineStatus, message: string) => {
    const from = status.get(line.id)!;
    if (!canMove(from, to)) refuse(line, from, action);
    changes.push({ kind: "move", lineId: line.id, orderId: line.orderId, from, to, message, version: line.moveToken });
    status.set(line.id, to);
  };
  // Every change carries the line's token as read: a line that moved meanwhile (and maybe came back
  // to the same state, re-routed to another supplier) makes the batch lose, and it is judged again.
  const note = (line: OrderLine, message: string) =>
    changes.push({ kind: "note", lineId: line.id, orderId: line.orderId, message, status: status.get(line.id)!, version: line.moveToken });
  const leave = (line: CancellableLine, action: Answer["action"], to: "declined" | "partially_completed", l: Omit<Leaving, "line" | "from" | "to" | "supplier">) => {
    const from = status.get(line.id)!;
    if (!canMove(from, to)) refuse(line, from, action);
    // The line's open cancellation as read: the journey keeps a line the shop is cancelling where it is.
    const openCancellationId = line.openRequest?.purpose === "cancel" ? line.openRequest.id : null;
    // One it answered earlier in this call no longer holds the line (the journey decides the rest).
    const cancellationSettled = openCancellationId !== null && settled.has(openCancellationId);
    leaving.set(line.id, { ...l, line, from, to, supplier: who, openCancellationId, cancellationSettled });
    status.set(line.id, to);
  };

  for (const [i, answer] of answers.entries()) {
    if (!answer) continue;
    const line = byId.get(answer.line_id);
    const asked = answer.action === "confirm_cancellation" || answer.action === "refuse_cancellation";
    // Lines of other suppliers or accounts are indistinguishable from unknown ones; a line this
    // supplier declined and that went on is told as declined, never where it went.
    if (!line || !(ours(line) || (asked && line.openRequest))) {
      if (line && declinedBy(line, supplier.id)) j.conflict ??= declineRecorded(line, supplier, answer.action);
      else j.missing ??= answer.line_id;
      continue;
    }
    const quantityError = (message: string) => (j.errors[`answers.${i}.quantity`] = [message.replace(":attribute", `answers.${i}.quantity`)]);
    try {
      flush(line);
      const current = status.get(line.id)!;
      switch (answer.action) {
        case "accept":
          if (current === "ruled") move(line, "accept", "completed", `Accepted by supplier ${supplier.name}`);
          else if (current === "completed" || current === "partially_completed") note(line, `Accepted by supplier ${supplier.name}`);
          else refuse(line, current, "accept");
          if (shipping.get(line.id) !== "stop") shipping.set(line.id, "start");
          break;
        case "decline": {
          // A line whose every confirmed item shipped is not declined: its goods are on their way (the portal offers no Decline).
          const asNow = { currentStatus: current, quantity: line.quantity, confirmedQuantity: confirmed.get(line.id) ?? null };
          if (canMove(current, "declined") && !declinable(asNow, shipped.get(line.id)!)) throw shippedInFull({ ...asNow, id: line.id }, shipped.get(line.id)!);
          leave(line, "decline", "declined", { cause: "declined", message: `Declined by supplier ${supplier.name}: ${answer.reason}` });
          shipping.set(line.id, "stop");
          break;
        }
        case "partial": {
          const q = answer.quantity!;
          const done = shipped.get(line.id)!;
          if (q >= line.quantity) {
            quantityError(`The :attribute field must be less than the line's quantity (${line.quantity}).`);
            continue;
          }
          // What went out stays confirmed: the rest that goes on is never more than what did not ship.
          if (q < done) {
            quantityError(`The :attribute field must be at least ${done}, what is shipped of line ${line.id} already.`);
            continue;
          }
          leave(line, "partial", "partially_completed", {
            cause: "partial",
            confirmedQuantity: q,
            message: `Supplier ${supplier.name} confirmed ${q} of ${line.quantity}${answer.reason ? `: ${answer.reason}` : ""}`,
          });
          confirmed.set(line.id, q);
          j.bounded.add(line.id);
          if (shipping.get(line.id) !== "stop") shipping.set(line.id, "start");
          break;
        }
        case "ship": {
          if (!SHIPPABLE.includes(current)) refuse(line, current, "ship");
          if (current === "ruled") move(line, "ship", "completed", `Accepted by supplier ${supplier.name}${recordedBy}`);
          // A repeated report of the same shipment (same shipment_id, or tracking number) is recorded once.
          const externalId = answer.shipment_id ?? answer.tracking_number ?? null;
          const key = externalId === null ? null : `${line.id} ${externalId}`;
          if (key !== null && reported.has(key)) break;
          // Never more than is left to ship: what the line confirms (all of it, or the part confirmed) less what is shipped.
          const done = shipped.get(line.id)!;
          const allowed = confirmed.get(line.id) ?? line.quantity;
          const left = allowed - done;
          // Without a quantity: all that is left.
          const quantity = answer.quantity ?? left;
          if (quantity > left || quantity < 1) {
            quantityError(`The :attribute field must not be greater than ${Math.max(left, 0)}, what is left to ship of line ${line.id} (${done} of ${allowed} shipped).`);
            continue;
          }
          if (key !== null) reported.add(key);
          shipped.set(line.id, done + quantity);
          const shipment = {
            lineId: line.id,
            orderId: line.orderId,
            accountId: line.accountId,
            quantity,
            carrier: answer.carrier ?? null,
            trackingNumber: answer.tracking_number ?? null,
            trackingUrl: answer.tracking_url ?? null,
            externalId,
          };
          j.shipments.push(shipment);
          j.shippedNow.set(line.id, (j.shippedNow.get(line.id) ?? 0) + quantity);
          j.bounded.add(line.id);
          note(
            line,
            `Shipped ${quantity} by supplier ${supplier.name}${shipment.carrier ? ` via ${shipment.carrier}` : ""}${shipment.trackingNumber ? ` (tracking ${shipment.trackingNumber})` : ""}${recordedBy}`,
          );
          shipping.set(line.id, "stop");
          break;
        }
        case "confirm_cancellation":
        case "refuse_cancellation": {
          const request = line.openRequest;
          if (!request || settled.has(request.id)) {
            if (!request && line.currentStatus === "declined" && ours(line)) throw declineRecorded(line, supplier, answer.action);
            throw ApiError.conflict(`Order line ${line.id} has no cancellation waiting for an answer.`);
          }
          settled.add(request.id);
          const outcome = answer.action === "confirm_cancellation" ? "confirmed" : "refused";
          j.settlements.push({ line, status: current, request, outcome, by: "supplier", supplier: who, reason: answer.reason });
          if (outcome === "confirmed" && request.purpose === "cancel" && request.quantity >= line.quantity) status.set(line.id, "skipped");
          break;
        }
      }
    } catch (error) {
      // Judged on: a later answer may still name a field that fails.
      if (!(error instanceof ApiError) || error.status !== 409) throw error;
      j.conflict ??= error;
    }
  }
  // A shipment that leaves less than a requested cancellation takes: that cancellation is refused.
  for (const [lineId, quantity] of j.shippedNow) {
    const line = byId.get(lineId)!;
    const request = line.openRequest;
    if (!request || request.purpose !== "cancel" || settled.has(request.id)) continue;
    if (line.quantity - line.shipped - quantity >= request.quantity) continue;
    settled.add(request.id);
    j.settlements.push({ line, status: status.get(lineId)!, request, outcome: "refused", by: "shipment", supplier: who, reason: `it shipped ${quantity}` });
  }
  return j;
}

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

export type { SupplierDispatch } from "./document";

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
