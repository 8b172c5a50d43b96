// What the browser tests share: the Chromium of the run (one per run, a fresh context per test),
// seeding through the public APIs, signing in as a person does, axe, screenshots.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { chromium, type Browser, type BrowserContextOptions, type Page } from "playwright-core";
import { expect, inject } from "vitest";

export const BASE = inject("consoleUrl");
const ADMIN = { authorization: `Bearer ${inject("adminToken")}`, "content-type": "application/json", accept: "application/json" };

let browser: Promise<Browser> | undefined;

/** A new page in a fresh context (its own cookies): one person in one browser. */
export async function newPage(options: BrowserContextOptions = {}): Promise<Page> {
  browser ??= chromium.connect(inject("browserEndpoint"));
  const context = await (await browser).newContext({ baseURL: BASE, viewport: { width: 1280, height: 900 }, ...options });
  return context.newPage();
}

export async function closeBrowser() {
  if (browser) await (await browser).close();
  browser = undefined;
}

export type Shop = { accountId: number; apiKey: string; apiKeyId: number; name: string };

let counter = 0;
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

export async function admin(method: string, path: string, body?: unknown) {
  const res = await fetch(`${BASE}/admin/v1${path}`, { method, headers: ADMIN, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

export async function createShop(name = unique("Shop")): Promise<Shop> {
  // Shard 0: the operator's pipeline pages (parked orders, dead letters) show shard 0 only so far
  // (README, "Shards"); test/shards signs a shard-1 shop in to the console.
  const account = await admin("POST", "/accounts", { name, shard: 0 });
  const key = await admin("POST", `/accounts/${account.json.id}/api-keys`, { name: "console test" });
  return { accountId: account.json.id, apiKey: key.json.api_key, apiKeyId: key.json.id, name };
}

/** The API as the shop's developer calls it. */
export async function api(shop: Shop, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: { "api-key": shop.apiKey, "account-id": String(shop.accountId), "content-type": "application/json", accept: "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** A pull supplier of the shop with a rule sending it every line of this category, and a supplier key for its portal. */
export async function pullSupplier(shop: Shop, name: string, category: string) {
  const supplier = (await api(shop, "POST", "/api/v1/suppliers", { name, channel: "pull" })).json;
  await api(shop, "POST", "/api/v1/routing-rules", {
    name: `${category} lines to ${name}`,
    conditions: [{ variable: "line.category", operator: "is", value: category }],
    action: { type: "assign_supplier", supplier_id: supplier.id },
  });
  const key = (await api(shop, "POST", `/api/v1/suppliers/${supplier.id}/keys`, {})).json.key as string;
  return { id: supplier.id as number, name, key };
}

/** A small order of one line ("Pen"), for a test that needs an order and not its details. */
export function penOrder(externalId: string, extra: Record<string, unknown> = {}, line: Record<string, unknown> = {}) {
  return {
    external_id: externalId,
    source: "Console test",
    total: 5,
    shipping_address: { first_name: "A", last_name: "B", address1: "Street 1", postcode: "1000AA", city: "Amsterdam", country: "NL" },
    products: [{ external_id: "P1", name: "Pen", quantity: 1, price: 5, ...line }],
    ...extra,
  };
}

export async function signInShop(page: Page, shop: Pick<Shop, "accountId" | "apiKey">) {
  await page.goto("/console/sign-in");
  await page.getByLabel("Account ID").fill(String(shop.accountId));
  await page.getByLabel("API key").fill(shop.apiKey);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForLoadState("domcontentloaded");
}

export async function signInSupplier(page: Page, key: string) {
  await page.goto("/supplier/sign-in");
  await page.getByLabel("Supplier key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForLoadState("domcontentloaded");
}

export async function signInOperator(page: Page, token = inject("adminToken")) {
  await page.goto("/operator/sign-in");
  await page.getByLabel("Admin token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForLoadState("domcontentloaded");
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: string[] }[] };

/** axe-core on the page as it is now: no serious or critical violation (WCAG 2.x A/AA and best practices). */
export async function expectAccessible(page: Page) {
  // Evaluated through the DevTools protocol: the page's CSP (script-src 'self') does not apply.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) }));
  });
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical"), `axe on ${page.url()}`).toEqual([]);
}

/** A full-page screenshot into test-results/screenshots (gitignored), named after the page. */
export async function screenshot(page: Page, name: string) {
  await page.screenshot({ path: join(inject("screenshotsDir"), `${name}.png`), fullPage: true });
}

/** The Worker's D1 file; a statement waits up to 10 s while the Worker holds its write lock (never "database is locked"). */
const openWorkerDb = (options: { readOnly?: boolean } = {}) => new DatabaseSync(inject("d1File"), { ...options, timeout: 10_000 });

/**
 * Moves rows of the Worker's local D1 back in time (the only way to be twelve hours later now):
 * an UPDATE straight into its SQLite file, which the running Worker reads on its next statement.
 */
export function ageRows(update: string, params: (string | number | null)[] = []) {
  const db = openWorkerDb();
  try {
    db.prepare(update).run(...params);
  } finally {
    db.close();
  }
}

/** Any statement on the Worker's D1 (a fault injected with a trigger, and dropped again; rows a factory seeds). */
export const onWorkerDb = (statement: string, params: (string | number | null)[] = []) => ageRows(statement, params);

/** A read of the Worker's D1 as it is now (the durable marks the pipeline keeps, for instance). */
export function readWorkerDb<T>(query: string, params: (string | number)[] = []): T[] {
  const db = openWorkerDb({ readOnly: true });
  try {
    return db.prepare(query).all(...params) as T[];
  } finally {
    db.close();
  }
}

/**
 * Fires the Worker's cron as Cloudflare would, through wrangler's local trigger endpoint; `at` is
 * the time it fires for (later than now: the sweepers see what has waited longer).
 */
export async function fireCron(at = Date.now()) {
  const res = await fetch(`${BASE}/cdn-cgi/local/scheduled?cron=${encodeURIComponent("* * * * *")}&time=${at}`);
  expect([res.status, await res.text()]).toEqual([200, "ok"]);
}

/** The supplier API, called with a supplier key. */
export async function supplierApi(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : undefined };
}

export type Received = { path: string; headers: Record<string, string | string[] | undefined>; body: string };

/** A shop's webhook endpoint on the loopback interface: every request it receives, answered 200. */
export async function webhookReceiver(): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Polls until `check` answers something truthy (a browser test's waitFor). */
export async function until<T>(check: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const ageSessions = (where: string, params: (string | number)[], set: string) => ageRows(`UPDATE console_sessions SET ${set} WHERE ${where}`, params);

/** The text of every cell of a table column, by its header. */
export async function columnTexts(page: Page, header: string): Promise<string[]> {
  const headers = await page.locator("table thead th").allTextContents();
  const index = headers.indexOf(header);
  if (index < 0) throw new Error(`no column ${header}: ${headers.join(", ")}`);
  return page.locator(`table tbody tr td:nth-child(${index + 1})`).allTextContents();
}

/**
 * An order of these lines (each `quantity` of one name, at `purchase_price` when given) in one
 * category, which a rule sends to a pull supplier (pullSupplier): created through the API with the
 * order's `extra` fields, and waited for until it awaits pickup.
 */
export async function pulledOrder(shop: Shop, category: string, products: { name: string; quantity: number; purchase_price?: number }[], extra: Record<string, unknown> = {}) {
  const externalId = unique("PULLED");
  const created = await api(shop, "POST", "/api/v1/orders", {
    ...penOrder(externalId, extra),
    products: products.map((p, i) => ({ external_id: `${externalId}-${i}`, name: p.name, category, quantity: p.quantity, price: 1, purchase_price: p.purchase_price })),
  });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  const reference = String(created.json.reference);
  const dispatch = await until(async () => {
    const d = (await api(shop, "GET", `/api/v1/orders/${reference}/dispatches`)).json.data[0];
    return d?.status === "awaiting_pickup" ? d : null;
  }, `order ${reference} to await pickup`);
  const lines = (await api(shop, "GET", `/api/v1/orders/${reference}`)).json.order_lines as { id: number; name: string }[];
  return { reference, dispatchId: dispatch.id as number, lineIds: lines.map((l) => l.id) };
}

/** A form refused beside one field: its message, the field marked invalid, no flash instead. */
export async function expectRefusedBeside(page: Page, fieldId: string, message: string) {
  expect(await page.locator(`#${fieldId}-error`).innerText()).toBe(message);
  expect(await page.locator(`#${fieldId}`).getAttribute("aria-invalid")).toBe("true");
  expect(await page.locator(".flash").count()).toBe(0);
}
