// A move stopped between its phases (pause_after, as a crash leaves it): the account is listed
// once, on the shard the directory names, and a revoke reaches the copy that serves the account
// and takes effect at once, and stays revoked once the move is done; an operator's replay runs
// only where the account is served (src/shards/accounts.ts).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orderPayload } from "../helpers/factories";
import { ADMIN, call, type Credentials } from "../helpers/http";
import { accountOn, move } from "../helpers/moves";
import { waitFor } from "../helpers/wait";

const shards = [env.DB, env.SHARD_1];

/** The operator's list page that holds the account (one per page), as the client sees it. */
async function listPageOf(accountId: number) {
  const ids: number[] = [];
  for (let page = 1; ; page++) {
    const res = await call("GET", `/admin/v1/accounts?per_page=100&page=${page}`, { headers: ADMIN });
    expect(res.status, res.text).toBe(200);
    ids.push(...res.json.data.map((a: { id: number }) => a.id));
    if (res.json.data.length < 100) break;
  }
  const res = await call("GET", `/admin/v1/accounts?per_page=1&page=${ids.indexOf(accountId) + 1}`, { headers: ADMIN });
  return { ids, page: res.json };
}

const supplierKeyOf = async (creds: Credentials) => {
  const supplier = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Paused", channel: "pull" } });
  const key = await call("POST", `/api/v1/suppliers/${supplier.json.id}/keys`, { creds, body: { name: "portal" } });
  expect(key.status, key.text).toBe(201);
  return { id: key.json.id, path: `/api/v1/suppliers/${supplier.json.id}/keys/${key.json.id}`, auth: { authorization: `Bearer ${key.json.key}` } };
};

const revoked = { message: "Unauthorized", error: "The api-key header holds a revoked key." };

describe("a move paused between its phases", () => {
  for (const [from, to] of [
    [0, 1],
    [1, 0],
  ]) {
    for (const [pauseAfter, phase, serving] of [
      ["freeze", "copy", from],
      ["copy", "switch", from],
      ["switch", "delete", to],
    ] as const) {
      it(`shard ${from} to ${to}, paused after the ${pauseAfter}: lists the account once, on shard ${serving}, and an operator's revoke refuses the key at once`, async () => {
        const creds = await accountOn(from);
        const supplierKey = await supplierKeyOf(creds);
        const [key] = (await call("GET", `/admin/v1/accounts/${creds.accountId}/api-keys`, { headers: ADMIN })).json.data;
        const before = await listPageOf(creds.accountId);
        expect(before.page.data).toEqual([{ id: creds.accountId, name: expect.any(String), created_at: expect.any(String), active_api_keys: 1, shard: from }]);

        expect((await move(creds.accountId, { shard: to, pause_after: pauseAfter })).phase).toBe(phase);
        const paused = await listPageOf(creds.accountId);
        expect(paused.ids).toEqual([...new Set(paused.ids)]);
        expect(paused.page.meta.total).toBe(paused.ids.length);
        expect(paused.page).toEqual({ ...before.page, data: [{ ...before.page.data[0], shard: serving }] });

        // The shop's own revoke of a supplier key is a write: it waits while the account is frozen,
        // and takes effect at once after the switch.
        const supplierRevoke = await call("DELETE", supplierKey.path, { creds });
        if (phase === "delete") {
          expect(supplierRevoke.status, supplierRevoke.text).toBe(204);
          const refused = await call("GET", "/api/v1/supplier/orders", { headers: supplierKey.auth });
          expect([refused.status, refused.json]).toEqual([401, { message: "Unauthorized", error: "The supplier key is invalid or revoked." }]);
        } else {
          expect([supplierRevoke.status, supplierRevoke.headers.get("retry-after")]).toEqual([503, "5"]);
          expect((await call("GET", "/api/v1/supplier/orders", { headers: supplierKey.auth })).status).toBe(200);
          // The operator's revoke of it does not wait.
          const byOperator = await call("DELETE", `/admin/v1/supplier-keys/${supplierKey.id}`, { headers: ADMIN });
          expect([byOperator.status, byOperator.text]).toEqual([204, ""]);
          const refused = await call("GET", "/api/v1/supplier/orders", { headers: supplierKey.auth });
          expect([refused.status, refused.json]).toEqual([401, { message: "Unauthorized", error: "The supplier key is invalid or revoked." }]);
        }

        expect((await call("GET", "/api/v1", { creds })).status).toBe(200);
        const revoke = await call("DELETE", `/admin/v1/api-keys/${key.id}`, { headers: ADMIN });
        expect([revoke.status, revoke.text]).toEqual([204, ""]);
        const refused = await call("GET", "/api/v1", { creds });
        expect([refused.status, refused.json]).toEqual([401, revoked]);
        const keys = await call("GET", `/admin/v1/accounts/${creds.accountId}/api-keys`, { headers: ADMIN });
        expect(keys.json.data).toEqual([{ ...key, revoked_at: expect.any(String) }]);

        // The move goes on to its end: the key stays revoked on the new shard, the account is listed there.
        expect((await move(creds.accountId, { shard: to })).done).toBe(true);
        const after = await call("GET", "/api/v1", { creds });
        expect([after.status, after.json]).toEqual([401, revoked]);
        expect((await call("GET", "/api/v1/supplier/orders", { headers: supplierKey.auth })).status).toBe(401);
        expect((await call("GET", `/admin/v1/accounts/${creds.accountId}/api-keys`, { headers: ADMIN })).json.data).toEqual(keys.json.data);
        const done = await listPageOf(creds.accountId);
        expect(done.page).toEqual({ ...before.page, data: [{ ...before.page.data[0], active_api_keys: 0, shard: to }] });
      });
    }
  }
});

