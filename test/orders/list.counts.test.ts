// The list's counts and pages against a brute-force recomputation: every filter alone at its edges
// (level boundaries of the date counters, amount buckets, case folding, short and long searches),
// every pair of filters and some triples, with and without test orders, first, middle, last and
// past-the-end pages; and deep pages, read from the nearer end. The counts come from counters and
// the pages from index walks (src/orders/list.query.ts); this recomputes both from the rows.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { countsDiff } from "../helpers/counts";
import { parseIsoFilter } from "../../src/lib/time";
import { createAccount, seedSupplier } from "../helpers/factories";
import { insertLines } from "../helpers/orders-bulk";
import { call, type Credentials } from "../helpers/http";

const STATUSES = ["pending", "ruled", "completed", "partially_completed", "failed", "declined", "skipped"] as const;

type Row = {
  external_id: string;
  source: string;
  test: number;
  blocked: number;
  total: number;
  created_at: string;
  completed_at: string | null;
  lines: { status: string; supplier: number | null }[];
};

function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const iso = (ms: number, micro = 0) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, (_, m) => `.${m}${String(micro).padStart(3, "0")}Z`);
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const searchable = (s: string) => asciiLower(s.replace(/[ \t\n\r]/g, ""));

/** Orders (and their lines) straight into the tables, as the bench seeds them: the triggers count them. */
async function insertOrders(accountId: number, rows: Row[]) {
  const orders = rows.map((r, i) => ({ ...r, reference: `${accountId}${String(Date.now()).slice(-6)}${String(i).padStart(5, "0")}` }));
  await env.DB.prepare(
    `INSERT INTO orders (account_id, reference, external_id, source, test, blocked, total, first_name, last_name, address1, postcode, city, country,
       completed_at, routed_at, route_requested_at, created_at, updated_at)
     SELECT ?, j.value ->> 'reference', j.value ->> 'external_id', j.value ->> 'source', j.value ->> 'test', j.value ->> 'blocked', j.value ->> 'total',
       'A', 'B', 'C', '1', 'D', 'NL', j.value ->> 'completed_at', j.value ->> 'created_at', j.value ->> 'created_at', j.value ->> 'created_at', j.value ->> 'created_at'
     FROM json_each(?) j`,
  )
    .bind(accountId, JSON.stringify(orders))
    .run();
  await insertLines(orders.flatMap((o) => o.lines.map((l, position) => ({ ...l, reference: o.reference, position }))));
}

/** An account with three suppliers and the varied dataset; its rows with their ids. */
async function seededAccount() {
  const creds = await createAccount();
  const suppliers = [(await seedSupplier(creds.accountId)).id, (await seedSupplier(creds.accountId)).id, (await seedSupplier(creds.accountId)).id];
  const rows = dataset(suppliers);
  await insertOrders(creds.accountId, rows);
  const stored = await env.DB.prepare("SELECT id, external_id FROM orders WHERE account_id = ?").bind(creds.accountId).all<{ id: number; external_id: string }>();
  const idOf = new Map(stored.results.map((r) => [r.external_id, r.id]));
  return { creds, suppliers, withIds: rows.map((r) => ({ ...r, id: idOf.get(r.external_id)! })) };
}

const DAY = 86_400_000;
const BASE = Date.parse("2025-12-30T00:00:00.000Z");

/** A varied account: timestamps on and off every counter level's boundaries, totals on bucket edges. */
function dataset(suppliers: number[]): Row[] {
  const rand = prng(11);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const totals = [0, 1, 9_999, 10_000, 19_999, 20_000, 49_999, 50_000, 99_999, 100_000, 599_000, 1_000_000, 1_999_900, 2_000_000, 4_999_999, 40_000_000, 999_999_999_999_999];
  const instants = [
    Date.parse("2025-12-31T23:59:59.999Z"),
    Date.parse("2026-01-01T00:00:00.000Z"),
    Date.parse("2026-01-01T00:10:00.000Z"),
    Date.parse("2026-01-15T10:00:00.000Z"),
    Date.parse("2026-01-15T10:45:30.000Z"),
    Date.parse("2026-02-01T00:00:00.000Z"),
    Date.parse("2026-03-01T12:29:59.000Z"),
  ];
  const sources = ["WooCommerce", "woocommerce", "WOOCOMMERCE", "Magento", "Shop Ü", "shop ü"];
  const rows: Row[] = [];
  for (let i = 0; i < 120; i++) {
    const created = i % 4 === 0 ? pick(instants) : BASE + Math.floor(rand() * 90 * DAY);
    const micro = i % 4 === 0 ? 0 : Math.floor(rand() * 1000);
    const lineCount = i % 17 === 0 ? 0 : 1 + Math.floor(rand() * 4);
    const lines = Array.from({ length: lineCount }, () => {
      const status = pick(STATUSES);
      return { status, supplier: status === "pending" && rand() < 0.7 ? null : pick([...suppliers, null]) };
    });
    rows.push({
      external_id: pick(["WC-", "wc-", "MAG-", "Ab", "50%off-", "a_b-"]) + String(1000 + i),
      source: pick(sources),
      test: rand() < 0.15 ? 1 : 0,
      blocked: rand() < 0.12 ? 1 : 0,
      total: i < totals.length ? totals[i] : rand() < 0.3 ? pick(totals) : Math.floor(rand() * 60_000_000),
      created_at: iso(created, micro),
      completed_at: rand() < 0.4 ? null : i % 5 === 0 ? iso(pick(instants)) : iso(created + Math.floor(rand() * 20 * DAY), micro),
      lines,
    });
  }
  // Ties on created_at (broken by id) and an order with only a short external_id.
  rows.push({ ...rows[3], external_id: "Z9", created_at: rows[3].created_at }, { ...rows[3], external_id: "zz-tie", created_at: rows[3].created_at });
  return rows;
}

