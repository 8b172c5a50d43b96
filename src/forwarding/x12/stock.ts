// An 846 from a supplier: its stock per item, written into that supplier's catalogue (the products of
// its feeds, by SKU or barcode) as an import of its feed would write it: the account's change
// sequence moved on, the changed products stamped with it, and the shop connections' stock syncs
// queued in the same batch, so the stock reaches the shop as after a pushed feed (docs/edi.md).
import { sql } from "drizzle-orm";
import { rawBatch, type Db, type Row } from "../../db";
import type { Supplier } from "../../db/schema";
import type { Pipeline } from "../../lib/queue";
import { isoMicro } from "../../lib/time";
import { queueStockSyncsAfterImport, stockSyncMessages } from "../../shops/stock/queue";
import type { Stocked } from "./read-sets";

/** The stock levels written; how many products changed and how many items the catalogue does not have. */
export async function applyStock(db: Db, pipeline: Pipeline, supplier: Pick<Supplier, "id" | "accountId">, items: Stocked[]): Promise<{ changed: number; unknown: number }> {
  if (!items.length) return { changed: 0, unknown: 0 };
  const at = isoMicro();
  const list = JSON.stringify(items.map((i) => ({ s: i.item.sku, e: i.item.barcode, q: i.quantity })));
  const feeds = sql`(SELECT id FROM product_feeds WHERE account_id = ${supplier.accountId} AND supplier_id = ${supplier.id})`;
  const match = sql`(j.value ->> '$.s' = products.sku OR j.value ->> '$.e' = products.ean13)`;
  const wanted = sql`(SELECT j.value ->> '$.q' FROM json_each(${list}) AS j WHERE ${match} LIMIT 1)`;
  const seq = sql`(SELECT seq FROM catalogue_sequences WHERE account_id = ${supplier.accountId})`;
  const [known, , changed, syncs] = await rawBatch(db, [
    sql`SELECT count(*) AS n FROM json_each(${list}) AS j WHERE EXISTS (SELECT 1 FROM products WHERE product_feed_id IN ${feeds} AND ${match})`,
    sql`INSERT INTO catalogue_sequences (account_id, seq) VALUES (${supplier.accountId}, 1) ON CONFLICT (account_id) DO UPDATE SET seq = seq + 1`,
    sql`UPDATE products SET stock_quantity = ${wanted}, updated_at = ${at}, change_seq = ${seq}
        WHERE product_feed_id IN ${feeds} AND EXISTS (SELECT 1 FROM json_each(${list}) AS j WHERE ${match})
          AND stock_quantity IS NOT ${wanted} RETURNING id`,
    queueStockSyncsAfterImport(supplier.accountId, sql`EXISTS (SELECT 1 FROM products WHERE account_id = ${supplier.accountId} AND change_seq = ${seq})`),
  ]);
  const syncIds = (syncs as Row[]).map((r) => Number(r.id));
  if (syncIds.length) await pipeline.send(stockSyncMessages(syncIds));
  return { changed: (changed as Row[]).length, unknown: items.length - Number((known as Row[])[0].n) };
}
