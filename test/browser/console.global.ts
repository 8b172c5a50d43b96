// Global setup of the browser suite: the real Worker (wrangler's unstable_startWorker: workerd with a
// local D1 on a fresh temporary directory, the real migrations applied by `wrangler d1 migrations
// apply`, local Queues, the static assets) and one Chromium (Debian's /usr/bin/chromium through
// playwright-core; never a browser download) that every test file connects to.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import type { TestProject } from "vitest/node";
import { unstable_startWorker } from "wrangler";

export const CHROMIUM = "/usr/bin/chromium";
// The flags GUIDE.md asks for: the closed network would otherwise flood Chromium with refused connections.
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

const adminToken = randomBytes(24).toString("hex");

/** `wrangler d1 migrations apply` of the real migrations into the run's fresh local D1. */
function applyMigrations(persist: string): Promise<void> {
  const child = spawn(process.execPath, [join(root, "node_modules", "wrangler", "bin", "wrangler.js"), "d1", "migrations", "apply", "DB", "--local", "--persist-to", persist], {
    cwd: root,
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`wrangler d1 migrations apply failed:\n${output}`))));
  });
}

export default async function setup(project: TestProject) {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: run \`apt-get install -y chromium\` (npm test does it when it can).`);
  const started = Date.now();
  // Chromium starts while the migrations are applied and the Worker starts.
  const launched = chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  launched.catch(() => {});
  const persist = mkdtempSync(join(tmpdir(), "order-intake-console-"));
  const config = browserConfig();
  let worker: Awaited<ReturnType<typeof unstable_startWorker>>;
  try {
    await applyMigrations(persist);
    worker = await unstable_startWorker({
      config,
      // A file that does not exist: the developer's .dev.vars (their own ADMIN_TOKEN) is not read.
      envFiles: [join(persist, "no-such.env")],
      bindings: {
        ADMIN_TOKEN: { type: "plain_text", value: adminToken },
        // A failing pipeline message is retried at once (not after 5 s, 10 s, ...), and an order is
        // parked after 10 failed routing attempts: the operator's tests produce a dead letter and a
        // parked order through the real queue in seconds (test/admin/operator.browser.test.ts).
        PIPELINE_RETRY_BASE_SECONDS: { type: "plain_text", value: "0" },
        ROUTING_MAX_ATTEMPTS: { type: "plain_text", value: "10" },
      },
      dev: { server: { hostname: "127.0.0.1", port: 0 }, inspector: false, persist, logLevel: "error" },
    });
  } catch (error) {
    await (await launched.catch(() => null))?.close();
    rmSync(config, { force: true });
    throw error;
  }
  await worker.ready;
  const url = (await worker.url).origin;
  const browser = await launched;

  const d1Dir = join(persist, "v3", "d1", "miniflare-D1DatabaseObject");
  const d1File = join(d1Dir, readdirSync(d1Dir).find((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite")!);
  const screenshots = join(root, "test-results", "screenshots");
  mkdirSync(screenshots, { recursive: true });

  project.provide("consoleUrl", url);
  project.provide("adminToken", adminToken);
  project.provide("browserEndpoint", browser.wsEndpoint());
  project.provide("d1File", d1File);
  project.provide("screenshotsDir", screenshots);
  console.log(`browser suite: Worker on ${url} and Chromium ready in ${Date.now() - started} ms`);

  return async () => {
    await browser.close();
    await worker.dispose();
    rmSync(persist, { recursive: true, force: true });
    rmSync(config, { force: true });
  };
}

/**
 * wrangler.toml with one change: the queue consumers deliver a batch after 50 ms instead of 1 s, as
 * the Workers suite's miniflare does (vitest.config.ts). An order's two hops through the pipeline
 * (route, send) then take milliseconds, not two seconds, and the suite creates many orders one
 * after another. Written beside wrangler.toml so its relative paths (main, migrations, assets) still
 * resolve; gitignored, and removed after the run.
 */
function browserConfig(): string {
  const source = readFileSync(join(root, "wrangler.toml"), "utf8");
  const changed = source.replace(/^max_batch_timeout = \d+$/gm, "max_batch_timeout = 0.05");
  if (changed === source) throw new Error("wrangler.toml has no max_batch_timeout for the browser suite to shorten");
  const file = join(root, `.wrangler-browser-${process.pid}.toml`);
  writeFileSync(file, changed);
  return file;
}
