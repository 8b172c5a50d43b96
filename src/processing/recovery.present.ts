// Parked orders and dead letters -> the admin API's JSON.
import type { DeadLetter } from "../db/schema";
import type { ParkedOrder } from "./recovery.service";

export function presentParkedOrder(o: ParkedOrder) {
  return {
    id: o.id,
    account_id: o.accountId,
    reference: o.reference,
    external_id: o.externalId,
    routing_attempts: o.routingAttempts,
    routing_error: o.routingError,
    parked_at: o.parkedAt,
    created_at: o.createdAt,
  };
}

export function presentDeadLetter(d: DeadLetter) {
  return {
    id: d.id,
    queue: d.queue,
    type: d.type,
    body: d.body,
    account_id: d.accountId,
    order_id: d.orderId,
    dispatch_id: d.dispatchId,
    status: d.status,
    received_at: d.receivedAt,
    replayed_at: d.replayedAt,
  };
}
