// Shop connections for write-back tests, pointed at a stand-in shop (test/shops/stand-ins): the row
// as the connections service stores it, the credentials sealed under the Worker's SECRETS_KEY and
// bound to "shop_connection:<account>:<platform>", the settings with their platform's defaults.
import { env } from "cloudflare:workers";
import type { ShopPlatformName } from "../../src/db/schema";
import type { Bindings } from "../../src/env";
import { maskedHint, seal, sealingKeys } from "../../src/lib/sealed";
import { SETTINGS } from "../../src/shops/platforms/settings";
import { credentialsBinding } from "../../src/shops/write-back.service";
import type { StandInShopHandle } from "../shops/stand-ins/client";
import { expect } from "vitest";
import { exec, unique } from "./factories";
import { call, type Credentials } from "./http";
import { answer, supplierChain } from "./suppliers";
import { waitFor } from "./wait";

export type ConnectionOptions = { name?: string; sources?: string[] | null; settings?: Record<string, unknown>; active?: boolean };

export async function shopConnection(accountId: number, platform: ShopPlatformName, shop: StandInShopHandle, options: ConnectionOptions = {}) {
  const now = new Date().toISOString();
  const sealed = await seal(sealingKeys(env as unknown as Bindings), JSON.stringify(shop.credentials), credentialsBinding(accountId, platform));
  const hint = Object.fromEntries(Object.entries(shop.credentials).map(([k, v]) => [k, maskedHint(v)]));
  const settings = SETTINGS[platform].parse(options.settings ?? {});
  const name = options.name ?? unique("Shop");
  const row = await env.DB.prepare(
    `INSERT INTO shop_connections (account_id, platform, name, base_url, credentials_sealed, credentials_hint, sources, settings, active, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  )
    .bind(accountId, platform, name, shop.base_url, sealed, JSON.stringify(hint), options.sources ? JSON.stringify(options.sources) : null, JSON.stringify(settings), options.active === false ? 0 : 1, now, now)
    .first<{ id: number }>();
  return { id: row!.id, name, platform };
}

/** Pauses (false) or resumes (true) a connection, as PATCH {"active": …} does. */
export const setActive = (connectionId: number, active: boolean) => exec("UPDATE shop_connections SET active = ? WHERE id = ?", active ? 1 : 0, connectionId);

/** Waits until every write-back of the order is settled (done, failed or skipped) and there are `count` of them. */
export async function writeBacksSettled(orderId: number, count: number, timeoutMs = 30_000) {
  return waitFor(async () => {
    const { results } = await env.DB.prepare("SELECT id, kind, status FROM shop_write_backs WHERE order_id = ? ORDER BY id").bind(orderId).all<{ id: number; kind: string; status: string }>();
    return results.length === count && results.every((r) => ["done", "failed", "skipped"].includes(r.status)) ? results : null;
  }, timeoutMs);
}

/** A supplier's answer shipping `quantity` of a line with one tracking number (and its URL). */
export const ship = (line: number, quantity: number, number: string, carrier = "PostNL") => ({
  line_id: line,
  action: "ship",
  quantity,
  carrier,
  tracking_number: number,
  tracking_url: `https://track.example.com/${number}`,
});

/** The supplier's answers through the supplier API, taken (200). */
export async function answered(key: string, answers: Record<string, unknown>[]) {
  const res = await answer(key, answers);
  expect(res.status, res.text).toBe(200);
}

/**
 * A supplier on the pull channel that no routing rule sends to (so no automatic re-route picks it),
 * with its key: the one a person sends a stuck line to by hand.
 */
export async function handPickedSupplier(creds: Credentials) {
  const [chosen] = await supplierChain(creds, [{ channel: "pull" }]);
  expect((await call("DELETE", `/api/v1/routing-rules/${chosen.rule.id}`, { creds })).status).toBe(204);
  return { id: chosen.supplier.id as number, name: chosen.supplier.name as string, key: chosen.key! };
}

/** POST …/lines/{id}/assign through the API: the line sent to that supplier by hand (200). */
export async function sendByHand(creds: Credentials, reference: string, lineId: number, supplierId: number) {
  const res = await call("POST", `/api/v1/orders/${reference}/lines/${lineId}/assign`, { creds, body: { supplier_id: supplierId } });
  expect(res.status, res.text).toBe(200);
}
