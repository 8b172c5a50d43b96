// What the domain needs of a shop platform, and nothing more: find the shop's order from what its
// plugin sent us, write a shipment with its tracking, write a private note, mark the order done, and
// test a connection. One adapter per platform beside this file (woocommerce.ts, shopware.ts,
// magento.ts, prestashop.ts), each following the platform's public REST documentation; adding a
// platform is adding one file here and its stand-in under test/shops/stand-ins/.
//
// Adapters make every call through ShopHttp (./http.ts): it time-boxes the call, records it for the
// write-back's attempt log, and in dry-run mode records writes instead of sending them.
import type { z } from "zod";
import type { ShopPlatformName } from "../../db/schema/shops";
import type { ShopFailure } from "./explain";
import type { ShopHttp } from "./http";

export type { ShopPlatformName };

/** A connection as an adapter sees it: its address, its credentials (opened), its settings. */
export type ShopConnection<Credentials = Record<string, string>, Settings = Record<string, unknown>> = {
  id: number;
  platform: ShopPlatformName;
  /** Without a trailing slash. */
  baseUrl: string;
  credentials: Credentials;
  settings: Settings;
};

/** Our order, as the shop's plugin sent it. */
export type OrderRef = {
  /** What the plugin sent as the order's external_id (WooCommerce: the order id; Magento: increment_id; PrestaShop: reference; Shopware: orderNumber). */
  externalId: string;
  /** Our reference, for notes and logs. */
  reference: string;
};

/** One of our order lines, as the plugin sent it. */
export type LineRef = {
  lineId: number;
  /**
   * products[].external_id, whatever the platform's plugin puts there: WooCommerce's line item id,
   * Shopware's line item productId, Magento's and PrestaShop's product id (docs/shops/<platform>.md).
   */
  productId: string;
  /** products[].reference: the SKU, when sent. */
  sku: string | null;
  name: string;
  quantity: number;
};

/** An item of the shop's order. `productIds`: every id the line item carries (product, variation). */
export type ShopItem = { id: string; productIds: string[]; sku: string | null; quantity: number };

/**
 * The shop's order, found from OrderRef.externalId. `extra` holds what the platform needs later and
 * the adapter alone reads (Shopware's delivery ids, PrestaShop's order_carrier id): it is kept as
 * JSON with the write-back, so a retry need not look the order up again.
 */
export type ShopOrder = { id: string; number: string; items: ShopItem[]; extra: Record<string, unknown> };

export type Tracking = { carrier: string | null; number: string; url: string | null };

export type ShipmentWrite = {
  order: OrderRef;
  /** The lines shipped and how many of each (a partial shipment lists only what shipped). */
  lines: { line: LineRef; quantity: number }[];
  /** One or more tracking numbers (several parcels for one line). */
  trackings: Tracking[];
  /** Whether, with this shipment, every line of the order has shipped in full (Shopware: ship vs ship_partially). */
  orderShippedInFull: boolean;
};

export type NoteWrite = { order: OrderRef; text: string };

/**
 * What a write left in the shop. `shopIds`: the ids of what it created (a shipment, a tracking, a
 * note), recorded so that a retry never creates it again. `found`: it was already there (found by
 * looking after an unclear outcome), nothing was created. `skipped`: the platform has nothing to
 * write for this (the reason says why, in words).
 */
export type WriteResult =
  | { outcome: "written"; shopIds: string[] }
  | { outcome: "found"; shopIds: string[] }
  | { outcome: "skipped"; reason: string };

/**
 * `look`: the previous attempt's outcome is unclear (it timed out, the connection dropped after the
 * request went out, or it never reported back at all: its Worker stopped mid-attempt): look in the
 * shop for what it would create (Magento's order shipments and comments, WooCommerce's trackings
 * and notes, Shopware's delivery tracking codes and internal comment, PrestaShop's carrier tracking
 * number and messages, each platform's order status) before creating it again. A look that fails
 * throws, like any call: nothing is written blind.
 * `taken`: the shop ids the order's other write-backs recorded. Two write-backs may write the same
 * text (two parcels of one item without tracking); what another one created is not this one's to find.
 */
export type WriteOptions = { look: boolean; taken?: string[] };

