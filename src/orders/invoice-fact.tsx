// The supplier's invoiced cost of a line (an 810: docs/edi.md) on the order page, beside its price.
import type { InvoiceCharge } from "../db/schema";
import { money } from "../ui/format";
import type { SupplierInvoice } from "./supplier-invoice";

/** "0.25 EUR more per unit than the purchase price (6.25 EUR)", or that it is the same. */
export function invoiceDifferenceWords(invoice: Pick<SupplierInvoice, "difference" | "expected_unit_price">, currency: string): string {
  if (invoice.difference === null) return "no purchase price was known to compare with";
  if (invoice.difference === 0) return `the purchase price we expected (${money(invoice.expected_unit_price, currency)})`;
  const more = invoice.difference > 0;
  return `${money(Math.abs(invoice.difference), currency)} ${more ? "more" : "less"} per unit than the purchase price we expected (${money(invoice.expected_unit_price, currency)})`;
}

/** "charge D240 (Freight) 15.00 USD; allowance C310 2.00 USD" */
export const chargesInWords = (charges: InvoiceCharge[], currency: string) =>
  charges
    .map((c) => `${c.type} ${c.code}${c.description ? ` (${c.description})` : ""} ${money(c.amount, currency)}${c.percent !== undefined ? ` (${c.percent} %)` : c.rate !== undefined ? ` (${c.rate} a unit)` : ""}${c.handling ? ` (not in the total: handling ${c.handling})` : ""}`)
    .join("; ");

/** The "Invoiced" fact of a line: only on a line its supplier invoiced. */
export function InvoicedFact({ invoice, currency }: { invoice: SupplierInvoice | null; currency: string }) {
  if (!invoice) return null;
  // Amounts are never converted: an invoice in another currency is not compared, and says so.
  const invoiced = invoice.currency ?? currency;
  const other = invoiced !== currency;
  const differs = other || (invoice.difference !== null && invoice.difference !== 0);
  const words = other
    ? `invoiced in ${invoiced}, the order is in ${currency}: not compared with the purchase price we expected (${invoice.expected_unit_price === null ? "none known" : money(invoice.expected_unit_price, currency)})`
    : invoiceDifferenceWords(invoice, currency);
  return (
    <>
      <dt>Invoiced</dt>
      <dd class="invoiced">
        {money(invoice.unit_price, invoiced)} × {invoice.quantity} (invoice {invoice.invoice_number}): {differs ? <strong class="differs">{words}</strong> : words}
        {invoice.charges ? <> · on the line: {chargesInWords(invoice.charges, invoiced)}</> : null}
        {invoice.invoice_charges ? <> · on the whole invoice: {chargesInWords(invoice.invoice_charges, invoiced)}</> : null}
      </dd>
    </>
  );
}
