// The console's order page lists the events sent about the order with their deliveries: one
// statement, read through the expression index on the event's order reference (never a scan of the
// events), only the account's own.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { meteredD1 } from "../../src/db/metrics";
import { listOrderEvents } from "../../src/events/order-events.service";
import { createAccount, createOrder } from "../helpers/factories";
import { call } from "../helpers/http";
import { fullScans, metered, planOf } from "../helpers/statements";
import { allPublished, settledDeliveries, subscribe } from "./support";

const db = () => createDb(meteredD1(env.DB));

describe("an order's events", () => {
  it("lists them newest first with each delivery, in one statement from the indexes, for the account alone", async () => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "ok", ["order.created", "order.blocked"]);
    const { reference, payload } = await createOrder(creds);
    expect((await call("POST", `/api/v1/orders/${reference}/block`, { creds, body: { reason: "check the address" } })).status).toBe(200);
    await allPublished(creds.accountId, 2);
    await settledDeliveries(creds, hook.id, 2);
    const other = await createOrder(creds);

    const { result, metrics } = await metered(() => listOrderEvents(db(), creds.accountId, reference));
    expect(metrics.queries).toBe(1);
    const plan = (await planOf(metrics.statements[0])).join("\n");
    expect(plan).toMatch(/SEARCH e USING INDEX events_account_order_idx \(account_id=\? AND <expr>=\?\)/);
    expect(plan).toMatch(/SEARCH d USING INDEX webhook_deliveries_event_idx \(event_id=\?\)/);
    expect(await fullScans(metrics.statements, ["webhook_deliveries"])).toEqual([]);

    const delivered = { subscriptionId: hook.id, status: "delivered", attempts: 1, lastStatusCode: 200, lastError: null };
    const byType = Object.fromEntries(result.events.map((e) => [e.type, e]));
    expect(result.events.map((e) => e.type).filter((t) => t === "order.created" || t === "order.blocked")).toEqual(["order.blocked", "order.created"]);
    expect(byType["order.created"]).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: "order.created",
      data: { order: { reference, external_id: payload.external_id, source: "Test shop", test: false, total: 59.9 } },
      createdAt: expect.any(String),
      publishedAt: expect.any(String),
      deliveries: [delivered],
    });
    expect(byType["order.blocked"].deliveries).toEqual([delivered]);
    // Every event listed is about this order; the other order's are not among them.
    expect(result.events.every((e) => (e.data.order as { reference: string }).reference === reference)).toBe(true);
    expect(result.total).toBe(result.events.length);
    expect((await listOrderEvents(db(), creds.accountId, other.reference)).events.map((e) => e.type)).toContain("order.created");

    // Another account asking for this reference sees nothing.
    const stranger = await createAccount();
    expect(await listOrderEvents(db(), stranger.accountId, reference)).toEqual({ total: 0, events: [] });
  });
});
