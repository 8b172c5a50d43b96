// Rows -> the public JSON of an order, exactly as the original service shows it (the API's face).
import { LINE_STATUSES, type Order, type OrderLineLog } from "../db/schema";
import { csvLines } from "../lib/csv";
import { groupBy } from "../lib/group";
import { shippingAddressOf, type LineWithSupplier, type PendingCancellation } from "./orders.service";
import type { SupplierInvoice } from "./supplier-invoice";
import { orderProgress, orderProgressWords } from "./progress";

/** The spec's shipping_address (also what suppliers and routing rules see of it). */
export const presentAddress = shippingAddressOf;

/** `extra`: fields of the single-order read, after ours and before the dimensions (which stay last before the logs). */
function presentLine<E extends object = object>(line: LineWithSupplier, extra: E = {} as E) {
  return {
    id: line.id,
    external_id: line.externalId,
    name: line.name,
    ean13: line.ean13,
    reference: line.reference,
    quantity: line.quantity,
    stock_quantity: line.stockQuantity,
    price: line.price,
    purchase_price: line.purchasePrice,
    brand: line.brand,
    category: line.category,
    image_url: line.imageUrl,
    custom: line.custom ?? null,
    current_status: line.currentStatus,
    matched_supplier:
      line.matchedSupplierId !== null ? { id: line.matchedSupplierId, name: line.supplierName ?? "" } : null,
    // Beyond the original spec: what the supplier confirmed and shipped (extra fields break no client).
    confirmed_quantity: line.confirmedQuantity,
    shipments: line.shipments,
    // A line split off this one mid-life (a re-routed remainder, a cancelled quantity) names it here.
    split_from_line_id: line.splitFromLineId,
    ...extra,
    height: line.height,
    width: line.width,
    length: line.length,
    weight: line.weight,
  };
}

function presentLog(log: OrderLineLog) {
  return { id: log.id, status: log.status, message: log.message, created_at: log.createdAt };
}

function presentOrder<L>(order: Order, lines: LineWithSupplier[], orderLines: L[]) {
  const seen = new Map<number, { id: number; name: string }>();
  for (const line of lines) {
    if (line.matchedSupplierId !== null && !seen.has(line.matchedSupplierId)) {
      seen.set(line.matchedSupplierId, { id: line.matchedSupplierId, name: line.supplierName ?? "" });
    }
  }
  return {
    id: order.id,
    external_id: order.externalId,
    reference: order.reference,
    source: order.source,
    test: order.test,
    blocked: order.blocked,
    total: order.total,
    // Only when the shop sent one: an order without keeps the contract's JSON byte for byte.
    ...(order.currency !== null ? { currency: order.currency } : {}),
    shipping_address: presentAddress(order),
    shipping: {
      cost: order.shippingCost,
      name: order.shippingName,
      description: order.shippingDescription,
      note: order.shippingNote,
      delivery_date: order.shippingDeliveryDate,
    },
    custom: order.custom ?? null,
    order_lines: orderLines,
    suppliers: [...seen.values()],
    created_at: order.createdAt,
    updated_at: order.updatedAt,
  };
}

/** An order in a list: lines without logs. `lines` may hold other orders' lines too. */
export function presentOrderSummaries(orderRows: Order[], lines: LineWithSupplier[]) {
  const byOrder = groupBy(lines, (line) => line.orderId);
  return orderRows.map((order) => {
    const own = byOrder.get(order.id) ?? [];
    return presentOrder(order, own, own.map((line) => presentLine(line)));
  });
}

/** A single order: every line with its logs, oldest first. */
type DetailLine = LineWithSupplier & { pendingCancellation: PendingCancellation | null; supplierInvoice: SupplierInvoice | null };
export function presentOrderDetail({ order, lines, logs }: { order: Order; lines: DetailLine[]; logs: OrderLineLog[] }) {
  const logsByLine = groupBy(logs, (log) => log.orderLineId);
  return presentOrder(
    order,
    lines,
    lines.map((line) => ({
      // supplier_invoice only on an invoiced line: the other lines keep their JSON as it was.
      ...presentLine(line, { cancellation: line.pendingCancellation, ...(line.supplierInvoice ? { supplier_invoice: line.supplierInvoice } : {}) }),
      logs: (logsByLine.get(line.id) ?? []).map(presentLog),
    })),
  );
}

// ---- The list as CSV (GET /api/v1/orders/export, the console's "Export CSV") -----------------------

export const ORDER_CSV_COLUMNS = [
  "reference",
  "external_id",
  "created_at",
  "source",
  "test",
  "blocked",
  "total",
  "currency",
  "email",
  "first_name",
  "last_name",
  "company_name",
  "postcode",
  "city",
  "country",
  "lines",
  "line_statuses",
  "suppliers",
  "state",
  "tracking_numbers",
] as const;

/**
 * One row per order: its total's currency (its own, else the account's: `accountCurrency`), its
 * lines' count, their distinct statuses and suppliers, each joined by "; "; how far it has got in
 * the console's words (orderProgress) and the tracking numbers of all its shipments, oldest first.
 */
export function orderCsvRows(orderRows: Order[], lines: LineWithSupplier[], accountCurrency: string): unknown[][] {
  const byOrder = groupBy(lines, (line) => line.orderId);
  return orderRows.map((o) => {
    const own = byOrder.get(o.id) ?? [];
    return [
      o.reference, o.externalId, o.createdAt, o.source, o.test, o.blocked, o.total, o.currency ?? accountCurrency, o.email, o.firstName, o.lastName, o.companyName,
      o.postcode, o.city, o.country, own.length,
      LINE_STATUSES.filter((s) => own.some((l) => l.currentStatus === s)).join("; "),
      [...new Set(own.map((l) => l.supplierName).filter((n) => n !== null))].join("; "),
      orderProgressWords(orderProgress(own, (l) => ({ channel: l.dispatchChannel }))),
      trackingNumbers(own).join("; "),
    ];
  });
}

/** Every shipment's tracking number, oldest shipment first, each once. */
function trackingNumbers(lines: LineWithSupplier[]): string[] {
  const shipments = lines.flatMap((l) => l.shipments).sort((a, b) => (a.created_at === b.created_at ? a.id - b.id : a.created_at < b.created_at ? -1 : 1));
  return [...new Set(shipments.map((s) => s.tracking_number).filter((t): t is string => t !== null && t !== ""))];
}

/**
 * The export as a stream: the header, then each chunk of orders as the client reads it (the next
 * chunk is read from D1 only when the previous one is taken), so its size has no limit.
 */
export function orderCsvStream(chunks: AsyncGenerator<{ orders: Order[]; lines: LineWithSupplier[] }>, accountCurrency: string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(csvLines([ORDER_CSV_COLUMNS])));
    },
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(csvLines(orderCsvRows(next.value.orders, next.value.lines, accountCurrency))));
      } catch (error) {
        // The answer has begun: the one way left to say it failed is to break the download off.
        console.error("orders export failed", error);
        controller.error(error);
      }
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}
