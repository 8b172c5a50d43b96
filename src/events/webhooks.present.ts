// Webhook subscriptions and deliveries in their public JSON shape.
import type { WebhookSubscription } from "../db/schema";
import type { AttemptRow, DeliveryRow } from "./webhooks.service";

/** The secret is shown only in the answer of the request that set it (create, or a PATCH that changed it). */
export function presentWebhook(w: WebhookSubscription, opts: { withSecret?: boolean } = {}) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    active: w.active,
    ...(opts.withSecret ? { secret: w.secret } : {}),
    created_at: w.createdAt,
    updated_at: w.updatedAt,
  };
}

export function presentAttempt(a: AttemptRow) {
  return { status_code: a.statusCode, error: a.error, duration_ms: a.durationMs, created_at: a.createdAt };
}

export function presentDelivery({ delivery: d, event: e }: DeliveryRow, attempts: AttemptRow[]) {
  return {
    id: d.id,
    webhook_id: d.subscriptionId,
    event: { id: e.id, type: e.type, created_at: e.createdAt, data: JSON.parse(e.data) as Record<string, unknown> },
    status: d.status,
    // While pending after a failed attempt, lease_until holds the time of the next one.
    next_attempt_at: d.status === "pending" ? d.leaseUntil : null,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    delivered_at: d.deliveredAt,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    attempts: attempts.map(presentAttempt),
  };
}

/** A page of deliveries with the attempts of the whole page (fetched in one query). */
export function presentDeliveries(rows: DeliveryRow[], attempts: AttemptRow[]) {
  const byDelivery = new Map<number, AttemptRow[]>();
  for (const a of attempts) {
    const list = byDelivery.get(a.deliveryId);
    if (list) list.push(a);
    else byDelivery.set(a.deliveryId, [a]);
  }
  return rows.map((r) => presentDelivery(r, byDelivery.get(r.delivery.id) ?? []));
}
