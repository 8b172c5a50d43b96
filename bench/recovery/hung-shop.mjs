// Routing while a shop hangs (issue 32): an order's latency from create to routed (routed_at minus
// created_at, as the D1 file holds them), with nothing in flight against a shop, and then while
// write-backs hang on a shop that never answers (the stand-in WooCommerce behind a front that holds
// every write for an hour, so each attempt runs into the Worker's time box), in the same run, on a
// `wrangler dev` of its own (./worker.mjs). The orders measured go to a webhook supplier (a local
// server that answers at once), so their first send is made as well: routing must not wait on it
// either. Target: routed within 2 s while the shop hangs.
// Alone: node bench/recovery/hung-shop.mjs [--orders 20] [--hung 10] [--gap-ms 300]
import http from "node:http";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { startSlowShops } from "./slow-shops.mjs";
import { accountShardFile, benchVars, freshState, query, startWorker } from "./worker.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

async function api(base, method, path, { headers, body } = {}) {
  const res = await fetch(`${base}${path}`, { method, headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null, text };
}

const address = { first_name: "Jan", last_name: "Jansen", address1: "Damrak 1", postcode: "1012LG", city: "Amsterdam", country: "NL" };

const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : null);

export async function measureHungShop({ orders = 20, hung = 10, gapMs = 300, log = console.log } = {}) {
  const dataDir = join(root, "bench", ".data");
  mkdirSync(dataDir, { recursive: true });
  const dir = join(dataDir, "hung-shop");
  log("  (a fresh local D1 with every migration…)");
  freshState(root, dir);
  const vars = benchVars();
  // The supplier's endpoint: answers every order at once.
  const supplierServer = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => (res.writeHead(200, { "content-type": "application/json" }), res.end("{}")));
  });
  await new Promise((r) => supplierServer.listen(0, "127.0.0.1", r));
  // A shop that never answers a write within the run.
  const shops = await startSlowShops(root, { writeMs: 3_600_000 });
  const worker = await startWorker(root, dir, vars, join(dataDir, "hung-shop-wrangler.log"));
  try {
    const admin = { authorization: `Bearer ${vars.ADMIN_TOKEN}` };
    const account = (await api(worker.base, "POST", "/admin/v1/accounts", { headers: admin, body: { name: "Hung shop bench" } })).json;
    const key = (await api(worker.base, "POST", `/admin/v1/accounts/${account.id}/api-keys`, { headers: admin, body: { name: "bench" } })).json;
    const headers = { "api-key": key.api_key, "account-id": String(account.id) };
    const pull = (await api(worker.base, "POST", "/api/v1/suppliers", { headers, body: { name: "Pull supplier", channel: "pull" } })).json;
    const webhook = await api(worker.base, "POST", "/api/v1/suppliers", { headers, body: { name: "Webhook supplier", channel: "webhook", webhook_url: `http://127.0.0.1:${supplierServer.address().port}/orders` } });
    if (webhook.status !== 201) throw new Error(`supplier: ${webhook.text}`);
    for (const [priority, name, supplierId, conditions] of [
      [10, "kitchen to the webhook supplier", webhook.json.id, [{ variable: "line.category", operator: "is", value: "kitchen" }]],
      [20, "the rest to the pull supplier", pull.id, []],
    ]) {
      const rule = await api(worker.base, "POST", "/api/v1/routing-rules", { headers, body: { name, priority, conditions, action: { type: "assign_supplier", supplier_id: supplierId } } });
      if (rule.status !== 201) throw new Error(`rule: ${rule.text}`);
    }
    const supplierKey = (await api(worker.base, "POST", `/api/v1/suppliers/${pull.id}/keys`, { headers, body: {} })).json.key;

    // The shop and its orders, waiting at the pull supplier; shipped later, their write-backs hang.
    const seeds = Array.from({ length: hung }, (_, i) => ({ id: 900 + i, line_items: [{ id: 2 * (900 + i), product_id: 501, sku: "MUG-BLUE", name: "Blue mug", quantity: 1 }] }));
    const shop = await shops.create("woocommerce", { orders: seeds, extension: false });
    const conn = await api(worker.base, "POST", "/api/v1/shop-connections", {
      headers,
      body: { platform: "woocommerce", name: "Hung shop", base_url: shop.base_url, credentials: shop.credentials, sources: ["hung"], settings: { mode: "live", tracking: "note" } },
    });
    if (conn.status !== 201) throw new Error(`connection: ${conn.text}`);
    const shopOrders = [];
    for (const s of seeds) {
      const res = await api(worker.base, "POST", "/api/v1/orders", {
        headers,
        body: { external_id: String(s.id), source: "hung", total: 12.5, email: "jan@example.com", shipping_address: address, products: [{ external_id: String(s.line_items[0].id), name: "Blue mug", reference: "MUG-BLUE", quantity: 1, price: 12.5 }] },
      });
      if (res.status !== 200) throw new Error(`order: ${res.text}`);
      shopOrders.push(String(res.json.reference));
    }
    const file = accountShardFile(dir);
    for (let i = 0; query(file, "SELECT count(*) AS n FROM orders WHERE routed_at IS NULL")[0].n > 0; i++) {
      if (i > 240) throw new Error("the shop's orders were never routed");
      await sleep(500);
    }

    /** Creates `orders` kitchen orders `gapMs` apart; the latency of each, create to routed (ms), and the shop writes in flight at each create. */
    const measure = async (label) => {
      const refs = [];
      const inFlight = [];
      for (let i = 0; i < orders; i++) {
        const res = await api(worker.base, "POST", "/api/v1/orders", {
          headers,
          body: { external_id: `${label}-${i}-${Date.now()}`, source: "bench", total: 8, email: "jan@example.com", shipping_address: address, products: [{ external_id: "k", name: "Tea towel", category: "kitchen", quantity: 1, price: 8 }] },
        });
        if (res.status !== 200) throw new Error(`order: ${res.text}`);
        refs.push(String(res.json.reference));
        inFlight.push(shops.writes.filter((w) => w.applied === null && !w.callerGone).length);
        await sleep(gapMs);
      }
      const list = JSON.stringify(refs);
      for (let i = 0; query(file, "SELECT count(*) AS n FROM orders WHERE reference IN (SELECT value FROM json_each(?)) AND routed_at IS NULL", list)[0].n > 0; i++) {
        if (i > 600) break;
        await sleep(500);
      }
      const rows = query(file, "SELECT created_at, routed_at FROM orders WHERE reference IN (SELECT value FROM json_each(?))", list);
      const ms = rows.filter((r) => r.routed_at).map((r) => Date.parse(r.routed_at) - Date.parse(r.created_at)).sort((a, b) => a - b);
      // The supplier's sends travel on the outbound queue, beside the shop's calls: how long they take, at most 120 s more.
      const unsent = () => query(file, "SELECT count(*) AS n FROM dispatches d JOIN orders o ON o.id = d.order_id WHERE o.reference IN (SELECT value FROM json_each(?)) AND d.status <> 'sent'", list)[0].n;
      for (let i = 0; unsent() > 0 && i < 240; i++) await sleep(500);
      const sentRows = query(file, "SELECT o.created_at, d.sent_at FROM dispatches d JOIN orders o ON o.id = d.order_id WHERE o.reference IN (SELECT value FROM json_each(?)) AND d.status = 'sent'", list);
      const sentMs = sentRows.map((r) => Date.parse(r.sent_at) - Date.parse(r.created_at)).sort((a, b) => a - b);
      return {
        label,
        orders: refs.length,
        routed: ms.length,
        p50: pct(ms, 50),
        p95: pct(ms, 95),
        max: ms.at(-1) ?? null,
        sent: sentMs.length,
        sentP50: pct(sentMs, 50),
        sentP95: pct(sentMs, 95),
        shopWritesInFlight: { min: Math.min(...inFlight), max: Math.max(...inFlight) },
      };
    };

    log(`  no hang: ${orders} orders, ${gapMs} ms apart`);
    const calm = await measure("calm");
    log(`    p50 ${calm.p50} ms, p95 ${calm.p95} ms`);

    // The supplier ships every shop order: one write-back each, into the shop that hangs.
    const lines = [];
    for (const ref of shopOrders) lines.push((await api(worker.base, "GET", `/api/v1/orders/${ref}`, { headers })).json.order_lines[0].id);
    const shipped = await api(worker.base, "POST", "/api/v1/supplier/answers", {
      headers: { authorization: `Bearer ${supplierKey}` },
      body: { answers: lines.map((id, i) => ({ line_id: id, action: "ship", carrier: "PostNL", tracking_number: `3SHUNG${i}` })) },
    });
    if (shipped.status !== 200) throw new Error(`answers: ${shipped.text}`);
    for (let i = 0; shops.writes.filter((w) => w.applied === null && !w.callerGone).length === 0; i++) {
      if (i > 240) throw new Error("no write reached the hung shop");
      await sleep(250);
    }
    log(`  a shop that hangs: ${hung} write-backs into it, the first on its way; ${orders} orders, ${gapMs} ms apart`);
    const hanging = await measure("hung");
    log(`    p50 ${hanging.p50} ms, p95 ${hanging.p95} ms; shop writes in flight at the creates: ${hanging.shopWritesInFlight.min}-${hanging.shopWritesInFlight.max}`);
    const writeBacks = query(file, "SELECT status, count(*) AS n FROM shop_write_backs GROUP BY status");
    return { orders, hung, gapMs, calm, hanging, writeBacks, shopWrites: shops.writes.length };
  } finally {
    await worker.stop();
    await shops.close();
    supplierServer.closeAllConnections();
    await new Promise((r) => supplierServer.close(r));
  }
}

