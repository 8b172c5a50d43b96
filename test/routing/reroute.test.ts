// Re-routing: a line its supplier declines, confirms in part or cannot be sent to goes to the next
// eligible supplier (next rule, cheapest catalogue offer with stock), never one that had it, within
// the account's cap; off per account and per rule. Through the real queue, with suppliers answering
// in the supplier API (pull channel) or faked at the network edge (webhook).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { seedFeed, seedProduct } from "../helpers/catalogue-seed";
import { countsDiff } from "../helpers/counts";
import { createAccount, createOrder, orderPayload, recordEvents, rows } from "../helpers/factories";
import { remoteUrl } from "../helpers/fake-remote";
import { call, type Credentials } from "../helpers/http";
import { logsOf } from "../helpers/routing";
import { answer, awaitingPickup, supplierChain } from "../helpers/suppliers";
import { pipelineIdle, waitFor } from "../helpers/wait";

const line = (quantity = 5) => orderPayload({ products: [{ external_id: "mug", name: "Blue mug", reference: "MUG-1", quantity, price: 10 }] });
const getOrder = async (creds: Credentials, reference: string) => (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
const reroutedEvents = async (accountId: number) =>
  (await rows<{ data: string }>("SELECT data FROM events WHERE account_id = ? AND type = 'order_line.rerouted' ORDER BY created_at, rowid", accountId)).map((r) =>
    JSON.parse(r.data),
  );

async function pulledOrder(creds: Credentials, key: string, quantity = 5) {
  const { reference } = await createOrder(creds, line(quantity));
  const doc = await awaitingPickup(key, reference);
  return { reference, lineId: doc.lines[0].id as number };
}

describe("a declined line goes to the next supplier", () => {
  it("through two suppliers down to the cap: each hop logged, evented and shown by explain", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    const [a, b, c] = await supplierChain(creds, [{ channel: "pull" }, { channel: "pull" }, { channel: "pull" }]);
    const { reference, lineId } = await pulledOrder(creds, a.key!);

    const declined = await answer(a.key!, [{ line_id: lineId, action: "decline", reason: "out of stock" }]);
    // The answer shows the line as it left this supplier.
    expect(declined).toMatchObject({ status: 200, json: { results: [{ line_id: lineId, current_status: "declined" }] } });
    let order = await getOrder(creds, reference);
    expect(order.order_lines[0]).toMatchObject({ id: lineId, current_status: "ruled", matched_supplier: { id: b.supplier.id, name: b.supplier.name }, quantity: 5 });
    expect(logsOf(order.order_lines[0]).slice(-2)).toEqual([
      ["declined", `Declined by supplier ${a.supplier.name}: out of stock; routed to supplier ${b.supplier.name}`],
      ["ruled", `Matched to supplier ${b.supplier.name} by rule #${b.rule.id} '${b.rule.name}' (re-routed: supplier 2 of at most 3)`],
    ]);
    // The pipeline sends it to B; A's list no longer has it.
    await awaitingPickup(b.key!, reference);
    expect((await call("GET", "/api/v1/supplier/orders", { headers: { authorization: `Bearer ${a.key}` } })).json.data).toEqual([]);
    // A cannot answer for the line any more: it is told its decline is recorded (not who has the line now).
    expect(await answer(a.key!, [{ line_id: lineId, action: "accept" }])).toMatchObject({
      status: 409,
      json: { message: "Conflict", error: `The decline of order line ${lineId} by supplier ${a.supplier.name} is already recorded; the line cannot be given the answer 'accept'.` },
    });

    await answer(b.key!, [{ line_id: lineId, action: "decline", reason: "discontinued" }]);
    await awaitingPickup(c.key!, reference);
    const third = await answer(c.key!, [{ line_id: lineId, action: "decline", reason: "no" }]);
    expect(third.json.results).toEqual([{ line_id: lineId, current_status: "declined" }]);
    await pipelineIdle(creds.accountId);
    order = await getOrder(creds, reference);
    expect(order.order_lines).toHaveLength(1);
    expect(order.order_lines[0]).toMatchObject({ current_status: "declined", matched_supplier: { id: c.supplier.id } });
    expect(logsOf(order.order_lines[0]).at(-1)).toEqual(["declined", `Declined by supplier ${c.supplier.name}: no; not re-routed: 3 of 3 suppliers tried`]);
    // The list counts the order at C only, declined (the counters followed each hop).
    const total = async (query: string) => (await call("GET", `/api/v1/orders?${query}`, { creds })).json.meta.total;
    expect([
      await total(`supplier_ids=${a.supplier.id}`),
      await total(`supplier_ids=${b.supplier.id}`),
      await total(`supplier_ids=${c.supplier.id}`),
      await total(`supplier_ids=${a.supplier.id},${c.supplier.id}`),
      await total("statuses=declined"),
      await total("statuses=ruled"),
    ]).toEqual([0, 0, 1, 1, 1, 0]);
    expect(await countsDiff(env.DB, [creds.accountId])).toEqual({ counters: [], facets: [], fts: [] });

    const events = await reroutedEvents(creds.accountId);
    expect(events).toEqual([
      {
        order: { reference, external_id: order.external_id },
        line: { id: lineId, external_id: "mug", quantity: 5, split_from_line_id: null },
        from_supplier: { id: a.supplier.id, name: a.supplier.name },
        to_supplier: { id: b.supplier.id, name: b.supplier.name },
        cause: "declined",
        reason: `Declined by supplier ${a.supplier.name}: out of stock`,
        attempt: 2,
        max_attempts: 3,
      },
      expect.objectContaining({ from_supplier: { id: b.supplier.id, name: b.supplier.name }, to_supplier: { id: c.supplier.id, name: c.supplier.name }, attempt: 3 }),
    ]);

    const explained = await call("POST", "/api/v1/routing-rules/explain", { creds, body: { reference } });
    expect(explained.json.lines[0].reroute).toEqual({
      enabled: true,
      attempt: 3,
      max_attempts: 3,
      split_from_line_id: null,
      chain: [
        { supplier: { id: a.supplier.id, name: a.supplier.name }, outcome: "declined", reason: `Declined by supplier ${a.supplier.name}: out of stock`, line_id: lineId, at: expect.any(String) },
        { supplier: { id: b.supplier.id, name: b.supplier.name }, outcome: "declined", reason: `Declined by supplier ${b.supplier.name}: discontinued`, line_id: lineId, at: expect.any(String) },
      ],
    });
    // Explain passes over the suppliers the line already had.
    expect(explained.json.lines[0].decision.supplier).toEqual({ id: c.supplier.id, name: c.supplier.name });
    expect(explained.json.lines[0].rules[0].note).toBe(`conditions hold, but supplier ${a.supplier.name} already had this line`);
  });

  it("the cap is the account's: at 2, the second supplier's decline is final", async () => {
    const creds = await createAccount();
    const settings = await call("PATCH", "/api/v1/settings", { creds, body: { reroute_max_attempts: 2 } });
    expect(settings).toMatchObject({ status: 200, json: { reroute_enabled: true, reroute_max_attempts: 2 } });
    const [a, b] = await supplierChain(creds, [{ channel: "pull" }, { channel: "pull" }, { channel: "pull" }]);
    const { reference, lineId } = await pulledOrder(creds, a.key!);
    await answer(a.key!, [{ line_id: lineId, action: "decline", reason: "x" }]);
    await awaitingPickup(b.key!, reference);
    await answer(b.key!, [{ line_id: lineId, action: "decline", reason: "y" }]);
    const order = await getOrder(creds, reference);
    expect(order.order_lines[0].current_status).toBe("declined");
    expect(logsOf(order.order_lines[0]).at(-1)).toEqual(["declined", `Declined by supplier ${b.supplier.name}: y; not re-routed: 2 of 2 suppliers tried`]);
  });

  it("switched off for the account, or by the rule's no_reroute: today's behaviour", async () => {
    const off = await createAccount();
    expect((await call("PATCH", "/api/v1/settings", { creds: off, body: { reroute_enabled: false } })).json).toEqual({ reroute_enabled: false, reroute_max_attempts: 3, currency: "EUR", archive_after_days: 90 });
    expect((await call("GET", "/api/v1/settings", { creds: off })).json).toEqual({ reroute_enabled: false, reroute_max_attempts: 3, currency: "EUR", archive_after_days: 90 });
    const [a] = await supplierChain(off, [{ channel: "pull" }, { channel: "pull" }]);
    const first = await pulledOrder(off, a.key!);
    await answer(a.key!, [{ line_id: first.lineId, action: "decline", reason: "out of stock" }]);
    const order = await getOrder(off, first.reference);
    expect(order.order_lines[0].current_status).toBe("declined");
    expect(logsOf(order.order_lines[0]).at(-1)).toEqual(["declined", `Declined by supplier ${a.supplier.name}: out of stock`]);

    const creds = await createAccount();
    const [keep] = await supplierChain(creds, [{ channel: "pull" }], { no_reroute: true });
    await supplierChain(creds, [{ channel: "pull" }]);
    expect((await call("GET", `/api/v1/routing-rules/${keep.rule.id}`, { creds })).json.no_reroute).toBe(true);
    const second = await pulledOrder(creds, keep.key!);
    await answer(keep.key!, [{ line_id: second.lineId, action: "decline", reason: "out of stock" }]);
    const kept = await getOrder(creds, second.reference);
    expect(kept.order_lines[0].current_status).toBe("declined");
    expect(logsOf(kept.order_lines[0]).at(-1)).toEqual([
      "declined",
      `Declined by supplier ${keep.supplier.name}: out of stock; not re-routed: rule #${keep.rule.id} '${keep.rule.name}' does not re-route`,
    ]);
  });

  it("with no rule left, goes to the cheapest catalogue offer with stock", async () => {
    const creds = await createAccount();
    const [a] = await supplierChain(creds, [{ channel: "pull" }]);
    const cheapNoStock = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Cheap but out", channel: "pull" } });
    const dear = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Dear with stock", channel: "pull" } });
    const cheap = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Cheap with stock", channel: "pull" } });
    for (const [supplier, price, stock] of [[cheapNoStock.json, 1, 2], [dear.json, 9, 50], [cheap.json, 4, 50]] as const) {
      const feed = await seedFeed(creds.accountId, supplier.id);
      await seedProduct(creds.accountId, feed.id, { sku: "MUG-1", ean13: null, purchasePrice: price, stockQuantity: stock });
    }
    const { reference, lineId } = await pulledOrder(creds, a.key!);
    await answer(a.key!, [{ line_id: lineId, action: "decline", reason: "gone" }]);
    const order = await getOrder(creds, reference);
    expect(order.order_lines[0].matched_supplier).toEqual({ id: cheap.json.id, name: "Cheap with stock" });
    expect(logsOf(order.order_lines[0]).at(-1)?.[1]).toMatch(/^Matched to supplier Cheap with stock by catalogue product #\d+ \(SKU MUG-1, purchase price 4\) \(re-routed: supplier 2 of at most 3\)$/);
  });
});

describe("a partial confirmation", () => {
  it("splits the rest into a new line for the next supplier: visible, logged, summing to the quantity ordered", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    const [a, b] = await supplierChain(creds, [{ channel: "pull" }, { channel: "pull" }]);
    const { reference, lineId } = await pulledOrder(creds, a.key!, 5);
    const res = await answer(a.key!, [{ line_id: lineId, action: "partial", quantity: 3, reason: "only 3 left" }]);
    expect(res.json.results).toEqual([{ line_id: lineId, current_status: "partially_completed" }]);

    const order = await getOrder(creds, reference);
    const [kept, split] = order.order_lines;
    expect(kept).toMatchObject({ id: lineId, current_status: "partially_completed", quantity: 3, confirmed_quantity: 3, split_from_line_id: null, matched_supplier: { id: a.supplier.id } });
    expect(split).toMatchObject({
      id: expect.any(Number),
      external_id: "mug",
      name: "Blue mug",
      quantity: 2,
      price: 10,
      current_status: "ruled",
      matched_supplier: { id: b.supplier.id, name: b.supplier.name },
      confirmed_quantity: null,
      split_from_line_id: lineId,
    });
    expect(kept.quantity + split.quantity).toBe(5);
    expect(logsOf(kept).at(-1)).toEqual([
      "partially_completed",
      `Supplier ${a.supplier.name} confirmed 3 of 5: only 3 left; the other 2 go to supplier ${b.supplier.name} as a new line`,
    ]);
    expect(logsOf(split)).toEqual([
      ["pending", `Split from line #${lineId}: the 2 of 5 supplier ${a.supplier.name} did not confirm`],
      ["ruled", `Matched to supplier ${b.supplier.name} by rule #${b.rule.id} '${b.rule.name}' (re-routed: supplier 2 of at most 3)`],
    ]);
    // B gets the new line, with its own quantity.
    const doc = await awaitingPickup(b.key!, reference);
    expect(doc.lines.map((l: { id: number; quantity: number }) => [l.id, l.quantity])).toEqual([[split.id, 2]]);
    const events = await rows<{ type: string; data: string }>(
      "SELECT type, data FROM events WHERE account_id = ? AND json_extract(data, '$.line.id') = ? ORDER BY rowid",
      creds.accountId,
      split.id,
    );
    expect(events.map((e) => [e.type, JSON.parse(e.data).line])).toEqual([
      ["order_line.status_changed", { id: split.id, external_id: "mug", status: "ruled", previous_status: null, split_from_line_id: lineId }],
      ["order_line.rerouted", { id: split.id, external_id: "mug", quantity: 2, split_from_line_id: lineId }],
    ]);
    // The list shows both lines as well.
    const listed = (await call("GET", `/api/v1/orders?external_id=${order.external_id}`, { creds })).json.data[0];
    expect(listed.order_lines.map((l: { quantity: number; split_from_line_id: number | null }) => [l.quantity, l.split_from_line_id])).toEqual([
      [3, null],
      [2, lineId],
    ]);
    // The list's counts follow the split line to B (its supplier counters, and the pair A and B, kept
    // by the triggers of drizzle/0011): one order at A, one at B, one at A or B; both line states.
    const total = async (query: string) => (await call("GET", `/api/v1/orders?${query}`, { creds })).json.meta.total;
    expect([
      await total(`supplier_ids=${a.supplier.id}`),
      await total(`supplier_ids=${b.supplier.id}`),
      await total(`supplier_ids=${a.supplier.id},${b.supplier.id}`),
      await total("statuses=partially_completed"),
      await total("statuses=ruled"),
      await total("statuses=pending"),
    ]).toEqual([1, 1, 1, 1, 1, 0]);
    expect(await countsDiff(env.DB, [creds.accountId])).toEqual({ counters: [], facets: [], fts: [] });
  });
});

