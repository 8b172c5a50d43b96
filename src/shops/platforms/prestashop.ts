// PrestaShop through its webservice (/api/), the webservice key sent as the HTTP Basic user with no
// password (docs/shops/prestashop.md). Reads ask for output_format=JSON; writes send the XML
// resource the webservice takes. The plugin sends the order's reference as external_id, and per
// line the product id and the reference (the combination's, when it has one). A cart whose
// products ship with different carriers is several PrestaShop orders under one reference: they are
// found together, and each shipment is written to the orders holding its rows.
//
// A shipment puts its tracking numbers on the order's carrier record (one field: several numbers
// are joined with ", ") and, once the order has shipped in full, adds an order history entry with
// the configured shipped state, unless the order has had it already. Both writes look first, every
// time: they must know the carrier's current tracking number and the order's states anyway, so a
// retry never writes either twice. A note is a private order message.
import { encodeXML } from "entities";
import { SaxesParser } from "saxes";
import { ShopError, type ShopHttp } from "./http";
import { explainShopFailure, messageIn, type PlatformWords } from "./explain";
import { decimalToUnits } from "../../lib/money";
import { priceText } from "../stock/compute";
import type { Check, NoteWrite, OrderRef, ShipmentWrite, ShopConnection, ShopItem, ShopOrder, ShopPlatform, ShopStockProduct, StockMatchBy, StockPlatform, WriteResult } from "./platform";
import { CREDENTIALS, SETTINGS, type Credentials, type Settings } from "./settings";
import { shippedItems } from "./shipped-items";

type Conn = ShopConnection<Credentials<"prestashop">, Settings<"prestashop">>;
/** The webservice answers numbers as strings or as numbers, by version: read both. */
type Num = number | string;
type Row = { id: Num; product_id: Num; product_attribute_id?: Num; product_reference?: string | null; product_quantity: Num };
type Order = { id: Num; reference: string; id_carrier?: Num; associations?: { order_rows?: Row[] } };
type OrderCarrier = { id: Num; id_order: Num; id_carrier: Num; id_order_invoice?: Num; weight?: Num; shipping_cost_tax_excl?: Num; shipping_cost_tax_incl?: Num; tracking_number?: string | null };
type OrderHistory = { id: Num; id_order: Num; id_order_state: Num };
type Message = { id: Num; message: string };

/** PrestaShop's order_carrier.tracking_number is at most 64 characters. */
export const TRACKING_NUMBER_CHARS = 64;
const JOIN = ", ";

/** What the key must be allowed, per resource, as Advanced Parameters > Webservice lists it. */
const NEEDED: Record<string, { methods: ("get" | "put" | "post")[]; why: string }> = {
  orders: { methods: ["get"], why: "to find the order" },
  order_carriers: { methods: ["get", "put"], why: "to read and write the tracking number" },
  order_histories: { methods: ["get", "post"], why: "to add the shipped state" },
  messages: { methods: ["get", "post"], why: "to write private notes" },
};

/** The key as the Basic user, no password; UTF-8 first, so that a key typed wrong is refused by the shop, not by btoa. */
const auth = (conn: Conn) => ({ Authorization: `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(`${conn.credentials.webservice_key}:`)))}` });
const xmlHeaders = (conn: Conn) => ({ ...auth(conn), "Content-Type": "application/xml" });

