// Bad data never destroys good data: a file that cannot be parsed (even after thousands of good
// rows) changes no product, answers 422 and leaves a failed import record.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { createFeed, feedProducts, pushFile, pushJson } from "../helpers/catalogue";
import { call, type Credentials } from "../helpers/http";

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

let creds: Credentials;
let feedId: number;
let before: unknown[];

/** Every case starts from a feed with two good products, and must end with exactly those. */
beforeEach(async () => {
  creds = await createAccount();
  const { feed } = await createFeed(creds);
  feedId = feed.id;
  const seeded = await pushFile(creds, feedId, "sku,ean13,name,purchase_price,stock_quantity\nA,8712345678906,Alpha,1.50,10\nB,,Beta,2.50,20\n", "text/csv");
  expect(seeded.json).toMatchObject({ status: "succeeded", created: 2 });
  before = await feedProducts(creds, feedId);
});

async function expectFailedUpload(
  res: Awaited<ReturnType<typeof pushFile>>,
  error: string,
  counts: { rows_read: unknown; rejected: number; unmapped_columns?: string[] },
) {
  expect(res.status).toBe(422);
  expect(res.json).toEqual({
    message: "Errors",
    errors: { body: [error] },
    import: {
      id: expect.any(Number),
      product_feed_id: feedId,
      trigger: "push",
      status: "failed",
      replace: true,
      source: expect.stringMatching(/^upload \((csv|json|xml)\)$/),
      started_at: ISO,
      finished_at: ISO,
      rows_read: counts.rows_read,
      created: 0,
      updated: 0,
      unchanged: 0,
      deactivated: 0,
      rejected: counts.rejected,
      error,
      rejections: expect.any(Array),
      unmapped_columns: counts.unmapped_columns ?? [],
      warnings: [],
    },
  });
  // Nothing changed, nothing left behind, and the failure is in the history.
  expect(await feedProducts(creds, feedId)).toEqual(before);
  const staged = await env.DB.prepare("SELECT count(*) AS n FROM product_import_rows WHERE import_id = ?").bind(res.json.import.id).first();
  expect(staged).toEqual({ n: 0 });
  const history = await call("GET", `/api/v1/product-feeds/${feedId}/imports`, { creds });
  expect(history.json.data[0]).toEqual(res.json.import);
}

