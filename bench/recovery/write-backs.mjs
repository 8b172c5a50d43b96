// The crash of write-backs into shops (issue 30): every platform, every kind of write, each
// tracking mode WooCommerce has, against the project's stand-in shops made slow (1.5 s a write,
// applied even when the caller has gone: ./slow-shops.mjs). The server's whole process group is
// killed (SIGKILL) while writes are in flight, started again with the cron fired as `npm start`
// fires it, and killed again, a few times per step; then what each shop RECORDED is counted: every
// write landed exactly once, none lost, none twice.
//
// Per connection `orders` orders of two lines, through the public API to a pull supplier. Step 1:
// the supplier ships line 1 and declines line 2 (no other supplier takes it): a shipment (the
// tracking), a private note and a hold. Step 2: a person sends line 2 to a second supplier
// (POST …/lines/{id}/assign): a private note and the release. Step 3: that supplier ships it: the
// second shipment and the completion. Alone: node bench/recovery/write-backs.mjs [--orders 6] [--kills 2] [--write-ms 1500]
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { startSlowShops } from "./slow-shops.mjs";
import { accountShardFile, benchVars, freshState, query, startWorker } from "./worker.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

const MUG = "0190a7c1d2e34f5a8b9c0d1e2f3a4b5c";
const PLATE = "0190a7c1d2e34f5a8b9c0d1e2f3a4b6d";
const DECLINED = /was declined/;
const SENT_ON = /is now with supplier .*, sent there by hand\./;

/** The connections: each platform once, WooCommerce in each of its tracking modes. */
const CONNECTIONS = [
  { name: "WooCommerce, tracking: note", platform: "woocommerce", settings: { tracking: "note" } },
  { name: "WooCommerce, tracking: extension", platform: "woocommerce", settings: { tracking: "extension" } },
  { name: "WooCommerce, tracking: auto", platform: "woocommerce", settings: { tracking: "auto" } },
  { name: "Shopware", platform: "shopware", settings: {} },
  { name: "Magento", platform: "magento", settings: {} },
  { name: "PrestaShop", platform: "prestashop", settings: {} },
];

/** Order `i` of connection `c`: the shop's seed of it, its number (the plugin's external_id) and its lines' external ids. */
function shopOrder(platform, c, i) {
  const n = 100 * (c + 1) + i;
  switch (platform) {
    case "woocommerce":
      return {
        seed: { id: n, line_items: [{ id: 2 * n, product_id: 501, sku: "MUG-BLUE", name: "Blue mug", quantity: 2 }, { id: 2 * n + 1, product_id: 502, sku: "PLATE-RED-L", name: "Red plate", quantity: 1 }] },
        number: String(n),
        lines: [String(2 * n), String(2 * n + 1)],
      };
    case "shopware":
      return {
        seed: { orderNumber: String(10_000 + n), lineItems: [{ productId: MUG, productNumber: "MUG-BLUE", quantity: 2, label: "Blue mug" }, { productId: PLATE, productNumber: "PLATE-RED-L", quantity: 1, label: "Red plate" }] },
        number: String(10_000 + n),
        lines: [MUG, PLATE],
      };
    case "magento":
      return {
        seed: {
          entity_id: n,
          increment_id: String(n).padStart(9, "0"),
          items: [{ item_id: 2 * n, product_id: 501, sku: "MUG-BLUE", name: "Blue mug", qty_ordered: 2 }, { item_id: 2 * n + 1, product_id: 502, sku: "PLATE-RED-L", name: "Red plate", qty_ordered: 1 }],
        },
        number: String(n).padStart(9, "0"),
        lines: ["501", "502"],
      };
    case "prestashop":
      return {
        seed: {
          id: n,
          reference: `CRASH${n}`,
          rows: [{ id: 2 * n, product_id: 501, product_reference: "MUG-BLUE", product_name: "Blue mug", product_quantity: 2 }, { id: 2 * n + 1, product_id: 502, product_reference: "PLATE-RED-L", product_name: "Red plate", product_quantity: 1 }],
        },
        number: `CRASH${n}`,
        lines: ["501", "502"],
      };
  }
}

/**
 * What the shop holds of each write an order is owed, counted from what the stand-in recorded
 * (its state, and the requests it applied): 1 is right, 0 lost, 2 or more written twice. A kind
 * the platform has no write for (Shopware's and PrestaShop's hold, Magento's completion) is left out.
 */
