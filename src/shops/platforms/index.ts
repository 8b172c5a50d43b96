// The shop platforms we write back into, by name: each is one adapter file beside this one.
import type { ShopPlatformName } from "../../db/schema/shops";
import type { ShopPlatform } from "./platform";
import { woocommerce } from "./woocommerce";

/** Adapters are generic in their credentials and settings; the registry sees them as plain records. */
export type AnyShopPlatform = ShopPlatform<Record<string, string>, Record<string, unknown>>;

const PLATFORMS: Partial<Record<ShopPlatformName, AnyShopPlatform>> = {
  // woocommerce, shopware, magento, prestashop: one line each, added with their adapter.
  woocommerce,
};

/** The adapter for a platform; throws for one without an adapter (a bug: the schema only admits known names). */
export function platformFor(name: ShopPlatformName): AnyShopPlatform {
  const platform = PLATFORMS[name];
  if (!platform) throw new Error(`no adapter for the shop platform ${name}`);
  return platform;
}
