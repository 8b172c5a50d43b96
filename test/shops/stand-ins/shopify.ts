// A stand-in Shopify shop: the Admin GraphQL API (shopify.dev/docs/api/admin-graphql) as a custom
// app's access token sees it, held to Shopify's published schema (./shopify-schema.ts): every query
// and mutation is validated against it before anything is answered, so a field that does not exist
// fails the test that sent it. What it answers follows Shopify's documentation:
// - POST /admin/api/{version}/graphql.json with X-Shopify-Access-Token; a missing or wrong token is
//   401 {"errors":"[API] Invalid API key or access token (unrecognized login or wrong password)"}
//   (shopify.dev/docs/api/usage/authentication, "Errors").
// - Versions (shopify.dev/docs/api/usage/versioning): a version Shopify no longer serves "falls
//   forward" to the oldest supported stable one, and X-Shopify-API-Version says which version
//   answered; a string that is no version at all is a 404.
// - Errors (shopify.dev/docs/api/usage/response-codes): a query that fails validation answers 200
//   with {errors: [{message, locations, extensions: {code}}]} and no data; business refusals are
//   each mutation's userErrors.
// - Rate limits (shopify.dev/docs/api/usage/limits#graphql-admin-api-rate-limits): a leaky bucket of
//   cost points (maximumAvailable 2000, restoreRate 100 a second for a standard shop); every answer
//   carries extensions.cost {requestedQueryCost, actualQueryCost, throttleStatus}; a query that
//   costs more than is available answers 200 {errors: [{message: "Throttled", extensions: {code:
//   "THROTTLED"}}]} and is not run. Costs as documented: an object 1, a scalar or enum 0, a
//   connection 2 plus `first` times its nodes' cost, a mutation 10. That requested cost is taken
//   before the query runs; the actual cost counts the top-level connections' nodes really returned,
//   and the difference goes back into the bucket.
// - Webhooks (shopify.dev/docs/apps/build/webhooks): a delivery is a POST of the REST-format
//   resource with X-Shopify-Topic, X-Shopify-Hmac-Sha256 (base64 HMAC-SHA256 of the raw body with
//   the app's API secret key), X-Shopify-Shop-Domain, X-Shopify-API-Version, X-Shopify-Webhook-Id,
//   X-Shopify-Event-Id and X-Shopify-Triggered-At. The Worker under test is not reachable from this
//   Node process, so the test asks for a signed delivery (POST /__webhook {topic, order_id}) and
//   posts it itself: the signature and body are the stand-in's, exactly as Shopify makes them.
import { createHmac, randomBytes } from "node:crypto";
import { execute, Kind, parse, validate, type DocumentNode, type FieldNode, type GraphQLError, type SelectionSetNode } from "graphql";
import type { StandInPlatform, StandInReply, StandInRequest, StandInShop } from "./harness";
import { SCHEMA_VERSION, shopifyAdminSchema } from "./shopify-schema";

/** The versions served on the day the schema was taken (a year of quarterly releases). */
export const SERVED_VERSIONS = ["2025-10", "2026-01", "2026-04", "2026-07", SCHEMA_VERSION];

export type ShopifyLineItem = { id: number; sku: string | null; variantId: number | null; productId?: number | null; title: string; quantity: number; price: string };
export type ShopifyAddress = { first_name: string; last_name: string; company?: string | null; address1: string; address2?: string | null; city: string; zip: string; province?: string | null; country_code: string; phone?: string | null };
type FoLine = { id: number; lineItemId: number; totalQuantity: number; remainingQuantity: number };
type FulfillmentOrder = { id: number; status: "OPEN" | "IN_PROGRESS" | "ON_HOLD" | "CLOSED"; lines: FoLine[]; holds: { id: number; handle: string; reason: string; reasonNotes: string | null }[] };
type Fulfillment = { id: number; notifyCustomer: boolean; tracking: { company: string | null; number: string | null; url: string | null }[]; lines: { lineItemId: number; quantity: number }[] };
export type ShopifyOrder = {
  id: number;
  name: string;
  email: string | null;
  test: boolean;
  currency: string;
  createdAt: string;
  updatedAt: string;
  cancelledAt: string | null;
  note: string | null;
  tags: string[];
  shippingAddress: ShopifyAddress | null;
  lineItems: ShopifyLineItem[];
  fulfillmentOrders: FulfillmentOrder[];
  fulfillments: Fulfillment[];
};
type Webhook = { id: number; topic: string; uri: string; createdAt: string };
/** A product variant: `productId` its product (default: one product per variant, 7_000_000 + id), `price` its price as Shopify's decimal text (default "0.00"). */
type Variant = { id: number; sku: string | null; barcode: string | null; inventoryItemId: number; productId?: number; price?: string };

