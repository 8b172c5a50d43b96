// The export with archived orders (GET /api/v1/orders/export?archived=include|only, the console's
// "Export CSV"): the archived orders matching the filters, newest first, read in bounded pages (a
// keyset page of stubs, then the R2 objects its orders are in, each once), merged with the live
// export's chunks by (created_at, id) (docs/archive.md, "The export").
import { sql } from "drizzle-orm";
import { rawBatch, type Db } from "../db";
import type { Order } from "../db/schema";
import type { ExportOrdersFilters } from "../orders/orders.schemas";
import { exportOrders, type LineWithSupplier } from "../orders/orders.service";
import { archivedDetail } from "./archived-detail";
import { documentsOf, stubIds } from "./list";

/** Archived orders per page of the export: one statement and at most this many R2 reads. */
export const ARCHIVE_EXPORT_PAGE = 100;

type Chunk = { orders: Order[]; lines: LineWithSupplier[] };
type Entry = { order: Order; lines: LineWithSupplier[] };

/** The account's archived orders matching the filters, newest first, a page at a time. */
export async function* exportArchived(db: Db, bucket: R2Bucket, accountId: number, filters: ExportOrdersFilters, page = ARCHIVE_EXPORT_PAGE): AsyncGenerator<Chunk> {
  const f = { ...filters, per_page: page, sort: undefined, page: undefined };
  let last: { createdAt: string; id: number } | null = null;
  for (;;) {
    const after = last === null ? [] : [sql`(s.created_at < ${last.createdAt} OR (s.created_at = ${last.createdAt} AND s.id < ${last.id}))`];
    const [stubs] = await rawBatch(db, [
      sql`SELECT p.id, s.reference, s.created_at, s.part, s.line FROM (${stubIds(accountId, f, page, after)}) p
        CROSS JOIN archived_orders s ON s.id = p.id ORDER BY p.created_at DESC, p.id DESC`,
    ]);
    if (stubs.length === 0) return;
    const details = (await documentsOf(bucket, accountId, stubs)).map((doc) => archivedDetail(doc).detail);
    yield { orders: details.map((d) => d.order), lines: details.flatMap((d) => d.lines) };
    const end = stubs[stubs.length - 1];
    last = { createdAt: String(end.created_at), id: Number(end.id) };
    if (stubs.length < page) return;
  }
}

/** Chunks as their orders, each with its lines. */
async function* entriesOf(chunks: AsyncGenerator<Chunk>): AsyncGenerator<Entry> {
  for await (const chunk of chunks) {
    for (const order of chunk.orders) yield { order, lines: chunk.lines.filter((l) => l.orderId === order.id) };
  }
}

const newer = (a: Order, b: Order) => a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id);

/** Two newest-first streams as one, in chunks of up to `size` orders. */
async function* mergeNewestFirst(a: AsyncGenerator<Entry>, b: AsyncGenerator<Entry>, size: number): AsyncGenerator<Chunk> {
  let [x, y] = await Promise.all([a.next(), b.next()]);
  let chunk: Entry[] = [];
  while (!x.done || !y.done) {
    if (!x.done && (y.done || newer(x.value.order, y.value.order))) {
      chunk.push(x.value);
      x = await a.next();
    } else if (!y.done) {
      chunk.push(y.value);
      y = await b.next();
    }
    if (chunk.length >= size) {
      yield { orders: chunk.map((e) => e.order), lines: chunk.flatMap((e) => e.lines) };
      chunk = [];
    }
  }
  if (chunk.length > 0) yield { orders: chunk.map((e) => e.order), lines: chunk.flatMap((e) => e.lines) };
}

/** The export's chunks: live orders, archived ones, or both merged newest first (archived: exclude, only, include). */
export function exportWithArchive(db: Db, bucket: R2Bucket, accountId: number, filters: ExportOrdersFilters): AsyncGenerator<Chunk> {
  if (filters.archived === undefined) return exportOrders(db, accountId, filters);
  if (filters.archived === "only") return exportArchived(db, bucket, accountId, filters);
  return mergeNewestFirst(entriesOf(exportOrders(db, accountId, filters)), entriesOf(exportArchived(db, bucket, accountId, filters)), ARCHIVE_EXPORT_PAGE);
}
