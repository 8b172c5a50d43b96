// Reading the account's catalogue. Filling it (feeds, imports) lives beside this file.
import { and, asc, eq, gte, sql, type SQL } from "drizzle-orm";
import { rawBatch, rowMapper, type Db } from "../db";
import { products } from "../db/schema";
import { offsetOf, type PageRequest } from "../lib/pagination";

export const PRODUCTS_PER_PAGE = 100;

export type ProductFilters = {
  sku?: string;
  ean13?: string;
  product_feed_id?: number;
  active?: boolean;
  updated_since?: string;
  search?: string;
};

function conditions(accountId: number, f: ProductFilters): SQL {
  const where: SQL[] = [eq(products.accountId, accountId)];
  if (f.sku !== undefined) where.push(eq(products.sku, f.sku));
  if (f.ean13 !== undefined) where.push(eq(products.ean13, f.ean13));
  if (f.product_feed_id !== undefined) where.push(eq(products.productFeedId, f.product_feed_id));
  if (f.active !== undefined) where.push(eq(products.active, f.active ? 1 : 0));
  if (f.updated_since !== undefined) where.push(gte(products.updatedAt, f.updated_since));
  // A substring match, ASCII case-insensitive like LIKE, but without a pattern: D1 refuses LIKE
  // patterns over 50 bytes, and a search may be 255 characters. % and _ are plain text.
  if (f.search !== undefined) where.push(sql`instr(lower(${products.name}), lower(${f.search})) > 0`);
  return and(...where)!;
}

// Built once per isolate (see rowMapper).
const toProduct = rowMapper(products);

export async function listProducts(db: Db, accountId: number, filters: ProductFilters, page: PageRequest) {
  const where = conditions(accountId, filters);
  const [countRows, rows] = await rawBatch(db, [
    db.select({ total: sql<number>`count(*)`.as("total") }).from(products).where(where),
    db.select().from(products).where(where).orderBy(asc(products.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  return { total: Number(countRows[0]?.total ?? 0), rows: rows.map(toProduct) };
}
