// Shopware 6, through its Admin API (developer.shopware.com, "Admin API"): an integration's OAuth
// client credentials buy a bearer token (POST /api/oauth/token, valid `expires_in` seconds, 600 by
// default), kept in this module's memory per connection and credentials until shortly before it
// expires; a 401 on a kept token fetches a new one, once.
//
// The official plugin sends the order number as the order's external_id, the line item's productId
// (its own id when it has none) as products[].external_id and the product number as
// products[].reference. Tracking lives on the order's delivery: its trackingCodes (a list, replaced
// whole by a PATCH, so we send what is there plus ours) and its state, moved by the state machine's
// transitions `ship` (open or shipped_partially -> shipped) and `ship_partially` (open ->
// shipped_partially). A private note goes into the order's internalComment (Shopware 6.7 on); the
// order is completed with the order state machine's `process` and `complete`. docs/shops/shopware.md
// says all of it for a shop owner.
import { CREDENTIALS, SETTINGS, type Credentials, type Settings } from "./settings";
import { ShopError, errorFor, type ShopHttp, type ShopRequest, type ShopResponse } from "./http";
import { explainShopFailure, type PlatformWords } from "./explain";
import { numberToUnits, unitsToNumber } from "../../lib/money";
import type { Check, NoteWrite, OrderRef, ShipmentWrite, ShopConnection, ShopItem, ShopOrder, ShopPlatform, ShopStockProduct, ShopStockValue, StockMatchBy, StockPlatform, StockWrite, StockWriteResult, WriteOptions, WriteResult } from "./platform";

type Conn = ShopConnection<Credentials<"shopware">, Settings<"shopware">>;

/** A transition no state machine has: Shopware checks the privilege before refusing it (400), so it probes a privilege and changes nothing. */
const PROBE_TRANSITION = "order_intake_privilege_check";

// --- The token -------------------------------------------------------------------------------

const tokens = new Map<string, { token: string; until: number }>();
const tokenKey = (conn: Conn) => [conn.id, conn.baseUrl, conn.credentials.client_id, conn.credentials.client_secret].join("\n");

/** A token from the cache, or a new one; `cached` says which (only a cached one is worth replacing after a 401). */
async function token(conn: Conn, http: ShopHttp, renew: boolean): Promise<{ token: string; cached: boolean }> {
  const key = tokenKey(conn);
  const kept = tokens.get(key);
  if (!renew && kept && kept.until > Date.now()) return { token: kept.token, cached: true };
  tokens.delete(key);
  const res = await http.request({
    path: "/api/oauth/token",
    method: "POST",
    json: { grant_type: "client_credentials", client_id: conn.credentials.client_id, client_secret: conn.credentials.client_secret },
    lookup: true,
    secretAnswer: true,
  });
  const body = res.json<{ access_token?: unknown; expires_in?: unknown }>();
  if (typeof body.access_token !== "string" || body.access_token === "") {
    throw new ShopError("unexpected", "POST /api/oauth/token answered without an access_token: is base_url a Shopware 6 shop?", res.status);
  }
  const lifetime = typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in : 600;
  // Renewed a tenth of its life early (at most a minute), so that a token never expires in flight.
  for (const [k, t] of tokens) if (t.until <= Date.now()) tokens.delete(k); // credentials changed or connections gone: not kept forever
  tokens.set(key, { token: body.access_token, until: Date.now() + lifetime * 1000 - Math.min(60_000, lifetime * 100) });
  return { token: body.access_token, cached: false };
}

/** Shopware's words for a refusal: the first error's detail (or title), and for a 403 the missing privileges. */
function shopwareSays(text: string): { code: string | null; detail: string; missing: string[] } {
  try {
    const error = (JSON.parse(text) as { errors?: { code?: unknown; title?: unknown; detail?: unknown }[] }).errors?.[0];
    const detail = typeof error?.detail === "string" ? error.detail : typeof error?.title === "string" ? error.title : text;
    let missing: string[] = [];
    try {
      const parsed = JSON.parse(detail) as { missingPrivileges?: unknown };
      if (Array.isArray(parsed.missingPrivileges)) missing = parsed.missingPrivileges.filter((p): p is string => typeof p === "string");
    } catch {
      // a detail in words, not the JSON of a missing privilege
    }
    return { code: typeof error?.code === "string" ? error.code : null, detail, missing };
  } catch {
    return { code: null, detail: text.slice(0, 300), missing: [] };
  }
}

