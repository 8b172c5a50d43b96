// Catalogue set-up through the public API: a supplier (seeded), a feed, pushed files.
import { env } from "cloudflare:workers";
import { call, type Credentials } from "./http";
import { seedSupplier, unique } from "./factories";

export async function createFeed(creds: Credentials, overrides: Record<string, unknown> = {}) {
  const supplier = await seedSupplier(creds.accountId);
  const res = await call("POST", "/api/v1/product-feeds", {
    creds,
    body: { supplier_id: supplier.id, name: unique("feed"), format: "csv", ...overrides },
  });
  if (res.status !== 201) throw new Error(`feed: ${res.status} ${res.text}`);
  return { feed: res.json, supplier };
}

/** PUT a file to the feed's products; a string or bytes body is sent as is with the given Content-Type. */
export function pushFile(creds: Credentials, feedId: number, body: BodyInit, contentType: string, query = "") {
  return call("PUT", `/api/v1/product-feeds/${feedId}/products${query}`, { creds, rawBody: body, headers: { "content-type": contentType } });
}

export function pushJson(creds: Credentials, feedId: number, rows: unknown, query = "") {
  return call("PUT", `/api/v1/product-feeds/${feedId}/products${query}`, { creds, body: rows });
}

/** Every product of the feed as the products API shows it (follows the pages). */
export async function feedProducts(creds: Credentials, feedId: number) {
  const all: any[] = [];
  for (let page = 1; ; page++) {
    const res = await call("GET", `/api/v1/products?product_feed_id=${feedId}&page=${page}`, { creds });
    if (res.status !== 200) throw new Error(`products: ${res.status} ${res.text}`);
    all.push(...res.json.data);
    if (res.json.next_page_url === null) return all;
  }
}

export type CatalogueEntry = { ean13: string | null; name: string; purchase_price: number | null; stock_quantity: number | null; active: number };

/** The product fields an import sets, keyed by SKU: what most assertions compare. */
export async function feedCatalogue(creds: Credentials, feedId: number): Promise<Record<string, CatalogueEntry>> {
  const rows = await feedProducts(creds, feedId);
  return Object.fromEntries(
    rows.map((p) => [p.sku, { ean13: p.ean13, name: p.name, purchase_price: p.purchase_price, stock_quantity: p.stock_quantity, active: p.active }]),
  );
}

export async function productRowCount(feedId: number): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM products WHERE product_feed_id = ?").bind(feedId).first<{ n: number }>();
  return row!.n;
}
