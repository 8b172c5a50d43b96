// Parked orders and dead letters -> the admin API's JSON.
import type { DeadLetter } from "../db/schema";
import type { ParkedOrder } from "./recovery.service";

// Each shard lists in this order; the operator's lists across shards merge in the same.
export const byParkedAt = (a: ParkedOrder, b: ParkedOrder) => b.parkedAt.localeCompare(a.parkedAt) || b.id - a.id;
export const byIdDescending = (a: { id: number }, b: { id: number }) => b.id - a.id;

export function presentParkedOrder(o: ParkedOrder, shard: number) {
  return {
    id: o.id,
    account_id: o.accountId,
    reference: o.reference,
    external_id: o.externalId,
    routing_attempts: o.routingAttempts,
    routing_error: o.routingError,
    parked_at: o.parkedAt,
    created_at: o.createdAt,
    shard,
  };
}

export function presentDeadLetter(d: DeadLetter, shard: number) {
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
    shard,
  };
}
