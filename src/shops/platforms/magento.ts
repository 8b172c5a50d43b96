// Magento 2 (Adobe Commerce) through its REST API, with an integration's access token sent as
// Bearer (docs/shops/magento.md). The plugin sends the order's increment_id as external_id, and per
// line the visible item's product id and SKU (for a configurable product: the configurable's id, or
// with rad-works' module the simple's, and the simple's SKU either way). A shipment is one
// POST /V1/order/{id}/ship listing only what shipped, with one track per tracking number; a note is
// a private order comment. Magento completes an order itself once it is invoiced and shipped.
import { errorFor, ShopError, type ShopHttp } from "./http";
import { explainShopFailure, messageIn, type PlatformWords } from "./explain";
import { numberToUnits, unitsToNumber } from "../../lib/money";
import type { Check, NoteWrite, OrderRef, ShipmentWrite, ShopConnection, ShopItem, ShopOrder, ShopPlatform, ShopStockProduct, StockMatchBy, StockPlatform, Tracking, WriteOptions, WriteResult } from "./platform";
import { CREDENTIALS, SETTINGS, type Credentials, type Settings } from "./settings";
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

const HOLDED = "holded";
/** The states Magento holds an order from (Order::canHold: not canceled, complete, closed, in payment review or held). */
const HOLDABLE = ["new", "pending_payment", "processing"];

/** The order's state now (the kept ShopOrder may be old). */
async function stateOf(conn: Conn, http: ShopHttp, shopOrder: ShopOrder): Promise<string> {
  const res = await http.request({ path: `/rest/V1/orders/${shopOrder.id}`, headers: auth(conn) });
  return res.json<{ state?: string }>().state ?? "";
}

/** POST /V1/orders/{id}/hold or /unhold: Magento answers true. */
async function orderAction(conn: Conn, http: ShopHttp, shopOrder: ShopOrder, action: "hold" | "unhold"): Promise<void> {
  await http.request({ method: "POST", path: `/rest/V1/orders/${shopOrder.id}/${action}`, headers: auth(conn), json: {} });
}

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

// ---------------------------------------------------------------------------------------------
// Stock and prices (the stock sync, docs/shops/magento.md#stock-and-prices)
//
// Every write is keyed by SKU, so a product's shop id is its SKU. Products are found through
// GET /V1/products with a searchCriteria `in` filter on sku (or on settings.ean_attribute for
// match_by ean13: Magento has no EAN attribute of its own), at most 300 a page (Magento 2.4.7's
// default maximum page size). With settings.inventory "msi" the stock goes into source_code's
// source items, POST /V1/inventory/source-items, all of a page in one request (Magento saves them
// together, or refuses the request); with "legacy" each product's stock item is read with
// GET /V1/stockItems/{sku} and written with PUT /V1/products/{sku}/stockItems/{itemId}, one request
// each (there is no batch endpoint for either). The product search cannot stand in for that read: a
// real Magento's list carries no extension_attributes.stock_item, only GET /V1/products/{sku} does
// (magento/magento2#36533, confirmed; #24418, #8700). Prices go through POST
// /V1/products/base-prices (store 0, the default scope), which answers 200 with the prices it
// refused, each naming its SKU.

const PAGE_SIZE = 300;
type MgProduct = { id: number; sku: string; price?: number; custom_attributes?: { attribute_code: string; value: unknown }[] };
type MgStockItem = { item_id?: number | null; qty?: number | null };
type MgSourceItem = { sku: string; source_code: string; quantity: number; status: number };
type MgPriceError = { message?: string; parameters?: unknown };

function matchField(conn: Conn, matchBy: StockMatchBy): string {
  if (matchBy === "sku") return "sku";
  if (conn.settings.ean_attribute) return conn.settings.ean_attribute;
  throw new ShopError("invalid", "Magento has no EAN attribute of its own: set settings.ean_attribute to the attribute code that holds the EAN, or match by sku");
}

function mgKey(p: MgProduct, field: string): string {
  const value = field === "sku" ? p.sku : p.custom_attributes?.find((a) => a.attribute_code === field)?.value;
  return typeof value === "string" || typeof value === "number" ? String(value).trim() : "";
}

