// A send the supplier refused, or that failed for the last time, is a line leaving its supplier:
// where it goes next is the journey's to say (planLeaving), written in the batch that marks the
// dispatch failed, while its send still holds the lease. Sending (src/forwarding/forwarding.service.ts)
// knows no routing: it returns the dispatch it gave up on, and these carry it on.
import type { Db } from "../db";
import type { Bindings } from "../env";
import { sendDispatch, sendHandedOver, writeFailedSend, type FailedSend, type SendResult } from "../forwarding/forwarding.service";
import type { Pipeline } from "../lib/queue";
import { isoMicro } from "../lib/time";
import { completionStatements, lineStatements, newToken } from "../orders/lifecycle";
import { planLeaving } from "./journey";

/** One attempt at a dispatch (its queue message, a retry's, the sweeper's); a dispatch given up on has its lines moved on. */
export async function attemptDispatch(db: Db, env: Bindings, pipeline: Pipeline, dispatchId: number): Promise<SendResult> {
  const result = await sendDispatch(db, env, dispatchId);
  if (!result.done) return result;
  if (result.leaving) await moveOn(db, pipeline, result.leaving);
  return { done: true };
}

/** The first attempt at the route step's push dispatches, handed over under its lease (send_dispatches), and the lines of the ones given up on moved on. */
export async function attemptHandedOver(db: Db, env: Bindings, pipeline: Pipeline, dispatchIds: number[], lease: string): Promise<void> {
  for (const failed of await sendHandedOver(db, env, pipeline, dispatchIds, lease)) await moveOn(db, pipeline, failed);
}

/** The dispatch marked failed and its lines gone where the journey sends them, in one leased batch; the re-routed orders queued once it is written. */
async function moveOn(db: Db, pipeline: Pipeline, failed: FailedSend): Promise<void> {
  const { order, supplier, lines } = failed.held;
  const at = isoMicro();
  const plan = await planLeaving(
    db,
    order.accountId,
    lines.map((line) => ({ line, from: "ruled", to: "failed", cause: "failed", supplier, message: failed.message })),
    at,
    order,
  );
  const token = newToken();
  const written = await writeFailedSend(db, failed, [...lineStatements(plan.changes, at, { token }), ...plan.statements(token), ...completionStatements([order.id], at)]);
  if (written) await pipeline.send(plan.followUps);
}
