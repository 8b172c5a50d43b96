// Authentication of the supplier API: Authorization: Bearer <supplier key>, scoped to one supplier.
import { and, eq, isNull } from "drizzle-orm";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { accounts, supplierKeys, suppliers } from "../db/schema";
import type { Db } from "../db";
import type { AppEnv } from "../env";
import { sha256Hex, timingSafeEqual } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { countAuthFailure, limitCredential, refuseBlockedAddress } from "./rate-limit";
import { MovedAway, onSupplierKeyShard } from "../shards/request";

export const supplierKeyAuth = createMiddleware<AppEnv>(async (c, next) => {
  refuseBlockedAddress(c);
  const supplier = await identify(c).catch(async (error) => {
    throw error instanceof ApiError && error.status === 401 ? await countAuthFailure(c, error) : error;
  });
  // A write of an account in the middle of a move waits (the freeze in the database refuses it anyway).
  if (supplier.moving === "frozen" && c.req.method !== "GET" && c.req.method !== "HEAD") throw ApiError.accountMoving();
  await limitCredential(c, `supplier-key:${supplier.keyId}`);
  c.set("supplier", { id: supplier.id, accountId: supplier.accountId, name: supplier.name });
  await next();
});

async function identify(c: Context<AppEnv>) {
  const match = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization")?.trim() ?? "");
  if (!match) throw ApiError.unauthorized("The Authorization header must carry a supplier key: Bearer <key>.");
  return onSupplierKeyShard(c, match[1], () => findSupplierKey(c.get("primaryDb"), match[1]));
}

/**
 * The supplier a key belongs to (the API's bearer key, the portal's sign-in); the 401 when it is not
 * a live key. Found on a shard its account is leaving (a move switched it, a stale cache sent the
 * request here), it is not the account's shard any more: MovedAway, and the caller reads the
 * directory again (src/shards/request.ts), as for an API key.
 */
export async function findSupplierKey(db: Db, key: string) {
  const digest = await sha256Hex(key);
  const row = await db
    .select({
      keyId: supplierKeys.id,
      keyHash: supplierKeys.keyHash,
      id: suppliers.id,
      accountId: suppliers.accountId,
      name: suppliers.name,
      active: suppliers.active,
      moving: accounts.moving,
    })
    .from(supplierKeys)
    .innerJoin(suppliers, eq(suppliers.id, supplierKeys.supplierId))
    .innerJoin(accounts, eq(accounts.id, suppliers.accountId))
    .where(and(eq(supplierKeys.keyHash, digest), isNull(supplierKeys.revokedAt)))
    .get();
  if (!row || !timingSafeEqual(row.keyHash, digest)) throw ApiError.unauthorized("The supplier key is invalid or revoked.");
  if (row.moving === "leaving") throw new MovedAway(row.accountId);
  if (!row.active) throw ApiError.unauthorized("The supplier is deactivated.");
  return row;
}
