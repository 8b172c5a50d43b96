#!/usr/bin/env node
// `npm start`: from a fresh clone to a running API on an embedded local D1.
// Runs on whatever Node the machine has (it may be older than wrangler needs); the project's own
// Node (the `node` devDependency) runs wrangler once dependencies are installed.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { seedDemo } from "./lib/demo-data.mjs";
import { bin, childEnv as env, ensureDependencies, root, run } from "./lib/setup.mjs";

const args = process.argv.slice(2);
const portIndex = args.indexOf("--port");
const port = portIndex >= 0 ? Number(args[portIndex + 1]) : 8787;
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error("Usage: npm start -- [--port N]");
  process.exit(2);
}

// 1. Dependencies.
ensureDependencies();

// 2. Local secrets.
const devVars = join(root, ".dev.vars");
if (!existsSync(devVars)) {
  writeFileSync(devVars, `ADMIN_TOKEN=${randomBytes(24).toString("hex")}\n`, { mode: 0o600 });
  console.log("→ Created .dev.vars with a random ADMIN_TOKEN");
}
const adminToken = /^ADMIN_TOKEN=(.*)$/m.exec(readFileSync(devVars, "utf8"))?.[1]?.trim();

// 3. /docs assets, and migrations on the local D1.
run(process.execPath, [join(root, "scripts", "docs-assets.mjs")]);
console.log("→ Applying migrations to the local D1…");
run(bin("wrangler"), ["d1", "migrations", "apply", "DB", "--local"], { env: { ...env, CI: "true" } });

// 4. Serve.
const server = spawn(bin("wrangler"), ["dev", "--port", String(port), "--ip", "127.0.0.1", "--show-interactive-dev-session=false"], {
  cwd: root,
  stdio: ["ignore", "inherit", "inherit"],
  env,
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 0));

// 5. Demo account, once the server answers.
const base = `http://localhost:${port}`;
const credentialsFile = join(root, ".demo-credentials.json");

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
  console.log("→ Creating demo data (suppliers, routing rules, orders in every state)…");
  const demo = await seedDemo(base, { accountId: account.id, apiKey: key.api_key });
  const saved = { account_id: account.id, api_key: key.api_key, supplier_key: demo.supplierKey, supplier_name: demo.supplierName };
  writeFileSync(credentialsFile, JSON.stringify(saved, null, 2) + "\n", { mode: 0o600 });
  // A first cron run at once, so the operator's pipeline page has one to show.
  await fireCron();
  return saved;
}

// 6. The cron. On Cloudflare the Worker's cron trigger fires every minute ([triggers] in
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

if (await waitForServer()) {
  setInterval(fireCron, CRON_EVERY_MS);
  try {
    const { account_id, api_key, supplier_key, supplier_name } = await demoCredentials();
    console.log(`
────────────────────────────────────────────────────────────────────────
 Order intake API on ${base}   (docs: ${base}/docs  OpenAPI: ${base}/openapi.json)
 Demo account-id: ${account_id}
 Demo api-key:    ${api_key}
 Admin token:     in .dev.vars (ADMIN_TOKEN)

 Console:         ${base}/console    sign in with Account ID ${account_id} and the api-key above
 Supplier portal: ${base}/supplier   ${supplier_key ? `supplier key of ${supplier_name}: ${supplier_key}` : "(a supplier key: POST /api/v1/suppliers/{id}/keys)"}
 Operator:        ${base}/operator   sign in with the admin token
 (kept in .demo-credentials.json)
 Cron:            fired every minute by npm start, as Cloudflare does (sweepers, events, feeds)

 Try it:
 curl -s -X POST ${base}/api/v1/orders \\
   -H 'api-key: ${api_key}' -H 'account-id: ${account_id}' \\
   -H 'Content-Type: application/json' -H 'Accept: application/json' \\
   -d '{"external_id":"demo-1","source":"curl","total":25,"shipping_address":{"first_name":"Jan","last_name":"Jansen","address1":"Damrak 1","postcode":"1012LG","city":"Amsterdam","country":"Netherlands"},"products":[{"external_id":"p1","name":"Mug","quantity":1,"price":25}]}'

 curl -s ${base}/api/v1/orders -H 'api-key: ${api_key}' -H 'account-id: ${account_id}'
────────────────────────────────────────────────────────────────────────
`);
  } catch (error) {
    console.error("Could not create the demo account:", error.message);
  }
} else {
  console.error("The server did not come up; see the output above.");
}
