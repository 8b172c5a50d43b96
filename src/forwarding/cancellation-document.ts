// What a supplier receives when a shop cancels (or a silent supplier's line is withdrawn): one
// document per request, as JSON (the signed webhook `dispatch.cancellation_requested`, the pull API,
// the portal) and as plain text (e-mail).
import type { Cancellation, CancellationLine, Order, OrderLine, Supplier } from "../db/schema";

export type CancellationLineRow = { request: CancellationLine; line: OrderLine };

export type CancellationDocument = ReturnType<typeof buildCancellationDocument>;

export function buildCancellationDocument(
  cancellation: Cancellation,
  order: Pick<Order, "reference" | "externalId" | "test">,
  supplier: Pick<Supplier, "id" | "name">,
  lines: CancellationLineRow[],
) {
  return {
    // The request's idempotency key: the same on every retry (also sent as Idempotency-Key).
    id: cancellation.idempotencyKey,
    type: "dispatch.cancellation_requested" as const,
    cancellation_id: cancellation.id,
    // cancel: the shop cancelled; withdraw: the line went to another supplier after this one's silence.
    purpose: cancellation.purpose,
    created_at: cancellation.createdAt,
    test: order.test,
    supplier: { id: supplier.id, name: supplier.name },
    order: { reference: order.reference, external_id: order.externalId },
    reason: cancellation.reason,
    lines: lines.map(({ request, line }) => ({
      id: line.id,
      external_id: line.externalId,
      name: line.name,
      ean13: line.ean13,
      reference: line.reference,
      // How much to cancel, of how much the line has.
      quantity: request.quantity,
      line_quantity: line.quantity,
      status: request.status,
    })),
  };
}

/** A cancellation as the supplier lists it (pull API, portal): its document, its status and when it was acknowledged. */
export function presentSupplierCancellation(doc: CancellationDocument, cancellation: Cancellation) {
  return { ...doc, status: cancellation.status, acknowledged_at: cancellation.acknowledgedAt };
}

export function cancellationMailSubject(doc: CancellationDocument): string {
  const what = doc.purpose === "withdraw" ? "Withdrawn" : "Cancellation request";
  return `${what}: order ${doc.order.reference} for ${doc.supplier.name}${doc.test ? " (TEST)" : ""}`;
}

export function cancellationMailText(doc: CancellationDocument): string {
  const lines = doc.lines.map((l) => `  ${l.quantity} of ${l.line_quantity} x ${l.name}  (line ${l.id}, SKU ${l.reference ?? "-"}, EAN ${l.ean13 ?? "-"})`);
  const intro =
    doc.purpose === "withdraw"
      ? `These lines of order ${doc.order.reference} (shop order ${doc.order.external_id}) are withdrawn from ${doc.supplier.name}: they went to another supplier.`
      : `The shop cancels these lines of order ${doc.order.reference} (shop order ${doc.order.external_id}) for ${doc.supplier.name}.`;
  return [
    intro,
    "",
    "Please do not ship:",
    ...lines,
    ...(doc.reason ? ["", `Reason: ${doc.reason}`] : []),
    "",
    "Answer per line: confirm the cancellation, or refuse it if the goods have already shipped. Answer in the supplier portal,",
    'or with POST /api/v1/supplier/answers: {"answers": [{"line_id": <line>, "action": "confirm_cancellation"}]}',
    '(or "refuse_cancellation" with a "reason").',
    "",
    `Reference for your answer: cancellation ${doc.cancellation_id} (${doc.id}).`,
  ].join("\n");
}
