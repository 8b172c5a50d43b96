// HTTP contract of /api/v1/product-feeds: feed set-up, pushing a file, pulling the URL, import history.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { resourcePage } from "../lib/pagination";
import { IdParam, PageQuery, pageRequest, resourcePageOf } from "../lib/params";
import { sealingKeys } from "../lib/sealed";
import { apiSecurity, createRouter, ErrorBody, errorResponse, errorResponses, responses } from "../lib/router";
import { parseOrThrow } from "../lib/validation";
import { booleanParam } from "./params.schemas";
import { presentFeed, presentImport } from "./feeds.present";
import { CreateFeedBody, ProductFeed, ProductImport, UpdateFeedBody } from "./feeds.schemas";
import { createFeed, deleteFeed, getFeed, listFeeds, updateFeed } from "./feeds.service";
import { feedTimeoutMs, getImport, importFromUrl, importUpload, listImports, MAX_FEED_BYTES } from "./imports.service";

export const feedsRouter = createRouter();

const tags = ["Catalogue"];
const ReplaceQuery = z.object({
  replace: booleanParam.openapi({ description: "true: a full sync, the feed's products the file no longer lists are deactivated. false by default (merge)." }),
});
const PullQuery = z.object({
  replace: booleanParam.openapi({ description: "false: merge, deactivating nothing. true by default: the file is the supplier's whole catalogue." }),
});
const importRunning = errorResponse(409, "An import of this feed is running", {
  message: "Conflict",
  error: "An import of product feed '12' is already running; try again when it has finished.",
});

/** The upload route streams its body (up to MAX_FEED_BYTES), so the app's 1 MiB limit skips it. */
export function isFeedUpload(method: string, path: string): boolean {
  return (
    (method === "PUT" && /^\/api\/v1\/product-feeds\/[^/]+\/products\/?$/.test(path)) ||
    // The console's upload form: the same file, streamed into the same import.
    (method === "POST" && /^\/console\/catalogue\/feeds\/[^/]+\/upload\/?$/.test(path))
  );
}

// ---- Feeds CRUD -------------------------------------------------------------

