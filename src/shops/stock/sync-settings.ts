// A connection's stock and price settings as the sync reads them, and which changes of them reach
// every product (and so need a full sync: docs/shops-stock.md, "After a change of settings").
import type { ShopConnectionRow } from "../../db/schema";
import { PRICE_SYNC, STOCK_SYNC, SYNC_GUARDS, type PriceSyncSettings, type StockSyncSettings, type SyncGuards } from "../platforms/settings";

export type SyncSettings = { stock: StockSyncSettings; price: PriceSyncSettings | undefined; guards: SyncGuards | undefined };

/** A connection's stock and price settings, parsed (absent stock_sync: disabled). */
export function syncSettingsOf(row: Pick<ShopConnectionRow, "settings">): SyncSettings {
  const raw = row.settings as { stock_sync?: unknown; price_sync?: unknown; sync_guards?: unknown };
  return {
    stock: STOCK_SYNC.parse(raw.stock_sync ?? { enabled: false }),
    price: raw.price_sync === undefined ? undefined : PRICE_SYNC.parse(raw.price_sync),
    guards: raw.sync_guards === undefined ? undefined : SYNC_GUARDS.parse(raw.sync_guards),
  };
}

/** Whether the sync checks every product before writing any (a guard on the whole sync is set). */
export const checksBeforeWriting = (s: SyncSettings) => (s.guards?.max_drop_percent ?? null) !== null || (s.guards?.max_changed_percent ?? null) !== null;

/**
 * Whether going from `before` to `after` changes what the sync would write for products whose
 * offers did not change: then only a full sync brings the shop in line. Stock sync turned on, the
 * quantity rule, buffer, without_offer, match_by; price sync turned on, its markup and rounding,
 * and the minimum price or margin while it is on. Turning something off changes no product.
 */
export function affectsEveryProduct(before: SyncSettings, after: SyncSettings): boolean {
  if (!after.stock.enabled) return false;
  if (!before.stock.enabled) return true;
  const { stock: a, price: p } = after;
  const { stock: b, price: q } = before;
  if (a.match_by !== b.match_by || a.quantity !== b.quantity || a.buffer !== b.buffer || a.without_offer !== b.without_offer) return true;
  if (!p?.enabled) return false;
  if (!q?.enabled || p.markup_percent !== q.markup_percent || p.round_to !== q.round_to) return true;
  const g = after.guards;
  const h = before.guards;
  return (g?.min_price ?? null) !== (h?.min_price ?? null) || (g?.min_margin_percent ?? null) !== (h?.min_margin_percent ?? null);
}
