// HTTP contract of /api/v1/product-feeds: feed set-up, pushing a file, pulling the URL, import history.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { resourcePage } from "../lib/pagination";
import { IdParam, PageQuery, pageRequest, resourcePageOf } from "../lib/params";
import { apiSecurity, createRouter, ErrorBody, errorResponses, responses } from "../lib/router";
import { parseOrThrow } from "../lib/validation";
import { booleanParam } from "./params";
import { presentFeed, presentImport } from "./feeds.present";
import { CreateFeedBody, ProductFeed, ProductImport, UpdateFeedBody } from "./feeds.schemas";
import { createFeed, deleteFeed, getFeed, listFeeds, updateFeed } from "./feeds.service";
import { feedTimeoutMs, getImport, importFromUrl, importUpload, listImports, MAX_FEED_BYTES } from "./imports.service";

export const feedsRouter = createRouter();

const tags = ["Catalogue"];
const ReplaceQuery = z.object({ replace: booleanParam });

/** The upload route streams its body (up to MAX_FEED_BYTES), so the app's 1 MiB limit skips it. */
export function isFeedUpload(method: string, path: string): boolean {
  return method === "PUT" && /^\/api\/v1\/product-feeds\/[^/]+\/products\/?$/.test(path);
}

// ---- Feeds CRUD -------------------------------------------------------------

feedsRouter.openapi(
  createRoute({
    method: "post",
    path: "/product-feeds",
    tags,
    summary: "Set up a product feed for one of the account's suppliers",
    security: apiSecurity,
    request: { body: { content: { "application/json": { schema: CreateFeedBody } }, required: true } },
    responses: { 201: responses.json(ProductFeed, "The feed"), 400: responses.badRequest, 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const feed = await createFeed(c.get("db"), c.get("account").id, c.req.valid("json"));
    return c.json(presentFeed(feed), 201);
  },
);

feedsRouter.openapi(
  createRoute({
    method: "get",
    path: "/product-feeds",
    tags,
    summary: "List the account's product feeds, ids ascending",
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
    const feed = await updateFeed(c.get("db"), c.get("account").id, c.req.valid("param").id, c.req.valid("json"));
    return c.json(presentFeed(feed), 200);
  },
);

feedsRouter.openapi(
  createRoute({
    method: "delete",
    path: "/product-feeds/{id}",
    tags,
    summary: "Delete a product feed with its products and import history",
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

const fileBody = (description: string) => ({
  content: {
    "text/csv": { schema: z.string().openapi({ example: "sku;ean13;name;purchase_price;stock_quantity\nMUG-1;8712345678906;Blue mug;4,95;12" }) },
    "application/json": { schema: z.array(z.record(z.string(), z.unknown())) },
    "application/xml": { schema: z.string() },
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
      "Rows that fail validation are skipped and reported; a file that cannot be parsed changes nothing.",
    security: apiSecurity,
    request: { params: IdParam, query: ReplaceQuery, body: fileBody(`The file, up to ${MAX_FEED_BYTES / 1048576} MiB; gzip accepted`) },
    responses: {
      200: responses.json(ProductImport, "Imported; the record counts created, updated, unchanged, deactivated and rejected rows"),
      404: responses.notFound,
      409: responses.json(ErrorBody, "An import of this feed is running"),
      413: responses.tooLarge,
      415: responses.json(ErrorBody, "Unsupported Content-Type"),
      422: responses.json(FailedUpload, "The file could not be used; nothing was changed"),
      ...errorResponses,
    },
  }),
);

feedsRouter.put("/product-feeds/:id/products", async (c: Context<AppEnv>) => {
  const db = c.get("db");
  const feed = await getFeed(db, c.get("account").id, c.req.param("id") ?? "");
  const { replace } = parseOrThrow(ReplaceQuery, c.req.query());
  const { record, failure } = await importUpload(db, feed, {
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
    description: "A full sync unless replace=false: products the file no longer lists are deactivated.",
    security: apiSecurity,
    request: { params: IdParam, query: ReplaceQuery },
    responses: {
      201: responses.json(ProductImport, "Imported"),
      404: responses.notFound,
      409: responses.json(ErrorBody, "An import of this feed is running"),
      422: responses.invalid,
      502: responses.json(FailedPull, "The url could not be fetched or its file not parsed; nothing was changed"),
      ...errorResponses,
    },
  }),
  async (c) => {
    const db = c.get("db");
    const feed = await getFeed(db, c.get("account").id, c.req.valid("param").id);
    const { record, failure } = await importFromUrl(db, feed, "manual", c.req.valid("query").replace ?? true, feedTimeoutMs(c.env));
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
    security: apiSecurity,
    request: { params: IdParam.extend({ import: z.string().openapi({ example: "40" }) }) },
    responses: { 200: responses.json(ProductImport, "The import"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => {
    const db = c.get("db");
    const params = c.req.valid("param");
    const feed = await getFeed(db, c.get("account").id, params.id);
    return c.json(presentImport(await getImport(db, feed, params.import)), 200);
  },
);