export function hungShopReport(r) {
  const row = (m, name) =>
    `| ${name} | ${m.orders} | ${m.routed} | ${m.p50 ?? "–"} | ${m.p95 ?? "–"} | ${m.max ?? "–"} | ${m.shopWritesInFlight.min}-${m.shopWritesInFlight.max} | ${m.sent} | ${m.sentP50 ?? "–"} / ${m.sentP95 ?? "–"} | ${m.p95 !== null && m.routed === m.orders && m.p95 <= 2000 ? "ok" : "MISSED"} |`;
  return [
    `Routing while a shop hangs (bench/recovery/hung-shop.mjs): ${r.orders} orders each, ${r.gapMs} ms apart, to a webhook supplier; the hung shop holds ${r.hung} write-backs' writes.`,
    "",
    "| phase | orders | routed | p50 create → routed (ms) | p95 (ms) | max (ms) | shop writes in flight at the creates | sent to the supplier | create → sent p50 / p95 (ms) | routed within 2 s (p95) |",
    "|---|---:|---:|---:|---:|---:|---|---:|---|---|",
    row(r.calm, "no shop hangs"),
    row(r.hanging, "a shop hangs"),
    "",
    `Write-backs at the end: ${r.writeBacks.map((w) => `${w.n} ${w.status}`).join(", ")}; writes the hung shop received: ${r.shopWrites}.`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { orders: { type: "string", default: "20" }, hung: { type: "string", default: "10" }, "gap-ms": { type: "string", default: "300" } } });
  const r = await measureHungShop({ orders: Number(values.orders), hung: Number(values.hung), gapMs: Number(values["gap-ms"]) });
  console.log(`\n${hungShopReport(r)}`);
  console.log(`\n(${new Date().toISOString()}, load average ${(await import("node:os")).loadavg().map((l) => l.toFixed(1)).join(" ")})`);
}
