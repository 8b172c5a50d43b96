// Acting on one stuck line by hand: POST /api/v1/orders/{reference}/lines/{line_id}/assign (any
// active supplier of the account) and .../reroute (the next eligible supplier, as an automatic
// re-route decides). Logged with who did it, evented, shown by explain, dispatched once through the
// normal forwarding path; refused with nothing changed; two racing actions never both apply.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { countsDiff } from "../helpers/counts";
import { accountState, createAccount, createOrder, orderPayload, recordEvents, rows } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { remoteUrl, received } from "../helpers/fake-remote";
import { createRule, createSupplier, getOrder, logsOf, waitForLineStatus } from "../helpers/routing";
import { answer, awaitingPickup, supplierChain } from "../helpers/suppliers";
import { pipelineIdle } from "../helpers/wait";

const product = { external_id: "mug", name: "Blue mug", reference: "MUG-1", quantity: 2, price: 10 };
const assign = (creds: Credentials, reference: string, lineId: number | string, body: unknown) =>
  call("POST", `/api/v1/orders/${reference}/lines/${lineId}/assign`, { creds, body });
const reroute = (creds: Credentials, reference: string, lineId: number | string) => call("POST", `/api/v1/orders/${reference}/lines/${lineId}/reroute`, { creds });
const apiKeyIdOf = async (accountId: number) => (await rows<{ id: number }>("SELECT id FROM api_keys WHERE account_id = ?", accountId))[0].id;
const eventsOf = async (accountId: number, type: string) =>
  (await rows<{ data: string }>("SELECT data FROM events WHERE account_id = ? AND type = ? ORDER BY created_at, rowid", accountId, type)).map((r) => JSON.parse(r.data));
/** An event's order and line, for the one line (of quantity 2) these tests order. */
const aboutLine = (reference: string, externalId: string, lineId: number) => ({
  order: { reference, external_id: externalId },
  line: { id: lineId, external_id: "mug", quantity: 2, split_from_line_id: null },
});
const pulled = async (key: string) => (await call("GET", "/api/v1/supplier/orders", { headers: { authorization: `Bearer ${key}` } })).json.data;

/** An account that does not re-route by itself, suppliers A (with a catch-all rule), B and C on the pull channel, and a line A declined. */
async function declinedLine() {
  const creds = await createAccount();
  await recordEvents(creds.accountId);
  expect((await call("PATCH", "/api/v1/settings", { creds, body: { reroute_enabled: false } })).status).toBe(200);
  const [a, b, c] = await supplierChain(creds, [{ channel: "pull" }, { channel: "pull" }, { channel: "pull" }]);
  // Only A's rule: B and C are suppliers of the account that no rule sends to.
  for (const s of [b, c]) expect((await call("DELETE", `/api/v1/routing-rules/${s.rule.id}`, { creds })).status).toBe(204);
  const { reference } = await createOrder(creds, orderPayload({ products: [product] }));
  const doc = await awaitingPickup(a.key!, reference);
  const lineId = doc.lines[0].id as number;
  await answer(a.key!, [{ line_id: lineId, action: "decline", reason: "out of stock" }]);
  await pipelineIdle(creds.accountId);
  return { creds, a, b, c, reference, lineId, apiKeyId: await apiKeyIdOf(creds.accountId) };
}