type Expectation = { total: number; last_page: number; pages: Record<number, string[]> };

/** What the rows say a query should answer: filter, newest first (ties: the later id first). */
function expected(rows: (Row & { id: number })[], query: URLSearchParams, perPage: number, pages: number[]): Expectation {
  const get = (k: string) => (query.get(k) ?? "") || null;
  const dateFrom = get("date_from") && normalise(get("date_from")!, false);
  const dateTo = get("date_to") && normalise(get("date_to")!, true);
  const completed = get("completed_since") && normalise(get("completed_since")!, false);
  const units = (v: string | null, round: (x: number) => number) => (v === null ? null : round(Number(v) * 10_000));
  const min = units(get("total_min"), Math.ceil);
  const max = units(get("total_max"), Math.floor);
  const statuses = get("statuses")?.split(",");
  const supplierIds = get("supplier_ids")?.split(",").map(Number);
  const search = get("q") === null ? null : searchable(get("q")!) || null;
  const matching = rows.filter(
    (r) =>
      (query.get("include_test") === "true" || r.test === 0) &&
      (get("blocked") === null || r.blocked === (get("blocked") === "true" ? 1 : 0)) &&
      (get("source") === null || asciiLower(r.source) === asciiLower(get("source")!)) &&
      (get("external_id") === null || asciiLower(r.external_id).includes(asciiLower(get("external_id")!))) &&
      (!dateFrom || r.created_at >= dateFrom) &&
      (!dateTo || r.created_at <= dateTo) &&
      (!completed || (r.completed_at !== null && r.completed_at > completed)) &&
      (min === null || r.total >= min) &&
      (max === null || r.total <= max) &&
      (!statuses || r.lines.some((l) => statuses.includes(l.status))) &&
      (!supplierIds || r.lines.some((l) => l.supplier !== null && supplierIds.includes(l.supplier))) &&
      // q: the whole of a searched value (insertOrders' names A and B, postcode 1), spaces dropped, ASCII case ignored.
      (search === null || [r.external_id, "A", "B", "A B", "1"].some((v) => searchable(v) === search)),
  );
  // Newest first unless sorted: by created_at, or by total then created_at; ties by id, all one way.
  const sort = get("sort") ?? "-created_at";
  const byCreated = (a: Row & { id: number }, b: Row & { id: number }) => (a.created_at === b.created_at ? a.id - b.id : a.created_at < b.created_at ? -1 : 1);
  const ascending = (a: Row & { id: number }, b: Row & { id: number }) => (sort.endsWith("total") && a.total !== b.total ? a.total - b.total : byCreated(a, b));
  matching.sort((a, b) => (sort.startsWith("-") ? ascending(b, a) : ascending(a, b)));
  return {
    total: matching.length,
    last_page: Math.max(1, Math.ceil(matching.length / perPage)),
    pages: Object.fromEntries(pages.map((p) => [p, matching.slice((p - 1) * perPage, p * perPage).map((r) => r.external_id)])),
  };
}

/** The filters' own reading of a date (a date alone is the whole UTC day). */
const normalise = (value: string, endOfDay: boolean) => parseIsoFilter(value, endOfDay)!;

async function answered(creds: Credentials, query: URLSearchParams, perPage: number, pages: number[]): Promise<Expectation> {
  const out: Expectation = { total: -1, last_page: -1, pages: {} };
  for (const p of pages) {
    const q = new URLSearchParams(query);
    q.set("per_page", String(perPage));
    q.set("page", String(p));
    const res = await call("GET", `/api/v1/orders?${q}`, { creds });
    expect(res.status, `${q}: ${res.text}`).toBe(200);
    out.total = res.json.meta.total;
    out.last_page = res.json.meta.last_page;
    out.pages[p] = res.json.data.map((o: { external_id: string }) => o.external_id);
  }
  return out;
}

