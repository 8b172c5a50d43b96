// The stock sync: the catalogue's stock (and, when price_sync is on, prices) written into a shop
// connection's products (docs/shops-stock.md). A sync is a job run through the queue a page of
// products at a time, each page under a lease:
//   1. its first page plans it: the products whose offers changed since the connection's last
//      sync (the catalogue's change sequence, src/catalogue/imports.service.ts), or every product
//      for a full sync, become its pending items, in one batch with the cursor moved on;
//   2. a page computes each product's value from its offers and compares it with the last value
//      written (shop_stock_items): the changed ones are marked "sending" with their values, then
//      written through the platform's batch endpoint, then recorded with their outcome;
//   3. a page found with products "sending" (its Worker died, or the write's answer never came)
//      first reads those products from the shop: what is already there is not written again.
// A 429 puts the page off until Retry-After; other failures of a whole request are retried with
// backoff, and after the last attempt the page's products fail with the reason.
import { and, asc, count, desc, eq, sql, type SQL } from "drizzle-orm";
import { rawBatch, rowMapper, runBatch, toStatement, type Db, type Row } from "../../db";
import { shopConnections, stockSyncItems, stockSyncs, type ShopConnectionRow, type StockSync, type StockSyncItem } from "../../db/schema";
import type { Bindings } from "../../env";
import { ApiError } from "../../lib/errors";
import { afterFailure, claimStatement, dueAt, jobSettings, Lease, retryAfterSeconds, type JobSettings, type JobTable } from "../../lib/outbound-job";
import { offsetOf, type PageRequest } from "../../lib/pagination";
import type { Pipeline } from "../../lib/queue";
import { isoMicro } from "../../lib/time";
import { connectionKeys, getConnection, openConnection } from "../connections.service";
import { ShopError, ShopHttp } from "../platforms/http";
import { platformFor } from "../platforms/index";
import type { ShopStockProduct, StockMatchBy, StockPlatform, StockWrite, StockWriteResult } from "../platforms/platform";
import { changesTooMany, priceOf, pricedOffer, priceText, quantityOf, underMinimum, type Offer } from "./compute";
import { stockSyncMessages } from "./queue";
import { checksBeforeWriting, syncSettingsOf, type SyncSettings } from "./sync-settings";
import { count as countOf } from "../../lib/plural";

/** Products per page: one batch request of WooCommerce's (100 items) for a page of simple products. */
export const STOCK_PAGE = 100;
/**
 * The syncs' table as the outbound engine (src/lib/outbound-job.ts) sees it: queued, running
 * (between pages too: held only while lease_until is ahead), a retry's due time in retry_at. A
 * page's lease covers its requests, each time-boxed, and the work around them (the job's settings),
 * and is renewed while the page runs.
 */
export const STOCK_PAGE_JOB: JobTable = { table: "stock_syncs", waiting: "queued", busy: "running", parked: "failed", dueIn: { column: "retry_at" }, touches: false };
const syncRow = rowMapper(stockSyncs);
/** Sweeper: syncs queued or running with no lease for this long get a message again. */
const RESUME_AFTER_MS = 30_000;

export { syncSettingsOf, type SyncSettings };

/** Why a connection writes no stock, in words; null when it does. */
function notSyncing(row: ShopConnectionRow): string | null {
  if (row.deletedAt) return "The shop connection was deleted; nothing was written.";
  if (!row.active) return "The shop connection is paused; nothing was written.";
  if (!syncSettingsOf(row).stock.enabled) return "Stock sync is not enabled on this connection (settings.stock_sync.enabled); nothing was written.";
  return null;
}

// ---- Starting --------------------------------------------------------------------------------

/**
 * On demand: a sync of the connection, queued; the one already waiting when there is one (a full
 * request makes it full). 409 when the connection writes no stock.
 */
export async function requestStockSync(db: Db, pipeline: Pipeline, accountId: number, connectionId: number, input: { full?: boolean }): Promise<StockSync> {
  const row = await getConnection(db, accountId, connectionId);
  const why = notSyncing(row);
  if (why) throw ApiError.conflict(why);
  const full = input.full === true;
  const [, waiting] = await rawBatch(db, [
    sql`INSERT OR IGNORE INTO stock_syncs (account_id, connection_id, status, "trigger", "full", created_at)
        SELECT ${accountId}, ${connectionId}, 'queued', 'manual', ${full ? 1 : 0}, ${isoMicro()}
        WHERE NOT EXISTS (SELECT 1 FROM stock_syncs WHERE connection_id = ${connectionId} AND status = 'queued')`,
    sql`UPDATE stock_syncs SET "full" = "full" OR ${full ? 1 : 0} WHERE connection_id = ${connectionId} AND status = 'queued' RETURNING id`,
  ]);
  const sync = await getStockSync(db, accountId, connectionId, String(waiting[0].id));
  pipeline.sendAfterResponse(stockSyncMessages([sync.id]));
  return sync;
}