const ROLE_HINT = "give the integration's role the permission (Settings > System > Users & permissions > Roles), or make the integration an administrator";

/** A 403 in words: the privileges Shopware says the integration lacks. */
function forbidden(method: string, path: string, text: string): ShopError {
  const said = shopwareSays(text);
  const what = said.missing.length ? `lacks the privilege${said.missing.length > 1 ? "s" : ""} ${said.missing.join(", ")}` : `is not allowed to do this (${said.detail})`;
  return new ShopError("auth", `The Shopware integration ${what} (403 on ${method} ${path}): ${ROLE_HINT}`, 403);
}

/** An Admin API call with the bearer token; a 401 on a cached token renews it and tries once more; a 403 names the missing privileges. */
async function api(conn: Conn, http: ShopHttp, req: ShopRequest): Promise<ShopResponse> {
  const send = (bearer: string) =>
    http.request({ ...req, headers: { ...req.headers, Authorization: `Bearer ${bearer}` }, accept: [...(req.accept ?? []), 401, 403] });
  const first = await token(conn, http, false);
  let res = await send(first.token);
  if (res.status === 401 && first.cached) res = await send((await token(conn, http, true)).token);
  const method = req.method ?? "GET";
  if (res.status === 403 && !req.accept?.includes(403)) throw forbidden(method, req.path, res.text);
  if (res.status === 401 && !req.accept?.includes(401)) throw errorFor(method, req.path, 401, res.headers, res.text);
  return res;
}

// --- What the Admin API answers ------------------------------------------------------------------

type StateJson = { technicalName?: string } | null | undefined;
type DeliveryJson = { id: string; trackingCodes?: string[] | null; stateMachineState?: StateJson };
type LineItemJson = { id: string; type?: string | null; productId?: string | null; referencedId?: string | null; quantity: number; payload?: { productNumber?: unknown } | null };
type OrderJson = {
  id: string;
  orderNumber: string;
  internalComment?: string | null;
  /** Shopware 6.7 on: the delivery the order ships with, when it has several. */
  primaryOrderDeliveryId?: string | null;
  stateMachineState?: StateJson;
  lineItems?: LineItemJson[] | null;
  deliveries?: DeliveryJson[] | null;
};
type SearchResult<T> = { data?: T[] };

async function searchOne<T>(conn: Conn, http: ShopHttp, entity: "order" | "order-delivery", criteria: Record<string, unknown>): Promise<T[]> {
  const res = await api(conn, http, { path: `/api/search/${entity}`, method: "POST", json: criteria, lookup: true });
  const data = res.json<SearchResult<T>>().data;
  if (!Array.isArray(data)) throw new ShopError("unexpected", `POST /api/search/${entity} answered without a data list`, res.status);
  return data;
}

/** What findOrder keeps for later (ShopOrder.extra). */
type Extra = { deliveryIds: string[]; internalComment: boolean };
const extraOf = (order: ShopOrder) => order.extra as Extra;

const byId = (id: string) => ({ filter: [{ type: "equals", field: "id", value: id }], limit: 1 });

/** The order's delivery as the shop holds it now (a retry must not trust what findOrder saw). */
async function deliveryNow(conn: Conn, http: ShopHttp, shopOrder: ShopOrder): Promise<{ id: string; codes: string[]; state: string }> {
  const id = extraOf(shopOrder).deliveryIds[0];
  if (!id) {
    throw new ShopError("invalid", `Shopware order ${shopOrder.number} has no delivery: Shopware keeps tracking codes and the shipping state on an order's delivery, so there is nowhere to write them`);
  }
  const [delivery] = await searchOne<DeliveryJson>(conn, http, "order-delivery", { ...byId(id), associations: { stateMachineState: {} } });
  if (!delivery) throw new ShopError("not_found", `The delivery ${id} of Shopware order ${shopOrder.number} is no longer in the shop`);
  return { id, codes: delivery.trackingCodes ?? [], state: delivery.stateMachineState?.technicalName ?? "open" };
}

