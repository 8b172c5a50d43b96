// A dry run of the next stock sync (docs/shops-stock.md, "Preview"): what it would write for its
// first products, old → new, under the stored settings or under settings not saved yet. Nothing is
// written, anywhere: the shop is only read (through a dry-run ShopHttp), and D1 only read.
import { sql } from "drizzle-orm";
import { rawBatch, type Db } from "../../db";
import type { ShopConnectionRow } from "../../db/schema";
import type { Bindings } from "../../env";
import { ApiError } from "../../lib/errors";
import { sendSettings } from "../../lib/outbound";
import { checkPlatformFields, issuesToErrors } from "../connection-fields";
import { connectionKeys, getConnection, openConnection } from "../connections.service";
import { ShopError, ShopHttp } from "../platforms/http";
import { platformFor } from "../platforms/index";
import type { ShopStockProduct } from "../platforms/platform";
import { changesTooMany, dropsTooFar } from "./compute";
import { pageFacts, targetOf } from "./stock-sync.service";
import { affectsEveryProduct, syncSettingsOf } from "./sync-settings";

/** Products a preview shows: the first of the next sync's, by key. */
export const PREVIEW_PRODUCTS = 50;

export type PreviewProduct = {
  key: string;
  shopId: string | null;
  /** write: the sync would write it; unchanged: the same as last written; unknown: not in the shop; skipped: under the minimum price or margin. */
  outcome: "write" | "unchanged" | "unknown" | "skipped";
  oldQuantity: number | null;
  oldPrice: number | null;
  quantity: number | null;
  price: number | null;
  /** The price would drop by more than max_drop_percent: the sync would stop and ask. */
  dropTooFar: boolean;
  reason: string | null;
};

export type StockPreview = {
  /** Every product of the catalogue (a first sync, a full one waiting, or settings that reach every product), else the changed ones. */
  full: boolean;
  /** Products the next sync covers; `products` shows the first PREVIEW_PRODUCTS of them. */
  total: number;
  /** Where the old values come from: the shop, read now; or, when the shop could not be read, the last values written. */
  oldFrom: "shop" | "last_written";
  readError: string | null;
  products: PreviewProduct[];
  /** Among the products shown: the guards' verdict on them. */
  guards: { priceDrops: number; changed: number; mapped: number; wouldStop: boolean };
};

/**
 * The next sync's first products with what it would write, under the stored settings with
 * `settings` (not saved) laid over them, checked as a PATCH checks them (422 naming the field).
 */
