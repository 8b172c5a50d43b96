// HTTP contract of /api/v1/products: the catalogue in Laravel's paginate() shape, 100 per page.
import { createRoute, z } from "@hono/zod-openapi";
import { pageParam, plainPage } from "../lib/pagination";
import { apiSecurity, createRouter, errorResponses, responses } from "../lib/router";
import { presentProduct } from "./products.present";
import { ListProductsQuery } from "./products.schemas";
import { listProducts, PRODUCTS_PER_PAGE } from "./products.service";

export const productsRouter = createRouter();

const Product = z
  .object({
    id: z.number().int(),
    project_id: z.number().int(),
    product_feed_id: z.number().int(),
    sku: z.string(),
    ean13: z.string().nullable(),
    name: z.string(),
    purchase_price: z.number().nullable(),
    stock_quantity: z.number().int().nullable(),
    active: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Product");

const ProductPage = z
  .object({
    current_page: z.number().int(),
    data: z.array(Product),
    first_page_url: z.string(),
    from: z.number().int().nullable(),
    last_page: z.number().int(),
    last_page_url: z.string(),
    next_page_url: z.string().nullable(),
    path: z.string(),
    per_page: z.number().int(),
    prev_page_url: z.string().nullable(),
    to: z.number().int().nullable(),
    total: z.number().int(),
  })
  .openapi("ProductPage");

const listProductsRoute = createRoute({
  method: "get",
  path: "/products",
  tags: ["Catalogue"],
  summary: "List the account's catalogue products, ids ascending, optionally filtered",
  description:
    "The products the account's feeds brought in, 100 per page, in Laravel's paginate() shape (the page links keep the filters). " +
    "Every filter is optional and an empty value is ignored; an invalid one is a 422 naming it.",
  security: apiSecurity,
  request: { query: ListProductsQuery },
  responses: { 200: responses.json(ProductPage, "A page of products"), 422: responses.invalid, ...errorResponses },
});

productsRouter.openapi(listProductsRoute, async (c) => {
  const filters = c.req.valid("query");
  const page = { page: pageParam(filters.page), perPage: PRODUCTS_PER_PAGE };
  const { total, rows } = await listProducts(c.get("db"), c.get("account").id, filters, page);
  return c.json(plainPage(c.req.url, page, total, rows.map(presentProduct)), 200);
});
