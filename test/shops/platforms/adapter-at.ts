// An adapter's connection and ShopHttp pointed at a stand-in shop (or any base URL), as the
// write-back machinery builds them: the platform's settings parsed with their defaults, the
// credentials handed to ShopHttp as the secrets it must never record.
import { expect } from "vitest";
import { ShopError, ShopHttp } from "../../../src/shops/platforms/http";
import type { Check, ShopConnection, ShopPlatformName } from "../../../src/shops/platforms/platform";
import { SETTINGS, type Credentials, type Settings } from "../../../src/shops/platforms/settings";

export function adapterAt<P extends ShopPlatformName>(platform: P, baseUrl: string, credentials: Record<string, string>, settings: Record<string, unknown> = {}, timeoutMs = 1000) {
  const parsed = SETTINGS[platform].parse(settings) as Settings<P>;
  const conn: ShopConnection<Credentials<P>, Settings<P>> = { id: 1, platform, baseUrl, credentials: credentials as Credentials<P>, settings: parsed };
  const http = new ShopHttp({ baseUrl, timeoutMs, dryRun: parsed.mode === "dry_run", secrets: Object.values(credentials) });
  return { conn, http };
}

/** The ShopError an adapter call failed with (the test fails if it did not). */
export async function failure(promise: Promise<unknown>): Promise<ShopError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(ShopError);
  return error as ShopError;
}

/** test()'s checks against a port where nothing listens: refused, in words, and nothing else checked. */
export function expectRefused(checks: Check[], platform: string) {
  expect(checks[0]).toMatchObject({ name: "reachable", ok: false });
  expect(checks[0]!.message).toMatch(/^The connection to 127\.0\.0\.1:\d+ was refused: nothing listens on port \d+ there\.$/);
  expect(checks.slice(1)).toEqual([
    { name: "credentials", ok: false, message: `Not checked: the shop did not answer as ${platform}.` },
    { name: "permissions", ok: false, message: `Not checked: the shop did not answer as ${platform}.` },
  ]);
}