describe("POST /api/v1/orders/{reference}/lines/{line_id}/assign", () => {
  it("sends a declined line to the supplier chosen: logged with who, evented, shown by explain, dispatched once", async () => {
    const { creds, a, b, reference, lineId, apiKeyId } = await declinedLine();
    const res = await assign(creds, reference, lineId, { supplier_id: b.supplier.id });
    expect(res.status).toBe(200);
    expect(res.json.order_lines[0]).toMatchObject({ id: lineId, current_status: "ruled", matched_supplier: { id: b.supplier.id, name: b.supplier.name } });
    expect(logsOf(res.json.order_lines[0]).slice(-2)).toEqual([
      ["declined", `Declined by supplier ${a.supplier.name}: out of stock`],
      ["ruled", `Sent to supplier ${b.supplier.name} by hand (API key #${apiKeyId})`],
    ]);

    // The normal forwarding path sends it to B, once; A no longer has it.
    const doc = await awaitingPickup(b.key!, reference);
    expect(doc.lines.map((l: { id: number }) => l.id)).toEqual([lineId]);
    await pipelineIdle(creds.accountId);
    expect((await pulled(b.key!)).filter((d: { order: { reference: string } }) => d.order.reference === reference)).toHaveLength(1);
    expect(await pulled(a.key!)).toEqual([]);
    const dispatches = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;
    expect(dispatches.map((d: { supplier_id: number; line_ids: number[] }) => [d.supplier_id, d.line_ids])).toEqual([
      [a.supplier.id, []],
      [b.supplier.id, [lineId]],
    ]);

    const order = await getOrder(creds, reference);
    expect(await eventsOf(creds.accountId, "order_line.assigned")).toEqual([
      {
        ...aboutLine(reference, order.external_id, lineId),
        from_supplier: { id: a.supplier.id, name: a.supplier.name },
        to_supplier: { id: b.supplier.id, name: b.supplier.name },
        by: { channel: "api", api_key_id: apiKeyId, session_id: null },
      },
    ]);
    const explained = (await call("POST", "/api/v1/routing-rules/explain", { creds, body: { reference } })).json.lines[0];
    expect(explained.manual_decision).toEqual({
      supplier: { id: b.supplier.id, name: b.supplier.name },
      by: { channel: "api", api_key_id: apiKeyId, session_id: null },
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // A is in the line's chain, as an automatic re-route records it.
    expect(explained.reroute.chain).toEqual([
      { supplier: { id: a.supplier.id, name: a.supplier.name }, outcome: "declined", reason: `Declined by supplier ${a.supplier.name}: out of stock`, line_id: lineId, at: expect.any(String) },
    ]);

    // The list's counters and facets followed the move (kept by triggers).
    expect(await countsDiff(env.DB, [creds.accountId])).toEqual({ counters: [], facets: [], fts: [] });

    // Now ruled with B: a second assignment is refused, nothing changed.
    const before = await accountState(creds.accountId)();
    expect(await assign(creds, reference, lineId, { supplier_id: a.supplier.id })).toMatchObject({
      status: 409,
      json: { message: "Conflict", error: `Order line ${lineId} is ruled; only pending, failed or declined lines, or the rest of a partly confirmed line, can be sent to a supplier by hand.` },
    });
    expect(await accountState(creds.accountId)()).toBe(before);
  });

  it("sends a failed line to a webhook supplier: its dispatch goes out once, the failed one stays as it was", async () => {
    const creds = await createAccount();
    expect((await call("PATCH", "/api/v1/settings", { creds, body: { reroute_enabled: false } })).status).toBe(200);
    const [refusing] = await supplierChain(creds, [{ channel: "webhook", webhook_url: remoteUrl("status-400") }]);
    const url = remoteUrl("ok");
    const accepting = await createSupplier(creds, { channel: "webhook", webhook_url: url });
    const { reference } = await createOrder(creds, orderPayload({ products: [product] }));
    const failed = await waitForLineStatus(creds, reference, "failed");
    const lineId = failed.order_lines[0].id;
    await pipelineIdle(creds.accountId);

    expect((await assign(creds, reference, lineId, { supplier_id: accepting.id })).status).toBe(200);
    const order = await waitForLineStatus(creds, reference, "completed");
    await pipelineIdle(creds.accountId);
    expect(logsOf(order.order_lines[0]).slice(-2)).toEqual([
      ["ruled", `Sent to supplier ${accepting.name} by hand (API key #${await apiKeyIdOf(creds.accountId)})`],
      ["completed", "Successfully sent to supplier"],
    ]);
    const sent = await received(url);
    expect(sent.map((r) => JSON.parse(r.body).lines.map((l: { id: number }) => l.id))).toEqual([[lineId]]);
    const dispatches = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;
    expect(dispatches.map((d: { supplier_id: number; status: string; line_ids: number[] }) => [d.supplier_id, d.status, d.line_ids])).toEqual([
      [refusing.supplier.id, "failed", []],
      [accepting.id, "sent", [lineId]],
    ]);
    // Retrying the order's failed lines finds none: the failed dispatch is not sent again.
    expect((await call("POST", `/api/v1/orders/${reference}/retry`, { creds })).status).toBe(200);
    await pipelineIdle(creds.accountId);
    expect(await received(url)).toHaveLength(1);
  });

  it("sends an unmatched (pending) line to a supplier: from_supplier null", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    const supplier = await createSupplier(creds, { channel: "manual" });
    const { reference } = await createOrder(creds, orderPayload({ products: [product] }));
    const lineId = (await getOrder(creds, reference)).order_lines[0].id;
    await pipelineIdle(creds.accountId);
    const res = await assign(creds, reference, lineId, { supplier_id: supplier.id });
    expect(res.status).toBe(200);
    expect(res.json.order_lines[0]).toMatchObject({ current_status: "ruled", matched_supplier: { id: supplier.id, name: supplier.name } });
    const [event] = await eventsOf(creds.accountId, "order_line.assigned");
    expect([event.from_supplier, event.to_supplier]).toEqual([null, { id: supplier.id, name: supplier.name }]);
    await pipelineIdle(creds.accountId);
    const dispatches = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;
    expect(dispatches.map((d: { supplier_id: number; status: string; line_ids: number[] }) => [d.supplier_id, d.status, d.line_ids])).toEqual([[supplier.id, "manual", [lineId]]]);
  });

  it("refuses, changing nothing: another account's or an inactive supplier (422), a missing one, unknown order or line (404), a skipped or shipped line (409), a blocked order (409)", async () => {
    const { creds, a, b, reference, lineId } = await declinedLine();
    const stranger = await createAccount();
    const theirs = await createSupplier(stranger, {});
    const inactive = await createSupplier(creds, { active: false });
    const other = await createOrder(creds, orderPayload({ products: [product] }));
    const state = accountState(creds.accountId);
    const before = await state();

    expect(await assign(creds, reference, lineId, { supplier_id: theirs.id })).toMatchObject({
      status: 422,
      json: { message: "Errors", errors: { supplier_id: ["The selected supplier_id is invalid."] } },
    });
    expect(await assign(creds, reference, lineId, { supplier_id: inactive.id })).toMatchObject({
      status: 422,
      json: { message: "Errors", errors: { supplier_id: [`Supplier ${inactive.name} is inactive; choose an active supplier.`] } },
    });
    expect(await assign(creds, reference, lineId, {})).toMatchObject({ status: 422, json: { message: "Errors", errors: { supplier_id: ["The supplier_id field is required."] } } });
    expect(await assign(creds, "999999999999", lineId, { supplier_id: b.supplier.id })).toMatchObject({
      status: 404,
      json: { message: "Not Found", error: "Order with reference '999999999999' not found" },
    });
    // A line of another order is not found, exactly like an unknown one (and a malformed id).
    expect(await assign(creds, other.reference, lineId, { supplier_id: b.supplier.id })).toMatchObject({
      status: 404,
      json: { message: "Not Found", error: `Order line with id '${lineId}' not found` },
    });
    expect(await assign(creds, reference, "x1", { supplier_id: b.supplier.id })).toMatchObject({ status: 404, json: { error: "Order line with id 'x1' not found" } });
    // Another account cannot reach this order at all.
    expect((await assign(stranger, reference, lineId, { supplier_id: theirs.id })).status).toBe(404);
    // A blocked order.
    expect((await call("POST", `/api/v1/orders/${reference}/block`, { creds })).status).toBe(200);
    const blocked = await state();
    expect(await assign(creds, reference, lineId, { supplier_id: b.supplier.id })).toMatchObject({
      status: 409,
      json: { message: "Conflict", error: `Order ${reference} is blocked; unblock it first.` },
    });
    expect(await reroute(creds, reference, lineId)).toMatchObject({ status: 409, json: { error: `Order ${reference} is blocked; unblock it first.` } });
    expect(await state()).toBe(blocked);
    expect(before).not.toBe(blocked);

    // Skipped (cancelled) and shipped lines.
    const skipRule = await createRule(creds, { priority: 1, action: { type: "skip" } });
    const skipped = await createOrder(creds, orderPayload({ products: [product] }));
    await pipelineIdle(creds.accountId);
    const skippedLine = (await getOrder(creds, skipped.reference)).order_lines[0];
    expect(skippedLine.current_status).toBe("skipped");
    expect((await call("DELETE", `/api/v1/routing-rules/${skipRule.id}`, { creds })).status).toBe(204);
    const shipped = await createOrder(creds, orderPayload({ products: [product] }));
    const doc = await awaitingPickup(a.key!, shipped.reference);
    await answer(a.key!, [{ line_id: doc.lines[0].id, action: "ship", carrier: "PostNL", tracking_number: "3S1" }]);
    await pipelineIdle(creds.accountId);
    const settled = await state();
    expect(await assign(creds, skipped.reference, skippedLine.id, { supplier_id: b.supplier.id })).toMatchObject({
      status: 409,
      json: { message: "Conflict", error: `Order line ${skippedLine.id} is skipped; only pending, failed or declined lines, or the rest of a partly confirmed line, can be sent to a supplier by hand.` },
    });
    expect(await assign(creds, shipped.reference, doc.lines[0].id, { supplier_id: b.supplier.id })).toMatchObject({
      status: 409,
      json: { message: "Conflict", error: `Order line ${doc.lines[0].id} is completed; only pending, failed or declined lines, or the rest of a partly confirmed line, can be sent to a supplier by hand.` },
    });
    expect(await reroute(creds, shipped.reference, doc.lines[0].id)).toMatchObject({
      status: 409,
      json: { message: "Conflict", error: `Order line ${doc.lines[0].id} is completed; only failed or declined lines, or the rest of a partly confirmed line, can be re-routed.` },
    });
    expect(await state()).toBe(settled);
  });

  it("the supplier_id limits: 1 to 10^15, one past is a 422", async () => {
    const { creds, reference, lineId } = await declinedLine();
    expect(await assign(creds, reference, lineId, { supplier_id: 1e15 })).toMatchObject({ status: 422, json: { errors: { supplier_id: ["The selected supplier_id is invalid."] } } });
    expect(await assign(creds, reference, lineId, { supplier_id: 1e15 + 1 })).toMatchObject({ status: 422, json: { errors: { supplier_id: ["The supplier_id field must not be greater than 1000000000000000."] } } });
    expect(await assign(creds, reference, lineId, { supplier_id: 0 })).toMatchObject({ status: 422, json: { errors: { supplier_id: ["The supplier_id field must be at least 1."] } } });
  });
});

describe("POST /api/v1/orders/{reference}/lines/{line_id}/reroute", () => {
  it("re-routes a declined line to the next eligible supplier by the rules, even with automatic re-routing off; logged, evented", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    expect((await call("PATCH", "/api/v1/settings", { creds, body: { reroute_enabled: false, reroute_max_attempts: 2 } })).status).toBe(200);
    const [a, b] = await supplierChain(creds, [{ channel: "pull" }, { channel: "pull" }]);
    const { reference } = await createOrder(creds, orderPayload({ products: [product] }));
    const lineId = (await awaitingPickup(a.key!, reference)).lines[0].id as number;
    await answer(a.key!, [{ line_id: lineId, action: "decline", reason: "out of stock" }]);
    await pipelineIdle(creds.accountId);
    const apiKeyId = await apiKeyIdOf(creds.accountId);

    const res = await reroute(creds, reference, lineId);
    expect(res.status).toBe(200);
    expect(res.json.order_lines[0]).toMatchObject({ id: lineId, current_status: "ruled", matched_supplier: { id: b.supplier.id, name: b.supplier.name } });
    expect(logsOf(res.json.order_lines[0]).slice(-2)).toEqual([
      ["declined", `Declined by supplier ${a.supplier.name}: out of stock`],
      ["ruled", `Re-routed by hand (API key #${apiKeyId}): Matched to supplier ${b.supplier.name} by rule #${b.rule.id} '${b.rule.name}' (re-routed: supplier 2 of at most 2)`],
    ]);
    const order = await getOrder(creds, reference);
    expect(await eventsOf(creds.accountId, "order_line.rerouted")).toEqual([
      {
        ...aboutLine(reference, order.external_id, lineId),
        from_supplier: { id: a.supplier.id, name: a.supplier.name },
        to_supplier: { id: b.supplier.id, name: b.supplier.name },
        cause: "declined",
        reason: `Declined by supplier ${a.supplier.name}: out of stock`,
        attempt: 2,
        max_attempts: 2,
      },
    ]);
    await awaitingPickup(b.key!, reference);

    // B declines too: the cap (2) is reached, the re-route is refused and changes nothing.
    await answer(b.key!, [{ line_id: lineId, action: "decline", reason: "no" }]);
    await pipelineIdle(creds.accountId);
    const before = await accountState(creds.accountId)();
    expect(await reroute(creds, reference, lineId)).toMatchObject({
      status: 409,
      json: { message: "Conflict", error: `Order line ${lineId} cannot be re-routed: 2 of 2 suppliers tried. Send it to a supplier by hand instead.` },
    });
    // With room under the cap but no other supplier: said so.
    expect((await call("PATCH", "/api/v1/settings", { creds, body: { reroute_max_attempts: 3 } })).status).toBe(200);
    const room = await accountState(creds.accountId)();
    expect(await reroute(creds, reference, lineId)).toMatchObject({
      status: 409,
      json: { message: "Conflict", error: `Order line ${lineId} cannot be re-routed: no other supplier can take it. Send it to a supplier by hand instead.` },
    });
    expect(await accountState(creds.accountId)()).toBe(room);
    expect(room).toBe(before);
  });

  it("refuses a pending line (no supplier let it go) and unknown lines", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds, orderPayload({ products: [product] }));
    const lineId = (await getOrder(creds, reference)).order_lines[0].id;
    await pipelineIdle(creds.accountId);
    const before = await accountState(creds.accountId)();
    expect(await reroute(creds, reference, lineId)).toMatchObject({
      status: 409,
      json: { message: "Conflict", error: `Order line ${lineId} is pending; only failed or declined lines, or the rest of a partly confirmed line, can be re-routed.` },
    });
    expect(await reroute(creds, reference, lineId + 1_000_000)).toMatchObject({ status: 404, json: { message: "Not Found", error: `Order line with id '${lineId + 1_000_000}' not found` } });
    expect(await accountState(creds.accountId)()).toBe(before);
  });
});

