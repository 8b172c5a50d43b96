// A stand-in Magento 2 REST API, written from Adobe's REST reference and its "create a shipment"
// tutorial: an integration's token as Bearer, checked against the integration's ACL resources the
// way Magento's webapi.xml routes name them (a wrong token and a missing resource both answer 401
// "The consumer isn't authorized to access %resources."); orders searched by searchCriteria; a
// shipment per POST /V1/order/{id}/ship with its tracks, refusing more than is left to ship;
// shipments searched by order_id; order comments. Errors in Magento's shape {message, parameters}.
import { randomBytes } from "node:crypto";
import type { StandInPlatform, StandInReply, StandInRequest } from "./harness";

export type MagentoSeedItem = { item_id: number; product_id: number; sku: string; name?: string; qty_ordered: number; parent_item_id?: number; product_type?: string };
export type MagentoSeed = {
  orders?: { entity_id: number; increment_id: string; invoiced?: boolean; items: MagentoSeedItem[] }[];
  /** The integration's ACL resources; every one the routes below need by default. */
  acl?: string[];
};

export type MagentoItem = Omit<MagentoSeedItem, "parent_item_id"> & { name: string; product_type: string; qty_shipped: number; parent_item_id: number | null };
export type MagentoHistory = { entity_id: number; parent_id: number; comment: string; is_customer_notified: number; is_visible_on_front: number; status: string; entity_name: "order" };
export type MagentoOrder = { entity_id: number; increment_id: string; state: string; status: string; invoiced: boolean; items: MagentoItem[]; status_histories: MagentoHistory[] };
export type MagentoTrack = { entity_id: number; parent_id: number; order_id: number; track_number: string; title: string; carrier_code: string };
export type MagentoShipment = {
  entity_id: number;
  increment_id: string;
  order_id: number;
  email_sent: number | null;
  items: { entity_id: number; parent_id: number; order_item_id: number; product_id: number; sku: string; qty: number }[];
  tracks: MagentoTrack[];
};
export type MagentoState = { token: string; acl: string[]; orders: MagentoOrder[]; shipments: MagentoShipment[]; nextId: number };

const ALL_ACL = ["Magento_Sales::actions_view", "Magento_Sales::shipment", "Magento_Sales::ship", "Magento_Sales::comment"];
const NO_ENTITY = "The entity that was requested doesn't exist. Verify the entity and try again.";

const error = (status: number, message: string, parameters?: unknown): StandInReply => ({ status, body: parameters ? { message, parameters } : { message } });
const refused = (resource: string) => error(401, "The consumer isn't authorized to access %resources.", { resources: resource });
const invalidShipment = (...why: string[]) => error(400, `Shipment Document Validation Error(s):\n${why.join("\n")}`);

/** The `field = value` filters of a searchCriteria query (one filter group is all we are asked). */
function filters(query: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; query.has(`searchCriteria[filter_groups][0][filters][${i}][field]`); i++) {
    const f = `searchCriteria[filter_groups][0][filters][${i}]`;
    const condition = query.get(`${f}[condition_type]`) ?? "eq";
    if (condition !== "eq") throw new Error(`stand-in: condition ${condition} not supported`);
    out[query.get(`${f}[field]`)!] = query.get(`${f}[value]`) ?? "";
  }
  return out;
}

function search<T extends Record<string, unknown>>(rows: T[], query: URLSearchParams): unknown {
  const where = filters(query);
  const matching = rows.filter((r) => Object.entries(where).every(([k, v]) => String(r[k]) === v));
  const pageSize = Number(query.get("searchCriteria[pageSize]") ?? 0);
  return { items: pageSize ? matching.slice(0, pageSize) : matching, search_criteria: { filter_groups: [] }, total_count: matching.length };
}

function ship(state: MagentoState, order: MagentoOrder, body: { items?: { order_item_id: number; qty: number }[]; notify?: boolean; tracks?: Partial<MagentoTrack>[] }): StandInReply {
  const visible = order.items.filter((i) => i.parent_item_id === null);
  const requested = body.items?.length ? body.items : visible.map((i) => ({ order_item_id: i.item_id, qty: i.qty_ordered - i.qty_shipped }));
  const lines: { item: MagentoItem; qty: number }[] = [];
  for (const r of requested) {
    const item = visible.find((i) => i.item_id === r.order_item_id);
    if (!item) return invalidShipment("You can't create a shipment without products.");
    if (!(r.qty > 0) || r.qty > item.qty_ordered - item.qty_shipped) return invalidShipment("The order does not allow a shipment to be created.");
    lines.push({ item, qty: r.qty });
  }
  if (!lines.length) return invalidShipment("The order does not allow a shipment to be created.", "You can't create a shipment without products.");
  for (const t of body.tracks ?? []) {
    if (!t.track_number) return invalidShipment("Please enter a tracking number.");
    if (!t.carrier_code) return invalidShipment("Please enter a carrier code.");
  }
  const id = state.nextId++;
  for (const l of lines) l.item.qty_shipped += l.qty;
  const shipment: MagentoShipment = {
    entity_id: id,
    increment_id: String(id).padStart(9, "0"),
    order_id: order.entity_id,
    email_sent: body.notify ? 1 : null,
    items: lines.map((l) => ({ entity_id: state.nextId++, parent_id: id, order_item_id: l.item.item_id, product_id: l.item.product_id, sku: l.item.sku, qty: l.qty })),
    tracks: (body.tracks ?? []).map((t) => ({ entity_id: state.nextId++, parent_id: id, order_id: order.entity_id, track_number: t.track_number!, title: t.title ?? "", carrier_code: t.carrier_code! })),
  };
  state.shipments.push(shipment);
  const all = visible.every((i) => i.qty_shipped >= i.qty_ordered);
  if (all && order.invoiced) order.state = order.status = "complete";
  return { status: 200, body: id };
}