/** One check of POST /shop-connections/{id}/test: `message` says in words what is right or wrong. */
export type Check = { name: string; ok: boolean; message: string };

// ---- Stock (and price) writes: the stock sync (src/shops/stock, docs/shops-stock.md) ----------

/** How our products are found in the shop: settings.stock_sync.match_by. */
export type StockMatchBy = "sku" | "ean13";

/** A product of the shop as the stock sync maps it: our SKU or EAN, the shop's id, and a variation's parent product. */
export type ShopStockProduct = { key: string; shopId: string; parentId: string | null };

/** What one product gets: quantity null leaves its stock alone, price null its price. Price in ten-thousandths. */
export type StockWrite = ShopStockProduct & { quantity: number | null; price: number | null };

/** What the shop holds now (read after an unclear write, so that it is never written twice). */
export type ShopStockValue = { shopId: string; quantity: number | null; price: number | null };

/**
 * One write's result. `missing`: the shop no longer has that id (the map entry is dropped and the
 * product looked up again); otherwise `reason` is the shop's refusal in its own words.
 */
export type StockWriteResult = { shopId: string; ok: true } | { shopId: string; ok: false; missing: boolean; reason: string };

/**
 * The stock side of a platform. writeStock is the platform's batch write and is called with at
 * most `batchLimit` writes; a 429 or a failure of the whole request is thrown as ShopError (./http.ts).
 */
export interface StockPlatform<Credentials = Record<string, string>, Settings = Record<string, unknown>> {
  batchLimit: number;
  /** Every product of the shop (variations too) that carries a key: the map, built once per connection. */
  listProducts(conn: ShopConnection<Credentials, Settings>, http: ShopHttp, matchBy: StockMatchBy): Promise<ShopStockProduct[]>;
  /** The keys the map lacks, looked up in the shop (refreshing the map); those not returned are not in the shop. */
  findProducts(conn: ShopConnection<Credentials, Settings>, http: ShopHttp, matchBy: StockMatchBy, keys: string[]): Promise<ShopStockProduct[]>;
  /** The current stock and price of these products. */
  readStock(conn: ShopConnection<Credentials, Settings>, http: ShopHttp, products: ShopStockProduct[]): Promise<ShopStockValue[]>;
  writeStock(conn: ShopConnection<Credentials, Settings>, http: ShopHttp, writes: StockWrite[]): Promise<StockWriteResult[]>;
}

/**
 * An adapter, and its own description: everything else (the connections' API and checks, the
 * console's form and labels, Needs attention's words, the stock sync's batches) reads these, never
 * a platform's name (docs/adapters.md).
 */
