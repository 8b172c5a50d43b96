// The real Worker over HTTP, for the suites that run in Node (the browser suite, the docs suite):
// wrangler's unstable_startWorker (workerd, the real bundle and static assets, local Queues with
// the queue consumer) on a free port of 127.0.0.1, its local D1 in a fresh temporary directory to
// which `wrangler d1 migrations apply DB --local --persist-to` has applied the real migrations
// first, and a random ADMIN_TOKEN (a developer's .dev.vars is not read).
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_startWorker } from "wrangler";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export type LocalWorker = { url: string; adminToken: string; d1File: string; dispose: () => Promise<void> };

export async function startLocalWorker(vars: Record<string, string> = {}): Promise<LocalWorker> {
  const persist = mkdtempSync(join(tmpdir(), "order-intake-worker-"));
  const migrate = spawnSync(process.execPath, [join(root, "node_modules", "wrangler", "bin", "wrangler.js"), "d1", "migrations", "apply", "DB", "--local", "--persist-to", persist], {
    cwd: root,
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
    encoding: "utf8",
  });
  if (migrate.status !== 0) throw new Error(`wrangler d1 migrations apply failed:\n${migrate.stdout}\n${migrate.stderr}`);

  const adminToken = randomBytes(24).toString("hex");
  const bindings = Object.fromEntries(Object.entries({ ...vars, ADMIN_TOKEN: adminToken }).map(([k, value]) => [k, { type: "plain_text" as const, value }]));
  const worker = await unstable_startWorker({
    config: join(root, "wrangler.toml"),
    // A file that does not exist: the developer's .dev.vars (their own ADMIN_TOKEN) is not read.
    envFiles: [join(persist, "no-such.env")],
    bindings,
    dev: { server: { hostname: "127.0.0.1", port: 0 }, inspector: false, persist, logLevel: "error" },
  });
  await worker.ready;
  const url = (await worker.url).origin;
  const d1Dir = join(persist, "v3", "d1", "miniflare-D1DatabaseObject");
  const d1File = join(d1Dir, readdirSync(d1Dir).find((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite")!);
  return {
    url,
    adminToken,
    d1File,
    dispose: async () => {
      await worker.dispose();
      rmSync(persist, { recursive: true, force: true });
    },
  };
}
