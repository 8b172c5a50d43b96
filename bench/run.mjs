#!/usr/bin/env node
// `npm run bench`: seeds (or reuses) a local D1 at each size, serves the Worker with `wrangler dev`
// on a copy of it, drives every workload with autocannon at a fixed concurrency, samples D1
// queries and rows read per request from the X-D1-* headers (BENCH_METRICS=1), checks the query
// plans of the reads, and prints one table per size with each workload's ratio to the floor.
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, freemem, loadavg, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { d1File, ensureSeeded, runCopy } from "./seed.mjs";
import { workloads } from "./workloads.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

const { values: opts } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,100000" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "10" },
    warmup: { type: "string", default: "3" },
    only: { type: "string" },
    reseed: { type: "boolean", default: false },
    samples: { type: "string", default: "3" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (opts.help) {
  console.log(`Usage: npm run bench -- [--sizes 10000,100000] [--duration 10] [--connections 10] [--warmup 3]
                        [--only <regex of workload names>] [--samples 3] [--reseed]`);
  process.exit(0);
}
const sizes = opts.sizes.split(",").map(Number);
const duration = Number(opts.duration);
const connections = Number(opts.connections);
const only = opts.only ? new RegExp(opts.only, "i") : null;

// ---- The Worker under test -------------------------------------------------

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function startWorker(persistDir) {
  const port = await freePort();
  const inspectorPort = await freePort();
  const logFile = join(root, "bench", ".data", "wrangler-dev.log");
  const args = [
    "dev", "--port", String(port), "--ip", "127.0.0.1", "--inspector-port", String(inspectorPort),
    "--persist-to", persistDir, "--var", "BENCH_METRICS:1", "--show-interactive-dev-session=false", "--log-level", "warn",
  ];
  const child = spawn(join(root, "node_modules", ".bin", "wrangler"), args, {
    cwd: root,
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group, so stopping it stops workerd too
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    writeFileSync(logFile, output);
    if (child.exitCode !== null) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
    await new Promise((r) => {
      const t = setTimeout(() => {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {}
        r();
      }, 5000);
      child.on("exit", () => (clearTimeout(t), r()));
    });
  };
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${base}/health`)).ok) return { base, stop, output: () => output };
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  await stop();
  throw new Error(`wrangler dev did not come up:\n${output}`);
}

// ---- Measuring ---------------------------------------------------------------

function requestOf(w) {
  return w.request ? w.request() : { method: "GET", path: w.path };
}

/** A few plain requests: checks the answer and reads the X-D1-* headers. */
async function sampleMetrics(base, headers, w) {
  const rows = [];
  let matched = null;
  for (let i = 0; i < Number(opts.samples); i++) {
    const req = requestOf(w);
    const res = await fetch(base + req.path, { method: req.method, headers, body: req.body });
    const text = await res.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {}
    if (!w.check(res.status, json)) throw new Error(`${w.name}: unexpected answer ${res.status} ${text.slice(0, 300)}`);
    if (json?.meta?.total !== undefined) matched = json.meta.total;
    else if (json?.total !== undefined) matched = json.total;
    rows.push({
      queries: Number(res.headers.get("x-d1-queries")),
      roundTrips: Number(res.headers.get("x-d1-round-trips")),
      rowsRead: Number(res.headers.get("x-d1-rows-read")),
      unmetered: Number(res.headers.get("x-d1-unmetered")),
    });
  }
  if (rows.some((r) => Number.isNaN(r.queries))) throw new Error("no X-D1-* headers: is BENCH_METRICS on?");
  const max = (k) => Math.max(...rows.map((r) => r[k]));
  const mean = (k) => rows.reduce((s, r) => s + r[k], 0) / rows.length;
  return { queries: max("queries"), roundTrips: max("roundTrips"), rowsRead: Math.round(mean("rowsRead")), unmetered: max("unmetered"), matched };
}

function drive(base, headers, w, seconds) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: base,
        connections,
        duration: seconds,
        headers,
        requests: [{ setupRequest: (req) => ({ ...req, ...requestOf(w) }) }],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/** The consumer's "bench:pipeline {json}" log lines (BENCH_METRICS=1). */
function pipelineLines(output) {
  const out = [];
  for (const line of output.replace(/\x1b\[[0-9;]*m/g, "").split("\n")) {
    const i = line.indexOf("bench:pipeline ");
    if (i < 0) continue;
    try {
      out.push(JSON.parse(line.slice(i + "bench:pipeline ".length)));
    } catch {}
  }
  return out;
}

// ---- Query plans ---------------------------------------------------------------

const BIG_TABLES = ["orders", "order_lines", "order_line_logs", "products", "shipments"];

async function capturedStatements(base, headers, w) {
  const req = requestOf(w);
  const res = await fetch(base + req.path, { method: req.method, headers: { ...headers, "x-bench-capture-sql": "1" }, body: req.body });
  await res.text();
  const encoded = res.headers.get("x-d1-sql");
  if (!encoded) throw new Error(`${w.name}: no X-D1-SQL header`);
  return JSON.parse(Buffer.from(encoded, "base64").toString("utf8"));
}

function explain(db, stmt) {
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${stmt.sql}`).all(...stmt.params.map((p) => (typeof p === "boolean" ? Number(p) : p)));
  const depth = new Map([[0, -1]]);
  const lines = rows.map((r) => {
    const d = (depth.get(r.parent) ?? -1) + 1;
    depth.set(r.id, d);
    return `${"  ".repeat(d)}${r.detail}`;
  });
  const problems = rows
    .map((r) => r.detail)
    .filter((d) => {
      const m = /^SCAN (\w+)(?: AS \w+)?(?! VIRTUAL)/.exec(d);
      return m && BIG_TABLES.includes(m[1]);
    });
  return { lines, problems, sorts: rows.filter((r) => /TEMP B-TREE/.test(r.detail)).map((r) => r.detail) };
}

// ---- The run -------------------------------------------------------------------

const fmt = (n, digits = 0) => (n === null || n === undefined || Number.isNaN(n) ? "–" : n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }));

