// A plan: what the domain decided, as plain data. The domain reads what it needs and builds one
// without writing anything: the statements of one batch, and from that batch's results what it
// answers and the follow-ups to queue. The caller carries it out (a request handler through
// carryOut below, the pipeline's consumer for the route step), so a journey is tested as data.
import type { SQL } from "drizzle-orm";
import type { Db } from "../db";
import { LOST, retryLostRaces, tryBatch } from "../db/guards";
import type { Pipeline, PipelineMessage } from "./queue";

export type Settled<R> = { result: R; followUps: PipelineMessage[] };

export type Plan<R> = {
  /** One batch, all or nothing; a guard in it that finds the data changed since it was read loses the race. */
  statements: SQL[];
  /** From the batch's results: what the caller answers, and the messages to queue. */
  settle(results: D1Result[]): Settled<R>;
};

/** A plan's batch on the request path, planned again from a fresh read while it loses a race (a 409 after the third time, nothing written). */
export function runPlan<R>(db: Db, plan: () => Promise<Plan<R>>): Promise<Settled<R>> {
  return retryLostRaces(async () => {
    const planned = await plan();
    const results = await tryBatch(db, planned.statements);
    return results === LOST ? LOST : planned.settle(results);
  });
}

/** Carries out a plan on the request path: its batch (runPlan), then its follow-ups handed to the pipeline. */
export async function carryOut<R>(db: Db, pipeline: Pipeline, plan: () => Promise<Plan<R>>): Promise<R> {
  const { result, followUps } = await runPlan(db, plan);
  await pipeline.send(followUps);
  return result;
}
