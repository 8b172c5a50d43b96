// A return's rows during an account move (src/shards/move.ts; drizzle/0049_returns_freeze.sql):
// frozen, the API refuses a return's request and answer with a 503 as it refuses other writes, and
// past the API (a request authenticated just before the freeze) each return table's own trigger
// refuses the write; once moved, the return is read and answered on the new shard, nothing lost.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call } from "../helpers/http";
import { move } from "../helpers/moves";
import { answerReturn, requestReturn, shippedOrder } from "./support";

describe("returns during an account move", () => {
  it("frozen: the API answers 503 and every return table's trigger refuses a write; moved: the return is whole on the new shard", async () => {
    const s = await shippedOrder();
    const created = await requestReturn(s.creds, s.reference, { lines: [{ line_id: s.plate, quantity: 1, reason: "Too small" }] });
    expect(created.status, created.text).toBe(201);
    const ret = created.json.data[0];
    expect((await call("PUT", `/api/v1/suppliers/${s.plates.id}/returns-settings`, { creds: s.creds, body: { window_days: 20 } })).status).toBe(200);
    const before = (await call("GET", `/api/v1/returns/${ret.id}`, { creds: s.creds })).json;

    const paused = await move(s.creds.accountId, { shard: 1, pause_after: "copy" });
    expect(paused.phase).toBe("switch");
    const answer = await answerReturn(s.plates.key, ret.id, { action: "authorise", rma: "RMA-MOVE", return_address: "Kade 2" });
    expect([answer.status, answer.headers.get("retry-after")]).toEqual([503, "5"]);
    expect((await requestReturn(s.creds, s.reference, { lines: [{ line_id: s.mugs, quantity: 1 }] })).status).toBe(503);

    // Past the API's check: each table's own trigger.
    const db = env.DB;
    const refused = [
      db.prepare("UPDATE returns SET status = 'authorised' WHERE id = ?").bind(ret.id),
      db.prepare("DELETE FROM returns WHERE id = ?").bind(ret.id),
      db.prepare("INSERT INTO returns (account_id, order_id, supplier_id, status, request_key, created_at, updated_at) SELECT account_id, order_id, supplier_id, 'requested', 'moving-test', created_at, updated_at FROM returns WHERE id = ?").bind(ret.id),
      db.prepare("UPDATE return_lines SET received_quantity = 1 WHERE return_id = ?").bind(ret.id),
      db.prepare("INSERT INTO return_lines (return_id, account_id, order_id, order_line_id, quantity, created_at) VALUES (?, ?, ?, ?, 1, '2026-01-01T00:00:00.000000Z')").bind(ret.id, s.creds.accountId, s.orderId, s.mugs),
      db.prepare("DELETE FROM return_lines WHERE return_id = ?").bind(ret.id),
      db.prepare("INSERT INTO return_logs (return_id, status, message, actor, created_at) VALUES (?, 'requested', 'x', 'test', '2026-01-01T00:00:00.000000Z')").bind(ret.id),
      db.prepare("UPDATE return_logs SET message = 'x' WHERE return_id = ?").bind(ret.id),
      db.prepare("DELETE FROM return_logs WHERE return_id = ?").bind(ret.id),
      db.prepare("INSERT INTO return_notices (account_id, order_id, supplier_id, return_id, kind, channel, status, idempotency_key, created_at, updated_at) VALUES (?, ?, ?, ?, 'cancelled', 'webhook', 'pending', 'moving-test', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')").bind(s.creds.accountId, s.orderId, s.plates.id, ret.id),
      db.prepare("UPDATE supplier_return_settings SET window_days = 5 WHERE supplier_id = ?").bind(s.plates.id),
      db.prepare("DELETE FROM supplier_return_settings WHERE supplier_id = ?").bind(s.plates.id),
      db.prepare("INSERT INTO supplier_return_settings (supplier_id, account_id, window_days) VALUES (?, ?, 9)").bind(s.cups.id, s.creds.accountId),
    ];
    for (const statement of refused) await expect(statement.run()).rejects.toThrow(/account_moving/);

    await move(s.creds.accountId, { shard: 1 });
    expect((await call("GET", `/api/v1/returns/${ret.id}`, { creds: s.creds })).json).toEqual(before);
    const authorised = await answerReturn(s.plates.key, ret.id, { action: "authorise", rma: "RMA-MOVE", return_address: "Kade 2" });
    expect(authorised.status, authorised.text).toBe(200);
    expect(authorised.json).toMatchObject({ id: ret.id, status: "authorised", rma: "RMA-MOVE" });
  });
});