async function orderNow(conn: Conn, http: ShopHttp, shopOrder: ShopOrder): Promise<OrderJson> {
  const [order] = await searchOne<OrderJson>(conn, http, "order", { ...byId(shopOrder.id), associations: { stateMachineState: {} } });
  if (!order) throw new ShopError("not_found", `Shopware order ${shopOrder.number} is no longer in the shop`);
  return order;
}

const transition = (conn: Conn, http: ShopHttp, entity: "order" | "order_delivery", id: string, name: string) =>
  api(conn, http, { path: `/api/_action/${entity}/${id}/state/${name}`, method: "POST" });

// --- The adapter ---------------------------------------------------------------------------------

/** Which transition takes a delivery from `state` to the wanted one; null when it is there already. */
function shipTransition(state: string, inFull: boolean, order: string): "ship" | "ship_partially" | null {
  if (state === "shipped" || (state === "shipped_partially" && !inFull)) return null;
  if (state === "open") return inFull ? "ship" : "ship_partially";
  if (state === "shipped_partially") return "ship";
  throw new ShopError("invalid", `The delivery of Shopware order ${order} is ${state}: Shopware ships a delivery only from open or shipped (partially), so nothing was written`);
}

async function probe(conn: Conn, http: ShopHttp, entity: "order" | "order_delivery", id: string, privilege: string, what: string): Promise<Check> {
  const name = entity === "order" ? "Update orders" : "Update deliveries";
  const res = await api(conn, http, { path: `/api/_action/${entity}/${id}/state/${PROBE_TRANSITION}`, method: "POST", lookup: true, accept: [400, 403] });
  const said = shopwareSays(res.text);
  if (res.status === 403) {
    const missing = said.missing.length ? said.missing.join(", ") : privilege;
    return { name, ok: false, message: `The integration lacks the privilege ${missing}, needed ${what}: ${ROLE_HINT}` };
  }
  if (res.status === 400 && said.code === "SYSTEM__ILLEGAL_STATE_TRANSITION") return { name, ok: true, message: `The integration may ${what.replace(/^to /, "")} (${privilege})` };
  return { name, ok: false, message: `Could not check ${privilege}: Shopware answered ${res.status} to a transition it should refuse (${said.detail})` };
}

// --- Stock and prices (the stock sync, docs/shops/shopware.md#stock-and-prices) ------------------
//
// Products (variants too: the Admin API lists them as products with a parentId) are found by their
// productNumber (match_by sku) or ean through POST /api/search/product, and written through
// POST /api/_action/sync as one upsert of the product entity keyed by id. Shopware runs a sync
// request in one transaction: when one product is refused, the request answers 400 with every error
// pointing at its payload item (/<operation key>/<index>/<field>) and writes nothing. The refused
// products then fail with Shopware's words, an id Shopware no longer has (its upsert became an
// insert: 403 for want of product:create, or 400 for every required field missing) is reported
// missing, and the rest go again in one request.
// Shopware documents no batch limit; a page's 100 products go in one request, with
// `indexing-behavior: use-queue-indexing` so that Shopware indexes afterwards in its message queue.

/** Defaults::CURRENCY: the system default currency's id, the same in every Shopware 6 installation. */
export const SHOPWARE_DEFAULT_CURRENCY = "b7d2554b0ce847cd82f3ac9bd1c0dfca";
const SYNC_KEY = "stock-sync";
const LIST_LIMIT = 500;

type SwPrice = { currencyId: string; gross: number; net: number; linked: boolean };
type SwProduct = { id: string; parentId?: string | null; productNumber?: string | null; ean?: string | null; stock?: number | null; price?: SwPrice[] | null; tax?: { taxRate?: number } | null };
type SwError = { code?: string; detail?: string; source?: { pointer?: string } };

