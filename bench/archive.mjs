#!/usr/bin/env node
// The archive's D1 footprint (issue 36, docs/archive.md): the bytes a stub of an archived order takes
// in D1, its table and indexes together, from SQLite's dbstat (pages allocated) after the real
// migrations, for N archived orders of one account with values of a usual order's sizes. D1 is SQLite:
// its pages are these pages. Run: npx node bench/archive.mjs [--orders 100000]
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { orders: { type: "string", default: "100000" } } });
const n = Number(values.orders);

const db = new DatabaseSync(":memory:");
for (const file of readdirSync(join(root, "drizzle")).filter((f) => f.endsWith(".sql")).sort()) {
  for (const statement of readFileSync(join(root, "drizzle", file), "utf8").split("--> statement-breakpoint")) {
    if (statement.trim()) db.exec(statement);
  }
}
const before = pagesOf(db);
db.exec("INSERT INTO accounts (id, name, created_at) VALUES (1, 'Bench shop', '2026-01-01T00:00:00.000000Z')");
const insert = db.prepare(`INSERT INTO archived_orders (id, account_id, reference, external_id, source, test, created_at, statuses, total, currency, email,
  first_name, last_name, company_name, postcode, city, country, part, line) VALUES (?, 1, ?, ?, 'WooCommerce', 0, ?, 4, ?, NULL, ?, ?, ?, NULL, ?, ?, 'NL', ?, ?)`);
const firstNames = ["Jan", "Anna", "Pieter", "Sophie", "Mohammed", "Lotte"];
const lastNames = ["Jansen", "de Vries", "van den Berg", "Bakker", "El Amrani", "Visser"];
const cities = ["Amsterdam", "Rotterdam", "Utrecht", "Eindhoven", "Groningen", "Den Haag"];
const start = Date.parse("2026-01-01T00:00:00Z");
db.exec("BEGIN");
for (let i = 0; i < n; i++) {
  const id = 1_000_000 + i;
  // Orders of one day share an object (500 a part at most): its name is the first id and a digest.
  const part = `${id - (i % 500)}-${randomBytes(8).toString("hex")}`;
  const createdAt = new Date(start + i * 30_000).toISOString().replace("Z", "000Z");
  const first = firstNames[i % 6];
  const last = lastNames[(i >> 3) % 6];
  insert.run(
    id,
    `1${String(Math.floor(Math.random() * 1e12)).padStart(12, "0")}`,
    `wc-${100000 + i}`,
    createdAt,
    (20 + (i % 180)) * 10_000 + 9_500,
    `${first.toLowerCase()}.${last.toLowerCase().replaceAll(" ", "")}${i % 1000}@example.com`,
    first,
    last,
    `${1000 + (i % 9000)}AB`,
    cities[i % 6],
    part,
    i % 500,
  );
}
db.exec("COMMIT");
const objects = db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name = 'archived_orders' OR name LIKE 'archived_orders_%' GROUP BY name ORDER BY bytes DESC").all();
const total = objects.reduce((a, o) => a + Number(o.bytes), 0);
const grown = (pagesOf(db) - before) * Number(db.prepare("PRAGMA page_size").get().page_size);
console.log(JSON.stringify({ orders: n, bytes_per_order: +(total / n).toFixed(1), mb_total: +(total / 2 ** 20).toFixed(2), file_growth_mb: +(grown / 2 ** 20).toFixed(2), objects: objects.map((o) => ({ name: o.name, bytes_per_order: +(Number(o.bytes) / n).toFixed(1) })) }, null, 2));

function pagesOf(d) {
  return Number(d.prepare("PRAGMA page_count").get().page_count);
}