export type ShopifyState = {
  domain: string;
  locationId: number;
  scopes: string[];
  orders: ShopifyOrder[];
  webhooks: Webhook[];
  variants: Variant[];
  /** "<inventoryItemId>@<locationId>" -> available. */
  available: Record<string, number>;
  bucket: { maximumAvailable: number; restoreRate: number; available: number; at: number };
  nextId: number;
  /** Every GraphQL operation received: its version, query, variables and whether it passed validation. */
  operations: { version: string; query: string; variables: Record<string, unknown>; valid: boolean }[];
};

export type ShopifySeed = {
  orders?: (Partial<Omit<ShopifyOrder, "fulfillmentOrders" | "fulfillments" | "lineItems">> & { id: number; lineItems: ShopifyLineItem[] })[];
  scopes?: string[];
  variants?: Variant[];
  available?: Record<string, number>;
  bucket?: { maximumAvailable?: number; restoreRate?: number; available?: number };
};

/** A custom app with every scope the connection needs (shopify.dev/docs/api/usage/access-scopes). */
export const ALL_SCOPES = ["read_orders", "write_orders", "read_merchant_managed_fulfillment_orders", "write_merchant_managed_fulfillment_orders", "read_products", "write_products", "read_inventory", "write_inventory"];

const gid = (type: string, id: number) => `gid://shopify/${type}/${id}`;
const idOf = (value: unknown, type: string): number | null => {
  const m = new RegExp(`^gid://shopify/${type}/(\\d+)$`).exec(String(value));
  return m ? Number(m[1]) : null;
};
const connection = <T>(items: T[], first: unknown) => {
  const nodes = items.slice(0, typeof first === "number" ? first : items.length);
  return { nodes, edges: nodes.map((node) => ({ node, cursor: "c" })), pageInfo: { hasNextPage: nodes.length < items.length, hasPreviousPage: false, endCursor: null, startCursor: null } };
};

function create(seed: unknown): { credentials: Record<string, string>; state: ShopifyState } {
  // Built once before the first request: reading Shopify's schema takes seconds, far past a call's time box.
  shopifyAdminSchema();
  const s = (seed ?? {}) as ShopifySeed;
  let nextId = 9_000_000;
  const state: ShopifyState = {
    domain: `stand-in-${randomBytes(3).toString("hex")}.myshopify.com`,
    locationId: 71_000_001,
    scopes: s.scopes ?? ALL_SCOPES,
    orders: [],
    webhooks: [],
    variants: s.variants ?? [],
    available: s.available ?? {},
    bucket: { maximumAvailable: s.bucket?.maximumAvailable ?? 2000, restoreRate: s.bucket?.restoreRate ?? 100, available: s.bucket?.available ?? s.bucket?.maximumAvailable ?? 2000, at: Date.now() },
    nextId,
    operations: [],
  };
  for (const o of s.orders ?? []) {
    const now = new Date().toISOString();
    state.orders.push({
      name: `#${1000 + state.orders.length + 1}`,
      email: "customer@example.com",
      test: false,
      currency: "EUR",
      createdAt: now,
      updatedAt: now,
      cancelledAt: null,
      note: null,
      tags: [],
      shippingAddress: { first_name: "Jan", last_name: "Jansen", address1: "Damrak 1", city: "Amsterdam", zip: "1012LG", country_code: "NL" },
      ...o,
      fulfillmentOrders: [{ id: ++nextId, status: "OPEN", holds: [], lines: o.lineItems.map((l) => ({ id: ++nextId, lineItemId: l.id, totalQuantity: l.quantity, remainingQuantity: l.quantity })) }],
      fulfillments: [],
    });
  }
  state.nextId = nextId;
  return { credentials: { access_token: `shpat_${randomBytes(16).toString("hex")}`, api_secret: randomBytes(16).toString("hex") }, state };
}

// --- Cost (shopify.dev/docs/api/usage/limits, "Calculating query costs") --------------------------

// The requested cost counts every connection at its `first`; the actual cost (given the answer's
// data) counts the nodes it really returned, and Shopify refunds the difference to the bucket.
function selectionCost(set: SelectionSetNode | undefined, variables: Record<string, unknown>, data?: unknown): number {
  if (!set) return 0;
  let cost = 0;
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) cost += fieldCost(sel, variables, data);
    else if (sel.kind === Kind.INLINE_FRAGMENT) cost += selectionCost(sel.selectionSet, variables, data);
  }
  return cost;
}

