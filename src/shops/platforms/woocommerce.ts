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
import { explainShopFailure, messageIn, type PlatformWords } from "./explain";
import { decimalToUnits } from "../../lib/money";
import { priceText } from "../stock/compute";
import type { Check, NoteWrite, ShipmentWrite, ShopConnection, ShopOrder, ShopPlatform, ShopStockProduct, ShopStockValue, StockMatchBy, StockPlatform, StockWriteResult, WriteOptions, WriteResult } from "./platform";
import { CREDENTIALS, SETTINGS, type Credentials, type Settings } from "./settings";

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
 * After an unclear attempt, the order's notes of that kind are read first: the same text there, on
 * a note no other write-back of the order recorded as its own, means the earlier attempt wrote it.
 */
async function addNote(conn: Conn, http: ShopHttp, id: string, text: string, customer: boolean, options: WriteOptions): Promise<WriteResult> {
  if (options.look) {
    const res = await call(conn, http, { path: `${WC}/orders/${id}/notes?type=${customer ? "customer" : "internal"}` });
    const taken = new Set(options.taken ?? []);
    const existing = res.json<WcNote[]>().find((n) => sameNote(n.note, text) && !taken.has(String(n.id)));
    if (existing) return { outcome: "found", shopIds: [String(existing.id)] };
  }
  const res = await call(conn, http, { method: "POST", path: `${WC}/orders/${id}/notes`, json: { note: text, customer_note: customer } });
  return { outcome: "written", shopIds: createdId(res, "id") };
}

const NO_EXTENSION = `The Shipment Tracking extension is not installed in the shop (settings.tracking is "extension"): install it, or set tracking to "auto" or "note"`;

/**
 * A call to the Shipment Tracking extension's order trackings. A 404 is either WordPress's
 * rest_no_route (the extension is not installed: null) or the order missing (thrown, not_found).
 */
async function trackingCall(conn: Conn, http: ShopHttp, id: string, req: Omit<ShopRequest, "path">): Promise<ShopResponse | null> {
  const path = `${TRACKING}/orders/${id}/shipment-trackings`;
  const res = await call(conn, http, { ...req, path, accept: [404] });
  if (res.status !== 404) return res;
  if (wpError(res).code === "rest_no_route") return null;
  throw new ShopError("not_found", `Not found (404 on ${req.method ?? "GET"} ${path}): ${res.text.slice(0, 300)}`, 404);
}

/** The order's trackings, or null when the Shipment Tracking extension is not installed. */
async function trackingsOf(conn: Conn, http: ShopHttp, id: string): Promise<WcTracking[] | null> {
  const res = await trackingCall(conn, http, id, {});
  return res ? res.json<WcTracking[]>() : null;
}

/** The extension's predefined providers' names (it lists them by country, each with its link template). */
async function providerNames(conn: Conn, http: ShopHttp, id: string): Promise<string[]> {
  const res = await call(conn, http, { path: `${TRACKING}/orders/${id}/shipment-trackings/providers` });
  return Object.values(res.json<Record<string, Record<string, string>>>()).flatMap((byName) => Object.keys(byName ?? {}));
}

/** Provider names alike, case and punctuation aside ("dpd" is "DPD", "Royal-Mail" is "Royal Mail"). */
function sameName(a: string, b: string): boolean {
  const key = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");
  return key(a) !== "" && key(a) === key(b);
}

