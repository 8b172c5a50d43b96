// A stand-in PrestaShop webservice (/api/), written from PrestaShop's webservice documentation
// (devdocs: reference, resources order_carriers, order_histories, messages, "Testing access") and
// its WebserviceRequest's error codes: the key as the Basic user (or ws_key), 32 characters;
// permissions per resource and method, as Advanced Parameters > Webservice ticks them (a resource
// not granted: 401 code 26; a method not granted: 405 code 25); XML by default and JSON with
// output_format=JSON (an empty list is [] in JSON, not {"orders": []}: PrestaShop/PrestaShop#10172,
// #22760, #26752; the adapter reads both shapes); filter[field]=[value] and [a|b]; PUT and POST take an
// XML resource, validated as the classes do (order_carrier.tracking_number: isTrackingNumber, 64
// characters; message: 1600). Errors in PrestaShop's shape, XML or JSON:
// <prestashop><errors><error><code>…</code><message>…</message></error></errors></prestashop>.
// Stock and prices: products, combinations and stock_availables, listed with display=[fields] and
// limit=offset,count; a stock_available PUT whole (StockAvailable's required fields, quantity an
// integer); a product PUT refusing its read-only fields (quantity, manufacturer_name) as PrestaShop does.
import { randomBytes } from "node:crypto";
import { SaxesParser } from "saxes";
import type { StandInPlatform, StandInReply, StandInRequest } from "./harness";

type Fields = Record<string, string>;
/** A resource as the shop holds it: its id, and its fields as the webservice answers them (strings). */
type Row = { id: number; [field: string]: unknown };
export type PrestaShopSeed = {
  orders?: {
    id: number;
    reference: string;
    id_carrier?: number;
    current_state?: number;
    /**
     * The states the order went through, oldest first, its last the current one: a real order's
     * history starts with its first state (PaymentModule::validateOrder adds it). Left out: no
     * history, for tests that do not read it.
     */
    history?: number[];
    rows: { id: number; product_id: number; product_attribute_id?: number; product_reference: string; product_name?: string; product_quantity: number }[];
    /** The order's carrier record; null for none (a virtual order). */
    carrier?: { id: number; tracking_number?: string } | null;
  }[];
  /** The catalogue: products (a stock_available each) and their combinations (one each too). */
  products?: { id: number; reference: string; ean13?: string; price?: string; quantity?: number; combinations?: { id: number; reference: string; ean13?: string; quantity?: number }[] }[];
  /** Methods per resource the key may use; by default what the write-back needs (and the stock sync, with products). */
  permissions?: Record<string, string[]>;
};
export type PrestaShopState = {
  key: string;
  permissions: Record<string, string[]>;
  orders: (Row & { associations: { order_rows: Row[] } })[];
  order_carriers: Row[];
  order_histories: Row[];
  messages: Row[];
  products: Row[];
  combinations: Row[];
  stock_availables: Row[];
  /** What each write asked besides its resource: the sendemail flag. */
  flags: { method: string; resource: string; id: number; sendemail: string | null }[];
  nextId: number;
};

