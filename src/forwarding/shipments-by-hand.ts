// A shipment the shop records for a line its supplier cannot report itself: a manual supplier's
// line, or one completed by hand. It is that supplier's ship answer, given by the shop on its
// behalf: the same judgement, batch, log, outbox event and write-back to the shop as a supplier's
// (answers.service.ts applyAnswers), with "recorded by hand (…)" in the log. The form's token is
// the shipment's id, so a double submit records it once (shipments_line_external_uq).
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db";
import { dispatches, orderLineLogs, orderLines, suppliers, type Actor } from "../db/schema";
import { ApiError, type ValidationErrors } from "../lib/errors";
import type { Pipeline } from "../lib/queue";
import { findOrder } from "../orders/orders.service";
import { actorWords } from "../routing/line-actions";
import { answerErrors, applyAnswers, type AnswerResult } from "./answers.service";
import { leftToShip, offeredAnswers, type Answerer } from "./answers.judge";
import { readAnswers } from "./answers.schemas";
import { channelFor, isChannel } from "./channels";

/** The log entry of completeByHand (forwarding.service.ts). */
export const COMPLETED_BY_HAND = "Completed by hand";

/**
 * Whether the shop records this line's shipments: its dispatch is on the manual channel (nothing
 * reports back), or a person completed it by hand (its supplier was placed outside the system).
 * Its supplier's own answers are the only source otherwise, so the two never report one shipment twice.
 */
export const shipsByHand = (l: { dispatchChannel: string | null; completedByHand: boolean }) =>
  (isChannel(l.dispatchChannel) && channelFor(l.dispatchChannel).starts === "manual") || l.completedByHand;

/** Whether the order page offers "Add shipment" for the line now: it ships by hand and has something left to ship. */
export const offersShipmentByHand = (
  line: { currentStatus: Parameters<typeof offeredAnswers>[0]["currentStatus"]; quantity: number; confirmedQuantity: number | null; matchedSupplierId: number | null },
  shipped: number,
  how: { dispatchChannel: string | null; completedByHand: boolean },
) => line.matchedSupplierId !== null && shipsByHand(how) && offeredAnswers(line, shipped).includes("ship");

export { leftToShip };

/** The form's fields, as the supplier API's ship answer takes them (answers.schemas.ts); `shipment_id` is the form's token. */
export type ShipmentByHand = { quantity: string; carrier: string; tracking_number: string; tracking_url: string; shipment_id: string };

/** answers.0.quantity → quantity, in the key and in its messages. */
function fieldErrors(errors: ValidationErrors): ValidationErrors {
  const out: ValidationErrors = {};
  for (const [key, messages] of Object.entries(errors)) {
    const name = key.replace(/^answers\.\d+\./, "");
    out[name] = [...new Set([...(out[name] ?? []), ...messages.map((m) => m.replace(key, name))])];
  }
  return out;
}

/**
 * Records a shipment of one line of the account's order, by `by`. 404: no such order or line;
 * 409: the line does not ship by hand, or nothing of it is left to ship; 422: a field the supplier
 * API would refuse (quantity 1..what is left to ship, carrier and tracking number up to 255
 * characters, an http(s) tracking URL), named without its answers.0 prefix. Nothing is written then.
 */
export async function recordShipmentByHand(db: Db, pipeline: Pipeline, accountId: number, reference: string, lineId: number, input: ShipmentByHand, by: Actor): Promise<AnswerResult> {
  const order = await findOrder(db, accountId, reference);
  const [row] = await db
    .select({
      id: orderLines.id,
      supplierId: orderLines.matchedSupplierId,
      supplierName: suppliers.name,
      dispatchChannel: dispatches.channel,
      completedByHand: sql<number>`EXISTS (SELECT 1 FROM ${orderLineLogs} g WHERE g.order_id = ${orderLines.orderId} AND g.order_line_id = ${orderLines.id} AND g.message = ${COMPLETED_BY_HAND})`,
    })
    .from(orderLines)
    .leftJoin(suppliers, eq(suppliers.id, orderLines.matchedSupplierId))
    .leftJoin(dispatches, eq(dispatches.id, orderLines.dispatchId))
    .where(and(eq(orderLines.orderId, order.id), eq(orderLines.id, lineId)));
  if (!row) throw ApiError.notFound(`Order line with id '${lineId}' not found`);
  if (row.supplierId === null || row.supplierName === null || !shipsByHand({ dispatchChannel: row.dispatchChannel, completedByHand: Boolean(row.completedByHand) })) {
    throw ApiError.conflict(`Order line ${lineId} is not with a manual supplier nor completed by hand: its supplier reports its shipments.`);
  }
  const answerer: Answerer = { id: row.supplierId, accountId, name: row.supplierName, recordedBy: actorWords(by) };
  // Every field as the supplier API checks a ship answer, what the line has left to ship too, all at once.
  const raw = { answers: [{ ...input, line_id: lineId, action: "ship" }] };
  const read = await readAnswers(raw, (answers) => answerErrors(db, answerer, answers));
  if (!read.ok) throw ApiError.validation(fieldErrors(read.errors));
  try {
    const [result] = await applyAnswers(db, pipeline, answerer, read.answers);
    return result;
  } catch (error) {
    if (error instanceof ApiError && error.status === 422 && error.detail?.errors) throw ApiError.validation(fieldErrors(error.detail.errors));
    throw error;
  }
}
