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
import { appendFileSync, createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, relative, resolve } from "node:path";
import { createInterface } from "node:readline";
import { seedDemo } from "./lib/demo-data.mjs";
import { startDemoShop } from "./lib/demo-shop.mjs";
import { bin, childEnv as env, ensureDependencies, root, run } from "./lib/setup.mjs";

const USAGE = "Usage: npm start -- [--port N] [--reset] [--state DIR]";
const args = process.argv.slice(2);
const valued = { "--port": null, "--state": null };
const flags = new Set();
for (let i = 0; i < args.length; i++) {
  if (args[i] in valued && i + 1 < args.length) valued[args[i]] = args[++i];
  else if (args[i] === "--reset") flags.add("--reset");
  else {
    console.error(USAGE);
    process.exit(2);
  }
}
const port = valued["--port"] === null ? 8787 : Number(valued["--port"]);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(USAGE);
  process.exit(2);
}

// Where the local data lives: by default the local D1, queues and caches in .wrangler/state, the demo
// credentials in .demo-credentials.json and wrangler's output in .wrangler/npm-start.log; with
// --state DIR all three in DIR (a second demo beside the first, on another --port).
const custom = valued["--state"] === null ? null : resolve(valued["--state"]);
const stateDir = custom ?? join(root, ".wrangler", "state");
const credentialsFile = custom ? join(custom, "demo-credentials.json") : join(root, ".demo-credentials.json");
const logFile = custom ? join(custom, "npm-start.log") : join(root, ".wrangler", "npm-start.log");
/** A path as the banner says it: relative inside the project, absolute outside. */
const shown = (file) => (relative(root, file).startsWith("..") ? file : relative(root, file));

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
if (flags.has("--reset")) {
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(credentialsFile, { force: true });
  console.log(`→ Reset: removed the local D1, queues and caches (${shown(stateDir)}) and ${shown(credentialsFile)}`);
}

// 3. Local secrets.
const devVars = join(root, ".dev.vars");
if (!existsSync(devVars)) {
  writeFileSync(devVars, `ADMIN_TOKEN=${randomBytes(24).toString("hex")}\n`, { mode: 0o600 });
  console.log("→ Created .dev.vars with a random ADMIN_TOKEN");
}
if (!/^SECRETS_KEY=/m.test(readFileSync(devVars, "utf8"))) {
  // Seals the credentials kept for shops and suppliers (src/lib/sealed.ts); keep it with .dev.vars.
  appendFileSync(devVars, `SECRETS_KEY=${randomBytes(32).toString("base64")}\n`);
  console.log("→ Added a random SECRETS_KEY to .dev.vars");
}
const adminToken = /^ADMIN_TOKEN=(.*)$/m.exec(readFileSync(devVars, "utf8"))?.[1]?.trim();

// 4. /docs assets, and migrations on the local D1 (their tables only when something fails).
mkdirSync(join(root, ".wrangler"), { recursive: true });
mkdirSync(stateDir, { recursive: true });
const log = createWriteStream(logFile);
run(process.execPath, [join(root, "scripts", "docs-assets.mjs")]);
// Every shard and the directory, as `npm run db:migrate:local` does (scripts/migrate.mjs).
const migrate = spawnSync(process.execPath, [join(root, "scripts", "migrate.mjs"), "--local", "--persist-to", stateDir], { cwd: root, env: { ...env, CI: "true" }, encoding: "utf8" });
log.write(migrate.stdout + migrate.stderr);
if (migrate.status !== 0) {
  process.stdout.write(migrate.stdout);
  process.stderr.write(migrate.stderr);
  console.error(`\n✗ Applying the migrations to the local D1 databases failed (exit ${migrate.status ?? migrate.signal}).`);
  process.exit(migrate.status ?? 1);
}
// scripts/migrate.mjs says "→ <binding>: migrations" before each database's, then "  applied <file>"
// per migration; count shard 0's and the directory's.
const appliedTo = (binding) => (migrate.stdout.split(/^→ /m).find((part) => part.startsWith(`${binding}: migrations`))?.match(/^ {2}applied /gm) ?? []).length;
console.log(
  appliedTo("DB") + appliedTo("DIRECTORY") > 0
    ? `→ Applied ${appliedTo("DB")} migration(s) to each local D1 shard and ${appliedTo("DIRECTORY")} to the directory (${shown(stateDir)})`
    : `→ The local D1 databases (every shard and the directory) are up to date (${shown(stateDir)})`,
);

// 5. Serve. wrangler's output is filtered line by line (see the top of this file).
console.log(`→ Starting the Worker (wrangler dev, local D1 and Queues) on port ${port}…`);
const server = spawn(bin("wrangler"), ["dev", "--port", String(port), "--ip", "127.0.0.1", "--persist-to", stateDir, "--show-interactive-dev-session=false"], {
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
  const demo = await seedDemo(base, { accountId: account.id, apiKey: key.api_key }, { archive: () => admin(`/accounts/${account.id}/archive`, { older_than_days: 0 }) });
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

const restartArgs = `${port === 8787 ? "" : `--port ${port} `}${custom ? `--state ${shown(custom)} ` : ""}`;

/** The banner: everything a newcomer needs, in one block, last. */
function banner({ account_id, api_key, supplier_key, supplier_name }, demoShop) {
  const rule = "━".repeat(76);
  return `
${rule}
 Order intake is running on ${base}

 API        ${base}/api/v1        docs ${base}/docs   (OpenAPI: ${base}/openapi.json)
 Console    ${base}/console       shop: Account ID ${account_id} and the API key below
 Supplier   ${base}/supplier      ${supplier_name ?? "the demo supplier"}: the supplier key below
 Operator   ${base}/operator      the admin token below
${demoShop ? ` Demo shop  ${demoShop.shopUrl}   a stand-in WooCommerce shop; the demo's dry-run\n            shop connection writes back into it (docs/shops.md, "The demo")\n Shopify    ${demoShop.shopifyUrl}   a stand-in Shopify shop: its order #1001\n            came in as a signed webhook (docs/shops/shopify.md, "The demo")\n` : ""}
 Demo credentials
   account-id     ${account_id}
   api-key        ${api_key}
   supplier key   ${supplier_key}
   admin token    ${adminToken}
 The first three are kept in ${shown(credentialsFile)}, the admin token in .dev.vars.

 Try the tour in README.md; in another terminal, first:
   export BASE=${base} API_KEY=${api_key} ACCOUNT_ID=${account_id} SUPPLIER_KEY=${supplier_key}

 The cron runs every minute (as on Cloudflare). Start afresh: npm start -- ${restartArgs}--reset
 Ctrl+C stops the server. Requests are logged below; wrangler's full output: ${shown(logFile)}
${rule}
`;
}

if (await waitForServer()) {
  setInterval(fireCron, CRON_EVERY_MS);
  try {
    const credentials = await demoCredentials();
    // The demo's shop: a stand-in WooCommerce shop for as long as this server runs.
    let demoShop = null;
    try {
      demoShop = await startDemoShop({ base, accountId: credentials.account_id, apiKey: credentials.api_key, supplierKey: credentials.supplier_key });
      for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => void demoShop.close());
    } catch (error) {
      console.error(`✗ The demo shop did not start (the rest works without it): ${error.message}`);
    }
    bannerShown = true;
    console.log(banner(credentials, demoShop));
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
