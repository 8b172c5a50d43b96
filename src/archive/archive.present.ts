// An archived order's line in its object: exactly the JSON GET /api/v1/orders/{reference} answered,
// and what the console's order page shows beside it (the sends with their attempts, the write-backs
// to the shop). The read answers `order` as it was, with `archived: true` added.
import type { OrderDetail } from "../orders/orders.service";
import { presentOrderDetail } from "../orders/orders.present";
import type { WriteBack } from "../shops/write-back.service";
import type { ArchivedDocument } from "./archive.service";

export function presentArchived(detail: OrderDetail, writeBacks: WriteBack[]): ArchivedDocument {
  return { order: presentOrderDetail(detail), console: { dispatches: detail.dispatches, write_backs: writeBacks } };
}

/** The API's answer for an archived order: its JSON as it was, and that it comes from the archive. */
export const presentArchivedOrder = (doc: ArchivedDocument) => ({ ...doc.order, archived: true as const });
