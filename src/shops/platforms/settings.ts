// What a connection of each platform takes: its credentials (every field a required string) and its
// settings, with their defaults. The connections API validates with these; adapters read the
// parsed values. Plain zod: the domain knows no HTTP framework.
import { z } from "zod";
import type { ShopPlatformName } from "../../db/schema/shops";
import { SHOPIFY_CREDENTIALS, shopifySettings } from "./shopify/settings";
import { described } from "../../lib/described-fields";

const secret = z.string().min(1).max(500);

export const CREDENTIALS = {
  // Each field says where the shop owner finds it (the console's hint); docs/shops/<platform>.md says more.
  /** REST API keys (WooCommerce > Settings > Advanced > REST API) with Read/Write permission. */
  woocommerce: z
    .object({
      consumer_key: described(secret, { label: "Consumer key", hint: "WooCommerce > Settings > Advanced > REST API: a key with Read/Write permission.", secret: true }),
      consumer_secret: described(secret, { label: "Consumer secret", hint: "Shown by WooCommerce beside the consumer key, once.", secret: true }),
    })
    .strict(),
  /** An integration (Settings > System > Integrations): OAuth client credentials. */
  shopware: z
    .object({
      client_id: described(secret, { label: "Access key ID", hint: "Shopware: Settings > System > Integrations, the integration's access key ID (client_id).", secret: true }),
      client_secret: described(secret, { label: "Secret access key", hint: "Shown by Shopware beside the access key ID, once.", secret: true }),
    })
    .strict(),
  /** An integration's access token (System > Extensions > Integrations), sent as Bearer. */
  magento: z
    .object({
      access_token: described(secret, { label: "Access token", hint: "Magento: System > Extensions > Integrations, the integration's access token (sent as Bearer).", secret: true }),
    })
    .strict(),
  /** A webservice key (Advanced Parameters > Webservice). */
  prestashop: z
    .object({
      webservice_key: described(secret, { label: "Webservice key", hint: "PrestaShop: Advanced Parameters > Webservice, a key with the order resources allowed.", secret: true }),
    })
    .strict(),
  shopify: SHOPIFY_CREDENTIALS,
} satisfies Record<ShopPlatformName, z.ZodType>;

export type Credentials<P extends ShopPlatformName> = z.infer<(typeof CREDENTIALS)[P]>;

/** Every platform: "live" writes into the shop; "dry_run" looks up what it needs and records the writes it would make. */
export const MODES = ["live", "dry_run"] as const;
export const mode = described(z.enum(MODES).default("live"), {
  label: "Mode",
  options: { live: "Live: write into the shop", dry_run: "Dry run: look up the order, record the writes it would make, send none" },
});

/** Where a buffer or a markup stops: far past any real shop, short of numbers that lose precision. */
export const STOCK_SYNC_LIMITS = { buffer: 1_000_000, markupPercent: 1000, minPrice: 1_000_000, percent: 100 } as const;

const TWO_DECIMALS = "The :attribute field must have at most 2 decimals.";
/** At most two decimals, checked on the decimal text (0.505 is refused, 0.29 taken). */
const twoDecimals = (v: number) => Number.isInteger(Math.round(v * 100)) && Math.abs(v * 100 - Math.round(v * 100)) < 1e-9;

/**
 * The catalogue's stock written into the shop's products (docs/shops-stock.md). Left out, or
 * enabled false: nothing is written. Common to every platform.
 */
export const STOCK_SYNC = z
  .object({
    enabled: z.boolean().default(true),
    /** How our products are found in the shop: by SKU, or by EAN-13 (WooCommerce's GTIN/EAN field). */
    match_by: z.enum(["sku", "ean13"]).default("sku"),
    /** A product's stock from its active offers: their sum, the largest, or that of the supplier first by priority. */
    quantity: z.enum(["sum", "max", "first_by_priority"]).default("sum"),
    /** Subtracted from the computed stock, never below 0. */
    buffer: z.number().int().min(0).max(STOCK_SYNC_LIMITS.buffer).default(0),
    /** A product no active offer carries any more: written as 0, or left as the shop has it. */
    without_offer: z.enum(["zero", "leave"]).default("zero"),
  })
  .strict();
export type StockSyncSettings = z.infer<typeof STOCK_SYNC>;

/**
 * Prices written with the stock (off unless enabled): the purchase price plus markup_percent,
 * then, with round_to, raised to the next price ending in those cents (0.99: 12.30 becomes 12.99).
 */
export const PRICE_SYNC = z
  .object({
    enabled: z.boolean().default(false),
    markup_percent: z.number().min(0).max(STOCK_SYNC_LIMITS.markupPercent).default(0),
    round_to: z
      .number()
      .min(0)
      .max(0.99)
      .refine(twoDecimals, TWO_DECIMALS)
      .nullable()
      .default(null),
  })
  .strict();
export type PriceSyncSettings = z.infer<typeof PRICE_SYNC>;

const percent = (max: number) => z.number().min(0).max(max).refine(twoDecimals, TWO_DECIMALS).nullable().default(null);

