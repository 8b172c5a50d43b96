// Shared pieces of the shop-connection tests: a connection's body, creating one, its stored rows.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { call, type Credentials } from "../helpers/http";

export const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
export const WOO_KEYS = { consumer_key: "ck_live_5f1e2d3c4b5a69788796a5b4c3d2e1f0ab12", consumer_secret: "cs_live_0f1e2d3c4b5a69788796a5b4c3d2e1f0cd34" };
export const WOO_BODY = { platform: "woocommerce", name: "Main shop", base_url: "https://shop.example.com/", credentials: WOO_KEYS };

/** The account's rows in shop_connections, deleted ones too, as D1 holds them. */
export async function storedConnections(accountId: number) {
  const { results } = await env.DB.prepare("SELECT * FROM shop_connections WHERE account_id = ? ORDER BY id").bind(accountId).all<Record<string, unknown>>();
  return results;
}

export async function createConnection(creds: Credentials, body: Record<string, unknown> = WOO_BODY) {
  const res = await call("POST", "/api/v1/shop-connections", { creds, body });
  if (res.status !== 201) throw new Error(`shop connection: ${res.status} ${res.text}`);
  return res.json;
}

