#!/usr/bin/env node
// `npm run db:replication`: turns D1 read replication on (or off, or shows it) for every D1
// database wrangler.toml declares: each shard (DB, SHARD_1, …) and the directory. Through
// Cloudflare's REST API (PUT /accounts/{account_id}/d1/database/{database_id} with
// {"read_replication": {"mode": "auto"}}), which is how replication is switched on outside the
// dashboard. Needs CLOUDFLARE_ACCOUNT_ID and CLOUDFLARE_API_TOKEN (a token allowed to edit D1).
// The Worker reads replicas through the Sessions API (src/db/sessions.ts); this only creates them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { d1Bindings } from "./lib/shards.mjs";
import { root } from "./lib/setup.mjs";

const USAGE = `Usage: npm run db:replication -- [--mode auto|disabled] [--show] [--config wrangler.toml]

  Sets D1 read replication of every database in wrangler.toml (every shard and the directory):
  --mode auto       replicas, placed by D1 near the traffic (the default)
  --mode disabled   no replicas (D1 takes a few hours to remove them)
  --show            only shows each database's mode, changes nothing

  Environment: CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_API_TOKEN (D1 edit permission);
  CLOUDFLARE_API_BASE_URL (default https://api.cloudflare.com/client/v4), as wrangler reads it.`;

let opts;
try {
  ({ values: opts } = parseArgs({
    options: {
      mode: { type: "string", default: "auto" },
      show: { type: "boolean", default: false },
      config: { type: "string", default: join(root, "wrangler.toml") },
      help: { type: "boolean", short: "h", default: false },
    },
  }));
} catch (error) {
  console.error(`✗ ${error.message}\n\n${USAGE}`);
  process.exit(2);
}
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!["auto", "disabled"].includes(opts.mode)) {
  console.error(`✗ --mode must be auto or disabled, not "${opts.mode}".\n\n${USAGE}`);
  process.exit(2);
}
const accountId = process.env.CLOUDFLARE_ACCOUNT_ID;
const token = process.env.CLOUDFLARE_API_TOKEN;
if (!accountId || !token) {
  console.error(`✗ Set CLOUDFLARE_ACCOUNT_ID and CLOUDFLARE_API_TOKEN (a token with D1 edit permission).\n\n${USAGE}`);
  process.exit(2);
}
const api = (process.env.CLOUDFLARE_API_BASE_URL ?? "https://api.cloudflare.com/client/v4").replace(/\/+$/, "");

const databases = d1Bindings(readFileSync(opts.config, "utf8"));
// The placeholder ids the repository ships with: `wrangler d1 create` prints the real ones.
const placeholders = databases.filter((d) => !d.databaseId || /^0{8}-0{4}-0{4}-0{4}-[0-9a-f]{12}$/.test(d.databaseId));
if (placeholders.length > 0) {
  console.error(
    `✗ ${placeholders.map((d) => d.binding).join(", ")} still ${placeholders.length === 1 ? "has" : "have"} a placeholder database_id in ${opts.config}: ` +
      "put there the id `npx wrangler d1 create <name>` printed for each (README, Deployment).",
  );
  process.exit(1);
}

/** One call to Cloudflare's API: its `result`, or the reason it failed in Cloudflare's words. */
async function call(method, path, body) {
  let res;
  try {
    res = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    return { error: `could not reach ${api}: ${error.cause?.code ?? error.message}` };
  }
  let json = null;
  try {
    json = await res.json();
  } catch {}
  if (res.ok && json?.success !== false) return { result: json?.result ?? null };
  const errors = (json?.errors ?? []).map((e) => `${e.message}${e.code ? ` (code ${e.code})` : ""}`).join("; ");
  return { error: `HTTP ${res.status}${errors ? `: ${errors}` : ""}` };
}

let failed = 0;
for (const d of databases) {
  const path = `/accounts/${encodeURIComponent(accountId)}/d1/database/${encodeURIComponent(d.databaseId)}`;
  const label = `${d.binding} (${d.databaseName ?? d.databaseId})`;
  const { result, error } = opts.show ? await call("GET", path) : await call("PUT", path, { read_replication: { mode: opts.mode } });
  if (error) {
    failed++;
    console.error(`✗ ${label}: ${error}`);
  } else {
    console.log(`→ ${label}: read replication ${result?.read_replication?.mode ?? (opts.show ? "unknown" : opts.mode)}`);
  }
}
if (failed > 0) {
  console.error(`\n✗ ${failed} of ${databases.length} database(s) not done; the others are. Running the command again is safe.`);
  process.exit(1);
}
