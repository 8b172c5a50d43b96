// Judging a supplier's answers against its lines as read, without I/O: what each answer may do in
// its line's state (offeredAnswers, the portal's offer and the API's judgement alike), what is left to
// ship, and judgeAnswers: every change, shipment, cancellation settled and line leaving its supplier
// that a call of answers would write, or every reason it cannot (422 fields, 404, 409).
// answers.service.ts reads the lines and writes what this decides.
import type { LineStatus, OrderLine } from "../db/schema";
import type { AuthenticatedSupplier } from "../env";
import { type ShipmentRecord } from "../events/outbox";
import { ApiError, type ValidationErrors } from "../lib/errors";
import { type CancellableLine, type Settlement } from "../orders/cancellations.service";
import { canMove, type LineChange } from "../orders/lifecycle";
import { type Leaving } from "../routing/journey";
import { type Answered } from "./deadlines";

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

export const notFound = (id: number) => ApiError.notFound(`Order line with id '${id}' not found`);

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
export type Judgement = {
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
export function judgeAnswers(lines: CancellableLine[], recorded: Set<string>, supplier: Answerer, answers: readonly (Answer | null)[]): Judgement {
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