const SINGLE: string[] = [
  "",
  "include_test=true",
  "blocked=true",
  "blocked=false&include_test=true",
  "source=woocommerce",
  "source=MAGENTO&include_test=true",
  "source=Shop%20%C3%9C",
  "date_from=2026-01-01",
  "date_from=2026-01-01T00:00:00Z",
  "date_from=2025-12-31T23:59:59.999Z",
  "date_from=2026-01-15T10:00:00Z",
  "date_from=2026-01-15T10:20:00Z",
  "date_from=2026-01-15T10:45:30Z",
  "date_from=2026-01-15T10:50:00Z&include_test=true",
  "date_from=2026-02-01",
  "date_to=2026-01-01",
  "date_to=2025-12-31",
  "date_to=2026-01-15T10:45:30Z",
  "date_to=2026-03-01T12:29:59Z",
  "date_from=2026-01-10&date_to=2026-02-20",
  // (A range that ends before it starts is a 422 now: test/orders/list.filters.test.ts.)
  "completed_since=2026-01-01",
  "completed_since=2026-01-15T10:00:00Z",
  "completed_since=2026-01-15T10:40:00Z&include_test=true",
  "completed_since=2027-01-01",
  "total_min=0",
  "total_min=0.0001",
  "total_min=1",
  "total_min=2",
  "total_min=4.9999",
  "total_min=200",
  "total_min=4000&include_test=true",
  "total_max=0",
  "total_max=1.9999",
  "total_max=5",
  "total_max=199.99",
  "total_min=1&total_max=200",
  // Bounds inside a whole unit of money: that unit's orders come from the total index, from either end.
  "total_min=10.0001",
  "total_max=250.0001",
  "total_min=0.5&total_max=5000.4999",
  "total_min=100&total_max=10",
  "total_max=-1",
  "total_min=99999999999.9999",
  "statuses=failed",
  "statuses=failed,declined",
  "statuses=pending,ruled,completed,partially_completed,failed,declined,skipped&include_test=true",
  "statuses=skipped",
  "supplier_ids=S1",
  "supplier_ids=S1,S2",
  "supplier_ids=S2,S3&include_test=true",
  "supplier_ids=S1,S2,S3",
  "supplier_ids=999999",
  "external_id=wc-",
  "external_id=C-10",
  "external_id=50%25",
  "external_id=a_b",
  "external_id=Z9",
  "external_id=z",
  "external_id=1",
  "external_id=nothing",
];

/** One value per filter, combined in every pair (and some triples). */
const REPRESENTATIVE = [
  "include_test=true",
  "blocked=false",
  "source=woocommerce",
  "date_from=2026-01-10",
  "date_to=2026-02-20T10:30:00Z",
  "completed_since=2026-01-05",
  "total_min=2",
  "total_max=3000",
  "statuses=completed,failed",
  "supplier_ids=S1,S3",
  "external_id=wc-1",
  "external_id=1",
];

