// A stand-in WooCommerce shop (REST API wc/v3, and the Shipment Tracking extension's
// wc-shipment-tracking/v3 when the seed installs it), written from WooCommerce's REST API
// documentation (woocommerce.github.io/woocommerce-rest-api-docs) and its authentication as
// documented there: the stand-in is plain http, so, as WooCommerce over http, it accepts only
// OAuth 1.0a one-legged signatures (HMAC-SHA1 or HMAC-SHA256, from the Authorization header or the
// query string; timestamp within 15 minutes; a nonce never seen before) and ignores HTTP Basic.
//
// Seed (POST /__shops {platform: "woocommerce", seed}):
//   {
//     consumer_key?, consumer_secret?        default: fresh ck_… / cs_…
//     permissions?: "read" | "write" | "read_write"   the key's access (default read_write)
//     extension?: boolean                    Shipment Tracking installed (default true)
//     statuses?: string[]                    extra order statuses a plugin registered (e.g. "shipped")
//     closed_index?: boolean                 the /wp-json/ index refuses anonymous requests, as
//                                            security plugins make it (default false)
//     orders: [{ id, number?, status? (default "processing"),
//                line_items: [{ id, product_id, variation_id?, sku?, name?, quantity }] }]
//     products: [{ id, sku?, global_unique_id?, type? ("simple"; "variable" with variations),
//                  stock_quantity?, manage_stock?, regular_price?, refuse?: "why",
//                  variations?: [{ id, sku?, global_unique_id?, stock_quantity?, manage_stock?, regular_price?, refuse? }] }]
//   }
// Products: GET /products (per_page 1-100, page, sku as a comma-separated list, include) with
// X-WP-Total and X-WP-TotalPages, GET /products/{id}/variations likewise, and the batch endpoints
// POST /products/batch and /products/{id}/variations/batch: at most 100 items in all (413
// otherwise), each update answered inside the 200 by the product or by {id, error} (an unknown id,
// a bad value, or `refuse`: the shop's own refusal, as a plugin hooking the save would give).
// Our order's products[].external_id is what the official plugin sends: the line item's id.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { StandInPlatform, StandInReply, StandInRequest, StandInShop } from "./harness";

export type WooLineItem = { id: number; name: string; product_id: number; variation_id: number; quantity: number; sku: string };
export type WooNote = { id: number; author: string; date_created: string; date_created_gmt: string; note: string; customer_note: boolean };
export type WooTracking = { tracking_id: string; tracking_provider: string; tracking_link: string; tracking_number: string; date_shipped: string };
export type WooOrder = { id: number; number: string; status: string; line_items: WooLineItem[]; notes: WooNote[]; trackings: WooTracking[] };
export type WooVariation = { id: number; sku: string; global_unique_id: string; manage_stock: boolean; stock_quantity: number | null; regular_price: string; refuse?: string };
export type WooProduct = WooVariation & { type: "simple" | "variable"; variations: WooVariation[] };
export type WooState = { permissions: "read" | "write" | "read_write"; extension: boolean; closedIndex: boolean; statuses: string[]; orders: WooOrder[]; products: WooProduct[]; nonces: string[] };

export type WooSeed = {
  consumer_key?: string;
  consumer_secret?: string;
  permissions?: WooState["permissions"];
  extension?: boolean;
  statuses?: string[];
  closed_index?: boolean;
  orders?: { id: number; number?: string; status?: string; line_items: (Partial<WooLineItem> & { id: number; product_id: number; quantity: number })[] }[];
  products?: (Partial<Omit<WooProduct, "variations">> & { id: number; variations?: (Partial<WooVariation> & { id: number })[] })[];
};

const CORE_STATUSES = ["pending", "processing", "on-hold", "completed", "cancelled", "refunded", "failed", "checkout-draft"];
const LABELS: Record<string, string> = { pending: "Pending payment", processing: "Processing", "on-hold": "On hold", completed: "Completed", cancelled: "Cancelled", refunded: "Refunded", failed: "Failed" };

const error = (status: number, code: string, message: string, data: Record<string, unknown> = {}): StandInReply => ({ status, body: { code, message, data: { status, ...data } } });
const noRoute = () => error(404, "rest_no_route", "No route was found matching the URL and request method.");

