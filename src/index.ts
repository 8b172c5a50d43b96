// Worker entry: the HTTP API (fetch), the order pipeline, the outbound queue and their dead letters
// (queue: the same consumer for both, each queue's batches apart), and the cron
// tick (scheduled): the pipeline sweepers (supplier deadlines among them), event publishing, the
// product feeds whose schedule has come, and the cleanup of ended console sessions, each run
// recorded (src/pipeline/cron.ts).
import { createApp } from "./app";
import type { Bindings } from "./env";
import { meteredWork, withMeteredDirectory } from "./db/metrics";
import { handlePipelineBatch } from "./pipeline/consumer";
import { runCron } from "./pipeline/cron";
import { DEAD_LETTER_QUEUES, handleDeadLetterBatch } from "./pipeline/dead-letters";
import type { PipelineMessage } from "./lib/queue";
import { withOutboundPolicy } from "./lib/outbound-address";
import { keepOnShard } from "./shards/redirect";
import { batchesByShard, shardDeclarationError, shardEnv, shardNumbers, shardOfUnknown, subBatch } from "./shards/shards";

const app = createApp();

const logged = new WeakSet<object>();

/**
 * A deployment declaring shards past the limit (or with a gap) is refused: every HTTP request
 * answers 503, and the reason is logged once per isolate. The queue and the cron go on for shards
 * 0 to 63 (shardNumbers never lists more), so nothing already taken in is lost or stuck; no account
 * can be created or moved meanwhile. `npm run db:migrate:*` refuses the same wrangler.toml first.
 */
function refusedDeclaration(env: Bindings): string | null {
  const problem = shardDeclarationError(env);
  if (problem && !logged.has(env)) {
    logged.add(env);
    console.error(JSON.stringify({ level: "error", error: `Refused shard bindings: ${problem}` }));
  }
  return problem;
}

export default {
  fetch: (request, env, ctx) => {
    if (refusedDeclaration(env)) {
      return Response.json(
        { message: "Service Unavailable", error: "The service's database configuration is refused; the operator finds the reason in the Worker's log." },
        { status: 503 },
      );
    }
    return app.fetch(request, env, ctx);
  },
  // Sends check their addresses again under the deployment's policy (src/lib/outbound-address.ts).
  queue: (batch, env) => withOutboundPolicy(env, () => consume(batch, env)),
  // The sweepers, feeds and cleanups of every shard, each shard's run recorded on that shard.
  scheduled: async (controller, env, ctx) => {
    // Ages are measured from the time the cron fired for, not from when this invocation got to run.
    const at = new Date(controller.scheduledTime);
    refusedDeclaration(env);
    ctx.waitUntil(withOutboundPolicy(env, () => Promise.all(shardNumbers(env).map((shard) => runCron(shardEnv(env, shard), at)))));
  },
} satisfies ExportedHandler<Bindings, PipelineMessage>;

// Every message names its shard (src/shards): each shard's part of a batch runs on that shard.
async function consume(batch: MessageBatch<PipelineMessage>, env: Bindings): Promise<void> {
  refusedDeclaration(env);
  // Benchmark runs count the directory's statements apart (src/db/metrics.ts).
  if (env.BENCH_METRICS === "1") env = withMeteredDirectory(env);
  const parts = batchesByShard(batch as MessageBatch<unknown>, shardOfUnknown);
  await Promise.all(
    parts.map(async ({ shard, batch: part }) => {
      if (DEAD_LETTER_QUEUES.has(batch.queue)) return handleDeadLetterBatch(part, shardEnv(env, shard));
      // A message of an account that moved since it was sent goes on to the account's shard.
      const messages = (part as MessageBatch<PipelineMessage>).messages;
      const staying = await meteredWork(env.BENCH_METRICS === "1", "shard_check", messages.length, () => keepOnShard(env, shard, messages));
      if (staying.length > 0) await handlePipelineBatch(subBatch(part as MessageBatch<PipelineMessage>, staying), shardEnv(env, shard));
    }),
  );
}