/**
 * A sync a guard stopped (needs_confirmation), confirmed by a person: it runs on and writes what it
 * planned (the values shown). 409 for a sync in any other state.
 */
export async function confirmStockSync(db: Db, pipeline: Pipeline, accountId: number, connectionId: number, rawId: string): Promise<StockSync> {
  const sync = await getStockSync(db, accountId, connectionId, rawId);
  const [row] = await db
    .update(stockSyncs)
    .set({ status: "running", confirmedAt: isoMicro(), leaseUntil: null, attempts: 0, retryAt: null })
    .where(and(eq(stockSyncs.id, sync.id), eq(stockSyncs.status, "needs_confirmation")))
    .returning();
  if (!row) throw ApiError.conflict(`Only a sync that needs confirmation can be confirmed; this one is ${sync.status.replace("_", " ")}.`);
  pipeline.sendAfterResponse(stockSyncMessages([row.id]));
  return row;
}

/** A sync a guard stopped, discarded: it ends as failed with nothing written; the next sync covers its products again. */
export async function discardStockSync(db: Db, pipeline: Pipeline, accountId: number, connectionId: number, rawId: string): Promise<StockSync> {
  const sync = await getStockSync(db, accountId, connectionId, rawId);
  const [row] = await db
    .update(stockSyncs)
    .set({ status: "failed", error: "Discarded: what the guards stopped was not written.", finishedAt: isoMicro(), leaseUntil: null })
    .where(and(eq(stockSyncs.id, sync.id), eq(stockSyncs.status, "needs_confirmation")))
    .returning();
  if (!row) throw ApiError.conflict(`Only a sync that needs confirmation can be discarded; this one is ${sync.status.replace("_", " ")}.`);
  pipeline.sendAfterResponse(stockSyncMessages(await nextWaiting(db, connectionId)));
  return row;
}

// ---- Running a page --------------------------------------------------------------------------

export type PageResult =
  /** Nothing done: another Worker holds the lease, the sync waits its turn, a 429 delay, or it is over. */
  | { next: "none" }
  /** A page done: the next one runs now. */
  | { next: "page" }
  /** Try again after this delay (a 429's Retry-After, a failure's backoff). */
  | { next: "later"; delaySeconds: number };



/**
 * Takes the sync's lease when free, its retry time has come, and no other sync of the connection
 * runs or waits for confirmation (what that one planned must not be overwritten by a later one).
 */
async function claim(db: Db, syncId: number, now: Date, lease: Lease): Promise<StockSync | null> {
  const { results } = await toStatement(
    db,
    claimStatement(STOCK_PAGE_JOB, syncId, lease, {
      now,
      set: sql`started_at = coalesce(started_at, ${isoMicro(now)})`,
      where: sql`NOT EXISTS (SELECT 1 FROM stock_syncs o WHERE o.connection_id = stock_syncs.connection_id AND o.status IN ('running', 'needs_confirmation') AND o.id <> ${syncId})`,
    }),
  ).all<Row>();
  return results[0] ? syncRow(results[0]) : null;
}

/** Ends the sync; the connection's next waiting sync (if any) is the caller's to start. */
function finish(syncId: number, status: "succeeded" | "failed", error: string | null): SQL {
  return sql`UPDATE stock_syncs SET status = ${status}, error = ${error}, finished_at = ${isoMicro()}, lease_until = NULL WHERE id = ${syncId}`;
}

/** The waiting sync of the connection, to run once this one has ended. */
async function nextWaiting(db: Db, connectionId: number): Promise<number[]> {
  const rows = await db.select({ id: stockSyncs.id }).from(stockSyncs).where(and(eq(stockSyncs.connectionId, connectionId), eq(stockSyncs.status, "queued")));
  return rows.map((r) => r.id);
}

/**
 * One page of a sync. Returns what the consumer does next; `followUps` are other syncs to start
 * (the connection's waiting one, once this one has ended).
 */
export async function runStockSyncPage(db: Db, env: Bindings, syncId: number, now = new Date()): Promise<PageResult & { followUps: number[] }> {
  const send = jobSettings(env, "stock_page");
  const lease = Lease.for(send, now);
  const sync = await claim(db, syncId, now, lease);
  if (!sync) return { next: "none", followUps: [] };
  // Renewed while the page runs, so a lease that ran out means its Worker died.
  lease.on(db, STOCK_PAGE_JOB, sync.id).hold();
  try {
    return await runClaimedPage(db, env, send, sync);
  } finally {
    await lease.release();
  }
}

