// Routing never waits on an outside system: work that calls a shop or a supplier travels on the
// outbound queue, with batches of its own (src/lib/queue.ts OUTBOUND_TYPES), so an order created
// while a stock-sync page hangs on the shop is routed while that call still waits for its answer.
// The stand-in shop holds the request until the test releases it; the test waits for the order to
// be routed first, then asks the stand-in whether the Worker was still waiting on the call.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { PipelineMessage } from "../../src/lib/queue";
import { createAccount, createOrder, isoNow, rows } from "../helpers/factories";
import { call } from "../helpers/http";
import { assignTo, createRule, createSupplier, waitRouted } from "../helpers/routing";
import { STOCK_ON, syncsEnded, wooShop } from "../helpers/stock";
import { heldRequest, injectFault, releaseHeld } from "../shops/stand-ins/client";
import { sweepStuckDispatches } from "../../src/pipeline/sweeper";
import { exec, orderPayload, seedSupplier } from "../helpers/factories";
import { received, remoteUrl } from "../helpers/fake-remote";
import { authHeaders } from "../helpers/http";
import { benchEnv, consume, request } from "../helpers/metered-app";
import { seedRule } from "../helpers/routing";

describe("the outbound queue: routing never waits on a shop", () => {
  it("an order created while a stock-sync page hangs on the shop is routed before the shop answers", async () => {
    const creds = await createAccount();
    const supplier = await createSupplier(creds);
    await createRule(creds, { action: assignTo(supplier.id) });
    const { shop, connectionId } = await wooShop(creds, [{ id: 1, sku: "MUG-BLUE" }], STOCK_ON);
    await injectFault(shop, { hold: true });
    expect((await call("POST", `/api/v1/shop-connections/${connectionId}/stock-syncs`, { creds })).status).toBe(202);
    // The sync's first call to the shop is out and held.
    const held = await heldRequest(shop);
    expect(held.abandoned).toBe(false);

    const { reference } = await createOrder(creds);
    const order = await waitRouted(creds, reference);
    expect(order.order_lines.map((l: { current_status: string }) => l.current_status)).toEqual(["ruled"]);

    // Routed while the Worker still waited on the shop: the held call had not been given up on.
    expect(await releaseHeld(shop)).toEqual({ held: [{ path: held.path, abandoned: false }] });
    const [sync] = await syncsEnded(creds, connectionId);
    expect(sync.status).toBe("succeeded");
  });
});

describe("the order pipeline queue after the split", () => {
  it("still handles an outside call sent on it before the outbound queue existed: a stock-sync page runs", async () => {
    const creds = await createAccount();
    const { connectionId } = await wooShop(creds, [{ id: 1, sku: "MUG-BLUE" }], STOCK_ON);
    // A sync queued as the API queues one, and its message on the old queue, as a deploy finds it.
    const [{ id: syncId }] = await rows<{ id: number }>(
      `INSERT INTO stock_syncs (account_id, connection_id, status, "trigger", created_at) VALUES (?, ?, 'queued', 'manual', ?) RETURNING id`,
      creds.accountId,
      connectionId,
      isoNow(),
    );
    await env.PIPELINE.send({ type: "stock_sync", syncId } satisfies PipelineMessage, { contentType: "json" });
    const [sync] = await syncsEnded(creds, connectionId);
    expect([sync.id, sync.status]).toEqual([syncId, "succeeded"]);
  });
});

/**
 * An order to one webhook supplier at `scenario` of the fake remote, created and routed through
 * the route step with the queues captured: the route step's follow-ups are returned, not run.
 */
async function routedToWebhook(scenario: string) {
  const creds = await createAccount();
  const supplier = await seedSupplier(creds.accountId);
  const url = remoteUrl(scenario);
  await exec("UPDATE suppliers SET channel = 'webhook', webhook_url = ?, webhook_secret = 'handover-secret' WHERE id = ?", url, supplier.id);
  await seedRule(creds.accountId, { priority: 10, action: { type: "assign_supplier", supplier_id: supplier.id } });
  const { env: view, sent } = benchEnv();
  const created = await request(view, "POST", "/api/v1/orders", authHeaders(creds), orderPayload({ products: [{ external_id: "a", name: "Mug", quantity: 2, price: 5 }] }));
  expect(created.status).toBe(200);
  await consume(view, sent.splice(0));
  const reference = String(created.json.reference);
  const followUps = sent.splice(0).filter((m) => m.type !== "publish_events");
  const [dispatch] = await rows<{ id: number; status: string; attempts: number; lease_until: string }>(
    "SELECT d.id, d.status, d.attempts, d.lease_until FROM dispatches d JOIN orders o ON o.id = d.order_id WHERE o.reference = ?",
    reference,
  );
  return { creds, view, sent, url, reference, followUps, dispatch };
}

