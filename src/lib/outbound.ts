// Calls that leave the service (supplier webhooks and e-mails, shop webhooks): how long each may
// take, and the lease that covers it. Every outbound call is time-boxed below its lease, so a lease
// only runs out when the Worker holding it died, never while it is still sending.
import type { Bindings } from "../env";

export type SendSettings = { timeoutMs: number; retryBaseSeconds: number; maxAttempts: number };

export function sendSettings(env: Bindings): SendSettings {
  const num = (raw: string | undefined, fallback: number) => {
    const n = Number(raw);
    return raw !== undefined && raw !== "" && Number.isFinite(n) && n >= 0 ? n : fallback;
  };
  return {
    timeoutMs: num(env.OUTBOUND_TIMEOUT_MS, 10_000),
    retryBaseSeconds: num(env.RETRY_BASE_SECONDS, 30),
    maxAttempts: Math.max(1, num(env.SEND_MAX_ATTEMPTS, 6)),
  };
}

/** What a lease adds to the call's own time box: the work before and after the call. */
export const LEASE_MARGIN_MS = 60_000;

/** When a lease taken now for one call of `timeoutMs` ends. */
export function leaseUntil(startedAt: Date, timeoutMs: number): Date {
  return new Date(startedAt.getTime() + timeoutMs + LEASE_MARGIN_MS);
}

export class OutboundTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`Timed out after ${timeoutMs} ms`);
    this.name = "TimeoutError";
  }
}

/**
 * The promise, or an OutboundTimeoutError after `timeoutMs`: for calls that take no AbortSignal
 * (the send_email binding), and as a hard cap over those that do (a body that trickles in).
 */
export async function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OutboundTimeoutError(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
