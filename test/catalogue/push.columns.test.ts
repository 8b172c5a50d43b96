// A file whose names are not the feed's: the columns (CSV), keys (JSON) and elements (XML) an
// import did not map are reported on the import, as names and as a warning; a file that maps no
// product field but the SKU is refused, naming the names it expected, and changes nothing.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { createFeed, feedCatalogue, feedProducts, pushFile, pushJson } from "../helpers/catalogue";
import { call, type Credentials } from "../helpers/http";

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

const record = (feedId: number, fields: Record<string, unknown>) => ({
  id: expect.any(Number),
  product_feed_id: feedId,
  trigger: "push",
  replace: false,
  started_at: ISO,
  finished_at: ISO,
  created: 0,
  updated: 0,
  unchanged: 0,
  deactivated: 0,
  rejected: 0,
  error: null,
  rejections: [],
  ...fields,
});

/** A refused upload: 422 in the documented shape, the failed import in the history, no product changed. */
async function expectRefused(creds: Credentials, feedId: number, res: Awaited<ReturnType<typeof pushFile>>, error: string, fields: Record<string, unknown>) {
  const failed = record(feedId, { status: "failed", error, warnings: [], ...fields });
  expect(res.status).toBe(422);
  expect(res.json).toEqual({ message: "Errors", errors: { body: [error] }, import: failed });
  expect(await feedProducts(creds, feedId)).toEqual([]);
  const staged = await env.DB.prepare("SELECT count(*) AS n FROM product_import_rows WHERE import_id = ?").bind(res.json.import.id).first();
  expect(staged).toEqual({ n: 0 });
  const history = await call("GET", `/api/v1/product-feeds/${feedId}/imports/${res.json.import.id}`, { creds });
  expect(history.json).toEqual(failed);
}

