// The one error type of the service; app.onError renders it.
import type { ContentfulStatusCode } from "hono/utils/http-status";

export type ValidationErrors = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly detail?: { error?: string; errors?: ValidationErrors },
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  get body(): { message: string; error?: string; errors?: ValidationErrors } {
    return { message: this.message, ...this.detail };
  }

  static unauthorized(error: string) {
    return new ApiError(401, "Unauthorized", { error });
  }
  static notFound(error: string) {
    return new ApiError(404, "Not Found", { error });
  }
  static validation(errors: ValidationErrors) {
    return new ApiError(422, "Errors", { errors });
  }
  static badRequest(error: string) {
    return new ApiError(400, "Bad Request", { error });
  }
  static conflict(error: string) {
    return new ApiError(409, "Conflict", { error });
  }
  /** The account is moving to another shard (src/shards/move.ts): its writes wait a moment. */
  static accountMoving() {
    return new ApiError(
      503,
      "Service Unavailable",
      { error: "The account is being moved to another database; its data can be read, and writes work again in a moment." },
      { "Retry-After": String(MOVING_RETRY_SECONDS) },
    );
  }
}

const MOVING_RETRY_SECONDS = 5;

/** An order the shard cannot index: it has minted 2^32 orders in its id block (drizzle/0022's trigger raises "order_ids_exhausted"). */
export function isOrderIdsExhausted(err: unknown): boolean {
  return causeMatches(err, /order_ids_exhausted/);
}

/** The service's answer to a write past the orders' id limit: no order is created. */
export const ORDER_IDS_EXHAUSTED_BODY = {
  message: "Service Unavailable",
  error: "This database has taken in all the orders it can (2^32 per id block); no order was created. The operator moves accounts to another shard (docs/operations.md, Shards).",
} as const;

function causeMatches(err: unknown, pattern: RegExp): boolean {
  // Drizzle wraps D1's error: the cause chain holds it.
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (pattern.test(e.message)) return true;
  return false;
}

/** A write refused by a moving account's freeze (the triggers of drizzle/0015 raise "account_moving"). */
export function isAccountMoving(err: unknown): boolean {
  return causeMatches(err, /account_moving/);
}

/** The `message` of each error status: Laravel's reason phrases, as the original service answers. */
export const STATUS_MESSAGES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
};

/** The largest request body but a feed file's, the API's and the console's forms alike: in bytes as sent, and in UTF-8 once decoded (src/lib/charset.ts). */
export const MAX_BODY_BYTES = 1024 * 1024;

export const PAYLOAD_TOO_LARGE_BODY = {
  message: "Payload Too Large",
  error: "The request body must not be larger than 1 MiB.",
} as const;

/** The rate limiters' period (wrangler.toml); Retry-After tells clients to wait that long at most. */
export const RATE_LIMIT_PERIOD_SECONDS = 60;

/** A credential over its limit (src/middleware/rate-limit.ts answers it; the API document shows it). */
export const RATE_LIMITED = `Rate limit exceeded for this key; retry after ${RATE_LIMIT_PERIOD_SECONDS} seconds.`;

export const INTERNAL_ERROR_BODY = {
  message: "Internal Server Error",
  error: "Something went wrong on our side, please retry later.",
} as const;