function targetOf(w, r, floor) {
  const rpsRatio = r.rps / floor.rps;
  const p99Ratio = r.p99 / floor.p99;
  switch (w.kind) {
    case "create":
      return { text: `rps ≥ 0.70×, 1 batch + auth`, ok: rpsRatio >= 0.7 && r.metrics.roundTrips === 2 };
    case "list":
      return { text: "p99 ≤ 3×, ≤ 4 queries", ok: p99Ratio <= 3 && r.metrics.queries <= 4 && r.plan?.problems.length === 0 };
    case "single":
      return { text: "p99 ≤ 3×, ≤ 3 queries", ok: p99Ratio <= 3 && r.metrics.queries <= 3 };
    default:
      return { text: "", ok: null };
  }
}

function table(size, results, floor) {
  const head = ["workload", "req/s", "p50 ms", "p99 ms", "queries", "round trips", "rows read", "matched", "req/s ÷ floor", "p99 ÷ floor", "target", ""];
  const rows = results.map(({ w, r }) => {
    const t = targetOf(w, r, floor);
    return [
      w.name, fmt(r.rps), fmt(r.p50, 1), fmt(r.p99, 1), fmt(r.metrics.queries), fmt(r.metrics.roundTrips),
      fmt(r.metrics.rowsRead) + (r.metrics.unmetered ? ` (+${r.metrics.unmetered} unmetered)` : ""),
      fmt(r.metrics.matched), fmt(r.rps / floor.rps, 2), fmt(r.p99 / floor.p99, 2), t.text, t.ok === null ? "" : t.ok ? "ok" : "MISSED",
    ];
  });
  const out = [`| ${head.join(" | ")} |`, `|${head.map((_, i) => (i === 0 || i >= 10 ? "---" : "---:")).join("|")}|`];
  for (const row of rows) out.push(`| ${row.join(" | ")} |`);
  return out.join("\n");
}

