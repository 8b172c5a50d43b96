// Dispatches in the shop's public JSON shape (GET /api/v1/orders/{reference}/dispatches), and a
// supplier's acknowledgements as the supplier API answers them.
import type { Cancellation, LineStatus } from "../db/schema";
import type { DispatchWithLines } from "./forwarding.service";

export function presentDispatch({ dispatch: d, lineIds }: DispatchWithLines) {
  return {
    id: d.id,
    supplier_id: d.supplierId,
    channel: d.channel,
    status: d.status,
    idempotency_key: d.idempotencyKey,
    attempts: d.attempts,
    last_error: d.lastError,
    // The last 20 attempts on a push channel, oldest first (docs/forwarding.md); [] before the first.
    attempt_log: d.attemptLog ?? [],
    line_ids: lineIds,
    payload: d.payload ? (JSON.parse(d.payload) as unknown) : null,
    created_at: d.createdAt,
    sent_at: d.sentAt,
    acknowledged_at: d.acknowledgedAt,
  };
}

/** A pulled order the supplier acknowledged (POST /api/v1/supplier/orders/{dispatchId}/ack). */
export function presentDispatchAcknowledged(a: { dispatchId: number; acknowledgedAt: string }) {
  return { dispatch_id: a.dispatchId, status: "acknowledged" as const, acknowledged_at: a.acknowledgedAt };
}

/** A cancellation request the supplier acknowledged: it has seen it (its lines still wait for an answer). */
export function presentCancellationAcknowledged(c: Cancellation) {
  return { cancellation_id: c.id, status: c.status, acknowledged_at: c.acknowledgedAt! };
}

/** Each answered line's status after the supplier's answers (POST /api/v1/supplier/answers, the callbacks). */
export function presentAnswerResults(results: { lineId: number; status: LineStatus }[]) {
  return { results: results.map((r) => ({ line_id: r.lineId, current_status: r.status })) };
}
