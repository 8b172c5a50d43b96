// One cron tick: every sweeper side by side (one failing never stops the others), then what each
// did recorded durably in sweeper_runs (the operator's pipeline page shows the last runs), and runs
// older than a week pruned in the same batch.
import { desc, lt } from "drizzle-orm";
import { feedTimeoutMs, runScheduledImports } from "../catalogue/imports.service";
import { deleteEndedSessions } from "../accounts/sign-in-sessions";
import { createDb, type Db } from "../db";
import { sweeperRuns, type SweeperRun } from "../db/schema";
import type { Bindings } from "../env";
import { sweepEvents } from "../events/publish.service";
import { carrierPipeline, enqueue } from "../lib/queue";
import { sealingKeys } from "../lib/sealed";
import { isoMicro } from "../lib/time";
import { pullMissedOrders } from "../shops/order-pull.service";
import { archiveDue } from "../archive/archive.service";
import { presentArchived } from "../archive/archive.present";
import { shardOfView } from "../shards/shards";
import { continueDeletions } from "../shards/delete";
import { deletionHooks } from "../accounts/deletion.service";
import { syncsToResume } from "../shops/stock/stock-sync.service";
import { stockSyncMessages } from "../shops/stock/queue";
import { pollInboundFiles } from "../forwarding/inbound-files.service";
import { sweepDeadlines, sweepRematches, sweepStuckCancellations, sweepStuckDispatches, sweepStuckReturnNotices, sweepUnroutedOrders } from "./sweeper";

/** Runs are kept this long: a weekend's incidents are still there on Monday. */
export const SWEEPER_RUNS_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

/** Each sweeper, by the name its count is recorded under, and what that count means. */
export const SWEEPERS = {
  unrouted_orders: "Orders re-queued for routing",
  stuck_dispatches: "Sends re-queued",
  stuck_cancellations: "Cancellation requests re-queued",
  stuck_return_notices: "Return notices re-queued",
  deadlines_fired: "Supplier deadlines fired",
  rematches: "Re-matches re-queued",
  events_published: "Events published",
  deliveries_rekicked: "Webhook deliveries re-sent",
  write_backs_rekicked: "Shop write-backs re-sent",
  feeds_pulled: "Feeds pulled",
  inbound_files: "Supplier answer files processed",
  sessions_ended: "Console sessions cleaned up",
  stock_syncs_resumed: "Stock syncs resumed",
  orders_pulled: "Orders taken in or cancelled by the shops' reconciliation pull",
  orders_archived: "Finished orders archived to R2",
  deletions_continued: "Account deletions carried on",
} as const;
export type SweeperName = keyof typeof SWEEPERS;

/** One sweeper (or two that report together): the names it counts under, and its run. */
export type Job = { names: SweeperName[]; run: () => Promise<Partial<Record<SweeperName, number>>> };

