// Every call to a shop goes through a ShopHttp: time-boxed (the write-back's lease outlives the
// whole attempt), recorded for the attempt log with the credentials left out, and, for a connection
// in dry-run mode, writes are recorded instead of sent (lookups still go out: a dry run shows the
// exact writes it would make to the order it really found).
import { urlRefusal } from "../../lib/outbound-address";
import { parseRetryAfter } from "../../lib/outbound-job";
import { explainFetchFailure, isTimeout } from "../../lib/fetch-failure";

/** How much of a shop's answer is kept in a call's record and in an error. */
export const ANSWER_CHARS = 500;

/** A call as the attempt log shows it. */
export type ShopCall = {
  method: string;
  /** The path and query, relative to the connection's base_url; credentials never appear in it. */
  path: string;
  /** What was sent, summarised (the JSON or XML body, at most ANSWER_CHARS characters). */
  sent: string | null;
  /** The shop's HTTP status; null when no answer came (or in a dry run, for a write). */
  status: number | null;
  /** The shop's answer (at most ANSWER_CHARS characters), or why there was none. */
  answer: string | null;
  durationMs: number;
  /** A write recorded, not sent (dry-run mode). */
  dryRun: boolean;
};

export type ShopErrorKind =
  | "unreachable" // DNS, refused, TLS, reset: nothing reached the shop's application
  | "timeout" // no answer in time: the write may or may not have happened (unclear)
  | "auth" // 401, or 403 for missing permissions
  | "not_found" // 404: the order (or an endpoint, e.g. the tracking extension) is not there
  | "invalid" // 400 / 422: the shop refused what we sent; retrying the same will not help
  | "rate_limited" // 429 (retryAfterSeconds from Retry-After)
  | "server" // 5xx
  | "unexpected" // an answer we cannot read
  | "address"; // the base_url points where we never connect (src/lib/outbound-address.ts): nothing was sent

/** A failed call, in words an operator can act on. `unclear`: the write may have happened. */
export class ShopError extends Error {
  constructor(
    readonly kind: ShopErrorKind,
    message: string,
    readonly status: number | null = null,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = "ShopError";
  }
  /** Whether the shop may have done the write although we saw no success. */
  get unclear(): boolean {
    return this.kind === "timeout" || this.kind === "server" || this.kind === "unexpected";
  }
  /** Whether trying again later may succeed. */
  get retryable(): boolean {
    return this.kind !== "invalid" && this.kind !== "auth" && this.kind !== "not_found" && this.kind !== "address";
  }
}

export type ShopResponse = { status: number; headers: Headers; text: string; dryRun: boolean; json<T = unknown>(): T };

export type ShopRequest = {
  /** Path and query relative to the base URL, e.g. "/wp-json/wc/v3/orders/12". */
  path: string;
  method?: string;
  headers?: Record<string, string>;
  /** A JSON body (sent as application/json), or a raw body with its own content-type header. */
  json?: unknown;
  body?: string;
  /**
   * A call that changes nothing in the shop (a GET, a search by POST, Shopware's token request):
   * sent in dry-run mode too. Defaults to true for GET and HEAD.
   */
  lookup?: boolean;
  /** Statuses the adapter handles itself (e.g. 404 when looking for an extension); others throw ShopError. */
  accept?: number[];
  /** The answer carries a secret (Shopware's access token): a success is recorded as "[redacted]". */
  secretAnswer?: boolean;
};

export type ShopHttpOptions = {
  baseUrl: string;
  /** The whole call's time box, below the write-back's lease. */
  timeoutMs: number;
  dryRun: boolean;
  /** Strings never to write into a record (the credentials): replaced with "[redacted]". */
  secrets: string[];
  /**
   * Before each call goes out: the write-back renews its lease here when the call would not end
   * inside it, and throws when it cannot (the call is then not made).
   */
  beforeCall?: () => Promise<void>;
};

export class ShopHttp {
  readonly calls: ShopCall[] = [];
  private closed = false;
  constructor(private readonly options: ShopHttpOptions) {}

  /** No call goes out after this: an attempt past its time box must not write later, unseen. */
  close(): void {
    this.closed = true;
  }

  get dryRun(): boolean {
    return this.options.dryRun;
  }

  private redact(text: string): string {
    let out = text;
    for (const s of this.options.secrets) if (s) out = out.split(s).join("[redacted]");
    return out;
  }

