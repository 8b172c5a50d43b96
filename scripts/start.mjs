#!/usr/bin/env node
// `npm start`: from a fresh clone to a running API on an embedded local D1.
// Runs on whatever Node the machine has (it may be older than wrangler needs); the project's own
// Node (the `node` devDependency) runs wrangler once dependencies are installed.
//
// What it prints is ours to keep short: a line per step, then the banner (URLs, demo credentials
// and the files that keep them) last, then the requests as they come. wrangler's startup chatter
// (its binding table, migration tables, the offline `Request.cf` lookup and its DNS stack trace,
// the hint to trigger crons by hand, which we do) goes to .wrangler/npm-start.log instead; any
// error still reaches the terminal.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { seedDemo } from "./lib/demo-data.mjs";
import { bin, childEnv as env, ensureDependencies, root, run } from "./lib/setup.mjs";

const USAGE = "Usage: npm start -- [--port N] [--reset]";
const args = process.argv.slice(2);
const portIndex = args.indexOf("--port");
const port = portIndex >= 0 ? Number(args[portIndex + 1]) : 8787;
if (!Number.isInteger(port) || port < 1 || port > 65535 || args.some((a, i) => a !== "--reset" && a !== "--port" && !(portIndex >= 0 && i === portIndex + 1))) {
  console.error(USAGE);
  process.exit(2);
}

const credentialsFile = join(root, ".demo-credentials.json");
const stateDir = join(root, ".wrangler", "state");
const logFile = join(root, ".wrangler", "npm-start.log");

// 0. A taken port, said plainly before anything starts (wrangler would only say EADDRINUSE later).
const free = await new Promise((resolve) => {
  const probe = createServer().once("error", () => resolve(false));
  probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
});
if (!free) {
  console.error(
    `✗ Port ${port} is taken: another \`npm start\` (or another program) listens on it.\n` +
      `  Stop that one (Ctrl+C in its terminal; \`lsof -i :${port}\` or \`ss -ltnp 'sport = :${port}'\` names it),\n` +
      `  or start on another port: npm start -- --port ${port === 8787 ? 8788 : port + 1}`,
  );
  process.exit(1);
}

// 1. Dependencies.
ensureDependencies();

// 2. --reset: the local database and the demo account go; everything else (.dev.vars) stays.
if (args.includes("--reset")) {
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(credentialsFile, { force: true });
  console.log("→ Reset: removed the local D1, queues and caches (.wrangler/state) and .demo-credentials.json");
}

// 3. Local secrets.
const devVars = join(root, ".dev.vars");
if (!existsSync(devVars)) {
  writeFileSync(devVars, `ADMIN_TOKEN=${randomBytes(24).toString("hex")}\n`, { mode: 0o600 });
  console.log("→ Created .dev.vars with a random ADMIN_TOKEN");
}
const adminToken = /^ADMIN_TOKEN=(.*)$/m.exec(readFileSync(devVars, "utf8"))?.[1]?.trim();

// 4. /docs assets, and migrations on the local D1 (their tables only when something fails).
mkdirSync(join(root, ".wrangler"), { recursive: true });
const log = createWriteStream(logFile);
run(process.execPath, [join(root, "scripts", "docs-assets.mjs")]);
const migrate = spawnSync(bin("wrangler"), ["d1", "migrations", "apply", "DB", "--local"], { cwd: root, env: { ...env, CI: "true" }, encoding: "utf8" });
log.write(migrate.stdout + migrate.stderr);
if (migrate.status !== 0) {
  process.stdout.write(migrate.stdout);
  process.stderr.write(migrate.stderr);
  console.error(`\n✗ Applying the migrations to the local D1 failed (exit ${migrate.status ?? migrate.signal}).`);
  process.exit(migrate.status ?? 1);
}
const applied = (migrate.stdout.match(/commands executed successfully/g) ?? []).length;
console.log(applied ? `→ Applied ${applied} migration(s) to the local D1 (.wrangler/state)` : "→ The local D1 is up to date (.wrangler/state)");

