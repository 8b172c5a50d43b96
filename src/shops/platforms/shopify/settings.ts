// What a Shopify connection takes (docs/shops/shopify.md): a custom app's Admin API access token
// and its API secret key (which signs the webhooks Shopify sends us), and the settings below.
import { z } from "zod";
import { described } from "../../../lib/described-fields";

/** The newest stable Admin API version this adapter is built and tested against (its schema is the stand-in's). */
export const SHOPIFY_API_VERSION = "2026-10";

const secret = z.string().min(1).max(500);

/** Settings > Apps and sales channels > Develop apps > the app > API credentials. */
export const SHOPIFY_CREDENTIALS = z
  .object({
    access_token: described(secret, {
      label: "Admin API access token",
      hint: "Shopify: Settings > Apps and sales channels > Develop apps > your app > API credentials (tick the scopes read_orders, write_orders, read/write_merchant_managed_fulfillment_orders, and read_products, write_inventory for stock, write_products for prices first).",
      secret: true,
    }),
    api_secret: described(secret, { label: "API secret key", hint: "Shopify: beside the access token under API credentials; it checks the signature of the orders Shopify sends us.", secret: true }),
  })
  .strict();

/**
 * The platform's own settings beside `mode` and the sync settings every platform has (passed in:
 * ../settings.ts owns them). api_version: Shopify's quarterly names (2026-10); one Shopify no longer
 * serves is refused by /test, not here (the list changes every quarter, the format does not).
 */
export function shopifySettings<M extends z.ZodType, S extends Record<string, z.ZodType>>(mode: M, sync: S) {
  return z
    .object({
      mode,
      api_version: described(
        z
          .string()
          .regex(/^\d{4}-(01|04|07|10)$/, "The :attribute field must be a stable Admin API version: YYYY-MM with MM 01, 04, 07 or 10 (e.g. 2026-10).")
          .default(SHOPIFY_API_VERSION),
        { label: "Admin API version", hint: `Shopify's API version, e.g. ${SHOPIFY_API_VERSION} (the newest this service is built against, the default).` },
      ),
      /** Where stock is set: a location's numeric id (Settings > Locations, the number in its address); null: the shop's primary location. */
      location_id: described(z.string().regex(/^\d{1,20}$/, "The :attribute field must be a location's numeric id.").nullable().default(null), {
        label: "Stock location",
        hint: "The numeric id of the Shopify location stock is set at; empty: the shop's primary location.",
      }),
      /** Take the shop's orders in (webhooks and the reconciliation pull). */
      intake: described(z.boolean().default(true), {
        label: "Take the shop's orders in",
        options: { true: "Yes: Shopify sends us its new and cancelled orders", false: "No: only write back" },
      }),
      /** Whether Shopify e-mails the customer about a fulfillment (fulfillmentCreate's notifyCustomer). */
      notify_customer: described(z.boolean().default(true), {
        label: "E-mail the customer about a shipment",
        options: { true: "Yes (Shopify sends its shipping confirmation)", false: "No" },
      }),
      ...sync,
    })
    .strict();
}

/**
 * Whether base_url is a shop's own myshopify.com address (https, no path): the one address whose
 * Admin API answers a custom app's token. Loopback is let through for local development and the
 * stand-in; the outbound address policy refuses it everywhere else.
 */
export function shopifyBaseUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null; // not a URL at all: the common base_url check says so
  }
  if (["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) return null;
  if (url.protocol === "https:" && /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/.test(url.hostname) && (url.pathname === "/" || url.pathname === "") && !url.search && !url.port) return null;
  return "The :attribute field must be the shop's own address https://{shop}.myshopify.com (Settings > Domains shows it), not a custom domain: Shopify's Admin API answers there only.";
}