/** One page of a claimed sync (its attempt counted by the claim; a page done starts the count again). */
async function runClaimedPage(db: Db, env: Bindings, send: JobSettings, sync: StockSync): Promise<PageResult & { followUps: number[] }> {
  const row = await db.select().from(shopConnections).where(eq(shopConnections.id, sync.connectionId)).get();
  const why = row ? notSyncing(row) : "The shop connection is gone; nothing was written.";
  const adapter = row ? platformFor(row.platform).stock : undefined;
  if (why || !row || !adapter) {
    await runBatch(db, [finish(sync.id, "failed", why ?? `Stock sync is not available for ${row?.platform} yet; nothing was written.`)]);
    return { next: "none", followUps: await nextWaiting(db, sync.connectionId) };
  }
  const settings = syncSettingsOf(row);
  if (sync.fromSeq === null) await plan(db, sync, settings);

  const keys = connectionKeys(env);
  const conn = await openConnection(keys, row);
  const http = new ShopHttp({ baseUrl: row.baseUrl, timeoutMs: send.timeoutMs, dryRun: row.settings.mode === "dry_run", secrets: Object.values(conn.credentials) });
  try {
    await ensureMap(db, row, settings, adapter, conn, http);
    const checking = checksBeforeWriting(settings) && sync.checkedAt === null && sync.confirmedAt === null;
    const more = await runPage(db, sync, row, settings, adapter, conn, http, checking);
    if (more) {
      await runBatch(db, [sql`UPDATE stock_syncs SET lease_until = NULL, attempts = 0 WHERE id = ${sync.id}`]);
      return { next: "page", followUps: [] };
    }
    if (checking) {
      // Every product checked, nothing written yet: the guards decide whether it writes on or waits for a person.
      const stopped = await guardVerdict(db, sync, row, settings);
      await runBatch(db, [
        stopped
          ? sql`UPDATE stock_syncs SET status = 'needs_confirmation', guard_reason = ${stopped}, checked_at = ${isoMicro()}, lease_until = NULL WHERE id = ${sync.id}`
          : sql`UPDATE stock_syncs SET checked_at = ${isoMicro()}, lease_until = NULL, attempts = 0 WHERE id = ${sync.id}`,
      ]);
      return { next: stopped ? "none" : "page", followUps: [] };
    }
    await runBatch(db, [finish(sync.id, "succeeded", null)]);
    return { next: "none", followUps: await nextWaiting(db, sync.connectionId) };
  } catch (error) {
    if (!(error instanceof ShopError)) {
      await runBatch(db, [sql`UPDATE stock_syncs SET lease_until = NULL WHERE id = ${sync.id}`]);
      throw error;
    }
    return failedPage(db, sync, error, send);
  }
}

/** A request of the page failed as a whole: wait as the shop asks, retry with backoff, or give the page's products up. */
async function failedPage(db: Db, sync: StockSync, error: ShopError, send: JobSettings): Promise<PageResult & { followUps: number[] }> {
  if (error.kind === "rate_limited") {
    // The shop asked us to wait: not a failed attempt (the claim's count is given back).
    const delaySeconds = retryAfterSeconds(send, error.retryAfterSeconds);
    await runBatch(db, [sql`UPDATE stock_syncs SET lease_until = NULL, attempts = max(0, attempts - 1), retry_at = ${dueAt(delaySeconds)} WHERE id = ${sync.id}`]);
    return { next: "later", delaySeconds, followUps: [] };
  }
  if (error.kind === "auth") {
    await runBatch(db, [finish(sync.id, "failed", error.message)]);
    return { next: "none", followUps: await nextWaiting(db, sync.connectionId) };
  }
  const next = afterFailure(send, sync.attempts, { final: !error.retryable });
  if (next.retry) {
    await runBatch(db, [sql`UPDATE stock_syncs SET lease_until = NULL, retry_at = ${dueAt(next.delaySeconds)} WHERE id = ${sync.id}`]);
    return { next: "later", delaySeconds: next.delaySeconds, followUps: [] };
  }
  // The last attempt, or a refusal that a retry will not change: the page's products fail with the reason.
  const page = await pageItems(db, sync.id, false);
  // Nothing left to fail (the map's listing itself is refused): the sync ends, saying why.
  if (page.length === 0) {
    await runBatch(db, [finish(sync.id, "failed", error.message)]);
    return { next: "none", followUps: await nextWaiting(db, sync.connectionId) };
  }
  const keys = JSON.stringify(page.map((i) => i.matchKey));
  await runBatch(db, [
    sql`UPDATE stock_sync_items SET outcome = 'failed', reason = ${error.message.slice(0, 500)}
        WHERE sync_id = ${sync.id} AND match_key IN (SELECT value FROM json_each(${keys}))`,
    sql`UPDATE stock_syncs SET failed = failed + ${page.length}, done = done + ${page.length}, attempts = 0, lease_until = NULL WHERE id = ${sync.id}`,
  ]);
  return { next: "page", followUps: [] };
}

