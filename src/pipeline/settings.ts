// The pipeline's own settings (wrangler.toml [vars]).
import type { Bindings } from "../env";
import { backoffSeconds } from "../lib/outbound-job";

const positive = (raw: string | undefined, fallback: number) => {
  const n = Number(raw);
  return raw !== undefined && raw !== "" && Number.isFinite(n) && n >= 0 ? n : fallback;
};

/** Routing attempts in a row before an order is parked for an operator. */
export const maxRoutingAttempts = (env: Bindings) => Math.max(1, positive(env.ROUTING_MAX_ATTEMPTS, 20));

/** At most this long before a failed pipeline message is tried again. */
const PIPELINE_RETRY_CAP_SECONDS = 600;

/** Seconds before the queue redelivers a message whose handling failed, after `attempts` deliveries: the engine's one backoff. */
export const pipelineRetryDelay = (env: Bindings, attempts: number) =>
  backoffSeconds({ baseSeconds: positive(env.PIPELINE_RETRY_BASE_SECONDS, 5), capSeconds: PIPELINE_RETRY_CAP_SECONDS }, attempts);
