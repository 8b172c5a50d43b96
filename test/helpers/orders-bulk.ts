// Many orders at once, straight into the tables as the bench seeds them (the triggers keep counters,
// facets and search keys): every order "Kim de Boer", kim@example.com, 1012 LG, its external_id
// EX-<i>, a minute apart unless told otherwise, with 0-2 lines (some matched to the supplier).
import { env } from "cloudflare:workers";

export type Seeded = {
  reference: string;
  external_id: string;
  created_at: string;
  test: number;
  blocked: number;
  total: number;
  company: string | null;
  statuses: string[];
  supplier: boolean;
};

const minuteOf = (i: number) => (i >= 45 && i < 57 ? 45 : i >= 145 && i < 157 ? 145 : i);

/** `n` orders (i = 0, 1, …, newest last) created `minute(i)` minutes after 2026-03-01T10:00Z: by default a minute apart, but for two dozen sharing one instant each. */
export async function seedOrders(accountId: number, supplierId: number, n: number, minute = minuteOf, first = 0): Promise<Seeded[]> {
  const rows: Seeded[] = Array.from({ length: n }, (_, k) => {
    const i = first + k;
    return {
      reference: `9${String(accountId).padStart(6, "0")}${String(i).padStart(9, "0")}`,
      external_id: `EX-${String(i).padStart(3, "0")}`,
      created_at: `2026-03-01T${String(10 + Math.floor(minute(i) / 60)).padStart(2, "0")}:${String(minute(i) % 60).padStart(2, "0")}:00.000000Z`,
      test: i % 10 === 3 ? 1 : 0,
      blocked: i % 7 === 0 ? 1 : 0,
      total: 10_000 * i + 1_234,
      company: i === 5 ? 'Jansen, "BV"' : i === 6 ? "=SUM(A1)" : null,
      statuses: i % 4 === 0 ? [] : i % 4 === 1 ? ["completed", "failed"] : ["ruled"],
      supplier: i % 4 === 2,
    };
  });
  await env.DB.prepare(
    `INSERT INTO orders (account_id, reference, external_id, source, test, blocked, total, email, first_name, last_name, company_name, address1, postcode, city, country,
       routed_at, route_requested_at, created_at, updated_at)
     SELECT ?, j.value ->> 'reference', j.value ->> 'external_id', 'Shop', j.value ->> 'test', j.value ->> 'blocked', j.value ->> 'total', 'kim@example.com',
       'Kim', 'de Boer', j.value ->> 'company', 'Damrak 1', '1012 LG', 'Amsterdam', 'NL', j.value ->> 'created_at', j.value ->> 'created_at', j.value ->> 'created_at', j.value ->> 'created_at'
     FROM json_each(?) j`,
  )
    .bind(accountId, JSON.stringify(rows))
    .run();
  await insertLines(rows.flatMap((r) => r.statuses.map((status, position) => ({ reference: r.reference, status, position, supplier: r.supplier ? supplierId : null }))));
  return rows;
}

/** Lines of orders already there (by reference): a status and a matched supplier each, the rest placeholders. */
export async function insertLines(lines: { reference: string; position: number; status: string; supplier: number | null }[]) {
  await env.DB.prepare(
    `INSERT INTO order_lines (order_id, account_id, position, external_id, name, quantity, price, current_status, matched_supplier_id, created_at, updated_at)
     SELECT o.id, o.account_id, j.value ->> 'position', 'x', 'x', 1, 10000, j.value ->> 'status', j.value ->> 'supplier', o.created_at, o.created_at
     FROM json_each(?) j JOIN orders o ON o.reference = j.value ->> 'reference'`,
  )
    .bind(JSON.stringify(lines))
    .run();
}