function fieldCost(field: FieldNode, variables: Record<string, unknown>, parent?: unknown): number {
  if (!field.selectionSet) return 0;
  const firstArg = field.arguments?.find((a) => a.name.value === "first");
  const first = !firstArg ? null : firstArg.value.kind === Kind.INT ? Number(firstArg.value.value) : firstArg.value.kind === Kind.VARIABLE ? Number(variables[firstArg.value.name.value] ?? 0) : 0;
  const inner = selectionCost(field.selectionSet, variables);
  if (first === null) return 1 + inner;
  return 2 + (parent === undefined ? first : returnedNodes(parent, field)) * Math.max(1, inner - 1);
}

/** How many nodes a connection field really returned (its `nodes` or `edges`), where the answer has it. */
function returnedNodes(parent: unknown, field: FieldNode): number {
  const value = parent && typeof parent === "object" ? (parent as Record<string, unknown>)[field.alias?.value ?? field.name.value] : undefined;
  if (!value || typeof value !== "object") return 0;
  const list = (value as { nodes?: unknown; edges?: unknown }).nodes ?? (value as { edges?: unknown }).edges;
  return Array.isArray(list) ? list.length : 0;
}

/** The actual cost of a query that ran: top-level connections at the nodes returned; a mutation costs what it requested. */
function actualCost(doc: DocumentNode, variables: Record<string, unknown>, data: unknown): number {
  let cost = 0;
  for (const def of doc.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    if (def.operation === "mutation") cost += 10 * def.selectionSet.selections.length;
    else cost += selectionCost(def.selectionSet, variables, data ?? {});
  }
  return Math.max(1, cost);
}

function requestedCost(doc: DocumentNode, variables: Record<string, unknown>): number {
  let cost = 0;
  for (const def of doc.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    if (def.operation === "mutation") cost += 10 * def.selectionSet.selections.length;
    else cost += selectionCost(def.selectionSet, variables);
  }
  return Math.max(1, cost);
}

function throttleStatus(state: ShopifyState) {
  const b = state.bucket;
  const now = Date.now();
  b.available = Math.min(b.maximumAvailable, b.available + ((now - b.at) / 1000) * b.restoreRate);
  b.at = now;
  return { maximumAvailable: b.maximumAvailable, currentlyAvailable: Math.floor(b.available), restoreRate: b.restoreRate };
}

// --- The Admin API's objects, as graphql-js resolves them against the schema ----------------------

type UserError = { field: string[] | null; message: string; code?: string };
const ok = <T extends object>(payload: T) => ({ ...payload, userErrors: [] as UserError[] });
const refused = (field: string[] | null, message: string, code?: string) => ({ userErrors: [{ field, message, ...(code ? { code } : {}) }] });

const money = (amount: string, currencyCode: string) => ({ shopMoney: { amount, currencyCode }, presentmentMoney: { amount, currencyCode } });

function orderObject(state: ShopifyState, o: ShopifyOrder) {
  const lineItem = (l: ShopifyLineItem) => ({
    id: gid("LineItem", l.id),
    sku: l.sku,
    name: l.title,
    title: l.title,
    quantity: l.quantity,
    currentQuantity: l.quantity,
    variant: l.variantId === null ? null : { id: gid("ProductVariant", l.variantId), legacyResourceId: String(l.variantId), sku: l.sku },
    originalUnitPriceSet: money(l.price, o.currency),
  });
  const a = o.shippingAddress;
  return {
    id: gid("Order", o.id),
    legacyResourceId: String(o.id),
    name: o.name,
    email: o.email,
    test: o.test,
    currencyCode: o.currency,
    totalPriceSet: money(o.lineItems.reduce((sum, l) => sum + Number(l.price) * l.quantity, 0).toFixed(2), o.currency),
    shippingAddress: a && { firstName: a.first_name, lastName: a.last_name, company: a.company ?? null, address1: a.address1, address2: a.address2 ?? null, city: a.city, zip: a.zip, province: a.province ?? null, countryCodeV2: a.country_code, phone: a.phone ?? null },
    shippingLines: (args: { first?: number }) => connection([{ title: "Standard", originalPriceSet: money("0.00", o.currency) }], args.first),
    note: o.note,
    tags: o.tags,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    cancelledAt: o.cancelledAt,
    closed: false,
    displayFulfillmentStatus: o.fulfillmentOrders.every((f) => f.status === "CLOSED") ? "FULFILLED" : o.fulfillments.length ? "PARTIALLY_FULFILLED" : "UNFULFILLED",
    lineItems: (args: { first?: number }) => connection(o.lineItems.map(lineItem), args.first),
    fulfillmentOrders: (args: { first?: number }) =>
      connection(
        o.fulfillmentOrders.map((f) => ({
          id: gid("FulfillmentOrder", f.id),
          status: f.status,
          fulfillmentHolds: f.holds.map((h) => ({ id: gid("FulfillmentHold", h.id), handle: h.handle, reason: h.reason, reasonNotes: h.reasonNotes })),
          lineItems: (a: { first?: number }) =>
            connection(
              f.lines.map((l) => ({ id: gid("FulfillmentOrderLineItem", l.id), totalQuantity: l.totalQuantity, remainingQuantity: l.remainingQuantity, lineItem: lineItem(o.lineItems.find((i) => i.id === l.lineItemId)!) })),
              a.first,
            ),
        })),
        args.first,
      ),
    fulfillments: (args: { first?: number }) => o.fulfillments.slice(0, args.first ?? 250).map((f) => fulfillmentObject(o, f)),
  };
}

