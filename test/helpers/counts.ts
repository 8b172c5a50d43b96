// The invariant of the list structures, recomputed from the base tables alone (orders, order_lines,
// products), in JavaScript, independently of the views and triggers that maintain them
// (drizzle/0011_list_counts_triggers.sql): counters, order_facets and the external_id index must
// equal it exactly. Shipments too: an order's lines not yet shipped (drizzle/0040). Read in one D1 batch, which is one transaction: one consistent snapshot.

type Counted = Map<string, number>;

const LEVELS = [4, 7, 10, 13];
const STATUS_CODES = ["pending", "ruled", "completed", "partially_completed", "failed", "declined", "skipped"];

/** SQLite's lower(): ASCII letters only (no ICU), as the source counter and the trigram index fold. */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

function add(map: Counted, key: string, n = 1) {
  map.set(key, (map.get(key) ?? 0) + n);
}

/** The order search's keys of one order, each with how many of its values give it (drizzle/0037, 0043). */
export function searchKeysOf(order: SearchedOrder, lineNames: string[]): Counted {
  const keys: Counted = new Map();
  const norm = (v: string) => asciiLower(v.replace(/[ \t\n\r]/g, ""));
  // Characters as SQLite's substr() and length() count them: code points.
  const prefixes = (v: string) => {
    const chars = Array.from(v);
    for (let j = 3; j <= Math.min(24, chars.length); j++) add(keys, chars.slice(0, j).join(""));
  };
  const whole = [order.reference, order.external_id, order.first_name, order.last_name, order.first_name + order.last_name, order.company_name, order.email, order.postcode, order.city, ...lineNames];
  for (const v of whole) if (v !== null) add(keys, norm(v));
  // A Shopify order's name (custom.shopify_name, text only), whole and without its leading '#' (0043).
  const shopName = shopNameOf(order.custom);
  if (shopName !== null) for (const v of [shopName, shopName.replace(/^#+/, "")]) add(keys, norm(v));
  for (const v of [`${order.first_name} ${order.last_name}`, order.company_name, order.city]) {
    if (v === null) continue;
    const chars = Array.from(v);
    const space = (c: string | undefined) => c !== undefined && /[ \t\n\r]/.test(c);
    chars.forEach((c, i) => {
      if (!space(c) && (i === 0 || space(chars[i - 1]))) prefixes(norm(chars.slice(i).join("")));
    });
  }
  if (order.email !== null) prefixes(norm(order.email));
  for (const name of lineNames) prefixes(norm(name));
  keys.delete("");
  return keys;
}

function shopNameOf(custom: string | null | undefined): string | null {
  if (!custom) return null;
  const value = (JSON.parse(custom) as Record<string, unknown> | null)?.shopify_name;
  return typeof value === "string" ? value : null;
}

export type SearchedOrder = {
  /** The custom column as stored (JSON text). */
  custom?: string | null;
  reference: string;
  external_id: string;
  first_name: string;
  last_name: string;
  company_name: string | null;
  email: string | null;
  postcode: string;
  city: string;
};

/** fts: the external_id index and the order search's keys (order_search_keys, rows "search|…|n"). */
export type CountsDiff = { counters: string[]; facets: string[]; fts: string[] };

/** Every difference between what is stored and what the base tables say (empty when exact). */
export async function countsDiff(db: D1Database, accountIds?: number[]): Promise<CountsDiff> {
  const scope = accountIds ? `WHERE account_id IN (SELECT value FROM json_each('${JSON.stringify(accountIds)}'))` : "";
  const lineScope = accountIds ? `WHERE l.account_id IN (SELECT value FROM json_each('${JSON.stringify(accountIds)}'))` : "";
  const [orders, lines, products, counters, facets, fts, searchKeys, shipped, stubs] = await db.batch([
    db.prepare(
      `SELECT id, account_id, test, blocked, source, created_at, completed_at, total, external_id, reference, first_name, last_name, company_name, email, postcode, city, custom FROM orders ${scope}`,
    ),
    db.prepare(`SELECT l.id, l.order_id, l.current_status, l.matched_supplier_id, l.name, l.quantity FROM order_lines l ${lineScope}`),
    db.prepare(`SELECT account_id, product_feed_id FROM products ${scope}`),
    db.prepare(`SELECT account_id, test, kind, key, n FROM counters ${scope}`),
    db.prepare(`SELECT account_id, test, kind, value, created_at, order_id, n FROM order_facets ${scope}`),
    // rowid = (account_id * 2 + test) * 2^40 + the order id packed into 40 bits (its shard's range,
    // then its place there: drizzle/0015), taken apart in SQL (it may pass 2^53).
    db.prepare(
      `SELECT r FROM (SELECT (rowid >> 40) || '|' || (((rowid & 1099511627775) >> 32) * 1099511627776 + (rowid & 4294967295)) AS r, rowid >> 41 AS account_id FROM orders_external_fts) ${scope}`,
    ),
    db.prepare(`SELECT account_id, test, key, created_at, order_id, n FROM order_search_keys ${scope}`),
    db.prepare(`SELECT order_line_id, sum(quantity) AS quantity FROM shipments ${scope} GROUP BY order_line_id`),
    db.prepare(`SELECT account_id, test, source, statuses FROM archived_orders ${scope}`),
  ]);
  type O = SearchedOrder & { id: number; account_id: number; test: number; blocked: number; source: string; created_at: string; completed_at: string | null; total: number };
  type L = { id: number; order_id: number; current_status: string; matched_supplier_id: number | null; name: string; quantity: number };
  const shippedOf = new Map((shipped.results as { order_line_id: number; quantity: number }[]).map((s) => [s.order_line_id, s.quantity]));
  const namesOf = new Map<number, string[]>();
  for (const l of lines.results as L[]) {
    const names = namesOf.get(l.order_id) ?? [];
    names.push(l.name);
    namesOf.set(l.order_id, names);
  }

  const byOrder = new Map<number, { statuses: Map<number, number>; suppliers: Map<number, number>; unshipped: number }>();
  for (const l of lines.results as L[]) {
    const entry = byOrder.get(l.order_id) ?? { statuses: new Map(), suppliers: new Map(), unshipped: 0 };
    // Not yet shipped (drizzle/0040): not cancelled, and its shipments short of its quantity.
    if (l.current_status !== "skipped" && l.quantity > (shippedOf.get(l.id) ?? 0)) entry.unshipped += 1;
    byOrder.set(l.order_id, entry);
    const code = STATUS_CODES.indexOf(l.current_status);
    entry.statuses.set(code, (entry.statuses.get(code) ?? 0) + 1);
    if (l.matched_supplier_id !== null) entry.suppliers.set(l.matched_supplier_id, (entry.suppliers.get(l.matched_supplier_id) ?? 0) + 1);
  }

  const expectedCounters: Counted = new Map();
  const expectedFacets: Counted = new Map();
  const expectedFts = new Set<string>();
  for (const o of orders.results as O[]) {
    const c = (kind: string, key: string | number) => add(expectedCounters, `${o.account_id}|${o.test}|${kind}|${key}`);
    c("orders", "");
    if (o.blocked) c("orders.blocked", "");
    c("orders.source", asciiLower(o.source));
    for (const l of LEVELS) c(`orders.created:${l}`, o.created_at.slice(0, l));
    if (o.completed_at !== null) for (const l of LEVELS) c(`orders.completed:${l}`, o.completed_at.slice(0, l));
    const digits = String(o.total);
    // Down to whole units of money (4 decimals in units).
    for (let l = 1; l <= Math.max(1, digits.length - 4); l++) c(`orders.total:${l}`, String(digits.length).padStart(2, "0") + digits.slice(0, l));
    const facets = byOrder.get(o.id) ?? { statuses: new Map(), suppliers: new Map(), unshipped: 0 };
    if (facets.unshipped > 0) {
      add(expectedFacets, `${o.account_id}|${o.test}|2|0|${o.created_at}|${o.id}`, facets.unshipped);
      c("orders.unshipped", "");
    }
    let mask = 0;
    for (const [code, n] of facets.statuses) {
      mask |= 1 << code;
      add(expectedFacets, `${o.account_id}|${o.test}|0|${code}|${o.created_at}|${o.id}`, n);
    }
    // An order without lines has no mask counter (no statuses filter can match it).
    if (mask !== 0) c("orders.mask", mask);
    const suppliers = [...facets.suppliers.keys()].sort((a, b) => a - b);
    for (const [supplier, n] of facets.suppliers) add(expectedFacets, `${o.account_id}|${o.test}|1|${supplier}|${o.created_at}|${o.id}`, n);
    suppliers.forEach((a, i) => {
      c("orders.supplier", a);
      for (const b of suppliers.slice(i + 1)) c("orders.supplier_pair", `${a},${b}`);
    });
    expectedFts.add(`${o.account_id * 2 + o.test}|${o.id}`);
    // The order search (drizzle/0023, 0037): each key once per order with how many values give it, counted per key.
    for (const [key, n] of searchKeysOf(o, namesOf.get(o.id) ?? [])) {
      c("orders.search", key);
      expectedFts.add(`search|${o.account_id}|${o.test}|${key}|${o.created_at}|${o.id}|${n}`);
    }
  }
  // The archived orders' counters (drizzle/0047): per stub, all, by source and by its statuses' bits.
  for (const a of stubs.results as { account_id: number; test: number; source: string; statuses: number }[]) {
    for (const [kind, key] of [["archived", ""], ["archived.source", asciiLower(a.source)], ["archived.mask", String(a.statuses)]]) add(expectedCounters, `${a.account_id}|${a.test}|${kind}|${key}`);
  }
  for (const p of products.results as { account_id: number; product_feed_id: number }[]) {
    add(expectedCounters, `${p.account_id}|0|products|`);
    add(expectedCounters, `${p.account_id}|0|products.feed|${p.product_feed_id}`);
  }

  const stored = (rows: Record<string, unknown>[], key: (r: Record<string, unknown>) => string) => {
    const map: Counted = new Map();
    for (const r of rows) if (r.n !== 0) map.set(key(r), r.n as number);
    return map;
  };
  const differences = (expected: Counted, actual: Counted) => {
    const out: string[] = [];
    for (const [k, n] of expected) if (actual.get(k) !== n) out.push(`${k}: stored ${actual.get(k) ?? "nothing"}, base tables say ${n}`);
    for (const [k, n] of actual) if (!expected.has(k)) out.push(`${k}: stored ${n}, base tables say nothing`);
    return out.sort();
  };
  const storedFts = new Set((fts.results as { r: string }[]).map((r) => r.r));
  for (const k of searchKeys.results as { account_id: number; test: number; key: string; created_at: string; order_id: number; n: number }[]) {
    storedFts.add(`search|${k.account_id}|${k.test}|${k.key}|${k.created_at}|${k.order_id}|${k.n}`);
  }
  return {
    counters: differences(expectedCounters, stored(counters.results as Record<string, unknown>[], (r) => `${r.account_id}|${r.test}|${r.kind}|${r.key}`)),
    // A facet row at zero must not exist at all (the list would show its order): compare every row.
    facets: differences(expectedFacets, new Map((facets.results as Record<string, unknown>[]).map((r) => [`${r.account_id}|${r.test}|${r.kind}|${r.value}|${r.created_at}|${r.order_id}`, r.n as number]))),
    fts: [...[...expectedFts].filter((r) => !storedFts.has(r)).map((r) => `missing ${r}`), ...[...storedFts].filter((r) => !expectedFts.has(r)).map((r) => `extra ${r}`)],
  };
}