const swKey = (p: SwProduct, matchBy: StockMatchBy) => ((matchBy === "sku" ? p.productNumber : p.ean) ?? "").trim();
const swMapped = (list: SwProduct[], matchBy: StockMatchBy): ShopStockProduct[] =>
  list.flatMap((p) => (swKey(p, matchBy) ? [{ key: swKey(p, matchBy), shopId: p.id, parentId: p.parentId ?? null }] : []));

async function searchProducts(conn: Conn, http: ShopHttp, criteria: Record<string, unknown>, inherit = false): Promise<SwProduct[]> {
  const res = await api(conn, http, { path: "/api/search/product", method: "POST", json: criteria, lookup: true, headers: inherit ? { "sw-inheritance": "1" } : undefined });
  const data = res.json<SearchResult<SwProduct>>().data;
  if (!Array.isArray(data)) throw new ShopError("unexpected", "POST /api/search/product answered without a data list", res.status);
  return data;
}

const grossOf = (p: SwProduct): number | null => {
  const price = (p.price ?? []).find((x) => x.currencyId === SHOPWARE_DEFAULT_CURRENCY);
  return price ? numberToUnits(price.gross) : null;
};

/**
 * The product's price list with the default currency's gross set to ours and its net derived from
 * the product's tax rate (the parent's, for a variant that inherits it); other currencies are kept
 * as they are (Shopware replaces the whole list).
 */
function priceList(current: SwProduct | undefined, grossUnits: number): SwPrice[] {
  const rate = current?.tax?.taxRate ?? 0;
  const netUnits = Math.round((grossUnits * 100) / (100 + rate));
  const others = (current?.price ?? []).filter((p) => p.currencyId !== SHOPWARE_DEFAULT_CURRENCY);
  return [{ currencyId: SHOPWARE_DEFAULT_CURRENCY, gross: unitsToNumber(grossUnits), net: unitsToNumber(netUnits), linked: true }, ...others];
}

/** The payload item each error points at (/<key>/<index>/<field>), with Shopware's words per item. */
function refusedItems(text: string): Map<number, string[]> | null {
  let errors: SwError[];
  try {
    errors = (JSON.parse(text) as { errors?: SwError[] }).errors ?? [];
  } catch {
    return null;
  }
  const out = new Map<number, string[]>();
  for (const e of errors) {
    const m = /^\/[^/]+\/(\d+)(?:\/(.*))?$/.exec(e.source?.pointer ?? "");
    if (!m) return null;
    const words = `${m[2] ? `${m[2]}: ` : ""}${e.detail ?? e.code ?? "refused"}`;
    out.set(Number(m[1]), [...(out.get(Number(m[1])) ?? []), words]);
  }
  return out.size > 0 ? out : null;
}

export const shopwareStock: StockPlatform<Credentials<"shopware">, Settings<"shopware">> = {
  batchLimit: 100,

  async listProducts(conn, http, matchBy) {
    const out: ShopStockProduct[] = [];
    for (let page = 1; ; page++) {
      const data = await searchProducts(conn, http, { page, limit: LIST_LIMIT, includes: { product: ["id", "parentId", "productNumber", "ean"] } });
      out.push(...swMapped(data, matchBy));
      if (data.length < LIST_LIMIT) return out;
    }
  },

  async findProducts(conn, http, matchBy, keys) {
    const out: ShopStockProduct[] = [];
    for (let i = 0; i < keys.length; i += this.batchLimit) {
      const chunk = keys.slice(i, i + this.batchLimit);
      const field = matchBy === "sku" ? "productNumber" : "ean";
      const data = await searchProducts(conn, http, { limit: chunk.length, filter: [{ type: "equalsAny", field, value: chunk }], includes: { product: ["id", "parentId", "productNumber", "ean"] } });
      out.push(...swMapped(data, matchBy).filter((p) => chunk.includes(p.key)));
    }
    return out;
  },

  async readStock(conn, http, products) {
    const out: ShopStockValue[] = [];
    for (let i = 0; i < products.length; i += this.batchLimit) {
      const ids = products.slice(i, i + this.batchLimit).map((p) => p.shopId);
      const data = await searchProducts(conn, http, { ids, limit: ids.length, includes: { product: ["id", "stock", "price"] } });
      for (const p of data) out.push({ shopId: p.id, quantity: p.stock ?? null, price: grossOf(p) });
    }
    return out;
  },

  async writeStock(conn, http, writes) {
    const out: StockWriteResult[] = [];
    for (let i = 0; i < writes.length; i += this.batchLimit) out.push(...(await syncChunk(conn, http, writes.slice(i, i + this.batchLimit), true)));
    return out;
  },
};

