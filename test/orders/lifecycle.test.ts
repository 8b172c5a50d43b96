// The line state machine: the one table of allowed moves, guarded writes that log exactly once,
// and orders.completed_at kept true to the lines (seen through the completed_since filter).
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { createDb, toStatement } from "../../src/db";
import { LINE_STATUSES, type LineStatus } from "../../src/db/schema";
import { blockStatements, canMove, completionStatements, moveLinesStatements, noteLinesStatements, TransitionError, type Move } from "../../src/orders/lifecycle";
import { isoMicro } from "../../src/lib/time";
import { createAccount, createOrder, orderPayload } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { createRule, getOrder, logsOf, matchNow, waitRouted } from "../helpers/routing";

const db = createDb(env.DB);
const run = (statements: Parameters<typeof toStatement>[1][]) => env.DB.batch(statements.map((s) => toStatement(db, s)));
const CREATED = ["pending", "Order line created"];
const moveStatements = (move: Move, now: string) => moveLinesStatements([move], now);
const noteStatement = (lineId: number, orderId: number, message: string, now: string) => noteLinesStatements([{ lineId, orderId, message }], now);

/** The moves the issue and the spec describe, written out independently of the code's table. */
const ALLOWED: [LineStatus, LineStatus][] = [
  ["pending", "ruled"],
  ["pending", "skipped"],
  ["ruled", "completed"],
  ["ruled", "failed"],
  ["ruled", "pending"],
  ["ruled", "skipped"],
  // A pull-channel supplier may decline or confirm part of a line before acknowledging it.
  ["ruled", "declined"],
  ["ruled", "partially_completed"],
  ["failed", "ruled"],
  ["failed", "completed"],
  ["failed", "pending"],
  // Cancelled: a failed line never reached a supplier; the others' supplier confirmed it.
  ["failed", "skipped"],
  ["completed", "skipped"],
  ["partially_completed", "skipped"],
  ["declined", "skipped"],
  ["completed", "partially_completed"],
  ["completed", "declined"],
  ["partially_completed", "completed"],
  ["partially_completed", "declined"],
  ["declined", "pending"],
  // Re-routed to the next supplier (declined and failed lines).
  ["declined", "ruled"],
  ["skipped", "pending"],
];
const allowed = (from: LineStatus, to: LineStatus) => ALLOWED.some(([f, t]) => f === from && t === to);

describe.concurrent("the transition table", () => {
  it("allows exactly the listed moves and refuses every other one, with a TransitionError", () => {
    for (const from of LINE_STATUSES) {
      for (const to of LINE_STATUSES) {
        expect(canMove(from, to), `${from} -> ${to}`).toBe(allowed(from, to));
        const move = () => moveStatements({ lineId: 1, orderId: 1, from, to, message: "m" }, isoMicro());
        if (allowed(from, to)) expect(move).not.toThrow();
        else expect(move).toThrow(new TransitionError(`A line cannot move from ${from} to ${to}.`));
      }
    }
  });

  it("refuses the moves the routing engine must never make", () => {
    expect(canMove("pending", "completed")).toBe(false);
    expect(canMove("pending", "pending")).toBe(false);
    expect(canMove("skipped", "ruled")).toBe(false);
    expect(canMove("completed", "pending")).toBe(false);
  });
});

async function orderWithLines(creds: Credentials, lines = 1) {
  const base = orderPayload().products[0];
  const { reference } = await createOrder(creds, { products: Array.from({ length: lines }, (_, i) => ({ ...base, external_id: `l${i}` })) });
  // The queue's own run is over (routed_at set): pending with a note, and nothing else queued.
  const order = await waitRouted(creds, reference);
  return { reference, orderId: order.id as number, lineIds: order.order_lines.map((l: { id: number }) => l.id) as number[] };
}

