// WooCommerce, through its REST API (wc/v3) and, when installed, the Shipment Tracking extension's
// (wc-shipment-tracking/v3). docs/shops/woocommerce.md says what is written and how to set it up.
//
// What the official plugin (dropday-io/WooCommerce) sends us, and so what we look up here: the
// order's external_id is the WooCommerce order id; each product's external_id is the order's line
// item id (line_items[].id, not the product or variation id), and its reference the product's SKU
// (the variation's, for a variation). So an item is matched by its line item id, else by its SKU.
//
// Authentication is WooCommerce's own: over https, HTTP Basic with the consumer key and secret;
// over plain http WooCommerce refuses Basic and wants OAuth 1.0a "one-legged" signatures, sent
// here in the Authorization header (supported since WooCommerce 3.0) so that no credential ever
// appears in a URL, nor in the call records ShopHttp keeps.
import { ShopError, type ShopHttp, type ShopRequest, type ShopResponse } from "./http";
import type { Check, NoteWrite, OrderRef, ShipmentWrite, ShopConnection, ShopOrder, ShopPlatform, WriteResult } from "./platform";
import type { Credentials, Settings } from "./settings";

type Conn = ShopConnection<Credentials<"woocommerce">, Settings<"woocommerce">>;

const WC = "/wp-json/wc/v3";
const TRACKING = "/wp-json/wc-shipment-tracking/v3";
const TRACKING_NAMESPACE = "wc-shipment-tracking/v3";

// ---------------------------------------------------------------------------------------------
// Authentication

/** RFC 3986 percent-encoding, as OAuth 1.0a (and PHP's rawurlencode) has it. */
function percent(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function nonce(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => alphabet[b % alphabet.length]).join("");
}

function base64(bytes: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)));
}

/**
 * The Authorization header for one request: Basic over https; over http an OAuth 1.0a signature
 * (HMAC-SHA256) of the method, the URL without its query, and the query and oauth_* parameters
 * sorted, keyed with the consumer secret and "&" (no token), fresh nonce and timestamp each time
 * (WooCommerce refuses a nonce it has seen and a timestamp more than 15 minutes off).
 */
export async function authorization(method: string, url: string, credentials: Credentials<"woocommerce">, now = Date.now()): Promise<string> {
  const parsed = new URL(url);
  if (parsed.protocol === "https:") return `Basic ${btoa(`${credentials.consumer_key}:${credentials.consumer_secret}`)}`;
  const oauth: Record<string, string> = {
    oauth_consumer_key: credentials.consumer_key,
    oauth_nonce: nonce(),
    oauth_signature_method: "HMAC-SHA256",
    oauth_timestamp: String(Math.floor(now / 1000)),
  };
  const params: [string, string][] = [...parsed.searchParams.entries(), ...Object.entries(oauth)].map(([k, v]) => [percent(k), percent(v)]);
  params.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  const base = [method.toUpperCase(), percent(`${parsed.origin}${parsed.pathname}`), percent(params.map(([k, v]) => `${k}=${v}`).join("&"))].join("&");
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(`${credentials.consumer_secret}&`), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const signature = base64(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(base)));
  const header = { ...oauth, oauth_signature: signature };
  return `OAuth ${Object.entries(header)
    .map(([k, v]) => `${k}="${percent(v)}"`)
    .join(", ")}`;
}

/** Every call to the shop's own API, signed. The /wp-json/ index is public and goes unsigned. */
async function call(conn: Conn, http: ShopHttp, req: ShopRequest): Promise<ShopResponse> {
  const method = req.method ?? "GET";
  const auth = await authorization(method, conn.baseUrl + req.path, conn.credentials);
  return http.request({ ...req, headers: { ...req.headers, Authorization: auth } });
}

/** WooCommerce's error body: {"code", "message", "data": {"status"}}. */
type WpError = { code?: string; message?: string };

function wpError(res: ShopResponse): WpError {
  try {
    const body = JSON.parse(res.text) as WpError;
    return typeof body === "object" && body ? body : {};
  } catch {
    return {};
  }
}

// ---------------------------------------------------------------------------------------------
// The shop's shapes (only the fields we read)

