// Accounts and API keys: issuing, revoking, and authenticating a request's credentials.
import { and, asc, desc, eq, gte, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { QueryBuilder } from "drizzle-orm/sqlite-core";
import type { Db } from "../db";
import type { AuthenticatedAccount } from "../env";
import { accounts, apiKeys, consoleSessions, orders, type Account, type ApiKey } from "../db/schema";
import { newApiKeySecret, sha256Hex, timingSafeEqual } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { isoMicro } from "../lib/time";

// last_used_at is refreshed at most this often, so authentication does not write on every request.
const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;

/** The account's row on its shard, under the id the directory minted for it (src/shards/accounts.ts). */
export async function createAccount(db: Db, name: string, id?: number) {
  const now = isoMicro();
  const [row] = await db.insert(accounts).values({ id, name, createdAt: now }).returning();
  return row;
}

/**
 * Every account, ids ascending, one page: one round trip of two statements. `activeApiKeys`
 * counts keys neither revoked nor expired (one indexed subquery in the page's statement).
 * `except`: accounts left out, in the count too (a moving account's copy on the shard that does
 * not serve it: src/shards/accounts.ts).
 */
export async function listAccounts(db: Db, page: PageRequest, except: number[] = []) {
  const now = isoMicro();
  const shown = except.length === 0 ? undefined : sql`${accounts.id} NOT IN (SELECT value FROM json_each(${JSON.stringify(except)}))`;
  const [countRows, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(accounts).where(shown),
    db
      .select({
        id: accounts.id,
        name: accounts.name,
        createdAt: accounts.createdAt,
        // Table-qualified by hand: inside a one-table select Drizzle writes column names bare.
        activeApiKeys: sql<number>`(SELECT count(*) FROM api_keys k WHERE k.account_id = accounts.id
          AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > ${now}))`,
      })
      .from(accounts)
      .where(shown)
      .orderBy(asc(accounts.id))
      .limit(page.perPage)
      .offset(offsetOf(page)),
  ]);
  return { total: countRows[0]?.total ?? 0, rows };
}

/** A new key and its secret, which is stored only as a digest: the caller shows it once. */
export async function createApiKey(db: Db, accountId: number, input: { name?: string; expires_at?: string }): Promise<{ key: ApiKey; secret: string }> {
  const account = await db.query.accounts.findFirst({ where: eq(accounts.id, accountId) });
  if (!account) throw ApiError.notFound(`Account with id '${accountId}' not found`);
  const secret = newApiKeySecret();
  const now = isoMicro();
  const [row] = await db
    .insert(apiKeys)
    .values({
      accountId,
      name: input.name ?? null,
      keyHash: await sha256Hex(secret),
      prefix: secret.slice(0, 10),
      expiresAt: input.expires_at ?? null,
      createdAt: now,
    })
    .returning();
  return { key: row, secret };
}

/** A key as authentication judges it: revoked, expired (its expiry has come), or active. */
export function apiKeyState(key: Pick<ApiKey, "revokedAt" | "expiresAt">, now = new Date()): "active" | "expired" | "revoked" {
  if (key.revokedAt) return "revoked";
  if (key.expiresAt && Date.parse(key.expiresAt) <= now.getTime()) return "expired";
  return "active";
}

/**
 * An account with its API keys, newest first, one page (revoked and expired ones too: the history of
 * its credentials; never the secret, only its prefix): one round trip, the count and the page through
 * api_keys_account_idx. An unknown account is a 404, not an empty list.
 */
