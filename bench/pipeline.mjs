// The pipeline phase's setting and its extra workload. The seeded suppliers are manual, which ends a
// dispatch at its creation; for this phase the bench account's suppliers push over a webhook to a
// local sink (a loopback HTTP server that answers 200), so the table shows the whole push path: the
// match, the claimed dispatch, the send and its finish. A supplier pair for the decline + re-route
// workload is seeded beside them: orders from the source "BenchDecline" go to a pull supplier, which
// declines them through the supplier API, and the pipeline re-routes them to a webhook supplier.
// Orders from the source "BenchShip" go to the same pull supplier, which ships them; a shop
// connection to a stand-in WooCommerce shop (test/shops/stand-ins) serves that source, so the
// shipments and completions are written back into it (src/shops/write-back.service.ts).
import { build } from "esbuild";
import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import { sealForWorker } from "../scripts/lib/seal.mjs";
import { directoryFile, shardFile } from "./seed.mjs";

export const DECLINE_SOURCE = "BenchDecline";
export const SHIP_SOURCE = "BenchShip";
/** The source of the orders shipped into the stand-in Shopify (issue 33: its write-back's D1 cost beside WooCommerce's). */
export const SHOPIFY_SHIP_SOURCE = "BenchShopify";
/** The SECRETS_KEY the benchmark's Worker runs with (a --var of wrangler dev): the shop connection is sealed under it. */
export const BENCH_SECRETS_KEY = randomBytes(32).toString("base64");

