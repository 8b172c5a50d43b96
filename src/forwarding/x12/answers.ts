// An X12 file from a supplier's inbound folder (docs/edi.md, "In"), read by the cron after the
// file's claim (inbound-files.service.ts): every interchange read and checked first (the envelope,
// the sets the supplier sends back, every order and line it names being one we sent it), so that a
// bad file applies nothing; then each interchange's ISA13 taken once per supplier (the same
// interchange read twice is applied once), its answers applied through the supplier API's path
// (the caller's applyRows), its invoice lines kept, and each group answered with our 997.
import { sql } from "drizzle-orm";
import { rawBatch, type Db, type Row } from "../../db";
import type { Supplier, X12Config } from "../../db/schema";
import { readInterchanges } from "../../lib/x12/reader";
import { X12Error, type Interchange } from "../../lib/x12/x12";
import { numberToUnits } from "../../lib/money";
import { isoMicro } from "../../lib/time";
import { functionalAck } from "../channels/x12/documents";
import type { Pipeline } from "../../lib/queue";
import { controlNumberFor, recordOutgoing } from "./numbers";
import { READERS, SetUnreadable, type Invoiced, type ItemRef, type SetItem, type Stocked } from "./read-sets";
import { applyStock } from "./stock";
import { AK5, refusedGroups, X12FileRefused, type SetFault } from "./refusals";

/** An answer row as the answer files carry it (inbound-files.service.ts applies it). */
export type AnswerRow = Partial<Record<"line_id" | "action" | "quantity" | "carrier" | "tracking_number" | "shipment_id" | "reason", string>>;

export type X12FileContext = {
  db: Db;
  pipeline: Pipeline;
  supplier: Supplier;
  config: X12Config;
  fileId: number;
  name: string;
  text: string;
  /** Applies answer rows through the supplier API's path; each row's result. */
  applyRows: (rows: AnswerRow[]) => Promise<{ result: "applied" | "refused" }[]>;
  /** Writes one of our files (a 997) in the supplier's order folder, atomically. */
  writeFile: (name: string, bytes: Uint8Array) => Promise<void>;
};

export { X12FileRefused };

type Line = { id: number; order: string; sku: string | null; ean13: string | null; purchasePrice: number | null; dispatchId: number | null };

/** The lines of these orders that went to this supplier: one query. */
async function linesOf(db: Db, supplier: Supplier, orders: string[]): Promise<Line[]> {
  if (!orders.length) return [];
  const [found] = await rawBatch(db, [
    sql`SELECT l.id, o.reference, l.reference AS sku, l.ean13, l.purchase_price / 10000.0 AS purchase_price, l.dispatch_id
        FROM orders o JOIN order_lines l ON l.order_id = o.id
        WHERE o.account_id = ${supplier.accountId} AND o.reference IN (SELECT value FROM json_each(${JSON.stringify(orders)}))
          AND (l.matched_supplier_id = ${supplier.id} OR l.dispatch_id IN (SELECT id FROM dispatches WHERE order_id = o.id AND supplier_id = ${supplier.id}))`,
  ]);
  return (found as Row[]).map((r) => ({
    id: Number(r.id),
    order: String(r.reference),
    sku: r.sku === null ? null : String(r.sku),
    ean13: r.ean13 === null ? null : String(r.ean13),
    purchasePrice: r.purchase_price === null ? null : Number(r.purchase_price),
    dispatchId: r.dispatch_id === null ? null : Number(r.dispatch_id),
  }));
}

/** The line an item names among the order's lines sent to this supplier: by our line id, else the SKU, else the barcode. */
function lineFor(lines: Line[], order: string, item: ItemRef): Line | string {
  const mine = lines.filter((l) => l.order === order);
  if (!mine.length) return `order ${order}, which we never sent to this supplier`;
  const hit = (item.lineId && mine.find((l) => String(l.id) === item.lineId)) || (item.sku && mine.find((l) => l.sku === item.sku)) || (item.barcode && mine.find((l) => l.ean13 === item.barcode));
  return hit || `an item of order ${order} (${[item.lineId && `line ${item.lineId}`, item.sku && `SKU ${item.sku}`, item.barcode && `barcode ${item.barcode}`].filter(Boolean).join(", ") || "no id"}) we never sent to this supplier`;
}

