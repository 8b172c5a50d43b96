// A stand-in Magento 2 REST API, written from Adobe's REST reference and its "create a shipment"
// tutorial: an integration's token as Bearer, checked against the integration's ACL resources the
// way Magento's webapi.xml routes name them (a wrong token and a missing resource both answer 401
// "The consumer isn't authorized to access %resources."); orders searched by searchCriteria; a
// shipment per POST /V1/order/{id}/ship with its tracks, refusing more than is left to ship;
// shipments searched by order_id; order comments; POST /V1/orders/{id}/hold and /unhold as
// Magento's OrderManagementInterface has them (ACL Magento_Sales::hold and ::unhold; the order's
// state and status kept to go back to; "A hold action is not available." for an order Magento has
// finished with or that is held, "You cannot remove the hold." for one that is not), and no shipment
// of an order on hold (Order::canShip). Errors in Magento's shape {message, parameters}.
// Stock and prices: products searched by searchCriteria (eq and in, filter groups ANDed, pageSize at
// most 300 as Magento 2.4.7's default maximum, a page past the last answering the last page again),
// with custom_attributes, but, as a real Magento's list, without extension_attributes.stock_item
// (only GET /V1/products/{sku} carries it); MSI source items (GET with searchCriteria, POST
// /V1/inventory/source-items saving all or refusing the request); legacy stock items read per SKU
// (GET /V1/stockItems/{sku}) and written per SKU (PUT /V1/products/{sku}/stockItems/{itemId}, the
// item id in the path not used to find it, as Magento's StockRegistry::updateStockItemBySku looks the
// item up by the SKU's product); POST /V1/products/base-prices answering 200 with the
// list of prices it refused; DELETE /V1/products/{sku} (a shop owner deleting a product; MSI keeps
// its source items, which are not tied to the product).
import { randomBytes } from "node:crypto";
import type { StandInPlatform, StandInReply, StandInRequest } from "./harness";

export type MagentoSeedItem = { item_id: number; product_id: number; sku: string; name?: string; qty_ordered: number; parent_item_id?: number; product_type?: string };
export type MagentoSeed = {
  /** `state`: "processing" unless given (its status the same). */
  orders?: { entity_id: number; increment_id: string; invoiced?: boolean; state?: string; items: MagentoSeedItem[] }[];
  /** The catalogue: simple products, each with a legacy stock item (qty) and, with MSI, a "default" source item. */
  products?: { id: number; sku: string; price?: number; qty?: number; ean?: string }[];
  /** Source codes that exist (MSI); ["default"] unless given. */
  sources?: string[];
  /** The integration's ACL resources; every one the routes below need by default. */
  acl?: string[];
};

export type MagentoItem = Omit<MagentoSeedItem, "parent_item_id"> & { name: string; product_type: string; qty_shipped: number; parent_item_id: number | null };
export type MagentoHistory = { entity_id: number; parent_id: number; comment: string; is_customer_notified: number; is_visible_on_front: number; status: string; entity_name: "order" };
export type MagentoOrder = {
  entity_id: number;
  increment_id: string;
  state: string;
  status: string;
  invoiced: boolean;
  items: MagentoItem[];
  status_histories: MagentoHistory[];
  /** While held: what unhold goes back to (Magento's hold_before_state and hold_before_status). */
  hold_before_state: string | null;
  hold_before_status: string | null;
};
export type MagentoTrack = { entity_id: number; parent_id: number; order_id: number; track_number: string; title: string; carrier_code: string };
export type MagentoShipment = {
  entity_id: number;
  increment_id: string;
  order_id: number;
  email_sent: number | null;
  items: { entity_id: number; parent_id: number; order_item_id: number; product_id: number; sku: string; qty: number }[];
  tracks: MagentoTrack[];
};
export type MagentoProduct = { id: number; sku: string; price: number; qty: number; item_id: number; ean: string | null };
export type MagentoSourceItem = { sku: string; source_code: string; quantity: number; status: number };
export type MagentoState = { token: string; acl: string[]; orders: MagentoOrder[]; shipments: MagentoShipment[]; nextId: number; products: MagentoProduct[]; sources: string[]; sourceItems: MagentoSourceItem[] };

