import type { Product } from "../db/schema";

export function presentProduct(p: Product) {
  return {
    id: p.id,
    project_id: p.accountId,
    product_feed_id: p.productFeedId,
    sku: p.sku,
    ean13: p.ean13,
    name: p.name,
    purchase_price: p.purchasePrice,
    stock_quantity: p.stockQuantity,
    active: p.active,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}