function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** OAuth parameters from the query and the Authorization header, as WooCommerce gathers them. */
function oauthParams(req: StandInRequest): Record<string, string> {
  const params: Record<string, string> = Object.fromEntries(req.query.entries());
  const header = (req.headers["authorization"] ?? "").trim();
  if (header.startsWith("OAuth ")) {
    for (const m of header.matchAll(/(oauth_[a-z_-]*)=(:?"([^"]*)"|([^,]*))/g)) params[m[1]] = decodeURIComponent((m[3] || m[4] || "").replace(/\+/g, " "));
  }
  return params;
}

type Auth = { ok: true } | { ok: false; reply: StandInReply | null };

/**
 * WooCommerce's check over http: no oauth_* parameter at all is an anonymous request (refused later
 * by the endpoint's own permission check); otherwise every required parameter, a known key, a
 * matching signature, a fresh timestamp and an unused nonce, then the key's read/write permission.
 */
function authenticate(shop: StandInShop<WooState>, req: StandInRequest): Auth {
  const params = oauthParams(req);
  const required = ["oauth_consumer_key", "oauth_timestamp", "oauth_nonce", "oauth_signature", "oauth_signature_method"];
  const missing = required.filter((p) => !params[p]);
  if (missing.length === required.length) return { ok: false, reply: null };
  if (missing.length) return { ok: false, reply: error(401, "woocommerce_rest_authentication_missing_parameter", `Missing OAuth parameter${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`) };
  if (params.oauth_consumer_key !== shop.credentials.consumer_key) return { ok: false, reply: error(401, "woocommerce_rest_authentication_error", "Consumer key is invalid.") };
  const given = params.oauth_signature.replace(/ /g, "+");
  const rest = Object.entries(params).filter(([k]) => k !== "oauth_signature");
  rest.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const url = `http://${req.headers["host"]}/s/${shop.id}${req.path}`;
  const base = `${req.method.toUpperCase()}&${rfc3986(url)}&${rest.map(([k, v]) => rfc3986(`${rfc3986(k)}=${rfc3986(v)}`)).join("%26")}`;
  const method = params.oauth_signature_method;
  if (method !== "HMAC-SHA1" && method !== "HMAC-SHA256") return { ok: false, reply: error(401, "woocommerce_rest_authentication_error", "Invalid signature - signature method is invalid.") };
  const expected = createHmac(method === "HMAC-SHA1" ? "sha1" : "sha256", `${shop.credentials.consumer_secret}&`)
    .update(base)
    .digest("base64");
  if (expected.length !== given.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(given))) {
    return { ok: false, reply: error(401, "woocommerce_rest_authentication_error", "Invalid signature - provided signature does not match.") };
  }
  const timestamp = Number(params.oauth_timestamp);
  const now = Date.now() / 1000;
  if (!(timestamp >= now - 900 && timestamp <= now + 900)) return { ok: false, reply: error(401, "woocommerce_rest_authentication_error", "Invalid timestamp.") };
  if (shop.state.nonces.includes(params.oauth_nonce)) return { ok: false, reply: error(401, "woocommerce_rest_authentication_error", "Invalid nonce - nonce has already been used.") };
  shop.state.nonces.push(params.oauth_nonce);
  const permissions = shop.state.permissions;
  if ((req.method === "GET" || req.method === "HEAD") && permissions === "write") return { ok: false, reply: error(401, "woocommerce_rest_authentication_error", "The API key provided does not have read permissions.") };
  if (["POST", "PUT", "PATCH", "DELETE"].includes(req.method) && permissions === "read") return { ok: false, reply: error(401, "woocommerce_rest_authentication_error", "The API key provided does not have write permissions.") };
  return { ok: true };
}

function dates() {
  const now = new Date().toISOString().slice(0, 19);
  return { date_created: now, date_created_gmt: now };
}

