#!/usr/bin/env node
// The archive at work (issue 36, docs/archive.md): on a `wrangler dev` with local D1 and R2, an account
// with N finished orders (200 days old, two lines each with their logs and a shipment) and a few live
// ones. Measured, in one run:
// - one cron tick (its archive step takes at most ARCHIVE_CRON_BATCH orders per shard): orders archived, ms;
// - the operator's archive command until done (100 orders a call): orders per second, and per call the
//   D1 statements, round trips, rows read and written (X-D1-* headers, BENCH_METRICS=1);
// - GET /api/v1/orders/{reference} of an archived order against a live one's and the floor
//   (GET /api/v1), sequential requests in turn, p50/p99 and D1 statements and rows read.
//
//   node bench/archive-rate.mjs --orders 2000 --reads 200        (npm run bench runs it too: --archive-orders)
import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { shardFile } from "./seed.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const ADMIN_TOKEN = `bench-admin-${randomBytes(8).toString("hex")}`;
const DAY = 86_400_000;
const iso = (ms) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ENV = { ...process.env, PATH: `${join(root, "node_modules", ".bin")}:${process.env.PATH}`, CI: "true", WRANGLER_SEND_METRICS: "false" };
/** Live orders besides the finished ones (a pending line each: never archived). */
const LIVE = 20;

/** A request on a fresh connection (wrangler dev resets kept-alive ones). */
function request(url, { method = "GET", headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode, text, ms: performance.now() - started, headers: res.headers }));
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

/** N finished orders and LIVE live ones of one account, written as the service writes them (the triggers run). */
function seed(file, n) {
  const db = new DatabaseSync(file);
  const now = Date.now();
  const at = iso(now);
  const secret = `oik_${randomBytes(32).toString("base64url")}`;
  const account = Number(db.prepare("INSERT INTO accounts (name, created_at) VALUES ('Archive bench', ?)").run(at).lastInsertRowid);
  db.prepare("INSERT INTO api_keys (account_id, name, key_hash, prefix, created_at) VALUES (?, 'bench', ?, ?, ?)").run(account, createHash("sha256").update(secret).digest("hex"), secret.slice(0, 10), at);
  const supplier = Number(db.prepare("INSERT INTO suppliers (account_id, name, active, priority, channel, created_at, updated_at) VALUES (?, 'Bench supplier', 1, 100, 'manual', ?, ?)").run(account, at, at).lastInsertRowid);
  const order = db.prepare(`INSERT INTO orders (account_id, reference, external_id, source, test, blocked, total, email, shipping_cost, shipping_name, first_name, last_name,
      address1, postcode, city, country, phone, completed_at, routed_at, route_requested_at, created_at, updated_at)
    VALUES (?, ?, ?, 'WooCommerce', 0, 0, ?, ?, 49500, 'PostNL', 'Jan', 'Jansen', 'Damrak 1', '1012LG', 'Amsterdam', 'NL', '0612345678', ?, ?, ?, ?, ?)`);
  const line = db.prepare(`INSERT INTO order_lines (order_id, account_id, position, external_id, name, reference, quantity, price, purchase_price, current_status,
      matched_supplier_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 2, 125000, 62500, ?, ?, ?, ?)`);
  const log = db.prepare("INSERT INTO order_line_logs (order_line_id, order_id, status, message, created_at) VALUES (?, ?, ?, ?, ?)");
  const shipment = db.prepare("INSERT INTO shipments (account_id, order_id, order_line_id, quantity, carrier, tracking_number, created_at) VALUES (?, ?, ?, 2, 'PostNL', ?, ?)");
  const refs = { finished: [], live: [] };
  db.exec("BEGIN");
  for (let i = 0; i < n + LIVE; i++) {
    const live = i >= n;
    const created = live ? now - (LIVE - (i - n)) * 60_000 : now - 200 * DAY + i * 1000;
    const reference = `100${String(1_000_000_000 + i)}`;
    const id = Number(order.run(account, reference, `wc-${100000 + i}`, 274900, `jan.jansen${i % 1000}@example.com`, live ? null : iso(created + 3_600_000), iso(created + 2000), iso(created), iso(created), iso(created + 86_400_000)).lastInsertRowid);
    for (let p = 0; p < 2; p++) {
      const status = live && p === 1 ? "pending" : "completed";
      const lineId = Number(line.run(id, account, p, `sku-${p}`, p ? "Teapot" : "Blue mug", `SKU-${p}`, status, status === "pending" ? null : supplier, iso(created), iso(created)).lastInsertRowid);
      log.run(lineId, id, "pending", "Order received", iso(created));
      if (status === "completed") {
        log.run(lineId, id, "completed", "Sent to Bench supplier", iso(created + 2000));
        shipment.run(account, id, lineId, `3S${lineId}`, iso(created + 86_400_000));
      }
    }
    (live ? refs.live : refs.finished).push(reference);
  }
  db.exec("COMMIT");
  db.close();
  return { account, apiKey: secret, refs };
}

