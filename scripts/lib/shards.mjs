// What the migration command and the tests share about shards: which D1 bindings wrangler.toml
// declares, and the statements that give a shard its own range of ids.

/** Shard n's ids start here (n × 2^40): no two shards ever mint the same id, and all stay below 2^53. */
export const ID_RANGE = 2 ** 40;

/**
 * Raises every AUTOINCREMENT counter of a shard to the start of id block n (once: a counter already
 * past it is left alone, so running this again changes nothing). Shard n starts in block n; a
 * shard that takes in an account holding higher ids moves on to a later block (src/shards/move.ts).
 * SQLite keeps the counters in the plain table sqlite_sequence; a table without a row there yet
 * gets one. Block 0 is 0.
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
