// A Shopware 6 shop's Admin API, as its documentation describes it (developer.shopware.com: Admin API
// authentication, search criteria, action routes; the core's state machines and error shapes):
// - POST /api/oauth/token (client_credentials) hands out a bearer token that expires after
//   `expires_in` seconds (600 in Shopware; shorter per seed, to test refreshing), at most 10 a
//   minute (Shopware SaaS's limit per IP; the 11th answers 429 with Retry-After);
// - every other /api route wants that token (401 in Shopware's OAuth error shape otherwise) and the
//   integration's ACL privileges (403 FRAMEWORK__MISSING_PRIVILEGE_ERROR, naming the missing ones);
// - POST /api/search/order and /api/search/order-delivery with equals filters, ids, limit, a sort on
//   createdAt and associations (each association needs its entity's read privilege, as in Shopware);
// - PATCH /api/order-delivery/{id} (trackingCodes) and /api/order/{id} (internalComment, when the
//   seed's Shopware has it: 6.7 on), 204;
// - POST /api/_action/order_delivery/{id}/state/{transition} and /api/_action/order/{id}/state/{transition}:
//   the privilege first (order_delivery:update / order:update), then the core's state machine
//   (a transition not allowed from the current state is Shopware's 400 SYSTEM__ILLEGAL_STATE_TRANSITION).
// - POST /api/search/product (product:read; tax:read for the tax association) with page/limit,
//   ids, equals/equalsAny filters on productNumber and ean, and the sw-inheritance header (a
//   variant's unset tax and price read from its parent);
// - DELETE /api/product/{id} (a shop owner deleting a product), 204;
// - POST /api/_action/sync: operations keyed by name, each {entity, action, payload}; an upsert of
//   an existing product needs product:update, of a new id product:create and every required field.
//   The whole request is one transaction: any error answers 400 with each error's source.pointer
//   "/<key>/<index>/<field>" and writes nothing.
// Everything answers in Shopware's error shape {"errors": [{status, code, title, detail, meta}]}.
import type { StandInPlatform, StandInReply, StandInRequest } from "./harness";

/** The core's delivery state machine (Migration1536233560BasicData): action -> from -> to. */
const DELIVERY_TRANSITIONS: Record<string, Record<string, string>> = {
  open: { ship: "shipped", ship_partially: "shipped_partially", cancel: "cancelled" },
  shipped: { retour: "returned", retour_partially: "returned_partially", cancel: "cancelled" },
  shipped_partially: { retour: "returned", retour_partially: "returned_partially", ship: "shipped", cancel: "cancelled" },
  returned: {},
  returned_partially: {},
  cancelled: { reopen: "open" },
};

/** The core's order state machine. */
const ORDER_TRANSITIONS: Record<string, Record<string, string>> = {
  open: { process: "in_progress", cancel: "cancelled" },
  in_progress: { complete: "completed", cancel: "cancelled" },
  completed: { reopen: "open" },
  cancelled: { reopen: "open" },
};

const STATE_NAMES: Record<string, string> = {
  open: "Open",
  in_progress: "In progress",
  completed: "Done",
  cancelled: "Cancelled",
  shipped: "Shipped",
  shipped_partially: "Shipped (partially)",
  returned: "Returned",
  returned_partially: "Returned (partially)",
};

/** Every privilege an "administrator" integration has, as far as this stand-in asks for them. */
const ALL_PRIVILEGES = ["product:read", "product:update", "tax:read", "order:read", "order:update", "order_line_item:read", "order_delivery:read", "order_delivery:update", "state_machine_state:read"];

export type ShopwareProduct = { id: string; parentId: string | null; productNumber: string; ean: string | null; stock: number; taxRate: number | null; price: { currencyId: string; gross: number; net: number; linked: boolean }[] | null };

export type ShopwareSeed = {
  /** The catalogue; a variant names its parent's id. Tax rate 21 unless given; variants inherit it when null. */
  products?: (Partial<ShopwareProduct> & { id: string; productNumber: string })[];
  /** The integration's ACL privileges; absent: an administrator integration (everything). */
  privileges?: string[];
  /** The tokens' lifetime (Shopware: 600). */
  token_lifetime_seconds?: number;
  /** Token requests a minute before a 429 (Shopware SaaS: 10 per minute and IP; every client of a stand-in shares one IP). */
  token_requests_per_minute?: number;
  /** false: a Shopware before 6.7, whose orders have no internalComment. */
  internal_comment?: boolean;
  orders?: {
    orderNumber: string;
    state?: string;
    internalComment?: string | null;
    lineItems?: { id?: string; productId: string | null; productNumber?: string | null; quantity: number; label?: string; type?: string }[];
    deliveries?: { id?: string; state?: string; trackingCodes?: string[] }[];
    /** Which of the deliveries is the order's primaryOrderDeliveryId (Shopware 6.7 on); default the first. */
    primaryDelivery?: number;
  }[];
};

