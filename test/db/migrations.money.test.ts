// The money migration on a database that already holds orders: the real migrations, applied one
// by one to a scratch D1 with rows written in between, as production will meet them.
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { countsDiff } from "../helpers/counts";

// Found by name: a rebase may renumber it.
const MONEY = "_limits_races_money.sql";

describe("the money migration", () => {
  it("rebuilds the tables and converts every REAL amount to exact INTEGER ten-thousandths, keeping every row and reference", async () => {
    const db = env.MIGRATION_DB;
    const all = env.TEST_MIGRATIONS;
    const at = all.findIndex((m) => m.name.endsWith(MONEY));
    expect(at).toBeGreaterThan(0);
    await applyD1Migrations(db, all.slice(0, at));

    const now = "2026-11-01T10:00:00.000000Z";
    const run = (query: string, ...params: unknown[]) => db.prepare(query).bind(...params).run();
    await run("INSERT INTO accounts (id, name, created_at) VALUES (1, 'shop', ?)", now);
    await run("INSERT INTO suppliers (id, account_id, name, active, priority, created_at, updated_at) VALUES (1, 1, 'S', 1, 100, ?, ?)", now, now);
    const order = (id: number, total: number, shipping: number | null) =>
      run(
        `INSERT INTO orders (id, account_id, reference, external_id, source, test, blocked, total, shipping_cost, first_name, last_name, address1, postcode, city, country, routed_at, created_at, updated_at)
         VALUES (?, 1, ?, ?, 'shop', 0, 0, ?, ?, 'A', 'B', 'C', '1', 'D', 'NL', ?, ?, ?)`,
        id, `${1000 + id}`, `e${id}`, total, shipping, now, now, now,
      );
    // 0.1 + 0.2 as a REAL is 0.30000000000000004; 59.9 and 4.95 are not exact in binary either.
    await order(1, 59.9, 4.95);
    await order(2, 0.1 + 0.2, null);
    await order(3, 99_999_999.99, 0);
    const line = (id: number, orderId: number, price: number, purchase: number | null) =>
      run(
        `INSERT INTO order_lines (id, order_id, account_id, position, external_id, name, quantity, price, purchase_price, current_status, matched_supplier_id, created_at, updated_at)
         VALUES (?, ?, 1, 0, ?, 'n', 1, ?, ?, 'ruled', 1, ?, ?)`,
        id, orderId, `l${id}`, price, purchase, now, now,
      );
    await line(1, 1, 12.5, 6.25);
    await line(2, 2, 0.0001, null);
    await line(3, 3, 1234.5678, 0.3);
    await run("INSERT INTO order_line_logs (id, order_line_id, order_id, status, message, created_at) VALUES (1, 1, 1, 'ruled', 'm', ?)", now);
    await run(
      "INSERT INTO dispatches (id, account_id, order_id, supplier_id, channel, status, idempotency_key, attempts, created_at, updated_at) VALUES (1, 1, 1, 1, 'pull', 'awaiting_pickup', 'k1', 1, ?, ?)",
      now,
      now,
    );
    await run("INSERT INTO shipments (id, account_id, order_id, order_line_id, quantity, created_at) VALUES (1, 1, 1, 1, 1, ?)", now);
    await run("INSERT INTO product_feeds (id, account_id, supplier_id, name, format, active, created_at, updated_at) VALUES (1, 1, 1, 'f', 'csv', 1, ?, ?)", now, now);
    await run(
      "INSERT INTO products (id, account_id, product_feed_id, sku, name, purchase_price, active, created_at, updated_at) VALUES (1, 1, 1, 'A', 'a', 3.5, 1, ?, ?), (2, 1, 1, 'B', 'b', NULL, 1, ?, ?)",
      now, now, now, now,
    );

    await applyD1Migrations(db, all);

    const rows = async (query: string) => (await db.prepare(query).all()).results;
    expect(await rows("SELECT id, typeof(total) AS t, total, shipping_cost, route_requested_at, routing_attempts, parked_at FROM orders ORDER BY id")).toEqual([
      { id: 1, t: "integer", total: 599_000, shipping_cost: 49_500, route_requested_at: now, routing_attempts: 0, parked_at: null },
      { id: 2, t: "integer", total: 3_000, shipping_cost: null, route_requested_at: now, routing_attempts: 0, parked_at: null },
      { id: 3, t: "integer", total: 999_999_999_900, shipping_cost: 0, route_requested_at: now, routing_attempts: 0, parked_at: null },
    ]);
    expect(await rows("SELECT id, typeof(price) AS t, price, purchase_price, move_token FROM order_lines ORDER BY id")).toEqual([
      { id: 1, t: "integer", price: 125_000, purchase_price: 62_500, move_token: null },
      { id: 2, t: "integer", price: 1, purchase_price: null, move_token: null },
      { id: 3, t: "integer", price: 12_345_678, purchase_price: 3_000, move_token: null },
    ]);
    expect(await rows("SELECT id, purchase_price FROM products ORDER BY id")).toEqual([
      { id: 1, purchase_price: 35_000 },
      { id: 2, purchase_price: null },
    ]);
    // Every row that referenced the rebuilt tables still does, and the database says so.
    expect(await rows("SELECT count(*) AS n FROM order_line_logs l JOIN order_lines o ON o.id = l.order_line_id")).toEqual([{ n: 1 }]);
    expect(await rows("SELECT count(*) AS n FROM dispatches d JOIN orders o ON o.id = d.order_id")).toEqual([{ n: 1 }]);
    expect(await rows("SELECT count(*) AS n FROM shipments s JOIN order_lines l ON l.id = s.order_line_id")).toEqual([{ n: 1 }]);
    expect(await rows("PRAGMA foreign_key_check")).toEqual([]);
    // New ids continue after the copied ones.
    await run(
      `INSERT INTO orders (account_id, reference, external_id, source, total, first_name, last_name, address1, postcode, city, country, route_requested_at, created_at, updated_at)
       VALUES (1, '2000', 'e4', 'shop', 1, 'A', 'B', 'C', '1', 'D', 'NL', ?, ?, ?)`,
      now, now, now,
    );
    expect(await rows("SELECT max(id) AS id FROM orders")).toEqual([{ id: 4 }]);
    // The list counts migration counted the rows that were there (its backfill), and the new
    // order through its triggers.
    expect(await rows("SELECT kind, key, n FROM counters WHERE kind IN ('orders', 'orders.supplier', 'products') ORDER BY kind")).toEqual([
      { kind: "orders", key: "", n: 4 },
      { kind: "orders.supplier", key: "1", n: 3 },
      { kind: "products", key: "", n: 2 },
    ]);
    expect(await countsDiff(db)).toEqual({ counters: [], facets: [], fts: [] });
  });
});
