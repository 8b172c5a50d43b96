// Seeds a local D1 for the benchmark: the real migrations through `npm run db:migrate:local` (every
// shard and the directory), then a bulk load into shard 0 (the binding DB) of
// rows in the shape the service writes them (orders, lines, one log entry per status move,
// accounts and hashed api keys, suppliers, product feeds and products), straight into the
// local D1's SQLite file with node:sqlite. Deterministic (seeded PRNG), reused between runs: a
// marker records the migrations' hash and the seeder's version. Migrations added since are applied
// to the seeded data (as production applies them); a change to a seeded one or to the seeder reseeds.
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

const SEED_VERSION = 4;
/**
 * API keys of the benchmarked account. The load rotates over them, as many shops' plugins would,
 * so a per-key rate limit (1,200 a minute where one is configured) does not throttle the run.
 */
export const BENCH_KEYS = 40;
/** The data ends here and spans the year before it; filters in workloads.mjs are relative to it. */
export const ANCHOR = Date.parse("2026-11-01T00:00:00.000Z");
const DAY = 86_400_000;
const SPAN_DAYS = 365;
export const PRODUCTS_MAIN = 50_000;
const PRODUCTS_OTHER = 2_000;
const SUPPLIERS_MAIN = 20;
const SUPPLIERS_OTHER = 5;
/**
 * `size` is the number of orders of the benchmarked account; a second account has a ninth of that
 * more (every tenth order), so that every query must keep to its own account.
 */
const OTHER_EVERY = 10;

export const iso = (ms) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The migration files, in the order they are applied: every shard's (drizzle/), then the directory's
 * (drizzle-directory/, named with their folder).
 */
function migrationFolders(root) {
  const sql = (folder) => readdirSync(join(root, folder)).filter((f) => f.endsWith(".sql")).sort();
  const directory = existsSync(join(root, "drizzle-directory")) ? sql("drizzle-directory").map((f) => `drizzle-directory/${f}`) : [];
  return { shard: sql("drizzle"), directory };
}

/**
 * The hash of the seeder's version and the migration files, the schema's own (`hash`: every shard
 * migration, then every directory migration), and the hash of every earlier state the two folders
 * were in: each pair of a prefix of the shard migrations and a prefix of the directory's, with the
 * files added since (a marker holding one of them is brought forward by applying those). The two
 * folders grow apart: a shard migration added after a directory one is still "added since".
 */
export function schemaHashes(root) {
  const { shard, directory } = migrationFolders(root);
  const contents = new Map([...shard, ...directory].map((f) => [f, readFileSync(join(root, f.startsWith("drizzle-directory/") ? "" : "drizzle", f))]));
  const h = createHash("sha256");
  h.update(`seed-v${SEED_VERSION}\n`);
  const earlier = new Map();
  let hash = null;
  for (let i = 0; i <= shard.length; i++) {
    if (i > 0) {
      h.update(shard[i - 1]);
      h.update(contents.get(shard[i - 1]));
    }
    const d = h.copy();
    for (let j = 0; j <= directory.length; j++) {
      if (j > 0) {
        d.update(directory[j - 1]);
        d.update(contents.get(directory[j - 1]));
      }
      const digest = d.copy().digest("hex").slice(0, 16);
      if (i === shard.length && j === directory.length) hash = digest;
      else if (i + j > 0) earlier.set(digest, [...shard.slice(i), ...directory.slice(j)]);
    }
  }
  return { hash, earlier };
}

export function schemaHash(root) {
  return schemaHashes(root).hash;
}

/**
 * Every shard's and the directory's migrations on a persisted local state (scripts/migrate.mjs, as
 * `npm run db:migrate:local`): each database gets those not yet recorded in its d1_migrations table.
 */