async function writeShipment(conn: Conn, http: ShopHttp, shopOrder: ShopOrder, write: ShipmentWrite, options: WriteOptions): Promise<WriteResult> {
  const id = shopOrder.id;
  const mode = conn.settings.tracking;
  // The extension's list is read in "auto" to learn whether it is installed, and after an unclear
  // attempt to find what that attempt created; a tracking number already on the order is never added again.
  const existing = mode === "note" || (mode === "extension" && !options.look) ? [] : await trackingsOf(conn, http, id);
  if (existing === null) {
    if (mode === "extension") throw new ShopError("not_found", NO_EXTENSION, 404);
    return addNote(conn, http, id, shipmentNoteText(write), true, options);
  }
  if (mode === "note") return addNote(conn, http, id, shipmentNoteText(write), true, options);

  const shopIds: string[] = [];
  let created = 0;
  let providers: string[] | null = null;
  for (const t of write.trackings) {
    const there = existing.find((e) => e.tracking_number === t.number);
    if (there) {
      shopIds.push(there.tracking_id);
      continue;
    }
    // With a tracking URL: a custom provider carrying our carrier's name and that exact URL (a
    // predefined provider would build its own link and ignore ours). Without one: the extension's
    // predefined provider of that name, when it has one, so that it links the number itself.
    const body: Record<string, string> = { tracking_number: t.number, date_shipped: new Date().toISOString().slice(0, 10) };
    const predefined = !t.url && t.carrier ? (providers ??= await providerNames(conn, http, id)).find((p) => sameName(p, t.carrier!)) : undefined;
    if (predefined) body.tracking_provider = predefined;
    else if (t.carrier) body.custom_tracking_provider = t.carrier;
    if (t.url) body.custom_tracking_link = t.url;
    const res = await trackingCall(conn, http, id, { method: "POST", json: body });
    if (!res) throw new ShopError("not_found", NO_EXTENSION, 404);
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
  // 1. The shop answers, and is a WordPress with WooCommerce's REST API: the public index lists its
  // namespaces. Some security plugins close the index to anonymous requests (401/403); the shop
  // then still answers, and what the index would tell is asked of the API itself below.
  let namespaces: string[] | null = null;
  const skipAll = (why: string) => ["credentials", "write", "tracking"].map((name) => notChecked(name, why));
  try {
    const res = await http.request({ path: "/wp-json/", accept: [401, 403] });
    if (res.status === 200) namespaces = (res.json<{ namespaces?: unknown[] }>().namespaces ?? []).filter((n): n is string => typeof n === "string");
  } catch (error) {
    if (!(error instanceof ShopError)) throw error;
    const why = error.kind === "not_found" ? `There is no WordPress REST API at ${conn.baseUrl}/wp-json/ (is base_url the shop's address, with pretty permalinks?)` : error.message;
    return [{ name: "reachable", ok: false, message: why }, ...skipAll("the shop is not reachable")];
  }
  if (namespaces && !namespaces.includes("wc/v3")) {
    return [{ name: "reachable", ok: false, message: `${conn.baseUrl} is a WordPress site, but its REST API has no wc/v3: is WooCommerce (3.5 or later) active?` }, ...skipAll("WooCommerce's REST API is missing")];
  }
  checks.push({
    name: "reachable",
    ok: true,
    message: namespaces ? `${conn.baseUrl} answers with WooCommerce's REST API (wc/v3).` : `${conn.baseUrl} answers; its REST API index is closed to anonymous requests (a security plugin), so WooCommerce is looked for with the credentials.`,
  });

  // 2. The key is known, its secret right, and it may read orders.
  let credentialsOk = false;
  try {
    await call(conn, http, { path: `${WC}/orders?per_page=1` });
    credentialsOk = true;
    checks.push({ name: "credentials", ok: true, message: "The consumer key and secret are accepted, and the key may read orders." });
  } catch (error) {
    if (!(error instanceof ShopError)) throw error;
    const message = error.kind === "auth" ? explainAuth(error) : error.kind === "not_found" && !namespaces ? `There is no WooCommerce REST API (wc/v3) at ${conn.baseUrl}: is WooCommerce (3.5 or later) active?` : error.message;
    checks.push({ name: "credentials", ok: false, message });
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

  // 4. Where tracking numbers go. Without the index, the extension's route answers for it: listing
  // the trackings of order 0 is "no such order" with the extension, "no such route" without it.
  const mode = conn.settings.tracking;
  if (mode === "note") {
    checks.push({ name: "tracking", ok: true, message: 'Tracking numbers are written as customer notes (settings.tracking is "note").' });
    return checks;
  }
  let installed: boolean;
  if (namespaces) installed = namespaces.includes(TRACKING_NAMESPACE);
  else if (!credentialsOk) {
    checks.push(notChecked("tracking", "the credentials are not accepted"));
    return checks;
  } else {
    try {
      installed = (await trackingsOf(conn, http, "0")) !== null;
    } catch (error) {
      if (!(error instanceof ShopError)) throw error;
      installed = error.kind === "not_found";
      if (!installed) {
        checks.push({ name: "tracking", ok: false, message: `Could not tell whether the Shipment Tracking extension is installed: ${error.message}` });
        return checks;
      }
    }
  }
  if (installed) checks.push({ name: "tracking", ok: true, message: "The Shipment Tracking extension is installed: tracking numbers are added to it." });
  else if (mode === "extension") checks.push({ name: "tracking", ok: false, message: 'The Shipment Tracking extension is not installed, and settings.tracking is "extension": install it, or set tracking to "auto" or "note".' });
  else checks.push({ name: "tracking", ok: true, message: "The Shipment Tracking extension is not installed: tracking numbers are written as customer notes." });
  return checks;
}


// ---------------------------------------------------------------------------------------------
// Stock and prices (the stock sync, docs/shops-stock.md)
//
// Products and their variations are separate resources: a simple product is written through
// POST /products/batch, a variation through POST /products/{parent}/variations/batch, each at most
// 100 items a request (WooCommerce's woocommerce_rest_batch_items_limit), every item's result (the
// product, or {id, error}) inside one 200. The EAN is WooCommerce's global_unique_id (GTIN, UPC,
// EAN or ISBN, since WooCommerce 9.2).

type WcProduct = { id: number; type?: string; sku?: string; global_unique_id?: string; stock_quantity?: number | null; regular_price?: string };
type WcBatchItem = { id?: number; error?: { code?: string; message?: string } };

const PER_PAGE = 100;
const keyOf = (p: WcProduct, matchBy: StockMatchBy) => ((matchBy === "sku" ? p.sku : p.global_unique_id) ?? "").trim();

/** Every page of a listing (X-WP-TotalPages says how many). */
async function allPages(conn: Conn, http: ShopHttp, path: string): Promise<WcProduct[]> {
  const out: WcProduct[] = [];
  for (let page = 1; ; page++) {
    const res = await call(conn, http, { path: `${path}${path.includes("?") ? "&" : "?"}per_page=${PER_PAGE}&page=${page}` });
    out.push(...res.json<WcProduct[]>());
    const pages = Number(res.headers.get("x-wp-totalpages") ?? 1);
    if (page >= pages) return out;
  }
}

function mapped(list: WcProduct[], matchBy: StockMatchBy, parentId: string | null): ShopStockProduct[] {
  return list.flatMap((p) => (keyOf(p, matchBy) ? [{ key: keyOf(p, matchBy), shopId: String(p.id), parentId }] : []));
}

/** The writes by where they go: products together, each parent's variations together. */
function byEndpoint<T extends { parentId: string | null }>(items: T[]): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const path = item.parentId ? `${WC}/products/${item.parentId}/variations` : `${WC}/products`;
    groups.set(path, [...(groups.get(path) ?? []), item]);
  }
  return [...groups];
}

