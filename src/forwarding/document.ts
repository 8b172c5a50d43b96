// What a supplier receives: one document per (order, supplier) with that supplier's lines,
// as JSON (webhook, pull), as CSV rows (pull, e-mail attachment) and as plain text (e-mail).
import type { Dispatch, Order, OrderLine, Supplier } from "../db/schema";
import { shippingAddressOf } from "../orders/orders.service";
import { csvCell } from "../lib/csv";

/** A dispatch as its supplier sees it: with its order and the lines it carries. */
export type SupplierDispatch = { dispatch: Dispatch; order: Order; lines: OrderLine[] };

export type DispatchDocument = ReturnType<typeof buildDocument>;

/** A dispatch as the supplier lists it (the pull API, the supplier portal): its document and its status. */
export function presentSupplierDispatch({ dispatch, order, lines }: SupplierDispatch, supplier: Pick<Supplier, "id" | "name">) {
  return { ...buildDocument(dispatch, order, supplier, lines), status: dispatch.status };
}

export function buildDocument(dispatch: Dispatch, order: Order, supplier: Pick<Supplier, "id" | "name">, lines: OrderLine[]) {
  return {
    id: dispatch.idempotencyKey,
    type: "order.dispatch" as const,
    dispatch_id: dispatch.id,
    created_at: dispatch.createdAt,
    test: order.test,
    supplier: { id: supplier.id, name: supplier.name },
    order: {
      reference: order.reference,
      external_id: order.externalId,
      source: order.source,
      created_at: order.createdAt,
      email: order.email,
      shipping: {
        name: order.shippingName,
        description: order.shippingDescription,
        note: order.shippingNote,
        delivery_date: order.shippingDeliveryDate,
      },
      shipping_address: shippingAddressOf(order),
    },
    lines: lines.map((l) => ({
      id: l.id,
      external_id: l.externalId,
      name: l.name,
      ean13: l.ean13,
      reference: l.reference,
      quantity: l.quantity,
      purchase_price: l.purchasePrice,
      brand: l.brand,
      // The shop's own units (PrestaShop: its dimension and weight units), as it sent them.
      height: l.height,
      width: l.width,
      length: l.length,
      weight: l.weight,
    })),
  };
}

export const CSV_COLUMNS = [
  "dispatch_id",
  "order_reference",
  "order_external_id",
  "line_id",
  "line_external_id",
  "sku",
  "ean13",
  "name",
  "quantity",
  "purchase_price",
  "height",
  "width",
  "length",
  "weight",
  "ship_to_name",
  "ship_to_company",
  "ship_to_address1",
  "ship_to_address2",
  "ship_to_postcode",
  "ship_to_city",
  "ship_to_state",
  "ship_to_country",
  "ship_to_phone",
  "delivery_date",
  "note",
] as const;

export function csvRows(doc: DispatchDocument): string[][] {
  const a = doc.order.shipping_address;
  return doc.lines.map((l) => [
    String(doc.dispatch_id),
    doc.order.reference,
    doc.order.external_id,
    String(l.id),
    l.external_id,
    l.reference ?? "",
    l.ean13 ?? "",
    l.name,
    String(l.quantity),
    l.purchase_price === null ? "" : String(l.purchase_price),
    ...[l.height, l.width, l.length, l.weight].map((v) => (v === null ? "" : String(v))),
    `${a.first_name} ${a.last_name}`,
    a.company_name ?? "",
    a.address1,
    a.address2 ?? "",
    a.postcode,
    a.city,
    a.state ?? "",
    a.country,
    a.phone ?? "",
    doc.order.shipping.delivery_date ?? "",
    doc.order.shipping.note ?? "",
  ]);
}

export function toCsv(rows: string[][]): string {
  return [CSV_COLUMNS.join(","), ...rows.map((r) => r.map(csvCell).join(","))].join("\r\n") + "\r\n";
}

/** ", size 10 x 20 x 30, weight 1.5" (height x width x length), or nothing when the shop sent none. */
function sizeText(l: DispatchDocument["lines"][number]): string {
  const dims = [l.height, l.width, l.length];
  const size = dims.some((v) => v !== null) ? `, size ${dims.map((v) => v ?? "-").join(" x ")} (h x w x l)` : "";
  return `${size}${l.weight !== null ? `, weight ${l.weight}` : ""}`;
}

export function emailText(doc: DispatchDocument): string {
  const a = doc.order.shipping_address;
  const lines = doc.lines.map(
    (l) => `  ${l.quantity} x ${l.name}  (SKU ${l.reference ?? "-"}, EAN ${l.ean13 ?? "-"}${l.purchase_price !== null ? `, price ${l.purchase_price}` : ""}${sizeText(l)})`,
  );
  return [
    `New order ${doc.order.reference} (shop order ${doc.order.external_id}) for ${doc.supplier.name}.`,
    "",
    "Please deliver:",
    ...lines,
    "",
    "Ship to:",
    `  ${a.first_name} ${a.last_name}`,
    ...(a.company_name ? [`  ${a.company_name}`] : []),
    `  ${a.address1}`,
    ...(a.address2 ? [`  ${a.address2}`] : []),
    `  ${a.postcode} ${a.city}${a.state ? `, ${a.state}` : ""}`,
    `  ${a.country}`,
    ...(a.phone ? [`  Phone: ${a.phone}`] : []),
    ...(doc.order.shipping.delivery_date ? ["", `Delivery date: ${doc.order.shipping.delivery_date}`] : []),
    ...(doc.order.shipping.note ? [`Note: ${doc.order.shipping.note}`] : []),
    "",
    `Reference for your answer: dispatch ${doc.dispatch_id} (${doc.id}). The lines are attached as CSV.`,
  ].join("\n");
}