function applyMigrations(root, state) {
  const r = spawnSync(process.execPath, [join(root, "scripts", "migrate.mjs"), "--local", "--persist-to", state], {
    cwd: root,
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`scripts/migrate.mjs --local failed:\n${r.stdout}\n${r.stderr}`);
}

/** The local D1 files of a persisted state (every shard and the directory, named by a hash). */
function d1Files(persistDir) {
  const dir = join(persistDir, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite") : [];
  return files.map((f) => join(dir, f));
}

/**
 * Shard n's database file (shard 0 is the binding DB, shard n the binding SHARD_n): of the local D1
 * files, the one with the orders table whose ids are in shard n's block (shard n starts at n × 2^40;
 * the directory has no orders table).
 */
export function shardFile(persistDir, n = 0) {
  const files = d1Files(persistDir);
  const found = files.filter((file) => {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'orders'").get()) return false;
      return Math.floor(Number(db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM sqlite_sequence").get().seq) / 2 ** 40) === n;
    } finally {
      db.close();
    }
  });
  if (found.length !== 1) throw new Error(`expected one shard-${n} D1 database file in ${persistDir}, found ${found.length} of ${files.length}`);
  return found[0];
}

/** Shard 0's database file (the binding DB). */
export const d1File = (persistDir) => shardFile(persistDir, 0);

/** The directory's database file (the binding DIRECTORY: the one with directory_accounts). */
export function directoryFile(persistDir) {
  const found = d1Files(persistDir).filter((file) => {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      return Boolean(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'directory_accounts'").get());
    } finally {
      db.close();
    }
  });
  if (found.length !== 1) throw new Error(`expected one directory D1 database file in ${persistDir}, found ${found.length}`);
  return found[0];
}

/**
 * Where the benchmarked account lives in a layout: "one" puts both accounts on shard 0 (as before
 * sharding: the directory does not know them), "sharded" puts the benchmarked account on shard 1 and
 * the other on shard 0, both in the directory with their keys and suppliers, as accounts opened
 * since sharding are.
 */
export const LAYOUTS = { one: { main: 0, other: 0, directory: false }, sharded: { main: 1, other: 0, directory: true } };

/**
 * Returns the seeded state for `size` orders: { dir, marker } where dir/state is the pristine
 * persisted state (copy it before a run that writes). Reuses the seeded data when the marker's hash
 * is the schema's; brings it forward when the marker's hash is that of a prefix of today's migration
 * files (migrations were added since, none of the seeded ones changed, same seeder): the new
 * migrations are applied to the seeded rows, as production applies them to its data. Seeds anew
 * when the marker is missing, when neither holds (a seeded migration or the seeder changed), or with
 * `force` (--reseed).
 */
export async function ensureSeeded(root, size, { force = false, log = console.log, layout = "one" } = {}) {
  const base = join(root, "bench", ".data", layout === "one" ? String(size) : `${size}-${layout}`);
  const markerFile = join(base, "seed.json");
  const { hash, earlier } = schemaHashes(root);
  if (!force && existsSync(markerFile)) {
    const marker = JSON.parse(readFileSync(markerFile, "utf8"));
    if (marker.schemaHash === hash && marker.size === size && (marker.layout ?? "one") === layout) {
      log(`→ ${size} orders: reusing the seeded D1 in ${base} (schema ${hash})`);
      return { dir: join(base, "state"), marker };
    }
    const pending = marker.size === size && (marker.layout ?? "one") === layout ? earlier.get(marker.schemaHash) : undefined;
    if (pending) {
      const state = join(base, "state");
      log(`→ ${size} orders: seeded with earlier migrations (${marker.schemaHash}); applying the ${pending.length} added since to the seeded D1: ${pending.join(", ")}`);
      const started = Date.now();
      applyMigrations(root, state);
      const seconds = Math.round((Date.now() - started) / 1000);
      marker.upgrades = [...(marker.upgrades ?? []), { from: marker.schemaHash, to: hash, migrations: pending, seconds, at: new Date().toISOString() }];
      marker.schemaHash = hash;
      writeFileSync(markerFile, JSON.stringify(marker, null, 2) + "\n");
      log(`→ ${size} orders: brought forward in ${seconds} s (schema ${hash})`);
      return { dir: state, marker };
    }
    log(`→ ${size} orders: a seeded migration or the seeder changed (${marker.schemaHash} → ${hash}), seeding again`);
  }
  rmSync(base, { recursive: true, force: true });
  mkdirSync(base, { recursive: true });
  const state = join(base, "state");
  const started = Date.now();
  log(`→ ${size} orders: applying migrations to a fresh local D1 (${state})`);
  applyMigrations(root, state);
  log(`→ ${size} orders: loading rows…`);
  const where = LAYOUTS[layout];
  const databases = { shards: [0, 1].map((n) => shardFile(state, n)), directory: directoryFile(state) };
  const loaded = [...new Set([where.main, where.other])].map((n) => databases.shards[n]);
  const marker = await withTriggersAfterwards(root, loaded, log, () => load(databases, size, layout));
  // Again (it applies nothing new): the directory's account ids now start above the seeded accounts.
  applyMigrations(root, state);
  marker.schemaHash = hash;
  marker.seedSeconds = Math.round((Date.now() - started) / 1000);
  writeFileSync(markerFile, JSON.stringify(marker, null, 2) + "\n");
  log(`→ ${size} orders: seeded in ${marker.seedSeconds} s (${marker.counts.orders} orders, ${marker.counts.order_lines} lines, ${marker.counts.order_line_logs} logs, ${marker.counts.products} products)`);
  return { dir: state, marker };
}

/**
 * Loads with the triggers of the list counts (drizzle/*_list_counts_triggers.sql) set aside, then
 * fills counters, facets and the external_id index in one pass each with that migration's own
 * backfill statements (the same views the triggers use), and puts the triggers back: 39 s for
 * 100,000 orders against 89 s with the triggers firing per row (bench/RESULTS.md); the result is
 * the same either way.
 */
async function withTriggersAfterwards(root, files, log, loadRows) {
  // wrangler's own splitter, as `wrangler d1 migrations apply` reads the file.
  const { unstable_splitSqlQuery: splitStatements } = await import("wrangler");
  const migration = readdirSync(join(root, "drizzle")).find((f) => f.endsWith("_list_counts_triggers.sql"));
  // The search index's rowid changed with sharding: its backfill is the latest migration's.
  const ftsMigration = readdirSync(join(root, "drizzle")).filter((f) => f.endsWith(".sql")).sort().findLast((f) =>
    /INSERT INTO orders_external_fts \(rowid, external_id\) SELECT/.test(readFileSync(join(root, "drizzle", f), "utf8")),
  );
  // BENCH_SEED_TRIGGERS=1 loads with the triggers firing per row instead (to compare the two).
  const triggersOf = files.map((file) => {
    const db = new DatabaseSync(file);
    const triggers = process.env.BENCH_SEED_TRIGGERS === "1" ? [] : db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").all();
    for (const t of triggers) db.exec(`DROP TRIGGER "${t.name}"`);
    db.close();
    return triggers;
  });
  const marker = loadRows();
  const started = Date.now();
  const statementsOf = (file) => splitStatements(readFileSync(join(root, "drizzle", file), "utf8")).map((st) => st.replace(/^(\s*--.*\n)+/, "").trim());
  // The order search's keys and their counters (q): the backfill of the latest migration that has one
  // (drizzle/0037's prefixes replaced 0027's keys and dropped the view 0027's backfill reads).
  const searchMigration = readdirSync(join(root, "drizzle")).filter((f) => f.endsWith(".sql")).sort().findLast((f) =>
    /^INSERT INTO order_search_keys\b/m.test(readFileSync(join(root, "drizzle", f), "utf8")),
  );
  const backfill = [
    ...statementsOf(migration).filter((st) => /^INSERT INTO (order_facets|counters)\b/.test(st)),
    ...statementsOf(ftsMigration).filter((st) => /^INSERT INTO orders_external_fts \(rowid, external_id\) SELECT/.test(st)),
    ...statementsOf(searchMigration).filter((st) => /^INSERT INTO (order_search_keys|counters)\b/.test(st)),
  ];
  files.forEach((file, i) => {
    const triggers = triggersOf[i];
    const again = new DatabaseSync(file);
    again.exec("BEGIN");
    for (const st of triggers.length === 0 ? [] : backfill) {
      const t = Date.now();
      again.exec(st);
      log(`  ${st.slice(0, 40).replace(/\s+/g, " ")}…: ${((Date.now() - t) / 1000).toFixed(1)} s`);
    }
    for (const t of triggers) again.exec(t.sql);
    again.exec("COMMIT");
    again.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    again.close();
  });
  marker.countsSeconds = Math.round((Date.now() - started) / 1000);
  log(`  counters, facets and the external_id index built in ${marker.countsSeconds} s (${backfill.length} statements of ${migration} in ${files.length} shard(s)); triggers back`);
  return marker;
}

/** A fresh copy of the pristine state for one run (the create workload writes into it). */
export function runCopy(root, size, seededDir) {
  const dir = join(root, "bench", ".data", String(size), "run");
  rmSync(dir, { recursive: true, force: true });
  cpSync(seededDir, dir, { recursive: true });
  return dir;
}

const FIRST = ["Jan", "Anna", "Pieter", "Sophie", "Lukas", "Emma", "Noah", "Julia", "Finn", "Mila", "Thomas", "Sara"];
const LAST = ["Jansen", "de Vries", "Bakker", "Visser", "Müller", "Schmidt", "Peeters", "Dubois", "Smit", "Meijer"];
const CITIES = [
  ["Amsterdam", "NL", "1012LG"],
  ["Utrecht", "NL", "3511AB"],
  ["Berlin", "DE", "10115"],
  ["Antwerpen", "BE", "2000"],
  ["Lyon", "FR", "69001"],
];
const SOURCES = ["WooCommerce", "Shopware", "Magento", "PrestaShop"];
const CARRIERS = ["PostNL", "DHL", "DPD", "UPS"];
const BRANDS = ["Acme", "Nordic Home", "Brewmaster", "Kitchenly", null];
const CATEGORIES = ["Kitchen", "Garden", "Toys", "Electronics", null];

function ean13(rand) {
  let digits = "";
  for (let i = 0; i < 12; i++) digits += Math.floor(rand() * 10);
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(digits[i]) * (i % 2 ? 3 : 1);
  return digits + ((10 - (sum % 10)) % 10);
}

function load(files, size, layout) {
  const rand = mulberry32(size);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const int = (min, max) => min + Math.floor(rand() * (max - min + 1));
  const money = (min, max) => Math.round((min + rand() * (max - min)) * 100) / 100;
  // Money columns hold exact ten-thousandths (src/lib/money.ts); the amounts here have 2 decimals.
  const units = (amount) => (amount === null ? null : Math.round(amount * 10_000));
  const where = LAYOUTS[layout];

  // Each account's rows go to its shard's file (ids from that shard's block: the migrations set each
  // shard's counters), in one transaction per file.
  const handles = new Map();
  const shardDb = (n) => {
    if (!handles.has(n)) {
      const db = new DatabaseSync(files.shards[n]);
      db.exec("PRAGMA foreign_keys = ON");
      db.exec("BEGIN");
      handles.set(n, db);
    }
    return handles.get(n);
  };
  const directory = where.directory ? new DatabaseSync(files.directory) : null;
  directory?.exec("BEGIN");
  const created = iso(ANCHOR - SPAN_DAYS * DAY - 30 * DAY);

  // Accounts and their keys (stored as the service stores them: SHA-256 hex, a readable prefix). In
  // the sharded layout the directory mints the account's id and knows its keys, as for an account
  // opened through the admin API (src/shards/accounts.ts).
  const accounts = [];
  for (const [name, keyCount, shard] of [["Bench shop", BENCH_KEYS, where.main], ["Other shop", 1, where.other]]) {
    const db = shardDb(shard);
    let id;
    if (directory) {
      id = Number(directory.prepare("INSERT INTO directory_accounts (shard, pinned, created_at) VALUES (?, 0, ?)").run(shard, created).lastInsertRowid);
      db.prepare("INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?)").run(id, name, created);
    } else {
      id = Number(db.prepare("INSERT INTO accounts (name, created_at) VALUES (?, ?)").run(name, created).lastInsertRowid);
    }
    const apiKeys = [];
    for (let k = 0; k < keyCount; k++) {
      const secret = `oik_${randomBytes(32).toString("base64url")}`;
      const keyHash = createHash("sha256").update(secret).digest("hex");
      db.prepare(
        "INSERT INTO api_keys (account_id, name, key_hash, prefix, last_used_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      ).run(id, `bench ${k + 1}`, keyHash, secret.slice(0, 10), null, created);
      directory?.prepare("INSERT INTO directory_credentials (key_hash, kind, account_id) VALUES (?, 'api_key', ?)").run(keyHash, id);
      apiKeys.push(secret);
    }
    accounts.push({ id, name, shard, apiKey: apiKeys[0], apiKeys, db });
  }
  const [main, other] = accounts;

  // Suppliers, one product feed each, and the catalogue.
  const statementsOf = new Map();
  const prepared = (account) => {
    if (!statementsOf.has(account.db)) {
      const db = account.db;
      statementsOf.set(db, {
        insertSupplier: db.prepare(
          "INSERT INTO suppliers (account_id, name, code, active, priority, channel, created_at, updated_at) VALUES (?, ?, ?, 1, ?, 'manual', ?, ?)",
        ),
        insertFeed: db.prepare(
          "INSERT INTO product_feeds (account_id, supplier_id, name, format, mapping, url, active, created_at, updated_at) VALUES (?, ?, ?, 'csv', ?, ?, 1, ?, ?)",
        ),
        insertProduct: db.prepare(
          `INSERT INTO products (account_id, product_feed_id, sku, ean13, name, purchase_price, stock_quantity, active, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ),
        insertOrder: db.prepare(
          `INSERT INTO orders (account_id, reference, external_id, source, test, blocked, total, email, shipping_cost, shipping_name,
             shipping_description, shipping_note, shipping_delivery_date, first_name, last_name, company_name, address1, address2,
             postcode, city, state, country, phone, custom, completed_at, routed_at, route_requested_at, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ),
        insertLine: db.prepare(
          `INSERT INTO order_lines (order_id, account_id, position, external_id, name, ean13, reference, quantity, stock_quantity, price,
             purchase_price, brand, category, supplier, image_url, custom, current_status, matched_supplier_id, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ),
        insertLog: db.prepare("INSERT INTO order_line_logs (order_line_id, order_id, status, message, created_at) VALUES (?, ?, ?, ?, ?)"),
      });
    }
    return statementsOf.get(account.db);
  };
  const suppliersOf = new Map();
  const catalogueOf = new Map();
  for (const [account, supplierCount, productCount] of [
    [main, SUPPLIERS_MAIN, PRODUCTS_MAIN],
    [other, SUPPLIERS_OTHER, PRODUCTS_OTHER],
  ]) {
    const { insertSupplier, insertFeed, insertProduct } = prepared(account);
    const suppliers = [];
    const feeds = [];
    for (let s = 1; s <= supplierCount; s++) {
      const name = `Supplier ${String(s).padStart(2, "0")} of ${account.name}`;
      const sid = Number(insertSupplier.run(account.id, name, `S${s}`, 100 + s, created, created).lastInsertRowid);
      directory?.prepare("INSERT INTO directory_suppliers (supplier_id, account_id) VALUES (?, ?)").run(sid, account.id);
      suppliers.push({ id: sid, name });
      const mapping = JSON.stringify({ sku: "SKU", ean13: "EAN", name: "Title", purchase_price: "Price", stock_quantity: "Stock" });
      feeds.push(Number(insertFeed.run(account.id, sid, `${name} feed`, mapping, `https://feeds.example.com/${account.id}/${s}.csv`, created, created).lastInsertRowid));
    }
    const catalogue = [];
    for (let p = 0; p < productCount; p++) {
      const feed = feeds[p % feeds.length];
      const product = { sku: `SKU-${account.id}-${p + 1}`, ean13: ean13(rand), name: `Product ${p + 1}`, price: money(2, 400) };
      const ts = iso(ANCHOR - SPAN_DAYS * DAY - int(0, 29) * DAY);
      insertProduct.run(account.id, feed, product.sku, product.ean13, product.name, units(product.price), int(0, 500), rand() < 0.95 ? 1 : 0, ts, ts);
      catalogue.push(product);
    }
    suppliersOf.set(account.id, suppliers);
    catalogueOf.set(account.id, catalogue);
  }

  // Orders, newest last (ids grow with created_at, as they do in service).
  const references = new Set();
  const newReference = () => {
    for (;;) {
      const ref = `${int(1, 8)}${String(Math.floor(rand() * 1e7)).padStart(7, "0")}${String(Math.floor(rand() * 1e8)).padStart(8, "0")}`;
      if (!references.has(ref)) {
        references.add(ref);
        return ref;
      }
    }
  };
  const nextExternal = new Map([[main.id, 100000], [other.id, 500000]]);
  const sample = { references: [], externalIds: [] };
  const counts = { orders: 0, mainOrders: 0, order_lines: 0, order_line_logs: 0, products: PRODUCTS_MAIN + PRODUCTS_OTHER };
  const start = ANCHOR - SPAN_DAYS * DAY;
  const all = size + Math.floor(size / (OTHER_EVERY - 1));
  const step = (SPAN_DAYS * DAY) / all;

  for (let i = 0; i < all; i++) {
    const account = i % OTHER_EVERY === OTHER_EVERY - 1 ? other : main;
    const { insertOrder, insertLine, insertLog } = prepared(account);
    const suppliers = suppliersOf.get(account.id);
    const catalogue = catalogueOf.get(account.id);
    const createdMs = Math.floor(start + i * step + rand() * step * 0.9);
    const createdAt = iso(createdMs);
    const ageDays = (ANCHOR - createdMs) / DAY;
    const externalId = String(nextExternal.get(account.id));
    nextExternal.set(account.id, nextExternal.get(account.id) + 1);
    const reference = newReference();
    const test = rand() < 0.03;
    const blocked = !test && rand() < 0.02;
    const [city, country, postcode] = pick(CITIES);
    const shippingCost = pick([0, 4.95, 6.95, 9.95]);

    // The lines and what happened to them since, by the order's age.
    const lineCount = int(1, 5);
    const lines = [];
    for (let p = 0; p < lineCount; p++) {
      const fromCatalogue = rand() < 0.7;
      const product = fromCatalogue ? pick(catalogue) : null;
      const price = product ? Math.round(product.price * 1.6 * 100) / 100 : money(1, 500);
      let status;
      const r = rand();
      if (blocked) status = "pending";
      else if (ageDays > 3) status = r < 0.86 ? "completed" : r < 0.89 ? "partially_completed" : r < 0.91 ? "declined" : r < 0.94 ? "skipped" : r < 0.96 ? "failed" : r < 0.98 ? "ruled" : "pending";
      else status = r < 0.3 ? "pending" : r < 0.75 ? "ruled" : r < 0.95 ? "completed" : "failed";
      lines.push({
        externalId: product ? product.sku : `P${int(1, 99999)}`,
        name: product ? product.name : `Custom item ${int(1, 999)}`,
        ean13: product ? product.ean13 : rand() < 0.5 ? ean13(rand) : null,
        reference: product ? product.sku : null,
        quantity: int(1, 3),
        price,
        purchasePrice: product ? product.price : null,
        status,
        supplier: status === "pending" || status === "skipped" ? null : pick(suppliers),
      });
    }
    const total = Math.round((lines.reduce((s, l) => s + l.price * l.quantity, 0) + shippingCost) * 100) / 100;
    const open = lines.some((l) => ["pending", "ruled", "failed"].includes(l.status));
    const doneMs = createdMs + int(1, 72) * 3_600_000;
    const completedAt = open ? null : iso(doneMs);
    const updatedAt = open ? iso(createdMs + 60_000) : completedAt;

    const orderId = Number(
      insertOrder.run(
        account.id, reference, externalId, pick(SOURCES), test ? 1 : 0, blocked ? 1 : 0, units(total),
        `customer${i}@example.com`, units(shippingCost), pick(CARRIERS), "Standard delivery", rand() < 0.1 ? "Leave at the door" : null,
        rand() < 0.2 ? new Date(createdMs + 3 * DAY).toISOString().slice(0, 10) : null,
        pick(FIRST), pick(LAST), rand() < 0.15 ? "Example BV" : null, `Main street ${int(1, 300)}`, rand() < 0.2 ? "2nd floor" : null,
        postcode, city, null, country, rand() < 0.7 ? `06${int(10000000, 99999999)}` : null,
        rand() < 0.3 ? JSON.stringify({ payment_method: pick(["ideal", "paypal", "creditcard"]) }) : null,
        completedAt, iso(createdMs + 2_000), createdAt, createdAt, updatedAt,
      ).lastInsertRowid,
    );
    counts.orders++;
    if (account === main) counts.mainOrders++;
    if (account === main && i % Math.max(1, Math.floor(all / 2000)) === 0 && !test) {
      sample.references.push(reference);
      sample.externalIds.push(externalId);
    }

    lines.forEach((l, position) => {
      const lineId = Number(
        insertLine.run(
          orderId, account.id, position, l.externalId, l.name, l.ean13, l.reference, l.quantity, rand() < 0.5 ? int(0, 200) : null,
          units(l.price), units(l.purchasePrice), pick(BRANDS), pick(CATEGORIES), null, null, null, l.status, l.supplier?.id ?? null, createdAt,
          l.status === "pending" ? createdAt : updatedAt ?? createdAt,
        ).lastInsertRowid,
      );
      counts.order_lines++;
      // The log as the state machine writes it: one entry per move.
      const moves = [["pending", "Order line created"]];
      if (l.status === "skipped") moves.push(["skipped", "Skipped by routing rule"]);
      else if (l.status !== "pending") {
        moves.push(["ruled", `Matched to ${l.supplier.name}`]);
        if (l.status !== "ruled") moves.push([l.status, l.status === "failed" ? "Sending failed: supplier answered 503" : `Supplier reported ${l.status.replace("_", " ")}`]);
      }
      moves.forEach(([status, message], k) => {
        const at = k === 0 ? createdMs : k === moves.length - 1 && !open ? doneMs : createdMs + k * 2_000;
        insertLog.run(lineId, orderId, status, message, iso(at));
        counts.order_line_logs++;
      });
    });
  }
  for (const db of [...handles.values(), ...(directory ? [directory] : [])]) {
    db.exec("COMMIT");
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
  }

  return {
    size,
    layout,
    seedVersion: SEED_VERSION,
    anchor: iso(ANCHOR),
    accounts: accounts.map(({ db, ...account }) => account),
    counts,
    suppliers: suppliersOf.get(main.id).map((s) => s.id),
    sample,
  };
}
