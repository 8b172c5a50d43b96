#!/usr/bin/env node
// The stock sync at scale (issue 26): a catalogue of N products already synced into a stand-in
// WooCommerce shop of N products (the map and the last values written are seeded, as a first full
// sync leaves them), then a feed import that changes C of them, pushed through the API of a
// `wrangler dev` with the queue consumer attached. Measured: the requests the shop received (C
// products in C/100 batch requests), the D1 statements and rows read of the sync's queue messages
// (BENCH_METRICS=1: one `bench:pipeline` line per message), and the bytes kept per mapped product
// (shop_stock_items and its index, from SQLite's dbstat, else from the rows' lengths).
//
//   node bench/stock.mjs --sizes 10000,100000 --changed 1000     (what bench/RESULTS.md reports)
//   npm run bench -- --stock-only --sizes 2000,10000             (the same through bench/run.mjs)
import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes, webcrypto } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { shardFile } from "./seed.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const SECRETS_KEY = "bench-secrets-key-0123456789abcdef";
const NOW = new Date().toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// wrangler wants the project's Node (node_modules/.bin/node), as `npm run` puts it first on PATH.
const ENV = { ...process.env, PATH: `${join(root, "node_modules", ".bin")}:${process.env.PATH}`, CI: "true", WRANGLER_SEND_METRICS: "false" };

