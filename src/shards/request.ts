// A request's shard: until authentication knows the account, a request works on shard 0 (the
// admin API, the operator's pages, /health); then everything after runs on the account's shard.
import type { Context } from "hono";
import { meteredD1 } from "../db/metrics";
import { openRequestDatabase } from "../db/sessions";
import type { AppEnv } from "../env";
import { pipelineFor } from "../lib/queue";
import { ApiError } from "../lib/errors";
import { sha256Hex } from "../lib/crypto";
import { forgetAccount, forgetKey, locateKey, shardOfAccount, shardOfSupplier } from "./directory";
import { shardBinding, shardEnv, shardNumbers } from "./shards";

/**
 * Points the request at a shard: its D1 sessions (db, primaryDb), c.env as that shard's view (DB
 * is the shard, queue messages carry it) and the pipeline. Call it before the request's first
 * statement on the shard (the sessions start fresh).
 */
export function useShard(c: Context<AppEnv>, shard: number) {
  const root = c.get("shard") === undefined ? c.env : (rootEnvOf.get(c.env) ?? c.env);
  const env = shardEnv(root, shard);
  rootEnvOf.set(env, root);
  c.env = env;
  const bench = root.BENCH_METRICS === "1";
  const database = openRequestDatabase(shardBinding(root, shard), c.req.method, c.get("bookmark"), bench ? meteredD1 : undefined);
  c.set("shard", shard);
  c.set("database", database);
  c.set("db", database.db);
  c.set("primaryDb", database.primary);
  c.set("pipeline", pipelineFor(env, (promise) => c.executionCtx.waitUntil(promise)));
}

const rootEnvOf = new WeakMap<object, AppEnv["Bindings"]>();

/**
 * Runs a credential check on the shard of the account the request names (the account-id header,
 * the console's sign-in field): the directory says which (cached per isolate; an account it does
 * not know is one from before sharding, on shard 0). The check itself reads the shard's primary.
 * When it finds nothing and the shard came from the cache, the account may have moved: the
 * directory is read again and the check runs once more there.
 */
export async function onAccountShard<T>(c: Context<AppEnv>, accountIdText: string, check: () => Promise<T>): Promise<T> {
  const accountId = /^\d{1,15}$/.test(accountIdText.trim()) ? Number(accountIdText.trim()) : null;
  if (accountId === null) return check();
  const shard = (await shardOfAccount(c.env, accountId)) ?? 0;
  if (shard !== c.get("shard")) useShard(c, shard);
  try {
    return await check();
  } catch (error) {
    if (!(error instanceof MovedAway || (error instanceof ApiError && error.status === 401))) throw error;
    forgetAccount(accountId);
    const fresh = (await shardOfAccount(c.env, accountId)) ?? 0;
    if (fresh === shard) throw error instanceof MovedAway ? ApiError.accountMoving() : error;
    useShard(c, fresh);
    try {
      return await check();
    } catch (again) {
      throw again instanceof MovedAway ? ApiError.accountMoving() : again;
    }
  }
}

/** A credential check found the account's rows on a shard it is leaving (a move's last phase). */
export class MovedAway extends Error {
  /** The account whose rows were found (when the check knew only a secret, not the account). */
  constructor(readonly accountId?: number) {
    super("The account has moved to another shard.");
  }
}

/**
 * Points a supplier's request at the shard of its key's account (the directory, cached; a key it
 * does not know was issued before sharding, on shard 0). The key itself is then read there, on the
 * primary: a revoked key is refused at once wherever the cache points.
 */
export async function onSupplierKeyShard<T>(c: Context<AppEnv>, secret: string, check: () => Promise<T>): Promise<T> {
  const keyHash = await sha256Hex(secret);
  const located = await locateKey(c.env, keyHash, "supplier_key");
  const shard = located?.shard ?? 0;
  if (shard !== c.get("shard")) useShard(c, shard);
  try {
    return await check();
  } catch (error) {
    // Not there, or there for an account leaving the shard: the account may have moved since the
    // cache (or a first lookup) said where it was. Once more, from the directory (a wrong key costs
    // this one read too; refusals are rate-limited).
    const movedAway = error instanceof MovedAway;
    if (!(movedAway || (error instanceof ApiError && error.status === 401))) throw error;
    forgetKey(keyHash, "supplier_key", located?.accountId ?? (movedAway ? error.accountId : undefined));
    const fresh = (await locateKey(c.env, keyHash, "supplier_key"))?.shard ?? 0;
    if (fresh === shard) throw movedAway ? ApiError.accountMoving() : error;
    useShard(c, fresh);
    try {
      return await check();
    } catch (again) {
      throw again instanceof MovedAway ? ApiError.accountMoving() : again;
    }
  }
}

/**
 * A signed supplier callback names only the supplier's id: the directory says its account, and so
 * its shard (cached; a supplier the directory does not know is one from before sharding: shard 0).
 * Not the id's range: an account that moved keeps its ids on its new shard.
 */
export async function toSupplierIdShard(c: Context<AppEnv>, supplierId: number) {
  const shard = (await shardOfSupplier(c.env, supplierId)) ?? 0;
  if (shardNumbers(c.env).includes(shard) && shard !== c.get("shard")) useShard(c, shard);
}