const lineStates = async (reference: string) =>
  (await rows<{ current_status: string }>("SELECT l.current_status FROM order_lines l JOIN orders o ON o.id = l.order_id WHERE o.reference = ? ORDER BY l.position", reference)).map((l) => l.current_status);

describe("the route step hands a new push dispatch's first attempt to the outbound queue", () => {
  it("routes an order to a supplier whose endpoint hangs without calling it: the attempt waits on the outbound queue with the dispatch's lease", async () => {
    const { url, reference, followUps, dispatch } = await routedToWebhook("slow");
    // Routed and claimed: the order is no longer owed routing, its dispatch is under a lease.
    expect(await rows("SELECT routed_at IS NOT NULL AS routed FROM orders WHERE reference = ?", reference)).toEqual([{ routed: 1 }]);
    expect(await lineStates(reference)).toEqual(["ruled"]);
    expect([dispatch.status, dispatch.attempts]).toEqual(["sending", 1]);
    // The route step itself called no supplier (it used to wait here for the time box).
    expect(await received(url)).toEqual([]);
    expect(followUps).toEqual([{ type: "send_dispatches", dispatchIds: [dispatch.id], lease: dispatch.lease_until }]);
  });

  it("sends once when the handed-over message comes twice at the same time, and a copy after it changes nothing", async () => {
    const { view, sent, url, reference, followUps, dispatch } = await routedToWebhook("ok");
    await consume(view, [followUps[0], followUps[0]]);
    expect((await received(url)).map((r) => JSON.parse(r.body).dispatch_id)).toEqual([dispatch.id]);
    expect(await lineStates(reference)).toEqual(["completed"]);
    expect(await rows("SELECT status, attempts, lease_until FROM dispatches WHERE id = ?", dispatch.id)).toEqual([{ status: "sent", attempts: 1, lease_until: null }]);
    await consume(view, followUps);
    expect(await received(url)).toHaveLength(1);
    expect(sent.filter((m) => m.type === "send_dispatch")).toEqual([]);
  });

  it("loses nothing when the Worker dies between the routing batch and the send: the sweeper takes the dispatch once its lease runs out, and the late message takes nothing over", async () => {
    const { view, sent, url, reference, followUps, dispatch } = await routedToWebhook("ok");
    // The handed-over message is lost with the Worker. Until the lease runs out nothing is swept.
    expect(await sweepStuckDispatches(view)).not.toContain(dispatch.id);
    // The lease runs out (its end moved into the past, as the message it travelled with).
    const ended = new Date(Date.now() - 1000).toISOString();
    await exec("UPDATE dispatches SET lease_until = ? WHERE id = ?", ended, dispatch.id);
    const lost = { ...followUps[0], lease: ended } as PipelineMessage;
    expect(await sweepStuckDispatches(view)).toContain(dispatch.id);
    const swept = sent.splice(0).filter((m) => m.type === "send_dispatch" && m.dispatchId === dispatch.id);
    expect(swept).toEqual([{ type: "send_dispatch", dispatchId: dispatch.id }]);
    await consume(view, swept);
    expect(await received(url)).toHaveLength(1);
    expect(await lineStates(reference)).toEqual(["completed"]);
    // The message that was thought lost comes after all: its lease is no longer the dispatch's.
    await consume(view, [lost]);
    expect(await received(url)).toHaveLength(1);
    expect(await rows("SELECT status FROM dispatches WHERE id = ?", dispatch.id)).toEqual([{ status: "sent" }]);
  });

  it("takes over a dispatch the sweeper has not: the handed-over message after the lease ran out still sends it once", async () => {
    const { view, url, reference, followUps, dispatch } = await routedToWebhook("ok");
    // The message waited on the queue past the lease (the lease's end moved into the past).
    const ended = new Date(Date.now() - 1000).toISOString();
    await exec("UPDATE dispatches SET lease_until = ? WHERE id = ?", ended, dispatch.id);
    await consume(view, [{ ...followUps[0], lease: ended } as PipelineMessage]);
    expect(await received(url)).toHaveLength(1);
    expect(await lineStates(reference)).toEqual(["completed"]);
  });
});
