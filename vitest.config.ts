import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { configDefaults, defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { ftpCertificates } from "./test/lib/file-transfer/ftp-certificates.node.ts";

/**
 * Files named *.after-suite.test.ts run after every other file of their project: the invariant
 * test (test/invariants/) checks what the whole suite left in the one local D1 they all share.
 */
class AfterSuiteLast extends BaseSequencer {
  async sort(files: TestSpecification[]) {
    const sorted = await super.sort(files);
    const last = (f: TestSpecification) => f.moduleId.endsWith(".after-suite.test.ts");
    return [...sorted.filter((f) => !last(f)), ...sorted.filter(last)];
  }
}

// Three projects, all run by `npm test` (scripts/test.mjs runs the workers and the browser projects
// side by side, each in a Vitest process of its own, and the docs project after the workers one):
// - workers: every test/**/*.test.ts inside workerd (the Workers pool), real local D1 and Queues;
// - browser: test/**/*.browser.test.ts in Node, driving Chromium against the real Worker that
//   test/browser/console.global.ts starts (see docs/console.md);
// - docs: test/docs/*.test.ts in Node: the docs' links, their curl examples and the admin CLI run
//   against another real Worker with npm start's demo account (test/docs/docs.global.ts).
export default defineConfig(async () => {
  // The real drizzle-kit migrations, applied inside workerd by test/setup.ts.
  const migrations = await readD1Migrations("./drizzle");
  const directoryMigrations = await readD1Migrations("./drizzle-directory");
  return {
    test: {
      sequence: { sequencer: AfterSuiteLast },
      projects: [
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                // Short timeouts and immediate retries keep the failure-path tests fast.
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  TEST_DIRECTORY_MIGRATIONS: directoryMigrations,
                  ADMIN_TOKEN: "test-admin-token",
                  SECRETS_KEY: "test-secrets-key-0123456789abcdef0123456789abcdef",
                  OUTBOUND_TIMEOUT_MS: "1000",
                  // The file channel's sessions (a real sshd or vsftpd): long enough for a handshake on a busy machine.
                  FILE_TRANSFER_TIMEOUT_MS: "8000",
                  RETRY_BASE_SECONDS: "0",
                  SEND_MAX_ATTEMPTS: "3",
                  PIPELINE_RETRY_BASE_SECONDS: "0",
                  ROUTING_MAX_ATTEMPTS: "5",
                  // A feed pull that hangs fails after 1.5 s (test/catalogue/pull.network.test.ts).
                  FEED_TIMEOUT_MS: "1500",
                },
                // Generous limits for the suite as a whole (it hammers one address with failed auth on
                // purpose); test/middleware/rate-limit.test.ts swaps in the tight ones.
                ratelimits: {
                  API_RATE_LIMITER: { namespace_id: "1001", simple: { limit: 1_000_000, period: 60 } },
                  AUTH_FAILURE_LIMITER: { namespace_id: "1002", simple: { limit: 1_000_000, period: 60 } },
                  TIGHT_API_LIMITER: { namespace_id: "9001", simple: { limit: 3, period: 60 } },
                  TIGHT_AUTH_FAILURE_LIMITER: { namespace_id: "9002", simple: { limit: 2, period: 60 } },
                },
                // Deliver queue batches at once instead of after wrangler.toml's 1 s batch window, and give
                // a failing message up after three deliveries (retried at once: PIPELINE_RETRY_BASE_SECONDS
                // above) into the real dead-letter queue, whose consumer records it.
                queueConsumers: {
                  "order-pipeline": { maxBatchSize: 10, maxBatchTimeout: 0.05, maxRetries: 2, deadLetterQueue: "order-pipeline-dlq" },
                  "order-pipeline-dlq": { maxBatchSize: 10, maxBatchTimeout: 0.05, maxRetries: 2 },
                  // Outside calls (src/lib/queue.ts OUTBOUND_TYPES) on a queue of their own, as in wrangler.toml.
                  "order-outbound": { maxBatchSize: 10, maxBatchTimeout: 0.05, maxRetries: 2, deadLetterQueue: "order-outbound-dlq" },
                  "order-outbound-dlq": { maxBatchSize: 10, maxBatchTimeout: 0.05, maxRetries: 2 },
                },
                // A scratch database for the migration test (test/db/migrations.money.test.ts), which
                // applies the migrations one by one with rows in between.
                // A deployment of its own for the limits' test (test/shards/limits.test.ts): two shards,
                // a directory and a queue nobody consumes, so ids at their limits touch nothing else.
                // And one for the ids a moved account's shard mints (test/shards/moved-ids.test.ts), whose
                // shards must start with no dispatch of their own.
                d1Databases: {
                  MIGRATION_DB: "migration-test",
                  LIMITS_DB: "limits-shard-0",
                  LIMITS_SHARD_1: "limits-shard-1",
                  LIMITS_DIRECTORY: "limits-directory",
                  IDS_DB: "ids-shard-0",
                  IDS_SHARD_1: "ids-shard-1",
                  IDS_DIRECTORY: "ids-directory",
                },
                queueProducers: { LIMITS_PIPELINE: { queueName: "limits-pipeline" }, IDS_PIPELINE: { queueName: "ids-pipeline" } },
                // The FTPS tests' way out (test/lib/file-transfer/ftp.test.ts): loopback only, trusting
                // the throwaway CA of the test's vsftpd and nothing else. src/ never sees it: the tests
                // hand its connect() to the FTP connector, whose default stays the runtime's connect().
                serviceBindings: {
                  FTP_TEST_NETWORK: { network: { allow: ["local"], tlsOptions: { trustBrowserCas: false, trustedCertificates: [ftpCertificates().caPem] } } },
                },
              },
            }),
          ],
          test: {
            name: "workers",
            include: ["test/**/*.test.ts"],
            exclude: [...configDefaults.exclude, "test/**/*.browser.test.ts", "test/docs/**"],
            setupFiles: ["./test/setup.ts"],
            globalSetup: [
              "./test/helpers/fake-remote.global.ts",
              "./test/shops/stand-ins/stand-ins.global.ts",
              "./test/lib/file-transfer/ftp-server.global.ts",
              // A hostile FTP server, and Pure-FTPd and ProFTPD beside vsftpd (docs/file-transfer.md).
              "./test/lib/file-transfer/ftp-hostile.global.ts",
              "./test/lib/file-transfer/ftp-servers.global.ts",
              // The real sshd of the SFTP tests (docs/file-transfer-sftp.md).
              "./test/lib/file-transfer/sftp-server.global.ts",
              // The second SSH implementation, ProFTPD's mod_sftp, and hostile SSH servers (docs/file-transfer-sftp.md).
              "./test/lib/file-transfer/proftpd-sftp.global.ts",
              "./test/lib/file-transfer/ssh-hostile.global.ts",
              // Folders of their own for the file channel's tests on that sshd (after it).
              "./test/forwarding/file-channel-folders.global.ts",
              // The second independent X12 reader, Debian's X12::Parser, beside node-x12 (docs/edi.md).
              "./test/lib/x12/x12-parser-perl.global.ts",
            ],
            // Property-based tests (test/helpers/fuzz.ts): a fixed seed, so a run is reproducible;
            // FUZZ_SEED explores other inputs and FUZZ_SCALE multiplies the number of runs.
            provide: { fuzzSeed: Number(process.env.FUZZ_SEED || 20_261_106), fuzzScale: Math.max(1, Number(process.env.FUZZ_SCALE || 1)) },
            // Generous: tests that wait for the pipeline (waitFor, 30 s) must outlast a loaded machine.
            testTimeout: 60_000,
            // One workerd per file costs ~2 s each; tests are self-seeding (own account each), so
            // files can share workers and the local D1 safely.
            isolate: false,
            // One file at a time, in one workerd with one local D1 (a second worker would start a
            // second Miniflare, with a D1 of its own): the after-suite invariant test then sees
            // everything every other file wrote. (On two cores Vitest ran one worker anyway.)
            fileParallelism: false,
          },
        },
        {
          test: {
            name: "browser",
            include: ["test/**/*.browser.test.ts"],
            environment: "node",
            // The workers suite's real sshd too: a file supplier's set-up is tested, and its host key
            // accepted, against a real server (test/suppliers/file-supplier.browser.test.ts).
            globalSetup: ["./test/browser/console.global.ts", "./test/lib/file-transfer/sftp-server.global.ts"],
            // One Worker and one Chromium for the run; files one after another keep the shared
            // two-core machine responsive (each file still gets fresh browser contexts).
            fileParallelism: false,
            testTimeout: 60_000,
            hookTimeout: 90_000,
          },
        },
        {
          test: {
            name: "docs",
            include: ["test/docs/**/*.test.ts"],
            environment: "node",
            globalSetup: ["./test/docs/docs.global.ts"],
            // One Worker and one demo account for the run, its pages one after another (as a reader).
            // `npm test` starts it after the workers project (scripts/test.mjs): a third Worker busy
            // beside the other two on a shared two-core machine only makes everyone slower. In one
            // Vitest process (`npx vitest run`) it runs after the others.
            sequence: { groupOrder: 1 },
            fileParallelism: false,
            testTimeout: 60_000,
            hookTimeout: 120_000,
          },
        },
      ],
    },
  };
});
