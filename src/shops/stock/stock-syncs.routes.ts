// HTTP contract of a shop connection's stock syncs: start one, list them, read one with its
// products' outcomes (docs/shops-stock.md).
import { createRoute, z } from "@hono/zod-openapi";
import { STOCK_SYNC_OUTCOMES, STOCK_SYNC_STATUSES, STOCK_SYNC_TRIGGERS } from "../../db/schema/stock";
import { resourcePage } from "../../lib/pagination";
import { idOrNotFound, PageQuery, pageRequest, resourcePageOf } from "../../lib/params";
import { apiSecurity, createRouter, errorResponse, errorResponses, responses } from "../../lib/router";
import { field } from "../../lib/validation";
import { previewStockSync } from "./preview.service";
import { presentStockPreview, presentStockSync, presentStockSyncItem } from "./stock-syncs.present";
import { confirmStockSync, discardStockSync, getStockSyncWithItems, listStockSyncs, requestStockSync } from "./stock-sync.service";

export const stockSyncsRouter = createRouter();

const tags = ["Shop connections"];

const SYNC_EXAMPLE = {
  id: 12,
  connection_id: 3,
  status: "succeeded",
  trigger: "import",
  full: false,
  total: 3,
  done: 3,
  counts: { updated: 1, unchanged: 1, unknown: 1, skipped: 0, failed: 0 },
  error: null,
  guard_reason: null,
  confirmed_at: null,
  retry_at: null,
  created_at: "2026-11-25T21:40:00.000000Z",
  started_at: "2026-11-25T21:40:00.120000Z",
  finished_at: "2026-11-25T21:40:01.480000Z",
};

const StockSyncJson = z
  .object({
    id: z.number().int(),
    connection_id: z.number().int(),
    status: z.enum(STOCK_SYNC_STATUSES).openapi({
      description:
        "queued (waits for the connection's running sync), running, needs_confirmation (a guard stopped it before it wrote anything: guard_reason says why; confirm or discard it), succeeded or failed (error says why)",
    }),
    trigger: z.enum(STOCK_SYNC_TRIGGERS).openapi({ description: "import: after a feed import changed products; manual: asked for; settings: a change of settings that reaches every product" }),
    full: z.boolean().openapi({ description: "Every product of the catalogue, not only the changed ones (a connection's first sync is full)" }),
    total: z.number().int().openapi({ description: "Products in the sync (known once it has started)" }),
    done: z.number().int().openapi({ description: "Products with an outcome; done of total is the progress" }),
    counts: z.object({ updated: z.number().int(), unchanged: z.number().int(), unknown: z.number().int(), skipped: z.number().int(), failed: z.number().int() }),
    error: z.string().nullable().openapi({ description: "Why the sync failed as a whole (paused connection, credentials refused), in words" }),
    guard_reason: z.string().nullable().openapi({ description: "Why a guard stopped the sync before writing (max_drop_percent, max_changed_percent), in words" }),
    confirmed_at: z.string().nullable().openapi({ description: "When a person confirmed what the guards stopped" }),
    retry_at: z.string().nullable().openapi({ description: "When the shop asked us to wait (429 Retry-After) or a failed request is tried again" }),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
  })
  .openapi("StockSync", { example: SYNC_EXAMPLE });

const ItemJson = z
  .object({
    key: z.string().openapi({ description: "The product's SKU, or EAN-13 (settings.stock_sync.match_by)" }),
    outcome: z.enum(STOCK_SYNC_OUTCOMES).openapi({
      description:
        "pending, planned (checked by the guards, to be written) and sending while the sync runs; then updated, unchanged, unknown (not in the shop), skipped (under the minimum price or margin: not written) or failed",
    }),
    old_quantity: z.number().int().nullable().openapi({ description: "The shop's stock before: read from the shop when the guards checked it, else the last stock this connection wrote; null: not known" }),
    quantity: z.number().int().nullable().openapi({ description: "The stock written (or to write); null: left as the shop has it" }),
    old_price: z.number().nullable().openapi({ description: "The shop's regular price before, as old_quantity" }),
    price: z.number().nullable().openapi({ description: "The regular price written when price_sync is on" }),
    shop_product_id: z.string().nullable(),
    reason: z.string().nullable().openapi({ description: "Why, in words, for unknown and failed (the shop's own words for a refusal)" }),
  })
  .openapi("StockSyncProduct");

const ITEMS_EXAMPLE = [
  { key: "MUG-BLUE", outcome: "updated", old_quantity: 3, quantity: 7, old_price: 12.5, price: 12.99, shop_product_id: "501", reason: null },
  { key: "MUG-RED", outcome: "unchanged", old_quantity: 0, quantity: 0, old_price: 9.99, price: 9.99, shop_product_id: "502", reason: null },
  { key: "PLATE-XL", outcome: "unknown", old_quantity: null, quantity: 4, old_price: null, price: 24.99, shop_product_id: null, reason: "The shop has no product with SKU PLATE-XL." },
];

