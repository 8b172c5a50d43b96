// The limits of ids (docs/operations.md, "Shards"), each at its maximum and one past it: account ids
// up to 2^22 − 1, id blocks up to 255, 2^32 orders per block, shards 0 to 63. At the maximum the
// order search still finds every order; past it the service refuses with a clear error and
// changes nothing. Ids at their limits would disturb every other test's shared databases: this
// file runs the real Worker over a deployment of its own (LIMITS_* in vitest.config.ts: two shards,
// a directory, a queue nobody consumes), migrated as test/setup.ts migrates the shared one.
import { applyD1Migrations, createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { idRangeStatements, shardDeclarationProblem } from "../../scripts/lib/shards.mjs";
import worker from "../../src/index";
import { shardNumbers } from "../../src/shards/shards";
import { countsDiff } from "../helpers/counts";
import { orderPayload, unique } from "../helpers/factories";
import { ADMIN, authHeaders, BASE, type Credentials } from "../helpers/http";

const BLOCK = 2 ** 40;
const MAX_ACCOUNT_ID = 2 ** 22 - 1;

const deployment = { ...env, DB: env.LIMITS_DB, SHARD_1: env.LIMITS_SHARD_1, DIRECTORY: env.LIMITS_DIRECTORY, PIPELINE: env.LIMITS_PIPELINE, OUTBOUND: env.LIMITS_PIPELINE };
const shards = [env.LIMITS_DB, env.LIMITS_SHARD_1];

/** A request to the Worker running on `on` (this file's deployment unless said), as a client sends it. */
async function call(method: string, path: string, opts: { creds?: Credentials; body?: unknown; headers?: Record<string, string>; on?: object } = {}) {
  const headers: Record<string, string> = { accept: "application/json", ...(opts.creds ? authHeaders(opts.creds) : {}), ...opts.headers };
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${BASE}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }),
    (opts.on ?? deployment) as typeof env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, text };
}

async function accountOn(shard: number): Promise<Credentials> {
  const account = await call("POST", "/admin/v1/accounts", { headers: ADMIN, body: { name: unique("limit"), shard } });
  expect(account.status, account.text).toBe(201);
  const key = await call("POST", `/admin/v1/accounts/${account.json.id}/api-keys`, { headers: ADMIN, body: {} });
  expect(key.status, key.text).toBe(201);
  return { accountId: account.json.id, apiKey: key.json.api_key };
}

async function order(creds: Credentials, overrides: Record<string, unknown> = {}) {
  const created = await call("POST", "/api/v1/orders", { creds, body: orderPayload(overrides) });
  expect(created.status, created.text).toBe(200);
  const row = await idOf(String(created.json.reference));
  return { reference: String(created.json.reference), id: row };
}

/** An order's id, on whichever shard holds it (read in SQL: it may pass 2^53 only in theory, not here). */
async function idOf(reference: string): Promise<number> {
  for (const db of shards) {
    const row = await db.prepare("SELECT id FROM orders WHERE reference = ?").bind(reference).first<{ id: number }>();
    if (row) return row.id;
  }
  throw new Error(`no order ${reference}`);
}

/** The references GET /api/v1/orders?external_id=… lists (test orders included). */
async function found(creds: Credentials, externalId: string) {
  const list = await call("GET", `/api/v1/orders?include_test=true&external_id=${encodeURIComponent(externalId)}`, { creds });
  expect(list.status, list.text).toBe(200);
  return list.json.data.map((o: { reference: string }) => String(o.reference));
}

async function move(accountId: number, shard: number) {
  for (let n = 0; n < 50; n++) {
    const res = await call("POST", `/admin/v1/accounts/${accountId}/move`, { headers: ADMIN, body: { shard } });
    if (res.status !== 200 || res.json.done) return res;
  }
  throw new Error("The move did not finish in 50 calls");
}

const directoryRows = async <T>(query: string, ...params: unknown[]) => (await env.LIMITS_DIRECTORY.prepare(query).bind(...params).all<T>()).results;

// Three accounts are left in this directory: A on shard 1, B and C on shard 0 (C the last id).
let a: Credentials;
let b: Credentials;
let c: Credentials;
const aOrders: { reference: string; id: number; externalId: string }[] = [];
const bOrders: { reference: string; id: number; externalId: string }[] = [];

beforeAll(async () => {
  for (const db of shards) await applyD1Migrations(db, env.TEST_MIGRATIONS);
  await env.LIMITS_SHARD_1.batch(idRangeStatements(1).map((s) => env.LIMITS_SHARD_1.prepare(s)));
  await applyD1Migrations(env.LIMITS_DIRECTORY, env.TEST_DIRECTORY_MIGRATIONS);
  // 190 moves into lower shards have happened: blocks 64 to 254 are given out (the directory hands
  // out the one above the highest).
  await env.LIMITS_DIRECTORY.prepare("INSERT INTO directory_id_blocks (block, shard, created_at) VALUES (254, 1, '2026-11-23T00:00:00.000000Z')").run();
  await env.LIMITS_DIRECTORY.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('directory_accounts', ?)").bind(MAX_ACCOUNT_ID - 3).run();
  a = await accountOn(1);
  b = await accountOn(0);
  c = await accountOn(0);
  for (const [creds, list] of [[a, aOrders], [b, bOrders]] as const) {
    const externalId = unique("limit-order");
    list.push({ ...(await order(creds, { external_id: externalId })), externalId });
  }
});

