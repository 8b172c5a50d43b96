// Nothing a client sent is stranded by a lost queue message: every action that hands an order to
// the pipeline leaves a mark the sweeper sees, written in the same batch as the action itself.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { retryFailedLines } from "../../src/forwarding/forwarding.service";
import { sweepRematches, sweepUnroutedOrders } from "../../src/pipeline/sweeper";
import { matchNow, setBlocked } from "../../src/routing/routing.service";
import { CreateRuleBody } from "../../src/routing/rules.schemas";
import { createRule, updateRule } from "../../src/routing/rules.service";
import { createAccount, createOrder, exec, orderIdOf, orderPayload, rows, seedSupplier } from "../helpers/factories";
import { received, remoteUrl } from "../helpers/fake-remote";
import { call } from "../helpers/http";
import { orderSettled, supplierWithRule } from "../helpers/suppliers";
import { losingPipeline } from "../helpers/pipeline";
import { pipelineIdle, waitFor } from "../helpers/wait";

const later = () => new Date(Date.now() + 10 * 60_000);

describe("an action whose queue message is lost", () => {
  it("unblock: the sweeper routes the order", async () => {
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, { channel: "pull" });
    const { reference } = await createOrder(creds);
    await orderSettled(creds, reference, ["ruled"]);
    const blocked = await call("POST", `/api/v1/orders/${reference}/block`, { creds });
    expect(blocked.json.blocked).toBe(true);
    // The dispatch is held back while blocked.
    await exec("UPDATE dispatches SET status = 'queued' WHERE order_id = ?", await orderIdOf(reference));

    // The unblock itself, without its queue message (a crash right after the batch).
    const pipeline = losingPipeline();
    await setBlocked(createDb(env.DB), pipeline, creds.accountId, reference, false);
    const orderId = await orderIdOf(reference);
    expect(pipeline.lost).toEqual([{ type: "route_order", orderId }]);
    expect(await sweepUnroutedOrders(env, later())).toContain(orderId);
    const [dispatch] = await waitFor(async () => {
      const d = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;
      return d[0]?.status === "awaiting_pickup" ? d : null;
    });
    expect(dispatch.supplier_id).toBe(supplier.id);
  });

  it("retry: the sweeper sends the failed lines again", async () => {
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, { channel: "webhook", webhook_url: remoteUrl("status-400") });
    const { reference } = await createOrder(creds, orderPayload({ products: [{ external_id: "a", name: "A", quantity: 1, price: 1 }] }));
    await orderSettled(creds, reference, ["failed"]);
    const goodUrl = remoteUrl("ok");
    await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { webhook_url: goodUrl } });

    // The retry itself, without its queue message.
    const pipeline = losingPipeline();
    expect((await retryFailedLines(createDb(env.DB), pipeline, creds.accountId, reference)).retried).toBe(1);
    expect(pipeline.lost).toEqual([{ type: "route_order", orderId: await orderIdOf(reference) }]);
    expect(await sweepUnroutedOrders(env, later())).toContain(await orderIdOf(reference));
    await orderSettled(creds, reference, ["completed"]);
    expect(await received(goodUrl)).toHaveLength(1);
  });

  it("match by hand: the sweeper dispatches what it matched", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    await pipelineIdle(creds.accountId);
    // A supplier the line names, inserted straight into the table (no re-match queued).
    const supplier = await seedSupplier(creds.accountId, "MugSupplier");
    await exec("UPDATE suppliers SET channel = 'pull' WHERE id = ?", supplier.id);

    // The match itself, without its queue message.
    const pipeline = losingPipeline();
    await matchNow(createDb(env.DB), pipeline, creds.accountId, reference);
    expect(pipeline.lost).toEqual([{ type: "route_order", orderId: await orderIdOf(reference) }]);
    expect((await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data).toEqual([]);
    expect(await sweepUnroutedOrders(env, later())).toContain(await orderIdOf(reference));
    await waitFor(async () => (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data[0]?.status === "awaiting_pickup");
  });

  it("a re-match after a rule change: the sweeper re-queues the request, and it is cleared once done", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    await pipelineIdle(creds.accountId);
    // A supplier straight into the table (no re-match queued), then a rule to it whose message is lost.
    const supplier = await seedSupplier(creds.accountId, "Rule target");
    const pipeline = losingPipeline();
    await createRule(createDb(env.DB), pipeline, creds.accountId, CreateRuleBody.parse({ name: "all", conditions: [], action: { type: "assign_supplier", supplier_id: supplier.id } }));
    const [mark] = await rows<{ rematch_requested_at: string }>("SELECT rematch_requested_at FROM accounts WHERE id = ?", creds.accountId);
    expect(pipeline.lost).toEqual([{ type: "rematch_account", accountId: creds.accountId, requestedAt: mark.rematch_requested_at }]);

    expect(await sweepRematches(env, later())).toContain(creds.accountId);
    await pipelineIdle(creds.accountId);
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    expect(order.order_lines[0]).toMatchObject({ current_status: "ruled", matched_supplier: { id: supplier.id, name: "Rule target" } });
    expect(await rows("SELECT rematch_requested_at FROM accounts WHERE id = ?", creds.accountId)).toEqual([{ rematch_requested_at: null }]);
    expect(await sweepRematches(env, later())).not.toContain(creds.accountId);
  });

  it("a rule change that changes nothing (an unknown rule) requests no re-match", async () => {
    const creds = await createAccount();
    const pipeline = losingPipeline();
    await expect(updateRule(createDb(env.DB), pipeline, creds.accountId, 999_999_999, { name: "nope" })).rejects.toMatchObject({ status: 404 });
    expect(pipeline.lost).toEqual([]);
    expect(await rows("SELECT rematch_requested_at FROM accounts WHERE id = ?", creds.accountId)).toEqual([{ rematch_requested_at: null }]);
  });
});