// 5. Serve. wrangler's output is filtered line by line (see the top of this file).
console.log(`→ Starting the Worker (wrangler dev, local D1 and Queues) on port ${port}…`);
const server = spawn(bin("wrangler"), ["dev", "--port", String(port), "--ip", "127.0.0.1", "--show-interactive-dev-session=false"], {
  cwd: root,
  stdio: ["ignore", "pipe", "pipe"],
  env: { ...env, FORCE_COLOR: "0" },
});
let bannerShown = false;
const startup = [];
const noise = [
  /Unable to fetch the `Request\.cf` object/,
  /^Error: getaddrinfo \w+ workers\.cloudflare\.com/,
  /^\s+at .*\(node:/, // the stack of that lookup
  /Scheduled Workers are not automatically triggered/,
  /To manually trigger a scheduled event/,
  /cdn-cgi\/local\/scheduled/,
  /cron-triggers\/#test-cron-triggers-locally/,
  /Your types might be out of date/,
  /⛅️ wrangler|^─+$|update available/,
  /^Using (secrets|vars) defined in/,
  /^Your Worker has access to the following bindings:/,
  /^Binding\s+Resource\s+Mode/,
  /^env\.\S+ .*(local|remote)\s*$/,
  /^⎔ (Starting local server|Connection status updated)/,
  /\[wrangler:info\] Ready on /,
  /demo-(shop|supplier)-endpoint-that-refuses/, // the demo's failing endpoints, failing as meant
];
const plain = (line) => line.replace(/\x1b\[[0-9;]*m/g, "");
function onLine(line, stream) {
  log.write(line + "\n");
  const text = plain(line);
  if (noise.some((re) => re.test(text))) return;
  if (!bannerShown) {
    // Before the banner: the startup and the demo data's requests are kept for the log and for a
    // failed start; errors go through at once.
    startup.push(line);
    if (/\[ERROR\]|✘|^Error\b|Uncaught/.test(text)) stream.write(line + "\n");
    return;
  }
  if (text.trim() === "") return;
  stream.write(line + "\n");
}
createInterface({ input: server.stdout }).on("line", (l) => onLine(l, process.stdout));
createInterface({ input: server.stderr }).on("line", (l) => onLine(l, process.stderr));
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => {
  if (!bannerShown) console.error(startup.join("\n"));
  process.exit(code ?? 0);
});

// 6. Demo account, once the server answers.
const base = `http://localhost:${port}`;

async function waitForServer() {
  for (let i = 0; i < 240; i++) {
    try {
      const res = await fetch(`${base}/health`);
      if (res.ok) return true;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

async function admin(path, body) {
  const res = await fetch(`${base}/admin/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function demoCredentials() {
  if (existsSync(credentialsFile)) {
    const saved = JSON.parse(readFileSync(credentialsFile, "utf8"));
    const check = await fetch(`${base}/api/v1`, { headers: { "api-key": saved.api_key, "account-id": String(saved.account_id) } });
    if (check.ok) return saved;
  }
  const account = await admin("/accounts", { name: "Demo shop" });
  const key = await admin(`/accounts/${account.id}/api-keys`, { name: "demo" });
  // Orders in every state, suppliers on three channels, rules: through the public API, as a shop would.
  console.log("→ Creating the demo account's data (suppliers, routing rules, orders in every state)…");
  const demo = await seedDemo(base, { accountId: account.id, apiKey: key.api_key });
  const saved = { account_id: account.id, api_key: key.api_key, supplier_key: demo.supplierKey, supplier_name: demo.supplierName };
  writeFileSync(credentialsFile, JSON.stringify(saved, null, 2) + "\n", { mode: 0o600 });
  // A first cron run at once, so the operator's pipeline page has one to show.
  await fireCron();
  return saved;
}

// 7. The cron. On Cloudflare the Worker's cron trigger fires every minute ([triggers] in
// wrangler.toml); wrangler dev never fires it by itself, so this does, through wrangler's local
// trigger endpoint: the sweepers, event publishing, scheduled feed pulls and session cleanup run
// (and are recorded for the operator's pipeline page) as they do in production.
const CRON_EVERY_MS = 60_000;
async function fireCron() {
  try {
    const res = await fetch(`${base}/cdn-cgi/local/scheduled?cron=${encodeURIComponent("* * * * *")}`);
    await res.body?.cancel();
  } catch {
    // The server is restarting; the next minute tries again.
  }
}

/** The banner: everything a newcomer needs, in one block, last. */
function banner({ account_id, api_key, supplier_key, supplier_name }) {
  const rule = "━".repeat(76);
  return `
${rule}
 Order intake is running on ${base}

 API        ${base}/api/v1        docs ${base}/docs   (OpenAPI: ${base}/openapi.json)
 Console    ${base}/console       shop: Account ID ${account_id} and the API key below
 Supplier   ${base}/supplier      ${supplier_name ?? "the demo supplier"}: the supplier key below
 Operator   ${base}/operator      the admin token below

 Demo credentials
   account-id     ${account_id}
   api-key        ${api_key}
   supplier key   ${supplier_key}
   admin token    ${adminToken}
 The first three are kept in .demo-credentials.json, the admin token in .dev.vars.

 Try the tour in README.md; in another terminal, first:
   export BASE=${base} API_KEY=${api_key} ACCOUNT_ID=${account_id} SUPPLIER_KEY=${supplier_key}

 The cron runs every minute (as on Cloudflare). Start afresh: npm start -- --reset
 Ctrl+C stops the server. Requests are logged below; wrangler's full output: .wrangler/npm-start.log
${rule}
`;
}

if (await waitForServer()) {
  setInterval(fireCron, CRON_EVERY_MS);
  try {
    const credentials = await demoCredentials();
    bannerShown = true;
    console.log(banner(credentials));
  } catch (error) {
    bannerShown = true;
    console.error(startup.join("\n"));
    console.error(`✗ Could not create the demo account: ${error.message}`);
  }
} else {
  bannerShown = true;
  console.error(startup.join("\n"));
  console.error("✗ The server did not come up; see wrangler's output above.");
}
