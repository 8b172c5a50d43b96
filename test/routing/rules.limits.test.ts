// The routing rules' limits at their maximum and one past: 50 conditions per rule, and a reorder
// of 1000 rules (in one statement, whatever their number).
import { describe, expect, it } from "vitest";
import { createAccount, exec, rows } from "../helpers/factories";
import { call } from "../helpers/http";

describe("routing rule limits", () => {
  it("accepts 50 conditions and refuses 51", async () => {
    const creds = await createAccount();
    const conditions = (n: number) => Array.from({ length: n }, (_, i) => ({ variable: "line.name", operator: "is_not", value: `x${i}` }));
    const ok = await call("POST", "/api/v1/routing-rules", { creds, body: { name: "many", conditions: conditions(50), action: { type: "skip" } } });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json.conditions).toHaveLength(50);
    const past = await call("POST", "/api/v1/routing-rules", { creds, body: { name: "too many", conditions: conditions(51), action: { type: "skip" } } });
    expect(past.status).toBe(422);
    expect(past.json).toEqual({ message: "Errors", errors: { conditions: ["The conditions field must not have more than 50 items."] } });
  });

  it("reorders 1000 rules; 1001 ids are a 422", async () => {
    const creds = await createAccount();
    const now = new Date().toISOString();
    await exec(
      `INSERT INTO routing_rules (account_id, name, priority, match, conditions, action, active, created_at, updated_at)
       WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < 1000)
       SELECT ?, 'rule ' || n, n, 'all', '[]', '{"type":"skip"}', 1, ?, ? FROM seq`,
      creds.accountId,
      now,
      now,
    );
    const ids = (await rows<{ id: number }>("SELECT id FROM routing_rules WHERE account_id = ? ORDER BY id", creds.accountId)).map((r) => r.id);
    expect(ids).toHaveLength(1000);
    const reversed = [...ids].reverse();
    const past = await call("POST", "/api/v1/routing-rules/reorder", { creds, body: { ids: [...reversed, 999_999_999] } });
    expect(past.status).toBe(422);
    expect(past.json).toEqual({ message: "Errors", errors: { ids: ["The ids field must not have more than 1000 items."] } });

    const res = await call("POST", "/api/v1/routing-rules/reorder", { creds, body: { ids: reversed } });
    expect(res.status, res.text).toBe(200);
    const stored = await rows<{ id: number; priority: number }>("SELECT id, priority FROM routing_rules WHERE account_id = ? ORDER BY priority", creds.accountId);
    expect(stored).toEqual(reversed.map((id, i) => ({ id, priority: (i + 1) * 10 })));
  });
});