describe.concurrent("guarded writes", () => {
  it("a move changes the status and logs once; repeating it, or a move from a status the line is not in, does nothing", async () => {
    const creds = await createAccount();
    const { reference, orderId, lineIds } = await orderWithLines(creds);
    const lineId = lineIds[0];
    // Each delivery builds its batch anew (the statements carry that batch's token), as a
    // redelivered queue message does.
    const move = () => moveStatements({ lineId, orderId, from: "pending", to: "skipped", message: "Skipped by hand" }, isoMicro());
    await run(move());
    await run(move());
    await run(moveStatements({ lineId, orderId, from: "pending", to: "ruled", message: "Should not appear" }, isoMicro()));
    const order = await getOrder(creds, reference);
    expect(order.order_lines[0].current_status).toBe("skipped");
    expect(logsOf(order.order_lines[0]).slice(2)).toEqual([["skipped", "Skipped by hand"]]);
  });

  it("a note is not repeated while it is the line's last entry", async () => {
    const creds = await createAccount();
    const { reference, orderId, lineIds } = await orderWithLines(creds);
    const now = isoMicro();
    await run([...noteStatement(lineIds[0], orderId, "Waiting for stock", now), ...noteStatement(lineIds[0], orderId, "Waiting for stock", now)]);
    await run([...noteStatement(lineIds[0], orderId, "Something else", now), ...noteStatement(lineIds[0], orderId, "Waiting for stock", now)]);
    // Within one set of changes too.
    await run(noteLinesStatements([{ lineId: lineIds[0], orderId, message: "Twice" }, { lineId: lineIds[0], orderId, message: "Twice" }], now));
    const logs = logsOf((await getOrder(creds, reference)).order_lines[0]).slice(2);
    expect(logs).toEqual([
      ["pending", "Waiting for stock"],
      ["pending", "Something else"],
      ["pending", "Waiting for stock"],
      ["pending", "Twice"],
    ]);
  });

  it("blocking logs once on every line, and only when the flag changes", async () => {
    const creds = await createAccount();
    const { reference, orderId } = await orderWithLines(creds, 3);
    await run(blockStatements(orderId, true, "Blocked for a test", isoMicro()));
    await run(blockStatements(orderId, true, "Blocked twice", isoMicro()));
    await run(blockStatements(orderId, false, "Unblocked for a test", isoMicro()));
    await run(blockStatements(orderId, false, "Unblocked twice", isoMicro()));
    const order = await getOrder(creds, reference);
    expect(order.blocked).toBe(false);
    for (const line of order.order_lines) {
      expect(logsOf(line).slice(2)).toEqual([
        ["pending", "Blocked for a test"],
        ["pending", "Unblocked for a test"],
      ]);
    }
  });
});

describe.concurrent("completed_at and the completed_since filter", () => {
  const completedSince = async (creds: Credentials, since: string) => {
    const res = await call("GET", `/api/v1/orders?completed_since=${encodeURIComponent(since)}`, { creds });
    expect(res.status).toBe(200);
    return res.json.data.map((o: { reference: string }) => o.reference);
  };

  it("is set when every line is skipped, and completed_since then finds the order", async () => {
    const creds = await createAccount();
    const rule = await createRule(creds, { name: "skip all", action: { type: "skip" } });
    const start = isoMicro();
    const base = orderPayload().products[0];
    const { reference } = await createOrder(creds, { products: [base, { ...base, external_id: "l2" }] });
    const order = await matchNow(creds, reference);
    expect(order.order_lines.map(logsOf)).toEqual([
      [CREATED, ["skipped", `Skipped by rule #${rule.id} 'skip all'`]],
      [CREATED, ["skipped", `Skipped by rule #${rule.id} 'skip all'`]],
    ]);
    expect(await completedSince(creds, start)).toEqual([reference]);
    expect(await completedSince(creds, isoMicro(new Date(Date.now() + 60_000)))).toEqual([]);
  });

  it("is not set while a line is pending or ruled", async () => {
    const creds = await createAccount();
    const supplier = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Acme" } });
    await createRule(creds, { name: "skip wrap", conditions: [{ variable: "line.name", operator: "is", value: "wrap" }], action: { type: "skip" } });
    await createRule(creds, { name: "mugs", conditions: [{ variable: "line.name", operator: "is", value: "mug" }], action: { type: "assign_supplier", supplier_id: supplier.json.id } });
    const start = isoMicro();
    const base = orderPayload().products[0];
    const waiting = await createOrder(creds, { products: [{ ...base, name: "wrap" }, { ...base, external_id: "l2", name: "other" }] });
    const ruled = await createOrder(creds, { products: [{ ...base, name: "wrap" }, { ...base, external_id: "l2", name: "mug" }] });
    expect((await matchNow(creds, waiting.reference)).order_lines.map((l: { current_status: string }) => l.current_status)).toEqual(["skipped", "pending"]);
    expect((await matchNow(creds, ruled.reference)).order_lines.map((l: { current_status: string }) => l.current_status)).toEqual(["skipped", "ruled"]);
    expect(await completedSince(creds, start)).toEqual([]);
  });

  it("is cleared when a line moves back to an open state", async () => {
    const creds = await createAccount();
    await createRule(creds, { name: "skip all", action: { type: "skip" } });
    const start = isoMicro();
    const { reference } = await createOrder(creds);
    const order = await matchNow(creds, reference);
    expect(await completedSince(creds, start)).toEqual([reference]);
    // Blocked, so that no queued run skips the line again behind our back.
    expect((await call("POST", `/api/v1/orders/${reference}/block`, { creds })).status).toBe(200);
    expect(await completedSince(creds, start)).toEqual([reference]);

    const now = isoMicro();
    await run([
      ...moveStatements({ lineId: order.order_lines[0].id, orderId: order.id, from: "skipped", to: "pending", message: "Back to pending" }, now),
      ...completionStatements([order.id], now),
    ]);
    expect(await completedSince(creds, start)).toEqual([]);
    const after = await getOrder(creds, reference);
    expect(after.updated_at).toBe(now);
    expect(logsOf(after.order_lines[0]).at(-1)).toEqual(["pending", "Back to pending"]);
  });
});
