// Deleting an account (src/shards/delete.ts; DELETE /admin/v1/accounts/{id}): it stops with the
// first answer (keys 401), then its rows go from every table the move knows, its archived objects
// from R2, its directory entries; another account on the shard is untouched; a deletion stopped in
// the middle continues on the next call; a moving account is not deleted (409), nor moved while deleted.
import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import type { PipelineMessage } from "../../src/lib/queue";
import { describe, expect, it } from "vitest";
import { describeOpenWork, openWorkOf } from "../../src/accounts/deletion.service";
import { deleteAccountArchive } from "../../src/archive/archive.service";
import { accountPrefix } from "../../src/archive/objects";
import { DELETION_IDLE_MS, deleteAccount } from "../../src/shards/delete";
import { MOVED_TABLES } from "../../src/shards/move";
import { createAccount, createOrder } from "../helpers/factories";
import { ADMIN, call, type Credentials } from "../helpers/http";
import { accountOn, move } from "../helpers/moves";
import { answered, ship } from "../helpers/shops";
import { awaitingPickup } from "../helpers/suppliers";
import { requestReturn, shippedOrder } from "../returns/support";

const shards = [env.DB, env.SHARD_1];

async function rowsOf(shard: number, accountId: number): Promise<Record<string, number>> {
  const db = shards[shard];
  const answers = await db.batch(MOVED_TABLES.map(({ table, scope }) => db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${scope}`).bind(accountId)));
  return Object.fromEntries(MOVED_TABLES.map(({ table }, i) => [table, (answers[i].results[0] as { n: number }).n]));
}
const none = Object.fromEntries(MOVED_TABLES.map(({ table }) => [table, 0]));

async function directoryRows(accountId: number) {
  const count = (sql: string) => env.DIRECTORY.prepare(sql).bind(accountId).first<{ n: number }>().then((r) => r!.n);
  return {
    accounts: await count("SELECT count(*) AS n FROM directory_accounts WHERE id = ?"),
    credentials: await count("SELECT count(*) AS n FROM directory_credentials WHERE account_id = ?"),
    suppliers: await count("SELECT count(*) AS n FROM directory_suppliers WHERE account_id = ?"),
  };
}

const objectsOf = async (accountId: number) => (await env.ARCHIVE.list({ prefix: accountPrefix(accountId) })).objects.map((o) => o.key).sort();
const remove = (accountId: number, force = false) => call("DELETE", `/admin/v1/accounts/${accountId}${force ? "?force=true" : ""}`, { headers: ADMIN });

/** Calls the delete until it is done (as `npm run admin -- accounts:delete` does); every answer. */
async function deleteAll(accountId: number, force = false) {
  const answers = [];
  for (let n = 0; n < 20; n++) {
    const res = await remove(accountId, force);
    expect(res.status, res.text).toBe(200);
    answers.push(res.json);
    if (res.json.done) return answers;
  }
  throw new Error("The deletion did not finish in 20 calls");
}

/** One message through the Worker's queue handler, as the queue delivers it; what became of it. */
async function deliver(body: PipelineMessage) {
  const batch = createMessageBatch<PipelineMessage>("order-pipeline", [{ id: "deleted-1", timestamp: new Date(), attempts: 1, body }]);
  const ctx = createExecutionContext();
  await worker.queue!(batch, env);
  return getQueueResult(batch, ctx);
}

const ordersOf = (creds: Credentials) => call("GET", "/api/v1/orders", { creds });

describe("deleting an account", () => {
  it("refuses while work is open, then with force stops the account at once and deletes its rows, archive and directory entries; another account is untouched", async () => {
    const s = await shippedOrder();
    const archived = await call("POST", `/admin/v1/accounts/${s.creds.accountId}/archive`, { headers: ADMIN, body: { older_than_days: 0 } });
    expect(archived.json).toMatchObject({ archived: 1, done: true });
    expect(await objectsOf(s.creds.accountId)).toHaveLength(1);
    // A shipped order with a return asked for, and one waiting for the pull supplier's pickup.
    const plateOnly = { products: [{ external_id: "32", name: "Red plate", reference: "PLATE-RED-L", quantity: 1, price: 20 }] };
    const returned = await createOrder(s.creds, { ...plateOnly, external_id: "del-returned" });
    await awaitingPickup(s.plates.key, returned.reference);
    const line = (await call("GET", `/api/v1/orders/${returned.reference}`, { creds: s.creds })).json.order_lines[0].id as number;
    await answered(s.plates.key, [ship(line, 1, "3SDEL1")]);
    expect((await requestReturn(s.creds, returned.reference, { lines: [{ line_id: line, quantity: 1, reason: "Broken" }] })).status).toBe(201);
    const waiting = await createOrder(s.creds, { ...plateOnly, external_id: "del-waiting" });
    await awaitingPickup(s.plates.key, waiting.reference);

    // Another account on the same shard, with an order and an object of its own.
    const other = await createAccount();
    await createOrder(other, { external_id: "other-1" });
    await env.ARCHIVE.put(`${accountPrefix(other.accountId)}2026-01-01/keep.ndjson.gz`, "x");
    const otherRows = await rowsOf(0, other.accountId);
    const otherObjects = await objectsOf(other.accountId);
    const rowsBefore = await rowsOf(0, s.creds.accountId);
    expect(rowsBefore.archived_orders).toBe(1);
    expect(rowsBefore.returns).toBe(1);

    // Open work: refused, saying what is open, and nothing changes.
    const refused = await remove(s.creds.accountId);
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual({
      message: "Conflict",
      error:
        `Account ${s.creds.accountId} still has work under way: 2 open orders, 1 open return, 1 send awaiting an answer from supplier ${s.plates.id} (${s.plates.name}). ` +
        "Nothing was deleted; delete it with force to give that work up.",
    });
    expect(await rowsOf(0, s.creds.accountId)).toEqual(rowsBefore);
    expect((await ordersOf(s.creds)).status).toBe(200);

    // With force: from the first answer on, its keys are refused.
    const first = await remove(s.creds.accountId, true);
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({
      account_id: s.creds.accountId,
      shard: 0,
      open_work: { orders: 2, returns: 1, sends: [{ supplier_id: s.plates.id, supplier_name: s.plates.name, dispatches: 1 }] },
    });
    expect((await ordersOf(s.creds)).status).toBe(401);
    expect((await call("GET", "/api/v1/supplier/orders", { headers: { authorization: `Bearer ${s.plates.key}` } })).status).toBe(401);
    expect((await call("GET", "/api/v1/supplier/orders", { headers: { authorization: `Bearer ${s.cups.key}` } })).status).toBe(401);

    const answers = first.json.done ? [first.json] : await deleteAll(s.creds.accountId, true);
    const last = answers[answers.length - 1];
    expect(last).toEqual({
      account_id: s.creds.accountId, shard: 0, phase: "done", done: true,
      // (D1's count of changes: the triggers' bookkeeping of counters and facets is in it too.)
      rows_deleted: expect.any(Number),
      objects_deleted: 1,
      open_work: first.json.open_work, started_at: first.json.started_at, finished_at: expect.any(String),
    });
    expect(last.rows_deleted).toBe(Object.values(rowsBefore).reduce((a, b) => a + b, 0));
    expect(await rowsOf(0, s.creds.accountId)).toEqual(none);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM counters WHERE account_id = ?").bind(s.creds.accountId).first())?.n).toBe(0);
    expect(await objectsOf(s.creds.accountId)).toEqual([]);
    expect(await directoryRows(s.creds.accountId)).toEqual({ accounts: 0, credentials: 0, suppliers: 0 });
    expect((await ordersOf(s.creds)).status).toBe(401);

    // The other account: every row and object as it was, its key works.
    expect(await rowsOf(0, other.accountId)).toEqual(otherRows);
    expect(await objectsOf(other.accountId)).toEqual(otherObjects);
    expect((await ordersOf(other)).status).toBe(200);

    // Deleted: a second delete answers the finished deletion; an account that never was, 404.
    const again = await remove(s.creds.accountId);
    expect([again.status, again.json]).toEqual([200, last]);
    expect((await remove(4_000_000)).status).toBe(404);
  });
});

describe("a deletion stopped in the middle, and moves", () => {
  const hooks = { openWork: openWorkOf, describe: describeOpenWork, deleteObjects: (id: number) => deleteAccountArchive(env.ARCHIVE, id, 1) };

  it("continues where a call that died left it: the account already stopped, the rest deleted by the next call", async () => {
    const creds = await accountOn(1);
    for (const id of ["crash-1", "crash-2"]) await createOrder(creds, { external_id: id });
    await env.ARCHIVE.put(`${accountPrefix(creds.accountId)}2026-01-02/a.ndjson.gz`, "x");
    // Orders that no supplier takes are parked, not finished: open work, so force.
    // A call that stops after the stop and two chunks of rows (as if its worker died there).
    const stopped = await deleteAccount(env, creds.accountId, true, hooks, 3);
    expect(stopped).toMatchObject({ phase: "rows", shard: 1 });
    expect((await ordersOf(creds)).status).toBe(401);
    expect((await rowsOf(1, creds.accountId)).orders).toBe(2);
    // A message about one of its orders (routing owed again, say) is dropped: acked, not retried, not run.
    const { id: orderId } = (await env.SHARD_1.prepare("SELECT id FROM orders WHERE account_id = ? LIMIT 1").bind(creds.accountId).first<{ id: number }>())!;
    const before = await env.SHARD_1.prepare("SELECT routed_at, routing_attempts FROM orders WHERE id = ?").bind(orderId).first();
    const dropped = await deliver({ type: "route_order", orderId, shard: 1 });
    expect([dropped.explicitAcks, dropped.retryMessages]).toEqual([["deleted-1"], []]);
    expect(await env.SHARD_1.prepare("SELECT routed_at, routing_attempts FROM orders WHERE id = ?").bind(orderId).first()).toEqual(before);
    // Moving an account being deleted is refused.
    const moving = await call("POST", `/admin/v1/accounts/${creds.accountId}/move`, { headers: ADMIN, body: { shard: 0 } });
    expect([moving.status, moving.json.error]).toEqual([409, `Account ${creds.accountId} is being deleted (rows); it cannot move.`]);

    const answers = await deleteAll(creds.accountId);
    expect(answers[answers.length - 1]).toMatchObject({ phase: "done", objects_deleted: 1 });
    expect(await rowsOf(1, creds.accountId)).toEqual(none);
    expect(await rowsOf(0, creds.accountId)).toEqual(none);
    expect(await objectsOf(creds.accountId)).toEqual([]);
    expect(await directoryRows(creds.accountId)).toEqual({ accounts: 0, credentials: 0, suppliers: 0 });
  });

  it("a deletion its CLI left half-way is carried on by the cron once nobody has advanced it for a minute, to its end", async () => {
    const creds = await accountOn(0);
    for (const id of ["left-1", "left-2"]) await createOrder(creds, { external_id: id });
    await env.ARCHIVE.put(`${accountPrefix(creds.accountId)}2026-01-03/a.ndjson.gz`, "x");
    const left = await deleteAccount(env, creds.accountId, true, hooks, 3);
    expect(left.phase).toBe("rows");
    const state = () => env.DIRECTORY.prepare("SELECT phase, updated_at FROM directory_deletions WHERE account_id = ?").bind(creds.accountId).first<{ phase: string; updated_at: string }>();
    const tick = async (at: number) => {
      const ctx = createExecutionContext();
      await worker.scheduled!(createScheduledController({ cron: "* * * * *", scheduledTime: at }), env, ctx);
      await waitOnExecutionContext(ctx);
    };
    // Advanced just now: a tick leaves it to whoever runs it.
    const before = await state();
    await tick(Date.now());
    expect(await state()).toEqual(before);
    expect((await rowsOf(0, creds.accountId)).orders).toBe(2);
    // A minute later nobody has: the ticks carry it on (the oldest idle deletion each; another
    // test's may come first) until it is done.
    for (let n = 1; n <= 10 && (await state())!.phase !== "done"; n++) await tick(Date.now() + DELETION_IDLE_MS + n * 60_000);
    expect((await state())!.phase).toBe("done");
    expect(await rowsOf(0, creds.accountId)).toEqual(none);
    expect(await objectsOf(creds.accountId)).toEqual([]);
    expect(await directoryRows(creds.accountId)).toEqual({ accounts: 0, credentials: 0, suppliers: 0 });
    // The operator's next call answers the finished deletion.
    const [answer] = await deleteAll(creds.accountId);
    expect(answer).toMatchObject({ phase: "done", done: true, objects_deleted: 1 });
  });

  it("the command and the cron at once: each goes on from the other's progress, every row is deleted and counted once", async () => {
    const creds = await accountOn(1);
    await createOrder(creds, { external_id: "both-1", products: Array.from({ length: 150 }, (_, i) => ({ external_id: `p-${i}`, name: `P ${i}`, quantity: 1, price: 1 })) });
    const stopped = await deleteAccount(env, creds.accountId, true, hooks, 1);
    expect(stopped.phase).toBe("rows");
    const held = Object.values(await rowsOf(1, creds.accountId)).reduce((a, b) => a + b, 0);
    expect(held).toBeGreaterThan(300);
    const [a, b] = await Promise.all([deleteAccount(env, creds.accountId, true, hooks), deleteAccount(env, creds.accountId, true, hooks)]);
    const [last] = await deleteAll(creds.accountId);
    expect(last).toMatchObject({ phase: "done", done: true, rows_deleted: held });
    expect([a.phase, b.phase]).toEqual(["done", "done"]);
    expect(await rowsOf(1, creds.accountId)).toEqual(none);
  });

  it("refuses to delete an account in the middle of a move (409, nothing changed); once moved, deletes it on its new shard", async () => {
    const creds = await accountOn(0);
    await createOrder(creds, { external_id: "moving-1" });
    expect((await move(creds.accountId, { shard: 1, pause_after: "freeze" })).phase).toBe("copy");
    const refused = await remove(creds.accountId, true);
    expect([refused.status, refused.json.error]).toEqual([409, `Account ${creds.accountId} is being moved to shard 1; run that move to its end first, then delete it.`]);
    await move(creds.accountId, { shard: 1 });
    expect((await ordersOf(creds)).status).toBe(200);

    const answers = await deleteAll(creds.accountId, true);
    expect(answers[answers.length - 1]).toMatchObject({ shard: 1, phase: "done" });
    expect(await rowsOf(1, creds.accountId)).toEqual(none);
    expect(await directoryRows(creds.accountId)).toEqual({ accounts: 0, credentials: 0, suppliers: 0 });
    expect((await ordersOf(creds)).status).toBe(401);
  });
});
