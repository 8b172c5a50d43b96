// The crash of order files on their way to a supplier's FTP server (issue 30): `orders` orders
// through the public API to a supplier on the file channel whose vsftpd takes uploads at
// `rate` bytes a second (./file-server.mjs), so each order file takes seconds. The server's whole
// process group is killed (SIGKILL) while uploads are under way (temporary `.….part` files in the
// folder), `kills` times, each time started again with the cron fired as `npm start` fires it. Then
// what the FTP server HOLDS is counted: each dispatch's file exactly once, complete, no temporary
// file left, no file lost; and how often the server renamed each file into place (its log): a
// second rename is a second copy for a supplier that had already taken the first away.
//
// Alone: node bench/recovery/file-uploads.mjs [--orders 20] [--kills 2] [--rate 400]
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { startFileServer } from "./file-server.mjs";
import { accountShardFile, benchVars, freshState, query, startWorker } from "./worker.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export async function api(base, method, path, { headers, body } = {}) {
  for (let i = 0; ; i++) {
    try {
      const res = await fetch(`${base}${path}`, { method, headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
      const text = await res.text();
      return { status: res.status, json: text && /^[[{]/.test(text) ? JSON.parse(text) : null, text };
    } catch (error) {
      if (i >= 3) throw error;
      await sleep(500);
    }
  }
}

/** An account with a file supplier on `ftp` that every order is routed to; its headers and ids. */
export async function fileSupplierAccount(worker, vars, ftp, { inbound = false } = {}) {
  const admin = { authorization: `Bearer ${vars.ADMIN_TOKEN}` };
  const account = (await api(worker.base, "POST", "/admin/v1/accounts", { headers: admin, body: { name: "Crash bench" } })).json;
  const key = (await api(worker.base, "POST", `/admin/v1/accounts/${account.id}/api-keys`, { headers: admin, body: { name: "bench" } })).json;
  const headers = { "api-key": key.api_key, "account-id": String(account.id) };
  const file_transfer = { protocol: "ftp", host: ftp.host, port: ftp.port, username: ftp.username, password: ftp.password, directory: "orders", format: "csv" };
  if (inbound) file_transfer.inbound = { directory: "inbound", format: "csv", archive_directory: "archive" };
  const supplier = await api(worker.base, "POST", "/api/v1/suppliers", { headers, body: { name: "FTP supplier", channel: "file", file_transfer } });
  if (supplier.status !== 201) throw new Error(`supplier: ${supplier.text}`);
  const rule = await api(worker.base, "POST", "/api/v1/routing-rules", { headers, body: { name: "everything", conditions: [], action: { type: "assign_supplier", supplier_id: supplier.json.id } } });
  if (rule.status !== 201) throw new Error(`rule: ${rule.text}`);
  return { headers, supplierId: supplier.json.id };
}

/** `n` orders of `lines` lines each (quantity 2), created through the API (`base`: the live server's, or a function answering it after a restart); their references. */
export async function createOrders(base, headers, n, lines, tag) {
  const refs = [];
  for (let i = 0; i < n; i++) {
    // The server is being killed or restarted: the client tries again (up to two minutes), at the live server.
    let res = null;
    for (let t = 0; t < 240 && res === null; t++) {
      res = await
      api(typeof base === "function" ? base() : base, "POST", "/api/v1/orders", {
      headers,
      body: {
        external_id: `${tag}-${i}`,
        source: "bench",
        total: 45,
        email: "jan@example.com",
        shipping_address: { first_name: "Jan", last_name: "Jansen", address1: "Damrak 1", postcode: "1012LG", city: "Amsterdam", country: "NL" },
        products: Array.from({ length: lines }, (_, l) => ({ external_id: `${i}-${l}`, name: `Product ${l}`, reference: `SKU-${l}`, quantity: 2, price: 12.5 })),
      },
    }).catch(() => null);
      if (res === null) await sleep(500);
    }
    if (res === null) throw new Error("order: the server did not answer for two minutes");
    // A create the kill cut off may have been taken: sent again, it answers the order already there.
    if (res.status !== 200 && res.status !== 201) throw new Error(`order: ${res.status} ${res.text}`);
    refs.push(String(res.json.reference));
  }
  return refs;
}

/** Waits until `expected` dispatches exist and none is queued or sending (at most `ms`); true when so. */
export async function dispatchesSettled(file, expected, ms) {
  const started = Date.now();
  for (;;) {
    const [d] = query(file, "SELECT count(*) AS n, sum(status IN ('queued', 'sending')) AS open FROM dispatches");
    if (d.n >= expected && !d.open) return true;
    if (Date.now() - started > ms) return false;
    await sleep(1000);
  }
}

export async function measureFileUploadCrash({ orders = 20, kills = 2, rate = 400, log = console.log } = {}) {
  const dataDir = join(root, "bench", ".data");
  mkdirSync(dataDir, { recursive: true });
  const dir = join(dataDir, "crash-file-uploads");
  log("  (a fresh local D1 with every migration…)");
  freshState(root, dir);
  const vars = benchVars();
  const start = () => startWorker(root, dir, vars, join(dataDir, "crash-wrangler.log"));
  const ftp = await startFileServer(root, { maxRate: rate });
  let worker = await start();
  const folder = join(ftp.home, "orders");
  const listing = () => readdirSync(folder);
  const parts = () => listing().filter((f) => f.startsWith(".") && f.endsWith(".part"));
  try {
    const { headers } = await fileSupplierAccount(worker, vars, ftp);
    worker.cron();
    const createdAt = Date.now();
    // The orders go out while they are created: the kills come during these uploads.
    const creating = createOrders(() => worker.base, headers, orders, 3, "up").catch((e) => e);
    const file = await (async () => {
      for (let i = 0; ; i++) {
        try {
          return accountShardFile(dir);
        } catch (e) {
          if (i > 100) throw e;
          await sleep(200);
        }
      }
    })();
    const rounds = [];
    // The files seen appear: when the first one after a restart begins (a temporary file is made).
    const seen = new Map();
    const watch = setInterval(() => {
      for (const f of listing()) if (!seen.has(f)) seen.set(f, Date.now());
    }, 50);
    for (let k = 0; k < kills; k++) {
      const roundStart = Date.now();
      for (let i = 0; i < 1200; i++) {
        if (parts().length >= 2 || (parts().length > 0 && Date.now() - roundStart > 20_000) || Date.now() - roundStart > 120_000) break;
        await sleep(100);
      }
      const uploading = parts().length;
      await worker.kill();
      const killedAt = Date.now();
      const [sending] = query(file, "SELECT count(*) AS n FROM dispatches WHERE status = 'sending'");
      const landedAtKill = listing().filter((f) => !f.startsWith(".")).length;
      // What a kill leaves (a half-written temporary file) is not the restart's first write.
      seen.clear();
      for (const f of listing()) seen.set(f, 0);
      worker = await start();
      const restartedAt = Date.now();
      worker.cron();
      let firstWrite = null;
      for (let i = 0; i < 2400 && firstWrite === null; i++) {
        const fresh = [...seen.values()].filter((t) => t >= restartedAt);
        // A temporary file overwritten in place is a write too: its size changes from what the kill left.
        firstWrite = fresh.length ? Math.min(...fresh) : null;
        if (firstWrite === null) await sleep(100);
      }
      rounds.push({ uploading, sending: sending.n, landedAtKill, downSeconds: (restartedAt - killedAt) / 1000, restartToFirstWrite: firstWrite === null ? null : (firstWrite - restartedAt) / 1000 });
      log(`    kill ${k + 1}: ${uploading} upload(s) under way, ${sending.n} dispatches 'sending', ${landedAtKill} files in place; first new file ${firstWrite === null ? "never" : `${((firstWrite - restartedAt) / 1000).toFixed(1)} s`} after the restart`);
    }
    const created = await creating;
    if (created instanceof Error) throw created;
    const settledOk = await dispatchesSettled(file, orders, 600_000);
    clearInterval(watch);
    const seconds = (Date.now() - createdAt) / 1000;

    const dispatches = query(file, "SELECT d.id, d.status, d.attempts, o.reference FROM dispatches d JOIN orders o ON o.id = d.order_id ORDER BY d.id");
    const files = listing();
    const renames = ftp.renames();
    let once = 0;
    let twice = 0;
    let lost = 0;
    let incomplete = 0;
    let renamedTwice = 0;
    for (const d of dispatches) {
      const mine = files.filter((f) => !f.startsWith(".") && f.endsWith(`-${d.id}.csv`));
      if (mine.length === 0) lost++;
      else if (mine.length === 1) once++;
      else twice++;
      // Complete: a header and the dispatch's three lines.
      if (mine.length && readFileSync(join(folder, mine[0]), "utf8").trim().split("\n").length !== 4) incomplete++;
      if (renames.filter((r) => r.endsWith(`-${d.id}.csv`)).length > 1) renamedTwice++;
    }
    return {
      orders,
      rate,
      rounds,
      settled: settledOk,
      seconds,
      dispatches: dispatches.length,
      statuses: Object.entries(dispatches.reduce((m, d) => ((m[d.status] = (m[d.status] ?? 0) + 1), m), {})).map(([s, n]) => `${n} ${s}`).join(", "),
      once,
      twice,
      lost,
      incomplete,
      renamedTwice,
      leftovers: files.filter((f) => f.startsWith(".")).length,
    };
  } finally {
    await worker.stop();
    await ftp.close();
  }
}

export function fileUploadCrashReport(r) {
  return [
    `Order files killed mid-upload (bench/recovery/file-uploads.mjs): ${r.orders} orders of 3 lines to a file supplier on vsftpd taking ${r.rate} bytes/s per upload.`,
    "",
    "| kill | uploads under way (temporary files) | dispatches `sending` | files in place at the kill | seconds down | restart to the first new file (s) |",
    "|---:|---:|---:|---:|---:|---:|",
    ...r.rounds.map((x, i) => `| ${i + 1} | ${x.uploading} | ${x.sending} | ${x.landedAtKill} | ${x.downSeconds.toFixed(1)} | ${x.restartToFirstWrite === null ? "–" : x.restartToFirstWrite.toFixed(1)} |`),
    "",
    "| dispatches | file landed once | twice | lost | incomplete | renamed into place twice | temporary files left | dispatches at the end | seconds |",
    "|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    `| ${r.dispatches} | ${r.once} | ${r.twice} | ${r.lost} | ${r.incomplete} | ${r.renamedTwice} | ${r.leftovers} | ${r.statuses}${r.settled ? "" : " (NOT settled in 600 s)"} | ${r.seconds.toFixed(0)} |`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { orders: { type: "string", default: "20" }, kills: { type: "string", default: "2" }, rate: { type: "string", default: "400" } } });
  const r = await measureFileUploadCrash({ orders: Number(values.orders), kills: Number(values.kills), rate: Number(values.rate) });
  console.log(`\n${fileUploadCrashReport(r)}`);
  console.log(`\n(${new Date().toISOString()}, load average ${(await import("node:os")).loadavg().map((l) => l.toFixed(1)).join(" ")})`);
}
