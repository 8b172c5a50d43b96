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
//     orders: [{ id, number?, status? (default "processing"),
//                line_items: [{ id, product_id, variation_id?, sku?, name?, quantity }] }]
//   }
// Our order's products[].external_id is what the official plugin sends: the line item's id.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { StandInPlatform, StandInReply, StandInRequest, StandInShop } from "./harness";

export type WooLineItem = { id: number; name: string; product_id: number; variation_id: number; quantity: number; sku: string };
export type WooNote = { id: number; author: string; date_created: string; date_created_gmt: string; note: string; customer_note: boolean };
export type WooTracking = { tracking_id: string; tracking_provider: string; tracking_link: string; tracking_number: string; date_shipped: string };
export type WooOrder = { id: number; number: string; status: string; line_items: WooLineItem[]; notes: WooNote[]; trackings: WooTracking[] };
export type WooState = { permissions: "read" | "write" | "read_write"; extension: boolean; statuses: string[]; orders: WooOrder[]; nonces: string[] };

export type WooSeed = {
  consumer_key?: string;
  consumer_secret?: string;
  permissions?: WooState["permissions"];
  extension?: boolean;
  statuses?: string[];
  orders?: { id: number; number?: string; status?: string; line_items: (Partial<WooLineItem> & { id: number; product_id: number; quantity: number })[] }[];
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
      // WooCommerce notes every status change on the order, as the system.
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
    const note: WooNote = { id: nextNoteId(state), author: body.added_by_user ? "admin" : "WooCommerce", ...dates(), note: body.note, customer_note: body.customer_note === true };
    order.notes.unshift(note);
    return { status: 201, body: note };
  }

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
    return { credentials, state: { permissions: seed.permissions ?? "read_write", extension: seed.extension ?? true, statuses: seed.statuses ?? [], orders, nonces: [] } };
  },
  handle,
};
