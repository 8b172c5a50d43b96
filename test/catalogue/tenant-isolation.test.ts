// No account ever sees or touches another account's feeds, imports or products: another
// account's feed id answers 404 exactly like an unknown one, on every route.
import { describe, expect, it, vi } from "vitest";
import { createAccount } from "../helpers/factories";
import { createFeed, feedProducts, pushFile } from "../helpers/catalogue";
import { call } from "../helpers/http";

describe("tenant isolation of the catalogue", () => {
  it("answers 404 for another account's feed on every feed route, and changes nothing", async () => {
    const owner = await createAccount();
    const intruder = await createAccount();
    const { feed } = await createFeed(owner, { url: "https://feeds.supplier.test/private.csv" });
    const pushed = await pushFile(owner, feed.id, "sku,name\nA,Alpha\n", "text/csv");
    const before = await feedProducts(owner, feed.id);
    const fetchSpy = vi.spyOn(globalThis, "fetch");

    const attempts: [string, string, Record<string, unknown>?][] = [
      ["GET", `/api/v1/product-feeds/${feed.id}`],
      ["PATCH", `/api/v1/product-feeds/${feed.id}`, { body: { name: "Mine now" } }],
      ["DELETE", `/api/v1/product-feeds/${feed.id}`],
      ["PUT", `/api/v1/product-feeds/${feed.id}/products`, { rawBody: "sku,name\nA,Hijacked\n", headers: { "content-type": "text/csv" } }],
      ["POST", `/api/v1/product-feeds/${feed.id}/import`],
      ["GET", `/api/v1/product-feeds/${feed.id}/imports`],
      ["GET", `/api/v1/product-feeds/${feed.id}/imports/${pushed.json.id}`],
    ];
    for (const [method, path, opts] of attempts) {
      for (const id of [String(feed.id), "999999999", "not-a-number"]) {
        const res = await call(method, path.replace(`/${feed.id}`, `/${id}`), { creds: intruder, ...opts });
        expect(res.status, `${method} ${path} as ${id}`).toBe(404);
        expect(res.json).toEqual({ message: "Not Found", error: `Product feed with id '${id}' not found` });
      }
    }
    expect(fetchSpy).not.toHaveBeenCalled();
    vi.restoreAllMocks();

    expect((await call("GET", "/api/v1/product-feeds", { creds: intruder })).json.meta.total).toBe(0);
    expect((await call("GET", "/api/v1/products", { creds: intruder })).json.total).toBe(0);
    expect((await call("GET", `/api/v1/products?product_feed_id=${feed.id}`, { creds: intruder })).json.total).toBe(0);
    const mine = await call("GET", `/api/v1/product-feeds/${feed.id}`, { creds: owner });
    expect(mine.json).toEqual(feed);
    expect(await feedProducts(owner, feed.id)).toEqual(before);
  });

  it("keeps the same SKU in two accounts apart", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const feedA = (await createFeed(a)).feed.id;
    const feedB = (await createFeed(b)).feed.id;
    await pushFile(a, feedA, "sku,name\nSAME,From A\n", "text/csv");
    await pushFile(b, feedB, "sku,name\nSAME,From B\n", "text/csv", "?replace=true");
    const listA = await call("GET", "/api/v1/products", { creds: a });
    const listB = await call("GET", "/api/v1/products", { creds: b });
    expect(listA.json.data.map((p: { name: string; project_id: number }) => [p.name, p.project_id])).toEqual([["From A", a.accountId]]);
    expect(listB.json.data.map((p: { name: string; project_id: number }) => [p.name, p.project_id])).toEqual([["From B", b.accountId]]);
  });
});