export const PRESTASHOP_NEEDED = { orders: ["GET", "HEAD"], order_carriers: ["GET", "PUT", "HEAD"], order_histories: ["GET", "POST", "HEAD"], messages: ["GET", "POST", "HEAD"] };
export const PRESTASHOP_STOCK = { products: ["GET", "PUT", "HEAD"], combinations: ["GET", "HEAD"], stock_availables: ["GET", "PUT", "HEAD"] };
const SINGULAR: Record<string, string> = { orders: "order", order_carriers: "order_carrier", order_histories: "order_history", messages: "message", products: "product", combinations: "combination", stock_availables: "stock_available" };
const RESOURCES = [...Object.keys(SINGULAR), "addresses", "carriers", "customers", "order_states"];
const REALM = 'Basic realm="Welcome to PrestaShop Webservice, please enter the authentication key as the login. No password required."';
/** Validate::isTrackingNumber. */
const TRACKING_NUMBER = /^[~:#,%&_=()[\].? +\-@/a-zA-Z0-9]+$/;

const cdata = (v: string) => `<![CDATA[${v}]]>`;

function toXml(name: string, value: unknown): string {
  if (Array.isArray(value)) return `<${name}>${value.map((v) => toXml(SINGULAR[name] ?? name.replace(/s$/, ""), v)).join("")}</${name}>`;
  if (value && typeof value === "object") return `<${name}>${Object.entries(value).map(([k, v]) => toXml(k, v)).join("")}</${name}>`;
  return `<${name}>${cdata(String(value ?? ""))}</${name}>`;
}

function reply(status: number, json: boolean, body: Record<string, unknown> | unknown[], headers: Record<string, string> = {}): StandInReply {
  if (json) return { status, body, headers };
  const inner = Array.isArray(body) ? "" : Object.entries(body).map(([k, v]) => toXml(k, v)).join("");
  return { status, body: `<?xml version="1.0" encoding="UTF-8"?>\n<prestashop xmlns:xlink="http://www.w3.org/1999/xlink">${inner}</prestashop>`, headers: { "content-type": "text/xml;charset=utf-8", ...headers } };
}

function errors(status: number, json: boolean, list: [number, string][], headers: Record<string, string> = {}): StandInReply {
  if (json) return { status, body: { errors: list.map(([code, message]) => ({ code, message })) }, headers };
  const xml = list.map(([code, message]) => `<error><code>${cdata(String(code))}</code><message>${cdata(message)}</message></error>`).join("");
  return { status, body: `<?xml version="1.0" encoding="UTF-8"?>\n<prestashop xmlns:xlink="http://www.w3.org/1999/xlink"><errors>${xml}</errors></prestashop>`, headers: { "content-type": "text/xml;charset=utf-8", ...headers } };
}

/** The one resource of a PUT or POST body: its element name and its fields' texts. */
function readResource(xml: string): { name: string; fields: Fields } | null {
  const parser = new SaxesParser();
  let depth = 0;
  let name = "";
  let field = "";
  const fields: Fields = {};
  parser.on("opentag", (tag) => {
    depth++;
    if (depth === 2) name = tag.name;
    if (depth === 3) field = tag.name;
  });
  parser.on("text", (t) => void (depth === 3 && (fields[field] = (fields[field] ?? "") + t)));
  parser.on("cdata", (t) => void (depth === 3 && (fields[field] = (fields[field] ?? "") + t)));
  parser.on("closetag", () => {
    if (depth === 3) fields[field] = (fields[field] ?? "").trim();
    depth--;
  });
  try {
    parser.write(xml).close();
  } catch {
    return null;
  }
  return name ? { name, fields } : null;
}

function keyOf(req: StandInRequest): string | null {
  const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "");
  if (basic) return Buffer.from(basic[1]!, "base64").toString("utf8").split(":")[0] ?? "";
  return req.query.get("ws_key");
}

function listing(state: PrestaShopState, base: string): StandInReply {
  const entries = Object.entries(state.permissions).map(([resource, methods]) => {
    const flags = ["get", "put", "post", "patch", "delete", "head"].map((m) => `${m}="${methods.includes(m.toUpperCase())}"`).join(" ");
    return `<${resource} xlink:href="${base}/api/${resource}" ${flags}><description xlink:href="${base}/api/${resource}" ${flags}>${resource}</description></${resource}>`;
  });
  return { status: 200, body: `<?xml version="1.0" encoding="UTF-8"?>\n<prestashop xmlns:xlink="http://www.w3.org/1999/xlink"><api shopName="Stand-in">${entries.join("")}</api></prestashop>`, headers: { "content-type": "text/xml;charset=utf-8" } };
}

function validate(resource: string, fields: Fields): [number, string][] {
  const problems: [number, string][] = [];
  const required: Record<string, string[]> = { order_carriers: ["id_order", "id_carrier"], order_histories: ["id_order_state", "id_order"], messages: ["message"] };
  for (const f of required[resource] ?? []) if (!fields[f]) problems.push([41, `parameter "${f}" required`]);
  if (resource === "order_carriers" && fields.tracking_number) {
    if (fields.tracking_number.length > 64) problems.push([85, 'Validation error: "The tracking_number field is too long (64 chars max)."']);
    else if (!TRACKING_NUMBER.test(fields.tracking_number)) problems.push([85, 'Validation error: "Property OrderCarrier->tracking_number is not valid"']);
  }
  if (resource === "stock_availables") {
    for (const f of ["id_product", "id_product_attribute", "quantity", "depends_on_stock", "out_of_stock"]) if (!fields[f]) problems.push([41, `parameter "${f}" required`]);
    if (fields.quantity && !/^-?\d+$/.test(fields.quantity)) problems.push([85, 'Validation error: "Property StockAvailable->quantity is not valid"']);
  }
  if (resource === "products") {
    for (const f of ["quantity", "manufacturer_name"]) if (f in fields) problems.push([93, `parameter "${f}" not writable. Please remove this attribute of this XML`]);
    if (fields.price !== undefined && !/^\d+(\.\d+)?$/.test(fields.price)) problems.push([85, 'Validation error: "Property Product->price is not valid"']);
  }
  if (resource === "messages" && (fields.message ?? "").length > 1600) problems.push([85, 'Validation error: "The message field is too long (1600 chars max)."']);
  return problems;
}

