// HTTP contract of /api/v1/orders: create, list, show.
import { createRoute, z } from "@hono/zod-openapi";
import { apiSecurity, createRouter, errorResponses, responses } from "../lib/router";
import { pageParam, resourcePage } from "../lib/pagination";
import { presentOrderSummaries } from "./orders.present";
import { CreateOrderBody, CreateOrderResponse, ListOrdersQuery, OrderDetail, OrderPage } from "./orders.schemas";
import { createOrder, listOrders, showOrder } from "./orders.service";
import { enqueueBestEffort } from "../processing/messages";

export const ordersRouter = createRouter();

const createOrderRoute = createRoute({
  method: "post",
  path: "/orders",
  tags: ["Orders"],
  summary: "Create an order (idempotent per external_id)",
  security: apiSecurity,
  request: { body: { content: { "application/json": { schema: CreateOrderBody } }, required: true } },
  responses: {
    200: responses.json(CreateOrderResponse, "Created, or already existed"),
    400: responses.badRequest,
    413: responses.tooLarge,
    422: responses.invalid,
    ...errorResponses,
  },
});

ordersRouter.openapi(createOrderRoute, async (c) => {
  const input = c.req.valid("json");
  const result = await createOrder(c.get("db"), c.get("account").id, input);
  // Matching runs after the answer, through the queue; the send need not hold the answer up
  // either: a lost send is the sweeper's case (routed_at stays null), as a failed one already is.
  if (result.created) c.executionCtx.waitUntil(enqueueBestEffort(c.env, [{ type: "route_order", orderId: result.orderId }]));
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