describe("columns an import did not map", () => {
  it("CSV: a file with its own names for price and stock imports what it can and says what it dropped", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    const res = await pushFile(creds, feed.id, "sku;name;ean;price;stock\nA-1;Mug;8712345678906;4,95;12\nA-2;Plate;;1,50;0\nA-3;Bowl;;2,00;3\n", "text/csv");
    expect(res.status).toBe(200);
    const warning =
      "Not imported: the file's columns 'ean', 'price', 'stock' map to no product field. " +
      "Product fields the file left empty: ean13, purchase_price, stock_quantity, active; name their columns in the feed's mapping.";
    const succeeded = record(feed.id, {
      status: "succeeded",
      source: "upload (csv)",
      rows_read: 3,
      created: 3,
      unmapped_columns: ["ean", "price", "stock"],
      warnings: [warning],
    });
    expect(res.json).toEqual(succeeded);
    expect((await call("GET", `/api/v1/product-feeds/${feed.id}/imports`, { creds })).json.data).toEqual([succeeded]);
    expect((await feedCatalogue(creds, feed.id))["A-1"]).toEqual({ ean13: null, name: "Mug", purchase_price: null, stock_quantity: null, active: 1 });

    // Mapped, the same file fills every field and warns of nothing.
    await call("PATCH", `/api/v1/product-feeds/${feed.id}`, { creds, body: { mapping: { ean13: "ean", purchase_price: "price", stock_quantity: "stock" } } });
    const mapped = await pushFile(creds, feed.id, "sku;name;ean;price;stock\nA-1;Mug;8712345678906;4,95;12\n", "text/csv");
    expect(mapped.json).toMatchObject({ status: "succeeded", updated: 1, unmapped_columns: [], warnings: [] });
    expect((await feedCatalogue(creds, feed.id))["A-1"]).toEqual({ ean13: "8712345678906", name: "Mug", purchase_price: 4.95, stock_quantity: 12, active: 1 });
  });

  it("CSV: keeps the first 20 unmapped columns, and says when there were more", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    const names = (n: number) => Array.from({ length: n }, (_, i) => `extra${i + 1}`);
    const file = (n: number) => `sku,name,purchase_price,stock_quantity,ean13,active,${names(n).join(",")}\nA,Alpha,1,1,,1,${names(n).map(() => "x").join(",")}\n`;
    const twenty = await pushFile(creds, feed.id, file(20), "text/csv");
    expect(twenty.json.unmapped_columns).toEqual(names(20));
    expect(twenty.json.warnings).toEqual([`Not imported: the file's columns ${names(20).map((n) => `'${n}'`).join(", ")} map to no product field.`]);
    const more = await pushFile(creds, feed.id, file(21), "text/csv");
    expect(more.json.unmapped_columns).toEqual(names(20));
    expect(more.json.warnings).toEqual([`Not imported: the file's columns ${names(20).map((n) => `'${n}'`).join(", ")} and more map to no product field.`]);
  });

  it("JSON: a key beside a mapped dotted path, and keys the file's records add later, are reported", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { format: "json", record_path: "items", mapping: { purchase_price: "price.net", stock_quantity: "stock" } });
    const file = {
      items: [
        { sku: "J-1", name: "Jug", price: { net: 3.5, gross: 4.24 }, stock: 2, colour: "blue" },
        { sku: "J-2", name: "Jar", price: { net: 1.25, gross: 1.51 }, stock: 0, tags: ["glass"] },
      ],
    };
    const res = await pushFile(creds, feed.id, JSON.stringify(file), "application/json");
    expect(res.json).toEqual(
      record(feed.id, {
        status: "succeeded",
        source: "upload (json)",
        rows_read: 2,
        created: 2,
        unmapped_columns: ["price.gross", "colour", "tags"],
        warnings: ["Not imported: the file's fields 'price.gross', 'colour', 'tags' map to no product field. Product fields the file left empty: ean13, active; name their fields in the feed's mapping."],
      }),
    );
  });

  it("XML: child elements and attributes no product field reads are reported; elements that only hold others are not", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { format: "xml", mapping: { purchase_price: "pricing/purchase" } });
    const xml =
      '<products><product code="P-1"><sku>X-1</sku><name>Vase</name><pricing><purchase>7,50</purchase><retail>12,95</retail></pricing><stock qty="4"/></product></products>';
    const res = await pushFile(creds, feed.id, xml, "application/xml");
    expect(res.json).toEqual(
      record(feed.id, {
        status: "succeeded",
        source: "upload (xml)",
        rows_read: 1,
        created: 1,
        unmapped_columns: ["@code", "pricing/retail", "stock/@qty"],
        warnings: [
          "Not imported: the file's elements '@code', 'pricing/retail', 'stock/@qty' map to no product field. Product fields the file left empty: ean13, stock_quantity, active; name their elements in the feed's mapping.",
        ],
      }),
    );
  });

  it("a JSON array of product fields pushed to a CSV feed reports its other keys too", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { mapping: { name: "Omschrijving" } });
    const res = await pushJson(creds, feed.id, [{ sku: "L-1", name: "Lepel", price: 0.99 }]);
    expect(res.json).toMatchObject({ status: "succeeded", created: 1, unmapped_columns: ["price"] });
  });
});

