// A supplier's answers are a plan (src/forwarding/answers.service.ts planAnswers): judged against the
// lines as read, the statements of one batch, and from it the results and the follow-ups. A decline's
// re-route is the journey's (src/routing/journey.ts planLeaving), in the same batch, and its follow-up
// is the order's route step. Tested here as data: planning writes nothing, the test runs the batch.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb, runBatch } from "../../src/db";
import { meteredD1 } from "../../src/db/metrics";
import { planAnswers } from "../../src/forwarding/answers.service";
import { createAccount, createOrder, orderPayload, rows } from "../helpers/factories";
import { metered, planOf } from "../helpers/statements";
import { awaitingPickup, supplierChain } from "../helpers/suppliers";
import { waitFor } from "../helpers/wait";

async function pulledLine() {
  const creds = await createAccount();
  const [a, b] = await supplierChain(creds, [{ channel: "pull" }, { channel: "pull" }]);
  const { reference } = await createOrder(creds, orderPayload({ products: [{ external_id: "mug", name: "Blue mug", quantity: 3, price: 1 }] }));
  const doc = await awaitingPickup(a.key!, reference);
  const lineId = doc.lines[0].id as number;
  const [{ order_id: orderId }] = await rows<{ order_id: number }>("SELECT order_id FROM order_lines WHERE id = ?", lineId);
  return { creds, a, b, lineId, orderId };
}

const lineNow = (lineId: number) => rows("SELECT current_status, matched_supplier_id FROM order_lines WHERE id = ?", lineId);

describe("a supplier's answers, planned", () => {
  it("a decline writes nothing until its batch runs; then the line is with the next supplier, and the follow-up is the order's route step", async () => {
    const { creds, a, b, lineId, orderId } = await pulledLine();
    const db = createDb(env.DB);
    const supplier = { id: a.supplier.id, accountId: creds.accountId, name: a.supplier.name };
    const plan = await planAnswers(db, supplier, [{ line_id: lineId, action: "decline", reason: "out of stock" }]);
    expect(await lineNow(lineId)).toEqual([{ current_status: "ruled", matched_supplier_id: a.supplier.id }]);

    expect(plan.settle(await runBatch(db, plan.statements))).toEqual({
      result: [{ lineId, status: "declined" }],
      followUps: [{ type: "route_order", orderId }],
    });
    expect(await lineNow(lineId)).toEqual([{ current_status: "ruled", matched_supplier_id: b.supplier.id }]);
    expect(await rows("SELECT routed_at IS NULL AS owed FROM orders WHERE id = ?", orderId)).toEqual([{ owed: 1 }]);
  });

  it("an acceptance has no follow-up", async () => {
    const { creds, a, lineId } = await pulledLine();
    const db = createDb(env.DB);
    const plan = await planAnswers(db, { id: a.supplier.id, accountId: creds.accountId, name: a.supplier.name }, [{ line_id: lineId, action: "accept" }]);
    expect(plan.settle(await runBatch(db, plan.statements))).toEqual({ result: [{ lineId, status: "completed" }], followUps: [] });
    expect(await lineNow(lineId)).toEqual([{ current_status: "completed", matched_supplier_id: a.supplier.id }]);
  });

  // Issue 32: with `status = …` SQLite walked dispatches_status_lease_idx through every dispatch in that
  // status, of every account (206 rows of the bench's decline), instead of looking up the one it closes.
  it("the dispatch an answer closes is looked up by its id, never walked to through its status (pulled, and manual)", async () => {
    const db = createDb(meteredD1(env.DB));
    const { creds, a, lineId } = await pulledLine();
    // A manual supplier first in line from now on: the next order waits at it (its dispatch "manual").
    const [manual] = await supplierChain(creds, [{ channel: "manual" }], { priority: 1 });
    const { reference } = await createOrder(creds, orderPayload({ products: [{ external_id: "pot", name: "Teapot", quantity: 1, price: 1 }] }));
    const manualLine = await waitFor(async () => {
      const [line] = await rows<{ id: number; dispatch_id: number | null }>(
        "SELECT l.id, l.dispatch_id FROM order_lines l JOIN orders o ON o.id = l.order_id JOIN dispatches d ON d.id = l.dispatch_id WHERE o.reference = ? AND d.status = 'manual'",
        reference,
      );
      return line ?? null;
    });
    const closing = async (supplier: { id: number; name: string }, line: number) => {
      const plan = await planAnswers(db, { id: supplier.id, accountId: creds.accountId, name: supplier.name }, [{ line_id: line, action: "ship", carrier: "PostNL", tracking_number: `T${line}` }]);
      const { metrics } = await metered(() => runBatch(db, plan.statements));
      const updates = metrics.statements.filter((st) => /^\s*UPDATE dispatches/.test(st.sql));
      return { statuses: updates.map((u) => /SET status = '(\w+)'/.exec(u.sql)?.[1]), plans: await Promise.all(updates.map(planOf)) };
    };
    const byId = ["SEARCH dispatches USING INTEGER PRIMARY KEY (rowid=?)"];
    const pulled = await closing(a.supplier, lineId);
    expect(pulled.statuses).toEqual(["acknowledged"]);
    expect(pulled.plans.map((p) => p.filter((d) => d.includes("dispatches")))).toEqual([byId]);
    const byHand = await closing(manual.supplier, manualLine.id);
    expect(byHand.statuses).toEqual(["sent"]);
    expect(byHand.plans.map((p) => p.filter((d) => d.includes("dispatches")))).toEqual([byId]);
  });
});