describe("a file that cannot be parsed changes no product", () => {
  it("CSV: an unclosed quote after 12,000 good rows (10,000 already staged) fails the whole file", async () => {
    let csv = "sku,name,purchase_price\n";
    for (let i = 0; i < 12_000; i++) csv += `N-${i},New ${i},1.00\n`;
    csv += 'A,"Alpha renamed,9.99\nB,Beta,0.01\n';
    const res = await pushFile(creds, feedId, csv, "text/csv", "?replace=true");
    await expectFailedUpload(res, "The CSV file could not be parsed: Quote Not Closed: the parsing is finished with an opening quote at line 12003", {
      rows_read: expect.any(Number),
      rejected: 0,
    });
    // Rows still queued in the parser when it fails are not counted: at least the staged ones are.
    expect(res.json.import.rows_read).toBeGreaterThanOrEqual(10_000);
    expect(res.json.import.rows_read).toBeLessThanOrEqual(12_000);
  });

  it("CSV: a column the mapping names is missing (the supplier renamed it)", async () => {
    await call("PATCH", `/api/v1/product-feeds/${feedId}`, { creds, body: { mapping: { purchase_price: "Inkoopprijs" } } });
    const res = await pushFile(creds, feedId, "sku;name;Prijs\nA;Alpha;0,00\n", "text/csv", "?replace=true");
    await expectFailedUpload(res, "The CSV header has no column 'Inkoopprijs' (purchase_price). Columns found: 'sku', 'name', 'Prijs'.", {
      rows_read: 0,
      rejected: 0,
      unmapped_columns: ["Prijs"],
    });
  });

  it("JSON: a truncated file", async () => {
    const res = await pushFile(creds, feedId, '[{"sku":"A","name":"Alpha"},{"sku":"B","na', "application/json", "?replace=true");
    expect(res.json.errors.body[0]).toMatch(/^The JSON file could not be parsed: /);
    await expectFailedUpload(res, res.json.errors.body[0], { rows_read: 1, rejected: 0 });
  });

  it("JSON: an object where the products array was expected", async () => {
    const res = await pushJson(creds, feedId, { products: [{ sku: "A", name: "Alpha" }] }, "?replace=true");
    await expectFailedUpload(
      res,
      'The JSON file is not an array of products; set the feed\'s record_path to the property that holds them (for example "products").',
      { rows_read: 0, rejected: 0 },
    );
  });

  it("XML: tags that do not match", async () => {
    const res = await pushFile(creds, feedId, "<products><product><sku>A</sku><name>Alpha</product></products>", "application/xml", "?replace=true");
    await expectFailedUpload(res, "The XML file could not be parsed: 1:52: unexpected close tag.", { rows_read: 0, rejected: 0 });
  });

  it("bytes that are not UTF-8 when no other encoding is named", async () => {
    const bytes = Uint8Array.from([...new TextEncoder().encode("sku,name\nA,Caf"), 0xe9, 0x0a]);
    const res = await pushFile(creds, feedId, bytes, "text/csv", "?replace=true");
    await expectFailedUpload(res, "The file is not valid utf-8; name its encoding (the feed's encoding, or the charset of its Content-Type).", {
      rows_read: 0,
      rejected: 0,
    });
  });

  it("a file with a header and no rows, and an empty body", async () => {
    const headerOnly = await pushFile(creds, feedId, "sku,name\n", "text/csv", "?replace=true");
    await expectFailedUpload(headerOnly, "The file contains no product records; nothing was changed.", { rows_read: 0, rejected: 0 });
    const empty = await pushFile(creds, feedId, "", "text/csv", "?replace=true");
    expect(empty.status).toBe(422);
    expect(empty.json.errors.body).toEqual([expect.stringMatching(/^The (request body is empty|file contains no product records); nothing was changed\.$/)]);
    expect(await feedProducts(creds, feedId)).toEqual(before);
  });

  it("a file none of whose rows is valid (a replace would otherwise deactivate everything)", async () => {
    const res = await pushFile(creds, feedId, "sku,name,ean13\nX,,123\nY,Yak,8712345678900\n", "text/csv", "?replace=true");
    await expectFailedUpload(res, "None of the file's 2 rows is valid; nothing was changed.", { rows_read: 2, rejected: 2 });
    expect(res.json.import.rejections).toEqual([
      { line: 2, sku: "X", reason: "The column 'ean13' must be 8, 12, 13 or 14 digits. The column 'name' is required." },
      { line: 3, sku: "Y", reason: "The column 'ean13' has an invalid check digit." },
    ]);
  });
});

describe("refused uploads", () => {
  it("answers 415 for a Content-Type that is not a feed format, and records no import", async () => {
    const res = await pushFile(creds, feedId, "sku=A&name=Alpha", "application/x-www-form-urlencoded");
    expect(res.status).toBe(415);
    expect(res.json).toEqual({
      message: "Unsupported Media Type",
      error: "Send the file as text/csv, application/json or application/xml (or application/octet-stream for the feed's own format).",
    });
    const history = await call("GET", `/api/v1/product-feeds/${feedId}/imports`, { creds });
    expect(history.json.meta.total).toBe(1);
  });

  it("answers 409 while another import of the feed is running", async () => {
    await env.DB.prepare(
      "INSERT INTO product_imports (account_id, product_feed_id, \"trigger\", status, \"replace\", source, started_at, rejections) VALUES (?, ?, 'manual', 'running', 1, 'x', ?, '[]')",
    )
      .bind(creds.accountId, feedId, new Date().toISOString().replace("Z", "000Z"))
      .run();
    const res = await pushFile(creds, feedId, "sku,name\nA,Changed\n", "text/csv");
    expect(res.status).toBe(409);
    expect(res.json).toEqual({ message: "Conflict", error: `An import of product feed '${feedId}' is already running; try again when it has finished.` });
    expect(await feedProducts(creds, feedId)).toEqual(before);
  });

  it("answers 422 for a replace flag that is not a boolean", async () => {
    const res = await pushFile(creds, feedId, "sku,name\nA,Alpha\n", "text/csv", "?replace=yes please");
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ message: "Errors", errors: { replace: ["The replace field must be true or false."] } });
  });

  it("accepts uploads over the API's 1 MiB body limit", async () => {
    let csv = "sku,name\n";
    for (let i = 0; csv.length < 1.5 * 1024 * 1024; i++) csv += `BIG-${i},A product name long enough to fill the file quickly ${i}\n`;
    const res = await pushFile(creds, feedId, csv, "text/csv");
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("succeeded");
  });
});
