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
