// Worker entry: the HTTP API (fetch), the order pipeline and its dead letters (queue), and the cron
// tick (scheduled): the pipeline sweepers (supplier deadlines among them), event publishing, the
// product feeds whose schedule has come, and the cleanup of ended console sessions, each run
// recorded (src/processing/cron.ts).
import { createApp } from "./app";
import type { Bindings } from "./env";
import { meteredWork, withMeteredDirectory } from "./db/metrics";
import { handlePipelineBatch } from "./processing/consumer";
import { runCron } from "./processing/cron";
import { DEAD_LETTER_QUEUE, handleDeadLetterBatch } from "./processing/dead-letters";
import type { PipelineMessage } from "./lib/queue";
import { keepOnShard } from "./shards/redirect";
import { batchesByShard, shardEnv, shardNumbers, shardOfUnknown, subBatch } from "./shards/shards";

const app = createApp();

export default {
  fetch: app.fetch,
  // Every message names its shard (src/shards): each shard's part of a batch runs on that shard.
  queue: async (batch, env) => {
    // Benchmark runs count the directory's statements apart (src/db/metrics.ts).
    if (env.BENCH_METRICS === "1") env = withMeteredDirectory(env);
    const parts = batchesByShard(batch as MessageBatch<unknown>, shardOfUnknown);
    await Promise.all(
      parts.map(async ({ shard, batch: part }) => {
        if (batch.queue === DEAD_LETTER_QUEUE) return handleDeadLetterBatch(part, shardEnv(env, shard));
        // A message of an account that moved since it was sent goes on to the account's shard.
        const messages = (part as MessageBatch<PipelineMessage>).messages;
        const staying = await meteredWork(env.BENCH_METRICS === "1", "shard_check", messages.length, () => keepOnShard(env, shard, messages));
        if (staying.length > 0) await handlePipelineBatch(subBatch(part as MessageBatch<PipelineMessage>, staying), shardEnv(env, shard));
      }),
    );
  },
  // The sweepers, feeds and cleanups of every shard, each shard's run recorded on that shard.
  scheduled: async (controller, env, ctx) => {
    // Ages are measured from the time the cron fired for, not from when this invocation got to run.
    const at = new Date(controller.scheduledTime);
    ctx.waitUntil(Promise.all(shardNumbers(env).map((shard) => runCron(shardEnv(env, shard), at))));
  },
} satisfies ExportedHandler<Bindings, PipelineMessage>;
