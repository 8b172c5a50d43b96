// Stock into Shopify (docs/shops/shopify.md, "Stock"): variants found by SKU (or barcode for
// match_by ean13) through productVariants; each mapped product is the variant's inventory item
// (shopId, what inventorySetQuantities writes), its variant kept as parentId. A write is
// inventorySetQuantities (shopify.dev/docs/api/admin-graphql/latest/mutations/inventorySetQuantities)
// of the `available` quantities at the connection's location, at most 250 per call, each with the
// compare value Shopify asks for (changeFromQuantity), read just before. A stale compare (someone
// sold or counted meanwhile) is read again and written again, never overwritten blindly.
// Prices, with price_sync on, go with the stock: ./prices.ts.
import { ShopError, type ShopHttp } from "../http";
import type { ShopStockProduct, ShopStockValue, StockMatchBy, StockPlatform, StockWriteResult } from "../platform";
import type { Credentials, Settings } from "../settings";
import { decimalToUnits } from "../../../lib/money";
import { gql, toGid, type ShopifyConn, type UserError } from "./client";
import { writeShopifyPrices } from "./prices";

const PAGE = 100;
const STALE_RETRIES = 3;
const REASON = "correction";

type VariantJson = { id: string; sku: string | null; barcode: string | null; inventoryItem: { id: string } };
const VARIANTS = `query Variants($first: Int!, $after: String, $query: String) {
  productVariants(first: $first, after: $after, query: $query) { nodes { id sku barcode inventoryItem { id } } pageInfo { hasNextPage endCursor } }
}`;
const PRIMARY_LOCATION = `query Location { location { id } }`;
const LEVELS = `query Levels($ids: [ID!]!, $location: ID!) {
  nodes(ids: $ids) { ... on InventoryItem { id variant { id price product { id } } inventoryLevel(locationId: $location) { quantities(names: ["available"]) { name quantity } } } }
}`;
const SET = `mutation SetStock($input: InventorySetQuantitiesInput!) {
  inventorySetQuantities(input: $input) { inventoryAdjustmentGroup { id } userErrors { field message code } }
}`;

const keyOf = (v: VariantJson, matchBy: StockMatchBy) => ((matchBy === "sku" ? v.sku : v.barcode) ?? "").trim();
const mapped = (list: VariantJson[], matchBy: StockMatchBy): ShopStockProduct[] =>
  list.flatMap((v) => (keyOf(v, matchBy) ? [{ key: keyOf(v, matchBy), shopId: v.inventoryItem.id, parentId: v.id }] : []));