export interface ShopPlatform<Credentials = Record<string, string>, Settings = Record<string, unknown>> {
  /** The name connections store (the API's `platform`). */
  name: ShopPlatformName;
  /** Its name in the console ("Shopware 6"). */
  label: string;
  /**
   * What a connection takes: its credentials (every field a required string, each described with its
   * label, where the owner finds it and `secret`) and its settings with their defaults (the fields
   * the console's form shows are the described ones: src/lib/described-fields.ts). Unknown fields
   * are refused. ./settings.ts holds the built-in platforms' schemas.
   */
  credentials: z.ZodObject;
  settings: z.ZodObject;
  /**
   * Where the platform's API answers only at addresses of one form (Shopify: the shop's own
   * myshopify.com domain): the 422's message (":attribute" for the field) for a base_url of
   * another form, else null. Platforms without such a rule leave it out.
   */
  baseUrlProblem?(baseUrl: string): string | null;
  /**
   * A failed write-back in a shop owner's words (Needs attention): what it means for this platform
   * and what to do, from the failure's facts and the order as the plugin sent it (./explain.ts).
   */
  explainFailure(failure: ShopFailure, order: { externalId: string }): string;
  /** Reachability, credentials and permissions, in order; later checks are skipped (ok: false, "not checked: …") after a failure they depend on. */
  test(conn: ShopConnection<Credentials, Settings>, http: ShopHttp): Promise<Check[]>;
  /** Throws ShopError (./http.ts) with kind "not_found" when the shop has no such order. */
  findOrder(conn: ShopConnection<Credentials, Settings>, http: ShopHttp, order: OrderRef): Promise<ShopOrder>;
  writeShipment(conn: ShopConnection<Credentials, Settings>, http: ShopHttp, shopOrder: ShopOrder, write: ShipmentWrite, options: WriteOptions): Promise<WriteResult>;
  /** A private note (not shown to the customer); platforms without one return skipped. */
  writeNote(conn: ShopConnection<Credentials, Settings>, http: ShopHttp, shopOrder: ShopOrder, write: NoteWrite, options: WriteOptions): Promise<WriteResult>;
  /**
   * A line given up on waits for a person: put the order on hold where the platform has such a
   * state (docs/shops/<platform>.md says which); skipped, in words, where it has none, or where the
   * shop's order is in a state that is not held (completed, cancelled). Reads the order's state
   * fresh: the kept ShopOrder may be old.
   */
  hold(conn: ShopConnection<Credentials, Settings>, http: ShopHttp, shopOrder: ShopOrder, order: OrderRef, options: WriteOptions): Promise<WriteResult>;
  /**
   * No line waits for a person any more: take the order off the hold we set, only while it is still
   * on hold (a shop owner may have moved it meanwhile: then it is left as they set it, skipped).
   */
  release(conn: ShopConnection<Credentials, Settings>, http: ShopHttp, shopOrder: ShopOrder, order: OrderRef, options: WriteOptions): Promise<WriteResult>;
  /** Every line of the order is final: set the order's completed status where the platform has one to set. */
  complete(conn: ShopConnection<Credentials, Settings>, http: ShopHttp, shopOrder: ShopOrder, order: OrderRef, options: WriteOptions): Promise<WriteResult>;
  /**
   * Set-up in the shop that the connection itself needs (Shopify: its webhook subscriptions), made
   * on create and on every test with live calls whatever the mode; the check says what is there.
   * `disconnected` undoes it when the connection is deleted. `origin`: this service's public address.
   */
  connected?(conn: ShopConnection<Credentials, Settings>, http: ShopHttp, setup: { origin: string; accountId: number }): Promise<Check>;
  disconnected?(conn: ShopConnection<Credentials, Settings>, http: ShopHttp): Promise<void>;
  /**
   * The order's own name in the shop, as its staff say it (Shopify's "#1001"), from what the
   * platform's intake kept in the order's `custom`; null for an order it did not take in.
   */
  orderName?(custom: Record<string, unknown> | null): string | null;
  /** Stock and prices into the shop's products; a platform without it syncs nothing (its syncs fail, saying so). */
  stock?: StockPlatform<Credentials, Settings>;
  /**
   * The reconciliation pull of a platform that pushes its orders to us (Shopify's webhooks): one
   * page of the shop's orders changed since `cursor` (null: since the connection was made,
   * `since`), oldest first, each only its id and whether it is cancelled, and the cursor to go on
   * from. Called from the cron; orders already taken in come back too (then nothing more is read).
   */
  pullOrders?(conn: ShopConnection<Credentials, Settings>, http: ShopHttp, cursor: PullCursor | null, since: string): Promise<PulledPage>;
  /** The whole order of a pulled id that is not ours yet, as the create-order request its webhook makes (unchecked). `name`: the connection's, the order's source. */
  pulledOrder?(conn: ShopConnection<Credentials, Settings>, http: ShopHttp, externalId: string, name: string): Promise<Record<string, unknown> | null>;
}

/** An adapter's own place in the shop's order list (kept as JSON with the connection). */
export type PullCursor = Record<string, unknown>;

/** A changed order of the shop: its external_id, and whether the shop has cancelled it. */
export type PulledOrder = { externalId: string; cancelled: boolean };

/** `more`: the shop has more changed orders past this page. `off`: the connection takes no orders in. */
export type PulledPage = { orders: PulledOrder[]; cursor: PullCursor; more: boolean; off?: boolean };

/**
 * Which shop item each of our lines is: the item carrying the line's product id, else the one with
 * its SKU. Null for a line the shop's order does not have (the write-back says so, in words).
 */
export function itemFor(items: ShopItem[], line: LineRef): ShopItem | null {
  return items.find((i) => i.productIds.includes(line.productId)) ?? (line.sku ? items.find((i) => i.sku === line.sku) : undefined) ?? null;
}
