// X12 interchanges each way with a supplier (docs/edi.md): the control numbers we gave ours (one
// per document, kept, so a retry writes the same file) and the ones we read (an interchange read
// twice is applied once), what each did; and the supplier's invoiced cost per line (810).
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";
import { money } from "./columns";
import { orderLines } from "./orders";
import { suppliers } from "./suppliers";

export const x12Interchanges = sqliteTable(
  "x12_interchanges",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    supplierId: integer("supplier_id")
      .notNull()
      .references(() => suppliers.id),
    // out: written by us (850, 860, our 997); in: read from the supplier's inbound folder.
    direction: text("direction", { enum: ["out", "in"] }).notNull(),
    // ISA13 (and, for ours, GS06 and ST02 too): unique per supplier and direction, increasing for ours.
    controlNumber: integer("control_number").notNull(),
    // Ours only: the document it carries (dispatch:77, cancellation:5, ack:<inbound file id>), so a retry reuses its numbers.
    documentKey: text("document_key"),
    // The transaction sets in it, "850" or "855,856".
    sets: text("sets").notNull(),
    fileName: text("file_name").notNull(),
    // in: the answer file it was read from.
    inboundFileId: integer("inbound_file_id"),
    dispatchId: integer("dispatch_id"),
    // out: written, accepted or rejected (by the supplier's 997); in: applied or failed.
    status: text("status", { enum: ["written", "accepted", "rejected", "applied", "failed"] }).notNull(),
    // What it did, or why it failed, in words.
    note: text("note"),
    // The file's text, for the console's View (X12 files are small: one order, one answer).
    content: text("content").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("x12_interchanges_control_uq").on(t.supplierId, t.direction, t.controlNumber),
    uniqueIndex("x12_interchanges_document_uq").on(t.supplierId, t.documentKey),
    index("x12_interchanges_dispatch_idx").on(t.dispatchId),
  ],
);
export type X12Interchange = typeof x12Interchanges.$inferSelect;

/** An 810's SAC: an allowance (taken off) or a charge (added), its code (D240 freight, …), amount and words. */
/**
 * A SAC of an 810; `percent` or `rate` only when the supplier gave the amount so (SAC07, SAC08), the
 * amount then reckoned from it; `handling` (SAC12) only when the charge is not part of the invoice's
 * total (e.g. 13, information only; 04, credited to the account).
 */
export type InvoiceCharge = { type: "allowance" | "charge"; code: string; amount: number; description: string | null; percent?: number; rate?: number; handling?: string };

/** The supplier's invoiced cost of a line (its 810), with what we expected to pay. */
export const supplierInvoiceLines = sqliteTable(
  "supplier_invoice_lines",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    lineId: integer("line_id")
      .notNull()
      .references(() => orderLines.id),
    supplierId: integer("supplier_id")
      .notNull()
      .references(() => suppliers.id),
    invoiceNumber: text("invoice_number").notNull(),
    quantity: integer("quantity").notNull(),
    unitPrice: money("unit_price").notNull(),
    // The purchase price the line carried when the invoice came (null: none was known).
    expectedUnitPrice: money("expected_unit_price"),
    // The invoice's currency (its CUR02), null when it names none (then the order's is assumed).
    currency: text("currency"),
    // The line's allowances and charges (SAC within its IT1), and the whole invoice's (SAC after TDS,
    // the same on each of its lines): JSON, null when none.
    charges: text("charges", { mode: "json" }).$type<InvoiceCharge[]>(),
    invoiceCharges: text("invoice_charges", { mode: "json" }).$type<InvoiceCharge[]>(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("supplier_invoice_lines_uq").on(t.lineId, t.invoiceNumber)],
);
export type SupplierInvoiceLine = typeof supplierInvoiceLines.$inferSelect;
