// The order list's search (q) and sorts read rows in proportion to the page, not to the account
// (issue 22, and its prefixes, issue 31; held to issue 11's bound that bench/run.mjs checks: 10 × (the page's orders + their
// lines) + 100, auth included), as every other filter alone does, and as many after the account
// has doubled: a search's count is one counter, its page a walk of one key's range; the sort by
// total with no filter a walk of the total index.
import { describe, expect, it } from "vitest";
import { createAccount, seedSupplier } from "../helpers/factories";
import { authHeaders, type Credentials } from "../helpers/http";
import { benchEnv, request } from "../helpers/metered-app";
import { seedOrders } from "../helpers/orders-bulk";

type Measured = { total: number; shown: number; rowsRead: number; bound: number; queries: number };

async function measure(creds: Credentials, query: string): Promise<Measured> {
  const { env: view } = benchEnv();
  const res = await request(view, "GET", `/api/v1/orders?${query}`, authHeaders(creds));
  expect(res.status, query).toBe(200);
  const data = res.json.data as { order_lines: unknown[] }[];
  const lines = data.reduce((n, o) => n + o.order_lines.length, 0);
  return { total: (res.json.meta as { total: number }).total, shown: data.length, rowsRead: res.rowsRead, bound: 10 * (data.length + lines) + 100, queries: res.counted.queries };
}

const QUERIES = ["", "blocked=true", "q=kim", "q=KIM%20DE%20BOER", "q=1012%20lg&include_test=true", "q=EX-124", "q=nobody", "sort=-total", "sort=total&include_test=true", "sort=created_at", "q=kim&sort=created_at", "q=boer", "q=kim%40exa", "q=amster&include_test=true", "q=kimde", "shipping=not_shipped"];

describe("GET /api/v1/orders rows read with q and sort", () => {
  it("stays within the list's bound, as the other filters do, and reads the same after the account doubles", async () => {
    const creds = await createAccount();
    const supplier = await seedSupplier(creds.accountId);
    await seedOrders(creds.accountId, supplier.id, 300);
    const measured = async () => {
      await measure(creds, "");
      const out: Record<string, Measured> = {};
      for (const q of QUERIES) out[q] = await measure(creds, q);
      return out;
    };
    const before = await measured();
    await seedOrders(creds.accountId, supplier.id, 300, (i) => i, 300);
    const after = await measured();
    // What each answered (a tenth of the orders are test orders), at both sizes.
    expect(Object.fromEntries(QUERIES.map((q) => [q, [before[q].total, after[q].total]]))).toEqual({
      "": [270, 540],
      "blocked=true": [39, 78],
      "q=kim": [270, 540],
      "q=KIM%20DE%20BOER": [270, 540],
      "q=1012%20lg&include_test=true": [300, 600],
      "q=EX-124": [1, 1],
      "q=nobody": [0, 0],
      "sort=-total": [270, 540],
      "sort=total&include_test=true": [300, 600],
      "sort=created_at": [270, 540],
      "q=kim&sort=created_at": [270, 540],
      // Prefixes (issue 31): a word of the name, the e-mail's start, the city's, the name's: each a key of its own.
      "q=boer": [270, 540],
      "q=kim%40exa": [270, 540],
      "q=amster&include_test=true": [300, 600],
      "q=kimde": [270, 540],
      // Not yet shipped (issue 31): every order with a line (none is shipped or cancelled), from its facet.
      "shipping=not_shipped": [195, 390],
    });
    for (const q of QUERIES) {
      expect(before[q].rowsRead, q).toBeLessThanOrEqual(before[q].bound);
      expect(after[q].rowsRead, q).toBeLessThanOrEqual(after[q].bound);
      expect([before[q].queries, after[q].queries], q).toEqual([3, 3]);
    }
    // A search that matches every order reads what the unfiltered list reads; one that matches one order, a handful.
    expect(before["q=kim"].rowsRead).toBe(before[""].rowsRead);
    for (const q of ["q=boer", "q=kim%40exa", "q=kimde"]) expect(before[q].rowsRead, q).toBe(before[""].rowsRead);
    expect(before["q=EX-124"].rowsRead).toBeLessThanOrEqual(10);
    // The same rows at both sizes (the sort by total over both test flags reads another page's lines, within a fifth).
    for (const q of QUERIES.filter((q) => q.startsWith("q=") || q.startsWith("sort=-") || q === "sort=created_at" || q === "shipping=not_shipped")) {
      expect(after[q].rowsRead, q).toBe(before[q].rowsRead);
    }
    expect(Math.abs(after["sort=total&include_test=true"].rowsRead - before["sort=total&include_test=true"].rowsRead)).toBeLessThanOrEqual(before["sort=total&include_test=true"].rowsRead / 5);
  });
});
