// A 100,000-row feed streams through workerd into D1 within D1's limits, and a second run of the
// same file recognises every row as unchanged.
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { createFeed, productRowCount, pushFile } from "../helpers/catalogue";
import { call } from "../helpers/http";

const ROWS = 100_000;

/** A GTIN-13 with a valid check digit, leading zeros kept: the nth product's EAN. */
function ean(n: number): string {
  const body = String(n).padStart(12, "0");
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(body[i]) * (i % 2 === 0 ? 1 : 3);
  return body + String((10 - (sum % 10)) % 10);
}

/** The file as a stream of chunks, so neither side holds it whole. */
function csvStream(rows: number, price = (i: number) => `${(i % 1000) + 1},${String(i % 100).padStart(2, "0")}`) {
  let i = 0;
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i === 0) controller.enqueue(encoder.encode("\uFEFFsku;ean13;name;purchase_price;stock_quantity\r\n"));
      let chunk = "";
      for (const end = Math.min(i + 5000, rows); i < end; i++) {
        chunk += `SKU-${i};${ean(i)};"Product ${i}, size ""M""";${price(i)};${i % 50}\r\n`;
      }
      controller.enqueue(encoder.encode(chunk));
      if (i >= rows) controller.close();
    },
  });
}

describe("a 100,000-row import", () => {
  it("streams the whole file into the catalogue in chunks D1 accepts, and re-imports it as unchanged", { timeout: 180_000 }, async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);

    const started = Date.now();
    const first = await pushFile(creds, feed.id, csvStream(ROWS), "text/csv; charset=utf-8");
    const firstMs = Date.now() - started;
    console.log(`100k-row import: ${firstMs} ms`);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ status: "succeeded", rows_read: ROWS, created: ROWS, updated: 0, unchanged: 0, rejected: 0, rejections: [] });
    expect(await productRowCount(feed.id)).toBe(ROWS);

    const last = await call("GET", `/api/v1/products?product_feed_id=${feed.id}&page=1000`, { creds });
    expect(last.json.total).toBe(ROWS);
    expect(last.json.data[99]).toMatchObject({ sku: "SKU-99999", ean13: ean(99_999), name: 'Product 99999, size "M"', purchase_price: 1000.99, stock_quantity: 49, active: 1 });

    const againStarted = Date.now();
    const again = await pushFile(creds, feed.id, csvStream(ROWS), "text/csv", "?replace=true");
    console.log(`100k-row re-import (unchanged): ${Date.now() - againStarted} ms`);
    expect(again.json).toMatchObject({ status: "succeeded", rows_read: ROWS, created: 0, updated: 0, unchanged: ROWS, deactivated: 0 });
    // Well inside a Worker request: the budget here is generous for slow CI machines.
    expect(firstMs).toBeLessThan(120_000);
  });
});
