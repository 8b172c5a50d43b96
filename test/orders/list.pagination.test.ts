// GET /api/v1/orders pagination: Laravel's API-resource shape, per_page, page edges, stable order.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { ISO_MICRO, createAccount, createOrder, exec, seedSupplier, orderIdOf } from "../helpers/factories";
import { BASE, authHeaders, call, type Credentials } from "../helpers/http";

const PATH = `${BASE}/api/v1/orders`;

/** `count` orders created through the API, `parallel` at a time; returns external ids oldest first. */
async function seedOrders(creds: Credentials, count: number, prefix = "pg", extra: Record<string, unknown> = {}) {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, "0")}`);
  for (let i = 0; i < ids.length; i += 20) {
    await Promise.all(ids.slice(i, i + 20).map((external_id) => createOrder(creds, { external_id, ...extra })));
  }
  return ids;
}

async function page(creds: Credentials, query: string) {
  const res = await call("GET", `/api/v1/orders?${query}`, { creds });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

describe("GET /api/v1/orders pagination", () => {
  it("answers Laravel's resource collection shape exactly, links keeping the other parameters", async () => {
    const creds = await createAccount();
    await seedOrders(creds, 5);
    await createOrder(creds, { external_id: "unrelated" });
    const body = await page(creds, "external_id=pg&per_page=2&page=2");
    expect(Object.keys(body)).toEqual(["current_page", "data", "links", "meta"]);
    expect(body).toEqual({
      current_page: 2,
      data: [expect.objectContaining({ external_id: "pg-002" }), expect.objectContaining({ external_id: "pg-001" })],
      links: {
        first: `${PATH}?external_id=pg&per_page=2&page=1`,
        last: `${PATH}?external_id=pg&per_page=2&page=3`,
        prev: `${PATH}?external_id=pg&per_page=2&page=1`,
        next: `${PATH}?external_id=pg&per_page=2&page=3`,
      },
      meta: { current_page: 2, from: 3, last_page: 3, path: PATH, per_page: 2, to: 4, total: 5 },
    });
    expect(Object.keys(body.meta)).toEqual(["current_page", "from", "last_page", "path", "per_page", "to", "total"]);
  });

  it("sets prev to null on the first page and next to null on the last", async () => {
    const creds = await createAccount();
    await seedOrders(creds, 5);
    const first = await page(creds, "per_page=2");
    expect(first.links).toEqual({ first: `${PATH}?per_page=2&page=1`, last: `${PATH}?per_page=2&page=3`, prev: null, next: `${PATH}?per_page=2&page=2` });
    expect(first.meta).toMatchObject({ current_page: 1, from: 1, to: 2 });
    const last = await page(creds, "page=3&per_page=2");
    expect(last.links).toEqual({ first: `${PATH}?per_page=2&page=1`, last: `${PATH}?per_page=2&page=3`, prev: `${PATH}?per_page=2&page=2`, next: null });
    expect(last.meta).toMatchObject({ current_page: 3, from: 5, to: 5, last_page: 3, total: 5 });
    expect(last.data.map((o: any) => o.external_id)).toEqual(["pg-000"]);
  });

  it("keeps encoded parameters encoded in the links", async () => {
    const creds = await createAccount();
    await seedOrders(creds, 3, "pg x");
    const body = await page(creds, "statuses=pending,ruled&external_id=pg%20x&per_page=1&page=2");
    expect(body.meta.total).toBe(3);
    expect(body.links.next).toBe(`${PATH}?statuses=pending%2Cruled&external_id=pg+x&per_page=1&page=3`);
    expect(body.meta.path).toBe(PATH);
  });

  it("answers an empty list with last_page 1 and from/to null", async () => {
    const creds = await createAccount();
    const body = await page(creds, "");
    expect(body).toEqual({
      current_page: 1,
      data: [],
      links: { first: `${PATH}?page=1`, last: `${PATH}?page=1`, prev: null, next: null },
      meta: { current_page: 1, from: null, last_page: 1, path: PATH, per_page: 50, to: null, total: 0 },
    });
  });

  it("answers a page past the last with empty data and from/to null", async () => {
    const creds = await createAccount();
    await seedOrders(creds, 3);
    const body = await page(creds, "per_page=2&page=7");
    expect(body).toEqual({
      current_page: 7,
      data: [],
      links: { first: `${PATH}?per_page=2&page=1`, last: `${PATH}?per_page=2&page=2`, prev: `${PATH}?per_page=2&page=6`, next: null },
      meta: { current_page: 7, from: null, last_page: 2, path: PATH, per_page: 2, to: null, total: 3 },
    });
  });

  it("treats a page below 1 or not a number as page 1", async () => {
    const creds = await createAccount();
    await seedOrders(creds, 3);
    const expected = await page(creds, "per_page=2&page=1");
    for (const p of ["0", "-1", "abc", "1.5", "", "%20", "2abc"]) {
      const body = await page(creds, `per_page=2&page=${p}`);
      expect(body.current_page, `page=${p}`).toBe(1);
      expect(body.meta, `page=${p}`).toEqual(expected.meta);
      expect(body.data).toEqual(expected.data);
    }
  });

  it("pages 50 by default and caps per_page at 100", async () => {
    const creds = await createAccount();
    const ids = await seedOrders(creds, 101);
    const byDefault = await page(creds, "");
    expect(byDefault.data).toHaveLength(50);
    expect(byDefault.meta).toMatchObject({ per_page: 50, last_page: 3, total: 101, from: 1, to: 50 });
    expect(byDefault.data[0].external_id).toBe(ids[100]);

    const capped = await page(creds, "per_page=1000");
    expect(capped.data).toHaveLength(100);
    expect(capped.meta).toMatchObject({ per_page: 100, last_page: 2, total: 101, from: 1, to: 100 });
    const second = await page(creds, "per_page=1000&page=2");
    expect(second.data.map((o: any) => o.external_id)).toEqual([ids[0]]);

    const exact = await page(creds, "per_page=100");
    expect(exact.data).toHaveLength(100);
  });

  it("orders newest first, ties broken by id, stable across pages", async () => {
    const creds = await createAccount();
    const ids = await seedOrders(creds, 23);
    // Many orders share one created_at (same millisecond in production); one is older, one newer.
    await exec("UPDATE orders SET created_at = '2026-05-01T10:00:00.000000Z' WHERE account_id = ?", creds.accountId);
    await exec("UPDATE orders SET created_at = '2026-05-01T09:00:00.000000Z' WHERE account_id = ? AND external_id = ?", creds.accountId, ids[22]);
    await exec("UPDATE orders SET created_at = '2026-05-01T11:00:00.000000Z' WHERE account_id = ? AND external_id = ?", creds.accountId, ids[0]);

    const seen: { id: number; external_id: string; created_at: string }[] = [];
    for (let p = 1; p <= 5; p++) {
      const body = await page(creds, `per_page=5&page=${p}`);
      seen.push(...body.data);
    }
    expect(seen).toHaveLength(23);
    expect(new Set(seen.map((o) => o.id)).size).toBe(23);
    expect(seen[0].external_id).toBe(ids[0]);
    expect(seen[22].external_id).toBe(ids[22]);
    const middle = seen.slice(1, 22).map((o) => o.id);
    expect(middle).toEqual([...middle].sort((a, b) => b - a));
    // The same request twice answers the same page.
    expect(await page(creds, "per_page=5&page=3")).toEqual(await page(creds, "per_page=5&page=3"));
  });

  it("shows each order with its lines (without logs) and its distinct suppliers", async () => {
    const creds = await createAccount();
    const line = (external_id: string) => ({ external_id, name: `Name ${external_id}`, quantity: 1, price: 2.5 });
    const { payload, reference } = await createOrder(creds, { products: [line("a"), line("b"), line("c")] });
    const supplier = await seedSupplier(creds.accountId, "Only Supplier");
    await exec("UPDATE order_lines SET matched_supplier_id = ?, current_status = 'ruled' WHERE order_id = ? AND position < 2", supplier.id, await orderIdOf(reference));

    const body = await page(creds, "");
    const lineOut = (external_id: string, matched: boolean) => ({
      id: expect.any(Number),
      external_id,
      name: `Name ${external_id}`,
      ean13: null,
      reference: null,
      quantity: 1,
      stock_quantity: null,
      price: 2.5,
      purchase_price: null,
      brand: null,
      category: null,
      image_url: null,
      custom: null,
      current_status: matched ? "ruled" : "pending",
      matched_supplier: matched ? { id: supplier.id, name: "Only Supplier" } : null,
      confirmed_quantity: null,
      shipments: [],
      split_from_line_id: null,
      height: null,
      width: null,
      length: null,
      weight: null,
    });
    expect(body.data).toEqual([
      {
        id: expect.any(Number),
        external_id: payload.external_id,
        reference,
        source: "Test shop",
        test: false,
        blocked: false,
        total: 59.9,
        shipping_address: {
          email: "jan@example.com",
          first_name: "Jan",
          last_name: "Jansen",
          company_name: "Jansen BV",
          phone: "0612345678",
          address1: "Damrak 1",
          address2: "3hoog",
          city: "Amsterdam",
          postcode: "1012LG",
          state: "Noord-Holland",
          country: "NL",
        },
        shipping: { cost: 4.95, name: "PostNL", description: "Standard", note: "Ring twice", delivery_date: "2026-11-30" },
        custom: null,
        order_lines: [lineOut("a", true), lineOut("b", true), lineOut("c", false)],
        suppliers: [{ id: supplier.id, name: "Only Supplier" }],
        created_at: expect.stringMatching(ISO_MICRO),
        updated_at: expect.stringMatching(ISO_MICRO),
      },
    ]);
    expect(body.data[0].order_lines.every((l: any) => !("logs" in l))).toBe(true);
  });

  it("costs the same few queries whatever per_page is", async () => {
    const creds = await createAccount();
    const line = (external_id: string) => ({ external_id, name: external_id, quantity: 1, price: 1 });
    await seedOrders(creds, 40, "q", { products: [line("a"), line("b"), line("c")] });

    let statements = 0;
    const counted = new Proxy(env.DB, {
      get(target, prop) {
        if (prop === "prepare") {
          return (query: string) => {
            statements++;
            return target.prepare(query);
          };
        }
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const app = createApp();
    const statementsFor = async (query: string) => {
      statements = 0;
      const ctx = createExecutionContext();
      const res = await app.request(`/api/v1/orders?${query}`, { headers: authHeaders(creds) }, { ...env, DB: counted }, ctx);
      await waitOnExecutionContext(ctx);
      expect(res.status).toBe(200);
      const body: any = await res.json();
      return { statements, orders: body.data.length, lines: body.data.reduce((n: number, o: any) => n + o.order_lines.length, 0) };
    };
    await statementsFor("per_page=1"); // refreshes last_used_at once
    const small = await statementsFor("per_page=1");
    const large = await statementsFor("per_page=40");
    expect(small.orders).toBe(1);
    expect(large).toMatchObject({ orders: 40, lines: 120 });
    expect(large.statements).toBe(small.statements);
    expect(large.statements).toBeLessThanOrEqual(5);
  });
});
