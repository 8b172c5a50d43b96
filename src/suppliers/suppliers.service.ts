// Suppliers of an account. Any change can make waiting lines matchable, so it queues a re-match.
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../db";
import { suppliers, type Supplier } from "../db/schema";
import { ApiError } from "../lib/errors";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { isoMicro } from "../lib/time";

export type SupplierInput = { name?: string; code?: string | null; active?: boolean; priority?: number };

// Drizzle wraps the driver's error ("Failed query: ..."); the constraint is named in its cause.
const nameTaken = (error: unknown): boolean =>
  error instanceof Error &&
  (/UNIQUE constraint failed: suppliers\.account_id, suppliers\.name/.test(error.message) || nameTaken(error.cause));

export async function createSupplier(db: Db, accountId: number, input: SupplierInput & { name: string }): Promise<Supplier> {
  const now = isoMicro();
  try {
    const [row] = await db
      .insert(suppliers)
      .values({
        accountId,
        name: input.name,
        code: input.code ?? null,
        active: input.active ?? true,
        priority: input.priority ?? 100,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return row;
  } catch (error) {
    if (nameTaken(error)) throw ApiError.validation({ name: ["The name has already been taken."] });
    throw error;
  }
}

export async function getSupplier(db: Db, accountId: number, id: number): Promise<Supplier> {
  const row = await db.query.suppliers.findFirst({ where: and(eq(suppliers.id, id), eq(suppliers.accountId, accountId)) });
  if (!row) throw ApiError.notFound(`Supplier with id '${id}' not found`);
  return row;
}

export async function updateSupplier(db: Db, accountId: number, id: number, input: SupplierInput): Promise<Supplier> {
  try {
    const [row] = await db
      .update(suppliers)
      .set({ ...input, updatedAt: isoMicro() })
      .where(and(eq(suppliers.id, id), eq(suppliers.accountId, accountId)))
      .returning();
    if (!row) throw ApiError.notFound(`Supplier with id '${id}' not found`);
    return row;
  } catch (error) {
    if (nameTaken(error)) throw ApiError.validation({ name: ["The name has already been taken."] });
    throw error;
  }
}

export async function listSuppliers(db: Db, accountId: number, page: PageRequest) {
  const where = eq(suppliers.accountId, accountId);
  const [countRows, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(suppliers).where(where),
    db.select().from(suppliers).where(where).orderBy(asc(suppliers.priority), asc(suppliers.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  return { total: countRows[0]?.total ?? 0, rows };
}

/** Whether every id is a supplier of this account (rules may only name the account's own). */
export async function ownsSuppliers(db: Db, accountId: number, ids: number[]): Promise<boolean> {
  if (ids.length === 0) return true;
  const rows = await db
    .select({ id: suppliers.id })
    .from(suppliers)
    .where(and(eq(suppliers.accountId, accountId), sql`${suppliers.id} IN (${sql.join(ids.map((i) => sql`${i}`), sql`, `)})`));
  return rows.length === new Set(ids).size;
}