  private record(call: Omit<ShopCall, "sent" | "answer" | "path"> & { path: string; sent: string | null; answer: string | null }) {
    const cut = (t: string | null) => (t === null ? null : this.redact(t).slice(0, ANSWER_CHARS));
    this.calls.push({ ...call, path: this.redact(call.path), sent: cut(call.sent), answer: cut(call.answer) });
  }

  async request(req: ShopRequest): Promise<ShopResponse> {
    const method = req.method ?? "GET";
    const lookup = req.lookup ?? (method === "GET" || method === "HEAD");
    const body = req.json !== undefined ? JSON.stringify(req.json) : req.body;
    const headers: Record<string, string> = { Accept: "application/json", "User-Agent": "order-intake-shop-sync/1", ...req.headers };
    if (req.json !== undefined) headers["Content-Type"] = "application/json";
    const started = Date.now();
    if (this.options.dryRun && !lookup) {
      this.record({ method, path: req.path, sent: body ?? null, status: null, answer: null, durationMs: 0, dryRun: true });
      return { status: 0, headers: new Headers(), text: "", dryRun: true, json: <T>() => ({}) as T };
    }
    if (this.closed) throw new ShopError("timeout", `Not sent: the attempt had ended (${method} ${req.path})`);
    await this.options.beforeCall?.();
    const url = new URL(this.options.baseUrl + req.path);
    // A connection stored before the address policy, pointing where we never connect: refused unsent.
    const refusal = urlRefusal(url);
    if (refusal) {
      const why = `Not sent: the connection's base_url ${refusal} (docs/api.md, "Where a connection may point")`;
      this.record({ method, path: req.path, sent: body ?? null, status: null, answer: why, durationMs: 0, dryRun: false });
      throw new ShopError("address", why);
    }
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, { method, headers, body, redirect: "manual", signal: AbortSignal.timeout(this.options.timeoutMs) });
      text = await res.text();
    } catch (error) {
      const timedOut = isTimeout(error);
      const why = await explainFetchFailure(url, error, this.options.timeoutMs);
      this.record({ method, path: req.path, sent: body ?? null, status: null, answer: why, durationMs: Date.now() - started, dryRun: false });
      throw new ShopError(timedOut ? "timeout" : "unreachable", why.charAt(0).toUpperCase() + why.slice(1));
    }
    const answer = req.secretAnswer && res.status >= 200 && res.status < 300 ? "[redacted]" : text;
    this.record({ method, path: req.path, sent: body ?? null, status: res.status, answer, durationMs: Date.now() - started, dryRun: false });
    const response: ShopResponse = {
      status: res.status,
      headers: res.headers,
      text,
      dryRun: false,
      json: <T>() => {
        try {
          return JSON.parse(text) as T;
        } catch {
          throw new ShopError("unexpected", `${method} ${req.path} answered ${res.status} with something that is not JSON: ${this.redact(text).slice(0, 200)}`, res.status);
        }
      },
    };
    if ((res.status >= 200 && res.status < 300) || req.accept?.includes(res.status)) return response;
    throw errorFor(method, this.redact(req.path), res.status, res.headers, this.redact(text));
  }
}

/** A non-2xx answer as a ShopError, its message naming the call, the status and the shop's words. */
export function errorFor(method: string, path: string, status: number, headers: Headers, text: string): ShopError {
  const said = text ? `: ${text.slice(0, 300)}` : "";
  const call = `${method} ${path}`;
  if (status === 429) {
    const retryAfter = parseRetryAfter(headers.get("retry-after"));
    return new ShopError("rate_limited", `The shop is rate limiting us (429 on ${call})${retryAfter !== null ? `; it asks us to wait ${retryAfter} s` : ""}`, status, retryAfter);
  }
  if (status === 401) return new ShopError("auth", `The shop refused the credentials (401 on ${call})${said}`, status);
  if (status === 403) return new ShopError("auth", `The credentials lack a permission (403 on ${call})${said}`, status);
  if (status === 404) return new ShopError("not_found", `Not found (404 on ${call})${said}`, status);
  if (status >= 500) return new ShopError("server", `The shop failed (${status} on ${call})${said}`, status);
  if (status >= 300 && status < 400) return new ShopError("unexpected", `The shop redirected ${call} (${status} to ${headers.get("location") ?? "nowhere"}): is base_url the shop's address?`, status);
  return new ShopError("invalid", `The shop refused what we sent (${status} on ${call})${said}`, status);
}