const ProductsPage = resourcePageOf(ItemJson, "StockSyncProductPage");
const SyncWithItems = StockSyncJson.extend({ products: ProductsPage }).openapi("StockSyncWithProducts", {
  example: {
    ...SYNC_EXAMPLE,
    products: {
      current_page: 1,
      data: ITEMS_EXAMPLE,
      links: { first: "https://api.example.com/api/v1/shop-connections/3/stock-syncs/12?page=1", last: "https://api.example.com/api/v1/shop-connections/3/stock-syncs/12?page=1", prev: null, next: null },
      meta: { current_page: 1, from: 1, last_page: 1, path: "https://api.example.com/api/v1/shop-connections/3/stock-syncs/12", per_page: 50, to: 3, total: 3 },
    },
  } as never,
});

const StartBody = z
  .object({ full: field.optionalBoolean().openapi({ type: "boolean", description: "Every product of the catalogue, and the shop's products listed again; false by default" }) })
  .strict()
  .openapi("StartStockSync", { example: { full: true } });

const Params = z.object({
  id: z.string().openapi({ example: "3", description: "The shop connection's id. Another account's is not found." }),
});
const SyncParams = Params.extend({ sync_id: z.string().openapi({ example: "12", description: "The stock sync's id" }) });

const notSyncing = errorResponse(409, "The connection writes no stock: paused, or settings.stock_sync not enabled", {
  message: "Conflict",
  error: "Stock sync is not enabled on this connection (settings.stock_sync.enabled); nothing was written.",
});

const connectionId = (raw: string) => idOrNotFound(raw, "Shop connection");

