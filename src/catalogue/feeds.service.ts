// Product feeds of an account: set-up, listing, changes and removal. Filling them is imports.service.ts.
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db";
import { productFeeds, productImportRows, productImports, products, suppliers, type ProductFeed } from "../db/schema";
import { ApiError } from "../lib/errors";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { isoMicro } from "../lib/time";
import type { CreateFeedInput, UpdateFeedInput } from "./feeds.schemas";

function feedId(raw: string | number): number | null {
  const s = String(raw);
  return /^\d{1,15}$/.test(s) ? Number(s) : null;
}

/** The account's feed; another account's id answers exactly like an unknown one. */
export async function getFeed(db: Db, accountId: number, rawId: string | number): Promise<ProductFeed> {
  const id = feedId(rawId);
  const [feed] =
    id === null
      ? []
      : await db
          .select()
          .from(productFeeds)
          .where(and(eq(productFeeds.id, id), eq(productFeeds.accountId, accountId)));
  if (!feed) throw ApiError.notFound(`Product feed with id '${rawId}' not found`);
  return feed;
}

async function assertOwnSupplier(db: Db, accountId: number, supplierId: number) {
  const [row] = await db
    .select({ id: suppliers.id })
    .from(suppliers)
    .where(and(eq(suppliers.id, supplierId), eq(suppliers.accountId, accountId)));
  // Laravel's "exists" wording: a supplier of another account is as unknown as a missing one.
  if (!row) throw ApiError.validation({ supplier_id: ["The selected supplier_id is invalid."] });
}

function assertScheduleHasUrl(url: string | null, schedule: string | null) {
  if (schedule && !url) throw ApiError.validation({ url: ["The url field is required when schedule is present."] });
}

export async function createFeed(db: Db, accountId: number, input: CreateFeedInput): Promise<ProductFeed> {
  const url = input.url ?? null;
  const schedule = input.schedule ?? null;
  assertScheduleHasUrl(url, schedule);
  await assertOwnSupplier(db, accountId, input.supplier_id);
  const now = isoMicro();
  const [feed] = await db
    .insert(productFeeds)
    .values({
      accountId,
      supplierId: input.supplier_id,
      name: input.name,
      format: input.format,
      mapping: input.mapping ?? {},
      url,
      schedule,
      encoding: input.encoding ?? null,
      csvDelimiter: input.csv_delimiter ?? null,
      recordPath: input.record_path ?? null,
      active: input.active ?? true,
      // A scheduled feed is first pulled at the next cron tick.
      nextImportAt: schedule ? now : null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return feed;
}

export async function listFeeds(db: Db, accountId: number, page: PageRequest) {
  const where = eq(productFeeds.accountId, accountId);
  const [countRows, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(productFeeds).where(where),
    db.select().from(productFeeds).where(where).orderBy(asc(productFeeds.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  return { total: countRows[0]?.total ?? 0, rows };
}

/**
 * The page of feeds as listFeeds reads it, with each feed's latest import (one more statement of the
 * same round trip, for the whole page) and the account's suppliers by id.
 */
export async function listFeedsWithLatestImport(db: Db, accountId: number, page: PageRequest) {
  const where = eq(productFeeds.accountId, accountId);
  const pageIds = db.select({ id: productFeeds.id }).from(productFeeds).where(where).orderBy(asc(productFeeds.id)).limit(page.perPage).offset(offsetOf(page));
  const latest = db
    .select({ id: sql<number>`max(${productImports.id})` })
    .from(productImports)
    .where(inArray(productImports.productFeedId, pageIds))
    .groupBy(productImports.productFeedId);
  const [countRows, rows, imports, supplierRows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(productFeeds).where(where),
    db.select().from(productFeeds).where(where).orderBy(asc(productFeeds.id)).limit(page.perPage).offset(offsetOf(page)),
    db.select().from(productImports).where(inArray(productImports.id, latest)),
    db.select({ id: suppliers.id, name: suppliers.name }).from(suppliers).where(eq(suppliers.accountId, accountId)),
  ]);
  return {
    total: countRows[0]?.total ?? 0,
    rows,
    latestImport: new Map(imports.map((i) => [i.productFeedId, i])),
    supplierNames: new Map(supplierRows.map((s) => [s.id, s.name])),
  };
}

export async function updateFeed(db: Db, accountId: number, rawId: string, input: UpdateFeedInput): Promise<ProductFeed> {
  const feed = await getFeed(db, accountId, rawId);
  const url = input.url === undefined ? feed.url : input.url;
  const schedule = input.schedule === undefined ? feed.schedule : input.schedule;
  assertScheduleHasUrl(url, schedule);
  if (input.supplier_id !== undefined && input.supplier_id !== feed.supplierId) await assertOwnSupplier(db, accountId, input.supplier_id);
  const now = isoMicro();
  // A new schedule or url takes effect at the next tick; no schedule, no automatic pulls.
  const rescheduled = schedule !== feed.schedule || url !== feed.url;
  const [updated] = await db
    .update(productFeeds)
    .set({
      supplierId: input.supplier_id,
      name: input.name,
      format: input.format,
      mapping: input.mapping === null ? {} : input.mapping,
      url: input.url,
      schedule: input.schedule,
      encoding: input.encoding,
      csvDelimiter: input.csv_delimiter,
      recordPath: input.record_path,
      active: input.active,
      nextImportAt: !schedule ? null : rescheduled ? now : feed.nextImportAt,
      updatedAt: now,
    })
    .where(and(eq(productFeeds.id, feed.id), eq(productFeeds.accountId, accountId)))
    .returning();
  return updated;
}

/** Removes the feed with its products and import history, in one batch. */
export async function deleteFeed(db: Db, accountId: number, rawId: string) {
  const feed = await getFeed(db, accountId, rawId);
  const importIds = db.select({ id: productImports.id }).from(productImports).where(eq(productImports.productFeedId, feed.id));
  await db.batch([
    db.delete(productImportRows).where(inArray(productImportRows.importId, importIds)),
    db.delete(productImports).where(eq(productImports.productFeedId, feed.id)),
    db.delete(products).where(eq(products.productFeedId, feed.id)),
    db.delete(productFeeds).where(and(eq(productFeeds.id, feed.id), eq(productFeeds.accountId, accountId))),
  ]);
}
