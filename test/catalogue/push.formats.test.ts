// PUT /api/v1/product-feeds/{id}/products with real-looking supplier files: CSV with a BOM,
// `;` separators, quoting and decimal commas; JSON; XML; gzip; a JSON array of product fields.
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { createFeed, feedCatalogue, feedProducts, pushFile, pushJson } from "../helpers/catalogue";
import { call } from "../helpers/http";

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

/** A Dutch wholesaler's export, as Excel writes it: BOM, `;`, decimal commas, CRLF, quotes. */
const DUTCH_CSV =
  "\uFEFFArtikelnummer;EAN;Omschrijving;Inkoopprijs;Voorraad;Actief\r\n" +
  '100-01;8712345678906;"Mok ""Delfts blauw""; 300 ml";4,95;12;ja\r\n' +
  "100-02;0012345678905;Schotel wit;1.234,50;0;nee\r\n" +
  '100-03;;"Theepot, 1,2 l\r\nmet zeefje";19,5;3;\r\n' +
  "\r\n" +
  "100-04;8712345678907;Lepel;0,99;5;1\r\n" +
  "100-05;40170725;Vork;abc;-2;1\r\n" +
  ";;;;;\r\n" +
  "100-06;12345670;Mes;2,10;7;misschien\r\n";

describe("CSV", () => {
  it("imports a `;`-separated Excel export with a BOM, quotes, a multi-line field and decimal commas", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, {
      mapping: { sku: "Artikelnummer", ean13: "EAN", name: "Omschrijving", purchase_price: "Inkoopprijs", stock_quantity: "Voorraad", active: "Actief" },
    });
    const res = await pushFile(creds, feed.id, DUTCH_CSV, "text/csv; charset=utf-8");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      id: expect.any(Number),
      product_feed_id: feed.id,
      trigger: "push",
      status: "succeeded",
      replace: false,
      source: "upload (csv)",
      started_at: ISO,
      finished_at: ISO,
      rows_read: 6,
      created: 3,
      updated: 0,
      unchanged: 0,
      deactivated: 0,
      rejected: 3,
      error: null,
      rejections: [
        // Named as the file names its columns (the feed's mapping), the product field beside each.
        { line: 7, sku: "100-04", reason: "The column 'EAN' (ean13) has an invalid check digit." },
        { line: 8, sku: "100-05", reason: "The column 'Inkoopprijs' (purchase_price) must be a number." },
        { line: 10, sku: "100-06", reason: "The column 'Actief' (active) must be true or false." },
      ],
      unmapped_columns: [],
      warnings: [],
    });
    expect(await feedCatalogue(creds, feed.id)).toEqual({
      "100-01": { ean13: "8712345678906", name: 'Mok "Delfts blauw"; 300 ml', purchase_price: 4.95, stock_quantity: 12, active: 1 },
      "100-02": { ean13: "0012345678905", name: "Schotel wit", purchase_price: 1234.5, stock_quantity: 0, active: 0 },
      "100-03": { ean13: null, name: "Theepot, 1,2 l\r\nmet zeefje", purchase_price: 19.5, stock_quantity: 3, active: 1 },
    });
  });

  it("imports a `,`-separated file whose columns carry the product field names, in any case", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    const csv = 'SKU,Name,EAN13,Purchase_Price,Stock_Quantity\nM-1,"Mug, blue",4006381333931,3.50,10\nM-2,Plate,96385074,"1,234.00",2\nM-3,24" monitor,,99,1\n';
    const res = await pushFile(creds, feed.id, csv, "text/csv");
    expect(res.json).toMatchObject({ status: "succeeded", rows_read: 3, created: 3, rejected: 0 });
    expect(await feedCatalogue(creds, feed.id)).toEqual({
      "M-1": { ean13: "4006381333931", name: "Mug, blue", purchase_price: 3.5, stock_quantity: 10, active: 1 },
      "M-2": { ean13: "96385074", name: "Plate", purchase_price: 1234, stock_quantity: 2, active: 1 },
      // A stray inch mark in an unquoted field is data, not a broken file.
      "M-3": { ean13: null, name: '24" monitor', purchase_price: 99, stock_quantity: 1, active: 1 },
    });
  });

  it("rejects a row whose field count differs from the header, and a repeated SKU", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    const csv = "sku;name;purchase_price\nA;Alpha;1,00\nB;Beta; 2,00;extra\nA;Alpha again;3,00\nC;Gamma\n";
    const res = await pushFile(creds, feed.id, csv, "text/csv");
    expect(res.json).toMatchObject({
      status: "succeeded",
      rows_read: 4,
      created: 1,
      rejected: 3,
      rejections: [
        { line: 3, sku: "B", reason: "The row has 4 fields where the header has 3; check its quoting and separators." },
        { line: 4, sku: "A", reason: "The sku A is already listed on line 2; the first one is kept." },
        { line: 5, sku: "C", reason: "The row has 2 fields where the header has 3; check its quoting and separators." },
      ],
    });
  });

  it("uses the feed's separator and encoding when set (windows-1252 from an old ERP)", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { csv_delimiter: "|", encoding: "windows-1252" });
    // "Crème brûlée-schaaltje|2,5" in windows-1252 bytes.
    const text = "sku|name|purchase_price\nK-1|Crème brûlée-schaaltje € 2|2,5\n";
    const bytes = Uint8Array.from([...text].map((ch) => (ch === "€" ? 0x80 : ch.charCodeAt(0))));
    const res = await pushFile(creds, feed.id, bytes, "text/csv");
    expect(res.json).toMatchObject({ status: "succeeded", created: 1 });
    expect((await feedCatalogue(creds, feed.id))["K-1"]).toEqual({ ean13: null, name: "Crème brûlée-schaaltje € 2", purchase_price: 2.5, stock_quantity: null, active: 1 });
  });

  it("accepts a gzipped file", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    const gz = await new Response(
      new Blob(["sku,name,stock_quantity\nZ-1,Zipped,4\n"]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer();
    const res = await pushFile(creds, feed.id, gz, "application/octet-stream");
    expect(res.json).toMatchObject({ status: "succeeded", source: "upload (csv)", created: 1 });
    expect(await feedCatalogue(creds, feed.id)).toEqual({ "Z-1": { ean13: null, name: "Zipped", purchase_price: null, stock_quantity: 4, active: 1 } });
  });

  it("upserts by SKU: a second upload updates what changed and leaves the rest untouched", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    await pushFile(creds, feed.id, "sku,name,purchase_price,stock_quantity\nA,Alpha,1.00,5\nB,Beta,2.00,5\n", "text/csv");
    const before = await feedProducts(creds, feed.id);

    const res = await pushFile(creds, feed.id, "sku,name,purchase_price,stock_quantity\nA,Alpha,1.00,5\nB,Beta,2.50,4\nC,Gamma,3.00,1\n", "text/csv");
    expect(res.json).toMatchObject({ status: "succeeded", rows_read: 3, created: 1, updated: 1, unchanged: 1, deactivated: 0 });
    const after = await feedProducts(creds, feed.id);
    expect(after.map((p) => p.id).slice(0, 2)).toEqual(before.map((p) => p.id));
    // Unchanged rows keep their updated_at, so updated_since only finds real changes.
    expect(after[0]).toEqual(before[0]);
    expect(after[1]).toEqual({ ...before[1], purchase_price: 2.5, stock_quantity: 4, updated_at: ISO });
    expect(after[1].updated_at > before[1].updated_at).toBe(true);
    expect(after[2]).toMatchObject({ sku: "C", name: "Gamma", project_id: creds.accountId, product_feed_id: feed.id });
  });
});

