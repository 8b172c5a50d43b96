// Dispatches in the shop's public JSON shape (GET /api/v1/orders/{reference}/dispatches).
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
