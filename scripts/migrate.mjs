#!/usr/bin/env node
// `npm run db:migrate:local` / `npm run db:migrate:remote`: applies the migrations to every D1
// database wrangler.toml declares (every shard: DB and SHARD_n from drizzle/; the directory from
// drizzle-directory/), then gives each shard its id range (scripts/lib/shards.mjs). Safe to run
// again: wrangler applies only what a database has not had, and the ranges are set once.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { d1Bindings, idRangeStatements, MAX_ACCOUNT_ID, shardDeclarationProblem, shardOfBinding } from "./lib/shards.mjs";
import { bin, childEnv, root, run } from "./lib/setup.mjs";

const where = process.argv.includes("--remote") ? "--remote" : "--local";
// Anything else is wrangler's (e.g. --persist-to <dir> for a local state of its own, --config <file>).
const extra = process.argv.slice(2).filter((a) => a !== "--remote" && a !== "--local");
const configAt = extra.findIndex((a) => a === "--config" || a === "-c");
const config = configAt >= 0 ? extra[configAt + 1] : join(root, "wrangler.toml");
const bindings = d1Bindings(readFileSync(config, "utf8"));
// Shards past the limit, or with a gap, are refused before any database is touched (the Worker
// refuses them too: src/index.ts).
const problem = shardDeclarationProblem(bindings.map((d) => d.binding));
if (problem) {
  console.error(`✗ ${config}: ${problem}\nNothing was migrated.`);
  process.exit(1);
}
const databases = bindings.filter((d) => d.migrationsDir);
const wrangler = (args) => [bin("wrangler"), args, { env: { ...childEnv, CI: "true" } }];
/** One database's migrations, then its id range when it is a shard: the steps, each a wrangler command. */
const stepsOf = (binding) => {
  const shard = shardOfBinding(binding);
  return [
    { say: `→ ${binding}: migrations (${where.slice(2)})`, command: wrangler(["d1", "migrations", "apply", binding, where, ...extra]) },
    ...(shard ? [{ say: `→ ${binding}: ids from ${shard} × 2^40`, command: wrangler(["d1", "execute", binding, where, ...extra, "--command", idRangeStatements(shard).join(";\n")]) }] : []),
  ];
};
if (where === "--remote") {
  for (const { binding } of databases) {
    for (const { say, command } of stepsOf(binding)) {
      console.log(say);
      run(...command);
    }
  }
} else {
  // Local databases are files of their own: migrated side by side (wrangler starts a local runtime
  // per migration, so one after another took minutes), their output printed in order once all are done.
  const results = await Promise.all(databases.map(({ binding }) => runSteps(stepsOf(binding))));
  // The local runtimes share the state's metadata database: one opening it while another recovers it
  // fails with SQLITE_BUSY. Such a database is migrated again, alone (wrangler applies only what it
  // has not recorded).
  for (const [i, { binding }] of databases.entries()) {
    for (let again = 0; again < 3 && results[i].failed && /SQLITE_BUSY|database is locked/.test(results[i].stdout + results[i].stderr); again++) {
      results[i] = await runSteps(stepsOf(binding));
    }
  }
  for (const result of results) {
    process.stdout.write(result.stdout);
    process.stderr.write(result.stderr);
  }
  const failed = results.find((r) => r.failed);
  if (failed) {
    console.error(`\n✗ ${failed.failed} failed.`);
    process.exit(1);
  }
}

/** Steps one after another, their output kept; stops at the first that fails. */
async function runSteps(steps) {
  let stdout = "";
  let stderr = "";
  for (const { say, command } of steps) {
    stdout += `${say}\n`;
    const [cmd, args, options] = command;
    const code = await new Promise((resolve) => {
      const child = spawn(cmd, args, { cwd: root, ...options, stdio: ["ignore", "pipe", "pipe"] });
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("close", (status, signal) => resolve(status ?? signal));
    });
    if (code !== 0) return { stdout, stderr, failed: `${cmd} ${args.join(" ")} (exit ${code})` };
  }
  return { stdout, stderr, failed: null };
}

// The directory mints account ids from now on: it starts above the accounts shard 0 had before
// sharding (those stay on shard 0; the directory not knowing an account means shard 0).
const legacy = spawnSync(bin("wrangler"), ["d1", "execute", "DB", where, ...extra, "--json", "--command", "SELECT coalesce(max(id), 0) AS m FROM accounts"], {
  cwd: root,
  env: { ...childEnv, CI: "true" },
  encoding: "utf8",
});
const highest = legacy.status === 0 ? Number(JSON.parse(legacy.stdout)[0]?.results?.[0]?.m ?? 0) : 0;
if (legacy.status !== 0) console.error(`! Could not read shard 0's highest account id:\n${legacy.stderr}`);
if (highest >= MAX_ACCOUNT_ID) {
  console.error(`! Shard 0 holds account ids up to ${highest}: account ids end at ${MAX_ACCOUNT_ID}, so no new account can be created (docs/operations.md, "Limits of ids").`);
}
if (highest > 0) {
  console.log(`→ DIRECTORY: account ids from ${highest + 1}`);
  const raise = [
    `INSERT INTO sqlite_sequence (name, seq) SELECT 'directory_accounts', ${highest} WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'directory_accounts')`,
    `UPDATE sqlite_sequence SET seq = ${highest} WHERE name = 'directory_accounts' AND seq < ${highest}`,
  ];
  run(bin("wrangler"), ["d1", "execute", "DIRECTORY", where, ...extra, "--command", raise.join(";\n")], { env: { ...childEnv, CI: "true" } });
}
