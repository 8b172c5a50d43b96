// Currencies: ISO 4217 codes, from the maintained list of the currency-codes package (ISO's own
// list one). Amounts are never converted: a code only says which money an amount is in.
import { z } from "@hono/zod-openapi";
import { data } from "currency-codes";

/** An account's currency until it sets its own (PATCH /api/v1/settings). */
export const DEFAULT_CURRENCY = "EUR";

// ISO marks the entries that are no country's money (gold, bond units, XTS for tests, XXX for
// "no currency") with ZZ pseudo-countries; a shop never charges in them.
const CODES = new Set(data.filter((c) => !c.countries.every((name) => /^zz\d/i.test(name))).map((c) => c.code));

/** The code in capitals when it is a currency of ISO 4217's current list; null otherwise. */
export function toCurrencyCode(value: string): string | null {
  const code = value.trim().toUpperCase();
  return /^[A-Z]{3}$/.test(code) && CODES.has(code) ? code : null;
}

export const CURRENCY_MESSAGE = "The selected :attribute is invalid. Send an ISO 4217 currency code, such as EUR or USD.";

/** A request's currency field: an ISO 4217 code in any case, kept in capitals; "" and null are absent. */
export const currencyCode = z.preprocess(
  (v) => (typeof v === "string" ? v.trim() || undefined : (v ?? undefined)),
  z
    .string()
    .max(100)
    .transform((value, ctx) => {
      const code = toCurrencyCode(value);
      if (code) return code;
      ctx.addIssue({ code: "custom", message: CURRENCY_MESSAGE });
      return z.NEVER;
    })
    .optional(),
);