function fulfillmentObject(o: ShopifyOrder, f: Fulfillment) {
  return {
    id: gid("Fulfillment", f.id),
    status: "SUCCESS",
    trackingInfo: (args: { first?: number }) => f.tracking.slice(0, args.first ?? f.tracking.length),
    fulfillmentLineItems: (args: { first?: number }) =>
      connection(
        f.lines.map((l) => ({ id: gid("FulfillmentLineItem", l.lineItemId), quantity: l.quantity, lineItem: { id: gid("LineItem", l.lineItemId), sku: o.lineItems.find((i) => i.id === l.lineItemId)?.sku ?? null } })),
        args.first,
      ),
  };
}

function rootValue(shop: StandInShop<ShopifyState>) {
  const state = shop.state;
  const findOrder = (id: unknown) => state.orders.find((o) => o.id === idOf(id, "Order")) ?? null;
  const touch = (o: ShopifyOrder) => (o.updatedAt = new Date().toISOString());
  const productOf = (v: Variant) => v.productId ?? 7_000_000 + v.id;
  const variantObject = (v: Variant) => ({ id: gid("ProductVariant", v.id), legacyResourceId: String(v.id), sku: v.sku, barcode: v.barcode, price: v.price ?? "0.00", product: { id: gid("Product", productOf(v)) } });
  const inventoryItem = (item: number) => ({
    id: gid("InventoryItem", item),
    variant: () => variantObject(state.variants.find((v) => v.inventoryItemId === item)!),
    inventoryLevel: (a: { locationId: string }) => {
      const key = `${item}@${idOf(a.locationId, "Location")}`;
      return key in state.available ? { id: gid("InventoryLevel", item), quantities: (q: { names: string[] }) => q.names.map((name) => ({ name, quantity: name === "available" ? state.available[key] : 0 })) } : null;
    },
  });
  return {
    shop: { id: gid("Shop", 1), name: "Stand-in Shopify", myshopifyDomain: state.domain, currencyCode: "EUR" },
    currentAppInstallation: { id: gid("AppInstallation", 1), accessScopes: state.scopes.map((handle) => ({ handle, description: handle })) },
    location: (args: { id?: string }) => {
      const id = args.id === undefined ? state.locationId : idOf(args.id, "Location");
      return id === state.locationId ? { id: gid("Location", id), name: "Shop location", isActive: true } : null;
    },
    webhookSubscriptions: (args: { first?: number; topics?: string[]; uri?: string }) =>
      connection(
        state.webhooks.filter((w) => (!args.topics || args.topics.includes(w.topic)) && (!args.uri || args.uri === w.uri)).map((w) => ({ id: gid("WebhookSubscription", w.id), topic: w.topic, uri: w.uri, callbackUrl: w.uri, createdAt: w.createdAt })),
        args.first,
      ),
    order: (args: { id: string }) => {
      const o = findOrder(args.id);
      return o ? orderObject(state, o) : null;
    },
    orders: (args: { first?: number; after?: string | null; query?: string; sortKey?: string }) => {
      // The search syntax the adapter uses: updated_at:>'<iso>' or >= (shopify.dev/docs/api/usage/search-syntax),
      // sorted by UPDATED_AT (ties by id, as Shopify's cursors are stable); `after` is an opaque cursor.
      const m = /updated_at:(>=?)'?([^' ]+)'?/.exec(args.query ?? "");
      const list = state.orders
        .filter((o) => !m || (m[1] === ">=" ? o.updatedAt >= m[2] : o.updatedAt > m[2]))
        .sort((a, b) => (args.sortKey === "UPDATED_AT" ? a.updatedAt.localeCompare(b.updatedAt) || a.id - b.id : a.id - b.id));
      const key = (o: ShopifyOrder) => Buffer.from(JSON.stringify([o.updatedAt, o.id])).toString("base64");
      const from = args.after ? list.findIndex((o) => key(o) === args.after) + 1 : 0;
      const rest = list.slice(from);
      const page = connection(rest, args.first);
      const last = page.nodes[page.nodes.length - 1];
      return { ...page, nodes: page.nodes.map((o) => orderObject(state, o)), edges: page.nodes.map((o) => ({ node: orderObject(state, o), cursor: key(o) })), pageInfo: { ...page.pageInfo, endCursor: last ? key(last) : null } };
    },
    nodes: (args: { ids: string[] }) =>
      args.ids.map((id) => {
        const item = idOf(id, "InventoryItem");
        return item !== null && state.variants.some((v) => v.inventoryItemId === item) ? { __typename: "InventoryItem", ...inventoryItem(item) } : null;
      }),
    productVariants: (args: { first?: number; query?: string }) => {
      const terms = [...(args.query ?? "").matchAll(/(sku|barcode):"?([^" )]+)"?/g)].map((m) => ({ field: m[1], value: m[2] }));
      const list = state.variants.filter((v) => terms.length === 0 || terms.some((t) => (t.field === "sku" ? v.sku : v.barcode) === t.value));
      return connection(
        list.map((v) => ({ ...variantObject(v), inventoryItem: inventoryItem(v.inventoryItemId) })),
        args.first,
      );
    },

    webhookSubscriptionCreate: (args: { topic: string; webhookSubscription: { uri?: string; callbackUrl?: string } }) => {
      const uri = args.webhookSubscription.uri ?? args.webhookSubscription.callbackUrl;
      if (!uri) return refused(["webhookSubscription", "uri"], "Address can't be blank");
      // Shopify refuses a second subscription of the same topic to the same address.
      if (state.webhooks.some((w) => w.topic === args.topic && w.uri === uri)) return refused(["webhookSubscription", "callbackUrl"], "Address for this topic has already been taken");
      const w = { id: ++state.nextId, topic: args.topic, uri, createdAt: new Date().toISOString() };
      state.webhooks.push(w);
      return ok({ webhookSubscription: { id: gid("WebhookSubscription", w.id), topic: w.topic, uri: w.uri, callbackUrl: w.uri } });
    },
    webhookSubscriptionDelete: (args: { id: string }) => {
      const id = idOf(args.id, "WebhookSubscription");
      const at = state.webhooks.findIndex((w) => w.id === id);
      if (at < 0) return { deletedWebhookSubscriptionId: null, ...refused(["id"], "Webhook subscription does not exist") };
      state.webhooks.splice(at, 1);
      return ok({ deletedWebhookSubscriptionId: args.id });
    },
    fulfillmentCreate: (args: { fulfillment: { lineItemsByFulfillmentOrder: { fulfillmentOrderId: string; fulfillmentOrderLineItems?: { id: string; quantity: number }[] }[]; notifyCustomer?: boolean; trackingInfo?: { company?: string; number?: string; numbers?: string[]; url?: string; urls?: string[] } } }) => {
      const f = args.fulfillment;
      const lines: Fulfillment["lines"] = [];
      let order: ShopifyOrder | null = null;
      // Checked whole before anything changes: Shopify creates all of a fulfillment or none of it.
      const changes: { line: FoLine; quantity: number }[] = [];
      for (const group of f.lineItemsByFulfillmentOrder) {
        const foId = idOf(group.fulfillmentOrderId, "FulfillmentOrder");
        const owner = state.orders.find((o) => o.fulfillmentOrders.some((x) => x.id === foId));
        const fo = owner?.fulfillmentOrders.find((x) => x.id === foId);
        if (!owner || !fo) return { fulfillment: null, ...refused(["fulfillment", "lineItemsByFulfillmentOrder"], "Fulfillment order does not exist.") };
        if (order && owner !== order) return { fulfillment: null, ...refused(["fulfillment"], "All fulfillment orders must belong to the same order.") };
        order = owner;
        if (fo.status === "ON_HOLD" || fo.status === "CLOSED") return { fulfillment: null, ...refused(["fulfillment"], `The fulfillment order's status is ${fo.status.toLowerCase().replace("_", " ")}, it cannot be fulfilled.`) };
        const wanted = group.fulfillmentOrderLineItems ?? fo.lines.filter((l) => l.remainingQuantity > 0).map((l) => ({ id: gid("FulfillmentOrderLineItem", l.id), quantity: l.remainingQuantity }));
        for (const w of wanted) {
          const line = fo.lines.find((l) => l.id === idOf(w.id, "FulfillmentOrderLineItem"));
          if (!line) return { fulfillment: null, ...refused(["fulfillment", "lineItemsByFulfillmentOrder"], "Fulfillment order line item does not exist.") };
          if (w.quantity < 1 || w.quantity > line.remainingQuantity) return { fulfillment: null, ...refused(["fulfillment", "lineItemsByFulfillmentOrder"], `Invalid fulfillment order line item quantity requested: ${w.quantity} (${line.remainingQuantity} remaining).`) };
          changes.push({ line, quantity: w.quantity });
          lines.push({ lineItemId: line.lineItemId, quantity: w.quantity });
        }
      }
      if (!order) return { fulfillment: null, ...refused(["fulfillment"], "No fulfillment order given.") };
      for (const c of changes) c.line.remainingQuantity -= c.quantity;
      for (const fo of order.fulfillmentOrders) fo.status = fo.lines.every((l) => l.remainingQuantity === 0) ? "CLOSED" : fo.lines.some((l) => l.remainingQuantity < l.totalQuantity) ? "IN_PROGRESS" : fo.status;
      const t = f.trackingInfo ?? {};
      const numbers = t.numbers ?? (t.number ? [t.number] : []);
      const urls = t.urls ?? (t.url ? [t.url] : []);
      const fulfillment: Fulfillment = { id: ++state.nextId, notifyCustomer: f.notifyCustomer ?? false, lines, tracking: numbers.map((number, i) => ({ company: t.company ?? null, number, url: urls[i] ?? null })) };
      order.fulfillments.push(fulfillment);
      touch(order);
      return ok({ fulfillment: fulfillmentObject(order, fulfillment) });
    },
    orderUpdate: (args: { input: { id: string; note?: string; tags?: string[] } }) => {
      const o = findOrder(args.input.id);
      if (!o) return { order: null, ...refused(["id"], "Order does not exist") };
      if (args.input.note !== undefined) o.note = args.input.note;
      if (args.input.tags !== undefined) o.tags = args.input.tags;
      touch(o);
      return ok({ order: orderObject(state, o) });
    },
    fulfillmentOrderHold: (args: { id: string; fulfillmentHold: { reason: string; reasonNotes?: string; handle?: string } }) => {
      const fo = state.orders.flatMap((o) => o.fulfillmentOrders).find((f) => f.id === idOf(args.id, "FulfillmentOrder"));
      if (!fo) return { fulfillmentOrder: null, ...refused(["id"], "Fulfillment order does not exist.", "FULFILLMENT_ORDER_NOT_FOUND") };
      const handle = args.fulfillmentHold.handle ?? "";
      if (fo.holds.some((h) => h.handle === handle)) return { fulfillmentOrder: null, ...refused(["fulfillmentHold", "handle"], "The handle provided for the fulfillment hold is already in use by this app for another hold on this fulfillment order.", "DUPLICATE_FULFILLMENT_HOLD_HANDLE") };
      if (fo.status === "CLOSED") return { fulfillmentOrder: null, ...refused(["id"], "The fulfillment order is closed and cannot be held.", "INVALID_FULFILLMENT_ORDER_STATUS") };
      fo.holds.push({ id: ++state.nextId, handle, reason: args.fulfillmentHold.reason, reasonNotes: args.fulfillmentHold.reasonNotes ?? null });
      fo.status = "ON_HOLD";
      return ok({ fulfillmentOrder: { id: args.id, status: fo.status } });
    },
    fulfillmentOrderReleaseHold: (args: { id: string; holdIds?: string[] }) => {
      const fo = state.orders.flatMap((o) => o.fulfillmentOrders).find((f) => f.id === idOf(args.id, "FulfillmentOrder"));
      if (!fo) return { fulfillmentOrder: null, ...refused(["id"], "Fulfillment order does not exist.", "FULFILLMENT_ORDER_NOT_FOUND") };
      const ids = args.holdIds?.map((h) => idOf(h, "FulfillmentHold"));
      fo.holds = fo.holds.filter((h) => ids && !ids.includes(h.id));
      if (fo.holds.length === 0 && fo.status === "ON_HOLD") fo.status = fo.lines.some((l) => l.remainingQuantity < l.totalQuantity) ? "IN_PROGRESS" : "OPEN";
      return ok({ fulfillmentOrder: { id: args.id, status: fo.status } });
    },
    // shopify.dev/docs/api/admin-graphql/latest/mutations/productVariantsBulkUpdate: the variants of one product; a variant
    // of another product, or a price that is no decimal, refuses the call with the variant's index in the field (nothing changed).
    productVariantsBulkUpdate: (args: { productId: string; variants: { id?: string; price?: string }[] }) => {
      const product = idOf(args.productId, "Product");
      if (!state.variants.some((v) => productOf(v) === product)) return { product: null, productVariants: null, ...refused(["productId"], "Product does not exist", "PRODUCT_DOES_NOT_EXIST") };
      const errors: UserError[] = [];
      const changes: { v: Variant; price: string | undefined }[] = [];
      args.variants.forEach((input, i) => {
        const v = state.variants.find((x) => x.id === idOf(input.id, "ProductVariant") && productOf(x) === product);
        if (!v) errors.push({ field: ["variants", String(i), "id"], message: "Product variant does not exist", code: "PRODUCT_VARIANT_DOES_NOT_EXIST" });
        else if (input.price !== undefined && !/^\d+(\.\d{1,2})?$/.test(input.price)) errors.push({ field: ["variants", String(i), "price"], message: "Price must be a number", code: "INVALID" });
        else changes.push({ v, price: input.price });
      });
      if (errors.length) return { product: null, productVariants: null, userErrors: errors };
      for (const c of changes) if (c.price !== undefined) c.v.price = c.price;
      return ok({ product: { id: args.productId }, productVariants: changes.map((c) => variantObject(c.v)) });
    },
    inventorySetQuantities: (args: { input: { name: string; reason: string; referenceDocumentUri?: string; quantities: { inventoryItemId: string; locationId: string; quantity: number; changeFromQuantity?: number | null }[] } }) => {
      const input = args.input;
      if (input.name !== "available" && input.name !== "on_hand") return { inventoryAdjustmentGroup: null, ...refused(["input", "name"], "The quantity name must be either 'available' or 'on_hand'.", "INVALID_NAME") };
      if (input.quantities.length > 250) return { inventoryAdjustmentGroup: null, ...refused(["input", "quantities"], "The quantities can't exceed 250 items.", "INVALID_QUANTITY_ARRAY") };
      const errors: UserError[] = [];
      input.quantities.forEach((q, i) => {
        const key = `${idOf(q.inventoryItemId, "InventoryItem")}@${idOf(q.locationId, "Location")}`;
        if (!(key in state.available)) errors.push({ field: ["input", "quantities", String(i), "inventoryItemId"], message: "The specified inventory item could not be found.", code: "INVALID_INVENTORY_ITEM" });
        else if (q.changeFromQuantity === undefined) errors.push({ field: ["input", "quantities", String(i), "changeFromQuantity"], message: "changeFromQuantity is required.", code: "CHANGE_FROM_QUANTITY_REQUIRED" });
        else if (q.changeFromQuantity !== null && q.changeFromQuantity !== state.available[key]) errors.push({ field: ["input", "quantities", String(i), "changeFromQuantity"], message: "The specified compare quantity does not match the current quantity.", code: "CHANGE_FROM_QUANTITY_STALE" });
      });
      // One refused quantity refuses the whole call: Shopify applies an inventory adjustment group whole or not at all.
      if (errors.length) return { inventoryAdjustmentGroup: null, userErrors: errors };
      for (const q of input.quantities) state.available[`${idOf(q.inventoryItemId, "InventoryItem")}@${idOf(q.locationId, "Location")}`] = q.quantity;
      return ok({ inventoryAdjustmentGroup: { id: gid("InventoryAdjustmentGroup", ++state.nextId), reason: input.reason, referenceDocumentUri: input.referenceDocumentUri ?? null } });
    },
  };
}

