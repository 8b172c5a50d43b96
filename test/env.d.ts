import type { D1Migration } from "cloudflare:test";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      TEST_DIRECTORY_MIGRATIONS: D1Migration[];
      MIGRATION_DB: D1Database;
      LIMITS_DB: D1Database;
      LIMITS_SHARD_1: D1Database;
      LIMITS_DIRECTORY: D1Database;
      LIMITS_PIPELINE: Queue;
      IDS_DB: D1Database;
      IDS_SHARD_1: D1Database;
      IDS_DIRECTORY: D1Database;
      IDS_PIPELINE: Queue;
      ADMIN_TOKEN: string;
      TIGHT_API_LIMITER: RateLimit;
      TIGHT_AUTH_FAILURE_LIMITER: RateLimit;
      /** Loopback only, trusting the FTP tests' throwaway CA (vitest.config.ts). */
      FTP_TEST_NETWORK: Fetcher;
    }
    interface GlobalProps {
      mainModule: typeof import("../src/index");
    }
  }
}
export {};
