// HTTP contract of /api/v1/orders: create, list, show.
import { createRoute, z } from "@hono/zod-openapi";
import { apiSecurity, createRouter, ErrorBody, errorResponses, responses } from "../lib/router";
import { FORM_TYPES, JSON_TYPE, readBody } from "../lib/request-body";
import { parseOrThrow } from "../lib/validation";
import { pageParam, resourcePage } from "../lib/pagination";
import { presentOrderSummaries, showOrder } from "./orders.present";
import { CreateOrderBody, CreateOrderResponse, ListOrdersQuery, OrderDetail, OrderPage } from "./orders.schemas";
import { createOrder, listOrders } from "./orders.service";

export const ordersRouter = createRouter();

// The Magento module posts its orders form-encoded (PHP bracket keys); Laravel, which the
// original service runs on, reads JSON, urlencoded and multipart bodies alike. All three decode to
// the same object and meet the same schema, so each gives the same order.
const orderBodyTypes = Object.fromEntries(
  [JSON_TYPE, ...FORM_TYPES].map((type) => [type, { schema: CreateOrderBody }]),
);

// Registered for the OpenAPI document; the handler reads the body by its Content-Type itself
// (a zod-openapi body validator reads JSON, or flat form fields, but not PHP's bracket keys).
ordersRouter.openAPIRegistry.registerPath(
  createRoute({
    method: "post",
    path: "/orders",
    tags: ["Orders"],
    summary: "Create an order (idempotent per external_id)",
    description:
      "The body is JSON, or a form (application/x-www-form-urlencoded or multipart/form-data) with PHP bracket keys " +
      "such as products[0][external_id]; a form gives exactly the order its JSON twin gives.",
    security: apiSecurity,
    request: { body: { content: orderBodyTypes, required: true } },
    responses: {
      200: responses.json(CreateOrderResponse, "Created, or already existed"),
      400: responses.badRequest,
      413: responses.tooLarge,
      415: responses.json(ErrorBody, "A Content-Type other than JSON or a form"),
      422: responses.invalid,
      ...errorResponses,
    },
  }),
);

ordersRouter.post("/orders", async (c) => {
  const input = parseOrThrow(CreateOrderBody, await readBody(c, { forms: true }));
  const result = await createOrder(c.get("db"), c.get("pipeline"), c.get("account").id, input);
  return c.json(
    { message: result.created ? ("Order created" as const) : ("Order already exists" as const), reference: Number(result.reference) },
    200,
  );
});

const listOrdersRoute = createRoute({
  method: "get",
  path: "/orders",
  tags: ["Orders"],
  summary: "List orders, newest first",
  security: apiSecurity,
  request: { query: ListOrdersQuery },
  responses: {
    200: responses.json(OrderPage, "A page of orders"),
    422: responses.invalid,
    ...errorResponses,
  },
});

ordersRouter.openapi(listOrdersRoute, async (c) => {
  const filters = c.req.valid("query");
  const page = { page: pageParam(filters.page), perPage: filters.per_page };
  const result = await listOrders(c.get("db"), c.get("account").id, filters, page);
  return c.json(resourcePage(c.req.url, page, result.total, presentOrderSummaries(result.orders, result.lines)), 200);
});

const showOrderRoute = createRoute({
  method: "get",
  path: "/orders/{reference}",
  tags: ["Orders"],
  summary: "Fetch one order with every line's status log",
  security: apiSecurity,
  request: { params: z.object({ reference: z.string().openapi({ example: "4812039475610234" }) }) },
  responses: {
    200: responses.json(OrderDetail, "The order"),
    404: responses.notFound,
    ...errorResponses,
  },
});

ordersRouter.openapi(showOrderRoute, async (c) => {
  return c.json(await showOrder(c.get("db"), c.get("account").id, c.req.valid("param").reference), 200);
});
