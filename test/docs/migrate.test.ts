// `npm run db:migrate:*` (scripts/migrate.mjs) refuses a wrangler.toml declaring shards past the
// limit, or with a gap, before it touches any database (docs/operations.md, "Limits of ids"). The
// declarations at the limit (SHARD_63) are checked by the same function in test/shards/limits.test.ts;
// migrating 64 databases here would only be slow.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { root } from "./markdown";

const dir = mkdtempSync(join(tmpdir(), "migrate-limits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The project's wrangler.toml with these shard bindings added after SHARD_1. */
function configWith(bindings: string[]): string {
  const extra = bindings
    .map((b, i) => `[[d1_databases]]\nbinding = "${b}"\ndatabase_name = "limits-${i}"\ndatabase_id = "00000000-0000-0000-0000-${String(i).padStart(12, "0")}"\nmigrations_dir = "drizzle"\n`)
    .join("\n");
  const file = join(dir, `wrangler-${bindings.length}.toml`);
  writeFileSync(file, `${readFileSync(join(root, "wrangler.toml"), "utf8")}\n${extra}`);
  return file;
}

function migrate(config: string) {
  const state = join(dir, "state");
  return spawnSync(process.execPath, [join(root, "scripts", "migrate.mjs"), "--local", "--persist-to", state, "--config", config], { cwd: root, encoding: "utf8" });
}

describe("npm run db:migrate:* with shards past the limit", () => {
  it("refuses SHARD_2 to SHARD_64 (65 shards) and a gap, naming the binding, having migrated nothing", () => {
    const sixtyFive = configWith(Array.from({ length: 63 }, (_, i) => `SHARD_${i + 2}`));
    const refused = migrate(sixtyFive);
    expect([refused.status, refused.stdout, refused.stderr]).toEqual([
      1,
      "",
      `✗ ${sixtyFive}: SHARD_64: at most 64 shards (DB and SHARD_1 to SHARD_63); ids of blocks 64 to 255 are for moves (docs/operations.md, Shards).\nNothing was migrated.\n`,
    ]);
    const gap = configWith(["SHARD_3"]);
    const gapped = migrate(gap);
    expect([gapped.status, gapped.stdout, gapped.stderr]).toEqual([
      1,
      "",
      `✗ ${gap}: SHARD_2 missing: shards are numbered in sequence, SHARD_1, SHARD_2, … (the ones after a gap would never be used).\nNothing was migrated.\n`,
    ]);
  });
});