/**
 * The first page: the sync's products become its pending items, and the connection's cursor
 * moves on to the catalogue's current change, in one batch. Changed products since the cursor; a
 * full sync (or a connection's first) every product; and the products that failed in its last sync.
 */
async function plan(db: Db, sync: StockSync, settings: SyncSettings) {
  const column = sql.raw(settings.stock.match_by === "ean13" ? "ean13" : "sku");
  const cursor = await db.$client
    .prepare(
      `SELECT (SELECT seen_seq FROM shop_stock_cursors WHERE connection_id = ?1) AS seen,
              coalesce((SELECT seq FROM catalogue_sequences WHERE account_id = ?2), 0) AS seq,
              (SELECT max(id) FROM stock_syncs WHERE connection_id = ?1 AND status IN ('succeeded', 'failed')) AS last`,
    )
    .bind(sync.connectionId, sync.accountId)
    .first<{ seen: number | null; seq: number; last: number | null }>();
  const full = sync.full || cursor?.seen === null || cursor?.seen === undefined;
  const from = full ? 0 : cursor!.seen!;
  const to = cursor?.seq ?? 0;
  const changed = full
    ? sql`SELECT ${column} AS k FROM products WHERE account_id = ${sync.accountId} AND ${column} IS NOT NULL`
    : sql`SELECT ${column} AS k FROM products WHERE account_id = ${sync.accountId} AND change_seq > ${from} AND change_seq <= ${to} AND ${column} IS NOT NULL`;
  const retried = cursor?.last ? sql` UNION SELECT match_key AS k FROM stock_sync_items WHERE sync_id = ${cursor.last} AND outcome IN ('failed', 'pending', 'planned', 'sending')` : sql``;
  await runBatch(db, [
    sql`INSERT OR IGNORE INTO stock_sync_items (sync_id, match_key, outcome) SELECT ${sync.id}, k, 'pending' FROM (${changed}${retried})`,
    sql`UPDATE stock_syncs SET from_seq = ${from}, to_seq = ${to}, "full" = ${full ? 1 : 0},
          total = (SELECT count(*) FROM stock_sync_items WHERE sync_id = ${sync.id}) WHERE id = ${sync.id}`,
    sql`INSERT INTO shop_stock_cursors (connection_id, account_id, seen_seq) VALUES (${sync.connectionId}, ${sync.accountId}, ${to})
        ON CONFLICT (connection_id) DO UPDATE SET seen_seq = excluded.seen_seq,
          map_built_at = CASE WHEN ${sync.full ? 1 : 0} = 1 THEN NULL ELSE map_built_at END`,
  ]);
  sync.fromSeq = from;
}

/** The map from our keys to the shop's ids: listed once per connection (again after a full sync asks, or match_by changed). */
async function ensureMap(db: Db, row: ShopConnectionRow, settings: SyncSettings, adapter: StockPlatform, conn: Awaited<ReturnType<typeof openConnection>>, http: ShopHttp) {
  const cursor = await db.$client
    .prepare("SELECT map_built_at, map_match_by FROM shop_stock_cursors WHERE connection_id = ?")
    .bind(row.id)
    .first<{ map_built_at: string | null; map_match_by: string | null }>();
  if (cursor?.map_built_at && cursor.map_match_by === settings.stock.match_by) return;
  const products = await adapter.listProducts(conn, http, settings.stock.match_by);
  // First of a key wins (a shop may hold a SKU twice); one JSON parameter per 1,000 rows.
  const seen = new Set<string>();
  const rows = products.filter((p) => !seen.has(p.key) && seen.add(p.key)).map((p) => [p.key, p.shopId, p.parentId]);
  const statements: SQL[] = [sql`DELETE FROM shop_stock_items WHERE connection_id = ${row.id}`];
  for (let i = 0; i < rows.length; i += 1000) {
    statements.push(sql`INSERT INTO shop_stock_items (connection_id, match_key, shop_id, shop_parent_id)
      SELECT ${row.id}, r.value ->> 0, r.value ->> 1, r.value ->> 2 FROM json_each(${JSON.stringify(rows.slice(i, i + 1000))}) AS r WHERE true`);
  }
  statements.push(sql`UPDATE shop_stock_cursors SET map_built_at = ${isoMicro()}, map_match_by = ${settings.stock.match_by} WHERE connection_id = ${row.id}`);
  await runBatch(db, statements);
}

/**
 * The next page's items: those "sending" first (a write whose outcome is unknown), then those the
 * guards checked ("planned"), then pending ones.
 */
