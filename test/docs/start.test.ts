// `npm start` as a newcomer sees it (scripts/start.mjs, run as `npm start` runs it): a line per step,
// then the banner last, with URLs and demo credentials that work, and none of wrangler's startup
// noise (its bindings table, migration tables, offline DNS stack traces), which goes to the log file.
// Each run gets its own port and its own state (--state), so it never touches the project's own
// .wrangler/state or .demo-credentials.json.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { root } from "./markdown";

const START = join(root, "scripts", "start.mjs");
const RULE = "━".repeat(76);
const MIGRATIONS = readdirSync(join(root, "drizzle")).filter((f) => f.endsWith(".sql")).length;
const DIRECTORY_MIGRATIONS = readdirSync(join(root, "drizzle-directory")).filter((f) => f.endsWith(".sql")).length;

function listen(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}
async function freePort() {
  const server = await listen();
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

type Run = { stdout: string; stderr: string; stop: () => Promise<number | null> };

/** Starts `npm start -- --port <port> --state <dir>` and resolves once its banner is printed. */
function start(port: number, state: string): Promise<Run> {
  const child = spawn(process.execPath, [START, "--port", String(port), "--state", state], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  const run: Run = {
    stdout: "",
    stderr: "",
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once("exit", (code) => resolve(code));
        child.kill("SIGINT");
      }),
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 150 s:\n${run.stdout}\n${run.stderr}`)), 150_000);
    child.stdout.on("data", (chunk) => {
      run.stdout += chunk;
      // The banner is complete once its closing rule is printed (the second rule).
      if (run.stdout.split(RULE).length === 3) {
        clearTimeout(timer);
        resolve(run);
      }
    });
    child.stderr.on("data", (chunk) => (run.stderr += chunk));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before its banner:\n${run.stdout}\n${run.stderr}`));
    });
  });
}

/** The banner's demo shop, the demo account's one shop connection pointing at it (its test passing), and order 1201 once, shipped. */
async function expectDemoShop(base: string, credentials: { api_key: string; account_id: number }, banner: string) {
  const shopUrl = / Demo shop {2}(http:\/\/127\.0\.0\.1:\d+\/s\/[0-9a-f]+) {3}a stand-in WooCommerce shop/.exec(banner)?.[1];
  expect(shopUrl, banner).toBeDefined();
  const headers = { "api-key": credentials.api_key, "account-id": String(credentials.account_id) };
  const connections = (await (await fetch(`${base}/api/v1/shop-connections`, { headers })).json()) as { data: Record<string, unknown>[] };
  const shopifyUrl = / Shopify {4}(http:\/\/127\.0\.0\.1:\d+\/s\/[0-9a-f]+) {3}a stand-in Shopify shop: its order #1001/.exec(banner)?.[1];
  expect(shopifyUrl, banner).toBeDefined();
  const stockSync = { enabled: true, match_by: "sku", quantity: "sum", buffer: 0, without_offer: "zero" };
  expect(connections.data).toEqual([
    expect.objectContaining({ platform: "woocommerce", name: "Demo WooCommerce shop", base_url: shopUrl, sources: ["Demo WooCommerce"], active: true, settings: { mode: "dry_run", complete_status: "completed", tracking: "auto", stock_sync: stockSync } }),
    expect.objectContaining({ platform: "shopify", name: "Demo Shopify shop", base_url: shopifyUrl, active: true, settings: { mode: "dry_run", api_version: "2026-10", location_id: null, intake: true, notify_customer: true, stock_sync: stockSync } }),
  ]);
  await expectDemoShopify(base, headers, connections.data[1].id as number);
  // Its first stock sync, started by the demo, ran in dry run: the Tuinhout feed's stock, recorded, not sent.
  const syncs = `${base}/api/v1/shop-connections/${connections.data[0].id}/stock-syncs`;
  const listed = await poll(async () => {
    const { data } = (await (await fetch(syncs, { headers })).json()) as { data: { id: number; status: string }[] };
    return data.every((s) => s.status === "succeeded" || s.status === "failed") ? data : null;
  }, "the demo's stock sync to end", 15_000);
  expect(listed).toEqual([
    expect.objectContaining({ connection_id: connections.data[0].id, status: "succeeded", trigger: "manual", full: true, total: 2, done: 2, counts: { updated: 2, unchanged: 0, unknown: 0, skipped: 0, failed: 0 }, error: null }),
  ]);
  const dryRun = "Dry run: the write was recorded, not sent.";
  expect(((await (await fetch(`${syncs}/${listed[0].id}`, { headers })).json()) as { products: { data: unknown[] } }).products.data).toEqual([
    { key: "TH-CHAIR", outcome: "updated", quantity: 24, price: null, old_quantity: null, old_price: null, shop_product_id: "81", reason: dryRun },
    { key: "TH-TABLE", outcome: "updated", quantity: 6, price: null, old_quantity: null, old_price: null, shop_product_id: "82", reason: dryRun },
  ]);
  const [, standIns, shopId] = /^(.*)\/s\/([0-9a-f]+)/.exec(shopUrl!)!;
  const held = ((await (await fetch(`${standIns}/__shops/${shopId}`)).json()) as { state: { products: { sku: string; stock_quantity: number }[] } }).state.products;
  expect(held.map((p) => [p.sku, p.stock_quantity])).toEqual([["TH-CHAIR", 30], ["TH-TABLE", 2]]);
  const tested = (await (await fetch(`${base}/api/v1/shop-connections/${connections.data[0].id}/test`, { method: "POST", headers })).json()) as { ok: boolean };
  expect(tested, JSON.stringify(tested)).toMatchObject({ ok: true });
  const orders = (await (await fetch(`${base}/api/v1/orders?external_id=1201`, { headers })).json()) as { data: { source: string; reference: string }[] };
  expect(orders.data.map((o) => o.source)).toEqual(["Demo WooCommerce"]);
  const order = (await (await fetch(`${base}/api/v1/orders/${orders.data[0].reference}`, { headers })).json()) as { order_lines: { shipments: { tracking_number: string }[] }[] };
  expect(order.order_lines.map((l) => l.shipments.map((s) => s.tracking_number))).toEqual([["3SWOO1201"], ["3SWOO1201"]]);
}