export async function previewStockSync(db: Db, env: Bindings, accountId: number, connectionId: number, settings?: Record<string, unknown>): Promise<StockPreview> {
  const row = await getConnection(db, accountId, connectionId);
  const proposedRow: ShopConnectionRow = { ...row };
  if (settings !== undefined) {
    const checked = checkPlatformFields(row.platform, { settings: { ...row.settings, ...settings } });
    if (checked.issues.length > 0) throw ApiError.validation(issuesToErrors(checked.issues));
    proposedRow.settings = checked.settings as ShopConnectionRow["settings"];
  }
  const now = syncSettingsOf(row);
  const next = syncSettingsOf(proposedRow);
  const adapter = platformFor(row.platform).stock;
  if (!adapter) throw ApiError.conflict(`Stock sync is not available for ${row.platform} yet.`);

  const column = sql.raw(next.stock.match_by === "ean13" ? "ean13" : "sku");
  const [[state]] = await rawBatch(db, [
    sql`SELECT (SELECT seen_seq FROM shop_stock_cursors WHERE connection_id = ${row.id}) AS seen,
               (SELECT map_match_by FROM shop_stock_cursors WHERE connection_id = ${row.id} AND map_built_at IS NOT NULL) AS map_match_by,
               (SELECT "full" FROM stock_syncs WHERE connection_id = ${row.id} AND status = 'queued') AS queued_full,
               (SELECT count(*) FROM shop_stock_items WHERE connection_id = ${row.id}) AS mapped`,
  ]);
  const full = state.seen === null || state.queued_full === 1 || affectsEveryProduct(now, next);
  const which = full
    ? sql`account_id = ${accountId} AND ${column} IS NOT NULL`
    : sql`account_id = ${accountId} AND change_seq > ${Number(state.seen)} AND ${column} IS NOT NULL`;
  const [keyRows, [counted]] = await rawBatch(db, [
    sql`SELECT DISTINCT ${column} AS k FROM products WHERE ${which} ORDER BY k LIMIT ${PREVIEW_PRODUCTS}`,
    sql`SELECT count(DISTINCT ${column}) AS n FROM products WHERE ${which}`,
  ]);
  const keys = keyRows.map((r) => String(r.k));
  const { offers, map } = await pageFacts(db, accountId, row.id, next.stock.match_by, keys);
  // A map listed for another match_by (or none yet) says nothing: the keys are looked up in the shop.
  const mapHolds = state.map_match_by === next.stock.match_by;
  if (!mapHolds) map.clear();

  const conn = await openConnection(connectionKeys(env), row);
  const http = new ShopHttp({ baseUrl: row.baseUrl, timeoutMs: sendSettings(env).timeoutMs, dryRun: true, secrets: Object.values(conn.credentials) });
  let readError: string | null = null;
  const shopValues = new Map<string, { quantity: number | null; price: number | null }>();
  try {
    const lacking = keys.filter((k) => !map.has(k));
    const found: ShopStockProduct[] = lacking.length > 0 ? await adapter.findProducts(conn, http, next.stock.match_by, lacking) : [];
    for (const p of found) if (!map.has(p.key)) map.set(p.key, { ...p, quantity: null, price: null });
    const mapped = [...map.values()];
    if (mapped.length > 0) for (const v of await adapter.readStock(conn, http, mapped)) shopValues.set(v.shopId, v);
  } catch (error) {
    if (!(error instanceof ShopError)) throw error;
    readError = error.message;
  }

  const what = next.stock.match_by === "sku" ? "SKU" : "EAN";
  const maxDrop = next.guards?.max_drop_percent ?? null;
  const products: PreviewProduct[] = keys.map((key) => {
    const entry = map.get(key);
    const target = targetOf(offers.get(key) ?? [], next);
    const there = entry ? shopValues.get(entry.shopId) : undefined;
    const old = there ? { oldQuantity: there.quantity, oldPrice: there.price } : { oldQuantity: entry?.quantity ?? null, oldPrice: entry?.price ?? null };
    const base = { key, shopId: entry?.shopId ?? null, quantity: target.quantity, price: target.price, ...old, dropTooFar: false };
    if (!entry) {
      const why = mapHolds ? "" : " by a lookup (the sync lists the shop's products first: variations are found only so)";
      return { ...base, outcome: "unknown" as const, reason: `The shop has no product with ${what} ${key}${why}.` };
    }
    if (target.skipped) return { ...base, outcome: "skipped" as const, reason: target.skipped };
    const same = (target.quantity === null || target.quantity === entry.quantity) && (target.price === null || target.price === entry.price);
    if (!full && same) return { ...base, outcome: "unchanged" as const, reason: null };
    return { ...base, outcome: "write" as const, dropTooFar: dropsTooFar(old.oldPrice, target.price, maxDrop), reason: null };
  });
  const changed = products.filter((p) => p.outcome === "write").length;
  const priceDrops = products.filter((p) => p.dropTooFar).length;
  const mappedCount = Math.max(Number(state.mapped), map.size);
  const wouldStop = priceDrops > 0 || changesTooMany(changed, mappedCount, next.guards?.max_changed_percent ?? null);
  return {
    full,
    total: Number(counted.n),
    oldFrom: readError === null ? "shop" : "last_written",
    readError,
    products,
    guards: { priceDrops, changed, mapped: mappedCount, wouldStop },
  };
}
