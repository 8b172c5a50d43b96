// Catalogue rows seeded directly (routing tests control every field, including ones no feed sets).
import { env } from "cloudflare:workers";
import { unique } from "./factories";

export async function seedFeed(accountId: number, supplierId: number, opts: { active?: boolean; name?: string } = {}) {
  const now = new Date().toISOString();
  const row = await env.DB.prepare(
    "INSERT INTO product_feeds (account_id, supplier_id, name, format, active, created_at, updated_at) VALUES (?, ?, ?, 'csv', ?, ?, ?) RETURNING id",
  )
    .bind(accountId, supplierId, opts.name ?? unique("feed"), opts.active === false ? 0 : 1, now, now)
    .first<{ id: number }>();
  return { id: row!.id };
}

export type SeedProduct = {
  sku?: string;
  ean13?: string | null;
  name?: string;
  purchasePrice?: number | null;
  stockQuantity?: number | null;
  active?: boolean;
};

export async function seedProduct(accountId: number, feedId: number, p: SeedProduct = {}) {
  const now = new Date().toISOString();
  const row = await env.DB.prepare(
    `INSERT INTO products (account_id, product_feed_id, sku, ean13, name, purchase_price, stock_quantity, active, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  )
    .bind(
      accountId,
      feedId,
      p.sku ?? unique("sku"),
      p.ean13 === undefined ? null : p.ean13,
      p.name ?? "Seeded product",
      // Stored in ten-thousandths, as the service stores money (src/lib/money.ts).
      p.purchasePrice === undefined || p.purchasePrice === null ? null : Math.round(p.purchasePrice * 10_000),
      p.stockQuantity === undefined ? null : p.stockQuantity,
      p.active === false ? 0 : 1,
      now,
      now,
    )
    .first<{ id: number }>();
  return { id: row!.id };
}