function landed(platform, settings, shop, number, trackings) {
  const [tracking, tracking2] = trackings;
  const { state, received } = shop;
  const applied = (method, path) => received.filter((r) => r.method === method && r.path === path);
  switch (platform) {
    case "woocommerce": {
      const o = state.orders.find((x) => x.number === number || String(x.id) === number);
      const puts = applied("PUT", `/wp-json/wc/v3/orders/${o.id}`).map((r) => JSON.parse(r.body || "{}").status);
      const status = (s) => puts.filter((p) => p === s).length;
      return {
        ...Object.fromEntries(
          [tracking, tracking2].map((t, i) => [`shipment ${i + 1}`, settings.tracking === "note" ? o.notes.filter((n) => n.customer_note && n.note.split(/[^A-Za-z0-9]+/).includes(t)).length : o.trackings.filter((x) => x.tracking_number === t).length]),
        ),
        "note (declined)": o.notes.filter((n) => !n.customer_note && DECLINED.test(n.note)).length,
        "note (sent on)": o.notes.filter((n) => !n.customer_note && SENT_ON.test(n.note)).length,
        hold: status("on-hold"),
        release: status("processing"),
        complete: status("completed"),
      };
    }
    case "shopware": {
      const o = state.orders.find((x) => x.orderNumber === number);
      return {
        "shipment 1": o.deliveries[0].trackingCodes.filter((c) => c === tracking).length,
        "shipment 2": o.deliveries[0].trackingCodes.filter((c) => c === tracking2).length,
        "note (declined)": (o.internalComment ?? "").split("was declined").length - 1,
        "note (sent on)": (o.internalComment ?? "").split("sent there by hand").length - 1,
        complete: state.history.filter((h) => h.entity === "order" && h.id === o.id && h.transition === "complete").length,
      };
    }
    case "magento": {
      const o = state.orders.find((x) => x.increment_id === number);
      return {
        "shipment 1": state.shipments.filter((s) => s.order_id === o.entity_id && s.tracks.some((t) => t.track_number === tracking)).length,
        "shipment 2": state.shipments.filter((s) => s.order_id === o.entity_id && s.tracks.some((t) => t.track_number === tracking2)).length,
        "note (declined)": o.status_histories.filter((h) => DECLINED.test(h.comment ?? "")).length,
        "note (sent on)": o.status_histories.filter((h) => SENT_ON.test(h.comment ?? "")).length,
        hold: applied("POST", `/rest/V1/orders/${o.entity_id}/hold`).length,
        release: applied("POST", `/rest/V1/orders/${o.entity_id}/unhold`).length,
      };
    }
    case "prestashop": {
      const o = state.orders.find((x) => x.reference === number);
      const id = String(o.id);
      return {
        ...Object.fromEntries(
          [tracking, tracking2].map((t, i) => [`shipment ${i + 1}`, state.order_carriers.filter((c) => String(c.id_order) === id).reduce((n, c) => n + String(c.tracking_number ?? "").split(/[\s,]+/).filter((x) => x === t).length, 0)]),
        ),
        "note (declined)": state.messages.filter((m) => String(m.id_order) === id && DECLINED.test(String(m.message))).length,
        "note (sent on)": state.messages.filter((m) => String(m.id_order) === id && SENT_ON.test(String(m.message))).length,
        complete: state.order_histories.filter((h) => String(h.id_order) === id).length,
      };
    }
  }
}