function startWorker(persistDir, port, inspectorPort) {
  const args = ["dev", "--port", String(port), "--inspector-port", String(inspectorPort), "--ip", "127.0.0.1", "--persist-to", persistDir, "--var", "BENCH_METRICS:1", "--var", `ADMIN_TOKEN:${ADMIN_TOKEN}`, "--show-interactive-dev-session=false", "--log-level", "warn"];
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

const d1 = (res) => ({ queries: Number(res.headers["x-d1-queries"]), roundTrips: Number(res.headers["x-d1-round-trips"]), rowsRead: Number(res.headers["x-d1-rows-read"]), rowsWritten: Number(res.headers["x-d1-rows-written"]) });
const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const archivedCount = (file) => {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return Number(db.prepare("SELECT count(*) AS n FROM archived_orders").get().n);
  } finally {
    db.close();
  }
};

export async function runArchiveBench({ orders, reads }) {
  const persist = join(root, "bench", ".data", `archive-${orders}`);
  rmSync(persist, { recursive: true, force: true });
  mkdirSync(persist, { recursive: true });
  const migrated = spawnSync(process.execPath, [join(root, "scripts", "migrate.mjs"), "--local", "--persist-to", persist], { cwd: root, env: ENV, encoding: "utf8" });
  if (migrated.status !== 0) throw new Error(`migrations: ${migrated.stdout}\n${migrated.stderr}`);
  const file = shardFile(persist, 0);
  const ids = seed(file, orders);
  console.error(`→ archive bench: ${orders} finished orders, ${LIVE} live`);
  const worker = startWorker(persist, await freePort(), await freePort());
  try {
    let up = false;
    for (let i = 0; i < 240 && !up; i++) {
      try {
        up = (await request(`${worker.base}/health`)).status === 200;
      } catch {}
      if (!up) await sleep(500);
    }
    if (!up) throw new Error(`wrangler dev did not come up:\n${worker.output()}`);
    const api = { "api-key": ids.apiKey, "account-id": String(ids.account) };
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };

    // One cron tick: its archive step's batch per shard (the tick's other sweepers run beside it).
    const tick = await request(`${worker.base}/cdn-cgi/local/scheduled?cron=${encodeURIComponent("* * * * *")}`);
    let byTick = 0;
    for (let i = 0; i < 40 && byTick === 0; i++, await sleep(250)) byTick = archivedCount(file);
    const cron = { archived: byTick, ms: tick.ms };

    // The operator's command until done.
    const calls = [];
    const started = performance.now();
    for (;;) {
      const res = await request(`${worker.base}/admin/v1/accounts/${ids.account}/archive`, { method: "POST", headers: admin, body: JSON.stringify({ older_than_days: 0 }) });
      if (res.status !== 200) throw new Error(`archive: ${res.status} ${res.text}`);
      const body = JSON.parse(res.text);
      calls.push({ ms: res.ms, archived: body.archived, bytesFreed: body.bytes_freed, ...d1(res) });
      if (body.done) break;
    }
    const seconds = (performance.now() - started) / 1000;
    const archived = calls.reduce((a, c) => a + c.archived, 0);
    const full = calls.filter((c) => c.archived === 100);
    const mean = (key) => (full.length ? full.reduce((a, c) => a + c[key], 0) / full.length : null);
    const rate = { archived: archived + byTick, stubs: archivedCount(file), calls: calls.length, seconds, perSecond: archived / seconds, perCall: { ms: mean("ms"), queries: mean("queries"), roundTrips: mean("roundTrips"), rowsRead: mean("rowsRead"), rowsWritten: mean("rowsWritten"), bytesFreed: mean("bytesFreed") } };

    // Reads in turn: the floor, a live order, an archived one (each request a different order of its kind).
    const kinds = { floor: [], live: [], archived: [] };
    const work = { live: null, archived: null };
    for (let i = 0; i < reads; i++) {
      const floor = await request(`${worker.base}/api/v1`, { headers: api });
      kinds.floor.push(floor.ms);
      for (const kind of ["live", "archived"]) {
        const list = kind === "live" ? ids.refs.live : ids.refs.finished;
        const res = await request(`${worker.base}/api/v1/orders/${list[(i * 7) % list.length]}`, { headers: api });
        if (res.status !== 200 || (kind === "archived") !== (res.headers["x-archived"] === "true")) throw new Error(`${kind} read: ${res.status} ${res.text.slice(0, 200)}`);
        kinds[kind].push(res.ms);
        work[kind] ??= d1(res);
      }
    }
    const latency = Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, { p50: pct(v, 50), p99: pct(v, 99) }]));
    return { orders, reads, cron, rate, latency, work };
  } finally {
    await worker.stop();
    rmSync(persist, { recursive: true, force: true });
  }
}