/** A searchCriteria query: `field in (values)` (when given), one page. */
function productQuery(field: string | null, values: string[], page: number, size: number): string {
  const f = "searchCriteria[filter_groups][0][filters][0]";
  const where = field ? `${f}[field]=${field}&${f}[value]=${encodeURIComponent(values.join(","))}&${f}[condition_type]=in&` : "";
  return `/rest/V1/products?${where}searchCriteria[pageSize]=${size}&searchCriteria[currentPage]=${page}`;
}

async function productsWhere(conn: Conn, http: ShopHttp, field: string, values: string[]): Promise<MgProduct[]> {
  // A value holding a comma cannot be asked for in an `in` filter.
  const asked = values.filter((v) => !v.includes(","));
  const out: MgProduct[] = [];
  for (let i = 0; i < asked.length; i += PAGE_SIZE) {
    const chunk = asked.slice(i, i + PAGE_SIZE);
    const res = await http.request({ path: productQuery(field, chunk, 1, chunk.length), headers: auth(conn) });
    out.push(...(res.json<SearchResult<MgProduct>>().items ?? []));
  }
  return out;
}

const statusOf = (quantity: number) => (quantity > 0 ? 1 : 0);

/** A product's legacy stock item by SKU, or Magento's words when it has none (404: no product with that SKU). */
async function stockItem(conn: Conn, http: ShopHttp, sku: string): Promise<{ item: MgStockItem } | { status: number; says: string }> {
  const res = await http.request({ path: `/rest/V1/stockItems/${encodeURIComponent(sku)}`, headers: auth(conn), accept: [404] });
  if (res.status === 404) return { status: 404, says: magentoSays(res.text) };
  return { item: res.json<MgStockItem>() };
}

/** The prices base-prices refused, by the SKU each names. */
function refusedPrices(errors: MgPriceError[], skus: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of errors) {
    const values = Array.isArray(e.parameters) ? e.parameters : e.parameters && typeof e.parameters === "object" ? Object.values(e.parameters) : [];
    let message = e.message ?? "Refused";
    if (e.parameters && typeof e.parameters === "object" && !Array.isArray(e.parameters)) for (const [k, v] of Object.entries(e.parameters)) message = message.replace(`%${k}`, String(v));
    for (const sku of skus) if (values.map(String).includes(sku)) out.set(sku, message);
  }
  return out;
}