/** The demo's Shopify order #1001, found by its name, routed by the catalogue to Tuinhout, and the connection's dry-run stock sync of the Tuinhout feed. */
async function expectDemoShopify(base: string, headers: Record<string, string>, connectionId: number) {
  const found = (await (await fetch(`${base}/api/v1/orders?q=${encodeURIComponent("#1001")}`, { headers })).json()) as { data: { external_id: string; source: string; reference: string; custom: unknown }[] };
  expect(found.data.map((o) => [o.external_id, o.source, o.custom])).toEqual([["5500001", "Demo Shopify shop", { shopify_name: "#1001", shopify_connection_id: connectionId }]]);
  const order = (await (await fetch(`${base}/api/v1/orders/${found.data[0].reference}`, { headers })).json()) as { order_lines: { reference: string; quantity: number; current_status: string }[] };
  expect(order.order_lines.map((l) => [l.reference, l.quantity, l.current_status])).toEqual([["TH-TABLE", 1, "ruled"]]);
  const syncs = `${base}/api/v1/shop-connections/${connectionId}/stock-syncs`;
  const listed = await poll(async () => {
    const { data } = (await (await fetch(syncs, { headers })).json()) as { data: { id: number; status: string }[] };
    return data.length > 0 && data.every((s) => s.status === "succeeded" || s.status === "failed") ? data : null;
  }, "the demo Shopify shop's stock sync to end", 15_000);
  expect(listed).toEqual([expect.objectContaining({ status: "succeeded", total: 2, done: 2, counts: { updated: 2, unchanged: 0, unknown: 0, skipped: 0, failed: 0 }, error: null })]);
}

/**
 * Issue 24's "Done when" under npm start itself (its 1 s queue batches, its stand-in shops): a LIVE
 * WooCommerce connection to a fresh shop of the banner's stand-ins, tested; Keukenhuis ships an order
 * of that shop, and the tracking reaches the shop within seconds (polled). The console's side of the
 * same path runs in a real browser in test/shops/live-shipment.browser.test.ts.
 */
type Demo = { api_key: string; account_id: number; supplier_key: string };

