// The supplier's invoiced cost of a line (an 810: docs/edi.md) on the order page, beside its price.
import { money } from "../ui/format";
import type { SupplierInvoice } from "./supplier-invoice";

/** "0.25 EUR more per unit than the purchase price (6.25 EUR)", or that it is the same. */
export function invoiceDifferenceWords(invoice: Pick<SupplierInvoice, "difference" | "expected_unit_price">, currency: string): string {
  if (invoice.difference === null) return "no purchase price was known to compare with";
  if (invoice.difference === 0) return `the purchase price we expected (${money(invoice.expected_unit_price, currency)})`;
  const more = invoice.difference > 0;
  return `${money(Math.abs(invoice.difference), currency)} ${more ? "more" : "less"} per unit than the purchase price we expected (${money(invoice.expected_unit_price, currency)})`;
}

/** The "Invoiced" fact of a line: only on a line its supplier invoiced. */
export function InvoicedFact({ invoice, currency }: { invoice: SupplierInvoice | null; currency: string }) {
  if (!invoice) return null;
  const differs = invoice.difference !== null && invoice.difference !== 0;
  return (
    <>
      <dt>Invoiced</dt>
      <dd class="invoiced">
        {money(invoice.unit_price, currency)} × {invoice.quantity} (invoice {invoice.invoice_number}):{" "}
        {differs ? <strong class="differs">{invoiceDifferenceWords(invoice, currency)}</strong> : invoiceDifferenceWords(invoice, currency)}
      </dd>
    </>
  );
}