/** A loopback webhook endpoint that takes every document with a 200; `received` counts them. */
export async function startSink() {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/orders`;
  return { url, received: () => received, stop: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * Rewrites the run's copy (not the seeded original) before the pipeline phase starts its Worker:
 * the account's suppliers push to the sink, and the decline pair with its two rules and a key for
 * the pull supplier. Straight into the file, so that no re-match of the account's waiting lines
 * runs during the measurement. Returns the pull supplier's key.
 */
export function preparePipelineCopy(persistDir, account, sinkUrl, { directory: inDirectory }) {
  const accountId = account.id;
  const db = new DatabaseSync(shardFile(persistDir, account.shard ?? 0));
  // An account the directory knows: its new suppliers and key too, as the admin API records them.
  const directory = inDirectory ? new DatabaseSync(directoryFile(persistDir)) : null;
  const now = new Date().toISOString().replace("Z", "000Z");
  try {
    db.prepare("UPDATE suppliers SET channel = 'webhook', webhook_url = ?, webhook_secret = 'bench-secret' WHERE account_id = ?").run(sinkUrl, accountId);
    const insertSupplier = (name, channel) =>
      Number(
        db
          .prepare(
            `INSERT INTO suppliers (account_id, name, active, priority, channel, webhook_url, webhook_secret, created_at, updated_at)
             VALUES (?, ?, 1, 100, ?, ?, 'bench-secret', ?, ?)`,
          )
          .run(accountId, name, channel, channel === "webhook" ? sinkUrl : null, now, now).lastInsertRowid,
      );
    const supplier = (name, channel) => {
      const id = insertSupplier(name, channel);
      directory?.prepare("INSERT INTO directory_suppliers (supplier_id, account_id) VALUES (?, ?)").run(id, accountId);
      return id;
    };
    const declining = supplier("Bench declining supplier", "pull");
    const next = supplier("Bench next supplier", "webhook");
    const conditions = JSON.stringify([{ variable: "order.source", operator: "is", value: DECLINE_SOURCE }]);
    const rule = (name, priority, supplierId) =>
      db
        .prepare(
          `INSERT INTO routing_rules (account_id, name, priority, match, conditions, action, active, created_at, updated_at)
           VALUES (?, ?, ?, 'all', ?, ?, 1, ?, ?)`,
        )
        .run(accountId, name, priority, conditions, JSON.stringify({ type: "assign_supplier", supplier_id: supplierId }), now, now);
    rule("bench: declining supplier first", -20, declining);
    rule("bench: then the next one", -10, next);
    db.prepare(
      `INSERT INTO routing_rules (account_id, name, priority, match, conditions, action, active, created_at, updated_at)
       VALUES (?, 'bench: shipped by the pull supplier', -30, 'all', ?, ?, 1, ?, ?)`,
    ).run(accountId, JSON.stringify([{ variable: "order.source", operator: "is", value: SHIP_SOURCE }]), JSON.stringify({ type: "assign_supplier", supplier_id: declining }), now, now);
    db.prepare(
      `INSERT INTO routing_rules (account_id, name, priority, match, conditions, action, active, created_at, updated_at)
       VALUES (?, 'bench: shipped into Shopify by the pull supplier', -31, 'all', ?, ?, 1, ?, ?)`,
    ).run(accountId, JSON.stringify([{ variable: "order.source", operator: "is", value: SHOPIFY_SHIP_SOURCE }]), JSON.stringify({ type: "assign_supplier", supplier_id: declining }), now, now);
    const key = `osk_bench_${randomBytes(16).toString("hex")}`;
    const keyHash = createHash("sha256").update(key).digest("hex");
    db.prepare("INSERT INTO supplier_keys (account_id, supplier_id, name, key_hash, prefix, created_at) VALUES (?, ?, 'bench', ?, ?, ?)").run(
      accountId,
      declining,
      keyHash,
      key.slice(0, 10),
      now,
    );
    directory?.prepare("INSERT INTO directory_credentials (key_hash, kind, account_id) VALUES (?, 'supplier_key', ?)").run(keyHash, accountId);
    return key;
  } finally {
    db.close();
    directory?.close();
  }
}

/**
 * Creates `count` orders for the pull supplier (from `source`: declined, or shipped) and waits until
 * its pull list shows them all; returns their dispatches (each with its line ids), oldest first.
 */
export async function ordersToDecline(base, headers, supplierKey, count, body, source = DECLINE_SOURCE) {
  const ours = new Set();
  for (let i = 0; i < count; i++) {
    const order = { ...body(i), source };
    ours.add(String(order.external_id));
    const res = await fetch(`${base}/api/v1/orders`, { method: "POST", headers: headers(), body: JSON.stringify(order) });
    if (res.status !== 200) throw new Error(`decline setup: create answered ${res.status} ${await res.text()}`);
  }
  const started = Date.now();
  while (Date.now() - started < 180_000) {
    const open = [];
    for (let page = 1; ; page++) {
      const res = await fetch(`${base}/api/v1/supplier/orders?per_page=100&page=${page}`, { headers: { authorization: `Bearer ${supplierKey}`, accept: "application/json" } });
      const json = await res.json();
      open.push(...json.data.filter((d) => ours.has(String(d.order.external_id))).map((d) => ({ dispatchId: d.dispatch_id, lineIds: d.lines.map((l) => l.id) })));
      if (json.data.length < 100) break;
    }
    if (open.length >= count) return open;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("decline setup: the orders did not reach the pull supplier within 3 minutes");
}

/** Signs in to the shop console (as a browser does: the sign-in form's token, then the form) and returns the session cookie. */
export async function consoleSession(base, account, key = account.apiKeys[0]) {
  const form = await fetch(`${base}/console/sign-in`, { redirect: "manual" });
  const html = await form.text();
  const signInCookie = (form.headers.getSetCookie?.() ?? []).map((c) => c.split(";")[0]).join("; ");
  const token = /name="_csrf" value="([0-9a-f]+)"/.exec(html)?.[1];
  if (!token) throw new Error("console sign-in: no form token on the page");
  const res = await fetch(`${base}/console/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: signInCookie, origin: base },
    body: new URLSearchParams({ account_id: String(account.id), api_key: key, _csrf: token }),
  });
  const session = (res.headers.getSetCookie?.() ?? []).map((c) => c.split(";")[0]).filter((c) => !c.startsWith("oi_signin"));
  if (res.status !== 303 || session.length === 0) throw new Error(`console sign-in: ${res.status} ${await res.text()}`);
  return session.join("; ");
}

