import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createAccount, createOrder, orderPayload } from "../helpers/factories";
import { received, remoteUrl } from "../helpers/fake-remote";
import { call } from "../helpers/http";
import { orderSettled, signatureValid, supplierWithRule } from "../helpers/suppliers";
import { waitFor } from "../helpers/wait";

const twoLines = (extra: Record<string, unknown> = {}) =>
  orderPayload({
    products: [
      { external_id: "a", name: "Mug", ean13: "0012345678905", reference: "MUG", quantity: 2, price: 10, purchase_price: 4 },
      { external_id: "b", name: "Cup", quantity: 1, price: 5, purchase_price: 2, brand: "Cups" },
    ],
    ...extra,
  });

const messages = (order: any, i: number) => order.order_lines[i].logs.map((l: any) => `${l.status}: ${l.message}`);

describe("webhook channel", () => {
  it("sends one signed document per (order, supplier) and completes the lines on 2xx", async () => {
    const creds = await createAccount();
    const url = remoteUrl("ok");
    const { supplier, rule } = await supplierWithRule(creds, { channel: "webhook", webhook_url: url });
    const payload = twoLines();
    const created = await call("POST", "/api/v1/orders", { creds, body: payload });
    const reference = String(created.json.reference);

    const order = await orderSettled(creds, reference, ["completed"]);
    expect(messages(order, 0)).toEqual([
      "pending: Order line created",
      `ruled: Matched to supplier ${supplier.name} by rule #${rule.id} 'to ${supplier.name}'`,
      "completed: Successfully sent to supplier",
    ]);

    const requests = await received(url);
    expect(requests).toHaveLength(1);
    const [req] = requests;
    expect(req.method).toBe("POST");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(await signatureValid(req.headers["x-webhook-signature"], supplier.webhook_secret, req.body)).toBe(true);
    const doc = JSON.parse(req.body);
    expect(req.headers["idempotency-key"]).toBe(doc.id);
    expect(doc).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: "order.dispatch",
      dispatch_id: expect.any(Number),
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
      test: false,
      supplier: { id: supplier.id, name: supplier.name },
      order: {
        reference,
        external_id: payload.external_id,
        source: "Test shop",
        created_at: order.created_at,
        email: "jan@example.com",
        shipping: { name: "PostNL", description: "Standard", note: "Ring twice", delivery_date: "2026-11-30" },
        shipping_address: {
          first_name: "Jan",
          last_name: "Jansen",
          company_name: "Jansen BV",
          address1: "Damrak 1",
          address2: "3hoog",
          postcode: "1012LG",
          city: "Amsterdam",
          state: "Noord-Holland",
          country: "NL",
          phone: "0612345678",
          email: "jan@example.com",
        },
      },
      lines: [
        { id: order.order_lines[0].id, external_id: "a", name: "Mug", ean13: "0012345678905", reference: "MUG", quantity: 2, purchase_price: 4, brand: null, height: null, width: null, length: null, weight: null },
        { id: order.order_lines[1].id, external_id: "b", name: "Cup", ean13: null, reference: null, quantity: 1, purchase_price: 2, brand: "Cups", height: null, width: null, length: null, weight: null },
      ],
    });

    const dispatches = await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds });
    expect(dispatches.json.data).toEqual([
      expect.objectContaining({ supplier_id: supplier.id, channel: "webhook", status: "sent", attempts: 1, last_error: null, idempotency_key: doc.id }),
    ]);
  });

  it("splits an order across suppliers: each gets only its own lines", async () => {
    const creds = await createAccount();
    const cupsUrl = remoteUrl("ok");
    const restUrl = remoteUrl("ok");
    await supplierWithRule(creds, { channel: "webhook", webhook_url: cupsUrl }, [{ variable: "line.brand", operator: "is", value: "cups" }]);
    await supplierWithRule(creds, { channel: "webhook", webhook_url: restUrl });
    const { reference } = await createOrder(creds, twoLines());
    await orderSettled(creds, reference, ["completed"]);
    const cups = await received(cupsUrl);
    const rest = await received(restUrl);
    expect(cups.map((r) => JSON.parse(r.body).lines.map((l: any) => l.external_id))).toEqual([["b"]]);
    expect(rest.map((r) => JSON.parse(r.body).lines.map((l: any) => l.external_id))).toEqual([["a"]]);
  });

  it("fails the lines at once on a 4xx, with the supplier's answer in the log", async () => {
    const creds = await createAccount();
    const url = remoteUrl("status-422");
    const { supplier } = await supplierWithRule(creds, { channel: "webhook", webhook_url: url });
    const { reference } = await createOrder(creds, twoLines());
    const order = await orderSettled(creds, reference, ["failed"]);
    expect(messages(order, 1).at(-1)).toBe(`failed: Supplier ${supplier.name} rejected the order: HTTP 422: {"error":"status 422"}`);
    expect(await received(url)).toHaveLength(1);
  });

  it("retries 5xx with the same idempotency key, then fails after the last attempt", async () => {
    const creds = await createAccount();
    const url = remoteUrl("status-503");
    const { supplier } = await supplierWithRule(creds, { channel: "webhook", webhook_url: url });
    const { reference } = await createOrder(creds, twoLines());
    const order = await orderSettled(creds, reference, ["failed"], 15000);
    expect(messages(order, 0).at(-1)).toBe(`failed: Sending to supplier ${supplier.name} failed after 3 attempts: HTTP 503: {"error":"status 503"}`);
    const requests = await received(url);
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.headers["idempotency-key"])).size).toBe(1);
    const dispatches = await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds });
    expect(dispatches.json.data[0]).toMatchObject({ status: "failed", attempts: 3 });
  });

  it("treats a timeout as retryable and records it", async () => {
    const creds = await createAccount();
    const url = remoteUrl("slow");
    const { supplier } = await supplierWithRule(creds, { channel: "webhook", webhook_url: url });
    const { reference } = await createOrder(creds, twoLines());
    const order = await orderSettled(creds, reference, ["failed"], 15000);
    expect(messages(order, 0).at(-1)).toBe(`failed: Sending to supplier ${supplier.name} failed after 3 attempts: timed out`);
  });

  it("succeeds on a later attempt when the supplier recovers", async () => {
    const creds = await createAccount();
    const url = remoteUrl("flaky-1");
    await supplierWithRule(creds, { channel: "webhook", webhook_url: url });
    const { reference } = await createOrder(creds, twoLines());
    await orderSettled(creds, reference, ["completed"], 15000);
    const requests = await received(url);
    expect(requests).toHaveLength(2);
    expect(requests[0].headers["idempotency-key"]).toBe(requests[1].headers["idempotency-key"]);
  });

  it("retry by hand re-sends failed lines once, however often it is clicked", async () => {
    const creds = await createAccount();
    const badUrl = remoteUrl("status-400");
    const { supplier } = await supplierWithRule(creds, { channel: "webhook", webhook_url: badUrl });
    const { reference } = await createOrder(creds, twoLines());
    await orderSettled(creds, reference, ["failed"]);
    const goodUrl = remoteUrl("ok");
    expect((await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { webhook_url: goodUrl } })).status).toBe(200);
    const clicks = await Promise.all([1, 2, 3].map(() => call("POST", `/api/v1/orders/${reference}/retry`, { creds })));
    expect(clicks.map((c) => c.status)).toEqual([200, 200, 200]);
    const order = await orderSettled(creds, reference, ["completed"]);
    expect(messages(order, 0).slice(-3)).toEqual([
      `failed: Supplier ${supplier.name} rejected the order: HTTP 400: {"error":"status 400"}`,
      "ruled: Retry requested: sending again",
      "completed: Successfully sent to supplier",
    ]);
    expect(await received(goodUrl)).toHaveLength(1);
  });

  it("never reaches the supplier for a test order, and says so", async () => {
    const creds = await createAccount();
    const url = remoteUrl("ok");
    const { supplier } = await supplierWithRule(creds, { channel: "webhook", webhook_url: url });
    const { reference } = await createOrder(creds, twoLines({ test: true }));
    const order = await orderSettled(creds, reference, ["completed"]);
    expect(messages(order, 0).at(-1)).toBe(`completed: Test order: dry run, nothing was sent to supplier ${supplier.name}`);
    expect(await received(url)).toEqual([]);
    const dispatches = await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds });
    expect(dispatches.json.data[0]).toMatchObject({ status: "dry_run", attempts: 1 });
  });

  it("sends once when the queue delivers the same send message twice", async () => {
    const creds = await createAccount();
    const url = remoteUrl("ok");
    await supplierWithRule(creds, { channel: "webhook", webhook_url: url });
    const { reference } = await createOrder(creds, twoLines());
    await orderSettled(creds, reference, ["completed"]);
    const [{ id: dispatchId }] = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;
    const batch = createMessageBatch("order-pipeline", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { type: "send_dispatch", dispatchId } },
      { id: "m2", timestamp: new Date(), attempts: 1, body: { type: "send_dispatch", dispatchId } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch as never, env as never);
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages).toEqual([]);
    expect(await received(url)).toHaveLength(1);
    const order = await call("GET", `/api/v1/orders/${reference}`, { creds });
    expect(order.json.order_lines[0].logs.filter((l: any) => l.status === "completed")).toHaveLength(1);
  });

  it("signs with both secrets during a rotation", async () => {
    const creds = await createAccount();
    const url = remoteUrl("ok");
    const { supplier } = await supplierWithRule(creds, { channel: "webhook", webhook_url: url });
    const rotated = await call("POST", `/api/v1/suppliers/${supplier.id}/rotate-secret`, { creds });
    expect(rotated.status).toBe(200);
    expect(rotated.json.previous_secret_valid).toBe(true);
    expect(rotated.json.webhook_secret).not.toBe(supplier.webhook_secret);
    const { reference } = await createOrder(creds, twoLines());
    await orderSettled(creds, reference, ["completed"]);
    const [req] = await waitFor(async () => {
      const r = await received(url);
      return r.length ? r : null;
    });
    expect(await signatureValid(req.headers["x-webhook-signature"], rotated.json.webhook_secret, req.body)).toBe(true);
    expect(await signatureValid(req.headers["x-webhook-signature"], supplier.webhook_secret, req.body)).toBe(true);
  });
});
