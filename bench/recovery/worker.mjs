// A `wrangler dev` of its own for the crash phases: a fresh local state (the real migrations, as
// `npm start` applies them), the queue consumer attached, started and killed (SIGKILL to the whole
// process group, nothing flushed) as often as a phase needs, and the cron fired as `npm start`
// fires it: at once after each start, then every minute.
import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A fresh local state under `dir` with every migration applied (scripts/migrate.mjs, as `npm start`).
 * Migrating takes minutes on a loaded machine, so the migrated state is kept as a template beside
 * it, named after the migration files it was made from, and copied for each run.
 */
export function freshState(root, dir) {
  const files = ["drizzle", "drizzle-directory"].flatMap((d) => readdirSync(join(root, d)).filter((f) => f.endsWith(".sql")).map((f) => `${d}/${f}`));
  // One template for every phase (the first phase's name, kept so an existing template is found).
  const template = `${join(dirname(dir), "crash-write-backs")}-template-${createHash("sha256").update(files.join("\n")).digest("hex").slice(0, 12)}`;
  if (!existsSync(join(template, "done"))) {
    rmSync(template, { recursive: true, force: true });
    mkdirSync(template, { recursive: true });
    const r = spawnSync(process.execPath, [join(root, "scripts", "migrate.mjs"), "--local", "--persist-to", template], { cwd: root, env: { ...process.env, CI: "true" }, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`migrations failed: ${r.stdout}\n${r.stderr}`);
    writeFileSync(join(template, "done"), files.join("\n"));
  }
  rmSync(dir, { recursive: true, force: true });
  cpSync(template, dir, { recursive: true });
}

/** The SQLite file of the shard that holds the account(s) (accounts opened through the admin API go to the shard with the most room). */
export function accountShardFile(dir) {
  const d1 = join(dir, "v3", "d1", "miniflare-D1DatabaseObject");
  for (const f of readdirSync(d1).filter((f) => f.endsWith(".sqlite"))) {
    const db = new DatabaseSync(join(d1, f), { readOnly: true });
    try {
      const has = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'accounts'").get().n;
      const accounts = has ? db.prepare("SELECT count(*) AS n FROM accounts").get().n : 0;
      if (accounts > 0) return join(d1, f);
    } finally {
      db.close();
    }
  }
  throw new Error(`no shard with an account under ${d1}`);
}

/** Reads from the D1 file workerd writes (read-only; a busy read is tried again). */
export function query(file, sql, ...params) {
  for (let i = 0; ; i++) {
    try {
      // SQLite's busy timeout: workerd may hold the write lock for a moment.
      const db = new DatabaseSync(file, { readOnly: true, timeout: 5000 });
      try {
        return db.prepare(sql).all(...params);
      } finally {
        db.close();
      }
    } catch (error) {
      if (i >= 20) throw error;
    }
  }
}

/** The Worker's own variables for these runs: an operator token and a sealing key, fixed per run. */
export function benchVars() {
  return { ADMIN_TOKEN: randomBytes(16).toString("hex"), SECRETS_KEY: randomBytes(32).toString("base64") };
}

/** Starts `wrangler dev` on `dir`; answers { base, kill, stop, fireCron }. The cron ticks every minute until kill/stop. */
export async function startWorker(root, dir, vars, logFile) {
  const port = await freePort();
  const inspectorPort = await freePort();
  const args = ["dev", "--port", String(port), "--ip", "127.0.0.1", "--inspector-port", String(inspectorPort), "--persist-to", dir, "--show-interactive-dev-session=false", "--log-level", "warn"];
  for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);
  const child = spawn(join(root, "node_modules", ".bin", "wrangler"), args, {
    cwd: root,
    // wrangler's `#!/usr/bin/env node` finds this Node (the project's), as under `npm run`.
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}`, CI: "true", WRANGLER_SEND_METRICS: "false" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: a crash takes workerd with it
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const base = `http://127.0.0.1:${port}`;
  let timer = null;
  const fireCron = async () => {
    try {
      const res = await fetch(`${base}/cdn-cgi/local/scheduled?cron=${encodeURIComponent("* * * * *")}`);
      await res.body?.cancel();
    } catch {}
  };
  const end = async (signal) => {
    clearInterval(timer);
    if (logFile) writeFileSync(logFile, output, { flag: "a" });
    try {
      process.kill(-child.pid, signal);
    } catch {}
    for (let i = 0; i < 100 && groupAlive(child.pid); i++) {
      if (i === 50) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {}
      }
      await sleep(100);
    }
  };
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${base}/health`)).ok) {
        return {
          base,
          startedAt: Date.now(),
          /** As `npm start` does: the cron at once, then every minute. */
          cron: () => {
            void fireCron();
            timer = setInterval(fireCron, 60_000);
          },
          kill: () => end("SIGKILL"),
          stop: () => end("SIGTERM"),
        };
      }
    } catch {}
    await sleep(500);
  }
  await end("SIGKILL");
  throw new Error(`wrangler dev did not start:\n${output.slice(-3000)}`);
}