const f = (n, d = 0) => (n === null || n === undefined ? "—" : Number(n).toFixed(d));

export function archiveReport(r) {
  const lines = [
    `### The archive at work (${r.orders} finished orders, ${r.reads} reads of each kind)`,
    "",
    "| measure | value |",
    "|---|---:|",
    `| one cron tick: orders archived (the tick's batch per shard) | ${r.cron.archived} in ${f(r.cron.ms)} ms |`,
    `| operator's command: orders archived | ${r.rate.archived - r.cron.archived} in ${r.rate.calls} calls, ${f(r.rate.seconds, 1)} s |`,
    `| orders archived per second (one shard, one caller) | ${f(r.rate.perSecond, 1)} |`,
    `| per call of 100: ms, D1 statements, round trips | ${f(r.rate.perCall.ms)}, ${f(r.rate.perCall.queries)}, ${f(r.rate.perCall.roundTrips)} |`,
    `| per call of 100: rows read, rows written | ${f(r.rate.perCall.rowsRead)}, ${f(r.rate.perCall.rowsWritten)} |`,
    `| stubs in D1 at the end | ${r.rate.stubs} |`,
    "",
    "| read | p50 ms | p99 ms | p50 ÷ floor | D1 statements | round trips | rows read |",
    "|---|---:|---:|---:|---:|---:|---:|",
    `| floor (GET /api/v1) | ${f(r.latency.floor.p50, 1)} | ${f(r.latency.floor.p99, 1)} | 1.00 | | | |`,
    ...["live", "archived"].map((k) => `| ${k} order by reference | ${f(r.latency[k].p50, 1)} | ${f(r.latency[k].p99, 1)} | ${f(r.latency[k].p50 / r.latency.floor.p50, 2)} | ${r.work[k].queries} | ${r.work[k].roundTrips} | ${r.work[k].rowsRead} |`),
  ];
  return lines.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { orders: { type: "string", default: "2000" }, reads: { type: "string", default: "200" } } });
  const result = await runArchiveBench({ orders: Number(values.orders), reads: Number(values.reads) });
  console.log(JSON.stringify(result, null, 2));
  console.log(archiveReport(result));
}