/**
 * A stand-in shop (test/shops/stand-ins, TypeScript: bundled for Node with esbuild) on loopback,
 * holding orders `firstId`… with the three lines of the benchmark's order body (line item ids 101,
 * 102, 103: what the plugin sends as products[].external_id). `platform`: woocommerce, or shopify
 * (held to Shopify's published schema like the tests' stand-in, with a cost bucket that never runs
 * dry: the benchmark measures our D1 cost per write-back, not Shopify's cost limit; a Plus shop's
 * 1,000 points a second carry about one shipment a second, and the client's waits for a refill are
 * tested in test/shops/platforms/shopify.test.ts).
 */
export async function startStandInShop(dataDir, firstId, count, platform = "woocommerce") {
  const outfile = join(dataDir, "stand-ins.mjs");
  const root = join(dataDir, "..", "..");
  await build({
    stdin: {
      contents:
        'export { startStandIns } from "./test/shops/stand-ins/harness.ts"; export { woocommerceStandIn } from "./test/shops/stand-ins/woocommerce.ts"; export { shopifyStandIn } from "./test/shops/stand-ins/shopify.ts";',
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "error",
    // The Shopify stand-in finds its cached schema from its own folder, not the bundle's.
    define: { "import.meta.dirname": JSON.stringify(join(root, "test", "shops", "stand-ins")) },
  });
  const { startStandIns, woocommerceStandIn, shopifyStandIn } = await import(pathToFileURL(outfile).href);
  const standIns = await startStandIns([woocommerceStandIn, shopifyStandIn]);
  const lines = [
    { id: 101, product_id: 1, sku: "SKU-1-1", name: "Blue mug", quantity: 2 },
    { id: 102, product_id: 2, sku: "SKU-1-2", name: "Teapot", quantity: 1 },
    { id: 103, product_id: 3, sku: null, name: "Tea towel", quantity: 4 },
  ];
  const seed =
    platform === "shopify"
      ? {
          bucket: { maximumAvailable: 10_000_000, restoreRate: 1_000_000 },
          orders: Array.from({ length: count }, (_, i) => ({
            id: firstId + i,
            lineItems: lines.map((l) => ({ id: l.id, sku: l.sku, variantId: 500 + l.product_id, title: l.name, quantity: l.quantity, price: "10.00" })),
          })),
        }
      : { orders: Array.from({ length: count }, (_, i) => ({ id: firstId + i, line_items: lines.map(({ sku, ...l }) => (sku ? { ...l, sku } : l)) })) };
  const res = await fetch(`${standIns.url}/__shops`, { method: "POST", body: JSON.stringify({ platform, seed }) });
  const shop = await res.json();
  const state = async () => (await (await fetch(`${standIns.url}/__shops/${shop.id}`)).json()).state;
  return { shop, state, close: standIns.close };
}

/** A live connection of the account to the stand-in shop, serving its source (SHIP_SOURCE, or SHOPIFY_SHIP_SOURCE): straight into the running Worker's file. */
export function addShopConnection(persistDir, account, shop, platform = "woocommerce") {
  const db = new DatabaseSync(shardFile(persistDir, account.shard ?? 0), { timeout: 10_000 });
  const now = new Date().toISOString().replace("Z", "000Z");
  // Shopify's as its settings schema fills them in; intake off: its orders come from the benchmark, not from webhooks or the pull.
  const settings =
    platform === "shopify"
      ? { mode: "live", api_version: "2026-10", location_id: null, intake: false, notify_customer: true }
      : { mode: "live", complete_status: "completed", tracking: "auto" };
  try {
    const sealed = sealForWorker(BENCH_SECRETS_KEY, JSON.stringify(shop.credentials), `shop_connection:${account.id}:${platform}`);
    db.prepare(
      `INSERT INTO shop_connections (account_id, platform, name, base_url, credentials_sealed, credentials_hint, sources, settings, active, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, '{}', ?, ?, 1, ?, ?)`,
    ).run(account.id, platform, `Bench stand-in ${platform}`, shop.base_url, sealed, JSON.stringify([platform === "shopify" ? SHOPIFY_SHIP_SOURCE : SHIP_SOURCE]), JSON.stringify(settings), now, now);
  } finally {
    db.close();
  }
}
