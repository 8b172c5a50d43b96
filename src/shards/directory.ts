// The directory: account → shard, API key / supplier key hash → account. A request's first lookup
// finds its shard here; everything after runs on the shard.
//
// Cached per isolate, and the cache needs no invalidation message to stay correct:
// - a key's account never changes, and an account's shard changes only when an operator moves it;
// - the key itself (revoked, expired) is always read on the shard's primary, never from the cache;
// - after a move the old shard no longer has the key: that lookup fails, the entry is dropped and
//   the directory read again, once (src/middleware/auth.ts). So a stale entry costs one extra read,
//   never a wrong answer.
import { and, asc, eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { MAX_ACCOUNT_ID } from "../../scripts/lib/shards.mjs";
import type { Bindings } from "../env";
import { ApiError } from "../lib/errors";
import { sha256Hex } from "../lib/crypto";
import { isoMicro } from "../lib/time";
import { shardBinding, shardNumbers } from "./shards";
import { directoryAccounts, directoryCredentials, directorySuppliers } from "./directory.schema";

export type KeyKind = "api_key" | "supplier_key";
export type Located = { accountId: number; shard: number };

const directory = (env: Bindings) => drizzle(env.DIRECTORY);

// Bounded so an isolate's memory stays flat however many keys it sees (oldest entries go first).
const MAX_ENTRIES = 10_000;
// An entry may be null: the directory does not know the key or account (one from before sharding,
// on shard 0). Cached too, so such requests cost no directory read either; should it have moved
// since, the old shard no longer has it and the caller reads the directory again.
const byKey = new Map<string, Located | null>();
const byAccount = new Map<number, number | null>();

function remember<K, V>(map: Map<K, V>, key: K, value: V) {
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

/** The account and shard of a key (by its SHA-256 hex), from the cache or the directory; null if unknown. */
export async function locateKey(env: Bindings, keyHash: string, kind: KeyKind): Promise<(Located & { cached: boolean }) | null> {
  const cached = byKey.get(`${kind}:${keyHash}`);
  if (cached) return { ...cached, cached: true };
  if (cached === null) return null;
  const row = await directory(env)
    .select({ accountId: directoryCredentials.accountId, shard: directoryAccounts.shard })
    .from(directoryCredentials)
    .innerJoin(directoryAccounts, eq(directoryAccounts.id, directoryCredentials.accountId))
    .where(and(eq(directoryCredentials.keyHash, keyHash), eq(directoryCredentials.kind, kind)))
    .get();
  if (!row) {
    remember(byKey, `${kind}:${keyHash}`, null);
    return null;
  }
  remember(byKey, `${kind}:${keyHash}`, row);
  remember(byAccount, row.accountId, row.shard);
  return { ...row, cached: false };
}

/** Drops what the cache holds for a key and its account (their shard was not where the cache said). */
export function forgetKey(keyHash: string, kind: KeyKind, accountId?: number) {
  byKey.delete(`${kind}:${keyHash}`);
  if (accountId !== undefined) byAccount.delete(accountId);
}

/** An account's shard (cached); null for an account the directory does not know. */
export async function shardOfAccount(env: Bindings, accountId: number): Promise<number | null> {
  const cached = byAccount.get(accountId);
  if (cached !== undefined) return cached;
  const row = await directory(env).select({ shard: directoryAccounts.shard }).from(directoryAccounts).where(eq(directoryAccounts.id, accountId)).get();
  if (!row) {
    remember(byAccount, accountId, null);
    return null;
  }
  remember(byAccount, accountId, row.shard);
  return row.shard;
}

const bySupplier = new Map<number, number | null>();

/** A supplier's shard, through its account (cached; an account's suppliers never change account); null if unknown. */
export async function shardOfSupplier(env: Bindings, supplierId: number): Promise<number | null> {
  let accountId = bySupplier.get(supplierId);
  if (accountId === undefined) {
    const row = await directory(env).select({ accountId: directorySuppliers.accountId }).from(directorySuppliers).where(eq(directorySuppliers.supplierId, supplierId)).get();
    accountId = row?.accountId ?? null;
    remember(bySupplier, supplierId, accountId);
  }
  return accountId === null ? null : shardOfAccount(env, accountId);
}

/** Records a new supplier's account (its signed callbacks name only the supplier). */
export async function registerSupplier(env: Bindings, supplierId: number, accountId: number): Promise<void> {
  bySupplier.delete(supplierId);
  // Only accounts the directory knows (an account from before sharding is found on shard 0 anyway).
  await env.DIRECTORY.prepare(
    "INSERT INTO directory_suppliers (supplier_id, account_id) SELECT ?1, ?2 WHERE EXISTS (SELECT 1 FROM directory_accounts WHERE id = ?2) ON CONFLICT DO NOTHING",
  )
    .bind(supplierId, accountId)
    .run();
}

/** Drops an account's cached shard (after a move, in the isolate that ran it). */
export function forgetAccount(accountId: number) {
  byAccount.delete(accountId);
  for (const [key, located] of byKey) if (located?.accountId === accountId) byKey.delete(key);
}

/**
 * How full each shard is, in bytes (D1 reports the database's size with every statement's result).
 * New accounts go to the shard with the most room: the smallest.
 */
export async function shardSizes(env: Bindings): Promise<{ shard: number; bytes: number }[]> {
  return Promise.all(
    shardNumbers(env).map(async (shard) => {
      const result = await shardBinding(env, shard).prepare("SELECT 1").run();
      return { shard, bytes: (result.meta as { size_after?: number }).size_after ?? 0 };
    }),
  );
}

/** Mints an account id in the directory, on the given shard (an operator's pin) or the one with most room. */
export async function registerAccount(env: Bindings, pin?: number): Promise<Located> {
  let shard = pin;
  if (shard === undefined) {
    const sizes = await shardSizes(env);
    shard = sizes.reduce((best, s) => (s.bytes < best.bytes ? s : best)).shard;
  } else {
    shardBinding(env, shard);
  }
  // The next id (SQLite's AUTOINCREMENT: above the counter and every id present) only while it is
  // at most MAX_ACCOUNT_ID: one statement, so two creations at once cannot both pass the check.
  const row = await env.DIRECTORY.prepare(
    `INSERT INTO directory_accounts (shard, pinned, created_at)
       SELECT ?1, ?2, ?3 WHERE max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'directory_accounts'), 0),
                               coalesce((SELECT max(id) FROM directory_accounts), 0)) < ${MAX_ACCOUNT_ID}
     RETURNING id`,
  )
    .bind(shard, pin !== undefined ? 1 : 0, isoMicro())
    .first<{ id: number }>();
  if (!row) {
    throw ApiError.conflict(
      `No account id is left: account ids go up to ${MAX_ACCOUNT_ID} (2^22 - 1; the order search packs them into its index), and the directory has minted them all.`,
    );
  }
  remember(byAccount, row.id, shard);
  return { accountId: row.id, shard };
}

/** Records which account a new key belongs to (before the key is handed out: it works at once). */
export async function registerKey(env: Bindings, keyHash: string, kind: KeyKind, accountId: number): Promise<void> {
  byKey.delete(`${kind}:${keyHash}`);
  await directory(env).insert(directoryCredentials).values({ keyHash, kind, accountId }).onConflictDoNothing();
}

/** A supplier key's account, recorded when the key is issued (before it is shown: it works at once). */
export async function registerSupplierKey(env: Bindings, secret: string, accountId: number): Promise<void> {
  await registerKey(env, await sha256Hex(secret), "supplier_key", accountId);
}

/** Every account the directory knows, with its shard, in id order (for fan-out over shards). */
export async function directoryPage(env: Bindings, afterId = 0, limit = 100) {
  return directory(env)
    .select({ id: directoryAccounts.id, shard: directoryAccounts.shard, pinned: directoryAccounts.pinned })
    .from(directoryAccounts)
    .where(sql`${directoryAccounts.id} > ${afterId}`)
    .orderBy(asc(directoryAccounts.id))
    .limit(limit);
}
