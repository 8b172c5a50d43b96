// /api/v1/product-feeds: set-up, listing, changes, removal, and the 422s of each.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createAccount, seedSupplier } from "../helpers/factories";
import { createFeed, feedCatalogue, pushFile } from "../helpers/catalogue";
import { BASE, call } from "../helpers/http";

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

describe("POST /api/v1/product-feeds", () => {
  it("creates a feed with its mapping, url and schedule, due at the next cron tick", async () => {
    const creds = await createAccount();
    const supplier = await seedSupplier(creds.accountId);
    const res = await call("POST", "/api/v1/product-feeds", {
      creds,
      body: {
        supplier_id: supplier.id,
        name: "Acme daily stock",
        format: "CSV",
        mapping: { sku: "Artikelnummer", ean13: " EAN ", purchase_price: "Inkoopprijs" },
        url: "https://feeds.acme.example/stock.csv",
        schedule: "6h",
        csv_delimiter: ";",
        encoding: "latin1",
      },
    });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      id: expect.any(Number),
      supplier_id: supplier.id,
      name: "Acme daily stock",
      format: "csv",
      mapping: { sku: "Artikelnummer", ean13: "EAN", purchase_price: "Inkoopprijs" },
      url: "https://feeds.acme.example/stock.csv",
      schedule: "6h",
      next_import_at: ISO,
      encoding: "windows-1252",
      csv_delimiter: ";",
      record_path: null,
      active: true,
      credentials: null,
      created_at: ISO,
      updated_at: ISO,
    });
    expect(res.json.next_import_at).toBe(res.json.created_at);

    const show = await call("GET", `/api/v1/product-feeds/${res.json.id}`, { creds });
    expect(show.status).toBe(200);
    expect(show.json).toEqual(res.json);
  });

  it("defaults to an empty mapping, no url, no schedule, active", async () => {
    const creds = await createAccount();
    const supplier = await seedSupplier(creds.accountId);
    const res = await call("POST", "/api/v1/product-feeds", { creds, body: { supplier_id: String(supplier.id), name: "Push only", format: "json" } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ mapping: {}, url: null, schedule: null, next_import_at: null, encoding: null, csv_delimiter: null, record_path: null, active: true });
  });

  it("answers 422 with every invalid field at once", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/product-feeds", {
      creds,
      body: {
        format: "xlsx",
        mapping: { sku: "", colour: "Kleur" },
        url: "gopher://feeds.example/x.csv",
        schedule: "5m",
        encoding: "klingon",
        csv_delimiter: "#",
        record_path: "products[0]",
        active: "maybe",
      },
    });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: "Errors",
      errors: {
        supplier_id: ["The supplier_id field is required."],
        name: ["The name field is required."],
        format: ["The selected format is invalid. Allowed values: csv, json, xml."],
        "mapping.sku": ["The mapping.sku field must be a column or field name."],
        "mapping.colour": ["The mapping.colour field is not a product field; use sku, ean13, name, purchase_price, stock_quantity, active."],
        url: ["The url field must be a valid URL."],
        schedule: ["The schedule field must be hourly, daily, weekly or an interval such as 30m, 6h or 2d (from 15m to 30d)."],
        encoding: ["The encoding field must be a character encoding such as utf-8 or windows-1252."],
        csv_delimiter: ['The selected csv_delimiter is invalid. Allowed values: ",", ";", "\\t", "|".'],
        record_path: ["The record_path field format is invalid."],
        active: ["The active field must be true or false."],
      },
    });
  });

  it("refuses a schedule without a url", async () => {
    const creds = await createAccount();
    const supplier = await seedSupplier(creds.accountId);
    const res = await call("POST", "/api/v1/product-feeds", { creds, body: { supplier_id: supplier.id, name: "x", format: "csv", schedule: "daily" } });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ message: "Errors", errors: { url: ["The url field is required when schedule is present."] } });
  });

  it("refuses another account's supplier as if it did not exist", async () => {
    const creds = await createAccount();
    const other = await createAccount();
    const foreign = await seedSupplier(other.accountId);
    for (const supplierId of [foreign.id, 999_999_999]) {
      const res = await call("POST", "/api/v1/product-feeds", { creds, body: { supplier_id: supplierId, name: "x", format: "csv" } });
      expect(res.status).toBe(422);
      expect(res.json).toEqual({ message: "Errors", errors: { supplier_id: ["The selected supplier_id is invalid."] } });
    }
  });
});

