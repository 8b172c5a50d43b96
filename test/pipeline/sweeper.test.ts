// The cron sweeper re-queues orders the pipeline owes work (routed_at null, requested more than 25
// seconds ago).
import { describe, expect, it } from "vitest";
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import { sweepUnroutedOrders } from "../../src/pipeline/sweeper";
import { createAccount, createOrder, seedSupplier } from "../helpers/factories";
import type { Credentials } from "../helpers/http";
import { getOrder, logsOf, waitForLineStatus } from "../helpers/routing";
import { waitFor } from "../helpers/wait";

const routedAt = async (reference: string) =>
  (await env.DB.prepare("SELECT routed_at FROM orders WHERE reference = ?").bind(reference).first<{ routed_at: string | null }>())!.routed_at;

/**
 * An order as if its queue message had been lost: it waits, and routed_at is null again. The
 * supplier its line names is inserted directly (no re-match queued), so only a sweep can match it.
 */
/** Whether a sweep at `now` re-queues this order (other test files' orders may be swept too). */
const sweeps = async (reference: string, now = new Date()) => {
  const id = (await env.DB.prepare("SELECT id FROM orders WHERE reference = ?").bind(reference).first<{ id: number }>())!.id;
  return (await sweepUnroutedOrders(env, now)).includes(id);
};

async function lostOrder(creds: Credentials) {
  const { reference } = await createOrder(creds);
  // Its own queue message has been consumed (it sets routed_at); nothing else will route it.
  await waitFor(async () => (await routedAt(reference)) !== null);
  await env.DB.prepare("UPDATE orders SET routed_at = NULL WHERE reference = ?").bind(reference).run();
  return reference;
}

describe("sweepUnroutedOrders", () => {
  it("leaves orders younger than 25 seconds to the queue, and re-queues older ones, which then get routed", async () => {
    const creds = await createAccount();
    const reference = await lostOrder(creds);
    const supplier = await seedSupplier(creds.accountId, "MugSupplier");

    expect(await sweeps(reference)).toBe(false);
    expect(await sweeps(reference, new Date(Date.now() + 20_000))).toBe(false);

    expect(await sweeps(reference, new Date(Date.now() + 3 * 60_000))).toBe(true);
    const order = await waitForLineStatus(creds, reference, "ruled");
    expect(order.order_lines[0].matched_supplier).toEqual({ id: supplier.id, name: "MugSupplier" });
    expect(logsOf(order.order_lines[0]).at(-1)).toEqual(["ruled", "Matched to supplier MugSupplier by the line's supplier field"]);
    expect(await routedAt(reference)).not.toBeNull();

    // Routed now: the next sweep finds nothing.
    expect(await sweeps(reference, new Date(Date.now() + 3 * 60_000))).toBe(false);
  });

  it("a blocked order is seen (routed_at set) but not matched", async () => {
    const creds = await createAccount();
    const reference = await lostOrder(creds);
    await seedSupplier(creds.accountId, "MugSupplier");
    // Blocked straight in the table, so that no request touches routed_at.
    await env.DB.prepare("UPDATE orders SET blocked = 1 WHERE reference = ?").bind(reference).run();
    const before = await getOrder(creds, reference);

    expect(await sweeps(reference, new Date(Date.now() + 3 * 60_000))).toBe(true);
    await waitFor(async () => (await routedAt(reference)) !== null);
    expect(await getOrder(creds, reference)).toEqual(before);
  });
});

describe("the scheduled handler", () => {
  it("sweeps: an old order that never reached the pipeline gets routed", async () => {
    const creds = await createAccount();
    const reference = await lostOrder(creds);
    await seedSupplier(creds.accountId, "MugSupplier");
    const old = new Date(Date.now() - 10 * 60_000).toISOString();
    await env.DB.prepare("UPDATE orders SET route_requested_at = ? WHERE reference = ?").bind(old, reference).run();

    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);
    const order = await waitForLineStatus(creds, reference, "ruled");
    expect(order.order_lines[0].matched_supplier.name).toBe("MugSupplier");
  });
});