describe("a file that maps no product field but the SKU is refused", () => {
  const EXPECTED = "Expected columns: 'sku', 'ean13', 'name', 'purchase_price', 'stock_quantity', 'active'; or set the feed's mapping to the file's own names.";

  it("CSV: `ean;price;stock`, and `sku;ean;price;stock`", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    const none = await pushFile(creds, feed.id, "ean;price;stock\n8712345678906;4,95;12\n", "text/csv");
    await expectRefused(
      creds,
      feed.id,
      none,
      `No column of the file maps to a product field other than sku, so its products would have no name, price or stock; nothing was changed. ${EXPECTED} Columns found: 'ean', 'price', 'stock'.`,
      { source: "upload (csv)", rows_read: 0, unmapped_columns: ["ean", "price", "stock"] },
    );
    const skuOnly = await pushFile(creds, feed.id, "sku;ean;price;stock\nA-1;8712345678906;4,95;12\n", "text/csv");
    await expectRefused(
      creds,
      feed.id,
      skuOnly,
      `No column of the file maps to a product field other than sku, so its products would have no name, price or stock; nothing was changed. ${EXPECTED} Columns found: 'sku', 'ean', 'price', 'stock'.`,
      { source: "upload (csv)", rows_read: 0, unmapped_columns: ["ean", "price", "stock"] },
    );
  });

  it("CSV: the expected names are the feed's mapping where it names them", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { mapping: { sku: "Artikelnummer", name: "Omschrijving" } });
    const res = await pushFile(creds, feed.id, "Artikelnummer;Prijs\n100-01;4,95\n", "text/csv");
    expect(res.json.errors.body).toEqual([
      "No column of the file maps to a product field other than sku, so its products would have no name, price or stock; nothing was changed. " +
        "Expected columns: 'Artikelnummer' (sku), 'ean13', 'Omschrijving' (name), 'purchase_price', 'stock_quantity', 'active'; or set the feed's mapping to the file's own names. " +
        "Columns found: 'Artikelnummer', 'Prijs'.",
    ]);
  });

  it("JSON and XML: records with a SKU and nothing the feed reads", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { format: "json" });
    const json = await pushFile(creds, feed.id, JSON.stringify([{ sku: "A", ean: "8712345678906", price: 4.95 }, { sku: "B", stock: 3 }]), "application/json");
    await expectRefused(
      creds,
      feed.id,
      json,
      "No field of the file maps to a product field other than sku, so its products would have no name, price or stock; nothing was changed. " +
        "Expected fields: 'sku', 'ean13', 'name', 'purchase_price', 'stock_quantity', 'active'; or set the feed's mapping to the file's own names. Fields found: 'sku', 'ean', 'price', 'stock'.",
      {
        source: "upload (json)",
        rows_read: 2,
        rejected: 2,
        rejections: [
          { line: 1, sku: "A", reason: "The field 'name' is required." },
          { line: 2, sku: "B", reason: "The field 'name' is required." },
        ],
        unmapped_columns: ["ean", "price", "stock"] },
    );
    const xml = await pushFile(creds, feed.id, "<products><product><sku>A</sku><title>Mug</title></product></products>", "application/xml");
    await expectRefused(
      creds,
      feed.id,
      xml,
      "No element of the file maps to a product field other than sku, so its products would have no name, price or stock; nothing was changed. " +
        "Expected elements: 'sku', 'ean13', 'name', 'purchase_price', 'stock_quantity', 'active'; or set the feed's mapping to the file's own names. Elements found: 'sku', 'title'.",
      { source: "upload (xml)", rows_read: 1, rejected: 1, rejections: [{ line: 1, sku: "A", reason: "The element 'name' is required." }], unmapped_columns: ["title"] },
    );
  });
});

describe("a rejected row names the file's own column", () => {
  it("as the header spells it (matched ignoring case), with the product field beside it when the names differ; the import's record says the same", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { mapping: { sku: "Artikel", name: "Omschrijving", purchase_price: "Inkoopprijs", stock_quantity: "Voorraad" } });
    const res = await pushFile(creds, feed.id, "ARTIKEL;omschrijving;INKOOPPRIJS;Voorraad;ean13\nA;Mok;gratis;3;\nB;;4,95;veel;8712345678900\nC;Bord;2,00;1;\n", "text/csv");
    const rejections = [
      { line: 2, sku: "A", reason: "The column 'INKOOPPRIJS' (purchase_price) must be a number." },
      {
        line: 3,
        sku: "B",
        reason: "The column 'ean13' has an invalid check digit. The column 'omschrijving' (name) is required. The column 'Voorraad' (stock_quantity) must be an integer.",
      },
    ];
    expect(res.json).toMatchObject({ status: "succeeded", rows_read: 3, created: 1, rejected: 2, rejections });
    const history = await call("GET", `/api/v1/product-feeds/${feed.id}/imports/${res.json.id}`, { creds });
    expect(history.json.rejections).toEqual(rejections);
  });
});