stockSyncsRouter.openapi(
  createRoute({
    method: "post",
    path: "/shop-connections/{id}/stock-syncs",
    tags,
    summary: "Sync the catalogue's stock (and prices) into the shop now",
    description:
      "Queues a stock sync of the connection: the products whose offers changed since its last sync (every product with full=true, or for a " +
      "connection's first sync), their stock computed by settings.stock_sync and written into the shop. When a sync already waits, that one " +
      "is answered (full=true makes it full). The body is optional. 409 when the connection is paused or its stock sync is not enabled.",
    security: apiSecurity,
    request: { params: Params, body: { content: { "application/json": { schema: StartBody } }, required: false } },
    responses: { 202: responses.json(StockSyncJson, "The queued sync"), 404: responses.notFound, 409: notSyncing, 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const body = (c.req.valid("json") as z.output<typeof StartBody> | undefined) ?? {};
    const sync = await requestStockSync(c.get("db"), c.get("pipeline"), c.get("account").id, connectionId(c.req.valid("param").id), { full: body.full });
    return c.json(presentStockSync(sync), 202);
  },
);

stockSyncsRouter.openapi(
  createRoute({
    method: "get",
    path: "/shop-connections/{id}/stock-syncs",
    tags,
    summary: "The connection's stock syncs, newest first",
    description: "Each sync with its progress (done of total) and counts per outcome; paginated like the order list.",
    security: apiSecurity,
    request: { params: Params, query: PageQuery },
    responses: { 200: responses.json(resourcePageOf(StockSyncJson, "StockSyncPage"), "A page of syncs"), 404: responses.notFound, 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const page = pageRequest(c.req.valid("query"));
    const { total, rows } = await listStockSyncs(c.get("db"), c.get("account").id, connectionId(c.req.valid("param").id), page);
    return c.json(resourcePage(c.req.url, page, total, rows.map(presentStockSync)), 200);
  },
);

stockSyncsRouter.openapi(
  createRoute({
    method: "get",
    path: "/shop-connections/{id}/stock-syncs/{sync_id}",
    tags,
    summary: "A stock sync with its products' outcomes",
    description: "The sync, and a page of its products (by key) with what was written and each outcome; page and per_page page the products.",
    security: apiSecurity,
    request: { params: SyncParams, query: PageQuery },
    responses: { 200: responses.json(SyncWithItems, "The sync and a page of its products"), 404: responses.notFound, 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const page = pageRequest(c.req.valid("query"));
    const { id, sync_id } = c.req.valid("param");
    const { sync, items, totalItems } = await getStockSyncWithItems(c.get("db"), c.get("account").id, connectionId(id), sync_id, page);
    return c.json({ ...presentStockSync(sync), products: resourcePage(c.req.url, page, totalItems, items.map(presentStockSyncItem)) }, 200);
  },
);

const PreviewBody = z
  .object({
    settings: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: "Settings not saved yet (stock_sync, price_sync, sync_guards…), laid over the stored ones as a PATCH lays them; checked the same way" }),
  })
  .strict()
  .openapi("StockSyncPreviewRequest", { example: { settings: { price_sync: { enabled: true, markup_percent: 25, round_to: 0.95 } } } });

const PreviewProduct = z
  .object({
    key: z.string(),
    shop_product_id: z.string().nullable(),
    outcome: z.enum(["write", "unchanged", "unknown", "skipped"]).openapi({ description: "write: the sync would write it; unchanged; unknown: not in the shop; skipped: under the minimum price or margin" }),
    old_quantity: z.number().int().nullable().openapi({ description: "The shop's stock now (read from the shop; see old_values_from)" }),
    quantity: z.number().int().nullable(),
    old_price: z.number().nullable(),
    price: z.number().nullable(),
    price_drop_too_far: z.boolean().openapi({ description: "The price would drop by more than sync_guards.max_drop_percent: the sync would stop and ask" }),
    reason: z.string().nullable(),
  })
  .openapi("StockSyncPreviewProduct");

const PreviewJson = z
  .object({
    full: z.boolean().openapi({ description: "The next sync covers every product (a first sync, a full one waiting, or settings that reach every product)" }),
    total: z.number().int().openapi({ description: "Products the next sync covers; products shows the first 50 by key" }),
    old_values_from: z.enum(["shop", "last_written"]).openapi({ description: "shop: read from the shop now; last_written: the shop could not be read (read_error), the last values this connection wrote" }),
    read_error: z.string().nullable(),
    products: z.array(PreviewProduct),
    guards: z
      .object({ price_drops_too_far: z.number().int(), changed: z.number().int(), mapped: z.number().int(), would_stop: z.boolean() })
      .openapi({ description: "The guards' verdict on the products shown" }),
  })
  .openapi("StockSyncPreview", {
    example: {
      full: true,
      total: 1,
      old_values_from: "shop",
      read_error: null,
      products: [{ key: "MUG-1", shop_product_id: "501", outcome: "write", old_quantity: 3, quantity: 7, old_price: 12.5, price: 5.95, price_drop_too_far: true, reason: null }],
      guards: { price_drops_too_far: 1, changed: 1, mapped: 1, would_stop: true },
    },
  });

stockSyncsRouter.openapi(
  createRoute({
    method: "post",
    path: "/shop-connections/{id}/stock-syncs/preview",
    tags,
    summary: "What the next stock sync would write (a dry run)",
    description:
      "The next sync's first 50 products by key, each with the shop's stock and price now (read from the shop) and what the sync would write, under the " +
      "stored settings or under settings not saved yet (body settings, laid over the stored ones). Writes nothing. 422 names a bad setting.",
    security: apiSecurity,
    request: { params: Params, body: { content: { "application/json": { schema: PreviewBody } }, required: false } },
    responses: {
      200: responses.json(PreviewJson, "The preview"),
      404: responses.notFound,
      409: notSyncing,
      422: errorResponse(422, "A bad setting, named; nothing is read from the shop", {
        message: "Errors",
        errors: { "settings.stock_sync.buffer": ["The settings.stock_sync.buffer field must be at least 0."] },
      }),
      ...errorResponses,
    },
  }),
  async (c) => {
    const body = (c.req.valid("json") as z.output<typeof PreviewBody> | undefined) ?? {};
    const preview = await previewStockSync(c.get("db"), c.env, c.get("account").id, connectionId(c.req.valid("param").id), body.settings);
    return c.json(presentStockPreview(preview), 200);
  },
);

const notWaiting = errorResponse(409, "The sync does not wait for confirmation", {
  message: "Conflict",
  error: "Only a sync that needs confirmation can be confirmed; this one is succeeded.",
});

for (const [action, run, summary] of [
  ["confirm", confirmStockSync, "Confirm a sync a guard stopped: it writes what it planned"],
  ["discard", discardStockSync, "Discard a sync a guard stopped: nothing is written; the next sync covers its products"],
] as const) {
  stockSyncsRouter.openapi(
    createRoute({
      method: "post",
      path: `/shop-connections/{id}/stock-syncs/{sync_id}/${action}`,
      tags,
      summary,
      description: "Only for a sync whose status is needs_confirmation (409 otherwise). 202 with the sync.",
      security: apiSecurity,
      request: { params: SyncParams },
      responses: { 202: responses.json(StockSyncJson, "The sync"), 404: responses.notFound, 409: notWaiting, ...errorResponses },
    }),
    async (c) => {
      const { id, sync_id } = c.req.valid("param");
      const sync = await run(c.get("db"), c.get("pipeline"), c.get("account").id, connectionId(id), sync_id);
      return c.json(presentStockSync(sync), 202);
    },
  );
}