/**
 * Guards on what a sync may write (docs/shops-stock.md, "Guards"), each off while null. A product
 * whose price would fall under min_price, or under its purchase price plus min_margin_percent, is
 * not written (its outcome is skipped, saying why). A sync that would drop a product's price by more
 * than max_drop_percent, or change more than max_changed_percent of the shop's mapped products,
 * stops before writing anything and waits for a person to confirm.
 */
export const SYNC_GUARDS = z
  .object({
    min_price: z.number().min(0).max(STOCK_SYNC_LIMITS.minPrice).refine(twoDecimals, TWO_DECIMALS).nullable().default(null),
    min_margin_percent: percent(STOCK_SYNC_LIMITS.markupPercent),
    max_drop_percent: percent(STOCK_SYNC_LIMITS.percent),
    max_changed_percent: percent(STOCK_SYNC_LIMITS.percent),
  })
  .strict();
export type SyncGuards = z.infer<typeof SYNC_GUARDS>;

/** The settings that are objects of their own (the console edits them apart from the platform's). */
export const SYNC_SETTINGS = ["stock_sync", "price_sync", "sync_guards"] as const;

/** Settings every platform has besides its own: the stock sync, the price sync and their guards, each optional. */
const sync = { stock_sync: STOCK_SYNC.optional(), price_sync: PRICE_SYNC.optional(), sync_guards: SYNC_GUARDS.optional() };

export const SETTINGS = {
  woocommerce: z
    .object({
      mode,
      /** The status an order gets once every line is final. */
      complete_status: described(z.string().min(1).max(50).default("completed"), {
        label: "Status of a finished order",
        hint: "Set once every line of the order is final: completed unless you say otherwise.",
      }),
      /** Where tracking goes: the Shipment Tracking extension when installed, else a customer note ("auto"); or always one of them. */
      tracking: described(z.enum(["auto", "extension", "note"]).default("auto"), {
        label: "Where tracking goes",
        options: { auto: "Shipment Tracking extension when installed, else a customer note", extension: "Always the Shipment Tracking extension", note: "Always a customer note" },
      }),
      ...sync,
    })
    .strict(),
  shopware: z.object({ mode, ...sync }).strict(),
  magento: z
    .object({
      mode,
      /** Whether Magento e-mails the customer about the shipment. */
      notify: described(z.boolean().default(true), {
        label: "E-mail the customer about a shipment",
        options: { true: "Yes (Magento sends its shipment e-mail)", false: "No" },
      }),
      /** How stock is written: "msi" (Magento 2.3 on, its Inventory modules enabled) into source_code's source items, or "legacy" stock items. */
      inventory: described(z.enum(["msi", "legacy"]).default("msi"), {
        label: "How stock is written",
        options: { msi: "MSI source items (Magento 2.3 and later)", legacy: "Legacy stock items (Magento without MSI)" },
      }),
      /** The MSI source the stock is written to ("default" is the source every Magento has). */
      source_code: described(z.string().min(1).max(255).default("default"), {
        label: "MSI source",
        hint: "The source the stock sync writes to: default unless you keep stock in another one.",
      }),
      /** The product attribute holding the EAN (Magento has none of its own): needed for stock_sync.match_by ean13. */
      ean_attribute: described(z.string().regex(/^[a-z][a-z0-9_]*$/, "The :attribute field must be an attribute code (a-z, 0-9, _).").max(60).nullable().default(null), {
        label: "EAN attribute",
        hint: "The code of the product attribute holding the EAN, for matching by EAN (Magento has none of its own).",
      }),
      ...sync,
    })
    .strict()
    .superRefine((s, ctx) => {
      if (s.stock_sync?.match_by === "ean13" && !s.ean_attribute) {
        ctx.addIssue({ code: "custom", path: ["ean_attribute"], message: "The :attribute field is required when settings.stock_sync.match_by is ean13: Magento has no EAN attribute of its own." });
      }
    }),
  prestashop: z
    .object({
      mode,
      /** The order state added after a shipment: 4 is PrestaShop's own "Shipped". */
      shipped_state_id: described(z.number().int().min(1).max(1_000_000).default(4), {
        label: "Order state after a shipment",
        hint: "The id of a PrestaShop order state: 4 is PrestaShop's own Shipped.",
      }),
      /**
       * The order state set while a line waits for a person (PrestaShop has no on-hold state of its
       * own: a state the shop made for it). null: the order is not put on hold.
       */
      hold_state_id: described(z.number().int().min(1).max(1_000_000).nullable().default(null), {
        label: "Order state while a line waits",
        hint: "The id of an order state of your own for orders on hold (Orders > Statuses); leave it empty to leave orders in their state.",
      }),
      ...sync,
    })
    .strict()
    .superRefine((s, ctx) => {
      if (s.hold_state_id !== null && s.hold_state_id === s.shipped_state_id) {
        ctx.addIssue({ code: "custom", path: ["hold_state_id"], message: "The :attribute field must be another order state than settings.shipped_state_id: an order on hold is not shipped." });
      }
    }),
  shopify: shopifySettings(mode, sync),
} satisfies Record<ShopPlatformName, z.ZodType>;

export type Settings<P extends ShopPlatformName> = z.infer<(typeof SETTINGS)[P]>;
