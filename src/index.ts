// Worker entry: the HTTP API (fetch), the order pipeline and its dead letters (queue), and the cron
// tick (scheduled): the pipeline sweepers (supplier deadlines among them), event publishing, the
// product feeds whose schedule has come, and the cleanup of ended console sessions, each run
// recorded (src/processing/cron.ts).
import { createApp } from "./app";
import type { Bindings } from "./env";
import { handlePipelineBatch } from "./processing/consumer";
import { runCron } from "./processing/cron";
import { DEAD_LETTER_QUEUE, handleDeadLetterBatch } from "./processing/dead-letters";
import type { PipelineMessage } from "./lib/queue";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => (batch.queue === DEAD_LETTER_QUEUE ? handleDeadLetterBatch(batch, env) : handlePipelineBatch(batch, env)),
  scheduled: async (controller, env, ctx) => {
    // Ages are measured from the time the cron fired for, not from when this invocation got to run.
    ctx.waitUntil(runCron(env, new Date(controller.scheduledTime)));
  },
} satisfies ExportedHandler<Bindings, PipelineMessage>;
