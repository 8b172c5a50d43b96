// The console's orders page and order page against the API calls they show, counted as the
// benchmark counts them (statements and round trips do not swing with the machine's load): each
// request metered (BENCH_METRICS=1) with its SQL captured (x-bench-capture-sql), every statement
// named. Issue 12: "a page costs the same D1 statements as the API call it shows, with no query per
// row"; docs/console.md says what each statement is.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import type { Bindings } from "../../src/env";
import { createAccount, createOrder, exec, recordEvents, seedSupplier } from "../helpers/factories";
import { remoteUrl } from "../helpers/fake-remote";
import { signIn, type Jar } from "../helpers/console-http";
import { authHeaders, BASE, call, type Credentials } from "../helpers/http";
import { seedRule, waitForLineStatus } from "../helpers/routing";

const app = createApp();
const view = { ...env, BENCH_METRICS: "1" } as unknown as Bindings;

async function signedIn(accountId: number, apiKey: string): Promise<Jar> {
  const { res, jar } = await signIn({ account_id: String(accountId), api_key: apiKey });
  expect(res.status).toBe(303);
  return jar;
}

/** What each statement is, from its SQL. */
function nameOf(sql: string): string {
  const s = sql.replace(/\s+/g, " ");
  if (/FROM console_sessions s /.test(s)) return "session (with its API key)";
  if (/from "api_keys"/.test(s)) return "API key";
  if (/AS total, \(SELECT json_group_array\(json_object\('id', id, 'name', name, 'active', active\)\)/.test(s)) return "count + supplier choices";
  if (/^SELECT .* AS total$/.test(s)) return "count";
  if (/^SELECT \(SELECT json_group_array\(json_object\('id', id, 'name', name, 'active', active\)\).* AS alongside$/.test(s)) return "supplier choices";
  if (/^WITH page AS .* AS lines_json FROM page/.test(s)) return "page of orders with their lines";
  if (/^select .*order_line_logs.* from "order_lines"/.test(s)) return "lines with supplier, shipments, logs";
  if (/^select .* from "dispatches"/.test(s)) return "dispatches";
  if (/^select [^()]* from "orders" where/.test(s)) return "order";
  if (/^SELECT e\.id, .* FROM events e /.test(s)) return "events sent to the shop";
  if (/^SELECT w\.id, w\.kind, .* FROM shop_write_backs w /.test(s)) return "written into the shop";
  if (/^SELECT \(SELECT json_group_array\(json\(x\.r\)\) FROM \(SELECT json_object\( 'id', r\.id, .* AS windows_json$/.test(s)) return "returns of the order";
  return `unnamed: ${s.slice(0, 120)}`;
}

/** A GET through the app with metering on: its status, counts and named statements (a second request, with the SQL captured), and its HTML. */
async function measured(path: string, headers: Record<string, string>) {
  const get = async (capture: boolean) => {
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(`${BASE}${path}`, { headers: { ...headers, ...(capture ? { "x-bench-capture-sql": "1" } : {}) } }), view, ctx);
    await waitOnExecutionContext(ctx);
    return { res, text: await res.text() };
  };
  const { res, text } = await get(false);
  const captured = await get(true);
  const statements = (JSON.parse(captured.text) as { sql: string }[]).map((s) => nameOf(s.sql));
  return { status: res.status, queries: Number(res.headers.get("X-D1-Queries")), roundTrips: Number(res.headers.get("X-D1-Round-Trips")), statements, text };
}

const api = (creds: Credentials) => ({ accept: "application/json", ...authHeaders(creds) });
const cookieOf = (jar: Jar) => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");

/** Three orders sent to a webhook supplier (each with a dispatch and the events recorded for the shop's webhook), two more suppliers to choose from, the shop signed in. */
async function shopWithOrders() {
  const creds = await createAccount();
  await call("GET", "/api/v1", { creds }); // the key's first use writes last_used_at
  await recordEvents(creds.accountId);
  const sender = await seedSupplier(creds.accountId, "Acme Webhooks");
  await seedSupplier(creds.accountId, "Beta Supplies");
  const idle = await seedSupplier(creds.accountId, "Zeta Wholesale");
  await exec("UPDATE suppliers SET active = 0 WHERE id = ?", idle.id);
  await exec("UPDATE suppliers SET channel = 'webhook', webhook_url = ?, webhook_secret = 'budget-secret' WHERE id = ?", remoteUrl("ok"), sender.id);
  await seedRule(creds.accountId, { priority: 10, action: { type: "assign_supplier", supplier_id: sender.id } });
  const references: string[] = [];
  for (let i = 0; i < 3; i++) references.push((await createOrder(creds)).reference);
  for (const reference of references) await waitForLineStatus(creds, reference, "completed");
  const jar = await signedIn(creds.accountId, creds.apiKey);
  return { creds, sender, references, cookie: cookieOf(jar) };
}

describe("a console page costs the D1 statements of the API call it shows", () => {
  it("the orders page: the API list's 3 statements in 2 round trips, the filter's supplier choices inside the count statement", async () => {
    const { creds, sender, references, cookie } = await shopWithOrders();

    const list = await measured("/api/v1/orders", api(creds));
    const page = await measured("/console/orders", { cookie });
    expect([list.status, page.status]).toEqual([200, 200]);
    expect(list.statements).toEqual(["API key", "count", "page of orders with their lines"]);
    expect(page.statements).toEqual(["session (with its API key)", "count + supplier choices", "page of orders with their lines"]);
    expect([list.queries, list.roundTrips]).toEqual([3, 2]);
    expect([page.queries, page.roundTrips]).toEqual([3, 2]);
    // What the page shows of those statements: every order, and the suppliers to filter by (by name, the inactive one said).
    for (const reference of references) expect(page.text).toContain(`href="/console/orders/${reference}"`);
    expect([...page.text.matchAll(/name="supplier_ids" value="\d+"[^>]*>\s*([^<]+)</g)].map((m) => m[1].trim())).toEqual([
      "Acme Webhooks",
      "Beta Supplies",
      "Zeta Wholesale (inactive)",
    ]);

    // Filtered by a supplier, and by two filters (whose counts are read first to pick the index): still the API's statements and round trips.
    for (const query of [`supplier_ids=${sender.id}`, `supplier_ids=${sender.id}&statuses=completed`]) {
      const filtered = await measured(`/api/v1/orders?${query}`, api(creds));
      const filteredPage = await measured(`/console/orders?${query}`, { cookie });
      expect([filteredPage.status, filteredPage.queries, filteredPage.roundTrips]).toEqual([200, filtered.queries, filtered.roundTrips]);
      expect(filteredPage.statements.slice(1)).toEqual(filtered.statements.slice(1).map((n) => (n === "count" ? "count + supplier choices" : n)));
      for (const reference of references) expect(filteredPage.text).toContain(`href="/console/orders/${reference}"`);
    }

    // Filters that can match nothing: the API reads nothing after the key, the page only the choices.
    // (A created range that ends before it starts is refused now, beside date_from; an amount range is not.)
    const nothing = "total_min=20&total_max=10";
    const none = await measured(`/api/v1/orders?${nothing}`, api(creds));
    const nonePage = await measured(`/console/orders?${nothing}`, { cookie });
    expect(none.statements).toEqual(["API key"]);
    expect(nonePage.statements).toEqual(["session (with its API key)", "supplier choices"]);
    expect(nonePage.text).toContain("No orders match these filters");
    expect(nonePage.text).toContain("Zeta Wholesale (inactive)");
  });

  it("the order page: the API single order's 3 statements in 2 round trips, plus its dispatches, the events sent to the shop, what was written into it and its returns in the same round trip", async () => {
    const { creds, references, cookie } = await shopWithOrders();
    const [reference] = references;

    const single = await measured(`/api/v1/orders/${reference}`, api(creds));
    const page = await measured(`/console/orders/${reference}`, { cookie });
    expect([single.status, page.status]).toEqual([200, 200]);
    expect(single.statements).toEqual(["API key", "order", "lines with supplier, shipments, logs"]);
    expect(page.statements).toEqual(["session (with its API key)", "order", "lines with supplier, shipments, logs", "dispatches", "events sent to the shop", "written into the shop", "returns of the order"]);
    expect([single.queries, single.roundTrips]).toEqual([3, 2]);
    expect([page.queries, page.roundTrips]).toEqual([7, 2]);
    // The two statements the API call does not make are shown on the page.
    expect(page.text).toContain("Acme Webhooks");
    expect(page.text).toContain("order.created");

    // Another account's order: the same 404 page, after the same statements.
    const stranger = await shopWithOrders();
    const foreign = await measured(`/console/orders/${reference}`, { cookie: stranger.cookie });
    expect(foreign.status).toBe(404);
  });
});

