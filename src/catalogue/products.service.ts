// Reading the account's catalogue. Filling it (feeds, imports) lives beside this file.
import { asc, eq, sql } from "drizzle-orm";
import type { Db } from "../db";
import { products } from "../db/schema";
import { offsetOf, type PageRequest } from "../lib/pagination";

export const PRODUCTS_PER_PAGE = 100;

export async function listProducts(db: Db, accountId: number, page: PageRequest) {
  const where = eq(products.accountId, accountId);
  const [countRows, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(products).where(where),
    db.select().from(products).where(where).orderBy(asc(products.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  return { total: countRows[0]?.total ?? 0, rows };
}