/** A routed order of the account, parked on its shard as too many failed attempts leave it. */
async function parkedOrder(creds: Credentials, shard: number) {
  const created = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
  const reference = String(created.json.reference);
  const db = shards[shard];
  await waitFor(async () => (await db.prepare("SELECT routed_at FROM orders WHERE reference = ?").bind(reference).first<{ routed_at: string | null }>())?.routed_at);
  await db.prepare("UPDATE orders SET parked_at = ?, routing_attempts = 20, routing_error = 'broken' WHERE reference = ?").bind("2026-11-20T10:00:00.000000Z", reference).run();
  return reference;
}

const parkedOn = async (shard: number, reference: string) =>
  shards[shard].prepare("SELECT parked_at, routing_attempts FROM orders WHERE reference = ?").bind(reference).first();

describe("an operator's replay of a parked order during a paused move", () => {
  it("after the switch: runs on the new shard at once (the old copy is leaving)", async () => {
    const creds = await accountOn(0);
    const reference = await parkedOrder(creds, 0);
    expect((await move(creds.accountId, { shard: 1, pause_after: "switch" })).phase).toBe("delete");
    const replayed = await call("POST", `/admin/v1/parked-orders/${reference}/replay`, { headers: ADMIN });
    expect([replayed.status, replayed.json.reference]).toEqual([200, reference]);
    expect(await parkedOn(1, reference)).toEqual({ parked_at: null, routing_attempts: 0 });
    expect((await move(creds.accountId, { shard: 1 })).done).toBe(true);
  });

  it("before the switch: waits (503 with Retry-After) instead of writing the copy, and the move still ends; then it runs", async () => {
    const creds = await accountOn(1);
    const reference = await parkedOrder(creds, 1);
    expect((await move(creds.accountId, { shard: 0, pause_after: "copy" })).phase).toBe("switch");
    const refused = await call("POST", `/admin/v1/parked-orders/${reference}/replay`, { headers: ADMIN });
    expect([refused.status, refused.json, refused.headers.get("retry-after")]).toEqual([
      503,
      { message: "Service Unavailable", error: "The account is being moved to another database; its data can be read, and writes work again in a moment." },
      "5",
    ]);
    expect(await parkedOn(0, reference)).toEqual({ parked_at: "2026-11-20T10:00:00.000000Z", routing_attempts: 20 });
    expect((await move(creds.accountId, { shard: 0 })).done).toBe(true);
    const replayed = await call("POST", `/admin/v1/parked-orders/${reference}/replay`, { headers: ADMIN });
    expect([replayed.status, replayed.json.reference]).toEqual([200, reference]);
    expect(await parkedOn(0, reference)).toEqual({ parked_at: null, routing_attempts: 0 });
  });
});
