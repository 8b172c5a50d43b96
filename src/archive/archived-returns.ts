// An archived order's returns, read back from its document (the JSON GET /api/v1/orders/{reference}/returns
// answered when it was archived) into the shape the console's order page shows returns in.
import type { ReturnCondition, ReturnNoticeStatus, ReturnStatus } from "../db/schema";
import type { OrderReturn } from "../returns/order-returns.query";
import type { ArchivedDocument } from "./archive.service";

type ReturnJson = {
  id: number;
  status: ReturnStatus;
  supplier: { id: number; name: string };
  note: string | null;
  forced: boolean;
  rma: string | null;
  return_address: string | null;
  label_url: string | null;
  decline_reason: string | null;
  customer_tracking: string | null;
  customer_carrier: string | null;
  credit: { amount: number; currency: string } | null;
  close_reason: string | null;
  cancel_reason: string | null;
  created_at: string;
  lines: { line_id: number; name: string; quantity: number; reason: string | null; received_quantity: number | null; condition: ReturnCondition | null }[];
  logs: { id: number; line_id: number | null; status: ReturnStatus; message: string; by: string; created_at: string }[];
  notices: { kind: "requested" | "cancelled"; status: ReturnNoticeStatus; last_error: string | null }[];
};

/** The order's returns as the document holds them (GET /api/v1/orders/{reference}/returns's JSON), as the order page shows returns. */
export function archivedReturns(doc: ArchivedDocument): OrderReturn[] {
  return ((doc.returns ?? []) as unknown as ReturnJson[]).map((r) => ({
    id: r.id,
    supplierId: r.supplier.id,
    supplierName: r.supplier.name,
    status: r.status,
    note: r.note,
    forced: r.forced,
    rma: r.rma,
    returnAddress: r.return_address,
    labelUrl: r.label_url,
    declineReason: r.decline_reason,
    customerTracking: r.customer_tracking,
    customerCarrier: r.customer_carrier,
    credit: r.credit,
    closeReason: r.close_reason,
    cancelReason: r.cancel_reason,
    createdAt: r.created_at,
    // A return line's own id is not in the API's JSON; the page tells them apart by the order line.
    lines: r.lines.map((l) => ({ id: l.line_id, orderLineId: l.line_id, name: l.name, quantity: l.quantity, reason: l.reason, receivedQuantity: l.received_quantity, condition: l.condition })),
    logs: r.logs.map((g) => ({ id: g.id, orderLineId: g.line_id, status: g.status, message: g.message, actor: g.by, createdAt: g.created_at })),
    notices: r.notices.map((n) => ({ kind: n.kind, status: n.status, lastError: n.last_error })),
  }));
}
