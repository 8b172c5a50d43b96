// The operator's view across shards: an account is created on a shard (placement or pin), the
// admin API's per-account paths run on the account's shard, and what is not per account (the list
// of accounts, a key by its id) asks every shard.
import type { Context } from "hono";
import { createAccount, listAccounts, revokeApiKey } from "../accounts/accounts.service";
import { createDb, type Db } from "../db";
import type { ApiKey } from "../db/schema";
import type { AppEnv, Bindings } from "../env";
import { ApiError } from "../lib/errors";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { registerAccount, shardOfAccount } from "./directory";
import { useShard } from "./request";
import { shardBinding, shardNumbers } from "./shards";

/** A new account: its id minted by the directory, its row on the shard with most room (or the pinned one). */
export async function openAccount(c: Context<AppEnv>, name: string, pin?: number) {
  if (pin !== undefined && !shardNumbers(c.env).includes(pin)) {
    throw ApiError.validation({ shard: [`The selected shard is invalid. Shards: ${shardNumbers(c.env).join(", ")}.`] });
  }
  const { accountId, shard } = await registerAccount(c.env, pin);
  useShard(c, shard);
  return { ...(await createAccount(c.get("db"), name, accountId)), shard };
}

/** Points an operator's request about one account at that account's shard (unknown: shard 0, where its 404 comes from). */
export async function toAccountShard(c: Context<AppEnv>, accountId: number) {
  const shard = (await shardOfAccount(c.env, accountId)) ?? 0;
  if (shard !== c.get("shard")) useShard(c, shard);
}

/** Every shard's database, on the primary (the binding itself), with its number. */
export const everyShard = (env: Bindings): { shard: number; db: Db }[] =>
  shardNumbers(env).map((shard) => ({ shard, db: createDb(shardBinding(env, shard)) }));

/**
 * One page of a list that spans every shard: each shard's first offset + per_page rows in `order`
 * (the order each shard's own list has), merged; each row says its shard. A deep page reads
 * more rows per shard: the operator's lists are short.
 */
export async function pageEverywhere<T>(
  env: Bindings,
  page: PageRequest,
  list: (db: Db, page: PageRequest) => Promise<{ total: number; rows: T[] }>,
  order: (a: T, b: T) => number,
): Promise<{ total: number; rows: (T & { shard: number })[] }> {
  const upTo = offsetOf(page) + page.perPage;
  const lists = await Promise.all(everyShard(env).map(async ({ shard, db }) => ({ shard, ...(await list(db, { ...page, page: 1, perPage: upTo })) })));
  const rows = lists.flatMap((l) => l.rows.map((r) => ({ ...r, shard: l.shard }))).sort(order);
  return { total: lists.reduce((n, l) => n + l.total, 0), rows: rows.slice(offsetOf(page), upTo) };
}

/** The accounts of every shard, ids ascending, each with its shard. */
export const listAccountsEverywhere = (env: Bindings, page: PageRequest) => pageEverywhere(env, page, listAccounts, (a, b) => a.id - b.id);

/**
 * Runs an operator's action about a thing named by an id or reference unique across shards (a
 * parked order, a dead letter) on the shard that has it: each shard in turn until one does not
 * answer 404.
 */
export async function onShardHolding<T>(c: Context<AppEnv>, action: () => Promise<T>): Promise<T> {
  let missing: unknown;
  for (const shard of shardNumbers(c.env)) {
    if (shard !== c.get("shard")) useShard(c, shard);
    try {
      return await action();
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
      missing = error;
    }
  }
  throw missing;
}

/** Revokes a key by its id on whichever shard holds it (404 when none does). */
export async function revokeApiKeyAnywhere(env: Bindings, keyId: number, accountId?: number): Promise<ApiKey> {
  for (const { db } of everyShard(env)) {
    try {
      return await revokeApiKey(db, keyId, accountId);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
  }
  throw ApiError.notFound(`API key with id '${keyId}' not found`);
}
