// Cancellation requests in the shop's public JSON shape (GET /api/v1/orders/{reference}/cancellations).
import type { CancellationWithLines } from "./cancellations.service";

export function presentCancellation({ cancellation: c, lines }: CancellationWithLines) {
  return {
    id: c.id,
    supplier: { id: c.supplierId, name: c.supplierName },
    channel: c.channel,
    purpose: c.purpose,
    reason: c.reason,
    status: c.status,
    idempotency_key: c.idempotencyKey,
    attempts: c.attempts,
    last_error: c.lastError,
    lines: lines.map((l) => ({
      line_id: l.orderLineId,
      quantity: l.quantity,
      status: l.status,
      answered_by: l.answeredBy,
      answer_reason: l.answerReason,
      answered_at: l.answeredAt,
    })),
    created_at: c.createdAt,
    sent_at: c.sentAt,
    acknowledged_at: c.acknowledgedAt,
  };
}
