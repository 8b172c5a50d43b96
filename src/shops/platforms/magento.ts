// Magento 2 (Adobe Commerce) through its REST API, with an integration's access token sent as
// Bearer (docs/shops/magento.md). The plugin sends the order's increment_id as external_id, and per
// line the visible item's product id and SKU (for a configurable product: the configurable's id, or
// with rad-works' module the simple's, and the simple's SKU either way). A shipment is one
// POST /V1/order/{id}/ship listing only what shipped, with one track per tracking number; a note is
// a private order comment. Magento completes an order itself once it is invoiced and shipped.
import { ShopError, type ShopHttp } from "./http";
import type { Check, NoteWrite, OrderRef, ShipmentWrite, ShopConnection, ShopItem, ShopOrder, ShopPlatform, Tracking, WriteOptions, WriteResult } from "./platform";
import type { Credentials, Settings } from "./settings";
import { shippedItems } from "./shipped-items";

type Conn = ShopConnection<Credentials<"magento">, Settings<"magento">>;

type MagentoItem = { item_id: number; product_id: number; sku: string; qty_ordered: number; parent_item_id?: number | null };
type MagentoOrder = { entity_id: number; increment_id: string; items: MagentoItem[]; status_histories?: { entity_id: number; comment: string | null }[] };
type MagentoShipment = { entity_id: number; items?: { order_item_id: number; qty: number }[]; tracks?: { track_number: string }[] };
type SearchResult<T> = { items?: T[]; total_count?: number };

/** Magento's own carriers; any other carrier is "custom", its name the track's title. */
const CARRIER_CODES: Record<string, string> = { ups: "ups", usps: "usps", fedex: "fedex", dhl: "dhl" };

/** The ACL resources the integration needs, and where Magento's admin lists them. */
const ACL = {
  view: "Magento_Sales::actions_view (Sales > Operations > Orders > Actions > View)",
  shipment: "Magento_Sales::shipment (Sales > Operations > Shipments)",
  ship: "Magento_Sales::ship (Sales > Operations > Orders > Actions > Ship)",
  comment: "Magento_Sales::comment (Sales > Operations > Orders > Actions > Comment)",
};

const auth = (conn: Conn) => ({ Authorization: `Bearer ${conn.credentials.access_token}` });

/** A searchCriteria filter `field = value`, as Magento's search endpoints take it. */
function whereEquals(field: string, value: string): string {
  const f = "searchCriteria[filter_groups][0][filters][0]";
  return `${f}[field]=${field}&${f}[value]=${encodeURIComponent(value)}&${f}[condition_type]=eq`;
}

function carrierCode(tracking: Tracking): string {
  return CARRIER_CODES[(tracking.carrier ?? "").trim().toLowerCase()] ?? "custom";
}

function itemsOf(order: MagentoOrder): ShopItem[] {
  // A configurable or bundle product is one visible item with child items; Magento ships the
  // visible item, so each child's product id is matched to its parent.
  const visible = order.items.filter((i) => !i.parent_item_id);
  return visible.map((i) => ({
    id: String(i.item_id),
    productIds: [i.product_id, ...order.items.filter((c) => c.parent_item_id === i.item_id).map((c) => c.product_id)].map(String),
    sku: i.sku ?? null,
    quantity: Number(i.qty_ordered),
  }));
}

type ShipItem = { order_item_id: number; qty: number };

/**
 * The order's shipments that are this one (looking before shipping again): the same items and
 * quantities, and one of its tracking numbers. Both, since one parcel (one number) may carry lines
 * that were shipped to us as two shipments.
 */
async function sameShipments(conn: Conn, http: ShopHttp, shopOrder: ShopOrder, items: ShipItem[], numbers: string[]): Promise<string[]> {
  const res = await http.request({ path: `/rest/V1/shipments?${whereEquals("order_id", shopOrder.id)}`, headers: auth(conn) });
  const shipments = res.json<SearchResult<MagentoShipment>>().items ?? [];
  const key = (list: ShipItem[]) => list.map((i) => `${i.order_item_id}:${Number(i.qty)}`).sort().join(",");
  return shipments
    .filter((s) => key(s.items ?? []) === key(items) && (s.tracks ?? []).some((t) => numbers.includes(t.track_number)))
    .map((s) => String(s.entity_id));
}

/** A write Magento may refuse by ACL: 401 names the missing resource; 400/404 (order 0 exists nowhere) means it is allowed. */
async function allowed(http: ShopHttp, request: Parameters<ShopHttp["request"]>[0]): Promise<boolean> {
  const res = await http.request({ ...request, accept: [400, 401, 404] });
  return res.status !== 401;
}

