// A shipment into Shopify as fulfillments (shopify.dev/docs/api/admin-graphql/latest/mutations/fulfillmentCreate):
// the order's fulfillment orders are read and exactly the shipped quantities taken from their line
// items (lineItemsByFulfillmentOrder), with trackingInfo and notifyCustomer. A partial shipment
// fulfills what shipped; the rest stays open for the next.
//
// Several tracking numbers are several fulfillments, one per number (issue 33; Shopify shows the
// customer one parcel per fulfillment). Which units travel in which parcel is not known to us, so the
// quantities are split as evenly as the numbers allow, the larger parts first, and never more in all
// than shipped: 3 units and 2 numbers are 2 + 1; a number left without a unit of its own (2 numbers,
// 1 unit) travels on the last fulfillment that has one (trackingInfo.numbers). docs/shops/shopify.md.
import { ShopError, type ShopHttp } from "../http";
import type { ShipmentWrite, ShopItem, ShopOrder, Tracking, WriteOptions, WriteResult } from "../platform";
import { shippedItems } from "../shipped-items";
import { gql, refusedBy, type ShopifyConn, type UserError } from "./client";

type FoLineJson = { id: string; remainingQuantity: number; lineItem: { id: string } };
export type FoJson = { id: string; status: string; fulfillmentHolds: { id: string; handle: string | null }[]; lineItems: { nodes: FoLineJson[] } };
type FulfillmentJson = { id: string; trackingInfo: { number: string | null }[] };

// Each query stays well under Shopify's 1,000-point ceiling for one query (shopify.dev/docs/api/usage/limits).
const FULFILLMENT_ORDERS_QUERY = `query FulfillmentOrders($id: ID!) {
  order(id: $id) {
    fulfillmentOrders(first: 5) { nodes { id status fulfillmentHolds { id handle } lineItems(first: 100) { nodes { id remainingQuantity lineItem { id } } } } }
  }
}`;
const FULFILLMENTS_QUERY = `query Fulfillments($id: ID!) { order(id: $id) { fulfillments(first: 50) { id trackingInfo(first: 10) { number } } } }`;
const FULFILLMENT_CREATE = `mutation FulfillmentCreate($fulfillment: FulfillmentInput!) {
  fulfillmentCreate(fulfillment: $fulfillment) { fulfillment { id } userErrors { field message } }
}`;

export async function fulfillmentOrders(conn: ShopifyConn, http: ShopHttp, shopOrder: ShopOrder): Promise<FoJson[]> {
  const { data } = await gql<{ order: { fulfillmentOrders: { nodes: FoJson[] } } | null }>(conn, http, FULFILLMENT_ORDERS_QUERY, { id: shopOrder.id });
  if (!data.order) throw new ShopError("not_found", `Shopify order ${shopOrder.number} is no longer in the shop`);
  return data.order.fulfillmentOrders.nodes;
}

async function fulfillments(conn: ShopifyConn, http: ShopHttp, shopOrder: ShopOrder): Promise<FulfillmentJson[]> {
  const { data } = await gql<{ order: { fulfillments: FulfillmentJson[] } | null }>(conn, http, FULFILLMENTS_QUERY, { id: shopOrder.id });
  if (!data.order) throw new ShopError("not_found", `Shopify order ${shopOrder.number} is no longer in the shop`);
  return data.order.fulfillments;
}

type Items = { item: ShopItem; quantity: number }[];
/** One fulfillment to make: its tracking numbers and the units it carries. */
export type Parcel = { trackings: Tracking[]; items: Items };

/** The shipment split over its tracking numbers (see the top of this file); one parcel without tracking. */
export function parcels(items: Items, trackings: Tracking[]): Parcel[] {
  if (trackings.length <= 1) return [{ trackings, items }];
  const parts: Parcel[] = trackings.map((t) => ({ trackings: [t], items: [] }));
  for (const { item, quantity } of items) {
    const base = Math.floor(quantity / parts.length);
    const extra = quantity % parts.length;
    parts.forEach((p, i) => {
      const q = base + (i < extra ? 1 : 0);
      if (q > 0) p.items.push({ item, quantity: q });
    });
  }
  const out: Parcel[] = [];
  for (const p of parts) {
    if (p.items.length > 0 || out.length === 0) out.push(p);
    else out[out.length - 1].trackings.push(...p.trackings);
  }
  return out;
}

const open = (fo: FoJson) => fo.status === "OPEN" || fo.status === "IN_PROGRESS";

