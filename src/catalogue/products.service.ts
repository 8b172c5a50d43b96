// Reading the account's catalogue. Filling it (feeds, imports) lives beside this file.
import { and, asc, desc, eq, gte, sql, type SQL } from "drizzle-orm";
import { rawBatch, rowMapper, toStatement, type Db } from "../db";
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

/** Past this offset, an unfiltered (or feed-only) page is read from the nearer end of the ids. */
const DEEP_OFFSET = 1000;

/**
 * The total from the counters the products triggers keep (drizzle/0009), when nothing but the
 * feed filters: constant. Other filters count their matches through their index.
 */
function countedTotal(accountId: number, f: ProductFilters): SQL | null {
  if (f.sku !== undefined || f.ean13 !== undefined || f.active !== undefined || f.updated_since !== undefined || f.search !== undefined) return null;
  const [kind, key] = f.product_feed_id === undefined ? ["products", ""] : ["products.feed", String(f.product_feed_id)];
  return sql`SELECT coalesce(sum(n), 0) AS total FROM counters WHERE account_id = ${accountId} AND test = 0 AND kind = ${kind} AND key = ${key}`;
}

export async function listProducts(db: Db, accountId: number, filters: ProductFilters, page: PageRequest) {
  const where = conditions(accountId, filters);
  const offset = offsetOf(page);
  const counted = countedTotal(accountId, filters);
  const pageFrom = (start: number, size: number, newestFirst: boolean) =>
    db.select().from(products).where(where).orderBy(newestFirst ? desc(products.id) : asc(products.id)).limit(size).offset(start);
  if (counted && offset >= DEEP_OFFSET) {
    // The exact total first, then the page from whichever end of the ids is nearer.
    const [[row]] = await rawBatch(db, [counted]);
    const total = Number(row.total);
    if (offset * 2 + page.perPage <= total) return { total, rows: (await rawBatch(db, [pageFrom(offset, page.perPage, false)]))[0].map(toProduct) };
    const end = total - offset;
    if (end <= 0) return { total, rows: [] };
    const start = Math.max(0, end - page.perPage);
    const [rows] = await rawBatch(db, [pageFrom(start, end - start, true)]);
    return { total, rows: rows.reverse().map(toProduct) };
  }
  const [countRows, rows] = await rawBatch(db, [
    counted ?? db.select({ total: sql<number>`count(*)`.as("total") }).from(products).where(where),
    pageFrom(offset, page.perPage, false),
  ]);
  return { total: Number(countRows[0]?.total ?? 0), rows: rows.map(toProduct) };
}

/** One supplier's offer of a product: what its active feed says it has, and at what purchase price. */
export type Offer = { supplierId: number; productId: number; sku: string; matchedOn: "ean13" | "sku"; stockQuantity: number | null; purchasePrice: number | null };

/**
 * The catalogue's offers of a line's product, as matching reads them (same EAN-13, else same SKU as
 * the line's reference; active products of active feeds): at most one per supplier, its best (an
 * EAN match first, then the cheapest). One statement through the (account, ean13) and (account, sku)
 * indexes; none without an EAN-13 or reference.
 */
export async function offersFor(db: Db, accountId: number, line: { ean13: string | null; reference: string | null }): Promise<Offer[]> {
  if (!line.ean13 && !line.reference) return [];
  type OfferRow = { supplier_id: number; id: number; sku: string; on: "ean13" | "sku"; stock_quantity: number | null; purchase_price: number | null };
  const { results: rows } = await toStatement(db, sql`
    SELECT f.supplier_id, p.id, p.sku, CASE WHEN p.ean13 IS ${line.ean13} AND ${line.ean13} IS NOT NULL THEN 'ean13' ELSE 'sku' END AS "on",
      p.stock_quantity, p.purchase_price
    FROM products p JOIN product_feeds f ON f.id = p.product_feed_id
    WHERE p.account_id = ${accountId} AND p.active = 1 AND f.active = 1
      AND (${line.ean13 ? sql`p.ean13 = ${line.ean13}` : sql`0`} OR ${line.reference ? sql`p.sku = ${line.reference}` : sql`0`})`).all<OfferRow>();
  const best = new Map<number, Offer>();
  for (const r of rows) {
    const offer: Offer = {
      supplierId: r.supplier_id,
      productId: r.id,
      sku: r.sku,
      matchedOn: r.on,
      stockQuantity: r.stock_quantity,
      purchasePrice: r.purchase_price === null ? null : (products.purchasePrice.mapFromDriverValue(r.purchase_price) as number),
    };
    const held = best.get(offer.supplierId);
    const better = !held || (held.matchedOn === "sku" && offer.matchedOn === "ean13") || (held.matchedOn === offer.matchedOn && (offer.purchasePrice ?? Infinity) < (held.purchasePrice ?? Infinity));
    if (better) best.set(offer.supplierId, offer);
  }
  return [...best.values()];
}