const ALL_ACL = [
  "Magento_Catalog::products",
  "Magento_InventoryApi::source",
  "Magento_CatalogInventory::cataloginventory",
  "Magento_Sales::actions_view",
  "Magento_Sales::shipment",
  "Magento_Sales::ship",
  "Magento_Sales::comment",
  "Magento_Sales::hold",
  "Magento_Sales::unhold",
];
/** Order::canHold: not in these states. */
const NOT_HOLDABLE = ["canceled", "complete", "closed", "payment_review", "holded"];
const NO_ENTITY = "The entity that was requested doesn't exist. Verify the entity and try again.";
const NO_PRODUCT = "The product that was requested doesn't exist. Verify the product and try again.";
// StockRegistry::resolveProductId's NoSuchEntityException, which GET /V1/stockItems/{sku} and the
// stock item PUT answer for an unknown SKU (404, the SKU as the one parameter).
const NO_SKU = 'The Product with the "%1" SKU doesn\'t exist.';

const error = (status: number, message: string, parameters?: unknown): StandInReply => ({ status, body: parameters ? { message, parameters } : { message } });
const refused = (resource: string) => error(401, "The consumer isn't authorized to access %resources.", { resources: resource });
const invalidShipment = (...why: string[]) => error(400, `Shipment Document Validation Error(s):\n${why.join("\n")}`);

/** The filters of a searchCriteria query: eq and in, each group ANDed (one filter per group is all we are asked). */
function filters(query: URLSearchParams): [string, string, string[]][] {
  const out: [string, string, string[]][] = [];
  for (let g = 0; query.has(`searchCriteria[filter_groups][${g}][filters][0][field]`); g++) {
    for (let i = 0; query.has(`searchCriteria[filter_groups][${g}][filters][${i}][field]`); i++) {
      const f = `searchCriteria[filter_groups][${g}][filters][${i}]`;
      const condition = query.get(`${f}[condition_type]`) ?? "eq";
      if (condition !== "eq" && condition !== "in") throw new Error(`stand-in: condition ${condition} not supported`);
      const value = query.get(`${f}[value]`) ?? "";
      out.push([query.get(`${f}[field]`)!, condition, condition === "in" ? value.split(",") : [value]]);
    }
  }
  return out;
}

const MAX_PAGE_SIZE = 300;

function search<T extends Record<string, unknown>>(rows: T[], query: URLSearchParams, fieldOf: (row: T, field: string) => unknown = (r, f) => r[f]): StandInReply {
  const where = filters(query);
  const matching = rows.filter((r) => where.every(([k, , values]) => values.includes(String(fieldOf(r, k)))));
  const pageSize = Number(query.get("searchCriteria[pageSize]") ?? 0);
  if (pageSize > MAX_PAGE_SIZE) return error(400, "Maximum SearchCriteria pageSize is %max", { max: MAX_PAGE_SIZE });
  // A page past the last answers the last page again, as Magento's collections do.
  const pages = pageSize ? Math.max(1, Math.ceil(matching.length / pageSize)) : 1;
  const page = Math.min(Number(query.get("searchCriteria[currentPage]") ?? 1), pages);
  const items = pageSize ? matching.slice((page - 1) * pageSize, page * pageSize) : matching;
  return { status: 200, body: { items, search_criteria: { filter_groups: [] }, total_count: matching.length } };
}

