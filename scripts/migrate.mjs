#!/usr/bin/env node
// `npm run db:migrate:local` / `npm run db:migrate:remote`: applies the migrations to every D1
// database wrangler.toml declares (every shard: DB and SHARD_n from drizzle/; the directory from
// drizzle-directory/), then gives each shard its id range (scripts/lib/shards.mjs). Safe to run
// again: wrangler applies only what a database has not had, and the ranges are set once.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { d1Bindings, idRangeStatements, shardOfBinding } from "./lib/shards.mjs";
import { bin, childEnv, root, run } from "./lib/setup.mjs";

const where = process.argv.includes("--remote") ? "--remote" : "--local";
// Anything else is wrangler's (e.g. --persist-to <dir> for a local state of its own).
const extra = process.argv.slice(2).filter((a) => a !== "--remote" && a !== "--local");
const databases = d1Bindings(readFileSync(join(root, "wrangler.toml"), "utf8")).filter((d) => d.migrationsDir);
for (const { binding } of databases) {
  console.log(`→ ${binding}: migrations (${where.slice(2)})`);
  run(bin("wrangler"), ["d1", "migrations", "apply", binding, where, ...extra], { env: { ...childEnv, CI: "true" } });
  const shard = shardOfBinding(binding);
  if (shard) {
    console.log(`→ ${binding}: ids from ${shard} × 2^40`);
    run(bin("wrangler"), ["d1", "execute", binding, where, ...extra, "--command", idRangeStatements(shard).join(";\n")], { env: { ...childEnv, CI: "true" } });
  }
}
