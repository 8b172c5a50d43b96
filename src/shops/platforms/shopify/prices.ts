// Prices into Shopify (docs/shops/shopify.md, "Stock and prices"): a variant's price is set with
// productVariantsBulkUpdate (shopify.dev/docs/api/admin-graphql/latest/mutations/productVariantsBulkUpdate),
// one call per product with all of its variants that get a price, the price as Shopify's decimal text
// in the shop's currency. Shopify applies the call per product; a refused variant fails in Shopify's
// words (its userErrors name the variant by index), the other products' prices are written.
import type { ShopHttp } from "../http";
import type { StockWriteResult } from "../platform";
import { priceText } from "../../stock/compute";
import { gql, type ShopifyConn, type UserError } from "./client";

const BULK_UPDATE = `mutation SetPrices($productId: ID!, $variants: [ProductVariantsBulkInput!]!) {
  productVariantsBulkUpdate(productId: $productId, variants: $variants) { productVariants { id price } userErrors { field message code } }
}`;

/** One price to write: the inventory item written for stock (the write's shopId), its variant and product. */
export type PriceWrite = { shopId: string; variantId: string; productId: string; price: number };

/** Writes the prices, a call per product; answers a result for each write (ok, or refused in Shopify's words). */
export async function writeShopifyPrices(conn: ShopifyConn, http: ShopHttp, writes: PriceWrite[]): Promise<StockWriteResult[]> {
  const byProduct = new Map<string, PriceWrite[]>();
  for (const w of writes) byProduct.set(w.productId, [...(byProduct.get(w.productId) ?? []), w]);
  const results: StockWriteResult[] = [];
  for (const [productId, group] of byProduct) {
    const variants = group.map((w) => ({ id: w.variantId, price: priceText(w.price) }));
    const res = await gql<{ productVariantsBulkUpdate: { userErrors: UserError[] } | null }>(conn, http, BULK_UPDATE, { productId, variants }, { mutation: true });
    const errors = res.dryRun ? [] : (res.data.productVariantsBulkUpdate?.userErrors ?? []);
    for (const [i, w] of group.entries()) {
      // ["variants", "<index>", "price"]: that variant's; no index: the whole product's.
      const own = errors.filter((e) => e.field?.[0] !== "variants" || e.field?.[1] === undefined || Number(e.field[1]) === i);
      if (own.length === 0) results.push({ shopId: w.shopId, ok: true });
      else results.push({ shopId: w.shopId, ok: false, missing: own.some((e) => e.code === "PRODUCT_VARIANT_DOES_NOT_EXIST" || e.code === "PRODUCT_DOES_NOT_EXIST"), reason: `Shopify refused the price: ${own.map((e) => e.message).join("; ")}` });
    }
  }
  return results;
}
