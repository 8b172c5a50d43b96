// The shop platforms we write back into, by name: each is one adapter file beside this one.
import type { ShopPlatformName } from "../../db/schema/shops";
import { magento } from "./magento";
import type { ShopPlatform } from "./platform";
import { prestashop } from "./prestashop";
import { shopware } from "./shopware";
import { shopify } from "./shopify/adapter";
import { woocommerce } from "./woocommerce";

/** Adapters are generic in their credentials and settings; the registry sees them as plain records. */
export type AnyShopPlatform = ShopPlatform<Record<string, string>, Record<string, unknown>>;

const PLATFORMS: Record<ShopPlatformName, AnyShopPlatform> = {
  woocommerce,
  shopware,
  magento,
  prestashop,
  shopify,
};

/** The adapter for a platform (every name the schema admits has one). */
export function platformFor(name: ShopPlatformName): AnyShopPlatform {
  return PLATFORMS[name];
}