/** Refuses, in words and before anything is written, a shipment of more than the order has left to fulfill. */
function checkLeft(fos: FoJson[], parcelsToMake: Parcel[], orderName: string) {
  const wanted = new Map<string, { item: ShopItem; quantity: number }>();
  for (const { item, quantity } of parcelsToMake.flatMap((p) => p.items)) wanted.set(item.id, { item, quantity: (wanted.get(item.id)?.quantity ?? 0) + quantity });
  for (const { item, quantity } of wanted.values()) {
    const left = fos.filter(open).flatMap((f) => f.lineItems.nodes).filter((l) => l.lineItem.id === item.id).reduce((sum, l) => sum + Math.max(0, l.remainingQuantity), 0);
    if (left >= quantity) continue;
    const held = fos.some((f) => f.status === "ON_HOLD") ? " (a fulfillment order of it is on hold: release the hold in Shopify, then try again)" : "";
    throw new ShopError("invalid", `Shopify order ${orderName} has ${left} of ${item.sku ?? item.id} left to fulfill, not ${quantity}${held}: nothing was written`);
  }
}

/** The fulfillment order line items carrying `quantity` of the shop's line item, taken off what is left (checkLeft first). */
function allocate(fos: FoJson[], item: ShopItem, quantity: number): { foId: string; lineId: string; quantity: number }[] {
  const out: { foId: string; lineId: string; quantity: number }[] = [];
  let left = quantity;
  for (const fo of fos.filter(open)) {
    for (const line of fo.lineItems.nodes) {
      if (left === 0 || line.lineItem.id !== item.id || line.remainingQuantity <= 0) continue;
      const take = Math.min(left, line.remainingQuantity);
      out.push({ foId: fo.id, lineId: line.id, quantity: take });
      line.remainingQuantity -= take;
      left -= take;
    }
  }
  return out;
}

function trackingInfo(trackings: Tracking[]) {
  const [first] = trackings;
  if (!first) return undefined;
  if (trackings.length === 1) return { company: first.carrier ?? undefined, number: first.number, url: first.url ?? undefined };
  return { company: first.carrier ?? undefined, numbers: trackings.map((t) => t.number), ...(trackings.every((t) => t.url) ? { urls: trackings.map((t) => t.url) } : {}) };
}

export async function writeShopifyShipment(conn: ShopifyConn, http: ShopHttp, shopOrder: ShopOrder, write: ShipmentWrite, options: WriteOptions): Promise<WriteResult> {
  const all = parcels(shippedItems(shopOrder, write), write.trackings);
  let todo = all;
  const found: string[] = [];
  // After an unclear outcome, a fulfillment carrying our tracking number is the one we made. With
  // several fulfillments, always look: a clear failure of a later one leaves the earlier ones made.
  if ((options.look || all.length > 1) && write.trackings.length > 0) {
    const existing = (await fulfillments(conn, http, shopOrder)).filter((f) => !options.taken?.includes(f.id));
    todo = all.filter((p) => {
      const match = existing.find((f) => !found.includes(f.id) && f.trackingInfo.some((t) => t.number && p.trackings.some((x) => x.number === t.number)));
      if (match) found.push(match.id);
      return !match;
    });
    if (todo.length === 0) return { outcome: "found", shopIds: found };
  }
  // Every fulfillment's lines taken before the first is made: a total past what is left writes nothing.
  const fos = await fulfillmentOrders(conn, http, shopOrder);
  checkLeft(fos, todo, shopOrder.number);
  const plans = todo.map((p) => {
    const byFo = new Map<string, { id: string; quantity: number }[]>();
    for (const { item, quantity } of p.items) {
      for (const a of allocate(fos, item, quantity)) byFo.set(a.foId, [...(byFo.get(a.foId) ?? []), { id: a.lineId, quantity: a.quantity }]);
    }
    const info = trackingInfo(p.trackings);
    return {
      lineItemsByFulfillmentOrder: [...byFo].map(([fulfillmentOrderId, lines]) => ({ fulfillmentOrderId, fulfillmentOrderLineItems: lines })),
      notifyCustomer: conn.settings.notify_customer,
      ...(info ? { trackingInfo: info } : {}),
    };
  });
  const made: string[] = [];
  for (const fulfillment of plans) {
    const { data, dryRun } = await gql<{ fulfillmentCreate: { fulfillment: { id: string } | null; userErrors: UserError[] } }>(conn, http, FULFILLMENT_CREATE, { fulfillment }, { mutation: true });
    if (dryRun) continue;
    const refusal = refusedBy(`the fulfillment of order ${shopOrder.number}`, data.fulfillmentCreate.userErrors);
    if (refusal || !data.fulfillmentCreate.fulfillment) throw refusal ?? new ShopError("unexpected", "fulfillmentCreate answered without a fulfillment");
    made.push(data.fulfillmentCreate.fulfillment.id);
  }
  return { outcome: "written", shopIds: [...found, ...made] };
}
