import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { idRangeStatements } from "../scripts/lib/shards.mjs";

// Idempotent: applies only migrations not yet recorded in d1_migrations; the id ranges are set once.
// Every shard (DB is shard 0, SHARD_1) and the directory, as `npm run db:migrate:local` does.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await env.DB.batch(idRangeStatements(0).map((s) => env.DB.prepare(s)));
await applyD1Migrations(env.SHARD_1, env.TEST_MIGRATIONS);
await env.SHARD_1.batch(idRangeStatements(1).map((s) => env.SHARD_1.prepare(s)));
await applyD1Migrations(env.DIRECTORY, env.TEST_DIRECTORY_MIGRATIONS);
