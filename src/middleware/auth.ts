// Authentication of /api/v1 (api-key + account-id headers) and of /admin/v1 (bearer ADMIN_TOKEN).
import { createMiddleware } from "hono/factory";
import { authenticate } from "../accounts/accounts.service";
import type { AppEnv } from "../env";
import { timingSafeEqual } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { countAuthFailure, limitCredential, refuseBlockedAddress } from "./rate-limit";
import { MovedAway, onAccountShard } from "../shards/request";

export const apiKeyAuth = createMiddleware<AppEnv>(async (c, next) => {
  refuseBlockedAddress(c);
  // Header names are case-insensitive (WooCommerce sends Api-Key / Account-Id).
  const apiKey = c.req.header("api-key")?.trim();
  const accountId = c.req.header("account-id")?.trim();
  let authenticated: Awaited<ReturnType<typeof authenticate>>;
  try {
    if (!apiKey) throw ApiError.unauthorized("The api-key header is missing.");
    if (!accountId) throw ApiError.unauthorized("The account-id header is missing.");
    authenticated = await onAccountShard(c, accountId, async () => {
      const found = await authenticate(c.get("primaryDb"), apiKey, accountId);
      // The directory points elsewhere already: the account's rows here are being deleted.
      if (found.moving === "leaving") throw new MovedAway();
      return found;
    });
  } catch (error) {
    throw error instanceof ApiError && error.status === 401 ? await countAuthFailure(c, error) : error;
  }
  const { account, touch } = authenticated;
  // A write of an account in the middle of a move waits (the freeze in the database refuses it anyway).
  if (authenticated.moving === "frozen" && c.req.method !== "GET" && c.req.method !== "HEAD") throw ApiError.accountMoving();
  await limitCredential(c, `key:${account.apiKeyId}`);
  if (touch) c.executionCtx.waitUntil(touch.catch((e) => console.error("last_used_at update failed", e)));
  c.set("account", account);
  await next();
});

export const adminAuth = createMiddleware<AppEnv>(async (c, next) => {
  const token = c.env.ADMIN_TOKEN;
  if (!token) throw new ApiError(404, "Not Found", { error: "The admin API is not enabled on this deployment." });
  const header = c.req.header("authorization") ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match) throw ApiError.unauthorized("The Authorization header is missing or is not a Bearer token.");
  verifyAdminToken(token, match[1]);
  await next();
});

/** The operator's credential (the admin API's bearer token, the operator pages' sign-in); the 401 when it is wrong. */
export function verifyAdminToken(configured: string, given: string): void {
  if (!timingSafeEqual(given, configured)) throw ApiError.unauthorized("The admin token is invalid.");
}
