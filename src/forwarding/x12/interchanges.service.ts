// The X12 files each way with a supplier, newest first (GET /api/v1/suppliers/{id}/x12-interchanges):
// their control numbers, what each did, and their text for a View of the segments.
import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db";
import { x12Interchanges, type X12Interchange } from "../../db/schema";
import { offsetOf, type PageRequest } from "../../lib/pagination";

export async function listX12Interchanges(
  db: Db,
  accountId: number,
  supplierId: number,
  page: PageRequest,
  /** One way only (the console's two lists); both when absent (the API's). */
  direction?: X12Interchange["direction"],
): Promise<{ total: number; interchanges: X12Interchange[] }> {
  const where = and(eq(x12Interchanges.accountId, accountId), eq(x12Interchanges.supplierId, supplierId), direction ? eq(x12Interchanges.direction, direction) : undefined);
  const [count, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(x12Interchanges).where(where),
    db.select().from(x12Interchanges).where(where).orderBy(desc(x12Interchanges.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  return { total: count[0]?.total ?? 0, interchanges: rows };
}
