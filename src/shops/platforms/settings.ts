// What a connection of each platform takes: its credentials (every field a required string) and its
// settings, with their defaults. The connections API validates with these; adapters read the
// parsed values. Plain zod: the domain knows no HTTP framework.
import { z } from "zod";
import type { ShopPlatformName } from "../../db/schema/shops";

const secret = z.string().min(1).max(500);

export const CREDENTIALS = {
  /** REST API keys (WooCommerce > Settings > Advanced > REST API) with Read/Write permission. */
  woocommerce: z.object({ consumer_key: secret, consumer_secret: secret }).strict(),
  /** An integration (Settings > System > Integrations): OAuth client credentials. */
  shopware: z.object({ client_id: secret, client_secret: secret }).strict(),
  /** An integration's access token (System > Extensions > Integrations), sent as Bearer. */
  magento: z.object({ access_token: secret }).strict(),
  /** A webservice key (Advanced Parameters > Webservice). */
  prestashop: z.object({ webservice_key: secret }).strict(),
} satisfies Record<ShopPlatformName, z.ZodType>;

export type Credentials<P extends ShopPlatformName> = z.infer<(typeof CREDENTIALS)[P]>;

/** Every platform: "live" writes into the shop; "dry_run" looks up what it needs and records the writes it would make. */
export const MODES = ["live", "dry_run"] as const;
const mode = z.enum(MODES).default("live");

export const SETTINGS = {
  woocommerce: z
    .object({
      mode,
      /** The status an order gets once every line is final. */
      complete_status: z.string().min(1).max(50).default("completed"),
      /** Where tracking goes: the Shipment Tracking extension when installed, else a customer note ("auto"); or always one of them. */
      tracking: z.enum(["auto", "extension", "note"]).default("auto"),
    })
    .strict(),
  shopware: z.object({ mode }).strict(),
  magento: z
    .object({
      mode,
      /** Whether Magento e-mails the customer about the shipment. */
      notify: z.boolean().default(true),
    })
    .strict(),
  prestashop: z
    .object({
      mode,
      /** The order state added after a shipment: 4 is PrestaShop's own "Shipped". */
      shipped_state_id: z.number().int().min(1).max(1_000_000).default(4),
    })
    .strict(),
} satisfies Record<ShopPlatformName, z.ZodType>;

export type Settings<P extends ShopPlatformName> = z.infer<(typeof SETTINGS)[P]>;