describe("JSON", () => {
  it("imports a JSON array of product fields pushed by the API (EANs as strings or numbers)", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds); // a CSV feed: a JSON push uses the field names themselves
    const res = await pushJson(creds, feed.id, [
      { sku: "J-1", ean13: "0012345678905", name: "Jar", purchase_price: 2.25, stock_quantity: 8, active: true },
      { sku: 1002, ean13: 12345678905, name: "Jug", purchase_price: "3,75", stock_quantity: "2" },
      { sku: "J-3", name: "Lid", purchase_price: -1 },
      "not an object",
      { sku: "J-5", name: { en: "Bowl" } },
    ]);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      source: "upload (json)",
      rows_read: 5,
      created: 2,
      rejected: 3,
      rejections: [
        { line: 3, sku: "J-3", reason: "The field 'purchase_price' must be at least 0." },
        { line: 4, sku: null, reason: "The record is not an object." },
        { line: 5, sku: "J-5", reason: "The field 'name' must be a string." },
      ],
    });
    expect(await feedCatalogue(creds, feed.id)).toEqual({
      "J-1": { ean13: "0012345678905", name: "Jar", purchase_price: 2.25, stock_quantity: 8, active: 1 },
      // The JSON number lost its leading zeros: the EAN-13 form is restored.
      "1002": { ean13: "0012345678905", name: "Jug", purchase_price: 3.75, stock_quantity: 2, active: 1 },
    });
  });

  it("reads a supplier's JSON file through the feed's record_path and mapping, nested keys included", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, {
      format: "json",
      record_path: "data.items",
      mapping: { sku: "id", ean13: "gtin", name: "title", purchase_price: "price.net", stock_quantity: "stock.available" },
    });
    const file = JSON.stringify({
      meta: { generated: "2026-11-22" },
      data: {
        items: [
          { id: "X-1", gtin: "8712345678906", title: "Kettle", price: { net: 12.4 }, stock: { available: 3 } },
          { id: "X-2", gtin: "8712345678913", title: "Toaster", price: { net: "19,90" }, stock: { available: 0 }, active: false },
        ],
      },
    });
    const res = await pushFile(creds, feed.id, `\uFEFF${file}`, "application/json");
    expect(res.json).toMatchObject({ status: "succeeded", source: "upload (json)", rows_read: 2, created: 2, rejected: 0 });
    expect(await feedCatalogue(creds, feed.id)).toEqual({
      "X-1": { ean13: "8712345678906", name: "Kettle", purchase_price: 12.4, stock_quantity: 3, active: 1 },
      "X-2": { ean13: "8712345678913", name: "Toaster", purchase_price: 19.9, stock_quantity: 0, active: 0 },
    });
  });
});