function ship(state: MagentoState, order: MagentoOrder, body: { items?: { order_item_id: number; qty: number }[]; notify?: boolean; tracks?: Partial<MagentoTrack>[] }): StandInReply {
  // Order::canShip is false for an order on hold (canUnhold) or in payment review.
  if (order.state === "holded" || order.state === "payment_review") return invalidShipment("The order does not allow a shipment to be created.");
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
      state: o.state ?? "processing",
      status: o.state ?? "processing",
      invoiced: o.invoiced ?? true,
      items: o.items.map((i) => ({ name: i.sku, product_type: "simple", ...i, parent_item_id: i.parent_item_id ?? null, qty_shipped: 0 })),
      status_histories: [],
      hold_before_state: null,
      hold_before_status: null,
    }));
    const products = (seed.products ?? []).map((p, n) => ({ price: 0, qty: 0, ean: null, ...p, item_id: 5000 + n }));
    const sources = seed.sources ?? ["default"];
    const sourceItems = sources.includes("default") ? products.map((p) => ({ sku: p.sku, source_code: "default", quantity: p.qty, status: p.qty > 0 ? 1 : 0 })) : [];
    return { credentials: { access_token: token }, state: { token, acl: seed.acl ?? ALL_ACL, orders, shipments: [], nextId: 1000, products, sources, sourceItems } };
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
      return search(state.orders as unknown as Record<string, unknown>[], req.query);
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
    if ((m = route("POST", /^\/rest\/V1\/orders\/(\d+)\/(hold|unhold)$/))) {
      const action = m[2] as "hold" | "unhold";
      const resource = action === "hold" ? "Magento_Sales::hold" : "Magento_Sales::unhold";
      if (!authorized(resource)) return refused(resource);
      const order = orderById(m[1]!);
      if (!order) return error(404, NO_ENTITY);
      if (action === "hold") {
        if (NOT_HOLDABLE.includes(order.state)) return error(400, "A hold action is not available.");
        Object.assign(order, { hold_before_state: order.state, hold_before_status: order.status, state: "holded", status: "holded" });
      } else {
        if (order.state !== "holded") return error(400, "You cannot remove the hold.");
        Object.assign(order, { state: order.hold_before_state, status: order.hold_before_status, hold_before_state: null, hold_before_status: null });
      }
      return { status: 200, body: true };
    }
    if ((m = route("GET", /^\/rest\/V1\/shipments$/))) {
      if (!authorized("Magento_Sales::shipment")) return refused("Magento_Sales::shipment");
      return search(state.shipments as unknown as Record<string, unknown>[], req.query);
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
    return stock(state, req, authorized) ?? error(404, "Request does not match any route.");
  },
};

/** A legacy stock item (cataloginventory_stock_item) as GET /V1/stockItems/{sku} answers it. */
function stockItemJson(p: MagentoProduct) {
  return {
    item_id: p.item_id,
    product_id: p.id,
    stock_id: 1,
    qty: p.qty,
    is_in_stock: p.qty > 0,
    is_qty_decimal: false,
    show_default_notification_message: false,
    use_config_min_qty: true,
    min_qty: 0,
    use_config_min_sale_qty: 1,
    min_sale_qty: 1,
    use_config_max_sale_qty: true,
    max_sale_qty: 10000,
    use_config_backorders: true,
    backorders: 0,
    use_config_notify_stock_qty: true,
    notify_stock_qty: 1,
    use_config_manage_stock: true,
    manage_stock: true,
    low_stock_date: null,
    is_decimal_divided: false,
    stock_status_changed_auto: 0,
  };
}

/**
 * A product as Magento answers it. The list (GET /V1/products?searchCriteria…) carries no
 * extension_attributes.stock_item: only GET /V1/products/{sku} adds it (magento/magento2#36533,
 * confirmed; #24418, #8700). The list's extension_attributes hold the website ids.
 */
function productJson(p: MagentoProduct, single = false) {
  return {
    id: p.id,
    sku: p.sku,
    type_id: "simple",
    price: p.price,
    custom_attributes: p.ean ? [{ attribute_code: "ean", value: p.ean }] : [],
    extension_attributes: single ? { website_ids: [1], stock_item: stockItemJson(p) } : { website_ids: [1] },
  };
}

