// Global setup of the browser suite: the real Worker (./worker.ts: wrangler's unstable_startWorker,
// workerd with a local D1 on a fresh temporary directory, the real migrations applied by
// `npm run db:migrate:local`, local Queues, the static assets) and one Chromium (Debian's /usr/bin/chromium through
// playwright-core; never a browser download) that every test file connects to.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import type { TestProject } from "vitest/node";
import { root, startLocalWorker } from "./worker";

export const CHROMIUM = "/usr/bin/chromium";
// The flags GUIDE.md asks for: the closed network would otherwise flood Chromium with refused connections.
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export default async function setup(project: TestProject) {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: run \`apt-get install -y chromium\` (npm test does it when it can).`);
  const started = Date.now();
  // A failing pipeline message is retried at once (not after 5 s, 10 s, ...), and an order is
  // parked after 10 failed routing attempts: the operator's tests produce a dead letter and a
  // parked order through the real queue in seconds (test/admin/operator.browser.test.ts).
  // Chromium starts while the migrations are applied and the Worker starts.
  const launched = chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  launched.catch(() => {});
  let worker: Awaited<ReturnType<typeof startLocalWorker>>;
  try {
    worker = await startLocalWorker({ PIPELINE_RETRY_BASE_SECONDS: "0", ROUTING_MAX_ATTEMPTS: "10" });
  } catch (error) {
    await (await launched.catch(() => null))?.close();
    throw error;
  }
  const { url, adminToken, secretsKey, d1File, dispose } = worker;
  const browser = await launched;

  const screenshots = join(root, "test-results", "screenshots");
  mkdirSync(screenshots, { recursive: true });

  project.provide("consoleUrl", url);
  project.provide("adminToken", adminToken);
  project.provide("secretsKey", secretsKey);
  project.provide("browserEndpoint", browser.wsEndpoint());
  project.provide("d1File", d1File);
  project.provide("screenshotsDir", screenshots);
  console.log(`browser suite: Worker on ${url} and Chromium ready in ${Date.now() - started} ms`);

  return async () => {
    await browser.close();
    await dispose();
  };
}
