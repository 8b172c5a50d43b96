// The operator's view across shards: an account is created on a shard (placement or pin), the
// admin API's per-account paths run on the account's shard, and what is not per account (the list
// of accounts, a key by its id) asks every shard. What is done on a shard (create, list, revoke)
// the caller passes in: the shards know where, never what.
import type { Context } from "hono";
import { createDb, type Db } from "../db";
import type { AppEnv, Bindings } from "../env";
import { ApiError } from "../lib/errors";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { isoMicro } from "../lib/time";
import { registerAccount, shardOfAccount } from "./directory";
import { useShard } from "./request";
import { shardBinding, shardNumbers } from "./shards";

/**
 * A new account: its id minted by the directory, its row (`create`) on the shard with most room
 * (or the pinned one), which the request then uses.
 */
export async function openAccount<T>(c: Context<AppEnv>, pin: number | undefined, create: (db: Db, accountId: number) => Promise<T>) {
  if (pin !== undefined && !shardNumbers(c.env).includes(pin)) {
    throw ApiError.validation({ shard: [`The selected shard is invalid. Shards: ${shardNumbers(c.env).join(", ")}.`] });
  }
  const { accountId, shard } = await registerAccount(c.env, pin);
  useShard(c, shard);
  return { account: await create(c.get("db"), accountId), shard };
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
  list: (db: Db, page: PageRequest, shard: number) => Promise<{ total: number; rows: T[] }>,
  order: (a: T, b: T) => number,
): Promise<{ total: number; rows: (T & { shard: number })[] }> {
  const upTo = offsetOf(page) + page.perPage;
  const lists = await Promise.all(everyShard(env).map(async ({ shard, db }) => ({ shard, ...(await list(db, { ...page, page: 1, perPage: upTo }, shard)) })));
  const rows = lists.flatMap((l) => l.rows.map((r) => ({ ...r, shard: l.shard }))).sort(order);
  return { total: lists.reduce((n, l) => n + l.total, 0), rows: rows.slice(offsetOf(page), upTo) };
}

/**
 * The accounts of every shard, ids ascending, each once, with the shard the directory names for it.
 * An account in the middle of a move has rows on two shards (from the copy to the end of the
 * delete): each shard leaves out the moving accounts it does not serve, in its count too, so the
 * pages and the total stay right. Costs one directory read of the moves under way (a partial
 * index of them: no row read while none is).
 */
export async function listAccountsEverywhere<T extends { id: number }>(
  env: Bindings,
  page: PageRequest,
  listAccounts: (db: Db, page: PageRequest, except: number[]) => Promise<{ total: number; rows: T[] }>,
) {
  const moving = await movesUnderWay(env);
  const notServedBy = (shard: number) => moving.filter((m) => (m.fromShard === shard || m.toShard === shard) && m.shard !== shard).map((m) => m.accountId);
  return pageEverywhere(env, page, (db, p, shard) => listAccounts(db, p, notServedBy(shard)), (a, b) => a.id - b.id);
}

/** The moves not done yet, each with the shard the directory names for its account (the one that serves it). */
async function movesUnderWay(env: Bindings): Promise<{ accountId: number; fromShard: number; toShard: number; shard: number }[]> {
  // The literal condition of directory_moves_open_idx, so the index (open moves only) answers it.
  const { results } = await env.DIRECTORY.prepare(
    `SELECT m.account_id AS accountId, m.from_shard AS fromShard, m.to_shard AS toShard, a.shard AS shard
       FROM directory_moves m INDEXED BY directory_moves_open_idx JOIN directory_accounts a ON a.id = m.account_id WHERE m.phase <> 'done'`,
  ).all<{ accountId: number; fromShard: number; toShard: number; shard: number }>();
  return results;
}

/** Where an operator's action finds its thing: the table, the column that names it, the value. */
export type Holding = { table: "orders" | "dead_letters"; column: "reference" | "id"; value: string | number };