async function pageItems(db: Db, syncId: number, checking: boolean): Promise<StockSyncItem[]> {
  const pick = (outcome: string) =>
    sql`SELECT * FROM (SELECT match_key, outcome, quantity, price, old_quantity, old_price FROM stock_sync_items WHERE sync_id = ${syncId} AND outcome = ${outcome} ORDER BY match_key LIMIT ${STOCK_PAGE})`;
  // The guards' pass takes only pending ones: what it planned waits for the writing pass.
  const [rows] = await rawBatch(db, [checking ? pick("pending") : sql`${pick("sending")} UNION ALL ${pick("planned")} UNION ALL ${pick("pending")}`]);
  return rows.slice(0, STOCK_PAGE).map((r) => ({
    syncId,
    matchKey: String(r.match_key),
    outcome: r.outcome as StockSyncItem["outcome"],
    quantity: r.quantity as number | null,
    price: r.price as number | null,
    oldQuantity: r.old_quantity as number | null,
    oldPrice: r.old_price as number | null,
    shopId: null,
    reason: null,
  }));
}

/**
 * After the guards' check of every product: why the sync must wait for a person, in words, or null
 * when it may write. A price drop past max_drop_percent (against the shop's price read before), or
 * more changed products than max_changed_percent of the shop's mapped ones.
 */
