// The cron of a shard where one account is frozen (a move paused after its freeze, or a deletion
// under way): that account's rows refuse every write (drizzle/0015's triggers), so every sweeper
// leaves them alone, and the shard's other accounts are served as ever: their lost routing
// re-queued, their events published and delivered, their ended sessions cleaned up, their feeds
// pulled, with no sweeper failing (before, one frozen account's rows failed those sweepers for the whole shard). Once the move is done, the account's own work goes on where
// it now lives.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { createFeed } from "../helpers/catalogue";
import { createOrder, rows } from "../helpers/factories";
import { received } from "../helpers/fake-remote";
import { call, type Credentials } from "../helpers/http";
import { accountOn, move } from "../helpers/moves";
import { waitFor } from "../helpers/wait";
import { seedEvent, subscribe } from "../events/support";

const shards = [env.DB, env.SHARD_1];
const TEN_MINUTES_AGO = () => new Date(Date.now() - 10 * 60_000).toISOString().replace("Z", "000Z");

/** An order whose routing message was lost: unrouted, asked for ten minutes ago. */
async function lostRouting(creds: Credentials, shard: number, externalId: string) {
  const { reference } = await createOrder(creds, { external_id: externalId });
  // Its routing message handled first (then its loss is ours to make).
  await waitFor(async () => (await shards[shard].prepare("SELECT routed_at FROM orders WHERE account_id = ? AND reference = ?").bind(creds.accountId, reference).first<{ routed_at: string | null }>())?.routed_at != null);
  await shards[shard].prepare("UPDATE orders SET routed_at = NULL, route_requested_at = ? WHERE account_id = ? AND reference = ?").bind(TEN_MINUTES_AGO(), creds.accountId, reference).run();
  return reference;
}
const routingOf = async (shard: number, accountId: number, reference: string) =>
  (await shards[shard].prepare("SELECT routed_at, route_requested_at FROM orders WHERE account_id = ? AND reference = ?").bind(accountId, reference).first<{ routed_at: string | null; route_requested_at: string }>())!;
/** An ended console session (expired ten minutes ago). */
async function endedSession(shard: number, accountId: number) {
  const row = await shards[shard]
    .prepare("INSERT INTO console_sessions (token_hash, role, account_id, created_at, last_seen_at, expires_at) VALUES (?, 'shop', ?, ?, ?, ?) RETURNING id")
    .bind(crypto.randomUUID(), accountId, TEN_MINUTES_AGO(), TEN_MINUTES_AGO(), TEN_MINUTES_AGO())
    .first<{ id: number }>();
  return row!.id;
}
const sessionLeft = async (shard: number, id: number) => (await shards[shard].prepare("SELECT count(*) AS n FROM console_sessions WHERE id = ?").bind(id).first<{ n: number }>())!.n;

/**
 * The sweepers that write every account's rows of the shard: none of them may fail. (Other sweepers
 * may record errors of other files' leftovers in the shared database: not this test's subject.)
 */
const SHARD_WIDE = ["unrouted_orders", "events_published", "deliveries_rekicked", "write_backs_rekicked", "deadlines_fired", "rematches", "sessions_ended", "feeds_pulled", "orders_pulled"];
const shardWideErrors = (errors: string | null) => Object.fromEntries(Object.entries(JSON.parse(errors ?? "{}") as Record<string, string>).filter(([k]) => SHARD_WIDE.includes(k)));

async function tick(at = Date.now()) {
  const ctx = createExecutionContext();
  await worker.scheduled!(createScheduledController({ cron: "* * * * *", scheduledTime: at }), env, ctx);
  await waitOnExecutionContext(ctx);
  return (await shards[0].prepare("SELECT counts, errors FROM sweeper_runs WHERE scheduled_at = ?").bind(new Date(at).toISOString().replace("Z", "000Z")).first<{ counts: string; errors: string | null }>())!;
}

describe("the cron beside a frozen account", () => {
  it("serves the shard's other accounts and leaves the frozen one's rows alone; the frozen one's work goes on once it has moved", async () => {
    const frozen = await accountOn(0);
    const frozenOrder = await lostRouting(frozen, 0, "frozen-1");
    // A feed due now (its first pull is due when made): claiming it would be a write of the frozen account.
    const { feed: frozenFeed } = await createFeed(frozen, { url: "https://feeds.supplier.test/frozen.csv", schedule: "hourly" });
    const feedDue = async () => (await shards[0].prepare("SELECT next_import_at AS at FROM product_feeds WHERE id = ?").bind(frozenFeed.id).first<{ at: string }>())!.at;
    const frozenFeedDue = await feedDue();
    const frozenHook = await subscribe(frozen, "ok", ["order.created"]);
    const frozenEvent = await seedEvent(frozen.accountId, { published: false });
    const frozenSession = await endedSession(0, frozen.accountId);
    expect((await move(frozen.accountId, { shard: 1, pause_after: "freeze" })).phase).toBe("copy");

    const other = await accountOn(0);
    const otherOrder = await lostRouting(other, 0, "other-1");
    const otherHook = await subscribe(other, "ok", ["order.created"]);
    const otherEvent = await seedEvent(other.accountId, { published: false });
    const otherSession = await endedSession(0, other.accountId);
    const frozenRouting = await routingOf(0, frozen.accountId, frozenOrder);

    const run = await tick();
    expect(shardWideErrors(run.errors)).toEqual({});
    // The other account: its routing asked again, its event delivered, its ended session gone.
    await waitFor(async () => (await routingOf(0, other.accountId, otherOrder)).routed_at !== null);
    await waitFor(async () => (await received(otherHook.url)).length === 1);
    expect((await received(otherHook.url))[0].headers["x-webhook-id"]).toBe(otherEvent);
    expect(await sessionLeft(0, otherSession)).toBe(0);
    // The frozen one: untouched.
    expect(await routingOf(0, frozen.accountId, frozenOrder)).toEqual(frozenRouting);
    expect(await rows("SELECT published_at FROM events WHERE id = ?", frozenEvent)).toEqual([{ published_at: null }]);
    expect(await sessionLeft(0, frozenSession), "the frozen one's session").toBe(1);
    expect(await feedDue(), "the frozen one's feed").toBe(frozenFeedDue);

    // Moved: its event is published and delivered from its new shard, its routing goes on there.
    await move(frozen.accountId, { shard: 1 });
    // Its feed (whose address answers nothing here) is not left for this or other files' ticks to pull.
    expect((await call("DELETE", `/api/v1/product-feeds/${frozenFeed.id}`, { creds: frozen })).status).toBe(204);
    const after = await tick(Date.now() + 1000);
    expect(shardWideErrors(after.errors)).toEqual({});
    await waitFor(async () => (await received(frozenHook.url)).length === 1);
    expect((await received(frozenHook.url))[0].headers["x-webhook-id"]).toBe(frozenEvent);
    // Its lost routing taken up on its new shard.
    await waitFor(async () => (await routingOf(1, frozen.accountId, frozenOrder)).routed_at !== null);
  });
});