/** Our interchanges (their dispatches) a 997 names by its group's control number (our GS06 = ISA13). */
async function ourInterchanges(db: Db, supplier: Supplier, numbers: number[]): Promise<Map<number, { dispatchId: number | null }>> {
  if (!numbers.length) return new Map();
  const [found] = await rawBatch(db, [
    sql`SELECT control_number, dispatch_id FROM x12_interchanges WHERE supplier_id = ${supplier.id} AND direction = 'out'
        AND control_number IN (SELECT value FROM json_each(${JSON.stringify(numbers)}))`,
  ]);
  return new Map((found as Row[]).map((r) => [Number(r.control_number), { dispatchId: r.dispatch_id === null ? null : Number(r.dispatch_id) }]));
}

/** Where each item was read (its set), for the 997 that refuses a file over it. */
type Where = WeakMap<SetItem, Omit<SetFault, "code">>;

/** Every interchange read and every set checked, or the file refused in words. */
function readAll(ctx: X12FileContext, where: Where): { interchange: Interchange; items: SetItem[] }[] {
  let interchanges: Interchange[];
  try {
    interchanges = readInterchanges(ctx.text);
  } catch (error) {
    if (error instanceof X12Error) throw new X12FileRefused(error.message);
    throw error;
  }
  return interchanges.map((interchange) => {
    const items: SetItem[] = [];
    for (const group of interchange.groups) {
      for (const set of group.sets) {
        const at = { interchange: interchange.header.control, group: group.control, set: set.control };
        const reader = READERS[set.id];
        if (!reader) throw new X12FileRefused(`Transaction set ${set.id} (${set.control}) is not one we read: 997, 855, 856, 810 or 846.`, { ...at, code: AK5.notSupported });
        if (!(ctx.config.sends_back as string[]).includes(set.id)) {
          throw new X12FileRefused(`Transaction set ${set.id} (${set.control}) is not one this supplier sends back (its x12.sends_back: ${ctx.config.sends_back.join(", ") || "none"}).`, {
            ...at,
            code: AK5.notSupported,
          });
        }
        try {
          const read = reader(set);
          for (const item of read) where.set(item, at);
          items.push(...read);
        } catch (error) {
          if (error instanceof SetUnreadable) throw new X12FileRefused(`Transaction set ${set.id} (${set.control}): ${error.message}`, { ...at, code: AK5.segmentsInError });
          throw error;
        }
      }
    }
    return { interchange, items };
  });
}

/** ISA13 taken for this file (the same interchange read before, in another file, refuses it). */
async function takeInterchange(ctx: X12FileContext, interchange: Interchange): Promise<void> {
  const control = Number(interchange.header.control);
  const sets = [...new Set(interchange.groups.flatMap((g) => g.sets.map((s) => s.id)))].join(",");
  const [taken, before] = await rawBatch(ctx.db, [
    sql`INSERT INTO x12_interchanges (account_id, supplier_id, direction, control_number, sets, file_name, inbound_file_id, status, content, created_at)
        VALUES (${ctx.supplier.accountId}, ${ctx.supplier.id}, 'in', ${control}, ${sets}, ${ctx.name}, ${ctx.fileId}, 'applied', ${ctx.text.slice(0, 1_000_000)}, ${isoMicro()})
        ON CONFLICT (supplier_id, direction, control_number) DO NOTHING RETURNING id`,
    sql`SELECT inbound_file_id, file_name FROM x12_interchanges WHERE supplier_id = ${ctx.supplier.id} AND direction = 'in' AND control_number = ${control}`,
  ]);
  const first = (before as Row[])[0];
  // Taken now, or by this same file in a run that died (its claim taken over): applied (again, harmlessly).
  if ((taken as Row[]).length || Number(first?.inbound_file_id) === ctx.fileId) return;
  // No 997 for it: the first copy was answered.
  throw new X12FileRefused(`Interchange ${interchange.header.control} was read before, in file ${String(first?.file_name)}: nothing of it is applied again.`, undefined, false);
}

