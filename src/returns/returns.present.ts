// A return in the API's JSON: the shop's view (with its log and the notices to the supplier) and the
// supplier's (without the shop's internals).
import type { ReturnView } from "./returns.service";

export function presentReturnLine(l: ReturnView["lines"][number]) {
  return {
    line_id: l.orderLineId,
    external_id: l.externalId,
    name: l.name,
    reference: l.reference,
    quantity: l.quantity,
    reason: l.reason,
    received_quantity: l.receivedQuantity,
    condition: l.condition,
  };
}

function core(v: ReturnView) {
  const r = v.ret;
  return {
    id: r.id,
    status: r.status,
    order: { reference: v.order.reference, external_id: v.order.externalId },
    supplier: { id: v.supplier.id, name: v.supplier.name },
    note: r.note,
    forced: r.forced,
    rma: r.rma,
    return_address: r.returnAddress,
    label_url: r.labelUrl,
    decline_reason: r.declineReason,
    customer_tracking: r.customerTracking,
    customer_carrier: r.customerCarrier,
    credit: r.creditAmount === null ? null : { amount: r.creditAmount, currency: r.creditCurrency },
    close_reason: r.closeReason,
    cancel_reason: r.cancelReason,
    lines: v.lines.map(presentReturnLine),
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

export function presentReturn(v: ReturnView) {
  return {
    ...core(v),
    logs: v.logs.map((l) => ({ id: l.id, line_id: l.returnLineId === null ? null : (v.lines.find((x) => x.id === l.returnLineId)?.orderLineId ?? null), status: l.status, message: l.message, by: l.actor, created_at: l.createdAt })),
    notices: v.notices.map((n) => ({ kind: n.kind, channel: n.channel, status: n.status, attempts: n.attempts, last_error: n.lastError, sent_at: n.sentAt })),
  };
}

export function presentSupplierReturn(v: ReturnView) {
  return core(v);
}
