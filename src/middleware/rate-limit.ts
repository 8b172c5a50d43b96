// Rate limits with the Workers Rate Limiting binding: requests per credential, and failed
// authentication per client address (so guessing keys is slow; keys are 256-bit anyway).
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { ApiError, RATE_LIMIT_PERIOD_SECONDS as PERIOD_SECONDS, RATE_LIMITED } from "../lib/errors";

// Addresses this isolate saw go over the failure limit, so their next attempts are refused before
// any key is checked (the binding itself only counts when asked).
const blockedAddresses = new Map<string, number>();

function clientAddress(c: Context<AppEnv>): string {
  return c.req.header("cf-connecting-ip") ?? c.req.header("x-real-ip") ?? "local";
}

function tooMany(error: string): ApiError {
  return new ApiError(429, "Too Many Requests", { error }, { "Retry-After": String(PERIOD_SECONDS) });
}

/** Counts one request against a credential (an api-key id or a supplier key id). */
export async function limitCredential(c: Context<AppEnv>, credential: string): Promise<void> {
  const { success } = await c.env.API_RATE_LIMITER.limit({ key: credential });
  if (!success) throw tooMany(RATE_LIMITED);
}

/** Refuses an address that recently failed authentication too often. */
export function refuseBlockedAddress(c: Context<AppEnv>): void {
  const address = clientAddress(c);
  const until = blockedAddresses.get(address);
  if (until === undefined) return;
  if (until > Date.now()) throw tooMany(`Too many failed authentication attempts; retry after ${PERIOD_SECONDS} seconds.`);
  blockedAddresses.delete(address);
}

/** Counts a failed authentication; over the limit, the answer becomes a 429 instead of the 401. */
export async function countAuthFailure(c: Context<AppEnv>, failure: ApiError): Promise<ApiError> {
  const address = clientAddress(c);
  const { success } = await c.env.AUTH_FAILURE_LIMITER.limit({ key: address });
  if (success) return failure;
  if (blockedAddresses.size > 10_000) blockedAddresses.clear();
  blockedAddresses.set(address, Date.now() + PERIOD_SECONDS * 1000);
  return tooMany(`Too many failed authentication attempts; retry after ${PERIOD_SECONDS} seconds.`);
}