/**
 * The file applied; the number of answers applied and refused, and what it did in words. A refused
 * file (X12FileRefused) is answered with our 997s rejecting its groups when its envelope can be read.
 */
export async function applyX12File(ctx: X12FileContext): Promise<{ applied: number; refused: number; note: string }> {
  try {
    return await applyWhole(ctx);
  } catch (error) {
    if (error instanceof X12FileRefused && error.answer) await rejectGroups(ctx, error);
    throw error;
  }
}

async function applyWhole(ctx: X12FileContext): Promise<{ applied: number; refused: number; note: string }> {
  const where: Where = new WeakMap();
  const read = readAll(ctx, where);
  const all = read.flatMap((r) => r.items);
  const orders = [...new Set(all.flatMap((i) => (i.kind === "997" || i.kind === "846" ? [] : [i.order])))];
  const lines = await linesOf(ctx.db, ctx.supplier, orders);
  const ours = await ourInterchanges(ctx.db, ctx.supplier, all.flatMap((i) => (i.kind === "997" ? [Number(i.group)] : [])));
  // Everything checked before anything is applied.
  const rows: AnswerRow[] = [];
  const invoices: { line: Line; item: Invoiced }[] = [];
  const verdicts: { control: number; accepted: boolean; words: string }[] = [];
  const stock: Stocked[] = [];
  for (const item of all) {
    if (item.kind === "846") {
      stock.push(item);
      continue;
    }
    if (item.kind === "997") {
      const out = ours.get(Number(item.group));
      if (!out) throw new X12FileRefused(`The 997 acknowledges group ${item.group}, which we never sent to this supplier.`);
      const accepted = item.code === "A" || item.code === "P";
      verdicts.push({ control: Number(item.group), accepted, words: item.words });
      if (!accepted && out.dispatchId !== null) {
        for (const l of await dispatchLines(ctx.db, out.dispatchId)) rows.push({ line_id: String(l), action: "decline", reason: `The supplier's 997 rejected our 850 (interchange ${item.group}): ${item.words}` });
      }
      continue;
    }
    const line = lineFor(lines, item.order, item.item);
    if (typeof line === "string") {
      const at = where.get(item);
      throw new X12FileRefused(`The ${item.kind} names ${line}: nothing of the file is applied.`, at && { ...at, code: AK5.segmentsInError });
    }
    if (item.kind === "855") rows.push({ line_id: String(line.id), action: item.action, ...(item.quantity !== null ? { quantity: String(item.quantity) } : {}), ...(item.reason ? { reason: item.reason } : {}) });
    else if (item.kind === "856") {
      rows.push({ line_id: String(line.id), action: "ship", quantity: String(item.quantity), ...(item.carrier ? { carrier: item.carrier } : {}), ...(item.tracking ? { tracking_number: item.tracking } : {}), ...(item.shipment ? { shipment_id: `x12-856-${item.shipment}-${line.id}` } : {}) });
    } else invoices.push({ line, item });
  }
  for (const { interchange } of read) await takeInterchange(ctx, interchange);
  const results = rows.length ? await ctx.applyRows(rows) : [];
  const at = isoMicro();
  await rawBatch(ctx.db, [
    ...verdicts.map((v) => sql`UPDATE x12_interchanges SET status = ${v.accepted ? "accepted" : "rejected"}, note = ${v.words} WHERE supplier_id = ${ctx.supplier.id} AND direction = 'out' AND control_number = ${v.control}`),
    ...invoices.map(
      ({ line, item: i }) => sql`INSERT INTO supplier_invoice_lines (account_id, line_id, supplier_id, invoice_number, quantity, unit_price, expected_unit_price, currency, charges, invoice_charges, created_at)
        VALUES (${ctx.supplier.accountId}, ${line.id}, ${ctx.supplier.id}, ${i.invoice}, ${i.quantity}, ${numberToUnits(i.unitPrice)}, ${line.purchasePrice === null ? null : numberToUnits(line.purchasePrice)},
          ${i.currency}, ${i.charges.length ? JSON.stringify(i.charges) : null}, ${i.invoiceCharges.length ? JSON.stringify(i.invoiceCharges) : null}, ${at})
        ON CONFLICT (line_id, invoice_number) DO NOTHING`,
    ),
    sql`SELECT 1`,
  ]);
  const stocked = await applyStock(ctx.db, ctx.pipeline, ctx.supplier, stock);
  await answerGroups(ctx, read.map((r) => r.interchange));
  const applied = results.filter((r) => r.result === "applied").length;
  const note = [
    rows.length ? `${applied} of ${rows.length} answers applied` : null,
    invoices.length ? `${invoices.length} invoice lines kept` : null,
    stock.length ? `stock of ${stock.length} items read: ${stocked.changed} products changed${stocked.unknown ? `, ${stocked.unknown} not in the supplier's catalogue` : ""}` : null,
    verdicts.length ? verdicts.map((v) => `our interchange ${v.control} ${v.accepted ? "accepted" : "rejected"}`).join(", ") : null,
  ]
    .filter(Boolean)
    .join("; ");
  await rawBatch(ctx.db, [sql`UPDATE x12_interchanges SET note = ${note || "read"} WHERE supplier_id = ${ctx.supplier.id} AND direction = 'in' AND inbound_file_id = ${ctx.fileId}`]);
  return { applied, refused: results.length - applied, note };
}