const price = (text: string | undefined): number | null => (text ? decimalToUnits(text) : null);

export const woocommerceStock: StockPlatform<Credentials<"woocommerce">, Settings<"woocommerce">> = {
  batchLimit: 100,

  async listProducts(conn, http, matchBy) {
    const products = await allPages(conn, http, `${WC}/products`);
    const out = mapped(products, matchBy, null);
    for (const p of products.filter((p) => p.type === "variable")) {
      out.push(...mapped(await allPages(conn, http, `${WC}/products/${p.id}/variations`), matchBy, String(p.id)));
    }
    return out;
  },

  async findProducts(conn, http, matchBy, keys) {
    // WooCommerce looks products up by SKU (a comma-separated list); variations and EANs are found
    // only by listing (the map is listed again by a full sync).
    const skus = matchBy === "sku" ? keys.filter((k) => !k.includes(",")) : [];
    const out: ShopStockProduct[] = [];
    for (let i = 0; i < skus.length; i += PER_PAGE) {
      const chunk = skus.slice(i, i + PER_PAGE);
      const res = await call(conn, http, { path: `${WC}/products?sku=${encodeURIComponent(chunk.join(","))}&per_page=${PER_PAGE}` });
      out.push(...mapped(res.json<WcProduct[]>(), matchBy, null).filter((p) => chunk.includes(p.key)));
    }
    return out;
  },

  async readStock(conn, http, products) {
    const out: ShopStockValue[] = [];
    for (const [path, group] of byEndpoint(products)) {
      for (let i = 0; i < group.length; i += PER_PAGE) {
        const ids = group.slice(i, i + PER_PAGE).map((p) => p.shopId);
        const res = await call(conn, http, { path: `${path}?include=${ids.join(",")}&per_page=${PER_PAGE}` });
        for (const p of res.json<WcProduct[]>()) out.push({ shopId: String(p.id), quantity: p.stock_quantity ?? null, price: price(p.regular_price) });
      }
    }
    return out;
  },

  async writeStock(conn, http, writes) {
    const out: StockWriteResult[] = [];
    for (const [path, group] of byEndpoint(writes)) {
      for (let i = 0; i < group.length; i += this.batchLimit) {
        const chunk = group.slice(i, i + this.batchLimit);
        const update = chunk.map((w) => ({
          id: Number(w.shopId),
          ...(w.quantity !== null && { manage_stock: true, stock_quantity: w.quantity }),
          ...(w.price !== null && { regular_price: priceText(w.price) }),
        }));
        const res = await call(conn, http, { method: "POST", path: `${path}/batch`, json: { update } });
        if (res.dryRun) {
          out.push(...chunk.map((w) => ({ shopId: w.shopId, ok: true as const })));
          continue;
        }
        const items = res.json<{ update?: WcBatchItem[] }>().update ?? [];
        // Each item answers in the order sent: the product, or {id, error}.
        chunk.forEach((w, n) => {
          const item = items[n];
          if (!item) out.push({ shopId: w.shopId, ok: false, missing: false, reason: `The shop's answer has no result for product ${w.shopId}: ${res.text.slice(0, 200)}` });
          else if (!item.error) out.push({ shopId: w.shopId, ok: true });
          else {
            const code = item.error.code ?? "";
            out.push({ shopId: w.shopId, ok: false, missing: /invalid_id$/.test(code), reason: `${item.error.message ?? "Refused"} (${code || "no code"})` });
          }
        });
      }
    }
    return out;
  },
};