/** The demo account's API client under npm start: status and JSON of each call. */
function demoApi(base: string, credentials: Demo) {
  const headers = { "api-key": credentials.api_key, "account-id": String(credentials.account_id), "content-type": "application/json" };
  return async <T = Record<string, unknown>>(method: string, path: string, body?: unknown, extra: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, { method, headers: { ...headers, ...extra }, body: body === undefined || typeof body === "string" ? body : JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as T };
  };
}

/** Asks `check` every 50 ms until it answers something, for at most `ms`. */
async function poll<T>(check: () => Promise<T | null | undefined>, what: string, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A fresh stand-in WooCommerce shop on the banner's stand-ins, seeded; its id, URL and keys. */
async function standInShop(banner: string, seed: Record<string, unknown>) {
  const standIns = / Demo shop {2}(http:\/\/127\.0\.0\.1:\d+)\/s\//.exec(banner)![1];
  const shop = (await (await fetch(`${standIns}/__shops`, { method: "POST", body: JSON.stringify({ platform: "woocommerce", seed }) })).json()) as { id: string; base_url: string; credentials: Record<string, string> };
  const state = async <S>() => ((await (await fetch(`${standIns}/__shops/${shop.id}`)).json()) as { state: S }).state;
  return { ...shop, state };
}

async function expectLiveShipment(base: string, credentials: Demo, banner: string) {
  const seed = { orders: [{ id: 7301, line_items: [{ id: 61, product_id: 801, sku: "LIVE-MUG", name: "Live mug", quantity: 1 }] }] };
  const shop = await standInShop(banner, seed);
  const api = demoApi(base, credentials);
  const source = "Live WooCommerce";
  const connection = await api<{ id: number; settings: { mode: string } }>("POST", "/api/v1/shop-connections", { platform: "woocommerce", name: "Live shop", base_url: shop.base_url, credentials: shop.credentials, sources: [source] });
  expect([connection.status, connection.json.settings.mode]).toEqual([201, "live"]);
  const tested = await api<{ ok: boolean; checks: { ok: boolean }[] }>("POST", `/api/v1/shop-connections/${connection.json.id}/test`);
  expect([tested.json.ok, tested.json.checks.filter((c) => !c.ok)]).toEqual([true, []]);
  const order = await api("POST", "/api/v1/orders", {
    external_id: "7301",
    source,
    total: 10,
    email: "jan@example.com",
    shipping_address: { first_name: "Jan", last_name: "Jansen", address1: "Damrak 1", postcode: "1012LG", city: "Amsterdam", country: "NL" },
    products: [{ external_id: "61", reference: "LIVE-MUG", name: "Live mug", category: "kitchen", quantity: 1, price: 10 }],
  });
  const reference = String(order.json.reference);
  const supplier = { authorization: `Bearer ${credentials.supplier_key}` };
  type Pickups = { data: { order: { reference: string } }[] };
  await poll(async () => (await api<Pickups>("GET", "/api/v1/supplier/orders", undefined, supplier)).json.data.some((d) => d.order.reference === reference), "Keukenhuis to see the order", 30_000);
  const line = (await api<{ order_lines: { id: number }[] }>("GET", `/api/v1/orders/${reference}`)).json.order_lines[0].id;
  const answeredAt = Date.now();
  const shipped = await api("POST", "/api/v1/supplier/answers", { answers: [{ line_id: line, action: "ship", quantity: 1, carrier: "PostNL", tracking_number: "3SLIVE7301" }] }, supplier);
  expect(shipped.status).toBe(200);
  const held = async () => (await shop.state<{ orders: { status: string; trackings: { tracking_number: string; tracking_provider: string }[] }[] }>()).orders[0];
  const trackings = await poll(async () => ((await held()).trackings.length ? (await held()).trackings : null), "the tracking to reach the shop", 10_000);
  const tookMs = Date.now() - answeredAt;
  expect(trackings.map((t) => [t.tracking_number, t.tracking_provider])).toEqual([["3SLIVE7301", "PostNL"]]);
  expect(tookMs).toBeLessThan(10_000);
  console.log(`npm start: the tracking reached the stand-in shop ${tookMs} ms after the supplier's answer`);
}

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

/**
 * Issue 26's "Done when" under npm start itself: a stand-in WooCommerce shop with two products, a
 * LIVE connection to it with the stock sync on (match by SKU, quantities summed over suppliers).
 * Tuinhout offers LIVE-POT before the connection exists; Keukenhuis's feed is then pushed as a CSV
 * file (the import), and the shop's stock moves within seconds (polled): LIVE-POT the sum of both
 * suppliers' offers, LIVE-LID Keukenhuis's. The sync is the connection's first, so it covers the
 * whole catalogue: the demo's Tuinhout feed's SKUs, which the shop lacks, are reported unknown.
 */
async function expectLiveStock(base: string, credentials: Demo, banner: string) {
  type Product = { id: number; sku: string; stock_quantity: number | null; manage_stock: boolean };
  const shop = await standInShop(banner, { products: [{ id: 901, sku: "LIVE-POT", stock_quantity: 0, manage_stock: true }, { id: 902, sku: "LIVE-LID" }] });
  const api = demoApi(base, credentials);
  const suppliers = (await api<{ data: { id: number; name: string }[] }>("GET", "/api/v1/suppliers?per_page=100")).json.data;
  const feed = async (supplier: string) => {
    const created = await api<{ id: number }>("POST", "/api/v1/product-feeds", { supplier_id: suppliers.find((s) => s.name === supplier)!.id, name: `${supplier} live stock`, format: "csv" });
    expect(created.status).toBe(201);
    return (csv: string) => api<{ status: string; created: number }>("PUT", `/api/v1/product-feeds/${created.json.id}/products`, csv, { "content-type": "text/csv" });
  };
  const tuinhout = await (await feed("Tuinhout"))("sku,name,stock_quantity\nLIVE-POT,Live pot,5\n");
  expect([tuinhout.status, tuinhout.json.status, tuinhout.json.created]).toEqual([200, "succeeded", 1]);
  const connection = await api<{ id: number; settings: Record<string, unknown> }>("POST", "/api/v1/shop-connections", {
    platform: "woocommerce",
    name: "Live stock shop",
    base_url: shop.base_url,
    credentials: shop.credentials,
    settings: { stock_sync: { enabled: true, match_by: "sku", quantity: "sum" } },
  });
  expect([connection.status, connection.json.settings.mode, connection.json.settings.stock_sync]).toEqual([201, "live", { enabled: true, match_by: "sku", quantity: "sum", buffer: 0, without_offer: "zero" }]);
  const syncs = `/api/v1/shop-connections/${connection.json.id}/stock-syncs`;
  const pushKeukenhuis = await feed("Keukenhuis");
  const pushedAt = Date.now();
  const pushed = await pushKeukenhuis("sku,name,stock_quantity\nLIVE-POT,Live pot,7\nLIVE-LID,Live lid,3\n");
  expect([pushed.status, pushed.json.status, pushed.json.created]).toEqual([200, "succeeded", 2]);
  const stock = async () => (await shop.state<{ products: Product[] }>()).products.map((p) => [p.sku, p.stock_quantity, p.manage_stock]);
  const want = [["LIVE-POT", 12, true], ["LIVE-LID", 3, true]];
  await poll(async () => JSON.stringify(await stock()) === JSON.stringify(want), "the feed's stock to reach the shop", 15_000);
  const tookMs = Date.now() - pushedAt;
  expect(await stock()).toEqual(want);
  expect(tookMs).toBeLessThan(15_000);
  console.log(`npm start: the feed's stock reached the stand-in shop ${tookMs} ms after the push was sent`);
  // The sync as the API lists it (its outcomes are recorded just after the shop's answer).
  type Sync = { id: number; status: string };
  const listed = await poll(async () => {
    const { json } = await api<{ data: Sync[] }>("GET", syncs);
    return json.data.every((s) => s.status === "succeeded" || s.status === "failed") ? json.data : null;
  }, "the sync to end", 5_000);
  expect(listed).toEqual([
    {
      id: expect.any(Number),
      connection_id: connection.json.id,
      status: "succeeded",
      trigger: "import",
      full: true,
      total: 4,
      done: 4,
      counts: { updated: 2, unchanged: 0, unknown: 2, skipped: 0, failed: 0 },
      error: null,
      guard_reason: null,
      confirmed_at: null,
      retry_at: null,
      created_at: ISO,
      started_at: ISO,
      finished_at: ISO,
    },
  ]);
  const detail = await api<{ products: { data: unknown[] } }>("GET", `${syncs}/${listed[0].id}`);
  expect(detail.json.products.data).toEqual([
    { key: "LIVE-LID", outcome: "updated", quantity: 3, price: null, old_quantity: null, old_price: null, shop_product_id: "902", reason: null },
    { key: "LIVE-POT", outcome: "updated", quantity: 12, price: null, old_quantity: null, old_price: null, shop_product_id: "901", reason: null },
    { key: "TH-CHAIR", outcome: "unknown", quantity: 24, price: null, old_quantity: null, old_price: null, shop_product_id: null, reason: "The shop has no product with SKU TH-CHAIR." },
    { key: "TH-TABLE", outcome: "unknown", quantity: 6, price: null, old_quantity: null, old_price: null, shop_product_id: null, reason: "The shop has no product with SKU TH-TABLE." },
  ]);
}

const states: string[] = [];
afterAll(() => states.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("npm start", () => {
  it("prints a line per step and the banner last, whose URLs and credentials work; wrangler's noise goes to the log; a restart keeps the demo account", async () => {
    const port = await freePort();
    const state = mkdtempSync(join(tmpdir(), "npm-start-"));
    states.push(state);
    const base = `http://localhost:${port}`;

    const first = await start(port, state);
    let [before, banner] = first.stdout.split(RULE);
    try {
      // Before the banner: our own steps, nothing else.
      const steps = before.split("\n").filter((l) => l.trim() !== "");
      expect(steps.filter((l) => !l.startsWith("→ "))).toEqual([]);
      // .dev.vars and its SECRETS_KEY are made once per clone (a run may or may not be the first).
      expect(steps.filter((l) => !/^→ (Created \.dev\.vars|Added a random SECRETS_KEY to \.dev\.vars)/.test(l))).toEqual([
        `→ Applied ${MIGRATIONS} migration(s) to each local D1 shard and ${DIRECTORY_MIGRATIONS} to the directory (${state})`,
        `→ Starting the Worker (wrangler dev, local D1 and Queues) on port ${port}…`,
        "→ Creating the demo account's data (suppliers, routing rules, orders in every state)…",
      ]);
      expect(first.stderr).toBe("");

      // The banner: the five URLs, the credentials, the files that keep them.
      const credentials = JSON.parse(readFileSync(join(state, "demo-credentials.json"), "utf8"));
      const adminToken = /^ADMIN_TOKEN=(.*)$/m.exec(readFileSync(join(root, ".dev.vars"), "utf8"))![1].trim();
      for (const path of ["/api/v1", "/docs", "/openapi.json", "/console", "/supplier", "/operator"]) expect(banner).toContain(`${base}${path} `.trimEnd());
      expect(banner).toMatch(new RegExp(`account-id +${credentials.account_id}\\n`));
      expect(banner).toMatch(new RegExp(`api-key +${credentials.api_key}\\n`));
      expect(banner).toMatch(new RegExp(`supplier key +${credentials.supplier_key}\\n`));
      expect(banner).toMatch(new RegExp(`admin token +${adminToken}\\n`));
      expect(banner).toContain(`kept in ${join(state, "demo-credentials.json")}, the admin token in .dev.vars.`);
      expect(banner).toContain(`export BASE=${base} API_KEY=${credentials.api_key} ACCOUNT_ID=${credentials.account_id} SUPPLIER_KEY=${credentials.supplier_key}\n`);
      expect(banner).toContain(`Start afresh: npm start -- --port ${port} --state ${state} --reset`);

      // What it printed works: the demo orders through the API, the supplier's open dispatches, the operator.
      const orders = await fetch(`${base}/api/v1/orders`, { headers: { "api-key": credentials.api_key, "account-id": String(credentials.account_id) } });
      expect(orders.status).toBe(200);
      expect(((await orders.json()) as { meta: { total: number } }).meta.total).toBeGreaterThan(0);
      // Two of the demo's orders are archived (the console lists them with "Live and archived").
      const archived = await fetch(`${base}/api/v1/orders?archived=only`, { headers: { "api-key": credentials.api_key, "account-id": String(credentials.account_id) } });
      expect(((await archived.json()) as { data: { external_id: string; archived: boolean }[] }).data.map((o) => [o.external_id, o.archived])).toEqual([
        ["DEMO-0902", true],
        ["DEMO-0901", true],
      ]);
      // Three returns of the shipped mugs (the console's Returns page, the order's Returns section, the supplier's credits).
      const returns = await fetch(`${base}/api/v1/returns`, { headers: { "api-key": credentials.api_key, "account-id": String(credentials.account_id) } });
      expect(((await returns.json()) as { data: { status: string; order: { external_id: string }; supplier: { name: string } }[] }).data.map((r) => [r.status, r.order.external_id, r.supplier.name])).toEqual([
        ["requested", "DEMO-1003", "Keukenhuis"],
        ["authorised", "DEMO-1003", "Keukenhuis"],
        ["credited", "DEMO-1003", "Keukenhuis"],
      ]);
      const accounts = await fetch(`${base}/admin/v1/accounts`, { headers: { authorization: `Bearer ${adminToken}` } });
      expect(accounts.status).toBe(200);
      const console = await fetch(`${base}/console/sign-in`);
      expect([console.status, console.headers.get("content-type")]).toEqual([200, "text/html; charset=UTF-8"]);

      // The demo's shop: a stand-in WooCommerce shop on a local port, the banner names it, the demo's
      // dry-run connection points at it and its test passes; order 1201 is the shop's, shipped.
      await expectDemoShop(base, credentials, banner);

      // wrangler's startup output is not shown, and it is not lost either: it is in the log.
      const noise = /Your Worker has access to the following bindings|getaddrinfo|workers\.cloudflare\.com|Scheduled Workers are not automatically triggered|⛅️|^\s+at .*\(|┌|│/m;
      expect(first.stdout + first.stderr).not.toMatch(noise);
      expect(readFileSync(join(state, "npm-start.log"), "utf8")).toMatch(/Your Worker has access to the following bindings/);
    } finally {
      expect(await first.stop()).not.toBe(null);
    }

    // Started again on the same state: nothing to migrate, the same demo account, no new data.
    const second = await start(port, state);
    try {
      [before, banner] = second.stdout.split(RULE);
      expect(before.split("\n").filter((l) => l.trim() !== "")).toEqual([
        `→ The local D1 databases (every shard and the directory) are up to date (${state})`,
        `→ Starting the Worker (wrangler dev, local D1 and Queues) on port ${port}…`,
      ]);
      const credentials = JSON.parse(readFileSync(join(state, "demo-credentials.json"), "utf8"));
      expect(banner).toMatch(new RegExp(`api-key +${credentials.api_key}\\n`));
      expect(second.stderr).toBe("");
      // A new demo shop (a new port): the same connection follows it, and the order is not made twice.
      await expectDemoShop(base, credentials, banner);
      // A live connection made now: a supplier's shipment reaches its shop within seconds.
      await expectLiveShipment(base, credentials, banner);
      // A live connection with the stock sync on: a feed import moves the shop's stock within seconds.
      await expectLiveStock(base, credentials, banner);
    } finally {
      await second.stop();
    }
  }, 400_000);

  it("says plainly that the port is taken, and which port to use instead, before starting anything", async () => {
    const taken = await listen();
    const { port } = taken.address() as { port: number };
    try {
      const result = spawnSync(process.execPath, [START, "--port", String(port)], { cwd: root, encoding: "utf8" });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr.split("\n")[0]).toBe(`✗ Port ${port} is taken: another \`npm start\` (or another program) listens on it.`);
      expect(result.stderr).toContain(`or start on another port: npm start -- --port ${port + 1}`);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });

  it("answers a wrong argument with its usage", () => {
    for (const args of [["--port", "http"], ["--port", "70000"], ["--verbose"], ["--state"]]) {
      const result = spawnSync(process.execPath, [START, ...args], { cwd: root, encoding: "utf8" });
      expect([result.status, result.stdout, result.stderr]).toEqual([2, "", "Usage: npm start -- [--port N] [--reset] [--state DIR]\n"]);
    }
  });
});
