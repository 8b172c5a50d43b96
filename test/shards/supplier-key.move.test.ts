// The supplier API across a move of the shop's account: a supplier key is looked up through the
// directory (cached per isolate), and an isolate whose cache still names the shard the account is
// leaving must not serve the supplier from there: the rows left behind take no writes and miss what
// was written on the new shard since the switch.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { forgetKey, locateKey } from "../../src/shards/directory";
import { sha256Hex } from "../../src/lib/crypto";
import { orderPayload } from "../helpers/factories";
import { call } from "../helpers/http";
import { accountOn, move } from "../helpers/moves";
import { answer, awaitingPickup } from "../helpers/suppliers";

/** Makes this isolate's cache say the key's account is on `shard` (as an isolate that cached it before a move). */
async function staleKeyCache(key: string, accountId: number, shard: number) {
  const hash = await sha256Hex(key);
  const row = await env.DIRECTORY.prepare("SELECT shard FROM directory_accounts WHERE id = ?").bind(accountId).first<{ shard: number }>();
  await env.DIRECTORY.prepare("UPDATE directory_accounts SET shard = ? WHERE id = ?").bind(shard, accountId).run();
  forgetKey(hash, "supplier_key", accountId);
  expect((await locateKey(env, hash, "supplier_key"))?.shard).toBe(shard);
  await env.DIRECTORY.prepare("UPDATE directory_accounts SET shard = ? WHERE id = ?").bind(row!.shard, accountId).run();
}

const listed = async (key: string, query = "") =>
  (await call("GET", `/api/v1/supplier/orders${query}`, { headers: { authorization: `Bearer ${key}` } })).json.data.map((d: { order: { reference: string } }) => d.order.reference).sort();

describe("the supplier API while the shop's account moves", () => {
  it("serves a supplier whose isolate still caches the shard the account is leaving from the new shard: what was written there since the switch, and its answers land there", async () => {
    const creds = await accountOn(0);
    const supplier = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Acme", channel: "pull" } });
    await call("POST", "/api/v1/routing-rules", { creds, body: { name: "all", conditions: [], action: { type: "assign_supplier", supplier_id: supplier.json.id } } });
    const key = (await call("POST", `/api/v1/suppliers/${supplier.json.id}/keys`, { creds, body: {} })).json.key as string;
    const before = String((await call("POST", "/api/v1/orders", { creds, body: orderPayload() })).json.reference);
    await awaitingPickup(key, before);

    // Switched to shard 1; the rows on shard 0 are not deleted yet (they take no writes).
    expect((await move(creds.accountId, { shard: 1, pause_after: "switch" })).phase).toBe("delete");
    const after = String((await call("POST", "/api/v1/orders", { creds, body: orderPayload() })).json.reference);
    const pickup = await awaitingPickup(key, after);

    await staleKeyCache(key, creds.accountId, 0);
    expect(await listed(key)).toEqual([before, after].sort());

    await staleKeyCache(key, creds.accountId, 0);
    const answered = await answer(key, [{ line_id: pickup.lines[0].id, action: "accept" }]);
    expect(answered.status, answered.text).toBe(200);
    const onShard1 = await env.SHARD_1.prepare("SELECT current_status FROM order_lines WHERE id = ?").bind(pickup.lines[0].id).first<{ current_status: string }>();
    expect([answered.json.results[0].current_status, onShard1]).toEqual(["completed", { current_status: "completed" }]);

    // And once the move has deleted the rows left behind, a stale cache finds no key there and follows too.
    await staleKeyCache(key, creds.accountId, 0);
    expect((await move(creds.accountId, { shard: 1 })).done).toBe(true);
    // The order it answered whole is no longer open (an answered pulled order is acknowledged by its
    // answer): it is among the acknowledged ones, read from the new shard as well.
    expect(await listed(key)).toEqual([before]);
    expect(await listed(key, "?status=acknowledged")).toEqual([after]);
  });
});
