// The shop platforms we write back into, by name: each is one adapter file beside this one, and
// its own description (./platform.ts). Everything else asks this registry, never a platform's name.
// A new platform is its adapter file and one line in BUILT_IN; an extension (a test's platform)
// registers itself.
import type { ShopPlatformName } from "../../db/schema/shops";
import { magento } from "./magento";
import type { ShopPlatform } from "./platform";
import { prestashop } from "./prestashop";
import { shopware } from "./shopware";
import { shopify } from "./shopify/adapter";
import { woocommerce } from "./woocommerce";

/** Adapters are generic in their credentials and settings; the registry sees them as plain records. */
export type AnyShopPlatform = ShopPlatform<Record<string, string>, Record<string, unknown>>;

/** Every name the schema admits has its adapter: a name without one is a type error here. */
const BUILT_IN: Record<ShopPlatformName, AnyShopPlatform> = {
  woocommerce,
  shopware,
  magento,
  prestashop,
  shopify,
};

const registry = new Map<string, AnyShopPlatform>(Object.values(BUILT_IN).map((p) => [p.name, p]));

/** The adapter for a platform (every stored name was checked against this registry when it was stored). */
export function platformFor(name: ShopPlatformName): AnyShopPlatform {
  const platform = registry.get(name);
  if (!platform) throw new Error(`No shop platform adapter is registered for '${name}'`);
  return platform;
}

/** Whether a name is a registered platform's (the API's check of `platform`). */
export const isPlatform = (v: unknown): v is ShopPlatformName => typeof v === "string" && registry.has(v);

/** The platforms in the order the console offers them. */
export const platforms = (): AnyShopPlatform[] => [...registry.values()];

/** Their names, in that order (the 422's allowed values). */
export const platformNames = (): ShopPlatformName[] => platforms().map((p) => p.name);

/**
 * Adds a platform beside the built-in ones (an extension, a test's own platform): from then on the
 * connections' API takes it and its fields, the console offers its form and write-backs go through it.
 * Returns what removes it again.
 */
export function registerPlatform<C, S>(platform: ShopPlatform<C, S>): () => void {
  const adapter = platform as unknown as AnyShopPlatform;
  registry.set(platform.name, adapter);
  // Undoes it (a test's platform must not outlive its file: test files share one Worker).
  return () => void (registry.get(platform.name) === adapter && registry.delete(platform.name));
}

/** An order's name in the shop it came from (the console shows it), from the first platform that knows it. */
export function shopOrderNameOf(custom: Record<string, unknown> | null): { label: string; name: string } | null {
  for (const p of registry.values()) {
    const name = p.orderName?.(custom);
    if (name) return { label: p.label, name };
  }
  return null;
}
