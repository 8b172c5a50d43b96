// Control numbers of the interchanges we write to a supplier: one per document (a dispatch's 850, a
// cancellation's 860, our 997 for a group we read), unique and increasing per supplier. The number
// is taken by one INSERT … SELECT max + 1 (D1 runs statements one at a time, and a unique index on
// the supplier's numbers backs it), and kept under the document's key: a retry of the same
// dispatch finds its number and writes the same file with the same bytes, never a second number.
import { sql } from "drizzle-orm";
import { rawBatch, type Db, type Row } from "../../db";
import type { Supplier } from "../../db/schema";
import { isoMicro } from "../../lib/time";
import { ControlNumbersExhausted, type SendLedger } from "../channels/channel";

/** ISA13 is nine digits. */
export const MAX_CONTROL_NUMBER = 999_999_999;

/**
 * The control number of the document under `key` ("dispatch:77"): the one it was given, or the
 * supplier's next. `sets` ("850") and `dispatchId` are kept with it for the console.
 */
export async function controlNumberFor(db: Db, supplier: Pick<Supplier, "id" | "accountId">, key: string, sets: string, dispatchId: number | null): Promise<number> {
  const [, found] = await rawBatch(db, [
    sql`INSERT INTO x12_interchanges (account_id, supplier_id, direction, control_number, document_key, sets, file_name, dispatch_id, status, content, created_at)
        SELECT ${supplier.accountId}, ${supplier.id}, 'out', coalesce(max(control_number), 0) + 1, ${key}, ${sets}, '', ${dispatchId}, 'written', '', ${isoMicro()}
        FROM x12_interchanges WHERE supplier_id = ${supplier.id} AND direction = 'out'
        ON CONFLICT (supplier_id, document_key) DO NOTHING`,
    sql`SELECT control_number FROM x12_interchanges WHERE supplier_id = ${supplier.id} AND document_key = ${key}`,
  ]);
  const control = Number((found as Row[])[0].control_number);
  if (control > MAX_CONTROL_NUMBER) {
    throw new ControlNumbersExhausted(`supplier ${supplier.id} has used every interchange control number up to ${MAX_CONTROL_NUMBER}; nothing was sent.`);
  }
  return control;
}

/** The file a document became (its name and text), kept for the console's list and View. */
export async function recordOutgoing(db: Db, supplierId: number, key: string, fileName: string, content: string): Promise<void> {
  await rawBatch(db, [sql`UPDATE x12_interchanges SET file_name = ${fileName}, content = ${content} WHERE supplier_id = ${supplierId} AND document_key = ${key}`]);
}

/** The send ledger a channel is handed (./channels/channel.ts SendLedger): this supplier's control numbers and files. */
export const sendLedger = (db: Db, supplier: Pick<Supplier, "id" | "accountId">): SendLedger => ({
  controlNumber: (key, sets, dispatchId) => controlNumberFor(db, supplier, key, sets, dispatchId),
  record: (key, fileName, content) => recordOutgoing(db, supplier.id, key, fileName, content),
});