/**
 * Runs an operator's action about a thing named by an id or reference unique across shards (a
 * parked order, a dead letter) on the shard that has it: each shard in turn until one does not
 * answer 404. In the middle of a move the thing has two copies: the action runs only where the
 * account is served (not on the copy arriving before the switch, nor the one leaving after it: a
 * write there would be lost, or refused, or make the two copies differ); found on no such shard
 * (a move stopped inside its switch), the write waits like any other of a moving account (503).
 * One indexed read per shard first.
 */
export async function onShardHolding<T>(c: Context<AppEnv>, action: () => Promise<T>, holding: Holding): Promise<T> {
  let shards = shardNumbers(c.env);
  const found = await Promise.all(
    shards.map((shard) =>
      shardBinding(c.env, shard)
        .prepare(`SELECT a.moving AS moving FROM ${holding.table} t JOIN accounts a ON a.id = t.account_id WHERE t.${holding.column} = ?`)
        .bind(holding.value)
        .first<{ moving: string | null }>(),
    ),
  );
  if (found.some((f) => f)) {
    shards = shards.filter((_, i) => found[i] && found[i].moving !== "arriving" && found[i].moving !== "leaving");
    if (shards.length === 0) throw ApiError.accountMoving();
  }
  let missing: unknown;
  for (const shard of shards) {
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

/**
 * Revokes a key by its id on every shard that holds it and may serve its account (404 when none
 * does), with one timestamp. In the middle of a move the key has two copies: before the switch the
 * old shard serves the account (frozen: the revoke is the one write the freeze lets through,
 * drizzle/0023) and the copy on the new shard is revoked too, so the switch finds it revoked (it
 * carries revocations over once more: src/shards/move.ts); after the switch the old shard's copy
 * says 'leaving' and is left to the move's delete. One read per shard, then the revoke.
 */
async function revokeKeyAnywhere<T>(
  env: Bindings,
  table: "api_keys" | "supplier_keys",
  keyId: number,
  revoke: (db: Db, key: { accountId: number; supplierId: number | null }, now: string) => Promise<T>,
  notFound: string,
): Promise<T> {
  const supplier = table === "supplier_keys" ? "k.supplier_id" : "NULL";
  const holders = await Promise.all(
    everyShard(env).map(async ({ shard, db }) => {
      const row = await shardBinding(env, shard)
        .prepare(`SELECT a.moving AS moving, k.account_id AS accountId, ${supplier} AS supplierId FROM ${table} k JOIN accounts a ON a.id = k.account_id WHERE k.id = ?`)
        .bind(keyId)
        .first<{ moving: string | null; accountId: number; supplierId: number | null }>();
      return { db, row };
    }),
  );
  const serving = holders.filter((h) => h.row && h.row.moving !== "leaving");
  if (serving.length === 0) throw ApiError.notFound(notFound);
  const now = isoMicro();
  const [result] = await Promise.all(serving.map((h) => revoke(h.db, h.row!, now)));
  return result;
}

/** An API key, revoked by the operator (revokeKeyAnywhere): `revoke` revokes it on one shard. */
export const revokeApiKeyAnywhere = <T>(env: Bindings, keyId: number, revoke: (db: Db, now: string) => Promise<T>): Promise<T> =>
  revokeKeyAnywhere(env, "api_keys", keyId, (db, _key, now) => revoke(db, now), `API key with id '${keyId}' not found`);

/** A supplier key, revoked by the operator (revokeKeyAnywhere): `revoke` revokes it on one shard. */
export const revokeSupplierKeyAnywhere = <T>(
  env: Bindings,
  keyId: number,
  revoke: (db: Db, key: { accountId: number; supplierId: number }, now: string) => Promise<T>,
): Promise<T> =>
  revokeKeyAnywhere(
    env,
    "supplier_keys",
    keyId,
    (db, key, now) => revoke(db, { accountId: key.accountId, supplierId: key.supplierId! }, now),
    `Supplier key with id '${keyId}' not found`,
  );
