// GET /api/v1/orders filters: each one, combined, invalid values, test orders and tenancy.
import { describe, expect, it } from "vitest";
import { createAccount, createOrder, exec, orderIdOf, rows, seedSupplier } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";

/** The external ids an order list answers, in order. */
async function listed(creds: Credentials, query = "") {
  const res = await call("GET", `/api/v1/orders${query ? `?${query}` : ""}`, { creds });
  expect(res.status, res.text).toBe(200);
  expect(res.json.meta.total).toBe(res.json.data.length);
  return res.json.data.map((o: any) => o.external_id) as string[];
}

/** Orders with chosen external ids, created oldest first (so the list answers them reversed). */
async function orders(creds: Credentials, externalIds: string[], overrides: (i: number) => Record<string, unknown> = () => ({})) {
  const refs: string[] = [];
  for (const [i, external_id] of externalIds.entries()) {
    refs.push((await createOrder(creds, { external_id, ...overrides(i) })).reference);
  }
  return refs;
}

async function setCreatedAt(reference: string, createdAt: string) {
  await exec("UPDATE orders SET created_at = ? WHERE reference = ?", createdAt, reference);
}

const line = (external_id: string) => ({ external_id, name: external_id, quantity: 1, price: 1 });

describe("GET /api/v1/orders filters", () => {
  it("lists only the account's own orders, newest first", async () => {
    const creds = await createAccount();
    const other = await createAccount();
    await orders(creds, ["a1", "a2", "a3"]);
    await orders(other, ["b1"]);
    expect(await listed(creds)).toEqual(["a3", "a2", "a1"]);
    expect(await listed(other)).toEqual(["b1"]);
  });

  it("excludes test orders unless include_test is true", async () => {
    const creds = await createAccount();
    await orders(creds, ["live-1", "test-1", "live-2"], (i) => ({ test: i === 1 }));
    expect(await listed(creds)).toEqual(["live-2", "live-1"]);
    expect(await listed(creds, "include_test=false")).toEqual(["live-2", "live-1"]);
    expect(await listed(creds, "include_test=0")).toEqual(["live-2", "live-1"]);
    expect(await listed(creds, "include_test=true")).toEqual(["live-2", "test-1", "live-1"]);
    expect(await listed(creds, "include_test=1")).toEqual(["live-2", "test-1", "live-1"]);
  });

  it("matches external_id partially, with LIKE wildcards taken literally", async () => {
    const creds = await createAccount();
    await orders(creds, ["WC-1001", "WC-1002", "MAG-2001", "50%off", "50xoff", "a_b", "axb"]);
    expect(await listed(creds, "external_id=WC-")).toEqual(["WC-1002", "WC-1001"]);
    expect(await listed(creds, "external_id=100")).toEqual(["WC-1002", "WC-1001"]);
    expect(await listed(creds, "external_id=2001")).toEqual(["MAG-2001"]);
    expect(await listed(creds, "external_id=50%25")).toEqual(["50%off"]);
    expect(await listed(creds, "external_id=a_b")).toEqual(["a_b"]);
    expect(await listed(creds, "external_id=nothing")).toEqual([]);
  });

  it("matches source exactly, ignoring ASCII case, as the Laravel client's MySQL does", async () => {
    const creds = await createAccount();
    const other = await createAccount();
    const sources = ["WooCommerce", "woocommerce", "WooCommerce Shop", "Woo", "Magento", "WOOCOMMERCE", "Ünïcode"];
    await orders(creds, sources.map((_, i) => `s${i}`), (i) => ({ source: sources[i], test: i === 5 }));
    await orders(other, ["theirs"], () => ({ source: "WooCommerce" }));
    expect(await listed(creds, "source=WooCommerce")).toEqual(["s1", "s0"]);
    expect(await listed(creds, "source=wOOcOMMERCE&include_test=true")).toEqual(["s5", "s1", "s0"]);
    expect(await listed(creds, "source=Woo")).toEqual(["s3"]);
    expect(await listed(creds, "source=Commerce")).toEqual([]);
    expect(await listed(creds, "source=WooCommerce%20Shop")).toEqual(["s2"]);
    expect(await listed(creds, "source=%C3%9Cn%C3%AFcode")).toEqual(["s6"]);
    // ASCII case only (SQLite's NOCASE): other letters compare exactly.
    expect(await listed(creds, "source=%C3%BCn%C3%AFcode")).toEqual([]);
    expect(await listed(creds, "source=woocommerce&external_id=s1")).toEqual(["s1"]);
    expect(await listed(creds, "source=Magento&total_min=100")).toEqual([]);
    expect(await listed(other, "source=woocommerce")).toEqual(["theirs"]);
    // In the pagination links, with every other parameter.
    const page = await call("GET", "/api/v1/orders?source=woocommerce&per_page=1", { creds });
    expect(page.json.meta.total).toBe(2);
    expect(page.json.links.next).toBe("http://orders.test/api/v1/orders?source=woocommerce&per_page=1&page=2");
    const long = await call("GET", `/api/v1/orders?source=${"x".repeat(256)}`, { creds });
    expect(long.json).toEqual({ message: "Errors", errors: { source: ["The source field must not be greater than 255 characters."] } });
  });

  it("serves the source filter from an index with its collation, with and without test orders", async () => {
    const plan = async (where: string) =>
      (await rows<{ detail: string }>(`EXPLAIN QUERY PLAN SELECT id FROM orders WHERE ${where} ORDER BY created_at DESC`, 1, "Shop"))
        .map((r) => r.detail)
        .join("; ");
    expect(await plan(`account_id = ? AND test = 0 AND source = ? COLLATE NOCASE`)).toMatch(/USING (COVERING )?INDEX orders_account_test_source_idx \(account_id=\? AND test=\? AND source=\?\)/);
    // include_test: both values of test, each a range of the same index read newest first (the
    // sort keeps the page and stops reading a range once it is older than the page).
    expect(await plan(`account_id = ? AND test IN (0, 1) AND source = ? COLLATE NOCASE`)).toBe(
      "SEARCH orders USING COVERING INDEX orders_account_test_source_idx (account_id=? AND test=? AND source=?); USE TEMP B-TREE FOR ORDER BY",
    );
  });

  it("filters on created_at with date_from and date_to, inclusive, date-only meaning the whole UTC day", async () => {
    const creds = await createAccount();
    const refs = await orders(creds, ["jan-10", "jan-15-start", "jan-15-mid", "jan-20-end"]);
    await setCreatedAt(refs[0], "2026-01-10T10:00:00.000000Z");
    await setCreatedAt(refs[1], "2026-01-15T00:00:00.000000Z");
    await setCreatedAt(refs[2], "2026-01-15T10:00:00.000000Z");
    await setCreatedAt(refs[3], "2026-01-20T23:59:59.999999Z");

    expect(await listed(creds, "date_from=2026-01-15")).toEqual(["jan-20-end", "jan-15-mid", "jan-15-start"]);
    expect(await listed(creds, "date_to=2026-01-15")).toEqual(["jan-15-mid", "jan-15-start", "jan-10"]);
    expect(await listed(creds, "date_to=2026-01-20")).toEqual(["jan-20-end", "jan-15-mid", "jan-15-start", "jan-10"]);
    expect(await listed(creds, "date_to=2026-01-19")).toEqual(["jan-15-mid", "jan-15-start", "jan-10"]);
    expect(await listed(creds, "date_from=2026-01-15&date_to=2026-01-15")).toEqual(["jan-15-mid", "jan-15-start"]);
    // Date-times are inclusive at both ends, with Z or an offset.
    expect(await listed(creds, "date_from=2026-01-15T10:00:00Z")).toEqual(["jan-20-end", "jan-15-mid"]);
    expect(await listed(creds, "date_from=2026-01-15T11:00:00%2B01:00")).toEqual(["jan-20-end", "jan-15-mid"]);
    expect(await listed(creds, "date_to=2026-01-15T10:00:00Z")).toEqual(["jan-15-mid", "jan-15-start", "jan-10"]);
    expect(await listed(creds, "date_to=2026-01-15T09:59:59.999999Z")).toEqual(["jan-15-start", "jan-10"]);
    expect(await listed(creds, "date_from=2026-01-20T23:59:59.999999Z")).toEqual(["jan-20-end"]);
    expect(await listed(creds, "date_from=2026-01-21")).toEqual([]);

    // A range that ends before it starts is refused beside date_from, one microsecond past an equal pair.
    const backwards = [
      ["date_from=2026-01-16&date_to=2026-01-15", 422],
      ["date_from=2026-01-15T10:00:00.000001Z&date_to=2026-01-15T10:00:00Z", 422],
      ["date_from=2026-01-15T11:00:00%2B01:00&date_to=2026-01-15T09:59:59Z", 422],
      ["date_from=2026-01-15T10:00:00Z&date_to=2026-01-15T10:00:00Z", 200],
    ] as const;
    for (const [query, status] of backwards) {
      const res = await call("GET", `/api/v1/orders?${query}`, { creds });
      expect([res.status, status === 422 ? res.json : "listed"], query).toEqual([
        status,
        status === 422 ? { message: "Errors", errors: { date_from: ["The date_from field must be a date before or equal to date_to."] } } : "listed",
      ]);
    }
  });

  it("filters on completed_at with completed_since: nothing until orders complete, then strictly after", async () => {
    const creds = await createAccount();
    const refs = await orders(creds, ["early", "late", "open"]);
    expect(await listed(creds, "completed_since=2000-01-01")).toEqual([]);

    await exec("UPDATE orders SET completed_at = '2026-03-01T12:00:00.000000Z' WHERE reference = ?", refs[0]);
    await exec("UPDATE orders SET completed_at = '2026-03-05T12:00:00.000000Z' WHERE reference = ?", refs[1]);
    expect(await listed(creds, "completed_since=2000-01-01")).toEqual(["late", "early"]);
    expect(await listed(creds, "completed_since=2026-03-01T12:00:00Z")).toEqual(["late"]);
    expect(await listed(creds, "completed_since=2026-03-01T11:59:59Z")).toEqual(["late", "early"]);
    expect(await listed(creds, "completed_since=2026-03-05")).toEqual(["late"]);
    expect(await listed(creds, "completed_since=2026-03-06")).toEqual([]);
  });

  it("filters on statuses: an order matches when any of its lines has one of them", async () => {
    const creds = await createAccount();
    const refs = await orders(creds, ["mixed", "failed", "pending"], (i) => ({
      products: i === 0 ? [line("x"), line("y")] : [line("z")],
    }));
    const ids = await Promise.all(refs.map(orderIdOf));
    await exec("UPDATE order_lines SET current_status = 'completed' WHERE order_id = ? AND position = 1", ids[0]);
    await exec("UPDATE order_lines SET current_status = 'failed' WHERE order_id = ?", ids[1]);

    expect(await listed(creds, "statuses=completed")).toEqual(["mixed"]);
    expect(await listed(creds, "statuses=pending")).toEqual(["pending", "mixed"]);
    expect(await listed(creds, "statuses=failed,completed")).toEqual(["failed", "mixed"]);
    expect(await listed(creds, "statuses=failed, completed,failed")).toEqual(["failed", "mixed"]);
    expect(await listed(creds, "statuses=pending,failed")).toEqual(["pending", "failed", "mixed"]);
    expect(await listed(creds, "statuses=skipped,declined,ruled,partially_completed")).toEqual([]);
  });

  it("filters on supplier_ids: an order matches when any of its lines is matched to one of them", async () => {
    const creds = await createAccount();
    const other = await createAccount();
    const refs = await orders(creds, ["s1", "s2", "none"], (i) => ({ products: i === 0 ? [line("x"), line("y")] : [line("z")] }));
    const s1 = await seedSupplier(creds.accountId);
    const s2 = await seedSupplier(creds.accountId);
    const foreign = await seedSupplier(other.accountId);
    const [otherRef] = await orders(other, ["foreign"]);
    await exec("UPDATE order_lines SET matched_supplier_id = ? WHERE order_id = ? AND position = 1", s1.id, await orderIdOf(refs[0]));
    await exec("UPDATE order_lines SET matched_supplier_id = ? WHERE order_id = ?", s2.id, await orderIdOf(refs[1]));
    await exec("UPDATE order_lines SET matched_supplier_id = ? WHERE order_id = ?", foreign.id, await orderIdOf(otherRef));

    expect(await listed(creds, `supplier_ids=${s1.id}`)).toEqual(["s1"]);
    expect(await listed(creds, `supplier_ids=${s2.id}`)).toEqual(["s2"]);
    expect(await listed(creds, `supplier_ids=${s1.id},${s2.id}`)).toEqual(["s2", "s1"]);
    expect(await listed(creds, `supplier_ids=${foreign.id}`)).toEqual([]);
    expect(await listed(other, `supplier_ids=${foreign.id},${s1.id}`)).toEqual(["foreign"]);
  });

  it("filters on total_min and total_max, inclusive", async () => {
    const creds = await createAccount();
    await orders(creds, ["t10", "t19.99", "t20", "t30"], (i) => ({ total: [10, 19.99, 20, 30][i] }));
    expect(await listed(creds, "total_min=20")).toEqual(["t30", "t20"]);
    expect(await listed(creds, "total_max=20")).toEqual(["t20", "t19.99", "t10"]);
    expect(await listed(creds, "total_min=19.99&total_max=20")).toEqual(["t20", "t19.99"]);
    expect(await listed(creds, "total_min=20&total_max=20")).toEqual(["t20"]);
    expect(await listed(creds, "total_min=20.01&total_max=29.99")).toEqual([]);
    expect(await listed(creds, "total_min=0&total_max=1000")).toEqual(["t30", "t20", "t19.99", "t10"]);
  });

  it("filters on blocked", async () => {
    const creds = await createAccount();
    const refs = await orders(creds, ["free-1", "blocked", "free-2"]);
    await exec("UPDATE orders SET blocked = 1 WHERE reference = ?", refs[1]);
    expect(await listed(creds, "blocked=true")).toEqual(["blocked"]);
    expect(await listed(creds, "blocked=1")).toEqual(["blocked"]);
    expect(await listed(creds, "blocked=false")).toEqual(["free-2", "free-1"]);
    expect(await listed(creds, "blocked=0")).toEqual(["free-2", "free-1"]);
    expect(await listed(creds)).toEqual(["free-2", "blocked", "free-1"]);
  });

  it("combines filters with AND", async () => {
    const creds = await createAccount();
    const refs = await orders(creds, ["WC-1", "WC-2", "WC-3", "MAG-4"], (i) => ({ total: (i + 1) * 10, test: i === 2 }));
    await exec("UPDATE orders SET blocked = 1 WHERE reference = ?", refs[0]);
    expect(await listed(creds, "external_id=WC&total_min=10&blocked=false&include_test=true")).toEqual(["WC-3", "WC-2"]);
    expect(await listed(creds, "external_id=WC&total_min=10&blocked=false")).toEqual(["WC-2"]);
    expect(await listed(creds, "external_id=WC&total_max=10&statuses=pending")).toEqual(["WC-1"]);
  });

  it("ignores empty filter values", async () => {
    const creds = await createAccount();
    await orders(creds, ["a", "b"]);
    expect(
      await listed(creds, "external_id=&date_from=&date_to=&completed_since=&statuses=&supplier_ids=&total_min=&total_max=&blocked=&include_test="),
    ).toEqual(["b", "a"]);
  });

  it("answers 422 naming each invalid filter", async () => {
    const creds = await createAccount();
    await orders(creds, ["a"]);
    const res = await call(
      "GET",
      "/api/v1/orders?statuses=pending,shipped&supplier_ids=1,two&date_from=yesterday&date_to=2026-02-30&completed_since=2026-13-01T00:00:00Z&total_min=ten&total_max=1e3x&blocked=maybe&include_test=yes please&per_page=lots",
      { creds },
    );
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: "Errors",
      errors: {
        statuses: ["The selected statuses is invalid. Allowed values: pending, ruled, completed, partially_completed, failed, declined, skipped."],
        supplier_ids: ["The supplier_ids field must be a comma-separated list of ids."],
        date_from: ["The date_from field must be a valid ISO 8601 date."],
        date_to: ["The date_to field must be a valid ISO 8601 date."],
        completed_since: ["The completed_since field must be a valid ISO 8601 date."],
        total_min: ["The total_min field must be a number."],
        total_max: ["The total_max field must be a number."],
        blocked: ["The blocked field must be true or false."],
        include_test: ["The include_test field must be true or false."],
        per_page: ["The per_page field must be an integer of at least 1."],
      },
    });
  });

  it("answers 422 for each kind of bad value on its own", async () => {
    const creds = await createAccount();
    const cases: [string, string, string][] = [
      ["statuses", "PENDING", "The selected statuses is invalid. Allowed values: pending, ruled, completed, partially_completed, failed, declined, skipped."],
      ["supplier_ids", "-1", "The supplier_ids field must be a comma-separated list of ids."],
      ["supplier_ids", ",,", "The supplier_ids field must list between 1 and 100 values."],
      ["date_from", "2026-01-01T10", "The date_from field must be a valid ISO 8601 date."],
      ["date_to", "31-01-2026", "The date_to field must be a valid ISO 8601 date."],
      ["total_min", "NaN", "The total_min field must be a number."],
      ["total_max", "Infinity", "The total_max field must be a number."],
      ["blocked", "yes", "The blocked field must be true or false."],
      ["per_page", "0", "The per_page field must be an integer of at least 1."],
      ["per_page", "-5", "The per_page field must be an integer of at least 1."],
      ["per_page", "2.5", "The per_page field must be an integer of at least 1."],
      ["sort", "newest", "The selected sort is invalid. Allowed values: -created_at, created_at, -total, total."],
      ["sort", "-TOTAL", "The selected sort is invalid. Allowed values: -created_at, created_at, -total, total."],
      ["sort", "total,created_at", "The selected sort is invalid. Allowed values: -created_at, created_at, -total, total."],
    ];
    for (const [param, value, message] of cases) {
      const res = await call("GET", `/api/v1/orders?${param}=${encodeURIComponent(value)}`, { creds });
      expect(res.status, `${param}=${value}`).toBe(422);
      expect(res.json).toEqual({ message: "Errors", errors: { [param]: [message] } });
    }
  });

  it("never lists another account's orders whatever the filters", async () => {
    const creds = await createAccount();
    const other = await createAccount();
    await orders(other, ["theirs-1", "theirs-2"], (i) => ({ test: i === 1 }));
    expect(await listed(creds, "include_test=true&external_id=theirs")).toEqual([]);
    expect(await rows("SELECT id FROM orders WHERE account_id = ?", other.accountId)).toHaveLength(2);
  });
});
