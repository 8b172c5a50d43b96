// Worker entry: the HTTP API (fetch), the order pipeline and its dead letters (queue), and the cron
// tick (scheduled): the pipeline sweepers, event publishing, the product feeds whose schedule has
// come, and the cleanup of ended console sessions.
import { createApp } from "./app";
import { deleteEndedSessions } from "./console/sessions";
import { feedTimeoutMs, runScheduledImports } from "./catalogue/imports.service";
import { createDb } from "./db";
import type { Bindings } from "./env";
import { sweepEvents } from "./events/publish.service";
import { handlePipelineBatch } from "./processing/consumer";
import { DEAD_LETTER_QUEUE, handleDeadLetterBatch } from "./processing/dead-letters";
import type { PipelineMessage } from "./lib/queue";
import { sweepRematches, sweepStuckDispatches, sweepUnroutedOrders } from "./processing/sweeper";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => (batch.queue === DEAD_LETTER_QUEUE ? handleDeadLetterBatch(batch, env) : handlePipelineBatch(batch, env)),
  scheduled: async (controller, env, ctx) => {
    // Ages are measured from the time the cron fired for, not from when this invocation got to run.
    const now = new Date(controller.scheduledTime);
    ctx.waitUntil(
      Promise.all([
        sweepUnroutedOrders(env, now),
        sweepStuckDispatches(env, now),
        sweepRematches(env, now),
        sweepEvents(env),
        runScheduledImports(createDb(env.DB), now, feedTimeoutMs(env)),
        deleteEndedSessions(createDb(env.DB), now),
      ]),
    );
  },
} satisfies ExportedHandler<Bindings, PipelineMessage>;