export async function listApiKeys(db: Db, accountId: number, page: PageRequest): Promise<{ account: Account; total: number; rows: ApiKey[] }> {
  const mine = eq(apiKeys.accountId, accountId);
  const [accountRows, countRows, rows] = await db.batch([
    db.select().from(accounts).where(eq(accounts.id, accountId)),
    db.select({ total: sql<number>`count(*)` }).from(apiKeys).where(mine),
    db.select().from(apiKeys).where(mine).orderBy(desc(apiKeys.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  const [account] = accountRows;
  if (!account) throw ApiError.notFound(`Account with id '${accountId}' not found`);
  return { account, total: countRows[0]?.total ?? 0, rows };
}

/** The live keys of an account other than `keyId`: neither revoked nor expired. */
const otherLiveKey = (accountId: number, keyId: number, now: string) =>
  sql`EXISTS (SELECT 1 FROM api_keys o WHERE o.account_id = ${accountId} AND o.id <> ${keyId}
        AND o.revoked_at IS NULL AND (o.expires_at IS NULL OR o.expires_at > ${now}))`;

/**
 * Revokes a key and ends the console sessions opened with it, in one batch: the key stops working
 * with the next request and its sessions are gone at once. Revoking a revoked key changes nothing.
 * `accountId` scopes the key to an account (the shop's own API); the operator's revoke has none.
 * A shop cannot revoke its last live key (it would lock itself out; the operator still can).
 * While the account moves, only the key is revoked (the one write the freeze lets through,
 * drizzle/0023; both shards' copies must keep the same rows): its sessions are refused anyway, as
 * they read the key's revoked_at, and end when they expire.
 * Returns the key.
 */
export async function revokeApiKey(db: Db, id: number, accountId?: number, now = isoMicro()): Promise<ApiKey> {
  const owned = accountId === undefined ? undefined : eq(apiKeys.accountId, accountId);
  const ownedKey = accountId === undefined ? sql`` : sql`AND k.account_id = ${accountId}`;
  const [revoked, , found] = await db.batch([
    db
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt), owned, accountId === undefined ? undefined : otherLiveKey(accountId, id, now)))
      .returning(),
    db
      .delete(consoleSessions)
      .where(
        and(
          eq(consoleSessions.apiKeyId, id),
          sql`EXISTS (SELECT 1 FROM api_keys k WHERE k.id = ${id} AND k.revoked_at IS NOT NULL ${ownedKey})`,
          sql`NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = console_sessions.account_id AND a.moving IS NOT NULL)`,
        ),
      ),
    db.select().from(apiKeys).where(and(eq(apiKeys.id, id), owned)),
  ]);
  if (revoked.length > 0) return revoked[0];
  if (found.length === 0) throw ApiError.notFound(`API key with id '${id}' not found`);
  if (found[0].revokedAt === null) {
    throw ApiError.conflict("This is the account's last live API key: create another key first, then revoke this one.");
  }
  return found[0];
}

/** The most days the volume of an account can be asked for. */
export const VOLUME_MAX_DAYS = 366;

export type DayVolume = { day: string; orders: number; testOrders: number };

/**
 * Orders per UTC day over the last `days` days (today included), oldest day first, days without
 * orders as zero. One statement, answered from orders_account_test_created_idx alone (no table
 * read, no scan): two index ranges (test and real orders) from the first day on.
 */
export async function ordersPerDay(db: Db, accountId: number, days: number, now = new Date()): Promise<DayVolume[]> {
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
  const rows = await db
    .select({ day: sql<string>`substr(${orders.createdAt}, 1, 10)`, test: orders.test, count: sql<number>`count(*)` })
    .from(orders)
    .where(and(eq(orders.accountId, accountId), inArray(orders.test, [false, true]), gte(orders.createdAt, isoMicro(first))))
    .groupBy(sql`1`, orders.test);
  const byDay = new Map<string, DayVolume>();
  for (let i = 0; i < days; i++) {
    const day = new Date(first.getTime() + i * 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
    byDay.set(day, { day, orders: 0, testOrders: 0 });
  }
  for (const r of rows) {
    const entry = byDay.get(r.day);
    if (entry) entry[r.test ? "testOrders" : "orders"] = r.count;
  }
  return [...byDay.values()];
}

export type Authenticated = {
  account: AuthenticatedAccount;
  /** A deferred write to keep last_used_at fresh, or null when it is fresh enough. */
  touch: Promise<unknown> | null;
  /** The account's move to another shard, if one is under way (src/shards/move.ts). */
  moving: "frozen" | "leaving" | "arriving" | null;
};

/** Checks an api-key / account-id pair; throws the 401 that names what is wrong. */
// The lookup runs on every request: its SQL is built once per isolate, each request binds the digest.
const keyLookupSql = new QueryBuilder()
  .select({
    id: apiKeys.id,
    keyHash: apiKeys.keyHash,
    accountId: apiKeys.accountId,
    expiresAt: apiKeys.expiresAt,
    revokedAt: apiKeys.revokedAt,
    lastUsedAt: apiKeys.lastUsedAt,
    accountName: accounts.name,
    currency: accounts.currency,
    moving: accounts.moving,
  })
  .from(apiKeys)
  .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
  .where(eq(apiKeys.keyHash, sql.placeholder("digest")))
  .toSQL().sql;

/** The lookup's row as D1 answers it (keyed by column name). */
type KeyLookupRow = {
  id: number;
  key_hash: string;
  account_id: number;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  name: string;
  currency: string;
  moving: "frozen" | "leaving" | "arriving" | null;
};

export async function authenticate(db: Db, apiKey: string, accountIdHeader: string): Promise<Authenticated> {
  const digest = await sha256Hex(apiKey);
  const { results } = await db.$client.prepare(keyLookupSql).bind(digest).all<KeyLookupRow>();
  const row = results[0];
  if (!row || !timingSafeEqual(row.key_hash, digest)) throw ApiError.unauthorized("The api-key header is invalid.");
  const now = new Date();
  const state = apiKeyState({ revokedAt: row.revoked_at, expiresAt: row.expires_at }, now);
  if (state === "revoked") throw ApiError.unauthorized("The api-key header holds a revoked key.");
  if (state === "expired") throw ApiError.unauthorized("The api-key header holds an expired key.");
  if (accountIdHeader.trim() !== String(row.account_id)) {
    throw ApiError.unauthorized("The account-id header does not match the api-key.");
  }
  // A moving account's rows take no writes (src/shards/move.ts): last_used_at waits for the move.
  const stale = !row.moving && (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) > LAST_USED_RESOLUTION_MS);
  const touch = stale
    ? db
        .update(apiKeys)
        .set({ lastUsedAt: isoMicro(now) })
        .where(
          and(
            eq(apiKeys.id, row.id),
            or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, isoMicro(new Date(now.getTime() - LAST_USED_RESOLUTION_MS)))),
          ),
        )
        .run()
    : null;
  return { account: { id: row.account_id, name: row.name, apiKeyId: row.id, currency: row.currency }, touch, moving: row.moving };
}

// ---- The account's own settings (GET/PATCH /api/v1/settings) -------------------------

export type AccountSettings = { rerouteEnabled: boolean; rerouteMaxAttempts: number; currency: string; archiveAfterDays: number };

/** archive_after_days (docs/archive.md): a week at least, so a late question finds the order live; ten years at most. */
export const ARCHIVE_DAYS_RANGE = { min: 7, max: 3650 };

const settingsColumns = {
  rerouteEnabled: accounts.rerouteEnabled,
  rerouteMaxAttempts: accounts.rerouteMaxAttempts,
  currency: accounts.currency,
  archiveAfterDays: accounts.archiveAfterDays,
};

export async function getSettings(db: Db, accountId: number): Promise<AccountSettings> {
  const [row] = await db.select(settingsColumns).from(accounts).where(eq(accounts.id, accountId));
  return row;
}

/** Changes only the settings given; answers them all. */
export async function updateSettings(db: Db, accountId: number, input: Partial<AccountSettings>): Promise<AccountSettings> {
  const set = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  if (Object.keys(set).length === 0) return getSettings(db, accountId);
  const [row] = await db.update(accounts).set(set).where(eq(accounts.id, accountId)).returning(settingsColumns);
  return row;
}