describe("account ids (minted by the directory: 2^22 − 1 at most)", () => {
  it("mints the last one, 2^22 − 1, whose orders the search finds; the next account is refused with 409 and never exists", async () => {
    expect([a.accountId, b.accountId, c.accountId]).toEqual([MAX_ACCOUNT_ID - 2, MAX_ACCOUNT_ID - 1, MAX_ACCOUNT_ID]);
    const externalId = unique("max-account");
    const live = await order(c, { external_id: externalId });
    const test = await order(c, { external_id: `${externalId}-test`, test: true });
    expect(await found(c, externalId)).toEqual([test.reference, live.reference]);

    const refusal = {
      message: "Conflict",
      error: "No account id is left: account ids go up to 4194303 (2^22 - 1; the order search packs them into its index), and the directory has minted them all.",
    };
    for (const body of [{ name: "one too many" }, { name: "pinned too", shard: 1 }]) {
      const refused = await call("POST", "/admin/v1/accounts", { headers: ADMIN, body });
      expect([refused.status, refused.json]).toEqual([409, refusal]);
    }
    // The operator's page says the same, as a page.
    expect(await directoryRows("SELECT id FROM directory_accounts WHERE id > ?", MAX_ACCOUNT_ID)).toEqual([]);
    for (const db of shards) expect((await db.prepare("SELECT count(*) AS n FROM accounts WHERE id > ?").bind(MAX_ACCOUNT_ID).first())?.n).toBe(0);
    const listed = await call("GET", "/admin/v1/accounts?per_page=100", { headers: ADMIN });
    expect(listed.json.data.map((x: { id: number }) => x.id)).toEqual([a.accountId, b.accountId, c.accountId]);
  });
});

describe("id blocks (shards 0 to 63 mint in their own; moves hand out 64 to 255)", () => {
  it("gives a move the last block, 255; a move needing one more is refused before it starts (409), and one needing none still runs", async () => {
    // A holds ids of block 1 and moves to shard 0, which mints in block 0: shard 0 moves on to block 255.
    const moved = await move(a.accountId, 0);
    expect([moved.status, moved.json.done]).toEqual([200, true]);
    expect(await directoryRows("SELECT block, shard FROM directory_id_blocks ORDER BY block")).toEqual([
      { block: 254, shard: 1 },
      { block: 255, shard: 0 },
    ]);
    const fresh = await order(a);
    expect(Math.floor(fresh.id / BLOCK)).toBe(255);
    expect(await found(a, aOrders[0].externalId)).toEqual([aOrders[0].reference]);
    expect(await found(a, fresh.reference.length ? (await call("GET", `/api/v1/orders/${fresh.reference}`, { creds: a })).json.external_id : "")).toEqual([fresh.reference]);

    // Back to shard 1 would need block 256: refused, and nothing about A changed.
    const refused = await call("POST", `/admin/v1/accounts/${a.accountId}/move`, { headers: ADMIN, body: { shard: 1 } });
    expect([refused.status, refused.json]).toEqual([
      409,
      {
        message: "Conflict",
        error:
          `Account ${a.accountId} cannot move to shard 1: it holds ids of block 255, not below the block shard 1 mints in (1), so the shard would need a new id block, ` +
          "and all spare blocks (64 to 255) are given out. The move was not started.",
      },
    ]);
    expect(await directoryRows("SELECT shard FROM directory_accounts WHERE id = ?", a.accountId)).toEqual([{ shard: 0 }]);
    expect(await directoryRows("SELECT phase FROM directory_moves WHERE account_id = ? ORDER BY id", a.accountId)).toEqual([{ phase: "done" }]);
    expect(await directoryRows("SELECT max(block) AS m FROM directory_id_blocks")).toEqual([{ m: 255 }]);
    expect(await env.LIMITS_DB.prepare("SELECT moving FROM accounts WHERE id = ?").bind(a.accountId).first()).toEqual({ moving: null });
    expect(await env.LIMITS_SHARD_1.prepare("SELECT count(*) AS n FROM orders WHERE account_id = ?").bind(a.accountId).first()).toEqual({ n: 0 });
    await order(a);

    // B holds ids of block 0 only: shard 1 mints above them, no new block needed.
    const bMoved = await move(b.accountId, 1);
    expect([bMoved.status, bMoved.json.done]).toEqual([200, true]);
    expect(await found(b, bOrders[0].externalId)).toEqual([bOrders[0].reference]);
    expect(Math.floor((await order(b)).id / BLOCK)).toBe(1);
  });
});

