// Reading the account's catalogue. Filling it (feeds, imports) lives beside this file.
import { asc, eq, sql } from "drizzle-orm";
import { rawBatch, rowMapper, type Db } from "../db";
import { products } from "../db/schema";
import { offsetOf, type PageRequest } from "../lib/pagination";

export const PRODUCTS_PER_PAGE = 100;

// Built once per isolate (see rowMapper).
const toProduct = rowMapper(products);

export async function listProducts(db: Db, accountId: number, page: PageRequest) {
  const where = eq(products.accountId, accountId);
  const [countRows, rows] = await rawBatch(db, [
    db.select({ total: sql<number>`count(*)`.as("total") }).from(products).where(where),
    db.select().from(products).where(where).orderBy(asc(products.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  return { total: Number(countRows[0]?.total ?? 0), rows: rows.map(toProduct) };
}