describe("GET /api/v1/orders counts and pages", () => {
  it("equal a recomputation from the rows for every filter alone, every pair and some triples", async () => {
    const creds = await createAccount();
    const other = await createAccount();
    const suppliers = [(await seedSupplier(creds.accountId)).id, (await seedSupplier(creds.accountId)).id, (await seedSupplier(creds.accountId)).id];
    const rows = dataset(suppliers);
    await insertOrders(creds.accountId, rows);
    // Another account's orders, with the same suppliers' ids and external ids: never counted here.
    await insertOrders(other.accountId, rows.slice(0, 40));
    const stored = await env.DB.prepare("SELECT id, external_id FROM orders WHERE account_id = ?").bind(creds.accountId).all<{ id: number; external_id: string }>();
    const idOf = new Map(stored.results.map((r) => [r.external_id, r.id]));
    const withIds = rows.map((r) => ({ ...r, id: idOf.get(r.external_id)! }));
    const named = (q: string) => q.replace(/S(\d)/g, (_, n) => String(suppliers[Number(n) - 1]));

    const pairs: string[] = [];
    const key = (q: string) => q.split("=")[0];
    REPRESENTATIVE.forEach((a, i) => REPRESENTATIVE.slice(i + 1).forEach((b) => key(a) !== key(b) && pairs.push(`${a}&${b}`)));
    const triples = ["blocked=false&statuses=completed&supplier_ids=S1", "date_from=2026-01-10&total_min=2&external_id=wc", "source=woocommerce&completed_since=2026-01-05&include_test=true&total_max=3000"];
    for (const raw of [...SINGLE, ...pairs, ...triples]) {
      const query = new URLSearchParams(named(raw));
      const want = expected(withIds, query, 7, [1, 2]);
      const pages = [1, 2, want.last_page, want.last_page + 1];
      expect({ query: raw, ...(await answered(creds, query, 7, pages)) }).toEqual({ query: raw, ...expected(withIds, query, 7, pages) });
    }
    expect(await countsDiff(env.DB, [creds.accountId, other.accountId])).toEqual({ counters: [], facets: [], fts: [] });
  }, 120_000);

  it("sorted by created_at or total, and searched with q, equal a recomputation too, alone and with the other filters", async () => {
    const { creds, suppliers, withIds } = await seededAccount();
    const named = (q: string) => q.replace(/S(\d)/g, (_, n) => String(suppliers[Number(n) - 1]));
    const filters = [
      "",
      "include_test=true",
      "blocked=false",
      "date_from=2026-01-10",
      "date_from=2026-01-10&date_to=2026-02-20T10:30:00Z&include_test=true",
      "total_min=2",
      "statuses=completed,failed",
      "supplier_ids=S1,S3&include_test=true",
      "external_id=wc-1",
      // Every order has the first name A: a search that matches the whole account.
      "q=a",
      "q=%20A%20B%20&include_test=true",
      "q=WC-1005",
      "q=a&include_test=true&total_max=3000",
      "q=1&statuses=failed&date_to=2026-02-20T10:30:00Z",
      "q=b&blocked=true&source=woocommerce",
    ];
    const queries = [
      ...filters.flatMap((f) => ["", "sort=created_at", "sort=-created_at", "sort=-total", "sort=total"].map((sort) => [f, sort].filter(Boolean).join("&"))),
      "q=zz-tie",
      "q=Z9&include_test=true",
      "q=nothing",
    ];
    for (const raw of queries) {
      const query = new URLSearchParams(named(raw));
      const want = expected(withIds, query, 7, [1]);
      const pages = [1, 2, want.last_page, want.last_page + 1];
      expect({ query: raw, ...(await answered(creds, query, 7, pages)) }).toEqual({ query: raw, ...expected(withIds, query, 7, pages) });
    }
  }, 120_000);

  it("merges 200 ranges for 100 supplier ids (the maximum) with test orders, within D1's limits", async () => {
    const { creds, suppliers, withIds } = await seededAccount();
    // 97 ids nobody has, then the account's three.
    const ids = [...Array.from({ length: 97 }, (_, i) => 900_000 + i), ...suppliers];
    for (const raw of [`supplier_ids=${ids.join(",")}&include_test=true`, `supplier_ids=${ids.join(",")}&statuses=failed,declined`]) {
      const query = new URLSearchParams(raw);
      const want = expected(withIds, query, 7, [1]);
      const pages = [1, 2, want.last_page, want.last_page + 1];
      expect(await answered(creds, query, 7, pages)).toEqual(expected(withIds, query, 7, pages));
    }
  });

  it("reads a deep page from the nearer end, the same orders a walk from the newest would reach", async () => {
    const creds = await createAccount();
    const suppliers = [(await seedSupplier(creds.accountId)).id, (await seedSupplier(creds.accountId)).id, (await seedSupplier(creds.accountId)).id];
    const rand = prng(5);
    const rows: Row[] = Array.from({ length: 1_234 }, (_, i) => ({
      external_id: `deep-${i}`,
      source: "Shop",
      test: i % 9 === 0 ? 1 : 0,
      blocked: i % 7 === 0 ? 1 : 0,
      total: (i % 50) * 10_000,
      // Ties every third order: the tie-break by id must hold at both ends.
      created_at: iso(BASE + Math.floor(i / 3) * 60_000),
      completed_at: null,
      lines: [{ status: STATUSES[i % 7], supplier: suppliers[Math.floor(rand() * 3)] }],
    }));
    await insertOrders(creds.accountId, rows);
    const stored = await env.DB.prepare("SELECT id, external_id FROM orders WHERE account_id = ?").bind(creds.accountId).all<{ id: number; external_id: string }>();
    const idOf = new Map(stored.results.map((r) => [r.external_id, r.id]));
    const withIds = rows.map((r) => ({ ...r, id: idOf.get(r.external_id)! }));
    for (const raw of [
      "",
      "include_test=true",
      "blocked=false",
      "statuses=completed,failed",
      "supplier_ids=S1,S2",
      "total_min=10",
      "date_from=2025-12-30T05:00:00Z",
      "sort=created_at",
      "sort=-total",
      "sort=total&include_test=true",
      "q=a",
      "q=a&include_test=true&sort=created_at",
    ]) {
      const query = new URLSearchParams(raw.replace(/S(\d)/g, (_, n) => String(suppliers[Number(n) - 1])));
      // Past offset 1,000: the page before the middle reads forward, those after it backward.
      const pages = [11, 12, 13, 14, 25];
      expect({ query: raw, ...(await answered(creds, query, 50, pages)) }).toEqual({ query: raw, ...expected(withIds, query, 50, pages) });
    }
  }, 60_000);
});
