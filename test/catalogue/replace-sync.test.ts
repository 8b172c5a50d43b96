// ?replace=true: a full sync deactivates the feed's products the upload no longer lists, and only those.
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { createFeed, feedCatalogue, feedProducts, pushFile } from "../helpers/catalogue";

describe("PUT /api/v1/product-feeds/{id}/products?replace=true", () => {
  it("deactivates what the upload no longer lists, upserts the rest, and leaves other feeds alone", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    const other = await createFeed(creds);
    await pushFile(creds, feed.id, "sku,name,stock_quantity\nA,Alpha,1\nB,Beta,2\nC,Gamma,3\n", "text/csv");
    await pushFile(creds, other.feed.id, "sku,name,stock_quantity\nB,Beta elsewhere,9\n", "text/csv");
    const before = await feedProducts(creds, feed.id);

    const res = await pushFile(creds, feed.id, "sku,name,stock_quantity\nA,Alpha,1\nC,Gamma,30\nD,Delta,4\n", "text/csv", "?replace=true");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: "succeeded", replace: true, rows_read: 3, created: 1, updated: 1, unchanged: 1, deactivated: 1, rejected: 0 });
    expect(await feedCatalogue(creds, feed.id)).toEqual({
      A: { ean13: null, name: "Alpha", purchase_price: null, stock_quantity: 1, active: 1 },
      B: { ean13: null, name: "Beta", purchase_price: null, stock_quantity: 2, active: 0 },
      C: { ean13: null, name: "Gamma", purchase_price: null, stock_quantity: 30, active: 1 },
      D: { ean13: null, name: "Delta", purchase_price: null, stock_quantity: 4, active: 1 },
    });
    const b = (await feedProducts(creds, feed.id)).find((p) => p.sku === "B");
    expect(b.updated_at > before[1].updated_at).toBe(true);
    expect(await feedCatalogue(creds, other.feed.id)).toEqual({ B: { ean13: null, name: "Beta elsewhere", purchase_price: null, stock_quantity: 9, active: 1 } });
  });

  it("without replace, an upload deactivates nothing; a product listed again is active again", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    await pushFile(creds, feed.id, "sku,name\nA,Alpha\nB,Beta\n", "text/csv");
    await pushFile(creds, feed.id, "sku,name\nA,Alpha\n", "text/csv", "?replace=true");

    const merge = await pushFile(creds, feed.id, "sku,name\nC,Gamma\n", "text/csv", "?replace=false");
    expect(merge.json).toMatchObject({ replace: false, created: 1, deactivated: 0 });
    const back = await pushFile(creds, feed.id, "sku,name\nB,Beta\n", "text/csv");
    expect(back.json).toMatchObject({ created: 0, updated: 1, deactivated: 0 });
    expect(Object.fromEntries(Object.entries(await feedCatalogue(creds, feed.id)).map(([sku, p]) => [sku, p.active]))).toEqual({ A: 1, B: 1, C: 1 });
  });

  it("keeps products whose rows were rejected: a bad row is not an unlisted product", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    await pushFile(creds, feed.id, "sku,name,ean13\nA,Alpha,8712345678906\nB,Beta,\nC,Gamma,\n", "text/csv");
    const before = await feedProducts(creds, feed.id);
    const res = await pushFile(creds, feed.id, "sku,name,ean13\nA,Alpha,8712345678900\nB,Beta,\n", "text/csv", "?replace=true");
    expect(res.json).toMatchObject({
      rejected: 1,
      unchanged: 1,
      deactivated: 1,
      rejections: [{ line: 2, sku: "A", reason: "The column 'ean13' has an invalid check digit." }],
    });
    // A keeps its last good data and stays active; only C, which the file no longer lists, goes.
    const after = await feedProducts(creds, feed.id);
    expect(after[0]).toEqual(before[0]);
    expect(after[1]).toEqual(before[1]);
    expect(after[2]).toMatchObject({ sku: "C", active: 0 });
  });

  it("a SKU rejected on one line and valid on a later one is imported from the valid line", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    const res = await pushFile(creds, feed.id, "sku,name,stock_quantity\nA,Alpha,lots\nA,Alpha,3\n", "text/csv", "?replace=true");
    expect(res.json).toMatchObject({ status: "succeeded", rows_read: 2, created: 1, rejected: 1 });
    expect(await feedCatalogue(creds, feed.id)).toEqual({ A: { ean13: null, name: "Alpha", purchase_price: null, stock_quantity: 3, active: 1 } });
  });
});
