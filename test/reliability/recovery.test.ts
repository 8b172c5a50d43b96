// Nothing a client sent is stranded by a lost queue message: every action that hands an order to
// the pipeline leaves a mark the sweeper sees, written in the same batch as the action itself.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { retryFailedLines } from "../../src/forwarding/forwarding.service";
import { sweepUnroutedOrders } from "../../src/processing/sweeper";
import { setBlocked } from "../../src/routing/routing.service";
import { createAccount, createOrder, exec, orderIdOf, orderPayload } from "../helpers/factories";
import { received, remoteUrl } from "../helpers/fake-remote";
import { call } from "../helpers/http";
import { orderSettled, supplierWithRule } from "../helpers/suppliers";
import { waitFor } from "../helpers/wait";

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
    await setBlocked(createDb(env.DB), creds.accountId, reference, false);
    const orderId = await orderIdOf(reference);
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
    expect((await retryFailedLines(createDb(env.DB), creds.accountId, reference)).retried).toBe(1);
    expect(await sweepUnroutedOrders(env, later())).toContain(await orderIdOf(reference));
    await orderSettled(creds, reference, ["completed"]);
    expect(await received(goodUrl)).toHaveLength(1);
  });
});