function machine() {
  return {
    cpus: cpus().length,
    memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB total, ${(freemem() / 2 ** 30).toFixed(1)} GiB free`,
    loadavg: loadavg().map((l) => l.toFixed(2)).join(" "),
    node: process.version,
  };
}

async function runSize(size) {
  const { dir: seeded, marker } = ensureSeeded(root, size, { force: opts.reseed });
  const persist = runCopy(root, size, seeded);
  const account = marker.accounts[0];
  const headers = { "api-key": account.apiKey, "account-id": String(account.id), accept: "application/json", "content-type": "application/json" };
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
  const all = workloads(marker, runId).filter((w) => w.kind === "floor" || !only || only.test(w.name));
  const floorW = all.find((w) => w.kind === "floor");
  const loadBefore = machine().loadavg;

  console.log(`\n→ ${size} orders: starting wrangler dev on a copy of the seeded D1…`);
  const worker = await startWorker(persist);
  const results = [];
  const plans = [];
  const pipeline = [];
  try {
    await drive(worker.base, headers, floorW, Number(opts.warmup)); // JIT and caches warm
    // The floor opens and closes the run, so a change in background load shows up as a gap between the two.
    const sequence = [...all, { ...floorW, name: "floor again (end)" }];
    for (const w of sequence) {
      const metrics = await sampleMetrics(worker.base, headers, w);
      const logStart = worker.output().length;
      if (["list", "single", "products"].includes(w.kind)) {
        const statements = await capturedStatements(worker.base, headers, w);
        plans.push({ w, statements });
      }
      process.stdout.write(`  ${w.name.padEnd(28)} `);
      const result = await drive(worker.base, headers, w, duration);
      const bad = result.non2xx + result.errors + result.timeouts;
      const r = { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, total: result.requests.total, bad, metrics };
      console.log(`${fmt(r.rps).padStart(6)} req/s  p50 ${fmt(r.p50, 1)} ms  p99 ${fmt(r.p99, 1)} ms${bad ? `  (${bad} failed requests!)` : ""}`);
      results.push({ w, r });
      if (w.kind === "create") {
        // Let the queue drain before the next workload (quiet for 3 s, at most 3 minutes).
        const drainStart = Date.now();
        let seen = -1;
        for (let quiet = 0; quiet < 3 && Date.now() - drainStart < 180_000; ) {
          await new Promise((res) => setTimeout(res, 1000));
          const n = pipelineLines(worker.output().slice(logStart)).length;
          quiet = n === seen ? quiet + 1 : 0;
          seen = n;
        }
        pipeline.push(...pipelineLines(worker.output().slice(logStart)));
        console.log(`  (queue drained: ${pipeline.length} pipeline messages handled, ${Math.round((Date.now() - drainStart) / 1000)} s after the load)`);
      }
    }
  } finally {
    await worker.stop();
  }

  // Plans: on the pristine seeded file (same schema; the running copy belongs to workerd).
  const db = new DatabaseSync(d1File(seeded), { readOnly: true });
  for (const p of plans) {
    const explained = p.statements.map((s) => ({ sql: s.sql, ...explain(db, s) }));
    p.explained = explained;
    const entry = results.find((x) => x.w.name === p.w.name);
    if (entry) entry.r.plan = { problems: explained.flatMap((e) => e.problems) };
  }
  // The queue consumer's statements, one plan per distinct SQL text.
  const pipelinePlans = new Map();
  for (const m of pipeline) {
    for (const st of m.statements) {
      if (pipelinePlans.has(st.sql)) continue;
      pipelinePlans.set(st.sql, { type: m.type, sql: st.sql, ...explain(db, st) });
    }
  }
  db.close();

  const floors = results.filter(({ w }) => w.kind === "floor");
  const floor = {
    rps: floors.reduce((s, { r }) => s + r.rps, 0) / floors.length,
    p99: floors.reduce((s, { r }) => s + r.p99, 0) / floors.length,
  };
  return { size, marker, results, floor, plans, pipeline, pipelinePlans: [...pipelinePlans.values()], loadBefore, loadAfter: machine().loadavg };
}

function report(run) {
  const { size, marker, results, floor, plans } = run;
  const lines = [];
  lines.push(`### ${size.toLocaleString("en-US")} orders (${marker.counts.order_lines.toLocaleString("en-US")} lines, ${marker.counts.order_line_logs.toLocaleString("en-US")} logs, ${marker.counts.products.toLocaleString("en-US")} products)`);
  lines.push("");
  lines.push(`${connections} connections, ${duration} s per workload; floor = mean of the two floor runs (${fmt(floor.rps)} req/s, p99 ${fmt(floor.p99, 1)} ms); load average ${run.loadBefore} before, ${run.loadAfter} after.`);
  lines.push("");
  lines.push(table(size, results, floor));
  const failed = results.filter(({ r }) => r.bad > 0);
  if (failed.length) lines.push(`\nFailed requests during the load: ${failed.map(({ w, r }) => `${w.name} ${r.bad}`).join(", ")}`);
  if (run.pipeline.length) {
    lines.push("");
    lines.push(`Queue consumer during the create workload (in the same workerd; per message):`);
    lines.push("");
    lines.push("| message | handled | queries | round trips | rows read |");
    lines.push("|---|---:|---:|---:|---:|");
    const byType = new Map();
    for (const m of run.pipeline) byType.set(m.type, [...(byType.get(m.type) ?? []), m]);
    for (const [type, ms] of byType) {
      const mean = (k) => ms.reduce((a, m) => a + m[k], 0) / ms.length;
      lines.push(`| ${type} | ${ms.length} | ${fmt(mean("queries"), 1)} | ${fmt(mean("roundTrips"), 1)} | ${fmt(mean("rowsRead"))}${ms.some((m) => m.unmetered) ? ` (+${fmt(mean("unmetered"), 1)} unmetered)` : ""} |`);
    }
  }
  lines.push("");
  lines.push(`#### Query plans (${size.toLocaleString("en-US")} orders)`);
  let scanFailures = 0;
  for (const p of plans) {
    lines.push("");
    lines.push(`${p.w.name}:`);
    p.explained.forEach((e, i) => {
      const label = /FROM\s+"?api_keys"?/i.test(e.sql) ? "auth" : `statement ${i}`;
      lines.push(`  ${label}${e.problems.length ? "   ✗ FULL SCAN" : ""}`);
      for (const l of e.lines) lines.push(`    ${l}`);
      scanFailures += e.problems.length;
    });
  }
  const pipelineScans = run.pipelinePlans.filter((p) => p.problems.length);
  lines.push("");
  lines.push(`Queue consumer: ${run.pipelinePlans.length} distinct statements explained, ${pipelineScans.length} with a full scan of a large table${pipelineScans.length ? ":" : "."}`);
  for (const p of pipelineScans) {
    lines.push(`  ✗ ${p.type}: ${p.sql.replace(/\s+/g, " ").slice(0, 300)}`);
    for (const l of p.lines) lines.push(`    ${l}`);
  }
  scanFailures += pipelineScans.length;
  return { text: lines.join("\n"), scanFailures };
}

const runs = [];
for (const size of sizes) runs.push(await runSize(size));

const m = machine();
const texts = [];
let scanFailures = 0;
let missed = 0;
for (const run of runs) {
  const { text, scanFailures: s } = report(run);
  texts.push(text);
  scanFailures += s;
  missed += run.results.filter(({ w, r }) => targetOf(w, r, run.floor).ok === false).length;
}
const summary = `Machine: ${m.cpus} CPUs, ${m.memory}, Node ${m.node}, load average now ${m.loadavg}.`;
const full = [summary, "", ...texts].join("\n");
console.log(`\n${full}`);
mkdirSync(join(root, "bench", ".data"), { recursive: true });
writeFileSync(join(root, "bench", ".data", "last-run.md"), full + "\n");
writeFileSync(
  join(root, "bench", ".data", "last-run.json"),
  JSON.stringify(runs.map((run) => ({ size: run.size, floor: run.floor, results: run.results.map(({ w, r }) => ({ name: w.name, kind: w.kind, ...r })) })), null, 2),
);
console.log(`\n(also written to bench/.data/last-run.md)`);
if (scanFailures) {
  console.error(`\n✗ ${scanFailures} full scan(s) of a large table in the query plans above.`);
  process.exit(1);
}
if (missed) console.log(`\n${missed} target(s) missed (see the table).`);
