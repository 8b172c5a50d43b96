// HTTP contract of /api/v1/orders: create, list, show.
import { createRoute, z } from "@hono/zod-openapi";
import { apiSecurity, createRouter, ErrorBody, errorResponses, responses } from "../lib/router";
import { FORM_TYPES, JSON_TYPE, readBody } from "../lib/request-body";
import { parseOrThrow } from "../lib/validation";
import { pageParam, resourcePage } from "../lib/pagination";
import { orderCsvStream, presentOrderDetail, presentOrderSummaries } from "./orders.present";
import { CreateOrderBody, CreateOrderResponse, ExportOrdersQuery, ListOrdersQuery, OrderDetail, OrderPage, referenceParam } from "./orders.schemas";
import { createOrder, getOrder, listOrders } from "./orders.service";
import { exportWithArchive } from "../archive/export";
import { ApiError } from "../lib/errors";
import { findArchived } from "../archive/archive.service";
import { presentArchivedOrder, presentArchivedSummary } from "../archive/archive.present";
import { listArchived, listIncluding } from "../archive/list";

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
      "Stores the order, its lines and each line's first log entry at once, and answers its reference; every line starts pending and " +
      "is matched to a supplier after the answer. Idempotent per account on external_id: a repeat answers \"Order already exists\" " +
      "with the first order's reference and changes nothing. The body is JSON, or a form (application/x-www-form-urlencoded or " +
      "multipart/form-data) with PHP bracket keys such as products[0][external_id], which gives exactly the order its JSON twin gives. " +
      "Leniency for what shop plugins send: money and numbers as strings, country names, DD-MM-YYYY dates, \"\" and null as absent. " +
      "Up to 500 lines and 1 MiB.",
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
  const result = await createOrder(c.get("db"), c.get("pipeline"), c.get("account").id, input, c.get("shard"));
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
  description:
    "The account's orders with their lines (without logs), newest first, in Laravel's paginated shape (data, links, meta). Every " +
    "filter is optional and they combine; an invalid value is a 422 naming the parameter. Test orders are left out unless include_test=true.",
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
  if (filters.archived === "only") {
    const archived = await listArchived(c.get("db"), c.env.ARCHIVE, c.get("account").id, filters, page);
    return c.json(resourcePage(c.req.url, page, archived.total, archived.orders.map(presentArchivedSummary)) as never, 200);
  }
  if (filters.archived === "include") {
    const both = await listIncluding(c.get("db"), c.env.ARCHIVE, c.get("account").id, filters, page);
    const data = both.orders.map((o) => (o.archived ? presentArchivedSummary(o.doc) : presentOrderSummaries([o.order], o.lines)[0]));
    return c.json(resourcePage(c.req.url, page, both.total, data) as never, 200);
  }
  const result = await listOrders(c.get("db"), c.get("account").id, filters, page);
  return c.json(resourcePage(c.req.url, page, result.total, presentOrderSummaries(result.orders, result.lines)), 200);
});

const exportOrdersRoute = createRoute({
  method: "get",
  path: "/orders/export",
  tags: ["Orders"],
  summary: "Export the filtered list as CSV, newest first",
  description:
    "Every order the list's filters match (the same parameters as GET /orders, q included; page, per_page and sort do not apply), " +
    "newest first, one row per order, as text/csv (RFC 4180, UTF-8, CRLF); archived=include or only adds or exports the archived orders too (docs/archive.md). Streamed: the rows are read in chunks of 100 as the client " +
    "reads them, so any number of orders works. An invalid filter is the same 422 as the list's, before anything is sent.",
  security: apiSecurity,
  request: { query: ExportOrdersQuery },
  responses: {
    200: { description: "The orders as CSV", content: { "text/csv": { schema: z.string() } } },
    422: responses.invalid,
    ...errorResponses,
  },
});

ordersRouter.openapi(exportOrdersRoute, async (c) => {
  const stream = orderCsvStream(exportWithArchive(c.get("db"), c.env.ARCHIVE, c.get("account").id, c.req.valid("query")), c.get("account").currency);
  return c.body(stream, 200, { "content-type": "text/csv; charset=utf-8", "content-disposition": 'attachment; filename="orders.csv"' }) as never;
});

const showOrderRoute = createRoute({
  method: "get",
  path: "/orders/{reference}",
  tags: ["Orders"],
  summary: "Fetch one order with every line's status log",
  description:
    "The order with every line, its status, matched supplier, shipments and status log (oldest first). Another account's " +
    "reference is not found, exactly like an unknown one. An archived order (docs/archive.md) answers its JSON exactly as before it " +
    "was archived with \"archived\": true added, and the header x-archived: true.",
  security: apiSecurity,
  request: { params: z.object({ reference: referenceParam }) },
  responses: {
    200: responses.json(OrderDetail, "The order"),
    404: responses.notFound,
    ...errorResponses,
  },
});

ordersRouter.openapi(showOrderRoute, async (c) => {
  const { reference } = c.req.valid("param");
  try {
    return c.json(presentOrderDetail(await getOrder(c.get("db"), c.get("account").id, reference)), 200);
  } catch (error) {
    // Not live: perhaps archived (docs/archive.md). Its JSON as it was, archived: true added, and a header saying so.
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    const archived = await findArchived(c.get("db"), c.env.ARCHIVE, c.get("account").id, reference);
    if (!archived) throw error;
    c.header("x-archived", "true");
    return c.json(presentArchivedOrder(archived) as never, 200);
  }
});