/** A request to the Worker on a fresh connection (wrangler dev resets kept-alive ones, which fetch reuses). */
function request(url, { method = "GET", headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode, ok: res.statusCode >= 200 && res.statusCode < 300, text, json: () => JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The stand-in shops (TypeScript, as the tests run them), bundled for this Node by esbuild. */
async function standIns() {
  const { build } = await import("esbuild");
  const outfile = join(root, ".wrangler", "bench-stand-ins.mjs");
  await build({
    stdin: {
      contents: 'export { startStandIns } from "./test/shops/stand-ins/harness"; export { woocommerceStandIn } from "./test/shops/stand-ins/woocommerce";',
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "silent",
  });
  const { startStandIns, woocommerceStandIn } = await import(`${pathToFileURL(outfile).href}?t=${Date.now()}`);
  return startStandIns([woocommerceStandIn]);
}

/** As src/lib/sealed.ts seals: AES-256-GCM under SHA-256(SECRETS_KEY), bound to the connection's account and platform. */
async function seal(plaintext, boundTo) {
  const b64url = (bytes) => Buffer.from(bytes).toString("base64url");
  const digest = new Uint8Array(await webcrypto.subtle.digest("SHA-256", new TextEncoder().encode(SECRETS_KEY)));
  const id = createHash("sha256").update(digest).digest("hex").slice(0, 8);
  const key = await webcrypto.subtle.importKey("raw", digest, "AES-GCM", false, ["encrypt"]);
  const iv = webcrypto.getRandomValues(new Uint8Array(12));
  const data = await webcrypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: new TextEncoder().encode(boundTo) }, key, new TextEncoder().encode(plaintext));
  return `v1.${id}.${b64url(iv)}.${b64url(new Uint8Array(data))}`;
}

/** N products synced: the catalogue, the shop's map with the last values written, the cursor past every change. */
async function seed(file, size, shop) {
  const db = new DatabaseSync(file);
  const secret = `oik_${randomBytes(32).toString("base64url")}`;
  const account = Number(db.prepare("INSERT INTO accounts (name, created_at) VALUES ('Stock bench', ?)").run(NOW).lastInsertRowid);
  db.prepare("INSERT INTO api_keys (account_id, name, key_hash, prefix, created_at) VALUES (?, 'bench', ?, ?, ?)").run(account, createHash("sha256").update(secret).digest("hex"), secret.slice(0, 10), NOW);
  const supplier = Number(db.prepare("INSERT INTO suppliers (account_id, name, active, priority, channel, created_at, updated_at) VALUES (?, 'Bench supplier', 1, 100, 'manual', ?, ?)").run(account, NOW, NOW).lastInsertRowid);
  const feed = Number(db.prepare("INSERT INTO product_feeds (account_id, supplier_id, name, format, active, created_at, updated_at) VALUES (?, ?, 'Bench feed', 'csv', 1, ?, ?)").run(account, supplier, NOW, NOW).lastInsertRowid);
  db.exec("BEGIN");
  db.prepare(
    `INSERT INTO products (account_id, product_feed_id, sku, ean13, name, purchase_price, stock_quantity, active, created_at, updated_at, change_seq)
     WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     SELECT ?, ?, printf('SKU-%06d', i), NULL, 'Product ' || i, 100000, i % 50, 1, ?, ?, 1 FROM n`,
  ).run(size, account, feed, NOW, NOW);
  db.prepare("INSERT INTO catalogue_sequences (account_id, seq) VALUES (?, 1)").run(account);
  const settings = JSON.stringify({ mode: "live", complete_status: "completed", tracking: "auto", stock_sync: { enabled: true, match_by: "sku", quantity: "sum", buffer: 0, without_offer: "zero" } });
  const sealed = await seal(JSON.stringify(shop.credentials), `shop_connection:${account}:woocommerce`);
  const hint = JSON.stringify({ consumer_key: "…", consumer_secret: "…" });
  const connection = Number(
    db
      .prepare("INSERT INTO shop_connections (account_id, platform, name, base_url, credentials_sealed, credentials_hint, settings, active, created_at, updated_at) VALUES (?, 'woocommerce', 'Bench shop', ?, ?, ?, ?, 1, ?, ?)")
      .run(account, shop.base_url, sealed, hint, settings, NOW, NOW).lastInsertRowid,
  );
  db.prepare(
    `INSERT INTO shop_stock_items (connection_id, match_key, shop_id, shop_parent_id, quantity, price)
     WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     SELECT ?, printf('SKU-%06d', i), CAST(100000 + i AS TEXT), NULL, i % 50, NULL FROM n`,
  ).run(size, connection);
  db.prepare("INSERT INTO shop_stock_cursors (connection_id, account_id, seen_seq, map_built_at, map_match_by) VALUES (?, ?, 1, ?, 'sku')").run(connection, account, NOW);
  db.exec("COMMIT");
  db.close();
  return { account, feed, connection, apiKey: secret };
}

function startWorker(persistDir, port, inspectorPort) {
  const args = ["dev", "--port", String(port), "--inspector-port", String(inspectorPort), "--ip", "127.0.0.1", "--persist-to", persistDir, "--var", "BENCH_METRICS:1", "--var", `SECRETS_KEY:${SECRETS_KEY}`, "--show-interactive-dev-session=false", "--log-level", "warn"];
  const child = spawn(join(root, "node_modules", ".bin", "wrangler"), args, { cwd: root, env: ENV, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const stop = async () => {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
    await sleep(2000);
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  };
  return { base: `http://127.0.0.1:${port}`, stop, output: () => output };
}

/** The sync messages' D1 work, from the consumer's `bench:pipeline` lines. */
function syncWork(output) {
  const lines = output.replace(/\x1b\[[0-9;]*m/g, "").split("\n").flatMap((line) => {
    const i = line.indexOf("bench:pipeline ");
    if (i < 0) return [];
    try {
      const m = JSON.parse(line.slice(i + "bench:pipeline ".length));
      return m.type === "stock_sync" ? [m] : [];
    } catch {
      return [];
    }
  });
  return { messages: lines.length, queries: lines.reduce((a, m) => a + m.queries, 0), roundTrips: lines.reduce((a, m) => a + m.roundTrips, 0), rowsRead: lines.reduce((a, m) => a + m.rowsRead, 0), rowsWritten: lines.reduce((a, m) => a + m.rowsWritten, 0) };
}

/** Bytes of shop_stock_items (table and primary key index) per row. */
function bytesPerMapped(file) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = Number(db.prepare("SELECT count(*) AS n FROM shop_stock_items").get().n);
    try {
      const pages = db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name IN ('shop_stock_items', 'sqlite_autoindex_shop_stock_items_1') GROUP BY name").all();
      return { rows, bytes: pages.reduce((a, p) => a + Number(p.bytes), 0) / rows, how: "dbstat (pages of the table and its primary key)" };
    } catch {
      const r = db.prepare("SELECT sum(length(match_key) * 2 + length(shop_id) + 24) AS b FROM shop_stock_items").get();
      return { rows, bytes: Number(r.b) / rows, how: "estimated from the rows' lengths (no dbstat)" };
    }
  } finally {
    db.close();
  }
}

export async function runStockBench({ sizes, changed }) {
  const results = [];
  const shops = await standIns();
  try {
    for (const size of sizes) {
      const persist = join(root, "bench", ".data", `stock-${size}`);
      rmSync(persist, { recursive: true, force: true });
      mkdirSync(persist, { recursive: true });
      const migrated = spawnSync(process.execPath, [join(root, "scripts", "migrate.mjs"), "--local", "--persist-to", persist], { cwd: root, env: ENV, encoding: "utf8" });
      if (migrated.status !== 0) throw new Error(`migrations: ${migrated.stdout}\n${migrated.stderr}`);
      const products = Array.from({ length: size }, (_, i) => ({ id: 100001 + i, sku: `SKU-${String(i + 1).padStart(6, "0")}`, manage_stock: true, stock_quantity: (i + 1) % 50 }));
      const shop = (await request(`${shops.url}/__shops`, { method: "POST", body: JSON.stringify({ platform: "woocommerce", seed: { products } }) })).json();
      console.error(`→ stock bench: ${size} products, shop ${shop.id}`);
      const file = shardFile(persist, 0);
      const ids = await seed(file, size, shop);
      const worker = startWorker(persist, await freePort(), await freePort());
      try {
        let up = false;
        for (let i = 0; i < 240 && !up; i++) {
          try {
            up = (await request(`${worker.base}/health`)).ok;
          } catch {}
          if (!up) await sleep(500);
        }
        if (!up) throw new Error(`wrangler dev did not come up:\n${worker.output()}`);
        const headers = { "api-key": ids.apiKey, "account-id": String(ids.account) };
        // C products of the catalogue, spread over it, each with one more in stock.
        const step = Math.max(1, Math.floor(size / changed));
        const rows = Array.from({ length: Math.min(changed, size) }, (_, k) => k * step + 1).map((i) => `SKU-${String(i).padStart(6, "0")},Product ${i},${(i % 50) + 1}`);
        const started = Date.now();
        const pushed = await request(`${worker.base}/api/v1/product-feeds/${ids.feed}/products`, { method: "PUT", headers: { ...headers, "content-type": "text/csv" }, body: `sku,name,stock_quantity\n${rows.join("\n")}\n` });
        if (pushed.status !== 200) throw new Error(`push: ${pushed.status} ${pushed.text}`);
        let sync;
        for (let i = 0; i < 600; i++) {
          const res = await request(`${worker.base}/api/v1/shop-connections/${ids.connection}/stock-syncs`, { headers });
          sync = res.json().data?.[0];
          if (sync && (sync.status === "succeeded" || sync.status === "failed")) break;
          await sleep(500);
        }
        const seconds = (Date.now() - started) / 1000;
        await sleep(1000); // the last message's metrics line
        const received = (await request(`${shops.url}/__shops/${shop.id}`)).json().received;
        const posts = received.filter((r) => r.method === "POST");
        const written = posts.reduce((a, r) => a + JSON.parse(r.body).update.length, 0);
        results.push({ size, changed: rows.length, sync, seconds, requests: received.length, posts: posts.length, written, work: syncWork(worker.output()) });
      } catch (error) {
        console.error(worker.output().slice(-3000));
        throw error;
      } finally {
        await worker.stop();
      }
      results[results.length - 1].mapped = bytesPerMapped(file);
    }
  } finally {
    await shops.close();
  }
  return results;
}

export function stockReport(results) {
  const lines = [
    "Stock sync: a catalogue of N products already in the shop, then an import changing C of them (bench/stock.mjs)",
    "",
    "| catalogue | changed | sync | shop requests | batch writes | products written | sync messages | D1 statements | D1 rows read | rows read per changed product | bytes per mapped product | seconds |",
    "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of results) {
    lines.push(
      `| ${r.size.toLocaleString("en")} | ${r.changed.toLocaleString("en")} | ${r.sync?.status} ${r.sync?.done}/${r.sync?.total} | ${r.requests} | ${r.posts} | ${r.written} | ${r.work.messages} | ${r.work.queries} | ${r.work.rowsRead.toLocaleString("en")} | ${(r.work.rowsRead / r.changed).toFixed(1)} | ${r.mapped.bytes.toFixed(1)} | ${r.seconds.toFixed(1)} |`,
    );
  }
  if (results[0]) lines.push("", `Bytes per mapped product: ${results[0].mapped.how}.`);
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { sizes: { type: "string", default: "10000,100000" }, changed: { type: "string", default: "1000" } } });
  const results = await runStockBench({ sizes: values.sizes.split(",").map(Number), changed: Number(values.changed) });
  console.log(stockReport(results));
}