/** The catalogue's routes: products, source items, stock items, base prices. */
function stock(state: MagentoState, req: StandInRequest, authorized: (resource: string) => boolean): StandInReply | null {
  const body = () => JSON.parse(req.body || "{}");
  let m: RegExpMatchArray | null;
  if (req.method === "GET" && req.path === "/rest/V1/products") {
    if (!authorized("Magento_Catalog::products")) return refused("Magento_Catalog::products");
    const fieldOf = (p: MagentoProduct, f: string) => (f === "ean" ? p.ean : (p as unknown as Record<string, unknown>)[f]);
    const reply = search(state.products as unknown as Record<string, unknown>[], req.query, fieldOf as never);
    if (reply.status !== 200) return reply;
    const b = reply.body as { items: MagentoProduct[] };
    return { status: 200, body: { ...b, items: b.items.map((p) => productJson(p)) } };
  }
  if (req.method === "GET" && (m = req.path.match(/^\/rest\/V1\/products\/([^/]+)$/))) {
    if (!authorized("Magento_Catalog::products")) return refused("Magento_Catalog::products");
    const product = state.products.find((p) => p.sku === decodeURIComponent(m![1]!));
    return product ? { status: 200, body: productJson(product, true) } : error(404, NO_PRODUCT);
  }
  if (req.method === "GET" && (m = req.path.match(/^\/rest\/V1\/stockItems\/([^/]+)$/))) {
    if (!authorized("Magento_CatalogInventory::cataloginventory")) return refused("Magento_CatalogInventory::cataloginventory");
    const sku = decodeURIComponent(m[1]!);
    const product = state.products.find((p) => p.sku === sku);
    return product ? { status: 200, body: stockItemJson(product) } : error(404, NO_SKU, [sku]);
  }
  if (req.method === "GET" && req.path === "/rest/V1/inventory/source-items") {
    if (!authorized("Magento_InventoryApi::source")) return refused("Magento_InventoryApi::source");
    return search(state.sourceItems as unknown as Record<string, unknown>[], req.query);
  }
  if (req.method === "POST" && req.path === "/rest/V1/inventory/source-items") {
    if (!authorized("Magento_InventoryApi::source")) return refused("Magento_InventoryApi::source");
    const items = body().sourceItems as Partial<MagentoSourceItem>[] | undefined;
    if (!Array.isArray(items) || items.length === 0) return error(400, '"%fieldName" is required. Enter and try again.', { fieldName: "sourceItems" });
    const errors: { message: string; parameters: unknown[] }[] = [];
    for (const i of items) {
      if (!i.sku) errors.push({ message: '"%field" can not be empty.', parameters: ["sku"] });
      if (!i.source_code || !state.sources.includes(i.source_code)) errors.push({ message: 'Source with code "%code" does not exist.', parameters: [String(i.source_code)] });
      if (typeof i.quantity !== "number" || !Number.isFinite(i.quantity)) errors.push({ message: '"%field" should be numeric.', parameters: ["quantity"] });
    }
    if (errors.length) return { status: 400, body: { message: "Validation Failed", errors } };
    for (const i of items as MagentoSourceItem[]) {
      const there = state.sourceItems.find((s) => s.sku === i.sku && s.source_code === i.source_code);
      if (there) Object.assign(there, { quantity: i.quantity, status: i.status });
      else state.sourceItems.push({ sku: i.sku, source_code: i.source_code, quantity: i.quantity, status: i.status });
    }
    return { status: 200, body: [] };
  }
  if (req.method === "DELETE" && (m = req.path.match(/^\/rest\/V1\/products\/([^/]+)$/))) {
    if (!authorized("Magento_Catalog::products")) return refused("Magento_Catalog::products");
    const at = state.products.findIndex((p) => p.sku === decodeURIComponent(m![1]!));
    if (at < 0) return error(404, NO_PRODUCT);
    state.products.splice(at, 1);
    return { status: 200, body: true };
  }
  if (req.method === "PUT" && (m = req.path.match(/^\/rest\/V1\/products\/([^/]+)\/stockItems\/(\d+)$/))) {
    if (!authorized("Magento_CatalogInventory::cataloginventory")) return refused("Magento_CatalogInventory::cataloginventory");
    const sku = decodeURIComponent(m[1]!);
    const product = state.products.find((p) => p.sku === sku);
    if (!product) return error(404, NO_SKU, [sku]);
    const item = body().stockItem as { qty?: unknown } | undefined;
    if (!item || typeof item.qty !== "number") return error(400, '"%fieldName" is required. Enter and try again.', { fieldName: "stockItem" });
    product.qty = item.qty;
    return { status: 200, body: product.item_id };
  }
  if (req.method === "POST" && req.path === "/rest/V1/products/base-prices") {
    if (!authorized("Magento_Catalog::products")) return refused("Magento_Catalog::products");
    const prices = body().prices as { sku?: string; price?: number; store_id?: number }[] | undefined;
    if (!Array.isArray(prices)) return error(400, '"%fieldName" is required. Enter and try again.', { fieldName: "prices" });
    const refusedList: { message: string; parameters: Record<string, string> }[] = [];
    for (const p of prices) {
      const product = state.products.find((x) => x.sku === p.sku);
      if (!product) refusedList.push({ message: "Requested product doesn't exist. SKU: %SKU.", parameters: { SKU: String(p.sku) } });
      else if (typeof p.price !== "number" || p.price < 0) refusedList.push({ message: "Invalid attribute Price = %price. Row ID: SKU = %SKU, Store ID: %storeId.", parameters: { price: String(p.price), SKU: String(p.sku), storeId: String(p.store_id) } });
      else product.price = p.price;
    }
    return { status: 200, body: refusedList };
  }
  return null;
}