export const magento: ShopPlatform<Credentials<"magento">, Settings<"magento">> = {
  name: "magento",

  async test(conn, http) {
    const notChecked = (name: string, why: string): Check => ({ name, ok: false, message: `Not checked: ${why}.` });
    let status: number;
    let readable = false;
    try {
      const res = await http.request({ path: "/rest/V1/orders?searchCriteria[pageSize]=1", headers: auth(conn), accept: [401] });
      status = res.status;
      if (status === 200) readable = Array.isArray(res.json<SearchResult<unknown>>().items);
    } catch (error) {
      if (!(error instanceof ShopError)) throw error;
      const hint = error.kind === "not_found" ? " Is base_url the shop's root address, where Magento's REST API answers under /rest/V1?" : "";
      return [
        { name: "reachable", ok: false, message: `${error.message}.${hint}` },
        notChecked("credentials", "the shop did not answer as Magento"),
        notChecked("permissions", "the shop did not answer as Magento"),
      ];
    }
    if (status === 200 && !readable) {
      return [
        { name: "reachable", ok: false, message: "The shop answered GET /rest/V1/orders, but not with Magento's search result: is base_url the shop's root address?" },
        notChecked("credentials", "the shop did not answer as Magento"),
        notChecked("permissions", "the shop did not answer as Magento"),
      ];
    }
    const reachable: Check = { name: "reachable", ok: true, message: "Magento's REST API answers at base_url." };
    if (status === 401) {
      return [
        reachable,
        {
          name: "credentials",
          ok: false,
          message: `Magento refused the access token (401 on GET /rest/V1/orders): the token is wrong, the integration is not active or lacks ${ACL.view}, or the shop takes no integration token as a Bearer token (Stores > Configuration > Services > OAuth > Consumer Settings); Magento answers all of these alike.`,
        },
        notChecked("permissions", "the access token was refused"),
      ];
    }
    const credentials: Check = { name: "credentials", ok: true, message: `The access token is accepted and reads orders (${ACL.view}).` };
    try {
      const missing: string[] = [];
      if (!(await allowed(http, { path: "/rest/V1/shipments?searchCriteria[pageSize]=1", headers: auth(conn) }))) missing.push(ACL.shipment);
      // Order 0 exists in no Magento: these writes can only be refused, by ACL (401) or as invalid.
      if (!(await allowed(http, { method: "POST", path: "/rest/V1/order/0/ship", headers: auth(conn), json: { items: [] }, lookup: true }))) missing.push(ACL.ship);
      const probe = { statusHistory: { comment: "", is_customer_notified: 0, is_visible_on_front: 0, parent_id: 0 } };
      if (!(await allowed(http, { method: "POST", path: "/rest/V1/orders/0/comments", headers: auth(conn), json: probe, lookup: true }))) missing.push(ACL.comment);
      const permissions: Check = missing.length
        ? { name: "permissions", ok: false, message: `The integration lacks ${missing.join("; ")}. Grant it under System > Extensions > Integrations, the integration's API tab, then reactivate the integration.` }
        : { name: "permissions", ok: true, message: "The integration may look up shipments, ship orders and comment on them." };
      return [reachable, credentials, permissions];
    } catch (error) {
      if (!(error instanceof ShopError)) throw error;
      return [reachable, credentials, { name: "permissions", ok: false, message: `${error.message}.` }];
    }
  },

  async findOrder(conn, http, order: OrderRef) {
    const res = await http.request({ path: `/rest/V1/orders?${whereEquals("increment_id", order.externalId)}`, headers: auth(conn) });
    const found = res.json<SearchResult<MagentoOrder>>().items?.[0];
    if (!found) throw new ShopError("not_found", `Magento has no order with increment_id ${order.externalId} (our order ${order.reference})`);
    return { id: String(found.entity_id), number: found.increment_id, items: itemsOf(found), extra: {} };
  },

  async writeShipment(conn, http, shopOrder, write: ShipmentWrite, options: WriteOptions): Promise<WriteResult> {
    const items = shippedItems(shopOrder, write).map(({ item, quantity }) => ({ order_item_id: Number(item.id), qty: quantity }));
    if (options.look) {
      const found = await sameShipments(conn, http, shopOrder, items, write.trackings.map((t) => t.number));
      if (found.length) return { outcome: "found", shopIds: found };
    }
    const body = {
      items,
      notify: conn.settings.notify,
      tracks: write.trackings.map((t) => ({ track_number: t.number, title: t.carrier ?? "Tracking", carrier_code: carrierCode(t) })),
    };
    const res = await http.request({ method: "POST", path: `/rest/V1/order/${shopOrder.id}/ship`, headers: auth(conn), json: body });
    if (res.dryRun) return { outcome: "written", shopIds: [] };
    const id = res.json<unknown>();
    if (typeof id !== "number" && typeof id !== "string") throw new ShopError("unexpected", `POST /rest/V1/order/${shopOrder.id}/ship answered ${res.status} without a shipment id: ${res.text.slice(0, 200)}`, res.status);
    return { outcome: "written", shopIds: [String(id)] };
  },

  async writeNote(conn, http, shopOrder, write: NoteWrite, options: WriteOptions): Promise<WriteResult> {
    if (options.look) {
      const res = await http.request({ path: `/rest/V1/orders/${shopOrder.id}`, headers: auth(conn) });
      const same = (res.json<MagentoOrder>().status_histories ?? []).find((h) => h.comment === write.text);
      if (same) return { outcome: "found", shopIds: [String(same.entity_id)] };
    }
    // Magento answers `true`, not the comment's id: a retry finds the comment by its text.
    const statusHistory = { comment: write.text, is_customer_notified: 0, is_visible_on_front: 0, parent_id: Number(shopOrder.id) };
    await http.request({ method: "POST", path: `/rest/V1/orders/${shopOrder.id}/comments`, headers: auth(conn), json: { statusHistory } });
    return { outcome: "written", shopIds: [] };
  },

  async complete() {
    return { outcome: "skipped", reason: "Magento completes an order itself once it is invoiced and shipped in full; there is no status to set." };
  },
};