export const magentoStock: StockPlatform<Credentials<"magento">, Settings<"magento">> = {
  batchLimit: 100,

  async listProducts(conn, http, matchBy) {
    const field = matchField(conn, matchBy);
    const out: ShopStockProduct[] = [];
    // Magento answers a page past the last with the last page again: total_count says when to stop.
    for (let page = 1; ; page++) {
      const res = await http.request({ path: productQuery(null, [], page, PAGE_SIZE), headers: auth(conn) });
      const body = res.json<SearchResult<MgProduct>>();
      for (const p of body.items ?? []) if (mgKey(p, field)) out.push({ key: mgKey(p, field), shopId: p.sku, parentId: null });
      if (page * PAGE_SIZE >= (body.total_count ?? 0)) return out;
    }
  },

  async findProducts(conn, http, matchBy, keys) {
    const field = matchField(conn, matchBy);
    return (await productsWhere(conn, http, field, keys)).filter((p) => keys.includes(mgKey(p, field))).map((p) => ({ key: mgKey(p, field), shopId: p.sku, parentId: null }));
  },

  async readStock(conn, http, products) {
    const skus = products.map((p) => p.shopId);
    const found = await productsWhere(conn, http, "sku", skus);
    const quantities = new Map<string, number | null>();
    if (conn.settings.inventory === "legacy") {
      for (const p of found) {
        const read = await stockItem(conn, http, p.sku);
        if ("item" in read && typeof read.item.qty === "number") quantities.set(p.sku, read.item.qty);
      }
    } else {
      for (let i = 0; i < skus.length; i += PAGE_SIZE) {
        const chunk = skus.slice(i, i + PAGE_SIZE).filter((s) => !s.includes(","));
        const g = "searchCriteria[filter_groups]";
        const path = `/rest/V1/inventory/source-items?${g}[0][filters][0][field]=sku&${g}[0][filters][0][value]=${encodeURIComponent(chunk.join(","))}&${g}[0][filters][0][condition_type]=in&${g}[1][filters][0][field]=source_code&${g}[1][filters][0][value]=${encodeURIComponent(conn.settings.source_code)}&${g}[1][filters][0][condition_type]=eq&searchCriteria[pageSize]=${chunk.length}`;
        const res = await http.request({ path, headers: auth(conn) });
        for (const s of res.json<SearchResult<MgSourceItem>>().items ?? []) quantities.set(s.sku, Number(s.quantity));
      }
    }
    return found.map((p) => ({ shopId: p.sku, quantity: quantities.get(p.sku) ?? null, price: typeof p.price === "number" ? numberToUnits(p.price) : null }));
  },

  async writeStock(conn, http, writes) {
    const failed = new Map<string, { missing: boolean; reason: string }>();
    const stock = writes.filter((w) => w.quantity !== null);
    for (let i = 0; i < stock.length; i += this.batchLimit) {
      const chunk = stock.slice(i, i + this.batchLimit);
      if (conn.settings.inventory === "msi") {
        const sourceItems = chunk.map((w) => ({ sku: w.shopId, source_code: conn.settings.source_code, quantity: w.quantity!, status: statusOf(w.quantity!) }));
        await http.request({ path: "/rest/V1/inventory/source-items", method: "POST", headers: auth(conn), json: { sourceItems } });
        continue;
      }
      for (const w of chunk) {
        const read = await stockItem(conn, http, w.shopId);
        if (!("item" in read)) {
          failed.set(w.shopId, { missing: true, reason: `Magento has no stock item for it (${read.status}): ${read.says}` });
          continue;
        }
        const itemId = read.item.item_id;
        if (itemId === undefined || itemId === null) {
          failed.set(w.shopId, { missing: false, reason: "Magento shows no stock item for it" });
          continue;
        }
        const path = `/rest/V1/products/${encodeURIComponent(w.shopId)}/stockItems/${itemId}`;
        const res = await http.request({ path, method: "PUT", headers: auth(conn), json: { stockItem: { qty: w.quantity, is_in_stock: w.quantity! > 0 } }, accept: [400, 404] });
        if (res.status === 404 || res.status === 400) failed.set(w.shopId, { missing: res.status === 404, reason: `Magento refused it (${res.status}): ${magentoSays(res.text)}` });
      }
    }
    const priced = writes.filter((w) => w.price !== null && !failed.has(w.shopId));
    for (let i = 0; i < priced.length; i += this.batchLimit) {
      const chunk = priced.slice(i, i + this.batchLimit);
      const prices = chunk.map((w) => ({ sku: w.shopId, price: unitsToNumber(w.price!), store_id: 0 }));
      const res = await http.request({ path: "/rest/V1/products/base-prices", method: "POST", headers: auth(conn), json: { prices } });
      if (res.dryRun) continue;
      const errors = res.json<MgPriceError[]>();
      for (const [sku, reason] of refusedPrices(Array.isArray(errors) ? errors : [], chunk.map((w) => w.shopId))) {
        failed.set(sku, { missing: /doesn't exist|does not exist/i.test(reason), reason: `Magento refused the price: ${reason}` });
      }
    }
    return writes.map((w) => {
      const f = failed.get(w.shopId);
      return f ? { shopId: w.shopId, ok: false as const, ...f } : { shopId: w.shopId, ok: true as const };
    });
  },
};

/** Magento's {message, parameters} with its %placeholders filled in. */
function magentoSays(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: string; parameters?: unknown };
    let message = body.message ?? text;
    const params = body.parameters;
    if (Array.isArray(params)) params.forEach((v, n) => (message = message.replace(`%${n + 1}`, String(v))));
    else if (params && typeof params === "object") for (const [k, v] of Object.entries(params)) message = message.replace(`%${k}`, String(v));
    return message;
  } catch {
    return text.slice(0, 200);
  }
}

/** Magento's failures in a shop owner's words (./explain.ts). */
export const magentoWords: PlatformWords = {
  label: "Magento",
  credentials: "integration's access token",
  credentialsWhere: "Magento's System > Extensions > Integrations",
  grant: "give the integration access to Sales > Operations > Orders (and Catalog > Inventory for stock), then activate it again",
  orderName: (id) => `order #${id}`,
  subjectOf(call) {
    const path = call.split(" ")[1] ?? "";
    if (/\/(products|stockItems|inventory)\b/.test(path)) return { what: "product", id: /\/stockItems\/([^/?]+)/.exec(path)?.[1] ?? /\/products\/([^/?]+)/.exec(path)?.[1] };
    if (/\/ship\b|\/shipments\b/.test(path)) return { what: "shipment" };
    if (/\/comments\b/.test(path)) return { what: "note" };
    if (/\/orders?\b/.test(path)) return /\/(hold|unhold)\b/.test(path) ? { what: "status" } : { what: "order" };
    return { what: "other" };
  },
  said: messageIn,
};

