// The reads the official clients make, with the headers they send: Shopware's connection test and
// product pages (dropday-io/Shopware DropdayApiClient, Symfony HttpClient) and the Laravel
// client's order list with its source filter and single order (dropday-io/laravel, Laravel's Http).
import { describe, expect, it } from "vitest";
import { createAccount, createOrder, seedProducts } from "../helpers/factories";
import { authHeaders, call, type Credentials } from "../helpers/http";

/** Both clients put the JSON Content-Type on every request, GETs included, as their request() does. */
const shopwareHeaders = (creds: Credentials) => ({
  "Content-Type": "application/json",
  Accept: "application/json",
  "api-key": creds.apiKey,
  "account-id": String(creds.accountId),
  "User-Agent": "Symfony HttpClient (Curl)",
  "Accept-Encoding": "gzip",
});
const laravelHeaders = (creds: Credentials) => ({
  "api-key": creds.apiKey,
  "account-id": String(creds.accountId),
  "Content-Type": "application/json",
  Accept: "application/json",
  "User-Agent": "GuzzleHttp/7",
});

describe("Shopware", () => {
  it("passes its connection test, GET /api/v1", async () => {
    const creds = await createAccount();
    const res = await call("GET", "/api/v1", { headers: shopwareHeaders(creds) });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: creds.accountId, name: creds.name });
    const wrong = await call("GET", "/api/v1", { headers: { ...shopwareHeaders(creds), "api-key": "oik_wrong" } });
    expect(wrong.status).toBe(401);
  });

  it("reads the catalogue page by page, GET /api/v1/products?page=N", async () => {
    const creds = await createAccount();
    const products = await seedProducts(creds.accountId, 101);
    const first = await call("GET", "/api/v1/products?page=1", { headers: shopwareHeaders(creds) });
    const second = await call("GET", "/api/v1/products?page=2", { headers: shopwareHeaders(creds) });
    expect([first.status, first.json.total, first.json.data.length, first.json.current_page]).toEqual([200, 101, 100, 1]);
    expect(second.json.data.map((p: any) => p.sku)).toEqual([products[100].sku]);
    expect(second.json.next_page_url).toBeNull();
  });
});

describe("the Laravel client", () => {
  it("lists orders filtered by source (getOrders), and fetches one (getOrder)", async () => {
    const creds = await createAccount();
    const mine = await createOrder(creds, { source: "Laravel Shop" });
    await createOrder(creds, { source: "Other Shop" });
    const list = await call("GET", `/api/v1/orders?source=${encodeURIComponent("laravel shop")}&per_page=10&page=1`, { headers: laravelHeaders(creds) });
    expect(list.status).toBe(200);
    expect(list.json.data.map((o: any) => [o.reference, o.source])).toEqual([[mine.reference, "Laravel Shop"]]);
    expect(list.json.links.first).toBe("http://orders.test/api/v1/orders?source=laravel+shop&per_page=10&page=1");
    const one = await call("GET", `/api/v1/orders/${mine.reference}`, { headers: laravelHeaders(creds) });
    expect([one.status, one.json.external_id]).toEqual([200, mine.payload.external_id]);
  });

  it("reads the catalogue with its headers too", async () => {
    const creds = await createAccount();
    await seedProducts(creds.accountId, 3);
    const res = await call("GET", "/api/v1/products", { headers: laravelHeaders(creds) });
    expect([res.status, res.json.total]).toEqual([200, 3]);
    expect((await call("GET", "/api/v1/products", { headers: { ...authHeaders(creds) } })).json.total).toBe(3);
  });
});
