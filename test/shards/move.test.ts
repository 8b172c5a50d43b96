// Moving an account between shards (src/shards/move.ts; POST /admin/v1/accounts/{id}/move): its
// rows copied with their ids, the directory switched, the old rows deleted; a write freeze
// meanwhile (503 with Retry-After); resumable from the phase the directory holds; creates running
// alongside lose nothing and duplicate nothing. Raw reads go to the shard named.
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { MOVED_TABLES } from "../../src/shards/move";
import { ADMIN, call } from "../helpers/http";
import { orderPayload } from "../helpers/factories";
import { accountOn, move } from "../helpers/moves";
import { waitFor } from "../helpers/wait";
import { WOO_BODY } from "../shops/support";

const shards = [env.DB, env.SHARD_1];

/** How many rows of the account each table holds on a shard. */
async function rowsOf(shard: number, accountId: number): Promise<Record<string, number>> {
  const db = shards[shard];
  const answers = await db.batch(MOVED_TABLES.map(({ table, scope }) => db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${scope}`).bind(accountId)));
  return Object.fromEntries(MOVED_TABLES.map(({ table }, i) => [table, (answers[i].results[0] as { n: number }).n]));
}
const none = Object.fromEntries(MOVED_TABLES.map(({ table }) => [table, 0]));

describe("moving an account to another shard", () => {
  it("takes orders in every state, with their ids and references; afterwards every endpoint works on the new shard and the old one holds none of its rows", async () => {
    const creds = await accountOn(0);
    const supplier = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Acme", channel: "pull" } });
    await call("POST", "/api/v1/routing-rules", { creds, body: { name: "all", conditions: [], action: { type: "assign_supplier", supplier_id: supplier.json.id } } });
    const key = await call("POST", `/api/v1/suppliers/${supplier.json.id}/keys`, { creds, body: { name: "portal" } });
    const supplierAuth = { authorization: `Bearer ${key.json.key}` };
    // Routed to the supplier and waiting for its pickup, one of them blocked afterwards.
    const refs: string[] = [];
    for (const overrides of [{ external_id: "move-waiting-1" }, { external_id: "move-blocked-2" }, { external_id: "move-shipped-3" }]) {
      const created = await call("POST", "/api/v1/orders", { creds, body: orderPayload(overrides) });
      expect(created.status, created.text).toBe(200);
      refs.push(String(created.json.reference));
    }
    expect((await call("POST", `/api/v1/orders/${refs[1]}/block`, { creds, body: {} })).status).toBe(200);
    await waitFor(async () => {
      const list = await call("GET", "/api/v1/supplier/orders", { headers: supplierAuth });
      return JSON.stringify(list.json).includes(refs[2]) ? list : null;
    });
    const before = await Promise.all(refs.map(async (r) => (await call("GET", `/api/v1/orders/${r}`, { creds })).json));
    const rowsBefore = await rowsOf(0, creds.accountId);
    expect(rowsBefore.orders).toBe(3);

    const done = await move(creds.accountId, { shard: 1 });
    expect(done).toEqual({
      account_id: creds.accountId, from_shard: 0, to_shard: 1, phase: "done", done: true,
      rows_copied: Object.values(rowsBefore).reduce((a, b) => a + b, 0), rows_deleted: Object.values(rowsBefore).reduce((a, b) => a + b, 0),
      started_at: expect.any(String), finished_at: expect.any(String),
    });
    expect(await rowsOf(0, creds.accountId)).toEqual(none);
    expect(await rowsOf(1, creds.accountId)).toEqual(rowsBefore);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM counters WHERE account_id = ?").bind(creds.accountId).first())?.n).toBe(0);

    // Same orders, same ids and references, read on shard 1.
    const after = await Promise.all(refs.map(async (r) => (await call("GET", `/api/v1/orders/${r}`, { creds })).json));
    expect(after).toEqual(before);
    const list = await call("GET", "/api/v1/orders?external_id=move-blocked", { creds });
    expect(list.json.data.map((o: { reference: string }) => String(o.reference))).toEqual([refs[1]]);
    expect((await call("GET", `/api/v1/suppliers/${supplier.json.id}`, { creds })).status).toBe(200);
    // The supplier's key and the shop's key work, and a new order lands on shard 1 and is routed there.
    const pickup = await call("GET", "/api/v1/supplier/orders", { headers: supplierAuth });
    expect(pickup.status, pickup.text).toBe(200);
    const fresh = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
    expect(fresh.status, fresh.text).toBe(200);
    await waitFor(async () => {
      const res = await call("GET", "/api/v1/supplier/orders", { headers: supplierAuth });
      return JSON.stringify(res.json).includes(String(fresh.json.reference)) ? res : null;
    });
    const [freshRow] = (await env.SHARD_1.prepare("SELECT id FROM orders WHERE reference = ?").bind(String(fresh.json.reference)).all<{ id: number }>()).results;
    expect(freshRow.id).toBeGreaterThanOrEqual(2 ** 40);
    expect(await rowsOf(0, creds.accountId)).toEqual(none);

    // And back to shard 0: the ids minted on shard 1 come along, and shard 0 then mints above them.
    await move(creds.accountId, { shard: 0 });
    expect(await rowsOf(1, creds.accountId)).toEqual(none);
    expect((await call("GET", `/api/v1/orders/${fresh.json.reference}`, { creds })).status).toBe(200);
    const third = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
    expect(third.status).toBe(200);
    const [thirdRow] = (await env.DB.prepare("SELECT id FROM orders WHERE reference = ?").bind(String(third.json.reference)).all<{ id: number }>()).results;
    expect(thirdRow.id).toBeGreaterThan(freshRow.id);
  });

  it("resumes after a crash between phases: stopped after the copy, writes wait with 503 and Retry-After, reads go on; the next run finishes", async () => {
    const creds = await accountOn(1);
    const created = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
    const reference = String(created.json.reference);
    const copied = await move(creds.accountId, { shard: 0, pause_after: "copy" });
    expect([copied.phase, copied.done]).toEqual(["switch", false]);
    // Copied, not switched: the account still lives on shard 1, frozen.
    expect((await rowsOf(0, creds.accountId)).orders).toBe(1);
    expect((await rowsOf(1, creds.accountId)).orders).toBe(1);
    const refused = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
    expect([refused.status, refused.json, refused.headers.get("retry-after")]).toEqual([
      503,
      { message: "Service Unavailable", error: "The account is being moved to another database; its data can be read, and writes work again in a moment." },
      "5",
    ]);
    expect((await call("GET", `/api/v1/orders/${reference}`, { creds })).status).toBe(200);
    // Another move of the same account is refused while this one is open.
    const other = await call("POST", `/admin/v1/accounts/${creds.accountId}/move`, { headers: ADMIN, body: { shard: 1 } });
    expect(other.status).toBe(409);

    const done = await move(creds.accountId, { shard: 0 });
    expect(done.done).toBe(true);
    expect(await rowsOf(1, creds.accountId)).toEqual(none);
    expect((await call("GET", `/api/v1/orders/${reference}`, { creds })).status).toBe(200);
    expect((await call("POST", "/api/v1/orders", { creds, body: orderPayload() })).status).toBe(200);
  });

  it("takes the shop connections, deleted ones too: their sealed credentials open on the new shard (bound to the account id, which the move keeps); frozen, they refuse writes", async () => {
    const creds = await accountOn(0);
    const closed = new URL(inject("closedPortUrl"));
    const kept = await call("POST", "/api/v1/shop-connections", { creds, body: { ...WOO_BODY, base_url: closed.origin, settings: { mode: "dry_run" } } });
    const gone = await call("POST", "/api/v1/shop-connections", { creds, body: WOO_BODY });
    expect((await call("DELETE", `/api/v1/shop-connections/${gone.json.id}`, { creds })).status).toBe(204);
    const rowsBefore = await rowsOf(0, creds.accountId);
    expect(rowsBefore.shop_connections).toBe(2);

    const paused = await move(creds.accountId, { shard: 1, pause_after: "copy" });
    expect(paused.phase).toBe("switch");
    const frozen = await call("PATCH", `/api/v1/shop-connections/${kept.json.id}`, { creds, body: { active: false } });
    expect([frozen.status, frozen.headers.get("retry-after")]).toEqual([503, "5"]);
    const created = await call("POST", "/api/v1/shop-connections", { creds, body: WOO_BODY });
    expect(created.status).toBe(503);
    // Past the API's check too (a request authenticated just before the freeze): the table's own trigger refuses.
    await expect(env.DB.prepare("UPDATE shop_connections SET active = 0 WHERE id = ?").bind(kept.json.id).run()).rejects.toThrow(/account_moving/);

    await move(creds.accountId, { shard: 1 });
    expect(await rowsOf(1, creds.accountId)).toEqual(rowsBefore);
    expect((await rowsOf(0, creds.accountId)).shop_connections).toBe(0);
    expect((await call("GET", "/api/v1/shop-connections", { creds })).json.data).toEqual([kept.json]);
    expect((await call("GET", `/api/v1/shop-connections/${gone.json.id}`, { creds })).status).toBe(404);
    // The credentials opened on shard 1: the test got as far as calling the shop.
    const tested = await call("POST", `/api/v1/shop-connections/${kept.json.id}/test`, { creds });
    expect(tested.json).toEqual({
      ok: false,
      checks: [{ name: "connection", ok: false, message: `The connection to ${closed.host} was refused: nothing listens on port ${closed.port} there.` }],
    });
  });

  it("keeps references unique across shards: each shard mints its own two digits, and never again one whose order moved away", async () => {
    const creds = await accountOn(0);
    const first = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
    const reference = String(first.json.reference);
    expect(reference).toMatch(/^[1-8]00\d{13}$/);
    await move(creds.accountId, { shard: 1 });
    const onOne = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
    expect(String(onOne.json.reference)).toMatch(/^[1-8]01\d{13}$/);
    // Shard 0 no longer holds the order, and refuses its reference as taken.
    const reuse = env.DB.prepare(
      `INSERT INTO orders (account_id, reference, external_id, source, test, blocked, total, first_name, last_name, address1, postcode, city, country, created_at, updated_at)
       SELECT id, ?, 'reuse', 'shop', 0, 0, 1, 'A', 'B', 'C', '1', 'D', 'NL', '2026-11-01T10:00:00.000000Z', '2026-11-01T10:00:00.000000Z' FROM accounts LIMIT 1`,
    ).bind(reference);
    await expect(reuse.run()).rejects.toThrow(/UNIQUE constraint failed: orders\.reference/);
    // Back on shard 0, the order takes its reference with it, out of retirement.
    await move(creds.accountId, { shard: 0 });
    expect((await call("GET", `/api/v1/orders/${reference}`, { creds })).status).toBe(200);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM retired_references WHERE reference = ?").bind(reference).first()).toEqual({ n: 0 });
  });

  it("under concurrent creates: each is 200 or 503 with Retry-After, and every 200 order exists exactly once, on the new shard", async () => {
    const creds = await accountOn(0);
    const answers: { status: number; reference?: string; retryAfter: string | null }[] = [];
    const createFour = async () => {
      const batch = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const res = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
          return { status: res.status, reference: res.json?.reference === undefined ? undefined : String(res.json.reference), retryAfter: res.headers.get("retry-after") };
        }),
      );
      answers.push(...batch);
    };
    await createFour(); // before
    // During: creates keep coming, four at a time, while every call of the move runs.
    let moved = false;
    const during = (async () => {
      while (!moved) await createFour();
    })();
    try {
      await move(creds.accountId, { shard: 1 });
    } finally {
      moved = true;
      await during;
    }
    await createFour(); // after
    for (const a of answers) {
      expect([200, 503]).toContain(a.status);
      if (a.status === 503) expect(a.retryAfter).toBe("5");
    }
    const accepted = answers.filter((a) => a.status === 200).map((a) => a.reference!);
    expect(accepted.length).toBeGreaterThanOrEqual(8);
    // Some creates met the freeze (the move ran between them).
    expect(answers.some((a) => a.status === 503)).toBe(true);
    console.log(`concurrent creates: ${accepted.length} accepted, ${answers.length - accepted.length} answered 503`);
    const stored = (await env.SHARD_1.prepare("SELECT reference FROM orders WHERE account_id = ?").bind(creds.accountId).all<{ reference: string }>()).results.map((r) => String(r.reference));
    expect(stored.sort()).toEqual([...accepted].sort());
    expect((await rowsOf(0, creds.accountId)).orders).toBe(0);
  });
});
