// Stock syncs and their products' outcomes in their public JSON shape.
import type { StockSync, StockSyncItem } from "../../db/schema";
import { MONEY_UNITS } from "../../lib/money";
import type { StockPreview } from "./preview.service";

const amount = (units: number | null) => (units === null ? null : units / MONEY_UNITS);

export function presentStockSync(s: StockSync) {
  return {
    id: s.id,
    connection_id: s.connectionId,
    status: s.status,
    trigger: s.trigger,
    full: s.full,
    total: s.total,
    done: s.done,
    counts: { updated: s.updated, unchanged: s.unchanged, unknown: s.unknown, skipped: s.skipped, failed: s.failed },
    error: s.error,
    guard_reason: s.guardReason,
    confirmed_at: s.confirmedAt,
    retry_at: s.retryAt,
    created_at: s.createdAt,
    started_at: s.startedAt,
    finished_at: s.finishedAt,
  };
}

export function presentStockSyncItem(i: StockSyncItem) {
  return {
    key: i.matchKey,
    outcome: i.outcome,
    old_quantity: i.oldQuantity,
    quantity: i.quantity,
    old_price: amount(i.oldPrice),
    price: amount(i.price),
    shop_product_id: i.shopId,
    reason: i.reason,
  };
}

export function presentStockPreview(p: StockPreview) {
  return {
    full: p.full,
    total: p.total,
    old_values_from: p.oldFrom,
    read_error: p.readError,
    products: p.products.map((i) => ({
      key: i.key,
      shop_product_id: i.shopId,
      outcome: i.outcome,
      old_quantity: i.oldQuantity,
      quantity: i.quantity,
      old_price: amount(i.oldPrice),
      price: amount(i.price),
      price_drop_too_far: i.dropTooFar,
      reason: i.reason,
    })),
    guards: { price_drops_too_far: p.guards.priceDrops, changed: p.guards.changed, mapped: p.guards.mapped, would_stop: p.guards.wouldStop },
  };
}