export const magentoStandIn: StandInPlatform<MagentoState> = {
  name: "magento",
  create(raw) {
    const seed = raw as MagentoSeed;
    const token = randomBytes(16).toString("hex");
    const orders: MagentoOrder[] = (seed.orders ?? []).map((o) => ({
      entity_id: o.entity_id,
      increment_id: o.increment_id,
      state: "processing",
      status: "processing",
      invoiced: o.invoiced ?? true,
      items: o.items.map((i) => ({ name: i.sku, product_type: "simple", ...i, parent_item_id: i.parent_item_id ?? null, qty_shipped: 0 })),
      status_histories: [],
    }));
    return { credentials: { access_token: token }, state: { token, acl: seed.acl ?? ALL_ACL, orders, shipments: [], nextId: 1000 } };
  },

  handle(shop, req: StandInRequest) {
    const state = shop.state;
    const route = (method: string, pattern: RegExp) => (req.method === method ? req.path.match(pattern) : null);
    const authorized = (resource: string) => req.headers.authorization === `Bearer ${state.token}` && state.acl.includes(resource);
    const orderById = (id: string) => state.orders.find((o) => o.entity_id === Number(id));
    const body = () => JSON.parse(req.body || "{}");

    // Magento reads a body by its Content-Type, and refuses one it cannot read.
    const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim();
    if (req.method === "POST" && type !== "application/json") return error(400, "Server cannot understand Content-Type HTTP header media type %1", [type]);

    let m: RegExpMatchArray | null;
    if ((m = route("GET", /^\/rest\/V1\/orders$/))) {
      if (!authorized("Magento_Sales::actions_view")) return refused("Magento_Sales::actions_view");
      return { status: 200, body: search(state.orders as unknown as Record<string, unknown>[], req.query) };
    }
    if ((m = route("GET", /^\/rest\/V1\/orders\/(\d+)$/))) {
      if (!authorized("Magento_Sales::actions_view")) return refused("Magento_Sales::actions_view");
      const order = orderById(m[1]!);
      return order ? { status: 200, body: order } : error(404, NO_ENTITY);
    }
    if ((m = route("POST", /^\/rest\/V1\/order\/(\d+)\/ship$/))) {
      if (!authorized("Magento_Sales::ship")) return refused("Magento_Sales::ship");
      if (Number(m[1]) === 0) return error(400, "An ID is needed. Set the ID and try again.");
      const order = orderById(m[1]!);
      return order ? ship(state, order, body()) : error(404, NO_ENTITY);
    }
    if ((m = route("GET", /^\/rest\/V1\/shipments$/))) {
      if (!authorized("Magento_Sales::shipment")) return refused("Magento_Sales::shipment");
      return { status: 200, body: search(state.shipments as unknown as Record<string, unknown>[], req.query) };
    }
    if ((m = route("POST", /^\/rest\/V1\/orders\/(\d+)\/comments$/))) {
      if (!authorized("Magento_Sales::comment")) return refused("Magento_Sales::comment");
      if (Number(m[1]) === 0) return error(400, "An ID is needed. Set the ID and try again.");
      const order = orderById(m[1]!);
      if (!order) return error(404, NO_ENTITY);
      const h = body().statusHistory as Partial<MagentoHistory> | undefined;
      if (!h || typeof h.comment !== "string") return error(400, '"%fieldName" is required. Enter and try again.', { fieldName: "statusHistory" });
      // Magento lists an order's comments newest first.
      order.status_histories.unshift({
        entity_id: state.nextId++,
        parent_id: order.entity_id,
        comment: h.comment,
        is_customer_notified: Number(h.is_customer_notified ?? 0),
        is_visible_on_front: Number(h.is_visible_on_front ?? 0),
        status: order.status,
        entity_name: "order",
      });
      return { status: 200, body: true };
    }
    return error(404, "Request does not match any route.");
  },
};