async function syncChunk(conn: Conn, http: ShopHttp, chunk: StockWrite[], again: boolean): Promise<StockWriteResult[]> {
  if (chunk.length === 0) return [];
  // With prices: the products' price lists and tax rates first (a variant's inherited from its parent).
  const priced = chunk.filter((w) => w.price !== null).map((w) => w.shopId);
  const current = new Map<string, SwProduct>();
  if (priced.length > 0) {
    const data = await searchProducts(conn, http, { ids: priced, limit: priced.length, associations: { tax: {} }, includes: { product: ["id", "price", "tax"], tax: ["taxRate"] } }, true);
    for (const p of data) current.set(p.id, p);
  }
  const payload = chunk.map((w) => ({ id: w.shopId, ...(w.quantity !== null && { stock: w.quantity }), ...(w.price !== null && { price: priceList(current.get(w.shopId), w.price) }) }));
  const res = await api(conn, http, {
    path: "/api/_action/sync",
    method: "POST",
    headers: { "indexing-behavior": "use-queue-indexing" },
    json: { [SYNC_KEY]: { entity: "product", action: "upsert", payload } },
    accept: [400, 403],
  });
  if (res.status === 403) {
    // An upsert of an id Shopware no longer has is an insert, which needs product:create (which the
    // integration need not have): the ids it lacks are reported missing and the rest go again.
    const said = shopwareSays(res.text);
    if (!again || said.missing.join() !== "product:create") throw forbidden("POST", "/api/_action/sync", res.text);
    const there = new Set((await searchProducts(conn, http, { ids: chunk.map((w) => w.shopId), limit: chunk.length, includes: { product: ["id"] } })).map((p) => p.id));
    if (there.size === chunk.length) throw forbidden("POST", "/api/_action/sync", res.text);
    const gone = chunk.filter((w) => !there.has(w.shopId)).map((w) => ({ shopId: w.shopId, ok: false as const, missing: true, reason: `Shopware has no product with id ${w.shopId}` }));
    return [...gone, ...(await syncChunk(conn, http, chunk.filter((w) => there.has(w.shopId)), false))];
  }
  if (res.status !== 400) return chunk.map((w) => ({ shopId: w.shopId, ok: true as const }));
  const refused = refusedItems(res.text);
  if (!refused || !again) throw errorFor("POST", "/api/_action/sync", 400, res.headers, res.text);
  // Nothing was written. Which refused ids does Shopware still have?
  const refusedIds = [...refused.keys()].map((n) => chunk[n]?.shopId).filter((id): id is string => !!id);
  const there = new Set((await searchProducts(conn, http, { ids: refusedIds, limit: refusedIds.length, includes: { product: ["id"] } })).map((p) => p.id));
  const out: StockWriteResult[] = [];
  chunk.forEach((w, n) => {
    const words = refused.get(n);
    if (!words) return;
    if (!there.has(w.shopId)) out.push({ shopId: w.shopId, ok: false, missing: true, reason: `Shopware has no product with id ${w.shopId}` });
    else out.push({ shopId: w.shopId, ok: false, missing: false, reason: `Shopware refused it: ${words.join("; ")}` });
  });
  return [...out, ...(await syncChunk(conn, http, chunk.filter((_, n) => !refused.has(n)), false))];
}