describe("XML", () => {
  it("reads product elements with child elements, attributes, CDATA and entities through the mapping", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, {
      format: "xml",
      record_path: "item",
      mapping: { sku: "@code", ean13: "barcode", name: "title", purchase_price: "pricing/purchase", stock_quantity: "stock/@qty", active: "status" },
    });
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<catalog xmlns:x="urn:x">
  <item code="P-1">
    <barcode>8712345678906</barcode>
    <title><![CDATA[Pan <28 cm> & lid]]></title>
    <pricing><purchase>24,50</purchase><retail>49,95</retail></pricing>
    <stock qty="7"/>
    <status>active</status>
  </item>
  <item code="P-2">
    <barcode>0012345678905</barcode>
    <title>Tongs &amp; spoon</title>
    <pricing><purchase>3.10</purchase></pricing>
    <stock qty="0"/>
    <status>inactive</status>
  </item>
  <item code="P-3">
    <barcode>12345</barcode>
    <title>Whisk</title>
  </item>
</catalog>`;
    const res = await pushFile(creds, feed.id, xml, "application/xml");
    expect(res.json).toMatchObject({
      status: "succeeded",
      source: "upload (xml)",
      rows_read: 3,
      created: 2,
      rejected: 1,
      rejections: [{ line: 17, sku: "P-3", reason: "The element 'barcode' (ean13) must be 8, 12, 13 or 14 digits." }],
    });
    expect(await feedCatalogue(creds, feed.id)).toEqual({
      "P-1": { ean13: "8712345678906", name: "Pan <28 cm> & lid", purchase_price: 24.5, stock_quantity: 7, active: 1 },
      "P-2": { ean13: "0012345678905", name: "Tongs & spoon", purchase_price: 3.1, stock_quantity: 0, active: 0 },
    });
  });

  it("takes <product> elements and the field names by default, and the encoding from the XML declaration", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { format: "xml" });
    const text = `<?xml version="1.0" encoding="ISO-8859-1"?><products><product><sku>Q-1</sku><name>Café-kopje</name><purchase_price>1,10</purchase_price></product></products>`;
    const bytes = Uint8Array.from([...text].map((ch) => ch.charCodeAt(0)));
    const res = await pushFile(creds, feed.id, bytes, "application/octet-stream");
    expect(res.json).toMatchObject({ status: "succeeded", created: 1 });
    expect(await feedCatalogue(creds, feed.id)).toEqual({ "Q-1": { ean13: null, name: "Café-kopje", purchase_price: 1.1, stock_quantity: null, active: 1 } });
  });
});

describe("the import history", () => {
  it("lists a feed's imports newest first, and shows one by id", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    const first = await pushFile(creds, feed.id, "sku,name\nA,Alpha\n", "text/csv");
    const second = await pushFile(creds, feed.id, "sku,name\nA,Alpha\nB,Beta\n", "text/csv", "?replace=true");
    const list = await call("GET", `/api/v1/product-feeds/${feed.id}/imports`, { creds });
    expect(list.status).toBe(200);
    expect(list.json.data).toEqual([second.json, first.json]);
    expect(list.json.meta).toMatchObject({ total: 2, per_page: 50, current_page: 1, from: 1, to: 2, last_page: 1 });
    const one = await call("GET", `/api/v1/product-feeds/${feed.id}/imports/${first.json.id}`, { creds });
    expect(one.json).toEqual(first.json);
    const missing = await call("GET", `/api/v1/product-feeds/${feed.id}/imports/999999`, { creds });
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ message: "Not Found", error: "Import with id '999999' not found" });
  });
});
