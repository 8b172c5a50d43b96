// The Worker's bindings and the per-request variables handlers can read.
import type { Db } from "./db";

export type Bindings = Env & {
  /** Operator secret for /admin/v1; admin routes are off when it is unset. */
  ADMIN_TOKEN?: string;
  /** "1" only in benchmark runs (`wrangler dev --var BENCH_METRICS:1`): D1 counters in X-D1-* headers. */
  BENCH_METRICS?: string;
};

export type AuthenticatedAccount = { id: number; name: string; apiKeyId: number };

export type AuthenticatedSupplier = { id: number; accountId: number; name: string };

export type AppEnv = {
  Bindings: Bindings;
  Variables: {
    db: Db;
    requestId: string;
    account: AuthenticatedAccount;
    supplier: AuthenticatedSupplier;
  };
};
