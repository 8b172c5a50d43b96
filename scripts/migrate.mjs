#!/usr/bin/env node
// `npm run db:migrate:local` / `npm run db:migrate:remote`: applies the migrations to every D1
// database wrangler.toml declares (every shard: DB and SHARD_n from drizzle/; the directory from
// drizzle-directory/), then gives each shard its id range (scripts/lib/shards.mjs). Safe to run
// again: wrangler applies only what a database has not had, and the ranges are set once.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
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
/** One database's migrations, then its id range when it is a shard (shard 0 too: its counters exist from the start): the steps, each a wrangler command. */
const stepsOf = (binding) => {
  const shard = shardOfBinding(binding);
  return [
    { say: `→ ${binding}: migrations (${where.slice(2)})`, command: wrangler(["d1", "migrations", "apply", binding, where, ...extra]) },
    ...(shard !== null ? [{ say: `→ ${binding}: ids from ${shard} × 2^40`, command: wrangler(["d1", "execute", binding, where, ...extra, "--command", idRangeStatements(shard).join(";\n")]) }] : []),
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
  await migrateLocally();
  process.exit(0);
}

/**
 * The local databases, in one local runtime: wrangler's getPlatformProxy on the state `wrangler dev`
 * uses (--persist-to, default .wrangler/state), applying each migration as `wrangler d1 migrations
 * apply --local` does (its d1_migrations table, the file's statements and its record in one batch),
 * so wrangler sees the same migrations applied. `wrangler d1 migrations apply` starts a runtime per
 * migration: 43 of them on three databases took 71 s, and past 150 s on a busy machine.
 */
async function migrateLocally() {
  const unknown = extra.filter((a, i) => !["--persist-to", "--config", "-c"].includes(a) && !["--persist-to", "--config", "-c"].includes(extra[i - 1]));
  if (unknown.length > 0) {
    console.error(`✗ ${unknown.join(" ")}: a local migration takes only --persist-to <dir> and --config <file>.\nNothing was migrated.`);
    process.exit(1);
  }
  const persistAt = extra.indexOf("--persist-to");
  const persistTo = persistAt >= 0 ? extra[persistAt + 1] : join(root, ".wrangler", "state");
  const { getPlatformProxy, unstable_splitSqlQuery: splitSql } = await import("wrangler");
  const proxy = await getPlatformProxy({ configPath: config, persist: { path: join(persistTo, "v3") } });
  try {
    for (const { binding, migrationsDir } of databases) {
      console.log(`→ ${binding}: migrations (local)`);
      const db = proxy.env[binding];
      await db.prepare(`CREATE TABLE IF NOT EXISTS d1_migrations(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`).run();
      const applied = new Set((await db.prepare("SELECT name FROM d1_migrations").all()).results.map((r) => r.name));
      const dir = join(dirname(config), migrationsDir);
      const files = readdirSync(dir).filter((f) => f.endsWith(".sql")).sort();
      for (const file of files.filter((f) => !applied.has(f))) {
        const statements = splitSql(readFileSync(join(dir, file), "utf8")).map((q) => db.prepare(q));
        try {
          await db.batch([...statements, db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(file)]);
        } catch (e) {
          console.error(`✗ ${binding}: ${file} failed, and nothing of it was applied: ${e?.cause?.message ?? e?.message ?? e}`);
          process.exitCode = 1;
          return;
        }
        console.log(`  applied ${file}`);
      }
      if (files.every((f) => applied.has(f))) console.log("  up to date");
      const shard = shardOfBinding(binding);
      if (shard !== null) {
        console.log(`→ ${binding}: ids from ${shard} × 2^40`);
        await db.batch(idRangeStatements(shard).map((q) => db.prepare(q)));
      }
    }
    // As for the remote databases below: the directory mints account ids above shard 0's.
    const { m: highest } = await proxy.env.DB.prepare("SELECT coalesce(max(id), 0) AS m FROM accounts").first();
    if (highest >= MAX_ACCOUNT_ID) console.error(`! Shard 0 holds account ids up to ${highest}: account ids end at ${MAX_ACCOUNT_ID}, so no new account can be created (docs/operations.md, "Limits of ids").`);
    if (highest > 0) {
      console.log(`→ DIRECTORY: account ids from ${highest + 1}`);
      await proxy.env.DIRECTORY.batch(directoryRaise(highest).map((q) => proxy.env.DIRECTORY.prepare(q)));
    }
  } finally {
    await proxy.dispose();
  }
  if (process.exitCode) process.exit(process.exitCode);
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
  run(bin("wrangler"), ["d1", "execute", "DIRECTORY", where, ...extra, "--command", directoryRaise(highest).join(";\n")], { env: { ...childEnv, CI: "true" } });
}

/** Raises the directory's account counter to shard 0's highest account id (once; never lowers it). */
function directoryRaise(highest) {
  return [
    `INSERT INTO sqlite_sequence (name, seq) SELECT 'directory_accounts', ${highest} WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'directory_accounts')`,
    `UPDATE sqlite_sequence SET seq = ${highest} WHERE name = 'directory_accounts' AND seq < ${highest}`,
  ];
}
