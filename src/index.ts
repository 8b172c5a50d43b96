// Worker entry: the HTTP API (fetch), the order pipeline (queue), and the sweepers (scheduled).
import { createApp } from "./app";
import type { Bindings } from "./env";
import { sweepEvents } from "./events/publish.service";
import { handlePipelineBatch } from "./processing/consumer";
import type { PipelineMessage } from "./processing/messages";
import { sweepUnroutedOrders } from "./processing/sweeper";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => handlePipelineBatch(batch, env),
  scheduled: async (_controller, env, ctx) => {
    ctx.waitUntil(sweepUnroutedOrders(env));
    ctx.waitUntil(sweepEvents(env));
  },
} satisfies ExportedHandler<Bindings, PipelineMessage>;