export const magento: ShopPlatform<Credentials<"magento">, Settings<"magento">> = {
  name: "magento",
  label: "Magento 2",
  credentials: CREDENTIALS.magento,
  settings: SETTINGS.magento,
  explainFailure: (failure, order) => explainShopFailure(magentoWords, failure, order),
  stock: magentoStock,

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
    const ship = (accept: number[] = []) => http.request({ method: "POST", path: `/rest/V1/order/${shopOrder.id}/ship`, headers: auth(conn), json: body, accept });
    let res = await ship([400]);
    if (res.status === 400) {
      // Magento ships no order on hold. One we put on hold (a line waits for a person) is taken off
      // hold for the shipment and put back on hold after it; any other refusal is the shop's.
      if (!res.text.includes("does not allow a shipment") || (await stateOf(conn, http, shopOrder)) !== HOLDED) {
        throw errorFor("POST", `/rest/V1/order/${shopOrder.id}/ship`, res.status, res.headers, res.text);
      }
      await orderAction(conn, http, shopOrder, "unhold");
      try {
        res = await ship();
      } finally {
        await orderAction(conn, http, shopOrder, "hold");
      }
    }
    if (res.dryRun) return { outcome: "written", shopIds: [] };
    const id = res.json<unknown>();
    if (typeof id !== "number" && typeof id !== "string") throw new ShopError("unexpected", `POST /rest/V1/order/${shopOrder.id}/ship answered ${res.status} without a shipment id: ${res.text.slice(0, 200)}`, res.status);
    return { outcome: "written", shopIds: [String(id)] };
  },

  async writeNote(conn, http, shopOrder, write: NoteWrite, options: WriteOptions): Promise<WriteResult> {
    if (options.look) {
      const res = await http.request({ path: `/rest/V1/orders/${shopOrder.id}`, headers: auth(conn) });
      const taken = new Set(options.taken ?? []);
      const same = (res.json<MagentoOrder>().status_histories ?? []).find((h) => h.comment === write.text && !taken.has(String(h.entity_id)));
      if (same) return { outcome: "found", shopIds: [String(same.entity_id)] };
    }
    // Magento answers `true`, not the comment's id: a retry finds the comment by its text.
    const statusHistory = { comment: write.text, is_customer_notified: 0, is_visible_on_front: 0, parent_id: Number(shopOrder.id) };
    await http.request({ method: "POST", path: `/rest/V1/orders/${shopOrder.id}/comments`, headers: auth(conn), json: { statusHistory } });
    return { outcome: "written", shopIds: [] };
  },

  // Magento's own hold (POST /V1/orders/{id}/hold, /unhold): the order keeps its state and status
  // to go back to, and Magento refuses to hold an order it has finished with.
  async hold(conn, http, shopOrder) {
    const state = await stateOf(conn, http, shopOrder);
    if (state === HOLDED) return { outcome: "found", shopIds: [shopOrder.id] };
    if (!HOLDABLE.includes(state)) return { outcome: "skipped", reason: `Magento order ${shopOrder.number} is ${state}: Magento holds only an order it has not finished with, so it is left as it is` };
    await orderAction(conn, http, shopOrder, "hold");
    return { outcome: "written", shopIds: http.dryRun ? [] : [shopOrder.id] };
  },

  async release(conn, http, shopOrder, _order, options) {
    const state = await stateOf(conn, http, shopOrder);
    if (state !== HOLDED) {
      if (options.look) return { outcome: "found", shopIds: [shopOrder.id] };
      return { outcome: "skipped", reason: `Magento order ${shopOrder.number} is ${state}, no longer on hold: it is left as it is` };
    }
    await orderAction(conn, http, shopOrder, "unhold");
    return { outcome: "written", shopIds: http.dryRun ? [] : [shopOrder.id] };
  },

  async complete() {
    return { outcome: "skipped", reason: "Magento completes an order itself once it is invoiced and shipped in full; there is no status to set." };
  },
};