async function variants(conn: ShopifyConn, http: ShopHttp, query: string | null): Promise<VariantJson[]> {
  const out: VariantJson[] = [];
  let after: string | null = null;
  for (;;) {
    const { data }: { data: { productVariants: { nodes: VariantJson[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } } = await gql(conn, http, VARIANTS, { first: PAGE, after, query });
    out.push(...data.productVariants.nodes);
    if (!data.productVariants.pageInfo.hasNextPage || !data.productVariants.pageInfo.endCursor) return out;
    after = data.productVariants.pageInfo.endCursor;
  }
}

async function locationOf(conn: ShopifyConn, http: ShopHttp): Promise<string> {
  if (conn.settings.location_id) return toGid("Location", conn.settings.location_id);
  const { data } = await gql<{ location: { id: string } | null }>(conn, http, PRIMARY_LOCATION);
  if (!data.location) throw new ShopError("invalid", "Shopify answered without a primary location: set settings.location_id to the location stock is kept at");
  return data.location.id;
}

/** What an inventory item holds now: its available quantity at the location (null: not stocked there), its variant's price, variant and product. */
type Level = { quantity: number | null; price: number | null; variantId: string; productId: string };
type LevelJson = { id: string; variant: { id: string; price: string; product: { id: string } }; inventoryLevel: { quantities: { name: string; quantity: number }[] } | null };

/** Each inventory item's level; an id Shopify no longer has is not in the map. */
async function levels(conn: ShopifyConn, http: ShopHttp, location: string, ids: string[]): Promise<Map<string, Level>> {
  const { data } = await gql<{ nodes: (LevelJson | null)[] }>(conn, http, LEVELS, { ids, location });
  const out = new Map<string, Level>();
  for (const n of data.nodes ?? []) {
    if (!n?.id) continue;
    const quantity = n.inventoryLevel?.quantities.find((q) => q.name === "available")?.quantity ?? null;
    out.set(n.id, { quantity, price: decimalToUnits(n.variant.price), variantId: n.variant.id, productId: n.variant.product.id });
  }
  return out;
}

const search = (field: "sku" | "barcode", keys: string[]) => keys.map((k) => `${field}:"${k.replace(/["\\]/g, "")}"`).join(" OR ");

export const shopifyStock: StockPlatform<Credentials<"shopify">, Settings<"shopify">> = {
  batchLimit: 250,

  listProducts: async (conn, http, matchBy) => mapped(await variants(conn, http, null), matchBy),

  async findProducts(conn, http, matchBy, keys) {
    const found: ShopStockProduct[] = [];
    for (let i = 0; i < keys.length; i += 25) found.push(...mapped(await variants(conn, http, search(matchBy === "sku" ? "sku" : "barcode", keys.slice(i, i + 25))), matchBy));
    return found.filter((p) => keys.includes(p.key));
  },

  async readStock(conn, http, products) {
    const location = await locationOf(conn, http);
    const now = await levels(conn, http, location, products.map((p) => p.shopId));
    return products.map((p): ShopStockValue => ({ shopId: p.shopId, quantity: now.get(p.shopId)?.quantity ?? null, price: now.get(p.shopId)?.price ?? null }));
  },

  async writeStock(conn, http, writes) {
    const results = new Map<string, StockWriteResult>();
    const location = await locationOf(conn, http);
    let pending = writes.filter((w) => w.quantity !== null);
    let known = new Map<string, Level>();
    for (let attempt = 0; ; attempt++) {
      known = await levels(conn, http, location, writes.map((w) => w.shopId));
      for (const w of writes.filter((p) => !known.has(p.shopId))) results.set(w.shopId, { shopId: w.shopId, ok: false, missing: true, reason: "Shopify has no such inventory item any more" });
      for (const w of pending.filter((p) => known.get(p.shopId)?.quantity === null)) {
        results.set(w.shopId, { shopId: w.shopId, ok: false, missing: false, reason: "The variant is not stocked at the connection's location (Shopify: the product's inventory > locations)" });
      }
      pending = pending.filter((w) => !results.has(w.shopId));
      if (pending.length === 0) break;
      const input = {
        name: "available",
        reason: REASON,
        referenceDocumentUri: `gid://order-intake/StockSync/${conn.id}`,
        quantities: pending.map((w) => ({ inventoryItemId: w.shopId, locationId: location, quantity: w.quantity!, changeFromQuantity: known.get(w.shopId)!.quantity! })),
      };
      const res = await gql<{ inventorySetQuantities: { userErrors: UserError[] } }>(conn, http, SET, { input }, { mutation: true });
      const errors = res.dryRun ? [] : res.data.inventorySetQuantities.userErrors;
      if (errors.length === 0) break;
      // Shopify applies a call whole or not at all: the refused quantities fail in its words, a stale compare is read again, the rest goes again.
      let stale = false;
      for (const e of errors) {
        const index = Number(e.field?.[2]);
        const w = Number.isInteger(index) ? pending[index] : undefined;
        if (!w) throw new ShopError("invalid", `Shopify refused the stock write: ${e.message}`);
        if (e.code === "CHANGE_FROM_QUANTITY_STALE") stale = true;
        else results.set(w.shopId, { shopId: w.shopId, ok: false, missing: e.code === "INVALID_INVENTORY_ITEM", reason: e.message });
      }
      pending = pending.filter((w) => !results.has(w.shopId));
      if (stale && attempt >= STALE_RETRIES) {
        throw new ShopError("invalid", `Shopify's stock kept changing while we wrote it (CHANGE_FROM_QUANTITY_STALE ${STALE_RETRIES + 1} times): tried again later`);
      }
      if (pending.length === 0) break;
    }
    // Prices after the stock, for those whose stock went (or that carry no stock): a refused price fails the product in Shopify's words.
    const prices = writes.filter((w) => w.price !== null && !results.has(w.shopId)).map((w) => ({ shopId: w.shopId, variantId: known.get(w.shopId)!.variantId, productId: known.get(w.shopId)!.productId, price: w.price! }));
    for (const r of prices.length ? await writeShopifyPrices(conn, http, prices) : []) if (!r.ok) results.set(r.shopId, r);
    return writes.map((w) => results.get(w.shopId) ?? { shopId: w.shopId, ok: true });
  },
};