describe("GET /api/v1/product-feeds", () => {
  it("lists the account's feeds, ids ascending, in the orders list's pagination shape", async () => {
    const creds = await createAccount();
    const a = await createFeed(creds, { name: "A" });
    const b = await createFeed(creds, { name: "B" });
    const c = await createFeed(creds, { name: "C" });
    await createFeed(await createAccount(), { name: "Not mine" });

    const page2 = await call("GET", "/api/v1/product-feeds?per_page=2&page=2", { creds });
    expect(page2.status).toBe(200);
    const path = `${BASE}/api/v1/product-feeds`;
    expect(page2.json).toEqual({
      current_page: 2,
      data: [c.feed],
      links: { first: `${path}?per_page=2&page=1`, last: `${path}?per_page=2&page=2`, prev: `${path}?per_page=2&page=1`, next: null },
      meta: { current_page: 2, from: 3, last_page: 2, path, per_page: 2, to: 3, total: 3 },
    });
    const page1 = await call("GET", "/api/v1/product-feeds", { creds });
    expect(page1.json.data.map((f: { name: string }) => f.name)).toEqual(["A", "B", "C"]);
    expect(page1.json.data[0]).toEqual(a.feed);
    expect(page1.json.data[1]).toEqual(b.feed);
    expect(page1.json.meta.per_page).toBe(50);
  });

  it("answers 422 for a per_page that is not a number", async () => {
    const creds = await createAccount();
    const res = await call("GET", "/api/v1/product-feeds?per_page=lots", { creds });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ message: "Errors", errors: { per_page: ["The per_page field must be an integer of at least 1."] } });
  });
});

describe("PATCH /api/v1/product-feeds/{id}", () => {
  it("changes only the fields sent, clears optional ones with null, and reschedules", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { mapping: { sku: "Code" }, csv_delimiter: ";" });
    const scheduled = await call("PATCH", `/api/v1/product-feeds/${feed.id}`, {
      creds,
      body: { name: "Renamed", url: "https://feeds.example/all.csv", schedule: "hourly", csv_delimiter: null },
    });
    expect(scheduled.status).toBe(200);
    expect(scheduled.json).toEqual({
      ...feed,
      name: "Renamed",
      url: "https://feeds.example/all.csv",
      schedule: "hourly",
      next_import_at: ISO,
      csv_delimiter: null,
      updated_at: ISO,
    });
    expect(scheduled.json.next_import_at).toBe(scheduled.json.updated_at);

    const unscheduled = await call("PATCH", `/api/v1/product-feeds/${feed.id}`, { creds, body: { schedule: null, mapping: null, active: false } });
    expect(unscheduled.json).toMatchObject({ schedule: null, next_import_at: null, mapping: {}, active: false, url: "https://feeds.example/all.csv" });

    const noUrl = await call("PATCH", `/api/v1/product-feeds/${feed.id}`, { creds, body: { schedule: "daily", url: null } });
    expect(noUrl.status).toBe(422);
    expect(noUrl.json).toEqual({ message: "Errors", errors: { url: ["The url field is required when schedule is present."] } });
  });

  it("refuses to move a feed to another account's supplier", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    const foreign = await seedSupplier((await createAccount()).accountId);
    const res = await call("PATCH", `/api/v1/product-feeds/${feed.id}`, { creds, body: { supplier_id: foreign.id } });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ message: "Errors", errors: { supplier_id: ["The selected supplier_id is invalid."] } });
  });
});

describe("DELETE /api/v1/product-feeds/{id}", () => {
  it("removes the feed with its products and import history", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    const keep = await createFeed(creds);
    await pushFile(creds, feed.id, "sku,name\nA,Alpha\nB,Beta\n", "text/csv");
    await pushFile(creds, keep.feed.id, "sku,name\nA,Alpha\n", "text/csv");

    const res = await call("DELETE", `/api/v1/product-feeds/${feed.id}`, { creds });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await call("GET", `/api/v1/product-feeds/${feed.id}`, { creds })).status).toBe(404);
    const left = await env.DB.prepare(
      "SELECT (SELECT count(*) FROM products WHERE product_feed_id = ?1) AS products, (SELECT count(*) FROM product_imports WHERE product_feed_id = ?1) AS imports",
    )
      .bind(feed.id)
      .first();
    expect(left).toEqual({ products: 0, imports: 0 });
    expect(await feedCatalogue(creds, keep.feed.id)).toEqual({ A: { ean13: null, name: "Alpha", purchase_price: null, stock_quantity: null, active: 1 } });
  });
});

describe("the OpenAPI document", () => {
  it("describes every product-feed route", async () => {
    const doc = await call("GET", "/openapi.json");
    const routes = Object.entries(doc.json.paths as Record<string, object>)
      .filter(([path]) => path.startsWith("/api/v1/product"))
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(routes).toEqual([
      "GET /api/v1/products",
      "POST /api/v1/product-feeds",
      "GET /api/v1/product-feeds",
      "GET /api/v1/product-feeds/{id}",
      "PATCH /api/v1/product-feeds/{id}",
      "DELETE /api/v1/product-feeds/{id}",
      "PUT /api/v1/product-feeds/{id}/products",
      "POST /api/v1/product-feeds/{id}/import",
      "GET /api/v1/product-feeds/{id}/imports",
      "GET /api/v1/product-feeds/{id}/imports/{import}",
    ]);
  });
});
