// Every cron run is recorded durably in sweeper_runs (the operator's pipeline page shows them):
// when it fired, how many items each sweeper handled, the error of a sweeper that failed while the
// others still ran, and runs older than a week pruned by the cron itself.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { runCron, SWEEPERS } from "../../src/pipeline/cron";
import { isoMicro } from "../../src/lib/time";
import { createAccount, createOrder, exec, orderIdOf, rows } from "../helpers/factories";
import { waitFor } from "../helpers/wait";

type RunRow = { scheduled_at: string; started_at: string; finished_at: string; counts: string; errors: string | null };
const runAt = async (scheduledAt: string) => (await rows<RunRow>("SELECT * FROM sweeper_runs WHERE scheduled_at = ?", scheduledAt))[0];

/** An order whose queue message was lost three minutes ago: the sweeper owes it a re-queue. */
async function lostOrder() {
  const creds = await createAccount();
  const { reference } = await createOrder(creds);
  const id = await orderIdOf(reference);
  await waitFor(async () => (await rows<{ r: string | null }>("SELECT routed_at AS r FROM orders WHERE id = ?", id))[0].r !== null);
  await exec("UPDATE orders SET routed_at = NULL, route_requested_at = ? WHERE id = ?", isoMicro(new Date(Date.now() - 3 * 60_000)), id);
  return id;
}

describe("the cron's record of its runs", () => {
  it("records each run of the scheduled handler with the items every sweeper handled", async () => {
    const orderId = await lostOrder();
    // A time no other file's cron uses, so this run's row is ours.
    const scheduledTime = Date.now() + 17;
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime }), env, ctx);
    await waitOnExecutionContext(ctx);

    const run = await runAt(isoMicro(new Date(scheduledTime)));
    const counts = JSON.parse(run.counts);
    expect(Object.keys(counts).sort()).toEqual(Object.keys(SWEEPERS).sort());
    for (const n of Object.values(counts)) expect(n).toEqual(expect.any(Number));
    // Other files' work may be swept by the same run: at least ours.
    expect(counts.unrouted_orders).toBeGreaterThanOrEqual(1);
    expect(run.errors).toBeNull();
    expect(run.started_at <= run.finished_at).toBe(true);
    await waitFor(async () => (await rows<{ r: string | null }>("SELECT routed_at AS r FROM orders WHERE id = ?", orderId))[0].r !== null);
  });

  it("records a failing sweeper's error, and the other sweepers still run", async () => {
    // Sweepers of this test's own: a real one that fails (its queue is down) would fail every other
    // file's pipeline work in the shared database for as long as it ran.
    let sessionsRan = false;
    const run = await runCron(env, new Date(Date.now() + 29), [
      { names: ["unrouted_orders"], run: () => Promise.reject(new Error("queue unavailable")) },
      {
        names: ["sessions_ended"],
        run: async () => {
          sessionsRan = true;
          return { sessions_ended: 2 };
        },
      },
    ]);
    expect(sessionsRan).toBe(true);
    expect(run.errors).toEqual({ unrouted_orders: "Error: queue unavailable" });
    expect(run.counts).toEqual({ sessions_ended: 2 });
    const stored = await runAt(run.scheduledAt);
    expect([JSON.parse(stored.counts), JSON.parse(stored.errors!)]).toEqual([{ sessions_ended: 2 }, { unrouted_orders: "Error: queue unavailable" }]);
  });

  it("prunes runs older than a week and keeps the rest", async () => {
    const day = 24 * 60 * 60_000;
    const old = isoMicro(new Date(Date.now() - 8 * day));
    const recent = isoMicro(new Date(Date.now() - 6 * day));
    for (const at of [old, recent]) {
      await exec("INSERT INTO sweeper_runs (scheduled_at, started_at, finished_at, counts) VALUES (?, ?, ?, '{}')", at, at, at);
    }
    await runCron(env, new Date());
    expect(await runAt(old)).toBeUndefined();
    expect(await runAt(recent)).toMatchObject({ scheduled_at: recent });
  });
});