export type ShopwareDelivery = { id: string; state: string; trackingCodes: string[] };
export type ShopwareLineItem = { id: string; productId: string | null; productNumber: string | null; quantity: number; label: string; type: string };
export type ShopwareOrder = {
  id: string;
  orderNumber: string;
  state: string;
  createdAt: string;
  /** Undefined on a Shopware without the field (before 6.7), as is primaryOrderDeliveryId. */
  internalComment?: string | null;
  primaryOrderDeliveryId?: string | null;
  lineItems: ShopwareLineItem[];
  deliveries: ShopwareDelivery[];
};
export type ShopwareState = {
  privileges: string[];
  tokenLifetimeSeconds: number;
  internalComment: boolean;
  /** access token -> when it expires (ms since the epoch). */
  tokens: Record<string, number>;
  tokenRequestsPerMinute: number;
  /** When each token request of the last minute came (ms since the epoch). */
  tokenRequests: number[];
  orders: ShopwareOrder[];
  products: ShopwareProduct[];
  /** The state machine history: every transition made, oldest first. */
  history: { entity: "order" | "order_delivery"; id: string; transition: string; from: string; to: string }[];
};

const hex = () => crypto.randomUUID().replace(/-/g, "");

/** A stable id per state (Shopware's state ids are per installation; stable is enough here). */
function stateId(machine: string, name: string): string {
  let h = 0x811c9dc5;
  const out: string[] = [];
  for (let round = 0; round < 4; round++) {
    for (const c of `${machine}.${name}.${round}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
    out.push(h.toString(16).padStart(8, "0"));
  }
  return out.join("");
}

const stateJson = (machine: string, name: string) => ({ id: stateId(machine, name), technicalName: name, name: STATE_NAMES[name] ?? name, stateMachineId: stateId(machine, "machine") });

type ShopwareError = { status: string; code: string; title: string; detail: string | null; meta?: unknown; source?: { pointer: string } };
const TITLES: Record<number, string> = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 429: "Too Many Requests" };

function fail(status: number, code: string, detail: string | null, parameters: Record<string, unknown> = {}): StandInReply {
  const error: ShopwareError = { status: String(status), code, title: TITLES[status] ?? "Error", detail, meta: { parameters } };
  return { status, body: { errors: [error] } };
}

/** league/oauth2-server's errors as Shopware renders them: the message as title, the hint as detail. */
function oauthFail(status: number, code: number, title: string, hint: string | null): StandInReply {
  return { status, body: { errors: [{ code: String(code), status: String(status), title, detail: hint }] } };
}

const missingPrivileges = (missing: string[]) =>
  fail(403, "FRAMEWORK__MISSING_PRIVILEGE_ERROR", JSON.stringify({ message: "Missing privilege", missingPrivileges: missing }));

function parseBody(req: StandInRequest): Record<string, unknown> | null {
  if (!req.body) return {};
  const type = req.headers["content-type"] ?? "";
  if (type.includes("application/x-www-form-urlencoded")) return Object.fromEntries(new URLSearchParams(req.body).entries());
  try {
    const parsed = JSON.parse(req.body) as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const malformed = () => fail(400, "FRAMEWORK__INVALID_REQUEST_PARAMETER", "The JSON payload is malformed.");

export const shopware: StandInPlatform<ShopwareState> = {
  name: "shopware",

  create(seed: unknown) {
    const s = (seed ?? {}) as ShopwareSeed;
    const internalComment = s.internal_comment ?? true;
    const orders: ShopwareOrder[] = (s.orders ?? []).map((o, i) => ({
      id: hex(),
      orderNumber: o.orderNumber,
      state: o.state ?? "open",
      createdAt: new Date(Date.UTC(2026, 0, 1, 12, i)).toISOString(),
      ...(internalComment ? { internalComment: o.internalComment ?? null } : {}),
      lineItems: (o.lineItems ?? []).map((l) => ({
        id: l.id ?? hex(),
        productId: l.productId,
        productNumber: l.productNumber ?? null,
        quantity: l.quantity,
        label: l.label ?? "Item",
        type: l.type ?? "product",
      })),
      deliveries: (o.deliveries ?? [{}]).map((d) => ({ id: d.id ?? hex(), state: d.state ?? "open", trackingCodes: d.trackingCodes ?? [] })),
    }));
    if (internalComment) orders.forEach((order, i) => (order.primaryOrderDeliveryId = order.deliveries[s.orders![i].primaryDelivery ?? 0]?.id ?? null));
    return {
      credentials: { client_id: `SWIA${hex().slice(0, 22).toUpperCase()}`, client_secret: hex() + hex() },
      state: { privileges: s.privileges ?? ALL_PRIVILEGES, tokenLifetimeSeconds: s.token_lifetime_seconds ?? 600, internalComment, tokens: {}, tokenRequestsPerMinute: s.token_requests_per_minute ?? 10, tokenRequests: [], orders, history: [], products: (s.products ?? []).map((p) => ({ parentId: null, ean: null, stock: 0, price: null, ...p, taxRate: p.taxRate !== undefined ? p.taxRate : p.parentId ? null : 21 })) },
    };
  },

  handle(shop, req) {
    const state = shop.state;
    if (req.method === "POST" && req.path === "/api/oauth/token") {
      // Shopware SaaS limits token requests to 10 a minute per IP address, answering 429 with
      // Retry-After (docs.shopware.com, "Rate Limits"; self-hosted shops have the `oauth` limiter of
      // shopware.yml, developer.shopware.com "Rate Limiter"): a client must keep its token.
      const now = Date.now();
      state.tokenRequests = state.tokenRequests.filter((at) => at > now - 60_000);
      if (state.tokenRequests.length >= state.tokenRequestsPerMinute) {
        const wait = Math.max(1, Math.ceil((state.tokenRequests[0] + 60_000 - now) / 1000));
        return {
          ...fail(429, "FRAMEWORK__RATE_LIMIT_EXCEEDED", `Too many requests, try again in ${wait} seconds.`),
          headers: { "Retry-After": String(wait) },
        };
      }
      state.tokenRequests.push(now);
      const body = parseBody(req);
      if (!body) return malformed();
      if (body.grant_type !== "client_credentials") {
        return oauthFail(400, 2, "The authorization grant type is not supported by the authorization server.", "Check that all required parameters have been provided");
      }
      if (body.client_id !== shop.credentials.client_id || body.client_secret !== shop.credentials.client_secret) {
        return oauthFail(401, 4, "Client authentication failed", null);
      }
      const token = `${hex()}${hex()}`;
      state.tokens[token] = Date.now() + state.tokenLifetimeSeconds * 1000;
      return { status: 200, body: { token_type: "Bearer", expires_in: state.tokenLifetimeSeconds, access_token: token } };
    }
    if (!req.path.startsWith("/api/")) return fail(404, "FRAMEWORK__ROUTE_NOT_FOUND", `No route found for "${req.method} ${req.path}"`);

    const denied = "The resource owner or authorization server denied the request.";
    const auth = req.headers["authorization"];
    if (!auth) return oauthFail(401, 9, denied, 'Missing "Authorization" header');
    const token = /^Bearer (.+)$/.exec(auth)?.[1] ?? "";
    const expiresAt = state.tokens[token];
    if (expiresAt === undefined) return oauthFail(401, 9, denied, "Access token could not be verified");
    if (expiresAt <= Date.now()) return oauthFail(401, 9, denied, "Access token has expired");

    const lacking = (...needed: string[]) => needed.filter((p) => !state.privileges.includes(p));
    const body = parseBody(req);
    if (!body) return malformed();

    let m: RegExpExecArray | null;
    if (req.method === "POST" && (m = /^\/api\/search\/(order|order-delivery)$/.exec(req.path))) {
      return search(state, m[1] === "order" ? "order" : "order_delivery", body, lacking);
    }
    if (req.method === "POST" && req.path === "/api/search/product") return searchProducts(state, body, lacking, req.headers["sw-inheritance"] === "1");
    if (req.method === "POST" && req.path === "/api/_action/sync") return sync(state, body, lacking);
    if (req.method === "DELETE" && (m = /^\/api\/product\/([0-9a-f]{32})$/.exec(req.path))) {
      const at = state.products.findIndex((p) => p.id === m![1]);
      if (at < 0) return fail(404, "FRAMEWORK__RESOURCE_NOT_FOUND", `The product resource with the following primary key was not found: id(${m[1]})`);
      state.products.splice(at, 1);
      return { status: 204 };
    }
    if (req.method === "PATCH" && (m = /^\/api\/order-delivery\/([0-9a-f]{32})$/.exec(req.path))) {
      const missing = lacking("order_delivery:update");
      if (missing.length) return missingPrivileges(missing);
      const delivery = state.orders.flatMap((o) => o.deliveries).find((d) => d.id === m![1]);
      if (!delivery) return fail(404, "FRAMEWORK__RESOURCE_NOT_FOUND", `The order_delivery resource with the following primary key was not found: id(${m[1]})`, { entity: "order_delivery", primaryKey: `id(${m[1]})` });
      const codes = body.trackingCodes;
      if (!Array.isArray(codes) || codes.some((c) => typeof c !== "string")) {
        return fail(400, "FRAMEWORK__WRITE_CONSTRAINT_VIOLATION", "This value should be of type array of strings.", { path: "/0/trackingCodes" });
      }
      delivery.trackingCodes = codes as string[];
      return { status: 204 };
    }
    if (req.method === "PATCH" && (m = /^\/api\/order\/([0-9a-f]{32})$/.exec(req.path))) {
      const missing = lacking("order:update");
      if (missing.length) return missingPrivileges(missing);
      const order = state.orders.find((o) => o.id === m![1]);
      if (!order) return fail(404, "FRAMEWORK__RESOURCE_NOT_FOUND", `The order resource with the following primary key was not found: id(${m[1]})`, { entity: "order", primaryKey: `id(${m[1]})` });
      if ("internalComment" in body) {
        if (!state.internalComment) return fail(400, "FRAMEWORK__WRITE_UNEXPECTED_FIELD_ERROR", 'Unexpected field: "internalComment"', { field: "internalComment" });
        if (body.internalComment !== null && typeof body.internalComment !== "string") {
          return fail(400, "FRAMEWORK__WRITE_CONSTRAINT_VIOLATION", "This value should be of type string.", { path: "/0/internalComment" });
        }
        order.internalComment = body.internalComment as string | null;
      }
      return { status: 204 };
    }
    if (req.method === "POST" && (m = /^\/api\/_action\/(order_delivery|order)\/([0-9a-f]{32})\/state\/([a-z_]+)$/.exec(req.path))) {
      const entity = m[1] as "order" | "order_delivery";
      const missing = lacking(`${entity}:update`);
      if (missing.length) return missingPrivileges(missing);
      const target =
        entity === "order" ? state.orders.find((o) => o.id === m![2]) : state.orders.flatMap((o) => o.deliveries).find((d) => d.id === m![2]);
      if (!target) return fail(400, "SYSTEM__STATE_MACHINE_INVALID_ENTITY_ID", `Unable to read entity "${entity}" with id "${m[2]}".`, { entityName: entity, entityId: m[2] });
      const machine = entity === "order" ? ORDER_TRANSITIONS : DELIVERY_TRANSITIONS;
      const transition = m[3];
      const to = machine[target.state]?.[transition];
      if (!to) {
        const possible = Object.keys(machine[target.state] ?? {});
        return fail(
          400,
          "SYSTEM__ILLEGAL_STATE_TRANSITION",
          `Illegal transition "${transition}" from state "${target.state}". Possible transitions are: ${possible.join(", ")}`,
          { transition, currentState: target.state, possibleTransitionsString: possible.join(", "), possibleTransitions: possible },
        );
      }
      state.history.push({ entity, id: target.id, transition, from: target.state, to });
      target.state = to;
      return { status: 200, body: stateJson(`${entity}.state`, to) };
    }
    return fail(404, "FRAMEWORK__ROUTE_NOT_FOUND", `No route found for "${req.method} ${req.path}"`);
  },
};

type Associations = Record<string, { associations?: Associations } | undefined>;

/** POST /api/search/{entity}: the criteria this stand-in understands, and Shopware's ACL on associations. */
function search(state: ShopwareState, entity: "order" | "order_delivery", criteria: Record<string, unknown>, lacking: (...p: string[]) => string[]): StandInReply {
  const associations = (criteria.associations ?? {}) as Associations;
  const needed = [`${entity}:read`];
  const nested = (a: Associations | undefined, on: string): string | null => {
    for (const [name, sub] of Object.entries(a ?? {})) {
      const target = name === "lineItems" ? "order_line_item" : name === "deliveries" ? "order_delivery" : name === "stateMachineState" ? "state_machine_state" : null;
      if (!target) return `${on}.${name}`;
      needed.push(`${target}:read`);
      const bad = nested(sub?.associations, name);
      if (bad) return bad;
    }
    return null;
  };
  const unknown = nested(associations, entity);
  if (unknown) return fail(400, "FRAMEWORK__ASSOCIATION_NOT_FOUND", `Can not find association by name ${unknown}`);
  const missing = lacking(...new Set(needed));
  if (missing.length) return missingPrivileges(missing);

  type Row = { order: ShopwareOrder; delivery?: ShopwareDelivery };
  let rows: Row[] = entity === "order" ? state.orders.map((order) => ({ order })) : state.orders.flatMap((order) => order.deliveries.map((delivery) => ({ order, delivery })));
  const fields = entity === "order" ? ["id", "orderNumber"] : ["id", "orderId"];
  const fieldOf = (row: Row, field: string): unknown =>
    field === "id" ? (row.delivery ?? row.order).id : field === "orderNumber" ? row.order.orderNumber : row.order.id;
  for (const f of (criteria.filter ?? []) as { type?: string; field?: string; value?: unknown }[]) {
    if (f.type !== "equals") return fail(400, "FRAMEWORK__INVALID_FILTER_QUERY", "This stand-in knows only equals filters.");
    const field = f.field ?? "";
    if (!fields.includes(field)) return fail(400, "FRAMEWORK__INVALID_FILTER_QUERY", `Field "${field}" in entity "${entity}" was not found.`);
    rows = rows.filter((r) => fieldOf(r, field) === f.value);
  }
  if (Array.isArray(criteria.ids)) rows = rows.filter((r) => (criteria.ids as unknown[]).includes(fieldOf(r, "id")));
  const sort = (criteria.sort ?? []) as { field?: string; order?: string }[];
  if (sort[0]?.field === "createdAt" && sort[0].order?.toUpperCase() === "DESC") rows = [...rows].reverse();
  const limit = typeof criteria.limit === "number" ? criteria.limit : rows.length;
  rows = rows.slice(0, limit);

  const deliveryJson = (order: ShopwareOrder, d: ShopwareDelivery, a: Associations | undefined) => ({
    id: d.id,
    orderId: order.id,
    trackingCodes: d.trackingCodes,
    stateId: stateId("order_delivery.state", d.state),
    stateMachineState: a?.stateMachineState ? stateJson("order_delivery.state", d.state) : null,
  });
  const data = rows.map(({ order, delivery }) =>
    delivery
      ? deliveryJson(order, delivery, associations)
      : {
          id: order.id,
          versionId: "0fa91ce3e96a4bc2be4bd9ce752c3425",
          orderNumber: order.orderNumber,
          createdAt: order.createdAt,
          stateId: stateId("order.state", order.state),
          ...(state.internalComment ? { internalComment: order.internalComment ?? null, primaryOrderDeliveryId: order.primaryOrderDeliveryId ?? null } : {}),
          stateMachineState: associations.stateMachineState ? stateJson("order.state", order.state) : null,
          lineItems: associations.lineItems
            ? order.lineItems.map((l) => ({
                id: l.id,
                orderId: order.id,
                type: l.type,
                productId: l.productId,
                referencedId: l.productId,
                label: l.label,
                quantity: l.quantity,
                payload: l.productNumber ? { productNumber: l.productNumber } : {},
              }))
            : null,
          deliveries: associations.deliveries ? order.deliveries.map((d) => deliveryJson(order, d, associations.deliveries?.associations)) : null,
        },
  );
  return { status: 200, body: { total: data.length, data, aggregations: [] } };
}

const BLANK = "c1051bb4-d103-4f74-8988-acbcafc7fdc3";

/** POST /api/search/product: ids, equals/equalsAny on productNumber/ean, page and limit; sw-inheritance resolves a variant's tax and price. */
function searchProducts(state: ShopwareState, criteria: Record<string, unknown>, lacking: (...p: string[]) => string[], inherit: boolean): StandInReply {
  const associations = (criteria.associations ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(associations).find((a) => a !== "tax");
  if (unknown) return fail(400, "FRAMEWORK__ASSOCIATION_NOT_FOUND", `Can not find association by name product.${unknown}`);
  const missing = lacking("product:read", ...(associations.tax ? ["tax:read"] : []));
  if (missing.length) return missingPrivileges(missing);
  let rows = state.products;
  for (const f of (criteria.filter ?? []) as { type?: string; field?: string; value?: unknown }[]) {
    if (f.field !== "productNumber" && f.field !== "ean") return fail(400, "FRAMEWORK__INVALID_FILTER_QUERY", `Field "${f.field}" in entity "product" was not found.`);
    const field = f.field;
    if (f.type === "equals") rows = rows.filter((p) => p[field] === f.value);
    else if (f.type === "equalsAny" && Array.isArray(f.value)) rows = rows.filter((p) => (f.value as unknown[]).includes(p[field]));
    else return fail(400, "FRAMEWORK__INVALID_FILTER_QUERY", "This stand-in knows only equals and equalsAny filters.");
  }
  if (Array.isArray(criteria.ids)) rows = rows.filter((p) => (criteria.ids as unknown[]).includes(p.id));
  const limit = typeof criteria.limit === "number" ? criteria.limit : 500;
  const page = typeof criteria.page === "number" ? criteria.page : 1;
  const total = rows.length;
  rows = rows.slice((page - 1) * limit, page * limit);
  const parentOf = (p: ShopwareProduct) => state.products.find((x) => x.id === p.parentId);
  const data = rows.map((p) => {
    const taxRate = p.taxRate ?? (inherit ? parentOf(p)?.taxRate ?? null : null);
    const price = p.price ?? (inherit ? parentOf(p)?.price ?? null : null);
    return { id: p.id, parentId: p.parentId, productNumber: p.productNumber, ean: p.ean, stock: p.stock, price, ...(associations.tax ? { tax: taxRate === null ? null : { taxRate } } : {}) };
  });
  return { status: 200, body: { total, data, aggregations: [] } };
}

/** POST /api/_action/sync: upserts of products, all or nothing. */
function sync(state: ShopwareState, body: Record<string, unknown>, lacking: (...p: string[]) => string[]): StandInReply {
  const errors: ShopwareError[] = [];
  const applies: (() => void)[] = [];
  const needed = new Set<string>();
  const error = (pointer: string, detail: string, code = BLANK): ShopwareError => ({ status: "400", code, title: "Bad Request", detail, meta: { parameters: {} }, source: { pointer } });
  for (const [key, op] of Object.entries(body)) {
    const { entity, action, payload } = (op ?? {}) as { entity?: string; action?: string; payload?: unknown };
    if (entity !== "product" || action !== "upsert" || !Array.isArray(payload)) return fail(400, "FRAMEWORK__INVALID_SYNC_OPERATION", `Operation "${key}": this stand-in knows only upserts of products.`);
    payload.forEach((item: Record<string, unknown>, i) => {
      const product = state.products.find((p) => p.id === item.id);
      if (!product) {
        needed.add("product:create");
        for (const field of ["name", "productNumber", "taxId", "price", "stock"]) if (!(field in item)) errors.push(error(`/${key}/${i}/${field}`, "This value should not be blank."));
        return;
      }
      needed.add("product:update");
      if ("stock" in item && !Number.isInteger(item.stock)) return void errors.push(error(`/${key}/${i}/stock`, "This value should be of type int.", "ba785a8c-82cb-4283-967c-3cf342181b40"));
      if ("price" in item && (!Array.isArray(item.price) || !(item.price as { currencyId?: string }[]).some((p) => p.currencyId === "b7d2554b0ce847cd82f3ac9bd1c0dfca"))) {
        return void errors.push(error(`/${key}/${i}/price`, "No price for default currency defined", "CONTENT__MISSING_DEFAULT_CURRENCY_PRICE"));
      }
      applies.push(() => {
        if ("stock" in item) product.stock = item.stock as number;
        if ("price" in item) product.price = item.price as ShopwareProduct["price"];
      });
    });
  }
  const missing = lacking(...needed);
  if (missing.length) return missingPrivileges(missing);
  if (errors.length) return { status: 400, body: { errors } };
  applies.forEach((apply) => apply());
  return { status: 200, body: { data: { product: applies.length ? Object.values(body).flatMap((op) => ((op as { payload: { id: string }[] }).payload ?? []).map((p) => p.id)) : [] }, deletes: [], notFound: [] } };
}
