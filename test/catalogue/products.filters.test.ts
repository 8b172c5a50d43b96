// GET /api/v1/products: the spec's paginate() shape is unchanged, with filters for catalogue users.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { createFeed, feedProducts, pushFile } from "../helpers/catalogue";
import { BASE, call, type Credentials } from "../helpers/http";

let creds: Credentials;
let feedA: number;
let feedB: number;
let byKey: Record<string, any>;

beforeAll(async () => {
  creds = await createAccount();
  feedA = (await createFeed(creds)).feed.id;
  feedB = (await createFeed(creds)).feed.id;
  await pushFile(
    creds,
    feedA,
    "sku;ean13;name;purchase_price;stock_quantity;active\n" +
      "MUG-1;0012345678905;Blue mug;4,95;12;1\n" +
      "MUG-2;8712345678906;Red MUG 100% stoneware;5,95;0;0\n" +
      "PLATE-1;;Plate_large;7,50;3;1\n",
    "text/csv",
  );
  await pushFile(creds, feedB, "sku;ean13;name;purchase_price\nMUG-1;0012345678905;Blue mug (other supplier);4,50\n", "text/csv");
  // Another account's identical catalogue must never show up.
  const other = await createAccount();
  await pushFile(other, (await createFeed(other)).feed.id, "sku;ean13;name\nMUG-1;0012345678905;Blue mug\n", "text/csv");
  const rows = [...(await feedProducts(creds, feedA)), ...(await feedProducts(creds, feedB))];
  byKey = Object.fromEntries(rows.map((p) => [`${p.product_feed_id === feedA ? "A" : "B"}:${p.sku}`, p]));
});

const skus = (res: { json: { data: { sku: string; product_feed_id: number }[] } }) =>
  res.json.data.map((p) => `${p.product_feed_id === feedA ? "A" : "B"}:${p.sku}`);

describe("GET /api/v1/products filters", () => {
  it("keeps the exact paginate() shape, with the filters carried into the page links", async () => {
    const res = await call("GET", "/api/v1/products?sku=MUG-1&page=1", { creds });
    expect(res.status).toBe(200);
    const path = `${BASE}/api/v1/products`;
    expect(res.json).toEqual({
      current_page: 1,
      data: [byKey["A:MUG-1"], byKey["B:MUG-1"]],
      first_page_url: `${path}?sku=MUG-1&page=1`,
      from: 1,
      last_page: 1,
      last_page_url: `${path}?sku=MUG-1&page=1`,
      next_page_url: null,
      path,
      per_page: 100,
      prev_page_url: null,
      to: 2,
      total: 2,
    });
    expect(byKey["A:MUG-1"]).toEqual({
      id: expect.any(Number),
      project_id: creds.accountId,
      product_feed_id: feedA,
      sku: "MUG-1",
      ean13: "0012345678905",
      name: "Blue mug",
      purchase_price: 4.95,
      stock_quantity: 12,
      active: 1,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
    });
  });

  const cases: [string, string[]][] = [
    ["", ["A:MUG-1", "A:MUG-2", "A:PLATE-1", "B:MUG-1"]],
    ["ean13=0012345678905", ["A:MUG-1", "B:MUG-1"]],
    ["ean13=12345678905", []],
    ["sku=mug-1", []],
    ["active=false", ["A:MUG-2"]],
    ["active=1", ["A:MUG-1", "A:PLATE-1", "B:MUG-1"]],
    ["search=mug", ["A:MUG-1", "A:MUG-2", "B:MUG-1"]],
    ["search=100%25", ["A:MUG-2"]],
    ["search=e_l", ["A:PLATE-1"]],
    ["search=%25", ["A:MUG-2"]],
    ["sku=MUG-1&active=true&search=other", ["B:MUG-1"]],
    ["updated_since=2000-01-01", ["A:MUG-1", "A:MUG-2", "A:PLATE-1", "B:MUG-1"]],
    ["updated_since=2999-01-01T00:00:00Z", []],
    ["product_feed_id=999999999", []],
  ];
  for (const [query, expected] of cases) {
    it(`?${query || "(no filter)"} -> ${expected.join(", ") || "nothing"}`, async () => {
      const res = await call("GET", `/api/v1/products?${query}`, { creds });
      expect(res.status).toBe(200);
      expect(skus(res)).toEqual(expected);
      expect(res.json.total).toBe(expected.length);
    });
  }

  it("filters by feed", async () => {
    expect(skus(await call("GET", `/api/v1/products?product_feed_id=${feedB}`, { creds }))).toEqual(["B:MUG-1"]);
    expect(skus(await call("GET", `/api/v1/products?product_feed_id=${feedA}&active=true`, { creds }))).toEqual(["A:MUG-1", "A:PLATE-1"]);
  });

  it("finds products updated at or after a moment", async () => {
    const mug2 = byKey["A:MUG-2"];
    await env.DB.prepare("UPDATE products SET updated_at = ? WHERE id = ?").bind("2030-05-01T10:00:00.000000Z", mug2.id).run();
    expect(skus(await call("GET", "/api/v1/products?updated_since=2030-05-01T10:00:00Z", { creds }))).toEqual(["A:MUG-2"]);
    expect(skus(await call("GET", "/api/v1/products?updated_since=2030-05-01T12:00:00%2B02:00", { creds }))).toEqual(["A:MUG-2"]);
    expect(skus(await call("GET", "/api/v1/products?updated_since=2030-05-01T10:00:00.000001Z", { creds }))).toEqual([]);
    await env.DB.prepare("UPDATE products SET updated_at = ? WHERE id = ?").bind(mug2.updated_at, mug2.id).run();
  });

  it("answers 422 naming each invalid filter", async () => {
    const res = await call("GET", "/api/v1/products?ean13=12AB&product_feed_id=abc&active=maybe&updated_since=yesterday&search=" + "x".repeat(256), { creds });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: "Errors",
      errors: {
        ean13: ["The ean13 field must be 8 to 14 digits."],
        product_feed_id: ["The product_feed_id field must be an integer."],
        active: ["The active field must be true or false."],
        updated_since: ["The updated_since field must be a valid ISO 8601 date."],
        search: ["The search field must not be greater than 255 characters."],
      },
    });
  });

  it("treats an empty filter as absent", async () => {
    const res = await call("GET", "/api/v1/products?sku=&active=&search=", { creds });
    expect(res.json.total).toBe(4);
  });
});
