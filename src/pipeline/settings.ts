// The pipeline's own settings (wrangler.toml [vars]).
import type { Bindings } from "../env";

const positive = (raw: string | undefined, fallback: number) => {
  const n = Number(raw);
  return raw !== undefined && raw !== "" && Number.isFinite(n) && n >= 0 ? n : fallback;
};

/** Routing attempts in a row before an order is parked for an operator. */
export const maxRoutingAttempts = (env: Bindings) => Math.max(1, positive(env.ROUTING_MAX_ATTEMPTS, 20));

/** Seconds before the queue redelivers a message whose handling failed, after `attempts` deliveries. */
export const pipelineRetryDelay = (env: Bindings, attempts: number) =>
  Math.min(600, positive(env.PIPELINE_RETRY_BASE_SECONDS, 5) * 2 ** Math.max(0, attempts - 1));
