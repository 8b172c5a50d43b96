import { describe, it } from "vitest";
import { createAccount, createOrder } from "../helpers/factories";
import { received } from "../helpers/fake-remote";
import { call } from "../helpers/http";
import { waitFor } from "../helpers/wait";
import { allPublished, deliveries, EVENT_ID, ISO, settledDeliveries, shopVerifies, subscribe } from "./support";

describe.concurrent("events delivered to the shop", () => {
  it("delivers order.created, signed with the subscription's secret", async ({ expect }) => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "ok", ["order.created"]);
    const { payload, reference } = await createOrder(creds);

    const [request] = await waitFor(async () => ((await received(hook.url)).length === 1 ? received(hook.url) : null));
    const body = JSON.parse(request.body);
    expect(body.id).toMatch(EVENT_ID);
    expect(body).toEqual({
      id: body.id,
      type: "order.created",
      created_at: ISO,
      data: { order: { reference, external_id: payload.external_id, source: "Test shop", test: false, total: 59.9 } },
    });
    expect(request.method).toBe("POST");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["x-webhook-id"]).toBe(body.id);
    expect(request.headers["x-webhook-event"]).toBe("order.created");
    expect(request.headers["x-webhook-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(await shopVerifies(request.headers["x-webhook-signature"], hook.secret, request.body)).toBe(true);
    expect(await shopVerifies(request.headers["x-webhook-signature"], "whsec_not-the-secret", request.body)).toBe(false);

    const [delivery] = await settledDeliveries(creds, hook.id, 1);
    expect(delivery).toEqual({
      id: expect.any(Number),
      webhook_id: hook.id,
      event: { id: body.id, type: "order.created", created_at: body.created_at, data: body.data },
      status: "delivered",
      next_attempt_at: null,
      last_status_code: 200,
      last_error: null,
      delivered_at: ISO,
      created_at: ISO,
      updated_at: ISO,
      attempts: [{ status_code: 200, error: null, duration_ms: expect.any(Number), created_at: ISO }],
    });
  });

  it("delivers order_line.status_changed when a rule matches the line, and only the subscribed types", async ({ expect }) => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "ok", ["order_line.status_changed"]);
    const supplier = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Acme Wholesale" } });
    const rule = await call("POST", "/api/v1/routing-rules", {
      creds,
      body: {
        name: "Mugs to Acme",
        conditions: [{ variable: "line.brand", operator: "is", value: "mugs inc" }],
        action: { type: "assign_supplier", supplier_id: supplier.json.id },
      },
    });
    const { payload, reference } = await createOrder(creds);
    const order = await waitFor(async () => {
      const res = await call("GET", `/api/v1/orders/${reference}`, { creds });
      return res.json.order_lines[0].current_status === "ruled" ? res.json : null;
    });
    // Both events exist (order.created and the move) and are published: nothing else is coming.
    await allPublished(creds.accountId, 2);

    const [delivery] = await settledDeliveries(creds, hook.id, 1);
    const sent = await received(hook.url);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0].body)).toEqual({
      id: delivery.event.id,
      type: "order_line.status_changed",
      created_at: delivery.event.created_at,
      data: {
        order: { reference, external_id: payload.external_id },
        line: { id: order.order_lines[0].id, external_id: "sku-1", status: "ruled", previous_status: "pending" },
        message: `Matched to supplier Acme Wholesale by rule #${rule.json.id} 'Mugs to Acme'`,
      },
    });
    expect(sent[0].headers["x-webhook-event"]).toBe("order_line.status_changed");
  });

  it("delivers order.blocked promptly after POST /orders/{reference}/block", async ({ expect }) => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "ok", ["order.blocked"]);
    const { payload, reference } = await createOrder(creds);
    const blocked = await call("POST", `/api/v1/orders/${reference}/block`, { creds, body: { reason: "Fraud check" } });
    expect(blocked.status).toBe(200);

    // No cron runs in the tests: the publish after the write gets it out.
    const [delivery] = await settledDeliveries(creds, hook.id, 1);
    expect(delivery.status).toBe("delivered");
    const [request] = await received(hook.url);
    expect(JSON.parse(request.body)).toEqual({
      id: delivery.event.id,
      type: "order.blocked",
      created_at: ISO,
      data: { order: { reference, external_id: payload.external_id }, reason: "Order blocked by hand: Fraud check" },
    });
  });

  it("sends each subscription its own types, to the account's own subscriptions only", async ({ expect }) => {
    const shop = await createAccount();
    const neighbour = await createAccount();
    const everything = await subscribe(shop, "ok");
    const blockedOnly = await subscribe(shop, "ok", ["order.blocked"]);
    const paused = await subscribe(shop, "ok");
    await call("PATCH", `/api/v1/webhooks/${paused.id}`, { creds: shop, body: { active: false } });
    const neighbours = await subscribe(neighbour, "ok");

    const { reference } = await createOrder(shop);
    await call("POST", `/api/v1/orders/${reference}/block`, { creds: shop, body: {} });
    // order.created, the block, and the (unmatched) line staying pending: wait until all are out.
    await allPublished(shop.accountId, 2);

    const all = await settledDeliveries(shop, everything.id, 2);
    expect(all.map((d: { event: { type: string } }) => d.event.type)).toEqual(["order.blocked", "order.created"]);
    const blocked = await settledDeliveries(shop, blockedOnly.id, 1);
    expect(blocked[0].event.type).toBe("order.blocked");
    // The same event to two subscriptions: two deliveries, one event id.
    expect(blocked[0].event.id).toBe(all[0].event.id);
    expect((await deliveries(shop, paused.id)).meta.total).toBe(0);
    expect(await received(paused.url)).toEqual([]);
    expect((await deliveries(neighbour, neighbours.id)).meta.total).toBe(0);
    expect(await received(neighbours.url)).toEqual([]);
  });

  it("signs with the new secret after a rotation", async ({ expect }) => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "ok", ["order.created"]);
    const rotated = await call("PATCH", `/api/v1/webhooks/${hook.id}`, { creds, body: { rotate_secret: true } });
    await createOrder(creds);
    const [request] = await waitFor(async () => ((await received(hook.url)).length === 1 ? received(hook.url) : null));
    expect(await shopVerifies(request.headers["x-webhook-signature"], rotated.json.secret, request.body)).toBe(true);
    expect(await shopVerifies(request.headers["x-webhook-signature"], hook.secret, request.body)).toBe(false);
  });

  it("deletes a subscription together with its delivery history", async ({ expect }) => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "ok", ["order.created"]);
    await createOrder(creds);
    await settledDeliveries(creds, hook.id, 1);
    expect((await call("DELETE", `/api/v1/webhooks/${hook.id}`, { creds })).status).toBe(204);
    expect((await call("GET", `/api/v1/webhooks/${hook.id}/deliveries`, { creds })).status).toBe(404);
  });
});
