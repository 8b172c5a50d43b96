// The real Worker over HTTP, for the suites that run in Node (the browser suite, the docs suite):
// wrangler's unstable_startWorker (workerd, the real bundle and static assets, local Queues with
// the queue consumer) on a free port of 127.0.0.1, its local D1 databases (every shard and the
// directory) in a fresh temporary directory to which `scripts/migrate.mjs --local --persist-to`
// (`npm run db:migrate:local`) has applied the real migrations first, and a random ADMIN_TOKEN and SECRETS_KEY (a
// developer's .dev.vars is not read).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { DatabaseSync } from "node:sqlite";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_startWorker } from "wrangler";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export type LocalWorker = { url: string; adminToken: string; secretsKey: string; d1File: string; dispose: () => Promise<void> };

export async function startLocalWorker(vars: Record<string, string> = {}): Promise<LocalWorker> {
  const persist = mkdtempSync(join(tmpdir(), "order-intake-worker-"));
  const config = fastQueueConfig();
  const adminToken = randomBytes(24).toString("hex");
  const secretsKey = randomBytes(32).toString("base64");
  const bindings = Object.fromEntries(Object.entries({ SECRETS_KEY: secretsKey, ...vars, ADMIN_TOKEN: adminToken }).map(([k, value]) => [k, { type: "plain_text" as const, value }]));
  let worker: Awaited<ReturnType<typeof unstable_startWorker>>;
  try {
    await applyMigrations(persist);
    worker = await unstable_startWorker({
      config,
      // A file that does not exist: the developer's .dev.vars (their own ADMIN_TOKEN) is not read.
      envFiles: [join(persist, "no-such.env")],
      bindings,
      dev: { server: { hostname: "127.0.0.1", port: 0 }, inspector: false, persist, logLevel: "error" },
    });
  } catch (error) {
    rmSync(config, { force: true });
    rmSync(persist, { recursive: true, force: true });
    throw error;
  }
  await worker.ready;
  const url = (await worker.url).origin;
  const d1File = shardZeroFile(persist);
  return {
    url,
    adminToken,
    secretsKey,
    d1File,
    dispose: async () => {
      await worker.dispose();
      rmSync(persist, { recursive: true, force: true });
      rmSync(config, { force: true });
    },
  };
}

/**
 * Shard 0's database file (the binding DB, where accounts the tests pin to shard 0 live): of the
 * local D1 files, the one with the orders table whose ids are not in another shard's range (shard n
 * counts from n × 2^40; the directory has no orders table). Miniflare names the files by a hash.
 */
function shardZeroFile(persist: string): string {
  const d1Dir = join(persist, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = readdirSync(d1Dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  const zero = files.filter((f) => {
    const db = new DatabaseSync(join(d1Dir, f), { readOnly: true });
    try {
      const orders = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'orders'").get();
      const seq = db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM sqlite_sequence").get() as { seq: number };
      return orders !== undefined && seq.seq < 2 ** 40;
    } finally {
      db.close();
    }
  });
  if (zero.length !== 1) throw new Error(`Expected one shard-0 database among ${files.join(", ")}; found ${zero.length}`);
  return join(d1Dir, zero[0]);
}

/** `npm run db:migrate:local` (every shard and the directory) into the run's fresh local D1
 * databases (async, so that the caller can start Chromium meanwhile). */
function applyMigrations(persist: string): Promise<void> {
  const child = spawn(process.execPath, [join(root, "scripts", "migrate.mjs"), "--local", "--persist-to", persist], {
    cwd: root,
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`scripts/migrate.mjs --local failed:\n${output}`))));
  });
}

/**
 * wrangler.toml with one change: the queue consumers deliver a batch after 50 ms instead of 1 s, as
 * the Workers suite's miniflare does (vitest.config.ts). An order's two hops through the pipeline
 * (route, send) then take milliseconds, not two seconds, and the suites create many orders one
 * after another. Written beside wrangler.toml so its relative paths (main, migrations, assets) still
 * resolve; gitignored, and removed after the run.
 */
function fastQueueConfig(): string {
  const source = readFileSync(join(root, "wrangler.toml"), "utf8");
  const changed = source.replace(/^max_batch_timeout = \d+$/gm, "max_batch_timeout = 0.05");
  if (changed === source) throw new Error("wrangler.toml has no max_batch_timeout for the test Worker to shorten");
  const file = join(root, `.wrangler-browser-${process.pid}-${randomBytes(4).toString("hex")}.toml`);
  writeFileSync(file, changed);
  return file;
}