async function guardVerdict(db: Db, sync: StockSync, row: ShopConnectionRow, settings: SyncSettings): Promise<string | null> {
  const maxDrop = settings.guards?.max_drop_percent ?? null;
  const maxChanged = settings.guards?.max_changed_percent ?? null;
  const bp = Math.round((maxDrop ?? 0) * 100);
  // Integer arithmetic in SQLite (basis points); the planned items through the (sync_id, outcome) index.
  const drop = sql`price IS NOT NULL AND old_price > 0 AND price < old_price AND (old_price - price) * 10000 > old_price * ${bp}`;
  const [[counts], worst] = await rawBatch(db, [
    sql`SELECT count(*) AS changed, coalesce(sum(${drop}), 0) AS drops,
          (SELECT count(*) FROM shop_stock_items WHERE connection_id = ${row.id}) AS mapped
        FROM stock_sync_items WHERE sync_id = ${sync.id} AND outcome = 'planned'`,
    sql`SELECT match_key, old_price, price FROM stock_sync_items WHERE sync_id = ${sync.id} AND outcome = 'planned' AND ${drop}
        ORDER BY (old_price - price) * 1.0 / old_price DESC, match_key LIMIT 1`,
  ]);
  const reasons: string[] = [];
  const drops = maxDrop === null ? 0 : Number(counts.drops);
  if (drops > 0) {
    const w = worst[0];
    const e = w ? ` (the most: ${String(w.match_key)} from ${priceText(Number(w.old_price))} to ${priceText(Number(w.price))})` : "";
    reasons.push(`${drops === 1 ? "1 product's price" : `${drops} products' prices`} would drop by more than ${maxDrop}%${e}`);
  }
  const changed = Number(counts.changed);
  const mapped = Number(counts.mapped);
  if (changesTooMany(changed, mapped, maxChanged)) {
    reasons.push(`${changed} of the shop's ${countOf(mapped, "product")} would change, more than ${maxChanged}%`);
  }
  return reasons.length === 0 ? null : `Stopped before writing: ${reasons.join("; ")}. Confirm to write what it planned, or discard it.`;
}

type Mapped = ShopStockProduct & { quantity: number | null; price: number | null };
type Outcome = {
  key: string;
  outcome: "planned" | "updated" | "unchanged" | "unknown" | "skipped" | "failed";
  quantity: number | null;
  price: number | null;
  oldQuantity: number | null;
  oldPrice: number | null;
  shopId: string | null;
  parentId?: string | null;
  reason: string | null;
};

/** What a page needs to decide: each key's offers and its entry in the map (with the last values written). */
export async function pageFacts(db: Db, accountId: number, connectionId: number, matchBy: StockMatchBy, keyList: string[]) {
  const keys = JSON.stringify(keyList);
  const column = sql.raw(matchBy === "ean13" ? "ean13" : "sku");
  // The page's offers (each key looked up in the account's (account_id, sku|ean13) index) and map entries.
  const [offerRows, mapRows] = await rawBatch(db, [
    sql`SELECT p.${column} AS k, p.id, p.stock_quantity, p.purchase_price, s.id AS supplier_id, s.priority
        FROM json_each(${keys}) AS v CROSS JOIN products p
        JOIN product_feeds f ON f.id = p.product_feed_id JOIN suppliers s ON s.id = f.supplier_id
        WHERE p.account_id = ${accountId} AND p.${column} = v.value AND p.active = 1 AND f.active = 1 AND s.active = 1`,
    sql`SELECT m.match_key, m.shop_id, m.shop_parent_id, m.quantity, m.price
        FROM json_each(${keys}) AS v CROSS JOIN shop_stock_items m WHERE m.connection_id = ${connectionId} AND m.match_key = v.value`,
  ]);
  const offers = new Map<string, Offer[]>();
  for (const o of offerRows) {
    const list = offers.get(String(o.k)) ?? [];
    list.push({ productId: Number(o.id), stockQuantity: o.stock_quantity as number | null, purchasePrice: o.purchase_price as number | null, supplierId: Number(o.supplier_id), supplierPriority: Number(o.priority) });
    offers.set(String(o.k), list);
  }
  const map = new Map<string, Mapped>(mapRows.map((m: Row) => [String(m.match_key), { key: String(m.match_key), shopId: String(m.shop_id), parentId: (m.shop_parent_id as string | null) ?? null, quantity: m.quantity as number | null, price: m.price as number | null }]));
  return { offers, map };
}

/** A product's target from its offers, or why it is not written (under the minimum price or margin). */
export function targetOf(offers: Offer[], settings: SyncSettings): { quantity: number | null; price: number | null; skipped: string | null } {
  const quantity = quantityOf(offers, settings.stock);
  const price = priceOf(offers, settings.price);
  return { quantity, price, skipped: underMinimum(price, pricedOffer(offers)?.purchasePrice ?? null, settings.guards) };
}

/**
 * One page; false when there was nothing left. `checking`: the guards' pass over every product
 * before any write: the shop's values are read, and the changes are recorded as planned, not written.
 */
async function runPage(
  db: Db,
  sync: StockSync,
  row: ShopConnectionRow,
  settings: SyncSettings,
  adapter: StockPlatform,
  conn: Awaited<ReturnType<typeof openConnection>>,
  http: ShopHttp,
  checking: boolean,
): Promise<boolean> {
  const items = await pageItems(db, sync.id, checking);
  if (items.length === 0) return false;
  const { offers, map } = await pageFacts(db, sync.accountId, row.id, settings.stock.match_by, items.map((i) => i.matchKey));

  // Keys the map lacks are looked up in the shop (the map refreshed for them).
  const lacking = items.filter((i) => !map.has(i.matchKey)).map((i) => i.matchKey);
  const found = lacking.length > 0 ? await adapter.findProducts(conn, http, settings.stock.match_by, lacking) : [];
  for (const p of found) if (!map.has(p.key)) map.set(p.key, { ...p, quantity: null, price: null });

  const outcomes: Outcome[] = [];
  const writes: (StockWrite & { oldQuantity: number | null; oldPrice: number | null })[] = [];
  const resumed: Mapped[] = [];
  for (const item of items) {
    const entry = map.get(item.matchKey);
    // A write that went out before, or one the guards planned: its values are kept on the item.
    const kept = item.outcome === "sending" || item.outcome === "planned";
    const target = kept ? { quantity: item.quantity, price: item.price, skipped: null } : targetOf(offers.get(item.matchKey) ?? [], settings);
    // The shop's values before: those read when the guards checked the item, else the last ones this connection wrote.
    const old = kept ? { oldQuantity: item.oldQuantity, oldPrice: item.oldPrice } : { oldQuantity: entry?.quantity ?? null, oldPrice: entry?.price ?? null };
    const base = { key: item.matchKey, quantity: target.quantity, price: target.price, shopId: entry?.shopId ?? null, ...old };
    if (!entry) {
      const what = settings.stock.match_by === "sku" ? "SKU" : "EAN";
      outcomes.push({ ...base, outcome: "unknown", reason: `The shop has no product with ${what} ${item.matchKey}.` });
    } else if (target.skipped) {
      outcomes.push({ ...base, outcome: "skipped", reason: target.skipped });
    } else if (kept) {
      if (item.outcome === "sending") resumed.push(entry);
      writes.push({ ...entry, ...old, quantity: target.quantity, price: target.price });
    } else if ((target.quantity === null || target.quantity === entry.quantity) && (target.price === null || target.price === entry.price)) {
      outcomes.push({ ...base, outcome: "unchanged", reason: target.quantity === null && target.price === null ? "No active offer: the shop's stock is left as it is (without_offer is leave)." : null });
    } else writes.push({ ...entry, ...old, quantity: target.quantity, price: target.price });
  }

  // After an unclear write: what the shop already holds is not written again.
  if (resumed.length > 0 && !http.dryRun) {
    const now = new Map((await adapter.readStock(conn, http, resumed)).map((v) => [v.shopId, v]));
    for (let i = writes.length - 1; i >= 0; i--) {
      const w = writes[i];
      const there = now.get(w.shopId);
      if (resumed.some((r) => r.shopId === w.shopId) && there && (w.quantity === null || there.quantity === w.quantity) && (w.price === null || there.price === w.price)) {
        writes.splice(i, 1);
        outcomes.push({ key: w.key, outcome: "updated", quantity: w.quantity, price: w.price, oldQuantity: w.oldQuantity, oldPrice: w.oldPrice, shopId: w.shopId, parentId: w.parentId, reason: null });
      }
    }
  }

  // The guards' pass: the shop's values read (one request a page on most platforms), the changes planned, nothing written.
  // Products skipped under the minimum price are read too, so that their page shows what the shop keeps.
  const skipped = outcomes.filter((o) => o.outcome === "skipped" && o.shopId !== null);
  if (checking && writes.length + skipped.length > 0) {
    const read = [...writes, ...skipped.map((o) => map.get(o.key)!)];
    const now = new Map((await adapter.readStock(conn, http, read)).map((v) => [v.shopId, v]));
    for (const o of skipped) {
      const there = now.get(o.shopId!);
      if (there) Object.assign(o, { oldQuantity: there.quantity, oldPrice: there.price });
    }
    for (const w of writes) {
      const there = now.get(w.shopId);
      outcomes.push({ ...w, oldQuantity: there ? there.quantity : w.oldQuantity, oldPrice: there ? there.price : w.oldPrice, outcome: "planned", reason: null });
    }
    writes.length = 0;
  }

  // Before the writes go out: the map's new entries, the outcomes known so far, and the writes marked "sending" with their values.
  const newEntries = found.filter((p) => lacking.includes(p.key)).map((p) => [p.key, p.shopId, p.parentId]);
  const before: SQL[] = [];
  if (newEntries.length > 0) {
    before.push(sql`INSERT OR IGNORE INTO shop_stock_items (connection_id, match_key, shop_id, shop_parent_id)
      SELECT ${row.id}, r.value ->> 0, r.value ->> 1, r.value ->> 2 FROM json_each(${JSON.stringify(newEntries)}) AS r WHERE true`);
  }
  before.push(...record(sync.id, row.id, outcomes, http.dryRun));
  if (writes.length > 0) {
    const sending = JSON.stringify(writes.map((w) => [w.key, w.quantity, w.price, w.shopId, w.oldQuantity, w.oldPrice]));
    // Upserts driven by the page's rows (each a primary-key lookup): an UPDATE ... FROM would read the whole sync or map.
    before.push(sql`INSERT INTO stock_sync_items (sync_id, match_key, outcome, quantity, price, shop_id, old_quantity, old_price)
      SELECT ${sync.id}, s.value ->> 0, 'sending', s.value ->> 1, s.value ->> 2, s.value ->> 3, s.value ->> 4, s.value ->> 5 FROM json_each(${sending}) AS s WHERE true
      ON CONFLICT (sync_id, match_key) DO UPDATE SET outcome = excluded.outcome, quantity = excluded.quantity, price = excluded.price, shop_id = excluded.shop_id,
        old_quantity = excluded.old_quantity, old_price = excluded.old_price`);
  }
  await runBatch(db, before);
  if (writes.length === 0) return true;

  // The platform's batch write takes at most its batchLimit writes (its adapter says how many).
  const written: StockWriteResult[] = [];
  for (let i = 0; i < writes.length; i += adapter.batchLimit) written.push(...(await adapter.writeStock(conn, http, writes.slice(i, i + adapter.batchLimit))));
  const results = new Map(written.map((r) => [r.shopId, r]));
  const after: Outcome[] = [];
  const gone: string[] = [];
  for (const w of writes) {
    const r = results.get(w.shopId);
    const base = { key: w.key, quantity: w.quantity, price: w.price, oldQuantity: w.oldQuantity, oldPrice: w.oldPrice, shopId: w.shopId, parentId: w.parentId };
    if (r?.ok) after.push({ ...base, outcome: "updated", reason: http.dryRun ? "Dry run: the write was recorded, not sent." : null });
    else if (r && r.missing) {
      gone.push(w.key);
      after.push({ ...base, outcome: "unknown", reason: `The shop no longer has product ${w.shopId} (${r.reason}); it is looked up again at the next sync.` });
    } else after.push({ ...base, outcome: "failed", reason: r ? r.reason : "The shop's answer did not mention this product." });
  }
  const statements = record(sync.id, row.id, after, http.dryRun);
  if (gone.length > 0) statements.push(sql`DELETE FROM shop_stock_items WHERE connection_id = ${row.id} AND match_key IN (SELECT value FROM json_each(${JSON.stringify(gone)}))`);
  await runBatch(db, statements);
  return true;
}

/**
 * The outcomes onto their items, the sync's counts (a planned item is not done yet), and the values
 * written into the map (not in a dry run).
 */
function record(syncId: number, connectionId: number, outcomes: Outcome[], dryRun: boolean): SQL[] {
  if (outcomes.length === 0) return [];
  const json = JSON.stringify(outcomes.map((o) => [o.key, o.outcome, o.quantity, o.price, o.shopId, o.reason, o.oldQuantity, o.oldPrice]));
  const n = (k: Outcome["outcome"]) => outcomes.filter((o) => o.outcome === k).length;
  const statements: SQL[] = [
    sql`INSERT INTO stock_sync_items (sync_id, match_key, outcome, quantity, price, shop_id, reason, old_quantity, old_price)
        SELECT ${syncId}, o.value ->> 0, o.value ->> 1, o.value ->> 2, o.value ->> 3, o.value ->> 4, o.value ->> 5, o.value ->> 6, o.value ->> 7 FROM json_each(${json}) AS o WHERE true
        ON CONFLICT (sync_id, match_key) DO UPDATE SET outcome = excluded.outcome, quantity = excluded.quantity, price = excluded.price,
          shop_id = excluded.shop_id, reason = excluded.reason, old_quantity = excluded.old_quantity, old_price = excluded.old_price`,
    sql`UPDATE stock_syncs SET done = done + ${outcomes.length - n("planned")}, updated = updated + ${n("updated")}, unchanged = unchanged + ${n("unchanged")},
          unknown = unknown + ${n("unknown")}, skipped = skipped + ${n("skipped")}, failed = failed + ${n("failed")} WHERE id = ${syncId}`,
  ];
  const written = outcomes.filter((o) => o.outcome === "updated" && o.shopId !== null);
  if (written.length > 0 && !dryRun) {
    const values = JSON.stringify(written.map((o) => [o.key, o.quantity, o.price, o.shopId, o.parentId]));
    statements.push(sql`INSERT INTO shop_stock_items (connection_id, match_key, quantity, price, shop_id, shop_parent_id)
        SELECT ${connectionId}, w.value ->> 0, w.value ->> 1, w.value ->> 2, w.value ->> 3, w.value ->> 4 FROM json_each(${values}) AS w WHERE true
        ON CONFLICT (connection_id, match_key) DO UPDATE SET quantity = coalesce(excluded.quantity, quantity), price = coalesce(excluded.price, price)`);
  }
  return statements;
}

// ---- The sweeper -----------------------------------------------------------------------------

/** Syncs owed a message: queued or running, without a live lease, past any Retry-After, quiet for a while. */
export async function syncsToResume(db: Db, now: Date): Promise<number[]> {
  const at = isoMicro(now);
  const quiet = isoMicro(new Date(now.getTime() - RESUME_AFTER_MS));
  const rows = await db.$client
    .prepare(
      `SELECT id FROM stock_syncs WHERE status IN ('queued', 'running') AND (lease_until IS NULL OR lease_until <= ?1)
         AND (retry_at IS NULL OR retry_at <= ?1) AND coalesce(started_at, created_at) <= ?2 ORDER BY id LIMIT 100`,
    )
    .bind(at, quiet)
    .all<{ id: number }>();
  return rows.results.map((r) => r.id);
}

// ---- Reads -----------------------------------------------------------------------------------

export async function listStockSyncs(db: Db, accountId: number, connectionId: number, page: PageRequest) {
  await getConnection(db, accountId, connectionId);
  const where = and(eq(stockSyncs.connectionId, connectionId), eq(stockSyncs.accountId, accountId));
  const [countRows, rows] = await db.batch([
    db.select({ total: count() }).from(stockSyncs).where(where),
    db.select().from(stockSyncs).where(where).orderBy(desc(stockSyncs.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  return { total: countRows[0]?.total ?? 0, rows };
}

export async function getStockSync(db: Db, accountId: number, connectionId: number, rawId: string): Promise<StockSync> {
  await getConnection(db, accountId, connectionId);
  const id = /^\d{1,15}$/.test(rawId) ? Number(rawId) : null;
  const row =
    id === null
      ? undefined
      : await db
          .select()
          .from(stockSyncs)
          .where(and(eq(stockSyncs.id, id), eq(stockSyncs.connectionId, connectionId), eq(stockSyncs.accountId, accountId)))
          .get();
  if (!row) throw ApiError.notFound(`Stock sync with id '${rawId}' not found`);
  return row;
}

/** A sync with a page of its products' outcomes (by key). */
export async function getStockSyncWithItems(db: Db, accountId: number, connectionId: number, rawId: string, page: PageRequest) {
  const sync = await getStockSync(db, accountId, connectionId, rawId);
  const items = await db
    .select()
    .from(stockSyncItems)
    .where(eq(stockSyncItems.syncId, sync.id))
    .orderBy(asc(stockSyncItems.matchKey))
    .limit(page.perPage)
    .offset(offsetOf(page));
  return { sync, items, totalItems: sync.total };
}