// ---------------------------------------------------------------------------------------------
// The adapter

const ON_HOLD = "on-hold";
const RELEASED = "processing";
/** The statuses an order is put on hold from: not one the shop has finished with (completed, cancelled, refunded, failed). */
const HOLDABLE = ["pending", "processing"];

/** WooCommerce's failures in a shop owner's words (./explain.ts). */
export const woocommerceWords: PlatformWords = {
  label: "WooCommerce",
  credentials: "consumer key and secret",
  credentialsWhere: "WooCommerce > Settings > Advanced > REST API",
  grant: "give the key Read/Write permission",
  orderName: (id) => `order ${id}`,
  subjectOf(call, answer) {
    const path = call.split(" ")[1] ?? "";
    // The tracking route answers an unknown order with an invalid-id code (the order is missing); anything
    // else there is about the tracking number (rest_no_route: the extension is not installed).
    if (path.includes("/shipment-trackings")) return answer && /_invalid_id$/.test(wpErrorCode(answer) ?? "") ? { what: "order" } : { what: "tracking" };
    if (/\/products\b/.test(path)) return { what: "product", id: /\/products\/(\d+)/.exec(path)?.[1] };
    if (/\/orders\/\d+\/notes/.test(path)) return { what: "note" };
    if (/\/orders\b/.test(path)) return call.startsWith("PUT") ? { what: "status" } : { what: "order" };
    return { what: "other" };
  },
  said: messageIn,
};

function wpErrorCode(answer: string): string | null {
  try {
    const code = (JSON.parse(answer) as WpError).code;
    return typeof code === "string" ? code : null;
  } catch {
    return null;
  }
}

export const woocommerce: ShopPlatform<Credentials<"woocommerce">, Settings<"woocommerce">> = {
  name: "woocommerce",
  label: "WooCommerce",
  credentials: CREDENTIALS.woocommerce,
  settings: SETTINGS.woocommerce,
  explainFailure: (failure, order) => explainShopFailure(woocommerceWords, failure, order),
  test,

  async findOrder(conn, http, order) {
    // WooCommerce's order routes take a number; anything else is no order of this shop.
    if (!/^\d+$/.test(order.externalId)) throw new ShopError("not_found", `"${order.externalId}" is not a WooCommerce order id (the plugin sends the order id, a number)`, null);
    const res = await call(conn, http, { path: `${WC}/orders/${order.externalId}` });
    const o = res.json<WcOrder>();
    return {
      id: String(o.id),
      number: String(o.number ?? o.id),
      items: (o.line_items ?? []).map((i) => ({ id: String(i.id), productIds: [String(i.id)], sku: i.sku ? i.sku : null, quantity: i.quantity })),
      extra: { status: o.status },
    };
  },

  writeShipment,
  stock: woocommerceStock,

  async writeNote(conn, http, shopOrder, write: NoteWrite, options) {
    return addNote(conn, http, shopOrder.id, write.text, false, options);
  },

  // WooCommerce's own "on-hold" status: "awaiting some action" by the shop. Released to
  // "processing", the status of a paid order being fulfilled (the plugin sends paid orders).
  async hold(conn, http, shopOrder) {
    const current = (await call(conn, http, { path: `${WC}/orders/${shopOrder.id}` })).json<WcOrder>();
    if (current.status === ON_HOLD) return { outcome: "found", shopIds: [shopOrder.id] };
    if (!HOLDABLE.includes(current.status)) {
      return { outcome: "skipped", reason: `WooCommerce order ${shopOrder.number} is ${current.status} in the shop: it is left as it is, not put on hold` };
    }
    const res = await call(conn, http, { method: "PUT", path: `${WC}/orders/${shopOrder.id}`, json: { status: ON_HOLD } });
    return { outcome: "written", shopIds: res.dryRun ? [] : [shopOrder.id] };
  },

  async release(conn, http, shopOrder, _order, options) {
    const current = (await call(conn, http, { path: `${WC}/orders/${shopOrder.id}` })).json<WcOrder>();
    if (current.status !== ON_HOLD) {
      if (options.look && current.status === RELEASED) return { outcome: "found", shopIds: [shopOrder.id] };
      return { outcome: "skipped", reason: `WooCommerce order ${shopOrder.number} is ${current.status} in the shop, no longer on hold: it is left as it is` };
    }
    const res = await call(conn, http, { method: "PUT", path: `${WC}/orders/${shopOrder.id}`, json: { status: RELEASED } });
    return { outcome: "written", shopIds: res.dryRun ? [] : [shopOrder.id] };
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
