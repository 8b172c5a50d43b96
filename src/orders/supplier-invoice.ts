// A line's supplier invoice (an 810's line, src/forwarding/x12/answers.ts) as the order's read answers it.
import { unitsToNumber } from "../lib/money";

/**
 * The supplier's invoice of a line (its 810) beside the purchase price we expected: `difference`
 * is invoiced minus expected per unit (null when no purchase price was known), reckoned in exact
 * units. Quantity and prices as the supplier invoiced them; no charges yet (the 810's SAC is not read).
 */
export type SupplierInvoice = {
  invoice_number: string;
  quantity: number;
  unit_price: number;
  expected_unit_price: number | null;
  difference: number | null;
  invoiced_at: string;
};
export type SupplierInvoiceRow = { invoice_number: string; quantity: number; unit_price: number; expected_unit_price: number | null; invoiced_at: string };
export const toSupplierInvoice = (r: SupplierInvoiceRow): SupplierInvoice => ({
  invoice_number: r.invoice_number,
  quantity: r.quantity,
  unit_price: unitsToNumber(r.unit_price),
  expected_unit_price: r.expected_unit_price === null ? null : unitsToNumber(r.expected_unit_price),
  difference: r.expected_unit_price === null ? null : unitsToNumber(r.unit_price - r.expected_unit_price),
  invoiced_at: r.invoiced_at,
});

