// An archived order's line in its object: exactly the JSON GET /api/v1/orders/{reference} answered,
// and what the console's order page shows beside it (the sends with their attempts, the write-backs
// to the shop). The read answers `order` as it was, with `archived: true` added.
import type { OrderDetail } from "../orders/orders.service";
import { presentOrderDetail } from "../orders/orders.present";
import { presentReturn } from "../returns/returns.present";
import type { ReturnView } from "../returns/returns.service";
import type { WriteBack } from "../shops/write-back.service";
import type { ArchivedDocument } from "./archive.service";

export function presentArchived(detail: OrderDetail, writeBacks: WriteBack[], returns: ReturnView[]): ArchivedDocument {
  // lines: which dispatch each line went in (the API's JSON does not say; the console's page does).
  const lines = detail.lines.map((l) => ({ id: l.id, dispatch_id: l.dispatchId }));
  // Its returns (all ended) exactly as the returns API answered them.
  return { order: presentOrderDetail(detail), console: { dispatches: detail.dispatches, write_backs: writeBacks, lines }, returns: returns.map(presentReturn) };
}

/** An archived order's return as the API answers it: its JSON as it was, and that it comes from the archive. */
export const presentArchivedReturn = (json: Record<string, unknown>) => ({ ...json, archived: true as const });

/** The API's answer for an archived order: its JSON as it was, and that it comes from the archive. */
export const presentArchivedOrder = (doc: ArchivedDocument) => ({ ...doc.order, archived: true as const });

/** An archived order in a list: as the list shows a live one (lines without their logs), archived: true added. */
export function presentArchivedSummary(doc: ArchivedDocument) {
  const lines = (doc.order.order_lines as Record<string, unknown>[]).map((line) => {
    // The list's line is the single read's without these two (src/orders/orders.present.ts).
    const { cancellation: _cancellation, logs: _logs, ...rest } = line;
    return rest;
  });
  return { ...doc.order, order_lines: lines, archived: true as const };
}