/** One resource as the webservice takes it in a POST or PUT body. */
function resourceXml(name: string, fields: Record<string, Num | null | undefined>): string {
  const body = Object.entries(fields)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `<${k}>${encodeXML(String(v))}</${k}>`)
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?><prestashop xmlns:xlink="http://www.w3.org/1999/xlink"><${name}>${body}</${name}></prestashop>`;
}

/** A list answer: {"orders": [...]}, or [] when nothing matched (the webservice's JSON for an empty list). */
function listOf<T>(body: unknown, resource: string): T[] {
  if (Array.isArray(body)) return body as T[];
  const list = (body as Record<string, unknown> | null)?.[resource];
  return Array.isArray(list) ? (list as T[]) : [];
}

/** A value for a filter[...]=[value]: the webservice reads | , [ ] % as operators, so a value holding one is never searched. */
function filterValue(value: string): string | null {
  return /^[^|,[\]%]+$/.test(value) ? value : null;
}

/** The resources the key may use, and how, from the XML listing GET /api/ answers. */
function permissionsOf(xml: string): Map<string, Set<string>> | null {
  const found = new Map<string, Set<string>>();
  let depth = 0;
  let api = false;
  const parser = new SaxesParser();
  parser.on("opentag", (tag) => {
    depth++;
    if (depth === 2 && tag.name === "api") api = true;
    if (depth === 3 && api) {
      const allowed = new Set(["get", "put", "post", "patch", "delete", "head"].filter((m) => tag.attributes[m] === "true"));
      found.set(tag.name, allowed);
    }
  });
  parser.on("closetag", () => void depth--);
  try {
    parser.write(xml).close();
  } catch {
    return null;
  }
  return api ? found : null;
}

/** The webservice's own words from an error answer (XML or JSON), for a check's message. */
function errorWords(text: string): string {
  const messages = [...text.matchAll(/<message>(?:<!\[CDATA\[)?([\s\S]*?)(?:\]\]>)?<\/message>/g)].map((m) => m[1]!.trim());
  if (messages.length) return messages.join("; ");
  try {
    const errors = (JSON.parse(text) as { errors?: { message: string }[] }).errors ?? [];
    if (errors.length) return errors.map((e) => e.message).join("; ");
  } catch {
    // not JSON either: the raw answer below
  }
  return text.slice(0, 200);
}

/**
 * One PrestaShop order behind the shop's order as we found it: a cart whose products ship with
 * different carriers becomes several orders under one reference, each with its own rows and carrier.
 */
type Part = { id: string; id_carrier: string | null; rows: string[] };

function partsOf(shopOrder: ShopOrder): Part[] {
  const parts = shopOrder.extra.orders;
  return Array.isArray(parts) ? (parts as Part[]) : [{ id: shopOrder.id, id_carrier: null, rows: shopOrder.items.map((i) => i.id) }];
}

/** filter[id_order]=[7|8]: the webservice's "one of". */
const anyOf = (parts: Part[]) => parts.map((p) => p.id).join("|");

/** Each part's carrier record, or null for none (a virtual order), read in one call. */
async function carriersOf(conn: Conn, http: ShopHttp, parts: Part[]): Promise<Map<string, OrderCarrier | null>> {
  const res = await http.request({ path: `/api/order_carriers?filter[id_order]=[${anyOf(parts)}]&display=full&output_format=JSON`, headers: auth(conn) });
  const all = listOf<OrderCarrier>(res.json(), "order_carriers").sort((a, b) => Number(a.id) - Number(b.id));
  return new Map(
    parts.map((part) => {
      const own = all.filter((c) => String(c.id_order) === part.id);
      // An order has one carrier record; should it have more, the one of the order's own carrier.
      return [part.id, own.find((c) => String(c.id_carrier) === part.id_carrier) ?? own[0] ?? null];
    }),
  );
}

const trackingNumbersOf = (carrier: OrderCarrier) => (carrier.tracking_number ?? "").split(",").map((n) => n.trim()).filter(Boolean);

/** Adds the shipped state to each part that has not had it: the entries' ids, found or added, and whether any was added. */
async function shippedStates(conn: Conn, http: ShopHttp, parts: Part[]): Promise<{ ids: string[]; added: boolean }> {
  const state = conn.settings.shipped_state_id;
  const res = await http.request({ path: `/api/order_histories?filter[id_order]=[${anyOf(parts)}]&display=full&output_format=JSON`, headers: auth(conn) });
  const histories = listOf<OrderHistory>(res.json(), "order_histories");
  const ids: string[] = [];
  let added = false;
  for (const part of parts) {
    const had = histories.find((h) => String(h.id_order) === part.id && Number(h.id_order_state) === state);
    if (had) {
      ids.push(String(had.id));
      continue;
    }
    // sendemail=1: the customer gets the state's own e-mail (PrestaShop's Shipped carries the tracking link).
    const res = await http.request({
      method: "POST",
      path: "/api/order_histories?sendemail=1&output_format=JSON",
      headers: xmlHeaders(conn),
      body: resourceXml("order_history", { id_order: part.id, id_order_state: state }),
    });
    added = true;
    const id = res.dryRun ? undefined : res.json<{ order_history?: { id?: Num } }>().order_history?.id;
    if (id !== undefined) ids.push(String(id));
  }
  return { ids, added };
}

/** Each part's current state, read fresh (the order as we found it may be older). */
async function currentStates(conn: Conn, http: ShopHttp, parts: Part[]): Promise<Map<string, number>> {
  const res = await http.request({ path: `/api/orders?filter[id]=[${anyOf(parts)}]&display=[id,current_state]&output_format=JSON`, headers: auth(conn) });
  return new Map(listOf<{ id: Num; current_state: Num }>(res.json(), "orders").map((o) => [String(o.id), Number(o.current_state)]));
}

/** The parts' order histories, oldest first. */
async function historiesOf(conn: Conn, http: ShopHttp, parts: Part[]): Promise<OrderHistory[]> {
  const res = await http.request({ path: `/api/order_histories?filter[id_order]=[${anyOf(parts)}]&display=full&output_format=JSON`, headers: auth(conn) });
  return listOf<OrderHistory>(res.json(), "order_histories").sort((a, b) => Number(a.id) - Number(b.id));
}

/**
 * States an order is never put on hold from: the shipped state, and PrestaShop's own Delivered (5),
 * Canceled (6), Refunded (7) and Payment error (8), as it installs them (install-dev/data/xml/order_state.xml,
 * ids in that file's order).
 */
const finalStates = (conn: Conn) => [conn.settings.shipped_state_id, 5, 6, 7, 8];

// ---------------------------------------------------------------------------------------------
// Stock and prices (the stock sync, docs/shops/prestashop.md#stock-and-prices)
//
// A product is found by its reference (match_by sku) or ean13 among products and combinations; its
// shop id is the product id ("12"), a combination's is the product's and the combination's ("12:3",
// its parent "12"). Stock lives in stock_availables, one per product and combination: they are read
// for a page's products (GET /api/stock_availables?filter[id_product]=[…]), and each changed one is
// PUT whole, with its new quantity (the webservice has no batch write and no PATCH before 8.1). A
// price is the product's `price`, PrestaShop's base price before tax, PUT with the product resource
// read just before (its read-only fields left out); a combination's price is an impact on its
// product's, and is not written.

const PS_LIMIT = 1000;
/** Products per filter[...]=[a|b|…] lookup: keeps the URL well inside what web servers take. */
const PS_CHUNK = 50;
type PsProduct = { id: Num; reference?: string | null; ean13?: string | null; price?: Num };
type PsCombination = { id: Num; id_product: Num; reference?: string | null; ean13?: string | null };
type PsStock = { id: Num; id_product: Num; id_product_attribute: Num; id_shop?: Num; id_shop_group?: Num; quantity: Num; depends_on_stock?: Num; out_of_stock?: Num; location?: string | null };

const psKey = (p: { reference?: string | null; ean13?: string | null }, matchBy: StockMatchBy) => ((matchBy === "sku" ? p.reference : p.ean13) ?? "").trim();
const splitId = (shopId: string) => {
  const [product, attribute = "0"] = shopId.split(":");
  return { product: product!, attribute };
};

function psMapped(products: PsProduct[], combinations: PsCombination[], matchBy: StockMatchBy): ShopStockProduct[] {
  return [
    ...products.flatMap((p) => (psKey(p, matchBy) ? [{ key: psKey(p, matchBy), shopId: String(p.id), parentId: null }] : [])),
    ...combinations.flatMap((c) => (psKey(c, matchBy) ? [{ key: psKey(c, matchBy), shopId: `${c.id_product}:${c.id}`, parentId: String(c.id_product) }] : [])),
  ];
}

async function psList<T>(conn: Conn, http: ShopHttp, resource: string, query: string): Promise<T[]> {
  const res = await http.request({ path: `/api/${resource}?${query}&output_format=JSON`, headers: auth(conn) });
  return listOf<T>(res.json(), resource);
}

/** Every row of a resource, PS_LIMIT at a time (limit=offset,count). */
async function psAll<T>(conn: Conn, http: ShopHttp, resource: string, display: string): Promise<T[]> {
  const out: T[] = [];
  for (let offset = 0; ; offset += PS_LIMIT) {
    const rows = await psList<T>(conn, http, resource, `display=${display}&limit=${offset},${PS_LIMIT}`);
    out.push(...rows);
    if (rows.length < PS_LIMIT) return out;
  }
}

/** The stock_availables of these products (every combination's too), by "product:attribute". */
async function stockRows(conn: Conn, http: ShopHttp, productIds: string[]): Promise<Map<string, PsStock>> {
  const out = new Map<string, PsStock>();
  const ids = [...new Set(productIds)];
  for (let i = 0; i < ids.length; i += PS_CHUNK) {
    const rows = await psList<PsStock>(conn, http, "stock_availables", `filter[id_product]=[${ids.slice(i, i + PS_CHUNK).join("|")}]&display=full`);
    for (const r of rows) out.set(`${r.id_product}:${r.id_product_attribute}`, r);
  }
  return out;
}

/** The product resource as read, with our price and without the fields the webservice refuses in a PUT. */
function withPrice(xml: string, price: string): string | null {
  if (!/<price>[\s\S]*?<\/price>/.test(xml)) return null;
  return xml
    .replace(/<price>[\s\S]*?<\/price>/, `<price><![CDATA[${price}]]></price>`)
    .replace(/<(manufacturer_name|quantity|position_in_category)\b[^>]*?(\/>|>[\s\S]*?<\/\1>)/g, "");
}

export const prestashopStock: StockPlatform<Credentials<"prestashop">, Settings<"prestashop">> = {
  batchLimit: 100,

  async listProducts(conn, http, matchBy) {
    const products = await psAll<PsProduct>(conn, http, "products", "[id,reference,ean13]");
    const combinations = await psAll<PsCombination>(conn, http, "combinations", "[id,id_product,reference,ean13]");
    return psMapped(products, combinations, matchBy);
  },

  async findProducts(conn, http, matchBy, keys) {
    const field = matchBy === "sku" ? "reference" : "ean13";
    const asked = keys.filter((k) => filterValue(k) !== null);
    const out: ShopStockProduct[] = [];
    for (let i = 0; i < asked.length; i += PS_CHUNK) {
      const values = asked.slice(i, i + PS_CHUNK).map(encodeURIComponent).join("|");
      const products = await psList<PsProduct>(conn, http, "products", `filter[${field}]=[${values}]&display=[id,reference,ean13]`);
      const combinations = await psList<PsCombination>(conn, http, "combinations", `filter[${field}]=[${values}]&display=[id,id_product,reference,ean13]`);
      out.push(...psMapped(products, combinations, matchBy).filter((p) => keys.includes(p.key)));
    }
    return out;
  },

  async readStock(conn, http, products) {
    const ids = products.map((p) => splitId(p.shopId));
    const stock = await stockRows(conn, http, ids.map((i) => i.product));
    const prices = new Map<string, number | null>();
    const simple = ids.filter((i) => i.attribute === "0").map((i) => i.product);
    for (let i = 0; i < simple.length; i += PS_CHUNK) {
      for (const p of await psList<PsProduct>(conn, http, "products", `filter[id]=[${simple.slice(i, i + PS_CHUNK).join("|")}]&display=[id,price]`)) {
        prices.set(String(p.id), p.price === undefined ? null : decimalToUnits(String(p.price)));
      }
    }
    return products.flatMap((p) => {
      const { product, attribute } = splitId(p.shopId);
      const row = stock.get(`${product}:${attribute}`);
      return row ? [{ shopId: p.shopId, quantity: Number(row.quantity), price: prices.get(p.shopId) ?? null }] : [];
    });
  },

  async writeStock(conn, http, writes) {
    const failed = new Map<string, { missing: boolean; reason: string }>();
    const fail = (shopId: string, missing: boolean, reason: string) => void (failed.has(shopId) || failed.set(shopId, { missing, reason }));
    const stocked = writes.filter((w) => w.quantity !== null);
    const rows = stocked.length > 0 ? await stockRows(conn, http, stocked.map((w) => splitId(w.shopId).product)) : new Map<string, PsStock>();
    for (const w of stocked) {
      const { product, attribute } = splitId(w.shopId);
      const row = rows.get(`${product}:${attribute}`);
      if (!row) {
        fail(w.shopId, true, `PrestaShop has no stock for ${attribute === "0" ? `product ${product}` : `combination ${attribute} of product ${product}`}`);
        continue;
      }
      const xml = resourceXml("stock_available", {
        id: row.id,
        id_product: row.id_product,
        id_product_attribute: row.id_product_attribute,
        id_shop: row.id_shop,
        id_shop_group: row.id_shop_group,
        quantity: w.quantity!,
        depends_on_stock: row.depends_on_stock ?? 0,
        out_of_stock: row.out_of_stock ?? 2,
        location: row.location ?? "",
      });
      const res = await http.request({ path: `/api/stock_availables/${row.id}`, method: "PUT", headers: xmlHeaders(conn), body: xml, accept: [400, 404] });
      if (res.status === 404 || res.status === 400) fail(w.shopId, res.status === 404, `PrestaShop refused the stock (${res.status}): ${errorWords(res.text)}`);
    }
    for (const w of writes.filter((w) => w.price !== null && !failed.has(w.shopId))) {
      const { product, attribute } = splitId(w.shopId);
      if (attribute !== "0") {
        fail(w.shopId, false, `Stock written; a combination's price is an impact on its product's price in PrestaShop, and price sync writes products' prices only`);
        continue;
      }
      const read = await http.request({ path: `/api/products/${product}`, headers: auth(conn), accept: [404] });
      if (read.status === 404) {
        fail(w.shopId, true, `PrestaShop has no product ${product}`);
        continue;
      }
      const xml = withPrice(read.text, priceText(w.price!));
      if (!xml) {
        fail(w.shopId, false, `PrestaShop's product ${product} came without a price field: ${read.text.slice(0, 200)}`);
        continue;
      }
      const res = await http.request({ path: `/api/products/${product}`, method: "PUT", headers: xmlHeaders(conn), body: xml, accept: [400, 404] });
      if (res.status === 404 || res.status === 400) fail(w.shopId, res.status === 404, `PrestaShop refused the price (${res.status}): ${errorWords(res.text)}`);
    }
    return writes.map((w) => {
      const f = failed.get(w.shopId);
      return f ? { shopId: w.shopId, ok: false as const, ...f } : { shopId: w.shopId, ok: true as const };
    });
  },
};

