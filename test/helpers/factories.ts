// Self-seeding: every test makes its own account, so tests never share data or depend on order.
import { env } from "cloudflare:workers";
import { ADMIN, call, type Credentials } from "./http";

let counter = 0;
export const unique = (prefix = "x") => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

export async function createAccount(name = unique("shop")): Promise<Credentials & { name: string }> {
  // Shard 0 (the binding DB, which the raw-SQL helpers below read); test/shards covers the others.
  const account = await call("POST", "/admin/v1/accounts", { headers: ADMIN, body: { name, shard: 0 } });
  if (account.status !== 201) throw new Error(`account: ${account.status} ${account.text}`);
  const key = await call("POST", `/admin/v1/accounts/${account.json.id}/api-keys`, { headers: ADMIN, body: {} });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${key.text}`);
  return { accountId: account.json.id, apiKey: key.json.api_key, name };
}

export function orderPayload(overrides: Record<string, unknown> = {}) {
  return {
    external_id: unique("ord"),
    source: "Test shop",
    total: 59.9,
    shipping: { name: "PostNL", description: "Standard", cost: 4.95, note: "Ring twice", delivery_date: "30-11-2026" },
    email: "jan@example.com",
    shipping_address: {
      first_name: "Jan",
      last_name: "Jansen",
      company_name: "Jansen BV",
      address1: "Damrak 1",
      address2: "3hoog",
      postcode: "1012LG",
      city: "Amsterdam",
      state: "Noord-Holland",
      country: "NL",
      phone: "0612345678",
    },
    products: [
      {
        external_id: "sku-1",
        ean13: "0012345678905",
        name: "Blue mug",
        reference: "MUG-BLUE",
        quantity: 2,
        stock_quantity: 10,
        price: 12.5,
        purchase_price: 6.25,
        image_url: "https://img.example.com/mug.png",
        brand: "Mugs Inc",
        category: "Kitchen",
        supplier: "MugSupplier",
        custom: { color: "blue" },
      },
    ],
    ...overrides,
  };
}

export async function createOrder(creds: Credentials, overrides: Record<string, unknown> = {}) {
  const payload = orderPayload(overrides);
  const res = await call("POST", "/api/v1/orders", { creds, body: payload });
  if (res.status !== 200) throw new Error(`order: ${res.status} ${res.text}`);
  return { payload, reference: String(res.json.reference) };
}

/** Direct row seeding for what has no public write API yet (suppliers, catalogue). */
export async function seedSupplier(accountId: number, name = unique("supplier")) {
  const now = isoNow();
  const row = await env.DB.prepare(
    "INSERT INTO suppliers (account_id, name, active, priority, created_at, updated_at) VALUES (?, ?, 1, 100, ?, ?) RETURNING id",
  )
    .bind(accountId, name, now, now)
    .first<{ id: number }>();
  return { id: row!.id, name };
}

/** Rows straight from D1, for what a client cannot see (hashes, raw columns, counts). */
export async function rows<T = Record<string, unknown>>(query: string, ...params: unknown[]): Promise<T[]> {
  const result = await env.DB.prepare(query).bind(...params).all<T>();
  return result.results;
}

export async function exec(query: string, ...params: unknown[]) {
  return env.DB.prepare(query).bind(...params).run();
}

/**
 * Makes the account record events (a subscription to no event type: nothing is delivered), so a
 * test can count the outbox rows a change wrote.
 */
export async function recordEvents(accountId: number) {
  await exec(
    "INSERT INTO webhook_subscriptions (account_id, url, secret, events, active, created_at, updated_at) VALUES (?, 'https://shop.example/hook', 'whsec_test', '[]', 1, ?, ?)",
    accountId,
    isoNow(),
    isoNow(),
  );
}

/** The internal id of an order, for seeding what has no public write API yet. */
export async function orderIdOf(reference: string): Promise<number> {
  const [row] = await rows<{ id: number }>("SELECT id FROM orders WHERE reference = ?", reference);
  if (!row) throw new Error(`no order ${reference}`);
  return row.id;
}

/** A product feed of a (new or given) supplier of the account. */
export async function seedProductFeed(accountId: number, supplierId?: number) {
  const supplier = supplierId ?? (await seedSupplier(accountId)).id;
  const now = isoNow();
  const row = await env.DB.prepare(
    "INSERT INTO product_feeds (account_id, supplier_id, name, format, active, created_at, updated_at) VALUES (?, ?, ?, 'csv', 1, ?, ?) RETURNING id",
  )
    .bind(accountId, supplier, unique("feed"), now, now)
    .first<{ id: number }>();
  return { id: row!.id, supplierId: supplier };
}

export type SeededProduct = {
  id: number;
  account_id: number;
  product_feed_id: number;
  sku: string;
  ean13: string | null;
  name: string;
  purchase_price: number | null;
  stock_quantity: number | null;
  active: number;
  created_at: string;
  updated_at: string;
};

/** `count` catalogue products in one feed, inserted in one statement; returns the rows, ids ascending. */
export async function seedProducts(accountId: number, count: number, feedId?: number): Promise<SeededProduct[]> {
  const feed = feedId ?? (await seedProductFeed(accountId)).id;
  const now = isoNow();
  await env.DB.prepare(
    `INSERT INTO products (account_id, product_feed_id, sku, ean13, name, purchase_price, stock_quantity, active, created_at, updated_at)
     WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ?)
     SELECT ?, ?, 'SKU-' || n, printf('%013d', n), 'Product ' || n, n * 10000 + 2500, n * 2, n % 2, ?, ? FROM seq`,
  )
    .bind(count, accountId, feed, now, now)
    .run();
  // Money as the API shows it (stored in ten-thousandths: n + 0.25).
  return rows<SeededProduct>(
    "SELECT id, account_id, product_feed_id, sku, ean13, name, purchase_price / 10000.0 AS purchase_price, stock_quantity, active, created_at, updated_at FROM products WHERE product_feed_id = ? ORDER BY id",
    feed,
  );
}

/** A timestamp in the form the service writes: ISO 8601 UTC, six fractional digits. */
export function isoNow(date = new Date()) {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export const ISO_MICRO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/**
 * Everything of an account a request could change, read in one statement: compare it before and
 * after to prove a refused request changed nothing.
 */
export const accountState = (accountId: number) => async () =>
  (
    await rows<{ state: string }>(
      `SELECT json_array(
        (SELECT json_group_array(json_array(id, name, code, active, priority, channel, webhook_url, webhook_secret, email, updated_at)) FROM suppliers WHERE account_id = ?1),
        (SELECT json_group_array(json_array(id, revoked_at)) FROM supplier_keys WHERE account_id = ?1),
        (SELECT json_group_array(json_array(id, name, priority, conditions, action, active, updated_at)) FROM routing_rules WHERE account_id = ?1),
        (SELECT json_group_array(json_array(id, blocked, completed_at, routed_at, updated_at)) FROM orders WHERE account_id = ?1),
        (SELECT json_group_array(json_array(id, current_status, matched_supplier_id, confirmed_quantity, dispatch_id)) FROM order_lines WHERE account_id = ?1),
        (SELECT count(*) FROM order_line_logs g JOIN orders o ON o.id = g.order_id WHERE o.account_id = ?1),
        (SELECT count(*) FROM shipments s JOIN orders o ON o.id = s.order_id WHERE o.account_id = ?1),
        (SELECT json_group_array(json_array(id, status)) FROM dispatches WHERE account_id = ?1),
        (SELECT json_group_array(json_array(id, revoked_at)) FROM api_keys WHERE account_id = ?1),
        (SELECT json_group_array(json_array(id, status, attempts)) FROM cancellations WHERE account_id = ?1),
        (SELECT json_group_array(json_array(id, status, quantity)) FROM cancellation_lines WHERE account_id = ?1),
        (SELECT json_group_array(json_array(id, quantity, split_from_line_id, reroute_chain)) FROM order_lines WHERE account_id = ?1),
        (SELECT count(*) FROM events WHERE account_id = ?1)
      ) AS state`,
      accountId,
    )
  )[0].state;
