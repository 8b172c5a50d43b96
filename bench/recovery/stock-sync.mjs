// The crash of a stock sync (issue 30): a catalogue of `products` products pushed through the API
// into a supplier's feed, synced into a stand-in WooCommerce shop of as many products behind the
// slow front (./slow-shops.mjs: every write waits `writeMs`, then is applied even when the caller
// has gone). The server's whole process group is killed (SIGKILL) while a page's batch write is on
// its way, `kills` times, each time started again with the cron fired as `npm start` fires it. Then
// what the shop RECORDED is counted: every product written exactly once (its batch updates that
// the shop applied), with the quantity pushed, and the sync ended `succeeded` with every product.
//
// Alone: node bench/recovery/stock-sync.mjs [--products 2000] [--kills 2] [--write-ms 1500]
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { startSlowShops } from "./slow-shops.mjs";
import { accountShardFile, benchVars, freshState, query, startWorker } from "./worker.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

async function api(base, method, path, { headers, body, type = "application/json" } = {}) {
  for (let i = 0; ; i++) {
    try {
      const res = await fetch(`${base}${path}`, { method, headers: { ...headers, ...(body ? { "content-type": type } : {}) }, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, json: text && text.startsWith("{") ? JSON.parse(text) : null, text };
    } catch (error) {
      if (i >= 3) throw error;
      await sleep(500);
    }
  }
}

const BATCH = "/wp-json/wc/v3/products/batch";

export async function measureStockSyncCrash({ products = 2000, kills = 2, writeMs = 1500, log = console.log } = {}) {
  const dataDir = join(root, "bench", ".data");
  mkdirSync(dataDir, { recursive: true });
  const dir = join(dataDir, "crash-stock-sync");
  log("  (a fresh local D1 with every migration…)");
  freshState(root, dir);
  const vars = benchVars();
  const start = () => startWorker(root, dir, vars, join(dataDir, "crash-wrangler.log"));
  const shops = await startSlowShops(root, { writeMs });
  let worker = await start();
  try {
    const admin = { authorization: `Bearer ${vars.ADMIN_TOKEN}` };
    const account = (await api(worker.base, "POST", "/admin/v1/accounts", { headers: admin, body: { name: "Crash bench" } })).json;
    const key = (await api(worker.base, "POST", `/admin/v1/accounts/${account.id}/api-keys`, { headers: admin, body: { name: "bench" } })).json;
    const headers = { "api-key": key.api_key, "account-id": String(account.id) };
    const supplier = await api(worker.base, "POST", "/api/v1/suppliers", { headers, body: { name: "Stock supplier", channel: "pull" } });
    if (supplier.status !== 201) throw new Error(`supplier: ${supplier.text}`);
    const feed = await api(worker.base, "POST", "/api/v1/product-feeds", { headers, body: { supplier_id: supplier.json.id, name: "Stock", format: "csv" } });
    if (feed.status !== 201) throw new Error(`feed: ${feed.text}`);

    // The shop holds every product with stock 0; the catalogue gives each 1 + (i mod 97).
    const skus = Array.from({ length: products }, (_, i) => `CRASH-${String(i).padStart(5, "0")}`);
    const want = new Map(skus.map((s, i) => [5000 + i, 1 + (i % 97)]));
    const shop = await shops.create("woocommerce", { products: skus.map((sku, i) => ({ id: 5000 + i, sku, stock_quantity: 0, manage_stock: true })) });
    const conn = await api(worker.base, "POST", "/api/v1/shop-connections", {
      headers,
      body: { platform: "woocommerce", name: "Stock shop", base_url: shop.base_url, credentials: shop.credentials, sources: ["stock"], settings: { mode: "live", stock_sync: { enabled: true } } },
    });
    if (conn.status !== 201) throw new Error(`connection: ${conn.text}`);
    const file = accountShardFile(dir);
    worker.cron();

    // The push: its import queues the connection's first (full) sync and starts it at once.
    const csv = `sku,name,stock_quantity\n${skus.map((s, i) => `${s},Product ${i},${1 + (i % 97)}`).join("\n")}\n`;
    const pushed = await api(worker.base, "PUT", `/api/v1/product-feeds/${feed.json.id}/products`, { headers, body: csv, type: "text/csv" });
    if (pushed.status !== 200) throw new Error(`push: ${pushed.status} ${pushed.text}`);
    const startedAt = Date.now();
    log(`  ${products} products pushed; the shop's batch writes take ${writeMs} ms each`);

    const batches = () => shops.writes.filter((w) => w.path.includes(BATCH));
    const rounds = [];
    for (let k = 0; k < kills; k++) {
      // Kill while a batch write is on its way, once at least k + 1 batches were applied (so each
      // kill lands on a later page), at the latest 120 s into the round.
      const roundStart = Date.now();
      for (let i = 0; i < 1200; i++) {
        const applied = batches().filter((w) => w.applied !== null).length;
        const onWay = batches().filter((w) => w.applied === null).length;
        if ((applied >= 2 * k + 1 && onWay > 0) || Date.now() - roundStart > 120_000) break;
        await sleep(100);
      }
      const onWay = batches().filter((w) => w.applied === null).length;
      await worker.kill();
      const killedAt = Date.now();
      const [sync] = query(file, "SELECT status, done, total FROM stock_syncs ORDER BY id DESC LIMIT 1");
      const [sending] = query(file, "SELECT count(*) AS n FROM stock_sync_items WHERE outcome = 'sending'");
      worker = await start();
      const restartedAt = Date.now();
      worker.cron();
      let firstWrite = null;
      for (let i = 0; i < 1200 && firstWrite === null; i++) {
        firstWrite = batches().find((w) => w.at >= restartedAt)?.at ?? null;
        if (firstWrite === null) await sleep(250);
      }
      rounds.push({ batchesOnWay: onWay, sending: sending.n, done: sync?.done ?? 0, total: sync?.total ?? 0, downSeconds: (restartedAt - killedAt) / 1000, restartToFirstWrite: firstWrite === null ? null : (firstWrite - restartedAt) / 1000 });
      log(`    kill ${k + 1}: ${onWay} batch write(s) on their way, ${sending.n} products 'sending', ${sync?.done ?? 0}/${sync?.total ?? 0} done; first write ${firstWrite === null ? "never" : `${((firstWrite - restartedAt) / 1000).toFixed(1)} s`} after the restart`);
    }
    // To its end (at most 10 minutes).
    let sync = null;
    for (let i = 0; i < 600; i++) {
      [sync] = query(file, "SELECT id, status, total, done, updated, unchanged, unknown, failed, error FROM stock_syncs ORDER BY id DESC LIMIT 1");
      if (sync && !["queued", "running"].includes(sync.status)) break;
      await sleep(1000);
    }
    const seconds = (Date.now() - startedAt) / 1000;

    // What the shop applied: each product's updates across every batch it received.
    const { state, received } = await shops.read(shop.id);
    const writes = new Map();
    for (const r of received.filter((r) => r.method === "POST" && r.path.includes(BATCH))) {
      for (const u of JSON.parse(r.body || "{}").update ?? []) writes.set(u.id, (writes.get(u.id) ?? 0) + 1);
    }
    let once = 0;
    let twice = 0;
    let lost = 0;
    for (const id of want.keys()) {
      const n = writes.get(id) ?? 0;
      if (n === 0) lost++;
      else if (n === 1) once++;
      else twice++;
    }
    const wrong = state.products.filter((p) => want.get(p.id) !== p.stock_quantity).length;
    return { products, writeMs, rounds, sync, seconds, once, twice, lost, wrong, batchRequests: received.filter((r) => r.method === "POST" && r.path.includes(BATCH)).length, callerGone: batches().filter((w) => w.callerGone).length };
  } finally {
    await worker.stop();
    await shops.close();
  }
}

export function stockSyncCrashReport(r) {
  const s = r.sync ?? {};
  return [
    `A stock sync killed mid-page (bench/recovery/stock-sync.mjs): ${r.products} products into a WooCommerce stand-in whose batch writes take ${r.writeMs / 1000} s each.`,
    "",
    "| kill | batch writes on their way | products `sending` | products done at the kill | seconds down | restart to the first write (s) |",
    "|---:|---:|---:|---:|---:|---:|",
    ...r.rounds.map((x, i) => `| ${i + 1} | ${x.batchesOnWay} | ${x.sending} | ${x.done} of ${x.total} | ${x.downSeconds.toFixed(1)} | ${x.restartToFirstWrite === null ? "–" : x.restartToFirstWrite.toFixed(1)} |`),
    "",
    "| products | written once | twice | lost | stock wrong in the shop | batch requests the shop applied | of them, caller gone | the sync | seconds |",
    "|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    `| ${r.products} | ${r.once} | ${r.twice} | ${r.lost} | ${r.wrong} | ${r.batchRequests} | ${r.callerGone} | ${s.status} (${s.updated} updated, ${s.unchanged} unchanged, ${s.unknown} unknown, ${s.failed} failed of ${s.total})${s.error ? `: ${s.error}` : ""} | ${r.seconds.toFixed(0)} |`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { products: { type: "string", default: "2000" }, kills: { type: "string", default: "2" }, "write-ms": { type: "string", default: "1500" } } });
  const r = await measureStockSyncCrash({ products: Number(values.products), kills: Number(values.kills), writeMs: Number(values["write-ms"]) });
  console.log(`\n${stockSyncCrashReport(r)}`);
  console.log(`\n(${new Date().toISOString()}, load average ${(await import("node:os")).loadavg().map((l) => l.toFixed(1)).join(" ")})`);
}