const UNAUTHORIZED: StandInReply = { status: 401, body: { errors: "[API] Invalid API key or access token (unrecognized login or wrong password)" } };

/** Shopify's REST order JSON, as its orders/* webhooks carry it (shopify.dev/docs/api/admin-rest/latest/resources/order). */
export function webhookOrder(o: ShopifyOrder) {
  const a = o.shippingAddress;
  const total = o.lineItems.reduce((sum, l) => sum + Number(l.price) * l.quantity, 0);
  return {
    id: o.id,
    admin_graphql_api_id: gid("Order", o.id),
    name: o.name,
    order_number: Number(o.name.replace(/\D/g, "")),
    email: o.email,
    contact_email: o.email,
    test: o.test,
    currency: o.currency,
    total_price: total.toFixed(2),
    created_at: o.createdAt,
    updated_at: o.updatedAt,
    cancelled_at: o.cancelledAt,
    cancel_reason: o.cancelledAt ? "customer" : null,
    note: o.note,
    tags: o.tags.join(", "),
    shipping_address: a ? { name: `${a.first_name} ${a.last_name}`, country: null, province_code: null, company: null, address2: null, province: null, phone: null, ...a } : null,
    shipping_lines: [{ title: "Standard", price: "0.00", code: "Standard" }],
    line_items: o.lineItems.map((l) => ({ id: l.id, admin_graphql_api_id: gid("LineItem", l.id), variant_id: l.variantId, product_id: l.productId ?? null, sku: l.sku, title: l.title, name: l.title, quantity: l.quantity, price: l.price })),
  };
}

