// The Worker's bindings and the per-request variables handlers can read.
import type { Db } from "./db";
import type { MultipartForm } from "./lib/multipart";
import type { Pipeline } from "./lib/queue";
import type { RequestDatabase } from "./db/sessions";

export type Bindings = Env & {
  /** Operator secret for /admin/v1; admin routes are off when it is unset. */
  ADMIN_TOKEN?: string;
  /** Seals credentials kept for shops and suppliers (src/lib/sealed.ts); SECRETS_KEY_PREVIOUS during a rotation. */
  SECRETS_KEY?: string;
  SECRETS_KEY_PREVIOUS?: string;
  /** "1" only in benchmark runs (`wrangler dev --var BENCH_METRICS:1`): D1 counters in X-D1-* headers. */
  BENCH_METRICS?: string;
  /** The file channel's time box per session (src/forwarding/channels/file.ts); 20000 by default. */
  FILE_TRANSFER_TIMEOUT_MS?: string;
  /** "true" lets connections point to private networks (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7): a runtime inside one (docs/operations.md). */
  ALLOW_PRIVATE_NETWORKS?: string;
};

/** `currency`: the account's ISO 4217 code (src/lib/currency.ts), read with the credentials. */
export type AuthenticatedAccount = { id: number; name: string; apiKeyId: number; currency: string };

export type AuthenticatedSupplier = { id: number; accountId: number; name: string };

/** Who is signed in to the console, the supplier portal or the operator pages (src/console). */
export type ConsoleSignedIn = {
  role: "shop" | "supplier" | "operator";
  sessionId: number;
  /** The session's CSRF token: every form and htmx request of the session carries it. */
  csrfToken: string;
  /** How the header names who is signed in ("Demo shop", "Acme (supplier)", "Operator"). */
  label: string;
  /** The account's currency (src/lib/currency.ts) in a shop's or a supplier's session; null for the operator. */
  currency: string | null;
};

/** A message shown once on the next page (after POST/redirect/GET). */
export type Flash = { kind: "success" | "error" | "info"; text: string };

export type AppEnv = {
  Bindings: Bindings;
  Variables: {
    /** The request's D1 session: on the primary for writes, a replica for reads (src/db/sessions.ts). */
    db: Db;
    /** A session that starts at the primary, for reading credentials: a revoked key is refused at once. */
    primaryDb: Db;
    /** The request's sessions (db and primaryDb), on its account's shard once that is known (src/shards/request.ts). */
    database: RequestDatabase;
    /** The shard the request works on (0 until authentication finds the account's). */
    shard: number;
    /** The client's bookmark, if it sent one (src/db/sessions.ts). */
    bookmark: string | undefined;
    /** The queue, for services that hand work to the pipeline (src/lib/queue.ts). */
    pipeline: Pipeline;
    requestId: string;
    account: AuthenticatedAccount;
    supplier: AuthenticatedSupplier;
    session: ConsoleSignedIn;
    flash: Flash | undefined;
    /** Set by the layout when it showed the flash, so the cookie is cleared only then. */
    flashShown: boolean;
    /** A console multipart form, read by the CSRF check up to its file, which still streams (src/console/csrf.ts). */
    multipart: MultipartForm | undefined;
  };
};