describe("a send that fails after the last attempt", () => {
  it("goes to the next supplier", async () => {
    const creds = await createAccount();
    const [down, b] = await supplierChain(creds, [{ channel: "webhook", webhook_url: remoteUrl("status-503") }, { channel: "pull" }]);
    const { reference } = await createOrder(creds, line());
    await awaitingPickup(b.key!, reference);
    const order = await getOrder(creds, reference);
    expect(order.order_lines[0]).toMatchObject({ current_status: "ruled", matched_supplier: { id: b.supplier.id } });
    expect(logsOf(order.order_lines[0]).slice(-3)).toEqual([
      ["failed", `Sending to supplier ${down.supplier.name} failed after 3 attempts: HTTP 503: {"error":"status 503"}; routed to supplier ${b.supplier.name}`],
      ["ruled", `Matched to supplier ${b.supplier.name} by rule #${b.rule.id} '${b.rule.name}' (re-routed: supplier 2 of at most 3)`],
      ["ruled", `Waiting for supplier ${b.supplier.name} to fetch and acknowledge the order`],
    ]);
    const dispatches = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;
    expect(dispatches.map((d: { supplier_id: number; status: string; line_ids: number[] }) => [d.supplier_id, d.status, d.line_ids])).toEqual([
      [down.supplier.id, "failed", []],
      [b.supplier.id, "awaiting_pickup", [order.order_lines[0].id]],
    ]);
  });
});

describe("two declines at once", () => {
  it("re-route the line once: one 200, the others are told the decline is already recorded", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    const [a, b] = await supplierChain(creds, [{ channel: "pull" }, { channel: "pull" }]);
    const { reference, lineId } = await pulledOrder(creds, a.key!);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => answer(a.key!, [{ line_id: lineId, action: "decline", reason: `no ${i}` }])));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 200)) {
      expect(r).toMatchObject({
        status: 409,
        json: { message: "Conflict", error: `The decline of order line ${lineId} by supplier ${a.supplier.name} is already recorded; the line cannot be given the answer 'decline'.` },
      });
    }
    await waitFor(async () => (await getOrder(creds, reference)).order_lines[0].matched_supplier?.id === b.supplier.id);
    expect(await reroutedEvents(creds.accountId)).toHaveLength(1);
    const order = await getOrder(creds, reference);
    expect(logsOf(order.order_lines[0]).filter(([status]) => status === "declined")).toHaveLength(1);
  });
});
