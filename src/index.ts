// Worker entry: the HTTP API (fetch), the order pipeline (queue), and the sweeper (scheduled).
import { createApp } from "./app";
import type { Bindings } from "./env";
import { handlePipelineBatch } from "./processing/consumer";
import type { PipelineMessage } from "./processing/messages";
import { sweepStuckDispatches, sweepUnroutedOrders } from "./processing/sweeper";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => handlePipelineBatch(batch, env),
  scheduled: async (controller, env, ctx) => {
    // Ages are measured from the time the cron fired for, not from when this invocation got to run.
    const now = new Date(controller.scheduledTime);
    ctx.waitUntil(Promise.all([sweepUnroutedOrders(env, now), sweepStuckDispatches(env, now)]));
  },
} satisfies ExportedHandler<Bindings, PipelineMessage>;
