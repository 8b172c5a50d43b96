// Shop write-backs in their public JSON shape (GET /api/v1/orders/{reference}/shop-sync).
import type { WriteBack } from "./write-back.service";

export function presentWriteBack(w: WriteBack) {
  return {
    id: w.id,
    connection: w.connection,
    event: w.event,
    kind: w.kind,
    status: w.status,
    dry_run: w.dryRun,
    shop_ids: w.shopIds,
    last_error: w.lastError,
    next_attempt_at: w.nextAttemptAt,
    created_at: w.createdAt,
    done_at: w.doneAt,
    attempts: w.attempts.map((a) => ({
      at: a.at,
      calls: a.calls.map((c) => ({ method: c.method, path: c.path, sent: c.sent, status: c.status, answer: c.answer, duration_ms: c.durationMs })),
      error: a.error,
      duration_ms: a.durationMs,
      outcome: a.outcome,
    })),
  };
}
