// Stock syncs and their products' outcomes in their public JSON shape.
import type { StockSync, StockSyncItem } from "../../db/schema";
import { MONEY_UNITS } from "../../lib/money";

export function presentStockSync(s: StockSync) {
  return {
    id: s.id,
    connection_id: s.connectionId,
    status: s.status,
    trigger: s.trigger,
    full: s.full,
    total: s.total,
    done: s.done,
    counts: { updated: s.updated, unchanged: s.unchanged, unknown: s.unknown, failed: s.failed },
    error: s.error,
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
    quantity: i.quantity,
    price: i.price === null ? null : i.price / MONEY_UNITS,
    shop_product_id: i.shopId,
    reason: i.reason,
  };
}