/** PrestaShop's failures in a shop owner's words (./explain.ts). */
export const prestashopWords: PlatformWords = {
  label: "PrestaShop",
  credentials: "webservice key",
  credentialsWhere: "PrestaShop's Advanced Parameters > Webservice",
  grant: "tick the resource's methods for the key",
  orderName: (id) => `order with reference ${id}`,
  subjectOf(call) {
    const path = call.split(" ")[1] ?? "";
    if (/^\/api\/(products|combinations|stock_availables)\b/.test(path)) return { what: "product", id: /^\/api\/products\/(\d+)/.exec(path)?.[1] };
    if (path.startsWith("/api/order_carriers")) return { what: "tracking" };
    if (path.startsWith("/api/order_histories")) return { what: "status" };
    if (path.startsWith("/api/messages")) return { what: "note" };
    if (path.startsWith("/api/orders")) return { what: "order" };
    return { what: "other" };
  },
  said: (answer) => messageIn(answer),
};

export const prestashop: ShopPlatform<Credentials<"prestashop">, Settings<"prestashop">> = {
  name: "prestashop",
  label: "PrestaShop",
  credentials: CREDENTIALS.prestashop,
  settings: SETTINGS.prestashop,
  explainFailure: (failure, order) => explainShopFailure(prestashopWords, failure, order),
  stock: prestashopStock,

  async test(conn, http) {
    const notChecked = (name: string, why: string): Check => ({ name, ok: false, message: `Not checked: ${why}.` });
    const notShop = (message: string) => [{ name: "reachable", ok: false, message }, notChecked("credentials", "the shop did not answer as PrestaShop"), notChecked("permissions", "the shop did not answer as PrestaShop")];
    let res;
    try {
      res = await http.request({ path: "/api/", headers: auth(conn), accept: [401, 503] });
    } catch (error) {
      if (!(error instanceof ShopError)) throw error;
      const hint = error.kind === "not_found" ? " Is base_url the shop's root address, where the webservice answers under /api/?" : "";
      return notShop(`${error.message}.${hint}`);
    }
    if (res.status === 503) return notShop(`The shop's webservice is off (503: ${errorWords(res.text)}): turn it on under Advanced Parameters > Webservice.`);
    const reachable: Check = { name: "reachable", ok: true, message: "PrestaShop's webservice answers at base_url/api/." };
    if (res.status === 401) {
      return [
        reachable,
        { name: "credentials", ok: false, message: `PrestaShop refused the webservice key (401: ${errorWords(res.text)}): check the key, and that it is enabled under Advanced Parameters > Webservice.` },
        notChecked("permissions", "the webservice key was refused"),
      ];
    }
    const permissions = permissionsOf(res.text);
    if (!permissions) return notShop("The shop answered GET /api/, but not with PrestaShop's webservice listing: is base_url the shop's root address?");
    const credentials: Check = { name: "credentials", ok: true, message: "The webservice key is accepted." };
    const missing = Object.entries(NEEDED)
      .map(([resource, { methods, why }]) => ({ resource, why, lacking: methods.filter((m) => !permissions.get(resource)?.has(m)) }))
      .filter((m) => m.lacking.length);
    if (!missing.length) {
      return [reachable, credentials, { name: "permissions", ok: true, message: "The key may read orders, read and update order carriers, and read and add order histories and messages." }];
    }
    const list = missing.map((m) => `${m.resource}: ${m.lacking.map((l) => l.toUpperCase()).join(", ")} (${m.why})`).join("; ");
    return [reachable, credentials, { name: "permissions", ok: false, message: `The webservice key lacks ${list}. Tick them for the key under Advanced Parameters > Webservice.` }];
  },

  async findOrder(conn, http, order: OrderRef) {
    const value = filterValue(order.externalId);
    if (value === null) throw new ShopError("not_found", `PrestaShop order references hold no | , [ ] or %: there is no order with reference ${order.externalId} (our order ${order.reference})`);
    const res = await http.request({ path: `/api/orders?filter[reference]=[${encodeURIComponent(value)}]&display=full&output_format=JSON`, headers: auth(conn) });
    const found = listOf<Order>(res.json(), "orders")
      .filter((o) => o.reference === order.externalId)
      .sort((a, b) => Number(a.id) - Number(b.id));
    if (!found.length) throw new ShopError("not_found", `PrestaShop has no order with reference ${order.externalId} (our order ${order.reference})`);
    const rows = found.flatMap((o) => o.associations?.order_rows ?? []);
    // Two rows of one product (two combinations) share its id: those match by reference only.
    const count = (id: Num) => rows.filter((r) => String(r.product_id) === String(id)).length;
    const items: ShopItem[] = rows.map((r) => ({
      id: String(r.id),
      productIds: count(r.product_id) === 1 ? [String(r.product_id)] : [],
      sku: r.product_reference ? r.product_reference : null,
      quantity: Number(r.product_quantity),
    }));
    const parts: Part[] = found.map((o) => ({
      id: String(o.id),
      id_carrier: o.id_carrier === undefined ? null : String(o.id_carrier),
      rows: (o.associations?.order_rows ?? []).map((r) => String(r.id)),
    }));
    // Notes go to the first of the orders; shipments to the orders holding the shipped rows.
    return { id: parts[0]!.id, number: found[0]!.reference, items, extra: { orders: parts } };
  },

  async writeShipment(conn, http, shopOrder, write: ShipmentWrite): Promise<WriteResult> {
    // Every line must be on the shop's order, though PrestaShop records no quantities per shipment.
    const shipped = new Set(shippedItems(shopOrder, write).map((s) => s.item.id));
    const parts = partsOf(shopOrder).filter((p) => p.rows.some((r) => shipped.has(r)));
    const carriers = await carriersOf(conn, http, parts);
    const numbers = [...new Set(write.trackings.map((t) => t.number.trim()))];
    const puts: { carrier: OrderCarrier; joined: string }[] = [];
    for (const part of parts) {
      const carrier = carriers.get(part.id);
      if (!carrier) throw new ShopError("invalid", `The shop's order ${shopOrder.number} (id ${part.id}) has no carrier record (order_carriers) to hold a tracking number: nothing was written`);
      const existing = trackingNumbersOf(carrier);
      const adding = numbers.filter((n) => !existing.includes(n));
      if (!adding.length) continue;
      const joined = [...existing, ...adding].join(JOIN);
      if (joined.length > TRACKING_NUMBER_CHARS) {
        throw new ShopError(
          "invalid",
          `PrestaShop keeps one tracking number field of at most ${TRACKING_NUMBER_CHARS} characters per order; with ${adding.join(JOIN)} it would hold "${joined}" (${joined.length} characters): nothing was written`,
        );
      }
      puts.push({ carrier, joined });
    }
    for (const { carrier, joined } of puts) {
      const { id, id_order, id_carrier, id_order_invoice, weight, shipping_cost_tax_excl, shipping_cost_tax_incl } = carrier;
      await http.request({
        method: "PUT",
        path: `/api/order_carriers/${id}?output_format=JSON`,
        headers: xmlHeaders(conn),
        body: resourceXml("order_carrier", { id, id_order, id_carrier, id_order_invoice, weight, shipping_cost_tax_excl, shipping_cost_tax_incl, tracking_number: joined }),
      });
    }
    const shopIds = parts.map((p) => `order_carrier/${carriers.get(p.id)!.id}`);
    let wrote = puts.length > 0;
    if (write.orderShippedInFull) {
      const states = await shippedStates(conn, http, parts);
      shopIds.push(...states.ids.map((id) => `order_history/${id}`));
      wrote ||= states.added;
    }
    return wrote ? { outcome: "written", shopIds } : { outcome: "found", shopIds };
  },

  async writeNote(conn, http, shopOrder, write: NoteWrite, options): Promise<WriteResult> {
    if (options.look) {
      const res = await http.request({ path: `/api/messages?filter[id_order]=[${shopOrder.id}]&display=full&output_format=JSON`, headers: auth(conn) });
      // Not a message another write-back of the order recorded as its own (the same words twice).
      const taken = new Set(options.taken ?? []);
      const same = listOf<Message>(res.json(), "messages").find((m) => m.message === write.text && !taken.has(`message/${m.id}`));
      if (same) return { outcome: "found", shopIds: [`message/${same.id}`] };
    }
    const res = await http.request({
      method: "POST",
      path: "/api/messages?output_format=JSON",
      headers: xmlHeaders(conn),
      body: resourceXml("message", { id_order: shopOrder.id, message: write.text, private: 1 }),
    });
    const id = res.dryRun ? undefined : res.json<{ message?: { id?: Num } }>().message?.id;
    return { outcome: "written", shopIds: id === undefined ? [] : [`message/${id}`] };
  },

  // PrestaShop has no on-hold state of its own (its states are the shop's list, each with its own
  // e-mails and meaning): only a state the shop made for it, named in hold_state_id, is set; without
  // one the private message says what waits, and the order gets no shipped state while it does.
  // Adding an order_history through the webservice changes the order's current_state
  // (OrderHistory::addWs calls changeIdOrderState: classes/order/OrderHistory.php).
  async hold(conn, http, shopOrder) {
    const hold = conn.settings.hold_state_id;
    if (hold === null) return { outcome: "skipped", reason: `PrestaShop has no on-hold order state of its own and none is set (settings.hold_state_id): order ${shopOrder.number} is left in its state, the private message says what waits` };
    const parts = partsOf(shopOrder);
    const current = await currentStates(conn, http, parts);
    const ids: string[] = [];
    let added = false;
    let left: string | null = null;
    let histories: OrderHistory[] | null = null;
    for (const part of parts) {
      const state = current.get(part.id);
      if (state === hold) {
        // On hold already: by an earlier attempt, or by hand. Its entry is the one recorded.
        histories ??= await historiesOf(conn, http, parts);
        const entry = histories.filter((h) => String(h.id_order) === part.id && Number(h.id_order_state) === hold).at(-1);
        if (entry) ids.push(String(entry.id));
        continue;
      }
      if (state === undefined || finalStates(conn).includes(state)) {
        left = `PrestaShop order ${shopOrder.number} (id ${part.id}) is in state ${state ?? "unknown"} (shipped, delivered, cancelled, refunded or a payment error): it is left as it is`;
        continue;
      }
      // sendemail=1: the customer gets the hold state's own e-mail, if the shop gave it one.
      const res = await http.request({ method: "POST", path: "/api/order_histories?sendemail=1&output_format=JSON", headers: xmlHeaders(conn), body: resourceXml("order_history", { id_order: part.id, id_order_state: hold }) });
      added = true;
      const id = res.dryRun ? undefined : res.json<{ order_history?: { id?: Num } }>().order_history?.id;
      if (id !== undefined) ids.push(String(id));
    }
    if (!added && !ids.length) return { outcome: "skipped", reason: left ?? `PrestaShop order ${shopOrder.number} could not be read` };
    return added ? { outcome: "written", shopIds: ids } : { outcome: "found", shopIds: ids };
  },

  // Off hold: back to the state the order had before the hold (its history keeps it), only while it
  // is still in the hold state: a state the shop owner set meanwhile stands. No e-mail: the customer
  // was told about that state when the order first had it.
  async release(conn, http, shopOrder, _order, options) {
    const hold = conn.settings.hold_state_id;
    if (hold === null) return { outcome: "skipped", reason: `PrestaShop has no on-hold order state of its own and none is set (settings.hold_state_id): order ${shopOrder.number} was left in its state, nothing to release` };
    const parts = partsOf(shopOrder);
    const [current, histories] = [await currentStates(conn, http, parts), await historiesOf(conn, http, parts)];
    const ids: string[] = [];
    let added = false;
    let left: string | null = null;
    for (const part of parts) {
      const own = histories.filter((h) => String(h.id_order) === part.id).sort((a, b) => Number(a.id) - Number(b.id));
      const lastHold = own.findLastIndex((h) => Number(h.id_order_state) === hold);
      const before = lastHold < 0 ? undefined : own.slice(0, lastHold).findLast((h) => Number(h.id_order_state) !== hold);
      const state = current.get(part.id);
      if (state !== hold) {
        // After an unclear attempt: the entry right after the hold, back to the state before it, is ours.
        const after = own[lastHold + 1];
        if (options.look && before && after && lastHold === own.length - 2 && Number(after.id_order_state) === Number(before.id_order_state)) ids.push(String(after.id));
        else left = `PrestaShop order ${shopOrder.number} (id ${part.id}) is in state ${state ?? "unknown"}, no longer on hold (state ${hold}): it is left as the shop set it`;
        continue;
      }
      if (!before) {
        left = `PrestaShop order ${shopOrder.number} (id ${part.id}) has no state before its hold (state ${hold}) in its history to go back to: it is left on hold`;
        continue;
      }
      const res = await http.request({ method: "POST", path: "/api/order_histories?output_format=JSON", headers: xmlHeaders(conn), body: resourceXml("order_history", { id_order: part.id, id_order_state: Number(before.id_order_state) }) });
      added = true;
      const id = res.dryRun ? undefined : res.json<{ order_history?: { id?: Num } }>().order_history?.id;
      if (id !== undefined) ids.push(String(id));
    }
    if (!added && !ids.length) return { outcome: "skipped", reason: left ?? `PrestaShop order ${shopOrder.number} could not be read` };
    return added ? { outcome: "written", shopIds: ids } : { outcome: "found", shopIds: ids };
  },

  // PrestaShop has no "completed" of its own: Delivered is the carrier's to confirm. Once every line
  // is final, an order that shipped anything (its carrier holds a tracking number) gets the shipped
  // state if no shipment gave it (some lines were declined, so none shipped the order in full).
  async complete(conn, http, shopOrder) {
    const parts = partsOf(shopOrder);
    const carriers = await carriersOf(conn, http, parts);
    const shipped = parts.filter((p) => {
      const carrier = carriers.get(p.id);
      return carrier && trackingNumbersOf(carrier).length;
    });
    if (!shipped.length) return { outcome: "skipped", reason: "Nothing of the order was shipped (its carrier holds no tracking number): PrestaShop gets no shipped state." };
    const states = await shippedStates(conn, http, shipped);
    const shopIds = states.ids.map((id) => `order_history/${id}`);
    return states.added ? { outcome: "written", shopIds } : { outcome: "found", shopIds };
  },
};