feedsRouter.openapi(
  createRoute({
    method: "post",
    path: "/product-feeds",
    tags,
    summary: "Set up a product feed for one of the account's suppliers",
    description:
      "A feed fills the catalogue with one supplier's products: pushed as a file (PUT …/products) or pulled from its url, now " +
      "(POST …/import) or on its schedule. mapping names the file's column for each product field (sku, ean13, name, purchase_price, " +
      "stock_quantity, active).",
    security: apiSecurity,
    request: { body: { content: { "application/json": { schema: CreateFeedBody } }, required: true } },
    responses: { 201: responses.json(ProductFeed, "The feed"), 400: responses.badRequest, 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const feed = await createFeed(c.get("db"), c.get("account").id, c.req.valid("json"), () => sealingKeys(c.env));
    return c.json(presentFeed(feed), 201);
  },
);

feedsRouter.openapi(
  createRoute({
    method: "get",
    path: "/product-feeds",
    tags,
    summary: "List the account's product feeds, ids ascending",
    description: "Every feed of the account with its settings and next scheduled pull; paginated like the order list.",
    security: apiSecurity,
    request: { query: PageQuery },
    responses: { 200: responses.json(resourcePageOf(ProductFeed, "ProductFeedPage"), "A page of feeds"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const page = pageRequest(query);
    const { total, rows } = await listFeeds(c.get("db"), c.get("account").id, page);
    return c.json(resourcePage(c.req.url, page, total, rows.map(presentFeed)), 200);
  },
);

feedsRouter.openapi(
  createRoute({
    method: "get",
    path: "/product-feeds/{id}",
    tags,
    summary: "Fetch one product feed",
    description: "One feed of the account; another account's feed is not found.",
    security: apiSecurity,
    request: { params: IdParam },
    responses: { 200: responses.json(ProductFeed, "The feed"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => c.json(presentFeed(await getFeed(c.get("db"), c.get("account").id, c.req.valid("param").id)), 200),
);

feedsRouter.openapi(
  createRoute({
    method: "patch",
    path: "/product-feeds/{id}",
    tags,
    summary: "Change a product feed (only the fields sent; null clears an optional one)",
    description: "Changes only the fields sent; a new url or schedule makes the feed due at the next cron tick.",
    security: apiSecurity,
    request: { params: IdParam, body: { content: { "application/json": { schema: UpdateFeedBody } }, required: true } },
    responses: {
      200: responses.json(ProductFeed, "The changed feed"),
      400: responses.badRequest,
      404: responses.notFound,
      422: responses.invalid,
      ...errorResponses,
    },
  }),
  async (c) => {
    const feed = await updateFeed(c.get("db"), c.get("account").id, c.req.valid("param").id, c.req.valid("json"), () => sealingKeys(c.env));
    return c.json(presentFeed(feed), 200);
  },
);

feedsRouter.openapi(
  createRoute({
    method: "delete",
    path: "/product-feeds/{id}",
    tags,
    summary: "Delete a product feed with its products and import history",
    description: "Deletes the feed, its products (lines matched through them keep their supplier) and its import records.",
    security: apiSecurity,
    request: { params: IdParam },
    responses: { 204: { description: "Deleted" }, 404: responses.notFound, ...errorResponses },
  }),
  async (c) => {
    await deleteFeed(c.get("db"), c.get("account").id, c.req.valid("param").id);
    return c.body(null, 204);
  },
);

// ---- Filling a feed -----------------------------------------------------------

const FailedUpload = z
  .object({ message: z.literal("Errors"), errors: z.record(z.string(), z.array(z.string())), import: ProductImport })
  .openapi("FailedUpload");
const FailedPull = ErrorBody.extend({ import: ProductImport }).openapi("FailedPull");

const failedImport = (trigger: "push" | "manual", source: string, error: string) => ({
  id: 41,
  product_feed_id: 12,
  trigger,
  status: "failed",
  replace: trigger === "manual",
  source,
  started_at: "2026-11-22T09:00:00.000000Z",
  finished_at: "2026-11-22T09:00:01.000000Z",
  rows_read: 0,
  created: 0,
  updated: 0,
  unchanged: 0,
  deactivated: 0,
  rejected: 0,
  error,
  rejections: [],
  unmapped_columns: [],
  warnings: [],
});
const NO_COLUMN = "The CSV header has no column 'Artikelnummer' (sku). Columns found: 'sku', 'name'.";
const NO_HOST = "The feed URL could not be fetched: the host name feeds.tuinhout.example does not resolve (DNS); nothing was changed.";
const FAILED_UPLOAD_EXAMPLE = { message: "Errors", errors: { body: [NO_COLUMN] }, import: { ...failedImport("push", "upload (csv)", NO_COLUMN), unmapped_columns: ["sku"] } };
const FAILED_PULL_EXAMPLE = { message: "Bad Gateway", error: NO_HOST, import: failedImport("manual", "https://feeds.tuinhout.example/stock.csv", NO_HOST) };

const fileBody = (description: string) => ({
  content: {
    "text/csv": {
      schema: z.string().openapi({
        description: "The supplier's CSV file, read with the feed's mapping, csv_delimiter and encoding.",
        example: "Artikelnummer;EAN;Omschrijving;Inkoopprijs;Voorraad\n100-01;8712345678906;Mok Delfts blauw;4,95;12\n100-02;;Schotel wit;1,95;0\n",
      }),
    },
    "application/json": {
      schema: z.array(z.record(z.string(), z.unknown())).openapi({
        description: "Products with the product field names (or, in the feed's own format, the file with its mapping and record_path).",
        example: [{ sku: "100-04", ean13: "8712345678913", name: "Lepel", purchase_price: 0.99, stock_quantity: 40 }],
      }),
    },
    "application/xml": {
      schema: z.string().openapi({
        description: "An XML file of <product> elements (or record_path's), read with the product field names or the feed's mapping.",
        example: "<products><product><sku>100-05</sku><name>Vork</name><purchase_price>0.89</purchase_price><stock_quantity>25</stock_quantity></product></products>",
      }),
    },
  },
  description,
  required: true,
});

// Registered for the OpenAPI document only: the handler below streams the raw body, which a
// zod body validator would read whole (and a bad row must skip that row, not fail the request).
feedsRouter.openAPIRegistry.registerPath(
  createRoute({
    method: "put",
    path: "/product-feeds/{id}/products",
    tags,
    summary: "Push the feed's products: a JSON array, or the raw CSV, XML or JSON file (by Content-Type)",
    description:
      "Upserts by SKU within the feed. replace=true also deactivates the feed's products the upload no longer lists. " +
      "Rows that fail validation are skipped and reported; a file that cannot be parsed changes nothing. The Content-Type decides the " +
      "format (none, application/octet-stream or text/plain: the feed's own); the feed's mapping applies to a file in its own format.",
    security: apiSecurity,
    request: { params: IdParam, query: ReplaceQuery, body: fileBody(`The file, up to ${MAX_FEED_BYTES / 1048576} MiB; gzip accepted`) },
    responses: {
      200: responses.json(ProductImport, "Imported; the record counts created, updated, unchanged, deactivated and rejected rows"),
      404: responses.notFound,
      409: importRunning,
      415: errorResponse(415, "Unsupported Content-Type", {
        message: "Unsupported Media Type",
        error: "Send the file as text/csv, application/json or application/xml (or application/octet-stream for the feed's own format).",
      }),
      422: {
        description: "The file could not be used (unreadable, over 100 MiB, no valid row); nothing was changed",
        content: { "application/json": { schema: FailedUpload, example: FAILED_UPLOAD_EXAMPLE } },
      },
      ...errorResponses,
    },
  }),
);

feedsRouter.put("/product-feeds/:id/products", async (c: Context<AppEnv>) => {
  const db = c.get("db");
  const feed = await getFeed(db, c.get("account").id, c.req.param("id") ?? "");
  const { replace } = parseOrThrow(ReplaceQuery, c.req.query());
  const { record, failure } = await importUpload(db, c.get("pipeline"), feed, {
    body: c.req.raw.body,
    contentType: c.req.header("content-type"),
    replace: replace ?? false,
  });
  if (failure === "internal") throw new Error(`import ${record.id} failed`);
  if (failure === "file") {
    return c.json({ message: "Errors", errors: { body: [record.error ?? "The file could not be imported."] }, import: presentImport(record) }, 422);
  }
  return c.json(presentImport(record), 200);
});

feedsRouter.openapi(
  createRoute({
    method: "post",
    path: "/product-feeds/{id}/import",
    tags,
    summary: "Pull the feed's url now",
    description:
      "Fetches the feed's url and imports the file: a full sync unless replace=false (products the file no longer lists are " +
      "deactivated). A file that cannot be fetched or read changes nothing and answers 502 saying what failed: a host name that does " +
      "not resolve, a refused or dropped connection, a timeout, the HTTP status, an HTML page or a file of another format.",
    security: apiSecurity,
    request: { params: IdParam, query: PullQuery },
    responses: {
      201: responses.json(ProductImport, "Imported"),
      404: responses.notFound,
      409: importRunning,
      422: responses.invalid,
      502: {
        description: "The url could not be fetched or its file not read; nothing was changed",
        content: { "application/json": { schema: FailedPull, example: FAILED_PULL_EXAMPLE } },
      },
      ...errorResponses,
    },
  }),
  async (c) => {
    const db = c.get("db");
    const feed = await getFeed(db, c.get("account").id, c.req.valid("param").id);
    const { record, failure } = await importFromUrl(db, c.get("pipeline"), feed, "manual", () => sealingKeys(c.env), c.req.valid("query").replace ?? true, feedTimeoutMs(c.env));
    if (failure === "internal") throw new Error(`import ${record.id} failed`);
    if (failure === "file") {
      return c.json({ message: "Bad Gateway", error: record.error ?? "The feed could not be imported.", import: presentImport(record) }, 502);
    }
    return c.json(presentImport(record), 201);
  },
);

// ---- Import history --------------------------------------------------------------

feedsRouter.openapi(
  createRoute({
    method: "get",
    path: "/product-feeds/{id}/imports",
    tags,
    summary: "The feed's imports, newest first",
    description: "Every push and pull of the feed with its counts, rejected rows and error; paginated like the order list.",
    security: apiSecurity,
    request: { params: IdParam, query: PageQuery },
    responses: {
      200: responses.json(resourcePageOf(ProductImport, "ProductImportPage"), "A page of imports"),
      404: responses.notFound,
      422: responses.invalid,
      ...errorResponses,
    },
  }),
  async (c) => {
    const db = c.get("db");
    const feed = await getFeed(db, c.get("account").id, c.req.valid("param").id);
    const query = c.req.valid("query");
    const page = pageRequest(query);
    const { total, rows } = await listImports(db, feed, page);
    return c.json(resourcePage(c.req.url, page, total, rows.map(presentImport)), 200);
  },
);

feedsRouter.openapi(
  createRoute({
    method: "get",
    path: "/product-feeds/{id}/imports/{import}",
    tags,
    summary: "One import of the feed",
    description: "One import record: trigger, status, counts, the first 20 rejected rows and, when it failed, why.",
    security: apiSecurity,
    request: { params: IdParam.extend({ import: z.string().openapi({ example: "40", description: "The import's id." }) }) },
    responses: { 200: responses.json(ProductImport, "The import"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => {
    const db = c.get("db");
    const params = c.req.valid("param");
    const feed = await getFeed(db, c.get("account").id, params.id);
    return c.json(presentImport(await getImport(db, feed, params.import)), 200);
  },
);