function deliverWebhook(shop: StandInShop<ShopifyState>, req: StandInRequest): StandInReply {
  const { topic, order_id, webhook_id, body: override } = JSON.parse(req.body || "{}") as { topic: string; order_id: number; webhook_id?: string; body?: unknown };
  const order = shop.state.orders.find((o) => o.id === order_id);
  if (!order && override === undefined) return { status: 404, body: { error: "no such order" } };
  if (topic === "orders/cancelled" && order && !order.cancelledAt) order.cancelledAt = order.updatedAt = new Date().toISOString();
  const body = JSON.stringify(override ?? webhookOrder(order!));
  const headers = {
    "Content-Type": "application/json",
    "X-Shopify-Topic": topic,
    "X-Shopify-Hmac-Sha256": createHmac("sha256", shop.credentials.api_secret).update(body, "utf8").digest("base64"),
    "X-Shopify-Shop-Domain": shop.state.domain,
    "X-Shopify-API-Version": SCHEMA_VERSION,
    "X-Shopify-Webhook-Id": webhook_id ?? crypto.randomUUID(),
    "X-Shopify-Event-Id": crypto.randomUUID(),
    "X-Shopify-Triggered-At": new Date().toISOString(),
  };
  const uris = shop.state.webhooks.filter((w) => w.topic === topic.toUpperCase().replace("/", "_")).map((w) => w.uri);
  return { status: 200, body: { uris, headers, body } };
}

