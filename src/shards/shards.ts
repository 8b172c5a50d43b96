// Shards: each one a D1 database with the full schema, holding some accounts and everything of
// theirs. Shard 0 is the binding DB (the database every deployment started with, so an existing
// deployment keeps its data where it is); shard n > 0 is the binding SHARD_n (wrangler.toml).
//
// Code off the request path and the services are written against an `env` whose DB is "the
// database" and whose PIPELINE is "the queue": a shard's view of env is exactly that for one shard,
// with every message it sends stamped with the shard, so the consumer runs it on the same shard.
import { MAX_SHARDS, shardDeclarationProblem } from "../../scripts/lib/shards.mjs";
import type { Bindings } from "../env";
import type { PipelineMessage } from "../lib/queue";

/** The shard numbers this deployment has, 0 first (SHARD_1, SHARD_2, … as declared; never past the limit). */
export function shardNumbers(env: Bindings): number[] {
  const numbers = [0];
  for (let n = 1; n < MAX_SHARDS && (env as unknown as Record<string, unknown>)[`SHARD_${n}`] !== undefined; n++) numbers.push(n);
  return numbers;
}

const declarationChecked = new WeakMap<object, string | null>();

/**
 * Why this deployment's SHARD_n bindings are refused (past SHARD_63, a gap, an odd name), or null:
 * checked once per env object (scripts/lib/shards.mjs; the migration command refuses the same).
 */
export function shardDeclarationError(env: Bindings): string | null {
  const root = rootOfView.get(env) ?? env;
  let problem = declarationChecked.get(root);
  if (problem === undefined) {
    problem = shardDeclarationProblem(Object.keys(root));
    declarationChecked.set(root, problem);
  }
  return problem;
}

/** A shard's database binding; throws for a shard this deployment does not have. */
export function shardBinding(env: Bindings, shard: number): D1Database {
  // A shard's view of env has its own DB: shard 0 is the Worker's DB binding, not the view's.
  const root = rootOfView.get(env) ?? env;
  const binding = shard === 0 ? root.DB : ((root as unknown as Record<string, D1Database | undefined>)[`SHARD_${shard}`] ?? undefined);
  if (!binding) throw new Error(`Shard ${shard} has no binding (SHARD_${shard} in wrangler.toml).`);
  return binding;
}

const views = new WeakMap<object, Map<number, Bindings>>();
const rootOfView = new WeakMap<object, Bindings>();

/** env as one shard sees it: DB is the shard's database, and PIPELINE and OUTBOUND stamp the shard on every message. */
export function shardEnv(env: Bindings, shard: number): Bindings {
  env = rootOfView.get(env) ?? env;
  let byShard = views.get(env);
  if (!byShard) views.set(env, (byShard = new Map()));
  let view = byShard.get(shard);
  if (!view) {
    const stamp = (body: PipelineMessage): PipelineMessage => ({ ...body, shard });
    const stamping = (queue: Queue) =>
      ({
        send: (body: PipelineMessage, options?: QueueSendOptions) => queue.send(stamp(body), options),
        sendBatch: (messages: Iterable<MessageSendRequest<PipelineMessage>>, options?: QueueSendBatchOptions) =>
          queue.sendBatch([...messages].map((m) => ({ ...m, body: stamp(m.body) })), options),
      }) as Queue<PipelineMessage>;
    view = { ...env, DB: shardBinding(env, shard), PIPELINE: stamping(env.PIPELINE), OUTBOUND: stamping(env.OUTBOUND) };
    rootOfView.set(view, env);
    byShard.set(shard, view);
  }
  return view;
}

/** The shard an env view is of (0 for the Worker's own env): what a new order's reference is drawn in. */
export function shardOfView(env: Bindings): number {
  const root = rootOfView.get(env);
  if (!root) return 0;
  for (const [shard, view] of views.get(root) ?? []) if (view === env) return shard;
  return 0;
}

/** The shard a message belongs to (messages sent before sharding carry none: shard 0). */
export const shardOf = (body: PipelineMessage): number => body.shard ?? 0;

/** A queue batch split by shard: each part acks and retries its own messages. */
export function batchesByShard<B>(batch: MessageBatch<B>, shardOfBody: (body: B) => number): { shard: number; batch: MessageBatch<B> }[] {
  const parts = new Map<number, Message<B>[]>();
  for (const message of batch.messages) {
    const shard = shardOfBody(message.body);
    parts.set(shard, [...(parts.get(shard) ?? []), message]);
  }
  return [...parts].map(([shard, messages]) => ({ shard, batch: subBatch(batch, messages) }));
}

/** Some of a batch's messages as a batch of their own (acking and retrying only them). */
export function subBatch<B>(batch: MessageBatch<B>, messages: Message<B>[]): MessageBatch<B> {
  return {
    ...batch,
    queue: batch.queue,
    messages,
    ackAll: () => messages.forEach((m) => m.ack()),
    retryAll: (options?: QueueRetryOptions) => messages.forEach((m) => m.retry(options)),
  };
}

/** The shard a dead letter's body names (anything unreadable: shard 0, where it is recorded). */
export const shardOfUnknown = (body: unknown): number =>
  body && typeof body === "object" && Number.isInteger((body as { shard?: unknown }).shard) ? (body as { shard: number }).shard : 0;