describe("orders per block (2^32: the search keeps the low 32 bits of the id's place in its block)", () => {
  // Runs after the blocks' test: shard 0 mints in block 255 by now.
  it("finds the last one (account 2^22 − 1, a test order, block 255, place 2^32 − 1: search rowid 2^63 − 1) and refuses the next with 503, creating nothing", async () => {
    const last = 255 * BLOCK + 2 ** 32 - 1;
    await env.LIMITS_DB.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'orders'").bind(last - 1).run();
    const externalId = unique("last-order");
    const created = await order(c, { external_id: externalId, test: true });
    expect(created.id).toBe(last);
    const rowid = await env.LIMITS_DB.prepare("SELECT CAST(rowid AS TEXT) AS r FROM orders_external_fts WHERE rowid = (SELECT max(rowid) FROM orders_external_fts)").first();
    expect(rowid).toEqual({ r: "9223372036854775807" });
    expect(await found(c, externalId)).toEqual([created.reference]);
    expect(await found(c, externalId.slice(0, -2))).toContain(created.reference);

    const refused = await call("POST", "/api/v1/orders", { creds: c, body: orderPayload({ external_id: `${externalId}-past` }) });
    expect([refused.status, refused.json]).toEqual([
      503,
      {
        message: "Service Unavailable",
        error:
          "This database has taken in all the orders it can (2^32 per id block); no order was created. The operator moves accounts to another shard (docs/operations.md, Shards).",
      },
    ]);
    expect(await env.LIMITS_DB.prepare("SELECT count(*) AS n FROM orders WHERE external_id = ?").bind(`${externalId}-past`).first()).toEqual({ n: 0 });
    expect(await env.LIMITS_DB.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'orders'").first()).toEqual({ seq: last });
    expect(await found(c, `${externalId}-past`)).toEqual([]);
    // What the triggers keep (counters, facets, the search index) equals the orders, on both shards.
    for (const db of shards) expect(await countsDiff(db)).toEqual({ counters: [], facets: [], fts: [] });
  });
});

describe("shards declared (DB and SHARD_1 to SHARD_63 at most, in sequence)", () => {
  const withShards = (n: number) => {
    const declared: Record<string, unknown> = { ...deployment };
    for (let i = 1; i <= n; i++) declared[`SHARD_${i}`] = env.LIMITS_SHARD_1;
    return declared as unknown as typeof env;
  };
  afterEach(() => vi.restoreAllMocks());

  it("serves a deployment of 64 shards (SHARD_63 the last) and refuses one of 65 at its first request: 503, the reason logged once", async () => {
    const sixtyFour = withShards(63);
    expect(shardNumbers(sixtyFour)).toHaveLength(64);
    expect([(await call("GET", "/health", { on: sixtyFour })).status]).toEqual([200]);

    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const sixtyFive = withShards(64);
    for (let n = 0; n < 2; n++) {
      const refused = await call("GET", "/health", { on: sixtyFive });
      expect([refused.status, refused.json]).toEqual([
        503,
        { message: "Service Unavailable", error: "The service's database configuration is refused; the operator finds the reason in the Worker's log." },
      ]);
    }
    expect(logged.mock.calls).toEqual([
      [
        JSON.stringify({
          level: "error",
          error:
            "Refused shard bindings: SHARD_64: at most 64 shards (DB and SHARD_1 to SHARD_63); ids of blocks 64 to 255 are for moves (docs/operations.md, Shards).",
        }),
      ],
    ]);
    // Nothing past the limit is ever used, by the queue and the cron either.
    expect(shardNumbers(sixtyFive)).toHaveLength(64);
  });

  it("refuses a gap and odd names as the migration command does", () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => `SHARD_${i + 1}`);
    expect(shardDeclarationProblem(["DB", "DIRECTORY", ...names(63)])).toBeNull();
    expect(shardDeclarationProblem(["DB", ...names(64)])).toBe(
      "SHARD_64: at most 64 shards (DB and SHARD_1 to SHARD_63); ids of blocks 64 to 255 are for moves (docs/operations.md, Shards).",
    );
    expect(shardDeclarationProblem(["DB", "SHARD_1", "SHARD_3"])).toBe(
      "SHARD_2 missing: shards are numbered in sequence, SHARD_1, SHARD_2, … (the ones after a gap would never be used).",
    );
    expect(shardDeclarationProblem(["DB", "SHARD_0", "SHARD_01"])).toBe("SHARD_0, SHARD_01: a shard's binding is SHARD_<n>, n from 1 to 63 without leading zeros.");
    expect(shardDeclarationProblem(["DB", "SHARD_256"])).toBe(
      "SHARD_256: at most 64 shards (DB and SHARD_1 to SHARD_63); ids of blocks 64 to 255 are for moves (docs/operations.md, Shards).",
    );
  });
});
