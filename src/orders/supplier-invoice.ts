// A line's supplier invoice (an 810's line, src/forwarding/x12/answers.ts) as the order's read answers it.
import type { InvoiceCharge } from "../db/schema";
import { unitsToNumber } from "../lib/money";

/**
 * The supplier's invoice of a line (its 810) beside the purchase price we expected: `difference`
 * is invoiced minus expected per unit (null when no purchase price was known, or when the invoice
 * is in another currency than the order: amounts are never converted), reckoned in exact units.
 * Quantity and prices as the supplier invoiced them; its currency and allowances and charges (SAC)
 * only when the 810 gave them, so an invoice without them keeps its JSON as before.
 */
export type SupplierInvoice = {
  invoice_number: string;
  quantity: number;
  unit_price: number;
  expected_unit_price: number | null;
  difference: number | null;
  invoiced_at: string;
  currency?: string;
  charges?: InvoiceCharge[];
  invoice_charges?: InvoiceCharge[];
};
export type SupplierInvoiceRow = {
  invoice_number: string;
  quantity: number;
  unit_price: number;
  expected_unit_price: number | null;
  invoiced_at: string;
  currency: string | null;
  charges: InvoiceCharge[] | null;
  invoice_charges: InvoiceCharge[] | null;
  /** The order's currency (the account's when it has none of its own). */
  order_currency: string;
};

/** The invoice is in another currency than the order (one without a currency is in the order's). */
export const otherCurrency = (r: Pick<SupplierInvoiceRow, "currency" | "order_currency">) => r.currency !== null && r.currency !== r.order_currency;

export const toSupplierInvoice = (r: SupplierInvoiceRow): SupplierInvoice => ({
  invoice_number: r.invoice_number,
  quantity: r.quantity,
  unit_price: unitsToNumber(r.unit_price),
  expected_unit_price: r.expected_unit_price === null ? null : unitsToNumber(r.expected_unit_price),
  difference: r.expected_unit_price === null || otherCurrency(r) ? null : unitsToNumber(r.unit_price - r.expected_unit_price),
  invoiced_at: r.invoiced_at,
  ...(r.currency !== null ? { currency: r.currency } : {}),
  ...(r.charges?.length ? { charges: r.charges } : {}),
  ...(r.invoice_charges?.length ? { invoice_charges: r.invoice_charges } : {}),
});