async function api(base, method, path, { headers, body } = {}) {
  for (let i = 0; ; i++) {
    try {
      const res = await fetch(`${base}${path}`, { method, headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : null, text };
    } catch (error) {
      // The server is being killed or restarted: a client tries again, as a plugin or supplier would.
      if (i >= 3) throw error;
      await sleep(500);
    }
  }
}

/**
 * One step under crashes: `act(worker)` sends its requests (retrying what the kill cut off, as a
 * client does); after `killAfterMs` the server is killed, counted, started again with the cron,
 * and so on `kills` times; then the step runs to its end on the last server.
 */
async function stepUnderCrashes({ start, file, shops, act, kills, killAfterMs, minInFlight, log }) {
  const rounds = [];
  let worker = await start();
  worker.cron();
  const acting = act(() => worker);
  const inFlight = () => shops.writes.filter((w) => w.answered === null && w.applied === null).length;
  for (let k = 0; k < kills; k++) {
    // At least `killAfterMs` into the round, and with writes on their way to the shops: at once
    // when `minInFlight` are, else at the latest 20 s after the first one is.
    await sleep(killAfterMs);
    let firstSeen = null;
    for (let i = 0; i < 1200; i++) {
      const n = inFlight();
      if (n > 0) firstSeen ??= Date.now();
      if (n >= minInFlight || (firstSeen !== null && Date.now() - firstSeen > 20_000)) break;
      await sleep(100);
    }
    const inFlightWrites = shops.writes.filter((w) => w.answered === null && w.applied === null).length;
    await worker.kill();
    const killedAt = Date.now();
    const delivering = query(file, `SELECT w.id, w.kind, c.name AS connection FROM shop_write_backs w JOIN shop_connections c ON c.id = w.connection_id WHERE w.status = 'delivering'`);
    worker = await start();
    const restartedAt = Date.now();
    worker.cron();
    // The first write any shop receives after the restart.
    let firstWrite = null;
    for (let i = 0; i < 600 && firstWrite === null; i++) {
      firstWrite = shops.writes.find((w) => w.at >= restartedAt)?.at ?? null;
      if (firstWrite === null) await sleep(250);
    }
    rounds.push({ delivering, inFlightWrites, downSeconds: (restartedAt - killedAt) / 1000, restartedAt, restartToFirstWrite: firstWrite === null ? null : (firstWrite - restartedAt) / 1000 });
    log(`    kill ${k + 1}: ${delivering.length} write-backs delivering, ${inFlightWrites} writes on their way to a shop; first write ${firstWrite === null ? "never" : `${((firstWrite - restartedAt) / 1000).toFixed(1)} s`} after the restart`);
  }
  await acting;
  return { worker, rounds };
}

/** Waits until every write-back is settled and every event published (at most `ms`). */
async function settled(file, ms) {
  const started = Date.now();
  for (;;) {
    const [w] = query(file, "SELECT count(*) AS n FROM shop_write_backs WHERE status IN ('pending', 'delivering')");
    const [e] = query(file, "SELECT count(*) AS n FROM events WHERE published_at IS NULL");
    if (w.n === 0 && e.n === 0) return true;
    if (Date.now() - started > ms) return false;
    await sleep(1000);
  }
}

export async function measureWriteBackCrash({ orders = 6, kills = 2, writeMs = 1500, killAfterMs = 2000, minInFlight = 6, log = console.log } = {}) {
  const dataDir = join(root, "bench", ".data");
  mkdirSync(dataDir, { recursive: true });
  const dir = join(dataDir, "crash-write-backs");
  log("  (a fresh local D1 with every migration…)");
  freshState(root, dir);
  const vars = benchVars();
  const start = () => startWorker(root, dir, vars, join(dataDir, "crash-wrangler.log"));
  const shops = await startSlowShops(root, { writeMs });
  let worker = await start();
  let file = null;
  try {
    const admin = { authorization: `Bearer ${vars.ADMIN_TOKEN}` };
    const account = (await api(worker.base, "POST", "/admin/v1/accounts", { headers: admin, body: { name: "Crash bench" } })).json;
    const key = (await api(worker.base, "POST", `/admin/v1/accounts/${account.id}/api-keys`, { headers: admin, body: { name: "bench" } })).json;
    const headers = { "api-key": key.api_key, "account-id": String(account.id) };
    const supplier = await api(worker.base, "POST", "/api/v1/suppliers", { headers, body: { name: "Crash supplier", channel: "pull" } });
    if (supplier.status !== 201) throw new Error(`supplier: ${supplier.text}`);
    const rule = await api(worker.base, "POST", "/api/v1/routing-rules", { headers, body: { name: "everything", conditions: [], action: { type: "assign_supplier", supplier_id: supplier.json.id } } });
    if (rule.status !== 201) throw new Error(`rule: ${rule.text}`);
    const supplierKey = (await api(worker.base, "POST", `/api/v1/suppliers/${supplier.json.id}/keys`, { headers, body: {} })).json.key;
    // The one a person sends the declined line to (no rule: nothing goes there by itself).
    const second = await api(worker.base, "POST", "/api/v1/suppliers", { headers, body: { name: "Second supplier", channel: "pull" } });
    if (second.status !== 201) throw new Error(`supplier: ${second.text}`);
    const secondKey = (await api(worker.base, "POST", `/api/v1/suppliers/${second.json.id}/keys`, { headers, body: {} })).json.key;

    // The shops and their connections; the orders, created and sent to the supplier.
    const all = [];
    for (const [c, conn] of CONNECTIONS.entries()) {
      const mine = Array.from({ length: orders }, (_, i) => shopOrder(conn.platform, c, i));
      const seed = conn.platform === "woocommerce" ? { orders: mine.map((o) => o.seed), extension: conn.settings.tracking !== "note" } : { orders: mine.map((o) => o.seed) };
      const shop = await shops.create(conn.platform, seed);
      const source = `crash-${c}`;
      const created = await api(worker.base, "POST", "/api/v1/shop-connections", {
        headers,
        body: { platform: conn.platform, name: conn.name, base_url: shop.base_url, credentials: shop.credentials, sources: [source], settings: { mode: "live", ...conn.settings } },
      });
      if (created.status !== 201) throw new Error(`connection ${conn.name}: ${created.text}`);
      for (const [i, o] of mine.entries()) {
        const res = await api(worker.base, "POST", "/api/v1/orders", {
          headers,
          body: {
            external_id: o.number,
            source,
            total: 45,
            email: "jan@example.com",
            shipping_address: { first_name: "Jan", last_name: "Jansen", address1: "Damrak 1", postcode: "1012LG", city: "Amsterdam", country: "NL" },
            products: [
              { external_id: o.lines[0], name: "Blue mug", reference: "MUG-BLUE", quantity: 2, price: 12.5 },
              { external_id: o.lines[1], name: "Red plate", reference: "PLATE-RED-L", quantity: 1, price: 20 },
            ],
          },
        });
        if (res.status !== 200) throw new Error(`order: ${res.text}`);
        all.push({ conn, c, shop, number: o.number, reference: String(res.json.reference), tracking: `3SCRASH${c}X${i}`, lines: null });
      }
    }
    for (const o of all) {
      for (let i = 0; ; i++) {
        const res = await api(worker.base, "GET", `/api/v1/orders/${o.reference}`, { headers });
        const lines = res.json.order_lines;
        // At the supplier: its dispatch waits for the supplier to fetch it.
        if (lines.every((l) => l.logs?.some((g) => /^Waiting for supplier/.test(g.message)))) {
          o.lines = lines.map((l) => l.id);
          break;
        }
        if (i > 120) throw new Error(`order ${o.reference} never reached the supplier`);
        await sleep(500);
      }
    }
    file = accountShardFile(dir);
    await worker.stop();
    log(`  ${all.length} orders on ${CONNECTIONS.length} connections at the supplier; writes take ${writeMs} ms`);

    const result = { orders: all.length, connections: CONNECTIONS.map((c) => c.name), steps: [] };
    const supplier$ = { authorization: `Bearer ${supplierKey}` };
    // One request per order, spread over a second or two, while the server may die under them.
    const spread = (each) => async (current) => {
      for (const o of all) {
        for (let i = 0; i < 240; i++) {
          const res = await each(current(), o).catch(() => null);
          if (res && res.status < 500) {
            if (res.status >= 300) log(`    (${res.status} for ${o.reference}: ${res.text.slice(0, 200)})`);
            break;
          }
          await sleep(500);
        }
        await sleep(50);
      }
    };
    const steps = [
      {
        name: "ship line 1, decline line 2: the shipment, a private note, the hold",
        act: spread((w, o) =>
          api(w.base, "POST", "/api/v1/supplier/answers", {
            headers: supplier$,
            body: { answers: [{ line_id: o.lines[0], action: "ship", carrier: "PostNL", tracking_number: o.tracking }, { line_id: o.lines[1], action: "decline", reason: "discontinued" }] },
          }),
        ),
      },
      {
        name: "line 2 sent by hand to a second supplier: a private note, the release",
        act: spread((w, o) => api(w.base, "POST", `/api/v1/orders/${o.reference}/lines/${o.lines[1]}/assign`, { headers, body: { supplier_id: second.json.id } })),
      },
      {
        name: "the second supplier ships line 2: the shipment, the completion",
        act: spread((w, o) =>
          api(w.base, "POST", "/api/v1/supplier/answers", {
            headers: { authorization: `Bearer ${secondKey}` },
            body: { answers: [{ line_id: o.lines[1], action: "ship", carrier: "PostNL", tracking_number: `${o.tracking}B` }] },
          }),
        ),
      },
    ];
    for (const step of steps) {
      log(`  step: ${step.name}`);
      const { worker: last, rounds } = await stepUnderCrashes({ start, file, shops, act: step.act, kills, killAfterMs, minInFlight, log });
      worker = last;
      const ok = await settled(file, 300_000);
      await worker.stop();
      // When the write-backs cut off by each kill were taken over: the takeover records the killed
      // attempt as interrupted, at the moment it claimed the write-back.
      for (const round of rounds) {
        const ids = round.delivering.map((d) => d.id);
        const [t] = ids.length
          ? query(file, `SELECT min(created_at) AS first, max(created_at) AS last FROM shop_write_back_attempts WHERE outcome = 'interrupted' AND write_back_id IN (${ids.join(",")}) AND created_at >= ?`, new Date(round.restartedAt).toISOString())
          : [{}];
        round.takeover = t.first ? { first: (Date.parse(t.first) - round.restartedAt) / 1000, last: (Date.parse(t.last) - round.restartedAt) / 1000 } : null;
      }
      result.steps.push({ name: step.name, rounds, settled: ok });
    }
    await sleep(2000);

    // What every shop recorded, per connection and kind.
    const byConn = new Map();
    for (const o of all) {
      const shop = await shops.read(o.shop.id);
      const counts = landed(o.conn.platform, o.conn.settings, shop, o.number, [o.tracking, `${o.tracking}B`]);
      const row = byConn.get(o.conn.name) ?? {};
      for (const [kind, n] of Object.entries(counts)) {
        row[kind] ??= { once: 0, twice: 0, lost: 0, inFlight: 0 };
        row[kind][n === 1 ? "once" : n === 0 ? "lost" : "twice"]++;
      }
      byConn.set(o.conn.name, row);
    }
    // A write-back's kind as counted above: which shipment and which note follows from the step.
    const STEP_KINDS = [{ shipment: "shipment 1", note: "note (declined)" }, { note: "note (sent on)" }, { shipment: "shipment 2" }];
    result.steps.forEach((step, i) => {
      for (const round of step.rounds) {
        for (const d of round.delivering) {
          const row = byConn.get(d.connection);
          const kind = STEP_KINDS[i]?.[d.kind] ?? d.kind;
          if (row?.[kind]) row[kind].inFlight++;
        }
      }
    });
    result.byConnection = [...byConn.entries()].map(([name, kinds]) => ({ name, kinds }));
    result.writeBacks = query(file, "SELECT status, count(*) AS n FROM shop_write_backs GROUP BY status");
    result.interrupted = query(file, "SELECT count(*) AS n FROM shop_write_back_attempts WHERE outcome = 'interrupted'")[0].n;
    return result;
  } finally {
    await worker.stop();
    await shops.close();
  }
}

export function writeBackCrashReport(r) {
  const lines = [
    `Write-backs killed mid-write (bench/recovery/write-backs.mjs): ${r.orders} orders on ${r.connections.length} connections, writes taking the shop 1.5 s each.`,
    "",
    "| connection | kind | write-backs delivering at a kill | landed once | twice | lost |",
    "|---|---|---:|---:|---:|---:|",
  ];
  for (const { name, kinds } of r.byConnection) {
    for (const [kind, k] of Object.entries(kinds)) lines.push(`| ${name} | ${kind} | ${k.inFlight} | ${k.once} | ${k.twice} | ${k.lost} |`);
  }
  lines.push("", "| step | kill | write-backs delivering | writes on their way | seconds down | restart to the first write (s) | restart to the first / last takeover (s) |", "|---|---:|---:|---:|---:|---:|---:|");
  for (const s of r.steps) {
    s.rounds.forEach((round, i) =>
      lines.push(`| ${s.name}${s.settled ? "" : " (NOT settled in 300 s)"} | ${i + 1} | ${round.delivering.length} | ${round.inFlightWrites} | ${round.downSeconds.toFixed(1)} | ${round.restartToFirstWrite === null ? "–" : round.restartToFirstWrite.toFixed(1)} | ${round.takeover ? `${round.takeover.first.toFixed(1)} / ${round.takeover.last.toFixed(1)}` : "–"} |`),
    );
  }
  lines.push("", `Write-backs at the end: ${r.writeBacks.map((w) => `${w.n} ${w.status}`).join(", ")}; attempts recorded as interrupted: ${r.interrupted}.`);
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { orders: { type: "string", default: "6" }, kills: { type: "string", default: "2" }, "write-ms": { type: "string", default: "1500" }, "kill-after-ms": { type: "string", default: "2000" }, "min-in-flight": { type: "string", default: "6" } } });
  const r = await measureWriteBackCrash({ orders: Number(values.orders), kills: Number(values.kills), writeMs: Number(values["write-ms"]), killAfterMs: Number(values["kill-after-ms"]), minInFlight: Number(values["min-in-flight"]) });
  console.log(`\n${writeBackCrashReport(r)}`);
  console.log(`\n(${new Date().toISOString()}, load average ${(await import("node:os")).loadavg().map((l) => l.toFixed(1)).join(" ")})`);
}