export const shopifyStandIn: StandInPlatform<ShopifyState> = {
  name: "shopify",
  create,
  handle(shop, req) {
    if (req.method === "POST" && req.path === "/__webhook") return deliverWebhook(shop, req);
    const m = /^\/admin\/api\/([^/]+)\/graphql\.json$/.exec(req.path);
    if (!m) return { status: 404, body: { errors: "Not Found" } };
    if (!/^\d{4}-(01|04|07|10)$/.test(m[1]) && m[1] !== "unstable") return { status: 404, body: { errors: "Not Found" } };
    if (req.method !== "POST") return { status: 405, body: { errors: "Method Not Allowed" } };
    if (req.headers["x-shopify-access-token"] !== shop.credentials.access_token) return UNAUTHORIZED;
    const version = m[1] !== "unstable" && m[1] < SERVED_VERSIONS[0] ? SERVED_VERSIONS[0] : m[1];
    const headers = { "X-Shopify-API-Version": version };
    let payload: { query?: unknown; variables?: unknown };
    try {
      payload = JSON.parse(req.body) as typeof payload;
    } catch {
      return { status: 400, headers, body: { errors: { query: "Required parameter missing or invalid" } } };
    }
    if (typeof payload.query !== "string") return { status: 400, headers, body: { errors: { query: "Required parameter missing or invalid" } } };
    const variables = (payload.variables ?? {}) as Record<string, unknown>;
    const record = { version, query: payload.query, variables, valid: false };
    shop.state.operations.push(record);
    const schema = shopifyAdminSchema();
    let doc: DocumentNode;
    try {
      doc = parse(payload.query);
    } catch (error) {
      return { status: 200, headers, body: { errors: [shapeError(error as GraphQLError, "parseError")] } };
    }
    const invalid = validate(schema, doc);
    if (invalid.length) return { status: 200, headers, body: { errors: invalid.map((e) => shapeError(e, "undefinedField")) } };
    record.valid = true;
    const cost = requestedCost(doc, variables);
    const before = throttleStatus(shop.state);
    // One query may cost at most 1,000 points, whatever the bucket holds.
    if (cost > 1000) {
      return { status: 200, headers, body: { errors: [{ message: `Query cost is ${cost}, which exceeds the single query max cost limit (1000).`, extensions: { code: "MAX_COST_EXCEEDED", cost, maxCost: 1000 } }], extensions: { cost: { requestedQueryCost: cost, actualQueryCost: null, throttleStatus: before } } } };
    }
    if (cost > before.currentlyAvailable) {
      return { status: 200, headers, body: { errors: [{ message: "Throttled", extensions: { code: "THROTTLED", documentation: "https://shopify.dev/api/usage/rate-limits" } }], extensions: { cost: { requestedQueryCost: cost, actualQueryCost: null, throttleStatus: before } } } };
    }
    shop.state.bucket.available -= cost;
    const result = execute({ schema, document: doc, rootValue: rootValue(shop), variableValues: variables }) as { data?: unknown; errors?: readonly GraphQLError[] };
    // Shopify takes the requested cost first and refunds what the query did not use.
    const actual = Math.min(cost, actualCost(doc, variables, result.data));
    shop.state.bucket.available += cost - actual;
    const body: Record<string, unknown> = { data: result.data ?? null, extensions: { cost: { requestedQueryCost: cost, actualQueryCost: actual, throttleStatus: throttleStatus(shop.state) } } };
    if (result.errors?.length) body.errors = result.errors.map((e) => shapeError(e, "INTERNAL_SERVER_ERROR"));
    return { status: 200, headers, body };
  },
};

function shapeError(e: GraphQLError, code: string) {
  return { message: e.message, locations: e.locations, ...(e.path ? { path: e.path } : {}), extensions: { code } };
}