/** Shopware's failures in a shop owner's words (./explain.ts). */
export const shopwareWords: PlatformWords = {
  label: "Shopware",
  credentials: "integration's access key ID and secret",
  credentialsWhere: "Shopware's Settings > System > Integrations",
  grant: ROLE_HINT,
  orderName: (id) => `order number ${id}`,
  subjectOf(call) {
    const path = call.split(" ")[1] ?? "";
    if (/product/.test(path) || path.startsWith("/api/_action/sync")) return { what: "product" };
    if (/order[-_]delivery/.test(path)) return /\/state\//.test(path) ? { what: "status" } : { what: "tracking" };
    if (/\/state\//.test(path)) return { what: "status" };
    if (/\/order\b/.test(path)) return { what: "order" };
    return { what: "other" };
  },
  said: (answer) => shopwareSays(answer).detail || null,
  missingPermission: (answer) => {
    const missing = shopwareSays(answer).missing;
    return missing.length ? `use the privilege${missing.length > 1 ? "s" : ""} ${missing.join(", ")}` : null;
  },
};

export const shopware: ShopPlatform<Credentials<"shopware">, Settings<"shopware">> = {
  name: "shopware",
  label: "Shopware 6",
  credentials: CREDENTIALS.shopware,
  settings: SETTINGS.shopware,
  explainFailure: (failure, order) => explainShopFailure(shopwareWords, failure, order),
  stock: shopwareStock,

  async test(conn, http) {
    const checks: Check[] = [];
    const skip = (names: string[], why: string) => names.forEach((name) => checks.push({ name, ok: false, message: `not checked: ${why}` }));
    const later = ["Credentials", "Read orders", "Update deliveries", "Update orders"];
    try {
      await token(conn, http, true);
      checks.push({ name: "Reachable", ok: true, message: `${conn.baseUrl} answers as a Shopware Admin API` });
      checks.push({ name: "Credentials", ok: true, message: "Shopware accepted the integration's access key and secret and handed out a token" });
    } catch (error) {
      if (!(error instanceof ShopError)) throw error;
      if (error.kind === "unreachable" || error.kind === "timeout") {
        checks.push({ name: "Reachable", ok: false, message: error.message });
        skip(later, "the shop is not reachable");
      } else if (error.kind === "auth") {
        checks.push({ name: "Reachable", ok: true, message: `${conn.baseUrl} answers as a Shopware Admin API` });
        checks.push({ name: "Credentials", ok: false, message: `Shopware refused the integration's access key ID or secret access key (${error.status}): copy both from Settings > System > Integrations (the secret is shown once; create a new one if it is lost)` });
        skip(later.slice(1), "the credentials were refused");
      } else if (error.kind === "not_found") {
        checks.push({ name: "Reachable", ok: false, message: `${conn.baseUrl}/api/oauth/token does not exist (404): base_url must be the shop's address, without /admin or /api` });
        skip(later, "no Shopware Admin API at base_url");
      } else {
        checks.push({ name: "Reachable", ok: false, message: error.message });
        skip(later, "no token could be had");
      }
      return checks;
    }
    let newest: OrderJson | undefined;
    try {
      [newest] = await searchOne<OrderJson>(conn, http, "order", {
        limit: 1,
        sort: [{ field: "createdAt", order: "DESC" }],
        associations: { lineItems: {}, deliveries: { associations: { stateMachineState: {} } } },
      });
      checks.push({ name: "Read orders", ok: true, message: newest ? `Orders, their line items and deliveries can be read (the newest is ${newest.orderNumber})` : "Orders can be read (the shop has none yet)" });
    } catch (error) {
      if (!(error instanceof ShopError)) throw error;
      checks.push({ name: "Read orders", ok: false, message: error.message });
      skip(later.slice(2), "orders cannot be read");
      return checks;
    }
    const delivery = newest?.deliveries?.[0];
    if (delivery) checks.push(await probe(conn, http, "order_delivery", delivery.id, "order_delivery:update", "to write tracking codes and ship deliveries"));
    else skip(["Update deliveries"], "the shop has no order with a delivery to check it on");
    if (newest) checks.push(await probe(conn, http, "order", newest.id, "order:update", "to write private notes and complete orders"));
    else skip(["Update orders"], "the shop has no order to check it on");
    return checks;
  },

  async findOrder(conn, http, order: OrderRef) {
    const found = await searchOne<OrderJson>(conn, http, "order", {
      filter: [{ type: "equals", field: "orderNumber", value: order.externalId }],
      limit: 2,
      associations: { lineItems: {}, deliveries: {} },
    });
    if (found.length === 0) throw new ShopError("not_found", `Shopware has no order number ${order.externalId} (our order ${order.reference})`);
    if (found.length > 1) throw new ShopError("invalid", `Shopware has several orders numbered ${order.externalId} (one number range per sales channel?): we cannot tell which is our order ${order.reference}`);
    const o = found[0];
    const items: ShopItem[] = (o.lineItems ?? [])
      .filter((l) => (l.type ?? "product") === "product")
      .map((l) => ({
        id: l.id,
        // The plugin sends the productId, or the line item's own id when the product is gone.
        productIds: [...new Set([l.productId, l.referencedId, l.id].filter((v): v is string => typeof v === "string" && v !== ""))],
        sku: typeof l.payload?.productNumber === "string" ? l.payload.productNumber : null,
        quantity: l.quantity,
      }));
    // The primary delivery first (6.7 on); before, the first one, as the plugin reads the shipping address from it.
    const deliveryIds = (o.deliveries ?? []).map((d) => d.id).sort((a, b) => Number(b === o.primaryOrderDeliveryId) - Number(a === o.primaryOrderDeliveryId));
    const extra: Extra = { deliveryIds, internalComment: "internalComment" in o };
    return { id: o.id, number: o.orderNumber, items, extra };
  },

  async writeShipment(conn, http, shopOrder, write: ShipmentWrite) {
    const delivery = await deliveryNow(conn, http, shopOrder);
    const step = shipTransition(delivery.state, write.orderShippedInFull, shopOrder.number);
    // Tracking codes are a set: a number already there (an earlier attempt, or typed in by hand) is not added twice.
    const codes = [...new Set([...delivery.codes, ...write.trackings.map((t) => t.number)])];
    const adds = codes.length > delivery.codes.length;
    if (adds) await api(conn, http, { path: `/api/order-delivery/${delivery.id}`, method: "PATCH", json: { trackingCodes: codes } });
    if (step) await transition(conn, http, "order_delivery", delivery.id, step);
    return adds || step ? { outcome: "written", shopIds: [delivery.id] } : { outcome: "found", shopIds: [delivery.id] };
  },

  async writeNote(conn, http, shopOrder, write: NoteWrite, options: WriteOptions): Promise<WriteResult> {
    if (!extraOf(shopOrder).internalComment) {
      return {
        outcome: "skipped",
        reason: "This Shopware has no private order note: the order's internal comment came with Shopware 6.7, and nothing else in its Admin API is hidden from the customer",
      };
    }
    const current = (await orderNow(conn, http, shopOrder)).internalComment ?? "";
    if (options.look && current.includes(write.text)) return { outcome: "found", shopIds: [shopOrder.id] };
    const internalComment = current ? `${current}\n\n${write.text}` : write.text;
    await api(conn, http, { path: `/api/order/${shopOrder.id}`, method: "PATCH", json: { internalComment } });
    return { outcome: "written", shopIds: [shopOrder.id] };
  },

  // Shopware 6's order state machine has no "on hold" (open, in progress, completed, cancelled), and
  // its transaction and delivery states are the payment's and the parcel's: the private note says
  // what waits, and the order is never completed while it does.
  async hold(_conn, _http, shopOrder) {
    return { outcome: "skipped", reason: `Shopware has no on-hold state for orders: order ${shopOrder.number} is left as it is, the private note says what waits` };
  },

  async release(_conn, _http, shopOrder) {
    return { outcome: "skipped", reason: `Shopware has no on-hold state for orders: order ${shopOrder.number} was left as it was, nothing to release` };
  },

  async complete(conn, http, shopOrder) {
    const state = (await orderNow(conn, http, shopOrder)).stateMachineState?.technicalName ?? "open";
    if (state === "completed") return { outcome: "found", shopIds: [shopOrder.id] };
    if (state === "cancelled") return { outcome: "skipped", reason: `Shopware order ${shopOrder.number} is cancelled in the shop: it is left as it is` };
    if (state === "open") await transition(conn, http, "order", shopOrder.id, "process");
    await transition(conn, http, "order", shopOrder.id, "complete");
    return { outcome: "written", shopIds: [shopOrder.id] };
  },
};
