// GET /api/v1/products: the account's catalogue in Laravel's paginate() shape, 100 per page.
import { describe, expect, it } from "vitest";
import { createAccount, seedProductFeed, seedProducts, type SeededProduct } from "../helpers/factories";
import { BASE, call } from "../helpers/http";

const PATH = `${BASE}/api/v1/products`;

const present = (p: SeededProduct) => ({
  id: p.id,
  project_id: p.account_id,
  product_feed_id: p.product_feed_id,
  sku: p.sku,
  ean13: p.ean13,
  name: p.name,
  purchase_price: p.purchase_price,
  stock_quantity: p.stock_quantity,
  active: p.active,
  created_at: p.created_at,
  updated_at: p.updated_at,
});

describe("GET /api/v1/products", () => {
  it("answers Laravel's paginate() shape exactly, 100 per page, ids ascending", async () => {
    const creds = await createAccount();
    const products = await seedProducts(creds.accountId, 250);
    expect(products).toHaveLength(250);

    const res = await call("GET", "/api/v1/products", { creds });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual([
      "current_page", "data", "first_page_url", "from", "last_page", "last_page_url",
      "next_page_url", "path", "per_page", "prev_page_url", "to", "total",
    ]);
    expect(res.json).toEqual({
      current_page: 1,
      data: products.slice(0, 100).map(present),
      first_page_url: `${PATH}?page=1`,
      from: 1,
      last_page: 3,
      last_page_url: `${PATH}?page=3`,
      next_page_url: `${PATH}?page=2`,
      path: PATH,
      per_page: 100,
      prev_page_url: null,
      to: 100,
      total: 250,
    });
    expect(res.json.data[0]).toEqual({
      id: products[0].id,
      project_id: creds.accountId,
      product_feed_id: products[0].product_feed_id,
      sku: "SKU-1",
      ean13: "0000000000001",
      name: "Product 1",
      purchase_price: 1.25,
      stock_quantity: 2,
      active: 1,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
    });
    expect(res.json.data[1].active).toBe(0);

    const last = await call("GET", "/api/v1/products?page=3", { creds });
    expect(last.json).toEqual({
      current_page: 3,
      data: products.slice(200).map(present),
      first_page_url: `${PATH}?page=1`,
      from: 201,
      last_page: 3,
      last_page_url: `${PATH}?page=3`,
      next_page_url: null,
      path: PATH,
      per_page: 100,
      prev_page_url: `${PATH}?page=2`,
      to: 250,
      total: 250,
    });
  });

  it("walks every product once, ids ascending, across feeds", async () => {
    const creds = await createAccount();
    const feedA = await seedProductFeed(creds.accountId);
    const feedB = await seedProductFeed(creds.accountId);
    const a = await seedProducts(creds.accountId, 120, feedA.id);
    const b = await seedProducts(creds.accountId, 30, feedB.id);
    const ids: number[] = [];
    for (let page = 1; page <= 2; page++) {
      const res = await call("GET", `/api/v1/products?page=${page}`, { creds });
      ids.push(...res.json.data.map((p: any) => p.id));
    }
    expect(ids).toEqual([...a, ...b].map((p) => p.id).sort((x, y) => x - y));
  });

  it("reads deep pages from the nearer end: the same products, the exact total, unfiltered and by feed", async () => {
    const creds = await createAccount();
    const feedA = await seedProductFeed(creds.accountId);
    const feedB = await seedProductFeed(creds.accountId);
    const a = await seedProducts(creds.accountId, 1_150, feedA.id);
    const b = await seedProducts(creds.accountId, 1_270, feedB.id);
    const all = [...a, ...b].map((p) => p.id).sort((x, y) => x - y);
    const pageOf = async (query: string) => {
      const res = await call("GET", `/api/v1/products?${query}`, { creds });
      expect(res.status).toBe(200);
      return { total: res.json.total, last_page: res.json.last_page, from: res.json.from, to: res.json.to, ids: res.json.data.map((p: any) => p.id) };
    };
    const slice = (ids: number[], page: number) => {
      const chunk = ids.slice((page - 1) * 100, page * 100);
      return { total: ids.length, last_page: Math.ceil(ids.length / 100), from: chunk.length ? (page - 1) * 100 + 1 : null, to: chunk.length ? (page - 1) * 100 + chunk.length : null, ids: chunk };
    };
    // Page 11 starts at offset 1,000 (read forward: before the middle), 13 and 25 past it, 26 past the last.
    for (const page of [1, 11, 12, 13, 24, 25, 26]) expect(await pageOf(`page=${page}`)).toEqual(slice(all, page));
    for (const page of [11, 12, 13, 14]) {
      expect(await pageOf(`product_feed_id=${feedB.id}&page=${page}`)).toEqual(slice(b.map((p) => p.id), page));
    }
  });

  it("shows only the account's own products", async () => {
    const mine = await createAccount();
    const theirs = await createAccount();
    const own = await seedProducts(mine.accountId, 3);
    await seedProducts(theirs.accountId, 5);
    const res = await call("GET", "/api/v1/products", { creds: mine });
    expect(res.json.total).toBe(3);
    expect(res.json.data).toEqual(own.map(present));
    expect(res.json.data.every((p: any) => p.project_id === mine.accountId)).toBe(true);
  });

  it("answers an empty catalogue with last_page 1 and from/to null", async () => {
    const creds = await createAccount();
    const res = await call("GET", "/api/v1/products", { creds });
    expect(res.json).toEqual({
      current_page: 1,
      data: [],
      first_page_url: `${PATH}?page=1`,
      from: null,
      last_page: 1,
      last_page_url: `${PATH}?page=1`,
      next_page_url: null,
      path: PATH,
      per_page: 100,
      prev_page_url: null,
      to: null,
      total: 0,
    });
  });

  it("treats a bad page as page 1 and a page past the last as empty", async () => {
    const creds = await createAccount();
    const products = await seedProducts(creds.accountId, 3);
    for (const page of ["0", "-2", "x", ""]) {
      const res = await call("GET", `/api/v1/products?page=${page}`, { creds });
      expect(res.json.current_page, `page=${page}`).toBe(1);
      expect(res.json.data).toEqual(products.map(present));
    }
    const past = await call("GET", "/api/v1/products?page=4", { creds });
    expect(past.json).toMatchObject({ current_page: 4, data: [], from: null, to: null, last_page: 1, total: 3, next_page_url: null, prev_page_url: `${PATH}?page=3` });
  });

  it("ignores per_page: the page size is fixed, and keeps other parameters in the links", async () => {
    const creds = await createAccount();
    await seedProducts(creds.accountId, 101);
    const res = await call("GET", "/api/v1/products?per_page=5&page=1", { creds });
    expect(res.json.data).toHaveLength(100);
    expect(res.json.per_page).toBe(100);
    expect(res.json.next_page_url).toBe(`${PATH}?per_page=5&page=2`);
  });
});
