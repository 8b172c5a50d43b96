// An archived order's document (the API's JSON as it was, and the console's part) read back into the
// domain's shapes, so the console shows it with the live pages' parts (docs/archive.md, "The console").
// What the document does not hold is what an archived order no longer has: the pipeline's state
// (routing, deadlines, re-route chains: every line was final), shown as absent.
import type { Order, OrderLineLog } from "../db/schema";
import type { DispatchWithSupplier, OrderDetail, PendingCancellation, ShipmentJson } from "../orders/orders.service";
import type { SupplierInvoice } from "../orders/supplier-invoice";
import type { WriteBack } from "../shops/write-back.service";
import type { ArchivedDocument } from "./archive.service";

type Json = Record<string, unknown>;
type LineJson = Json & { logs?: { id: number; status: OrderLineLog["status"]; message: string; created_at: string }[] };

const str = (v: unknown) => (v === null || v === undefined ? null : String(v));
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** The order row as the document shows it (its shipping address, shipping and custom fields). */
function orderOf(o: Json): Order {
  const a = (o.shipping_address ?? {}) as Json;
  const s = (o.shipping ?? {}) as Json;
  return {
    id: Number(o.id),
    accountId: 0,
    reference: String(o.reference),
    externalId: String(o.external_id),
    source: String(o.source),
    test: o.test === true,
    blocked: o.blocked === true,
    total: Number(o.total),
    currency: str(o.currency),
    email: str(a.email),
    shippingCost: num(s.cost),
    shippingName: str(s.name),
    shippingDescription: str(s.description),
    shippingNote: str(s.note),
    shippingDeliveryDate: str(s.delivery_date),
    firstName: String(a.first_name ?? ""),
    lastName: String(a.last_name ?? ""),
    companyName: str(a.company_name),
    address1: String(a.address1 ?? ""),
    address2: str(a.address2),
    postcode: String(a.postcode ?? ""),
    city: String(a.city ?? ""),
    state: str(a.state),
    country: String(a.country ?? ""),
    phone: str(a.phone),
    custom: (o.custom ?? null) as Order["custom"],
    completedAt: null,
    routedAt: str(o.updated_at),
    routeRequestedAt: String(o.created_at),
    routingAttempts: 0,
    parkedAt: null,
    routingError: null,
    createdAt: String(o.created_at),
    updatedAt: String(o.updated_at),
  };
}

/** A line as the document shows it, with the dispatch it went in (the console's part, when it holds it). */
function lineOf(l: LineJson, order: Order, position: number, dispatchOf: Map<number, number>, channelOf: Map<number, DispatchWithSupplier["channel"]>) {
  const supplier = l.matched_supplier as { id: number; name: string } | null;
  const dispatchId = dispatchOf.get(Number(l.id)) ?? null;
  return {
    id: Number(l.id),
    orderId: order.id,
    accountId: 0,
    position,
    externalId: String(l.external_id),
    name: String(l.name),
    ean13: str(l.ean13),
    reference: str(l.reference),
    quantity: Number(l.quantity),
    stockQuantity: num(l.stock_quantity),
    price: Number(l.price),
    purchasePrice: num(l.purchase_price),
    brand: str(l.brand),
    category: str(l.category),
    supplier: null,
    imageUrl: str(l.image_url),
    custom: (l.custom ?? null) as Record<string, unknown> | null,
    height: num(l.height),
    width: num(l.width),
    length: num(l.length),
    weight: num(l.weight),
    currentStatus: l.current_status as OrderDetail["lines"][number]["currentStatus"],
    matchedSupplierId: supplier ? supplier.id : null,
    dispatchId,
    confirmedQuantity: num(l.confirmed_quantity),
    moveToken: null,
    splitFromLineId: num(l.split_from_line_id),
    rerouteChain: null,
    rerouteReason: null,
    manualDecision: null,
    ackDueAt: null,
    shipDueAt: null,
    overdueAt: null,
    overdueDeadline: null,
    deadlineToken: null,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
    supplierName: supplier ? supplier.name : null,
    shipments: (l.shipments ?? []) as ShipmentJson[],
    dispatchChannel: dispatchId === null ? null : (channelOf.get(dispatchId) ?? null),
    pendingCancellation: (l.cancellation ?? null) as PendingCancellation | null,
    supplierInvoice: (l.supplier_invoice ?? null) as SupplierInvoice | null,
  } satisfies OrderDetail["lines"][number];
}

/** The archived order as the order page's data, and its write-backs into the shop. */
export function archivedDetail(doc: ArchivedDocument): { detail: OrderDetail; writeBacks: WriteBack[] } {
  const order = orderOf(doc.order);
  const dispatches = (doc.console.dispatches ?? []) as DispatchWithSupplier[];
  const dispatchOf = new Map(((doc.console.lines ?? []) as { id: number; dispatch_id: number | null }[]).filter((l) => l.dispatch_id !== null).map((l) => [l.id, l.dispatch_id!]));
  const channelOf = new Map(dispatches.map((d) => [d.id, d.channel]));
  const json = (doc.order.order_lines ?? []) as LineJson[];
  const lines = json.map((l, i) => lineOf(l, order, i, dispatchOf, channelOf));
  const logs: OrderLineLog[] = json.flatMap((l) =>
    (l.logs ?? []).map((e) => ({ id: e.id, orderLineId: Number(l.id), orderId: order.id, status: e.status, message: e.message, createdAt: e.created_at })),
  );
  return { detail: { order, lines, logs, dispatches, alongside: [] }, writeBacks: (doc.console.write_backs ?? []) as WriteBack[] };
}