function jobs(env: Bindings, db: Db, now: Date): Job[] {
  return [
    { names: ["unrouted_orders"], run: async () => ({ unrouted_orders: (await sweepUnroutedOrders(env, now)).length }) },
    { names: ["stuck_dispatches"], run: async () => ({ stuck_dispatches: (await sweepStuckDispatches(env, now)).length }) },
    { names: ["stuck_cancellations"], run: async () => ({ stuck_cancellations: (await sweepStuckCancellations(env, now)).length }) },
    { names: ["stuck_return_notices"], run: async () => ({ stuck_return_notices: (await sweepStuckReturnNotices(env, now)).length }) },
    {
      names: ["deadlines_fired"],
      run: async () => {
        const fired = await sweepDeadlines(env, now);
        return { deadlines_fired: fired.acknowledgement.length + fired.shipping.length };
      },
    },
    { names: ["rematches"], run: async () => ({ rematches: (await sweepRematches(env, now)).length }) },
    {
      names: ["events_published", "deliveries_rekicked", "write_backs_rekicked"],
      run: async () => {
        const { published, rekicked, writeBacksRekicked } = await sweepEvents(env, carrierPipeline(env), now);
        return { events_published: published, deliveries_rekicked: rekicked, write_backs_rekicked: writeBacksRekicked };
      },
    },
    {
      names: ["feeds_pulled"],
      run: async () => {
        const outcomes = await runScheduledImports(db, () => sealingKeys(env), now, feedTimeoutMs(env));
        await enqueue(env, stockSyncMessages(outcomes.flatMap((o) => o.stockSyncs)));
        return { feeds_pulled: outcomes.length };
      },
    },
    {
      names: ["inbound_files"],
      run: async () => ({ inbound_files: await pollInboundFiles(db, env, carrierPipeline(env), now) }),
    },
    { names: ["sessions_ended"], run: async () => ({ sessions_ended: await deleteEndedSessions(db, now) }) },
    {
      names: ["stock_syncs_resumed"],
      run: async () => {
        const ids = await syncsToResume(db, now);
        await enqueue(env, stockSyncMessages(ids));
        return { stock_syncs_resumed: ids.length };
      },
    },
    {
      names: ["orders_pulled"],
      run: async () => {
        // New orders' routing is queued and awaited here: the tick's promise is all the cron keeps alive.
        const queued: Promise<void>[] = [];
        const pipeline = { ...carrierPipeline(env), sendAfterResponse: (m: Parameters<ReturnType<typeof carrierPipeline>["sendAfterResponse"]>[0]) => void queued.push(enqueue(env, m)) };
        let outcomes: Awaited<ReturnType<typeof pullMissedOrders>>;
        try {
          outcomes = await pullMissedOrders(env, db, pipeline, shardOfView(env), now);
        } finally {
          // Sent whatever happened after (the unrouted-orders sweeper is the net behind a failed send).
          await Promise.allSettled(queued);
        }
        // A fault of ours with a connection (the others were pulled): recorded as this sweeper's error.
        const faults = outcomes.filter((o) => o.unexpected);
        if (faults.length) throw new Error(faults.map((o) => `Connection ${o.connectionId}: ${o.error}`).join("; "));
        return { orders_pulled: outcomes.reduce((n, o) => n + o.created + o.cancelled, 0) };
      },
    },
    // Finished orders past their account's archive_after_days, a bounded batch per tick (src/archive).
    { names: ["orders_archived"], run: async () => ({ orders_archived: await archiveDue(db, env.ARCHIVE, now, presentArchived) }) },
    // An account deletion left half-way (its CLI stopped) goes on (src/shards/delete.ts).
    { names: ["deletions_continued"], run: async () => ({ deletions_continued: await continueDeletions(env, shardOfView(env), deletionHooks(env.ARCHIVE), now) }) },
  ];
}

/**
 * The scheduled handler's work. `now` is the time the cron fired for. Never throws for a failing
 * sweeper (its error is logged and recorded); throws only when the run cannot be recorded.
 */
export async function runCron(env: Bindings, now: Date, only?: Job[]): Promise<Omit<SweeperRun, "id">> {
  const db = createDb(env.DB);
  const startedAt = isoMicro();
  const counts: Record<string, number> = {};
  const errors: Record<string, string> = {};
  // `only`: a test's own sweepers (one that fails cannot be made from real ones without failing
  // every other test's pipeline work that shares the database).
  const list = only ?? jobs(env, db, now);
  const outcomes = await Promise.allSettled(list.map((j) => j.run()));
  outcomes.forEach((outcome, i) => {
    if (outcome.status === "fulfilled") Object.assign(counts, outcome.value);
    else {
      console.error(JSON.stringify({ level: "error", event: "sweeper_failed", sweepers: list[i].names, error: String(outcome.reason) }));
      for (const name of list[i].names) errors[name] = String(outcome.reason).slice(0, 500);
    }
  });
  const run = {
    scheduledAt: isoMicro(now),
    startedAt,
    finishedAt: isoMicro(),
    counts,
    errors: Object.keys(errors).length ? errors : null,
  };
  await db.batch([
    db.insert(sweeperRuns).values(run),
    db.delete(sweeperRuns).where(lt(sweeperRuns.startedAt, isoMicro(new Date(Date.parse(startedAt) - SWEEPER_RUNS_KEPT_MS)))),
  ]);
  return run;
}

/** The most recent runs, newest first. */
export async function lastSweeperRuns(db: Db, limit: number): Promise<SweeperRun[]> {
  return db.select().from(sweeperRuns).orderBy(desc(sweeperRuns.id)).limit(limit);
}