describe("two racing actions on one line", () => {
  it("never both apply: two assignments, or an assignment and a re-route, at once", async () => {
    const { creds, b, c, reference, lineId } = await declinedLine();
    const results = await Promise.all([assign(creds, reference, lineId, { supplier_id: b.supplier.id }), assign(creds, reference, lineId, { supplier_id: c.supplier.id })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const loser = results.find((r) => r.status === 409)!;
    expect(loser.json).toEqual({ message: "Conflict", error: `Order line ${lineId} is ruled; only pending, failed or declined lines, or the rest of a partly confirmed line, can be sent to a supplier by hand.` });
    const order = await getOrder(creds, reference);
    expect(logsOf(order.order_lines[0]).filter(([, m]) => m.startsWith("Sent to supplier"))).toHaveLength(1);
    expect(await eventsOf(creds.accountId, "order_line.assigned")).toHaveLength(1);

    // A re-route and an assignment of another declined line.
    const second = await declinedLine();
    expect((await call("POST", `/api/v1/routing-rules`, { creds: second.creds, body: { name: "to B", conditions: [], priority: 500, action: { type: "assign_supplier", supplier_id: second.b.supplier.id } } })).status).toBe(201);
    const raced = await Promise.all([reroute(second.creds, second.reference, second.lineId), assign(second.creds, second.reference, second.lineId, { supplier_id: second.c.supplier.id })]);
    expect(raced.map((r) => r.status).sort()).toEqual([200, 409]);
    const lines = (await getOrder(second.creds, second.reference)).order_lines;
    expect(lines).toHaveLength(1);
    expect(logsOf(lines[0]).filter(([, m]) => m.startsWith("Sent to supplier") || m.startsWith("Re-routed by hand"))).toHaveLength(1);
  });
});