export const prestashopStandIn: StandInPlatform<PrestaShopState> = {
  name: "prestashop",
  create(raw) {
    const seed = raw as PrestaShopSeed;
    const key = randomBytes(16).toString("hex").toUpperCase();
    const permissions = seed.permissions ?? (seed.products ? { ...PRESTASHOP_NEEDED, ...PRESTASHOP_STOCK } : PRESTASHOP_NEEDED);
    const state: PrestaShopState = { key, permissions, orders: [], order_carriers: [], order_histories: [], messages: [], products: [], combinations: [], stock_availables: [], flags: [], nextId: 500 };
    let stockId = 900;
    const stockRow = (product: number, attribute: number, quantity: number) =>
      state.stock_availables.push({ id: stockId++, id_product: String(product), id_product_attribute: String(attribute), id_shop: "1", id_shop_group: "0", quantity: String(quantity), depends_on_stock: "0", out_of_stock: "2", location: "" });
    for (const p of seed.products ?? []) {
      state.products.push({ id: p.id, reference: p.reference, ean13: p.ean13 ?? "", price: p.price ?? "0.000000", manufacturer_name: "", quantity: "0", name: p.reference, active: "1" });
      stockRow(p.id, 0, p.quantity ?? 0);
      for (const c of p.combinations ?? []) {
        state.combinations.push({ id: c.id, id_product: String(p.id), reference: c.reference, ean13: c.ean13 ?? "", price: "0.000000" });
        stockRow(p.id, c.id, c.quantity ?? 0);
      }
    }
    for (const o of seed.orders ?? []) {
      state.orders.push({
        id: o.id,
        reference: o.reference,
        id_carrier: String(o.id_carrier ?? 2),
        current_state: String(o.current_state ?? 2),
        associations: {
          order_rows: o.rows.map((r) => ({
            id: r.id,
            product_id: String(r.product_id),
            product_attribute_id: String(r.product_attribute_id ?? 0),
            product_quantity: String(r.product_quantity),
            product_name: r.product_name ?? r.product_reference,
            product_reference: r.product_reference,
          })),
        },
      });
      (o.history ?? []).forEach((stateId, i) =>
        state.order_histories.push({ id: o.id * 10 + i, id_order: String(o.id), id_order_state: String(stateId), id_employee: "0", date_add: "2026-11-20 10:00:00" }),
      );
      if (o.history?.length) state.orders.at(-1)!.current_state = String(o.history.at(-1));
      if (o.carrier !== null) {
        const c = o.carrier ?? { id: o.id + 100 };
        state.order_carriers.push({
          id: c.id,
          id_order: String(o.id),
          id_carrier: String(o.id_carrier ?? 2),
          id_order_invoice: "0",
          weight: "0.500000",
          shipping_cost_tax_excl: "5.000000",
          shipping_cost_tax_incl: "6.050000",
          tracking_number: c.tracking_number ?? "",
          date_add: "2026-11-20 10:00:00",
        });
      }
    }
    return { credentials: { webservice_key: key }, state };
  },

  handle(shop, req: StandInRequest) {
    const state = shop.state;
    const json = req.query.get("output_format") === "JSON";
    const key = keyOf(req);
    const unauthorized = (list: [number, string][]) => errors(401, json, list, { "WWW-Authenticate": REALM });
    if (key === null) return unauthorized([[16, "Please enter the authentication key as the login. No password required"]]);
    if (key === "") return unauthorized([[17, "Authentication key is empty"]]);
    if (key.length !== 32) return unauthorized([[18, "Invalid authentication key format"]]);
    if (key !== state.key) return unauthorized([[20, "Authentification key is not active"], [21, "No permission for this authentication key"]]);

    const m = /^\/api\/?([a-z_]*)(?:\/(\d+))?$/.exec(req.path);
    if (!m) return { status: 404, body: "Not Found" };
    const [, resource = "", id] = m;
    if (!resource) return req.method === "GET" ? listing(state, `http://stand-in/s/${shop.id}`) : errors(405, json, [[23, `Method ${req.method} is not valid`]]);
    if (!RESOURCES.includes(resource)) return errors(400, json, [[27, `Resource of type "${resource}" does not exists`]]);
    if (!state.permissions[resource]) return errors(401, json, [[26, `Resource of type "${resource}" is not allowed with this authentication key`]]);
    if (!state.permissions[resource].includes(req.method)) return errors(405, json, [[25, `Method ${req.method} is not allowed for the resource ${resource} with this authentication key`]]);
    const rows = (state as unknown as Record<string, Row[]>)[resource];
    if (!rows) return errors(400, json, [[27, `Resource of type "${resource}" does not exists`]]);
    const singular = SINGULAR[resource]!;

    if (req.method === "GET" && id) {
      // An unknown id is the webservice's numbered error, not an empty 404: WebserviceRequest's
      // check of the ids asked for sets 404 "Id(s) not exists: <id>", code 87
      // (classes/webservice/WebserviceRequest.php; PrestaShop/php-webservice-lib's tests expect the same message).
      const row = rows.find((r) => r.id === Number(id));
      return row ? reply(200, json, { [singular]: row }) : errors(404, json, [[87, `Id(s) not exists: ${id}`]]);
    }
    if (req.method === "GET") {
      const filters = [...req.query.entries()].filter(([k]) => k.startsWith("filter[")).map(([k, v]) => [k.slice(7, -1), /^\[(.*)\]$/.exec(v)?.[1] ?? v] as const);
      // [a|b] is "a or b"; values compare as MySQL's collation does, regardless of case.
      const matching = rows.filter((r) => filters.every(([f, v]) => v.toLowerCase().split("|").includes(String(r[f] ?? "").toLowerCase())));
      const display = req.query.get("display");
      const fields = display && display !== "full" ? (/^\[(.*)\]$/.exec(display)?.[1] ?? "").split(",") : null;
      const [offset, count] = (req.query.get("limit") ?? "").split(",").map(Number);
      const limited = count !== undefined && !Number.isNaN(count) ? matching.slice(offset, offset! + count) : matching;
      const shown = display === "full" ? limited : limited.map((r) => (fields ? Object.fromEntries(fields.map((f) => [f, f === "id" ? r.id : r[f]])) : { id: r.id }));
      if (json) return reply(200, true, shown.length ? { [resource]: shown } : []);
      return reply(200, false, { [resource]: shown });
    }

    const body = readResource(req.body);
    if (!body || body.name !== singular) return errors(400, json, [[38, `Unable to parse XML: the ${singular} element is missing`]]);
    const problems = validate(resource, body.fields);
    if (problems.length) return errors(400, json, problems);
    const sendemail = req.query.get("sendemail");
    if (req.method === "PUT") {
      const row = rows.find((r) => r.id === Number(id));
      if (!id || !row) return errors(404, json, [[87, `Id(s) not exists: ${id ?? ""}`]]);
      if (body.fields.id !== String(row.id)) return errors(400, json, [[90, "id is required when modifying a resource"]]);
      const { id: _ignored, ...changes } = body.fields;
      Object.assign(row, changes);
      state.flags.push({ method: "PUT", resource, id: row.id, sendemail });
      return reply(200, json, { [singular]: row });
    }
    if (req.method === "POST" && !id) {
      if (resource === "order_histories" || resource === "messages") {
        const order = state.orders.find((o) => o.id === Number(body.fields.id_order));
        if (!order) return errors(400, json, [[85, 'Validation error: "Property ' + (resource === "messages" ? "Message" : "OrderHistory") + '->id_order is not valid"']]);
        if (resource === "order_histories") order.current_state = body.fields.id_order_state!;
      }
      const row: Row = { ...body.fields, id: state.nextId++, date_add: "2026-11-25 12:00:00" };
      if (resource === "order_histories") row.id_employee ??= "0";
      rows.push(row);
      state.flags.push({ method: "POST", resource, id: row.id, sendemail });
      return reply(201, json, { [singular]: row });
    }
    return errors(405, json, [[23, `Method ${req.method} is not valid`]]);
  },
};
