// What the migration command and the tests share about shards: which D1 bindings wrangler.toml
// declares, and the statements that give a shard its own range of ids.

/** Shard n's ids start here (n × 2^40): no two shards ever mint the same id, and all stay below 2^53. */
export const ID_RANGE = 2 ** 40;

// The limits that follow from the order search's rowid, (account_id * 2 + test) * 2^40 + the order
// id packed into 40 bits ((id >> 40) * 2^32 + (id & (2^32 - 1)); drizzle/0017_shard_moves.sql): a
// signed 64-bit integer (docs/operations.md, "Shards", says what happens past each).
/** Shards 0 to 63: shard n mints in block n, and blocks from 64 up are the spare ones moves hand out. */
export const MAX_SHARDS = 64;
/** The first spare id block (a shard taking in higher ids moves on to one: src/shards/move.ts). */
export const FIRST_SPARE_BLOCK = MAX_SHARDS;
/** The last id block: the search's rowid keeps 8 bits of the block. */
export const LAST_BLOCK = 255;
// Orders a shard mints in one block: 2^32, the search's rowid keeping the low 32 bits of the id's
// place in its block (enforced in the database: drizzle/0022_order_id_limit.sql).
/** The highest account id: (2^22 − 1) × 2 + 1, times 2^40, plus 40 bits, is 2^63 − 1. */
export const MAX_ACCOUNT_ID = 2 ** 22 - 1;

/**
 * Why a deployment's bindings are refused as shards, or null when they are fine: the SHARD_n must be
 * SHARD_1, SHARD_2, … in sequence (a gap would leave the shards after it unused) and at most
 * SHARD_63 (shard 64 would mint in the first spare block). The migration command and the Worker
 * both refuse such a deployment (scripts/migrate.mjs, src/index.ts).
 */
export function shardDeclarationProblem(bindings) {
  const declared = bindings.filter((b) => /^SHARD_/.test(b));
  const numbers = declared.map((b) => (/^SHARD_[1-9]\d*$/.test(b) ? Number(b.slice(6)) : null));
  const odd = declared.filter((_, i) => numbers[i] === null);
  if (odd.length > 0) return `${odd.join(", ")}: a shard's binding is SHARD_<n>, n from 1 to ${MAX_SHARDS - 1} without leading zeros.`;
  const over = declared.filter((_, i) => numbers[i] >= MAX_SHARDS);
  if (over.length > 0) {
    return `${over.join(", ")}: at most ${MAX_SHARDS} shards (DB and SHARD_1 to SHARD_${MAX_SHARDS - 1}); ids of blocks ${FIRST_SPARE_BLOCK} to ${LAST_BLOCK} are for moves (docs/operations.md, Shards).`;
  }
  const missing = [];
  for (let n = 1; n < Math.max(0, ...numbers); n++) if (!numbers.includes(n)) missing.push(`SHARD_${n}`);
  if (missing.length > 0) return `${missing.join(", ")} missing: shards are numbered in sequence, SHARD_1, SHARD_2, … (the ones after a gap would never be used).`;
  return null;
}

/**
 * Raises every AUTOINCREMENT counter of a shard to the start of id block n (once: a counter already
 * past it is left alone, so running this again changes nothing). Shard n starts in block n; a
 * shard that takes in an account holding higher ids moves on to a later block (src/shards/move.ts).
 * SQLite keeps the counters in the plain table sqlite_sequence; a table without a row there yet
 * gets one. Block 0 is 0, and shard 0 runs this too: every AUTOINCREMENT insert scans
 * sqlite_sequence for its table's row, so with every table's row there from the start (in the
 * tables' order) a write reads the same rows on every shard, whatever was written first.
 */
export function idRangeStatements(block) {
  const base = block * ID_RANGE;
  return [
    `INSERT INTO sqlite_sequence (name, seq)
       SELECT m.name, ${base} FROM sqlite_master m
       WHERE m.type = 'table' AND m.sql LIKE '%AUTOINCREMENT%'
         AND NOT EXISTS (SELECT 1 FROM sqlite_sequence s WHERE s.name = m.name)`,
    `UPDATE sqlite_sequence SET seq = ${base} WHERE seq < ${base}`,
  ];
}

/** The [[d1_databases]] of wrangler.toml: binding, migrations_dir, database_name and database_id, in order. */
export function d1Bindings(toml) {
  return toml
    .split(/^\[\[d1_databases\]\]\s*$/m)
    .slice(1)
    .map((block) => block.split(/^\[/m)[0])
    .map((block) => ({
      binding: /^binding\s*=\s*"([^"]+)"/m.exec(block)?.[1],
      migrationsDir: /^migrations_dir\s*=\s*"([^"]+)"/m.exec(block)?.[1],
      databaseName: /^database_name\s*=\s*"([^"]+)"/m.exec(block)?.[1],
      databaseId: /^database_id\s*=\s*"([^"]+)"/m.exec(block)?.[1],
    }))
    .filter((b) => b.binding);
}

/** A shard's number from its binding (DB is shard 0, SHARD_n is n); null for any other binding. */
export function shardOfBinding(binding) {
  if (binding === "DB") return 0;
  const match = /^SHARD_(\d+)$/.exec(binding);
  return match ? Number(match[1]) : null;
}