function parseBody(req: StandInRequest): Record<string, unknown> | null {
  if (!req.body) return {};
  try {
    const body = JSON.parse(req.body) as unknown;
    return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function orderJson(order: WooOrder) {
  return {
    id: order.id,
    parent_id: 0,
    number: order.number,
    status: order.status,
    currency: "EUR",
    ...dates(),
    line_items: order.line_items.map((i) => ({ ...i, tax_class: "", subtotal: "0.00", total: "0.00", meta_data: [] })),
  };
}

/** The anonymous refusal each endpoint's permission check gives (WooCommerce's own codes and words). */
function anonymous(route: "order" | "orders" | "notes" | "trackings", method: string): StandInReply {
  if (method === "GET") return error(401, "woocommerce_rest_cannot_view", route === "orders" ? "Sorry, you cannot list resources." : "Sorry, you cannot view this resource.");
  if (method === "POST" && route !== "order") return error(401, "woocommerce_rest_cannot_create", "Sorry, you are not allowed to create resources.");
  return error(401, "woocommerce_rest_cannot_edit", "Sorry, you are not allowed to edit this resource.");
}

function index(shop: StandInShop<WooState>, req: StandInRequest): StandInReply {
  if (shop.state.closedIndex) return error(401, "rest_login_required", "REST API restricted to authenticated users.");
  const home = `http://${req.headers["host"]}/s/${shop.id}`;
  const namespaces = ["oembed/1.0", "wc/v1", "wc/v2", "wc/v3", "wc/store/v1", "wp/v2", ...(shop.state.extension ? ["wc-shipment-tracking/v3"] : [])];
  return { status: 200, body: { name: "Stand-in shop", description: "Just another WordPress site", url: home, home, gmt_offset: "0", timezone_string: "", namespaces, authentication: [], routes: {} } };
}

function handle(shop: StandInShop<WooState>, req: StandInRequest): StandInReply {
  if (req.path === "/wp-json" || req.path === "/wp-json/") return req.method === "GET" ? index(shop, req) : noRoute();
  const ours = req.path.startsWith("/wp-json/wc/") || req.path.startsWith("/wp-json/wc-");
  if (!ours) return noRoute();
  // WooCommerce authenticates (and checks the key's read/write permission) before routing.
  const auth = authenticate(shop, req);
  if (!auth.ok && auth.reply) return auth.reply;
  const signedIn = auth.ok;
  const state = shop.state;
  const find = (id: string) => state.orders.find((o) => String(o.id) === id);
  let m: RegExpMatchArray | null;

  if (req.path === "/wp-json/wc/v3/orders") {
    if (req.method !== "GET") return noRoute();
    if (!signedIn) return anonymous("orders", req.method);
    const perPage = Math.min(100, Math.max(1, Number(req.query.get("per_page") ?? 10) || 10));
    return { status: 200, body: state.orders.slice(0, perPage).map(orderJson), headers: { "x-wp-total": String(state.orders.length), "x-wp-totalpages": String(Math.ceil(state.orders.length / perPage)) } };
  }

  if ((m = req.path.match(/^\/wp-json\/wc\/v3\/orders\/(\d+)$/))) {
    if (!["GET", "PUT", "POST", "PATCH"].includes(req.method)) return noRoute();
    const body = req.method === "GET" ? {} : parseBody(req);
    if (body === null) return error(400, "rest_invalid_json", "Invalid JSON body passed.");
    const statuses = [...CORE_STATUSES, ...state.statuses];
    if (body.status !== undefined && (typeof body.status !== "string" || !statuses.includes(body.status))) {
      return error(400, "rest_invalid_param", "Invalid parameter(s): status", { params: { status: `status is not one of ${statuses.join(", ")}.` } });
    }
    if (!signedIn) return anonymous("order", req.method);
    const order = find(m[1]);
    if (!order) return error(404, "woocommerce_rest_shop_order_invalid_id", "Invalid ID.");
    if (req.method !== "GET" && typeof body.status === "string" && body.status !== order.status) {
      // WooCommerce notes every status change on the order, as the system: WC_Order::status_transition
      // ("Order status changed from %1$s to %2$s.", wc_get_order_status_name's labels); no transition
      // table, any registered status is taken from any other (includes/class-wc-order.php).
      const label = (s: string) => LABELS[s] ?? s;
      order.notes.unshift({ id: nextNoteId(state), author: "system", ...dates(), note: `Order status changed from ${label(order.status)} to ${label(body.status)}.`, customer_note: false });
      order.status = body.status;
    }
    return { status: 200, body: orderJson(order) };
  }

  if ((m = req.path.match(/^\/wp-json\/wc\/v3\/orders\/(\d+)\/notes$/))) {
    if (req.method === "GET") {
      if (!signedIn) return anonymous("notes", "GET");
      const order = find(m[1]);
      if (!order) return error(404, "woocommerce_rest_order_invalid_id", "Invalid order ID.");
      const type = req.query.get("type") ?? "any";
      if (!["any", "customer", "internal"].includes(type)) return error(400, "rest_invalid_param", "Invalid parameter(s): type", { params: { type: "type is not one of any, customer, and internal." } });
      const notes = order.notes.filter((n) => type === "any" || (type === "customer") === n.customer_note);
      return { status: 200, body: notes };
    }
    if (req.method !== "POST") return noRoute();
    const body = parseBody(req);
    if (body === null) return error(400, "rest_invalid_json", "Invalid JSON body passed.");
    if (body.note === undefined) return error(400, "rest_missing_callback_param", "Missing parameter(s): note", { params: ["note"] });
    if (typeof body.note !== "string") return error(400, "rest_invalid_param", "Invalid parameter(s): note", { params: { note: "note is not of type string." } });
    if (body.customer_note !== undefined && typeof body.customer_note !== "boolean") return error(400, "rest_invalid_param", "Invalid parameter(s): customer_note", { params: { customer_note: "customer_note is not of type boolean." } });
    if (!signedIn) return anonymous("notes", "POST");
    const order = find(m[1]);
    if (!order) return error(404, "woocommerce_rest_order_invalid_id", "Invalid order ID.");
    if (body.note === "") return error(400, "woocommerce_rest_shop_order_note_invalid", "Cannot create order note, please try again.");
    // A note not added_by_user is written as "WooCommerce", which wc_get_order_note answers as
    // added_by "system" (includes/wc-order-functions.php), the REST answer's author.
    const note: WooNote = { id: nextNoteId(state), author: body.added_by_user ? "admin" : "system", ...dates(), note: body.note, customer_note: body.customer_note === true };
    order.notes.unshift(note);
    return { status: 201, body: note };
  }

  if (req.path.startsWith("/wp-json/wc/v3/products")) return products(state, req, signedIn);

  if (req.path.startsWith("/wp-json/wc-shipment-tracking/v3/")) {
    if (!state.extension) return noRoute();
    if ((m = req.path.match(/^\/wp-json\/wc-shipment-tracking\/v3\/orders\/(\d+)\/shipment-trackings\/providers$/))) {
      if (req.method !== "GET") return noRoute();
      if (!signedIn) return anonymous("trackings", "GET");
      return { status: 200, body: PROVIDERS };
    }
    if (!(m = req.path.match(/^\/wp-json\/wc-shipment-tracking\/v3\/orders\/(\d+)\/shipment-trackings$/))) return noRoute();
    if (req.method === "GET") {
      if (!signedIn) return anonymous("trackings", "GET");
      const order = find(m[1]);
      if (!order) return error(404, "woocommerce_rest_order_invalid_id", "Invalid order ID.");
      return { status: 200, body: order.trackings };
    }
    if (req.method !== "POST") return noRoute();
    const body = parseBody(req);
    if (body === null) return error(400, "rest_invalid_json", "Invalid JSON body passed.");
    if (body.tracking_number === undefined) return error(400, "rest_missing_callback_param", "Missing parameter(s): tracking_number", { params: ["tracking_number"] });
    for (const field of ["tracking_number", "tracking_provider", "custom_tracking_provider", "custom_tracking_link", "date_shipped"]) {
      if (body[field] !== undefined && typeof body[field] !== "string") return error(400, "rest_invalid_param", `Invalid parameter(s): ${field}`, { params: { [field]: `${field} is not of type string.` } });
    }
    if (!signedIn) return anonymous("trackings", "POST");
    const order = find(m[1]);
    if (!order) return error(404, "woocommerce_rest_order_invalid_id", "Invalid order ID.");
    const provider = String(body.tracking_provider ?? "");
    const known = Object.values(PROVIDERS)
      .flatMap((byName) => Object.entries(byName))
      .find(([name]) => name.toLowerCase() === provider.toLowerCase());
    const number = String(body.tracking_number);
    const tracking: WooTracking = {
      tracking_id: randomBytes(16).toString("hex"),
      tracking_provider: known ? known[0] : String(body.custom_tracking_provider ?? provider),
      tracking_link: known ? known[1].replace("%1$s", encodeURIComponent(number)) : String(body.custom_tracking_link ?? ""),
      tracking_number: number,
      date_shipped: String(body.date_shipped ?? new Date().toISOString().slice(0, 10)),
    };
    order.trackings.push(tracking);
    return { status: 201, body: tracking };
  }
  return noRoute();
}

// ---- Products ----------------------------------------------------------------------------------

const BATCH_LIMIT = 100;

function productJson(p: WooVariation, type: string, parent: WooProduct | null) {
  const { refuse: _refuse, ...fields } = p;
  return {
    ...fields,
    type,
    ...(parent ? { parent_id: parent.id } : { variations: (p as WooProduct).variations?.map((v) => v.id) ?? [] }),
    stock_status: p.manage_stock ? ((p.stock_quantity ?? 0) > 0 ? "instock" : "outofstock") : "instock",
    price: p.regular_price,
  };
}

/** A listing with WooCommerce's paging (per_page 1-100, page) and its X-WP-Total / X-WP-TotalPages headers. */
function listing<T>(req: StandInRequest, all: T[], json: (item: T) => unknown): StandInReply {
  const raw = req.query.get("per_page") ?? "10";
  const perPage = Number(raw);
  if (!/^\d+$/.test(raw) || perPage < 1 || perPage > 100) return error(400, "rest_invalid_param", "Invalid parameter(s): per_page", { params: { per_page: "per_page must be between 1 (inclusive) and 100 (inclusive)" } });
  const page = Math.max(1, Number(req.query.get("page") ?? 1) || 1);
  return {
    status: 200,
    body: all.slice((page - 1) * perPage, page * perPage).map(json),
    headers: { "x-wp-total": String(all.length), "x-wp-totalpages": String(Math.ceil(all.length / perPage)) },
  };
}

function filtered<T extends WooVariation>(req: StandInRequest, list: T[]): T[] {
  // As WooCommerce's prepare_objects_query (WC_REST_Products_V2_Controller; multiple SKUs since
  // woocommerce/woocommerce#12851, undocumented on purpose: woocommerce-rest-api-docs#179): the value
  // split at commas with nothing trimmed, and the whole value as one SKU too, so a SKU holding a
  // comma is still found when asked for alone.
  const raw = req.query.get("sku");
  const parts = raw ? raw.split(",") : undefined;
  const skus = parts && parts.length > 1 ? [...parts, raw!] : parts;
  const include = req.query.get("include")?.split(",").map(Number);
  return list.filter((p) => (!skus || skus.includes(p.sku)) && (!include || include.includes(p.id)));
}

/** One update of a batch: the product (variation) changed, or {id, error} as WooCommerce answers an item it refuses. */
function applyUpdate(list: WooVariation[], raw: unknown, type: string, parent: WooProduct | null) {
  const item = (typeof raw === "object" && raw ? raw : {}) as Record<string, unknown>;
  const id = Number(item.id ?? 0);
  const target = list.find((p) => p.id === id);
  const itemError = (code: string, message: string, status = 400) => ({ id, error: { code, message, data: { status } } });
  if (!target) return itemError(parent ? "woocommerce_rest_product_variation_invalid_id" : "woocommerce_rest_product_invalid_id", "Invalid ID.");
  if (item.stock_quantity !== undefined && (typeof item.stock_quantity !== "number" || !Number.isInteger(item.stock_quantity))) {
    return itemError("rest_invalid_param", "Invalid parameter(s): stock_quantity");
  }
  if (item.regular_price !== undefined && (typeof item.regular_price !== "string" || !/^(\d+(\.\d+)?)?$/.test(item.regular_price))) {
    return itemError("rest_invalid_param", "Invalid parameter(s): regular_price");
  }
  if (target.refuse) return itemError("woocommerce_rest_product_not_updated", target.refuse);
  if (typeof item.manage_stock === "boolean") target.manage_stock = item.manage_stock;
  if (typeof item.stock_quantity === "number") target.stock_quantity = item.stock_quantity;
  if (typeof item.regular_price === "string") target.regular_price = item.regular_price;
  return productJson(target, type, parent);
}

function batch(req: StandInRequest, list: WooVariation[], type: (p: WooVariation) => string, parent: WooProduct | null): StandInReply {
  const body = parseBody(req);
  if (body === null) return error(400, "rest_invalid_json", "Invalid JSON body passed.");
  const parts = ["create", "update", "delete"] as const;
  const items = parts.reduce((n, k) => n + (Array.isArray(body[k]) ? (body[k] as unknown[]).length : 0), 0);
  if (items > BATCH_LIMIT) return error(413, "rest_request_entity_too_large", `Unable to accept more than ${BATCH_LIMIT} items for this request.`);
  const out: Record<string, unknown[]> = {};
  if (Array.isArray(body.update)) out.update = body.update.map((u) => applyUpdate(list, u, type(list.find((p) => p.id === Number((u as { id?: unknown })?.id)) ?? list[0]), parent));
  return { status: 200, body: out };
}

function products(state: WooState, req: StandInRequest, signedIn: boolean): StandInReply {
  let m: RegExpMatchArray | null;
  const typeOf = (p: WooVariation) => (p as WooProduct).type ?? "simple";
  if (req.path === "/wp-json/wc/v3/products") {
    if (req.method !== "GET") return noRoute();
    if (!signedIn) return error(401, "woocommerce_rest_cannot_view", "Sorry, you cannot list resources.");
    return listing(req, filtered(req, state.products), (p) => productJson(p, p.type, null));
  }
  if (req.path === "/wp-json/wc/v3/products/batch") {
    if (req.method !== "POST" && req.method !== "PUT" && req.method !== "PATCH") return noRoute();
    if (!signedIn) return error(401, "woocommerce_rest_cannot_batch", "Sorry, you are not allowed to batch manipulate this resource.");
    return batch(req, state.products, typeOf, null);
  }
  if ((m = req.path.match(/^\/wp-json\/wc\/v3\/products\/(\d+)\/variations(\/batch)?$/))) {
    const parent = state.products.find((p) => p.id === Number(m![1]));
    if (!signedIn) return error(401, "woocommerce_rest_cannot_view", "Sorry, you cannot list resources.");
    if (!parent) return error(404, "woocommerce_rest_product_invalid_id", "Invalid ID.");
    if (m[2]) {
      if (req.method !== "POST" && req.method !== "PUT" && req.method !== "PATCH") return noRoute();
      return batch(req, parent.variations, () => "variation", parent);
    }
    if (req.method !== "GET") return noRoute();
    return listing(req, filtered(req, parent.variations), (v) => productJson(v, "variation", parent));
  }
  return noRoute();
}

function nextNoteId(state: WooState): number {
  return 1 + Math.max(100, ...state.orders.flatMap((o) => o.notes.map((n) => n.id)));
}

/** A few of the extension's predefined providers, by country, with their link templates. */
const PROVIDERS: Record<string, Record<string, string>> = {
  Germany: { DHL: "https://www.dhl.de/en/privatkunden/pakete-empfangen/verfolgen.html?piececode=%1$s", DPD: "https://tracking.dpd.de/parcelstatus?query=%1$s", Hermes: "https://www.myhermes.de/empfangen/sendungsverfolgung/sendungsinformation/#%1$s" },
  Netherlands: { PostNL: "https://postnl.nl/tracktrace/?B=%1$s" },
  "United States": { UPS: "https://www.ups.com/track?tracknum=%1$s", USPS: "https://tools.usps.com/go/TrackConfirmAction_input?qtc_tLabels1=%1$s" },
};

export const woocommerceStandIn: StandInPlatform<WooState> = {
  name: "woocommerce",
  create(input) {
    const seed = (input ?? {}) as WooSeed;
    const credentials = {
      consumer_key: seed.consumer_key ?? `ck_${randomBytes(20).toString("hex")}`,
      consumer_secret: seed.consumer_secret ?? `cs_${randomBytes(20).toString("hex")}`,
    };
    const orders: WooOrder[] = (seed.orders ?? []).map((o) => ({
      id: o.id,
      number: o.number ?? String(o.id),
      status: o.status ?? "processing",
      line_items: o.line_items.map((i) => ({ id: i.id, name: i.name ?? `Product ${i.product_id}`, product_id: i.product_id, variation_id: i.variation_id ?? 0, quantity: i.quantity, sku: i.sku ?? "" })),
      notes: [],
      trackings: [],
    }));
    const variation = (v: Partial<WooVariation> & { id: number }): WooVariation => ({
      id: v.id,
      sku: v.sku ?? "",
      global_unique_id: v.global_unique_id ?? "",
      manage_stock: v.manage_stock ?? false,
      stock_quantity: v.stock_quantity ?? null,
      regular_price: v.regular_price ?? "",
      ...(v.refuse && { refuse: v.refuse }),
    });
    const products: WooProduct[] = (seed.products ?? []).map((p) => ({
      ...variation(p),
      type: p.type ?? (p.variations?.length ? "variable" : "simple"),
      variations: (p.variations ?? []).map(variation),
    }));
    return { credentials, state: { permissions: seed.permissions ?? "read_write", extension: seed.extension ?? true, closedIndex: seed.closed_index ?? false, statuses: seed.statuses ?? [], orders, products, nonces: [] } };
  },
  handle,
};