/** The open lines of a dispatch (a 997 rejecting its 850 declines them). */
async function dispatchLines(db: Db, dispatchId: number): Promise<number[]> {
  const [found] = await rawBatch(db, [sql`SELECT id FROM order_lines WHERE dispatch_id = ${dispatchId} AND current_status IN ('ruled', 'completed') ORDER BY id`]);
  return (found as Row[]).map((r) => Number(r.id));
}

/** Our 997 rejecting each functional group of a refused file (./refusals.ts), the reason kept as its note. */
async function rejectGroups(ctx: X12FileContext, refusal: X12FileRefused): Promise<void> {
  for (const { interchange, groups } of refusedGroups(ctx.text, refusal.fault) ?? []) {
    for (const [n, group] of groups.entries()) {
      const key = `reject:${ctx.fileId}:${interchange}:${n}`;
      const control = await controlNumberFor(ctx.db, ctx.supplier, key, "997", null);
      const text = functionalAck(group, ctx.config, control, isoMicro());
      const name = `997-${String(control).padStart(9, "0")}.x12`;
      await recordOutgoing(ctx.db, ctx.supplier.id, key, name, text);
      const note = `rejects group ${group.control} of interchange ${interchange} (file ${ctx.name}): ${refusal.message}`;
      await rawBatch(ctx.db, [sql`UPDATE x12_interchanges SET note = ${note.slice(0, 2000)} WHERE supplier_id = ${ctx.supplier.id} AND document_key = ${key}`]);
      await ctx.writeFile(name, new TextEncoder().encode(text));
    }
  }
}

/** Our 997 for each functional group read (never for a 997: acknowledgements are not acknowledged), each its own interchange. */
async function answerGroups(ctx: X12FileContext, interchanges: Interchange[]): Promise<void> {
  for (const interchange of interchanges) {
    for (const [n, group] of interchange.groups.entries()) {
      if (group.functionalId === "FA") continue;
      const key = `ack:${ctx.fileId}:${interchange.header.control}:${n}`;
      const control = await controlNumberFor(ctx.db, ctx.supplier, key, "997", null);
      const text = functionalAck({ functionalId: group.functionalId, control: group.control, sets: group.sets.map((s) => ({ id: s.id, control: s.control, accepted: true })) }, ctx.config, control, isoMicro());
      const name = `997-${String(control).padStart(9, "0")}.x12`;
      await recordOutgoing(ctx.db, ctx.supplier.id, key, name, text);
      await ctx.writeFile(name, new TextEncoder().encode(text));
    }
  }
}