type WcLineItem = { id: number; name: string; product_id: number; variation_id: number; quantity: number; sku: string | null };
type WcOrder = { id: number; number: string; status: string; line_items: WcLineItem[] };
type WcNote = { id: number; note: string; customer_note: boolean };
type WcTracking = { tracking_id: string; tracking_number: string; tracking_provider: string; tracking_link: string };

function orderId(order: ShopOrder | OrderRef): string {
  return "externalId" in order ? order.externalId : order.id;
}

// ---------------------------------------------------------------------------------------------
// What is written

/** The customer note that carries a shipment when there is no tracking extension. */
export function shipmentNoteText(write: ShipmentWrite): string {
  const shipped = write.lines.map(({ line, quantity }) => `${quantity} × ${line.name}`).join(", ");
  const lines = [`${write.orderShippedInFull ? "Your order has shipped" : "Part of your order has shipped"}: ${shipped}.`];
  for (const t of write.trackings) lines.push(`Tracking: ${[t.carrier, t.number].filter(Boolean).join(" ")}${t.url ? ` ${t.url}` : ""}`);
  return lines.join("\n");
}

/** Notes compared the way the shop may have kept them: tags, entities and spacing aside. */
function sameNote(a: string, b: string): boolean {
  const norm = (s: string) =>
    s
      .replace(/<[^>]*>/g, " ")
      .replace(/&amp;/g, "&")
      .replace(/&#215;|&times;/g, "×")
      .replace(/\s+/g, " ")
      .trim();
  return norm(a) === norm(b);
}

/** The created resource's id from a 201, or none in a dry run (the write was recorded, not sent). */
function createdId(res: ShopResponse, field: "id" | "tracking_id"): string[] {
  if (res.dryRun) return [];
  const id = res.json<Record<string, unknown>>()[field];
  if (id === undefined || id === null) throw new ShopError("unexpected", `The shop answered ${res.status} without the ${field} of what it created: ${res.text.slice(0, 200)}`, res.status);
  return [String(id)];
}

/**
 * A note on the order: private (customer_note false) or shown to and e-mailed to the customer.
 * After an unclear attempt, the order's notes of that kind are read first: the same text there
 * means the earlier attempt wrote it.
 */
async function addNote(conn: Conn, http: ShopHttp, id: string, text: string, customer: boolean, look: boolean): Promise<WriteResult> {
  if (look) {
    const res = await call(conn, http, { path: `${WC}/orders/${id}/notes?type=${customer ? "customer" : "internal"}` });
    const existing = res.json<WcNote[]>().find((n) => sameNote(n.note, text));
    if (existing) return { outcome: "found", shopIds: [String(existing.id)] };
  }
  const res = await call(conn, http, { method: "POST", path: `${WC}/orders/${id}/notes`, json: { note: text, customer_note: customer } });
  return { outcome: "written", shopIds: createdId(res, "id") };
}

/** The order's trackings, or null when the Shipment Tracking extension is not installed (no such route). */
async function trackingsOf(conn: Conn, http: ShopHttp, id: string): Promise<WcTracking[] | null> {
  const res = await call(conn, http, { path: `${TRACKING}/orders/${id}/shipment-trackings`, accept: [404] });
  if (res.status === 404) {
    const error = wpError(res);
    if (error.code === "rest_no_route") return null;
    throw new ShopError("not_found", `The shop has no order ${id} (404 on GET ${TRACKING}/orders/${id}/shipment-trackings): ${res.text.slice(0, 300)}`, 404);
  }
  return res.json<WcTracking[]>();
}

async function writeShipment(conn: Conn, http: ShopHttp, shopOrder: ShopOrder, write: ShipmentWrite, options: { look: boolean }): Promise<WriteResult> {
  const id = shopOrder.id;
  const mode = conn.settings.tracking;
  // The extension's list is read in "auto" to learn whether it is installed, and after an unclear
  // attempt to find what that attempt created; a tracking number already on the order is never added again.
  const existing = mode === "note" || (mode === "extension" && !options.look) ? [] : await trackingsOf(conn, http, id);
  if (existing === null) {
    if (mode === "extension") throw new ShopError("not_found", `The Shipment Tracking extension is not installed in the shop (settings.tracking is "extension"): ${TRACKING} has no route for order trackings`, 404);
    return addNote(conn, http, id, shipmentNoteText(write), true, options.look);
  }
  if (mode === "note") return addNote(conn, http, id, shipmentNoteText(write), true, options.look);

  const shopIds: string[] = [];
  let created = 0;
  for (const t of write.trackings) {
    const there = existing.find((e) => e.tracking_number === t.number);
    if (there) {
      shopIds.push(there.tracking_id);
      continue;
    }
    // A custom provider carries our carrier's name and its exact tracking URL; the extension's
    // predefined providers would build their own link from the number, ignoring ours.
    const body: Record<string, string> = { tracking_number: t.number, date_shipped: new Date().toISOString().slice(0, 10) };
    if (t.carrier) body.custom_tracking_provider = t.carrier;
    if (t.url) body.custom_tracking_link = t.url;
    const res = await call(conn, http, { method: "POST", path: `${TRACKING}/orders/${id}/shipment-trackings`, json: body });
    shopIds.push(...createdId(res, "tracking_id"));
    created++;
  }
  return { outcome: created > 0 ? "written" : "found", shopIds };
}

// ---------------------------------------------------------------------------------------------
// The connection test

const notChecked = (name: string, why: string): Check => ({ name, ok: false, message: `Not checked: ${why}.` });

/** The 401 WooCommerce gave, in words a shop owner can act on. */
function explainAuth(error: ShopError): string {
  const said = error.message;
  if (/Consumer key is invalid/i.test(said)) return "The shop does not know this consumer key: copy it again from WooCommerce > Settings > Advanced > REST API (or create a new key).";
  if (/Invalid signature|Consumer secret is invalid/i.test(said)) return "The consumer secret does not belong to this consumer key: copy the secret shown when the key was created (or create a new key).";
  if (/does not have read permissions/i.test(said)) return "The key has no read permission: give it Read/Write in WooCommerce > Settings > Advanced > REST API.";
  if (/Invalid timestamp/i.test(said)) return "The shop refused the request's timestamp: its clock is more than 15 minutes off.";
  if (/cannot (view|list)/i.test(said)) return "The shop did not accept the credentials (is the REST API reachable at base_url, with pretty permalinks?).";
  return said;
}

async function test(conn: Conn, http: ShopHttp): Promise<Check[]> {
  const checks: Check[] = [];
  // 1. The shop answers, and is a WordPress with WooCommerce's REST API (the public index lists its namespaces).
  let namespaces: string[];
  try {
    const res = await http.request({ path: "/wp-json/" });
    namespaces = (res.json<{ namespaces?: string[] }>().namespaces ?? []).filter((n) => typeof n === "string");
  } catch (error) {
    if (!(error instanceof ShopError)) throw error;
    const why = error.kind === "not_found" ? `There is no WordPress REST API at ${conn.baseUrl}/wp-json/ (is base_url the shop's address, with pretty permalinks?)` : error.message;
    return [{ name: "reachable", ok: false, message: why }, notChecked("credentials", "the shop is not reachable"), notChecked("write", "the shop is not reachable"), notChecked("tracking", "the shop is not reachable")];
  }
  if (!namespaces.includes("wc/v3")) {
    return [
      { name: "reachable", ok: false, message: `${conn.baseUrl} is a WordPress site, but its REST API has no wc/v3: is WooCommerce (3.5 or later) active?` },
      notChecked("credentials", "WooCommerce's REST API is missing"),
      notChecked("write", "WooCommerce's REST API is missing"),
      notChecked("tracking", "WooCommerce's REST API is missing"),
    ];
  }
  checks.push({ name: "reachable", ok: true, message: `${conn.baseUrl} answers with WooCommerce's REST API (wc/v3).` });

  // 2. The key is known, its secret right, and it may read orders.
  let credentialsOk = false;
  try {
    await call(conn, http, { path: `${WC}/orders?per_page=1` });
    credentialsOk = true;
    checks.push({ name: "credentials", ok: true, message: "The consumer key and secret are accepted, and the key may read orders." });
  } catch (error) {
    if (!(error instanceof ShopError)) throw error;
    checks.push({ name: "credentials", ok: false, message: error.kind === "auth" ? explainAuth(error) : error.message });
  }

  // 3. Write permission, without writing: WooCommerce checks a key's read/write permission before it
  // routes the request, and checks a request's required fields before running it. A note without its
  // mandatory `note` is therefore refused with 401 for a read-only key and with 400 for a read/write
  // key, and nothing is created either way. (Whether the key's WordPress user may edit orders is
  // only known at the first real write.) Sent in a dry run too: it cannot change anything.
  if (!credentialsOk) checks.push(notChecked("write", "the credentials are not accepted"));
  else {
    try {
      const res = await call(conn, http, { method: "POST", path: `${WC}/orders/0/notes`, json: {}, lookup: true, accept: [400, 404] });
      const code = wpError(res).code;
      if (res.status === 400 && code === "rest_missing_callback_param") checks.push({ name: "write", ok: true, message: "The key has write permission (checked without writing anything)." });
      else checks.push({ name: "write", ok: false, message: `Could not tell whether the key may write: the shop answered ${res.status}${code ? ` (${code})` : ""} to a request it should refuse for a missing field.` });
    } catch (error) {
      if (!(error instanceof ShopError)) throw error;
      const readOnly = /does not have write permissions/i.test(error.message);
      checks.push({ name: "write", ok: false, message: readOnly ? "The key is read-only: give it Read/Write in WooCommerce > Settings > Advanced > REST API, or nothing can be written." : error.message });
    }
  }

  // 4. Where tracking numbers go.
  const installed = namespaces.includes(TRACKING_NAMESPACE);
  const mode = conn.settings.tracking;
  if (mode === "note") checks.push({ name: "tracking", ok: true, message: "Tracking numbers are written as customer notes (settings.tracking is \"note\")." });
  else if (installed) checks.push({ name: "tracking", ok: true, message: "The Shipment Tracking extension is installed: tracking numbers are added to it." });
  else if (mode === "extension") checks.push({ name: "tracking", ok: false, message: "The Shipment Tracking extension is not installed, and settings.tracking is \"extension\": install it, or set tracking to \"auto\" or \"note\"." });
  else checks.push({ name: "tracking", ok: true, message: "The Shipment Tracking extension is not installed: tracking numbers are written as customer notes." });
  return checks;
}

// ---------------------------------------------------------------------------------------------
// The adapter

export const woocommerce: ShopPlatform<Credentials<"woocommerce">, Settings<"woocommerce">> = {
  name: "woocommerce",
  test,

  async findOrder(conn, http, order) {
    // WooCommerce's order routes take a number; anything else is no order of this shop.
    if (!/^\d+$/.test(order.externalId)) throw new ShopError("not_found", `"${order.externalId}" is not a WooCommerce order id (the plugin sends the order id, a number)`, null);
    const res = await call(conn, http, { path: `${WC}/orders/${orderId(order)}` });
    const o = res.json<WcOrder>();
    return {
      id: String(o.id),
      number: String(o.number ?? o.id),
      items: (o.line_items ?? []).map((i) => ({ id: String(i.id), productIds: [String(i.id)], sku: i.sku ? i.sku : null, quantity: i.quantity })),
      extra: { status: o.status },
    };
  },

  writeShipment,

  async writeNote(conn, http, shopOrder, write: NoteWrite, options) {
    return addNote(conn, http, shopOrder.id, write.text, false, options.look);
  },

  async complete(conn, http, shopOrder, _order, options) {
    const status = conn.settings.complete_status;
    if (options.look) {
      const current = (await call(conn, http, { path: `${WC}/orders/${shopOrder.id}` })).json<WcOrder>();
      if (current.status === status) return { outcome: "found", shopIds: [shopOrder.id] };
    }
    const res = await call(conn, http, { method: "PUT", path: `${WC}/orders/${shopOrder.id}`, json: { status } });
    return { outcome: "written", shopIds: res.dryRun ? [] : [shopOrder.id] };
  },
};
