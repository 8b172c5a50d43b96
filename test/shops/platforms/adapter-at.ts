// An adapter's connection and ShopHttp pointed at a stand-in shop (or any base URL), as the
// write-back machinery builds them: the platform's settings parsed with their defaults, the
// credentials handed to ShopHttp as the secrets it must never record.
import { SETTINGS, type Credentials, type Settings } from "../../../src/shops/platforms/settings";
import { ShopHttp } from "../../../src/shops/platforms/http";
import type { ShopConnection, ShopPlatformName } from "../../../src/shops/platforms/platform";

export function adapterAt<P extends ShopPlatformName>(platform: P, baseUrl: string, credentials: Record<string, string>, settings: Record<string, unknown> = {}, timeoutMs = 1000) {
  const parsed = SETTINGS[platform].parse(settings) as Settings<P>;
  const conn: ShopConnection<Credentials<P>, Settings<P>> = { id: 1, platform, baseUrl, credentials: credentials as Credentials<P>, settings: parsed };
  const http = new ShopHttp({ baseUrl, timeoutMs, dryRun: parsed.mode === "dry_run", secrets: Object.values(credentials) });
  return { conn, http };
}
