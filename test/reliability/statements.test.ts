// What the pipeline costs D1 at the maximum order size, counted (statements do not swing with the
// machine's load): a 500-line order is routed and dispatched (the pipeline's route_order step) and
// answered in a handful of statements each, and no statement of it, nor the sweepers', scans a
// whole table. (test/pipeline/pipeline.budget.test.ts counts a whole order's life per message.)
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { meteredD1 } from "../../src/db/metrics";
import { applyAnswers } from "../../src/forwarding/answers.service";
import { cancelOrder } from "../../src/orders/cancellations.service";
import { CreateOrderBody } from "../../src/orders/orders.schemas";
import { createOrder, listOrders } from "../../src/orders/orders.service";
import { ListOrdersQuery } from "../../src/orders/orders.schemas";
import { runRouteStep } from "../../src/pipeline/consumer";
import { sweepDeadlines, sweepStuckCancellations, sweepStuckDispatches, sweepUnroutedOrders } from "../../src/pipeline/sweeper";
import { createAccount, exec, orderPayload, rows, seedSupplier } from "../helpers/factories";
import { seedRule } from "../helpers/routing";
import { losingPipeline } from "../helpers/pipeline";
import { fullScans, metered, planOf } from "../helpers/statements";

const orderRef = async (orderId: number) => (await rows<{ reference: string }>("SELECT reference FROM orders WHERE id = ?", orderId))[0].reference;

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

    // Matched and claimed into a dispatch awaiting the pull supplier's pickup: one read, one write.
    const routed = await metered(() => runRouteStep(db, env, [{ orderId, redelivered: false }]));
    const lineIds = (await rows<{ id: number }>("SELECT id FROM order_lines WHERE order_id = ? ORDER BY position", orderId)).map((r) => r.id);
    const answered = await metered(() =>
      applyAnswers(db, losingPipeline(), { id: supplier.id, accountId: creds.accountId, name: supplier.name }, lineIds.map((id) => ({ line_id: id, action: "accept" as const }))),
    );
    // Then every line shipped in one call, and the same call again (a repeat, recorded once): the
    // shipments already recorded are read with the lines, and the write checks no line ships more
    // than it has (test/forwarding/answers.quantities.test.ts), in the same round trips.
    const supplierRef = { id: supplier.id, accountId: creds.accountId, name: supplier.name };
    const shipAll = lineIds.map((id) => ({ line_id: id, action: "ship" as const, tracking_number: `T-${id}` }));
    const shipped = await metered(() => applyAnswers(db, losingPipeline(), supplierRef, shipAll));
    const repeated = await metered(() => applyAnswers(db, losingPipeline(), supplierRef, shipAll));
    expect(await rows("SELECT count(*) AS n, sum(quantity) AS q FROM shipments WHERE order_id = ?", orderId)).toEqual([{ n: MAX_LINES, q: 2 * MAX_LINES }]);
    const counts = {
      route: routed.metrics.queries,
      route_round_trips: routed.metrics.roundTrips,
      answer: answered.metrics.queries,
      ship: shipped.metrics.queries,
      ship_round_trips: shipped.metrics.roundTrips,
      ship_again: repeated.metrics.queries,
    };
    console.log(`statements for a ${MAX_LINES}-line order: ${JSON.stringify(counts)}`);

    expect(await rows("SELECT DISTINCT current_status FROM order_lines WHERE order_id = ?", orderId)).toEqual([{ current_status: "completed" }]);
    expect(counts.route).toBe(7);
    expect(counts.route_round_trips).toBe(2);
    expect(counts.answer).toBeLessThanOrEqual(10);
    expect(counts.ship).toBeLessThanOrEqual(12);
    expect(counts.ship_round_trips).toBe(2);
    expect(counts.ship_again).toBeLessThanOrEqual(12);
    const statements = [routed, answered, shipped, repeated].flatMap((r) => r.metrics.statements);
    expect(await fullScans(statements)).toEqual([]);
  }, 30_000);

  it("a decline that re-routes 500 lines, and a cancellation of 500 sent lines, cost a constant handful of statements", async () => {
    const creds = await createAccount();
    // Seeded straight into the tables: no re-match message may route the order behind our back.
    const first = await seedSupplier(creds.accountId);
    const next = await seedSupplier(creds.accountId);
    await exec("UPDATE suppliers SET channel = 'pull' WHERE id IN (?, ?)", first.id, next.id);
    await seedRule(creds.accountId, { priority: 10, action: { type: "assign_supplier", supplier_id: first.id } });
    await seedRule(creds.accountId, { priority: 20, action: { type: "assign_supplier", supplier_id: next.id } });
    const products = Array.from({ length: MAX_LINES }, (_, i) => ({ external_id: `l${i}`, name: `Line ${i}`, quantity: 2, price: 1.5 }));
    const plain = createDb(env.DB);
    const db = createDb(meteredD1(env.DB));
    const { orderId } = await createOrder(plain, losingPipeline(), creds.accountId, CreateOrderBody.parse(orderPayload({ products })));
    await runRouteStep(plain, env, [{ orderId, redelivered: false }]);
    const lineIds = (await rows<{ id: number }>("SELECT id FROM order_lines WHERE order_id = ? ORDER BY position", orderId)).map((r) => r.id);

    const declined = await metered(() =>
      applyAnswers(db, losingPipeline(), { id: first.id, accountId: creds.accountId, name: first.name }, lineIds.map((id) => ({ line_id: id, action: "decline" as const, reason: "out of stock" }))),
    );
    // The re-routed lines, ruled to `next` without a dispatch: claimed into one in one read and one write.
    const rerouted = await metered(() => runRouteStep(db, env, [{ orderId, redelivered: false }]));
    expect(await rows("SELECT DISTINCT current_status, matched_supplier_id, dispatch_id IS NOT NULL AS dispatched FROM order_lines WHERE order_id = ?", orderId)).toEqual([
      { current_status: "ruled", matched_supplier_id: next.id, dispatched: 1 },
    ]);

    // The same 500 lines, now sent to `next` (pull), cancelled whole, the request confirmed.
    const reference = await orderRef(orderId);
    const cancelled = await metered(() => cancelOrder(db, losingPipeline(), creds.accountId, reference, { reason: "changed mind" }));
    const confirmed = await metered(() =>
      applyAnswers(db, losingPipeline(), { id: next.id, accountId: creds.accountId, name: next.name }, lineIds.map((id) => ({ line_id: id, action: "confirm_cancellation" as const }))),
    );
    expect(await rows("SELECT DISTINCT current_status FROM order_lines WHERE order_id = ?", orderId)).toEqual([{ current_status: "skipped" }]);

    const counts = {
      decline: declined.metrics.queries,
      reroute: rerouted.metrics.queries,
      reroute_round_trips: rerouted.metrics.roundTrips,
      cancel: cancelled.metrics.queries,
      cancel_confirm: confirmed.metrics.queries,
    };
    console.log(`statements for a ${MAX_LINES}-line decline + re-route and cancellation: ${JSON.stringify(counts)}`);
    expect(counts.decline).toBeLessThanOrEqual(20);
    expect(counts.reroute).toBe(6);
    expect(counts.reroute_round_trips).toBe(2);
    expect(counts.cancel).toBeLessThanOrEqual(16);
    expect(counts.cancel_confirm).toBeLessThanOrEqual(16);
    const statements = [declined, rerouted, cancelled, confirmed].flatMap((r) => r.metrics.statements);
    expect(await fullScans(statements)).toEqual([]);
  }, 60_000);

  it("the sweepers read only what they re-queue or fire, through an index", async () => {
    // A deadline due, so the deadline sweep writes as well as reads.
    const creds = await createAccount();
    const supplier = await seedSupplier(creds.accountId);
    const { orderId } = await createOrder(createDb(env.DB), losingPipeline(), creds.accountId, CreateOrderBody.parse(orderPayload()));
    await exec("UPDATE order_lines SET current_status = 'ruled', matched_supplier_id = ?, ack_due_at = '2000-01-01T00:00:00.000000Z' WHERE order_id = ?", supplier.id, orderId);
    const view = { ...env, DB: meteredD1(env.DB) };
    const unrouted = await metered(() => sweepUnroutedOrders(view));
    const stuck = await metered(() => sweepStuckDispatches(view));
    const cancellations = await metered(() => sweepStuckCancellations(view));
    const deadlines = await metered(() => sweepDeadlines(view));
    expect(deadlines.result.acknowledgement.length).toBeGreaterThan(0);
    const statements = [unrouted, stuck, cancellations, deadlines].flatMap((r) => r.metrics.statements);
    expect(await fullScans(statements)).toEqual([]);
    // The deadline sweep: one read of two index ranges, one batch that fires them.
    expect(deadlines.metrics.roundTrips).toBe(2);
    const plans = await Promise.all(deadlines.metrics.statements.slice(0, 2).map(planOf));
    expect(plans[0]).toContain("SEARCH l USING INDEX order_lines_ack_due_idx (ack_due_at<?)");
    expect(plans[1]).toContain("SEARCH l USING INDEX order_lines_ship_due_idx (ship_due_at<?)");
  });

  it("the order list filters by 100 supplier ids and every status through indexes: their counts, then the count and the page", async () => {
    const creds = await createAccount();
    const db = createDb(meteredD1(env.DB));
    const filters = ListOrdersQuery.parse({
      supplier_ids: Array.from({ length: 100 }, (_, i) => i + 1).join(","),
      statuses: "pending,ruled,completed,partially_completed,failed,declined,skipped",
    });
    const listed = await metered(() => listOrders(db, creds.accountId, filters, { page: 1, perPage: 50 }));
    expect(listed.result.total).toBe(0);
    // Two filters: one round trip reads both counts (from the counters and the facet index), which
    // picks the index that drives the second (count and page).
    expect(listed.metrics).toMatchObject({ roundTrips: 2, queries: 3 });
    expect(await fullScans(listed.metrics.statements)).toEqual([]);
  });
});
