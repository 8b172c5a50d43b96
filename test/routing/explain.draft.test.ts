// Explain with a draft rule: "try it" before saving. The draft is evaluated as if saved and active,
// at its priority, in place of the saved rule it edits; nothing is written.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createAccount, createOrder, orderPayload } from "../helpers/factories";
import { call } from "../helpers/http";
import { assignTo, createRule, createSupplier } from "../helpers/routing";

describe("explain with a draft rule", () => {
  it("tries a new rule among the saved ones, and an edit of a saved one, writing nothing", async () => {
    const creds = await createAccount();
    const kitchen = await createSupplier(creds, { name: "Kitchen" });
    const mugs = await createSupplier(creds, { name: "Mugs" });
    const saved = await createRule(creds, { name: "kitchen", conditions: [{ variable: "line.category", operator: "is", value: "kitchen" }], action: assignTo(kitchen.id) });
    const payload = orderPayload();
    const rulesBefore = await env.DB.prepare("SELECT count(*) AS n, max(updated_at) AS at FROM routing_rules WHERE account_id = ?").bind(creds.accountId).first();

    // A new draft first in line wins; without a priority it goes last and the saved rule decides.
    const draft = { name: "mugs first", priority: 1, conditions: [{ variable: "line.name", operator: "contains", value: "mug" }], action: assignTo(mugs.id) };
    const first = await call("POST", "/api/v1/routing-rules/explain", { creds, body: { order: payload, rule: draft } });
    expect(first.status).toBe(200);
    expect(first.json.lines[0].decision).toMatchObject({ action: "assign_supplier", decided_by: "rule", rule_id: 0, message: "Matched to supplier Mugs by the draft rule 'mugs first'" });
    expect(first.json.lines[0].rules.map((r: { id: number; draft?: boolean; matched: boolean }) => [r.id, r.draft ?? false, r.matched])).toEqual([
      [0, true, true],
      [saved.id, false, false],
    ]);
    const last = await call("POST", "/api/v1/routing-rules/explain", { creds, body: { order: payload, rule: { ...draft, priority: undefined } } });
    expect(last.json.lines[0].decision.rule_id).toBe(saved.id);
    expect(last.json.lines[0].rules[1]).toMatchObject({ id: 0, draft: true, note: `conditions hold, but rule #${saved.id} decided first` });

    // An edit of the saved rule replaces it (keeping its priority); on a stored order too.
    const { reference } = await createOrder(creds);
    const edit = await call("POST", "/api/v1/routing-rules/explain", {
      creds,
      body: { reference, rule: { id: saved.id, name: "kitchen, edited", conditions: [{ variable: "line.brand", operator: "is", value: "mugs inc" }], action: assignTo(mugs.id) } },
    });
    expect(edit.json.lines[0].rules).toHaveLength(1);
    expect(edit.json.lines[0].decision.message).toBe(`Matched to supplier Mugs by rule #${saved.id} 'kitchen, edited'`);

    // Nothing was written.
    expect(await env.DB.prepare("SELECT count(*) AS n, max(updated_at) AS at FROM routing_rules WHERE account_id = ?").bind(creds.accountId).first()).toEqual(rulesBefore);
    expect((await call("GET", `/api/v1/routing-rules/${saved.id}`, { creds })).json.name).toBe("kitchen");
  });

  it("refuses a draft in the rule language's words, like creating it would", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/routing-rules/explain", {
      creds,
      body: { order: orderPayload(), rule: { name: "", conditions: [{ variable: "line.colour", operator: "is", value: "blue" }], action: { type: "skip" } } },
    });
    expect(res.status).toBe(422);
    expect(res.json.errors["rule.name"]).toEqual(["The rule.name field is required."]);
    expect(res.json.errors["rule.conditions.0.variable"]).toEqual([expect.stringMatching(/^The selected rule\.conditions\.0\.variable is invalid/)]);
  });
});
