// What the pipeline costs D1 at the maximum order size, counted (statements do not swing with the
// machine's load): a 500-line order is routed, dispatched, sent and answered in a handful of
// statements each, and no statement of it, nor the sweepers', scans a whole table.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { meteredD1 } from "../../src/db/metrics";
import { applyAnswers } from "../../src/forwarding/answers.service";
import { dispatchOrder, sendDispatch } from "../../src/forwarding/forwarding.service";
import { CreateOrderBody } from "../../src/orders/orders.schemas";
import { createOrder, listOrders } from "../../src/orders/orders.service";
import { ListOrdersQuery } from "../../src/orders/orders.schemas";
import { sweepStuckDispatches, sweepUnroutedOrders } from "../../src/processing/sweeper";
import { routeOrder } from "../../src/routing/routing.service";
import { createAccount, exec, orderPayload, rows, seedSupplier } from "../helpers/factories";
import { seedRule } from "../helpers/routing";
import { losingPipeline } from "../helpers/pipeline";
import { fullScans, metered } from "../helpers/statements";

const MAX_LINES = 500;

describe("a 500-line order through the pipeline, counted", () => {
  it("is routed, dispatched, sent and answered in a constant handful of statements, none scanning a table", async () => {
    const creds = await createAccount();
    // Seeded straight into the tables: no re-match message may route the order behind our back.
    const supplier = await seedSupplier(creds.accountId);
    await exec("UPDATE suppliers SET channel = 'pull' WHERE id = ?", supplier.id);
    await seedRule(creds.accountId, { priority: 10, action: { type: "assign_supplier", supplier_id: supplier.id } });
    const products = Array.from({ length: MAX_LINES }, (_, i) => ({
      external_id: `l${i}`,
      name: `Line ${i}`,
      // A third of the lines name an EAN and a SKU, so the catalogue lookup runs at full size too.
      ...(i % 3 === 0 ? { ean13: String(1_000_000_000_000 + i), reference: `SKU-${i}` } : {}),
      quantity: 2,
      price: 1.5,
    }));
    const db = createDb(meteredD1(env.DB));
    // The pipeline's message is dropped: this test runs each step itself.
    const { orderId } = await createOrder(createDb(env.DB), losingPipeline(), creds.accountId, CreateOrderBody.parse(orderPayload({ products })));

    const routed = await metered(() => routeOrder(db, orderId));
    const dispatched = await metered(() => dispatchOrder(db, orderId));
    const [dispatchId] = dispatched.result;
    const sent = await metered(() => sendDispatch(db, env, dispatchId));
    const lineIds = (await rows<{ id: number }>("SELECT id FROM order_lines WHERE order_id = ? ORDER BY position", orderId)).map((r) => r.id);
    const answered = await metered(() =>
      applyAnswers(db, losingPipeline(), { id: supplier.id, accountId: creds.accountId, name: supplier.name }, lineIds.map((id) => ({ line_id: id, action: "accept" as const }))),
    );
    const counts = {
      route: routed.metrics.queries,
      dispatch: dispatched.metrics.queries,
      send: sent.metrics.queries,
      answer: answered.metrics.queries,
    };
    console.log(`statements for a ${MAX_LINES}-line order: ${JSON.stringify(counts)}`);

    expect(await rows("SELECT DISTINCT current_status FROM order_lines WHERE order_id = ?", orderId)).toEqual([{ current_status: "completed" }]);
    expect(counts.route).toBeLessThanOrEqual(14);
    expect(counts.dispatch).toBeLessThanOrEqual(6);
    expect(counts.send).toBeLessThanOrEqual(10);
    expect(counts.answer).toBeLessThanOrEqual(10);
    const statements = [routed, dispatched, sent, answered].flatMap((r) => r.metrics.statements);
    expect(await fullScans(statements)).toEqual([]);
  }, 30_000);

  it("the sweepers read only what they re-queue, through an index", async () => {
    const view = { ...env, DB: meteredD1(env.DB) };
    const unrouted = await metered(() => sweepUnroutedOrders(view));
    const stuck = await metered(() => sweepStuckDispatches(view));
    expect(await fullScans([...unrouted.metrics.statements, ...stuck.metrics.statements])).toEqual([]);
  });

  it("the order list filters by 100 supplier ids and every status through indexes, in one round trip", async () => {
    const creds = await createAccount();
    const db = createDb(meteredD1(env.DB));
    const filters = ListOrdersQuery.parse({
      supplier_ids: Array.from({ length: 100 }, (_, i) => i + 1).join(","),
      statuses: "pending,ruled,completed,partially_completed,failed,declined,skipped",
    });
    const listed = await metered(() => listOrders(db, creds.accountId, filters, { page: 1, perPage: 50 }));
    expect(listed.result.total).toBe(0);
    expect(listed.metrics.roundTrips).toBe(1);
    expect(await fullScans(listed.metrics.statements)).toEqual([]);
  });
});
