// Order actions of the routing engine: block, unblock, match now.
import { createRoute, z } from "@hono/zod-openapi";
import { apiSecurity, createRouter, errorResponses, responses } from "../lib/router";
import { field } from "../lib/validation";
import { OrderDetail } from "../orders/orders.schemas";
import { showOrder } from "../orders/orders.present";
import { routeNow, setBlocked } from "./routing.service";

export const routingRouter = createRouter();

const params = z.object({ reference: z.string().openapi({ example: "4812039475610234" }) });
const ReasonBody = z.object({ reason: field.optionalText(500) }).openapi("BlockRequest");
const optionalBody = { body: { content: { "application/json": { schema: ReasonBody } }, required: false } };
const orderResponses = { 200: responses.json(OrderDetail, "The order"), 404: responses.notFound, 422: responses.invalid, ...errorResponses };


routingRouter.openapi(
  createRoute({
    method: "post",
    path: "/orders/{reference}/block",
    tags: ["Orders"],
    summary: "Block an order: no line of it is matched or forwarded until it is unblocked",
    security: apiSecurity,
    request: { params, ...optionalBody },
    responses: orderResponses,
  }),
  async (c) => {
    const { id: accountId } = c.get("account");
    const { reference } = c.req.valid("param");
    await setBlocked(c.get("db"), c.get("pipeline"), accountId, reference, true, c.req.valid("json")?.reason);
    return c.json(await showOrder(c.get("db"), accountId, reference), 200);
  },
);

routingRouter.openapi(
  createRoute({
    method: "post",
    path: "/orders/{reference}/unblock",
    tags: ["Orders"],
    summary: "Unblock an order and resume its processing",
    security: apiSecurity,
    request: { params, ...optionalBody },
    responses: orderResponses,
  }),
  async (c) => {
    const { id: accountId } = c.get("account");
    const { reference } = c.req.valid("param");
    await setBlocked(c.get("db"), c.get("pipeline"), accountId, reference, false, c.req.valid("json")?.reason);
    return c.json(await showOrder(c.get("db"), accountId, reference), 200);
  },
);

routingRouter.openapi(
  createRoute({
    method: "post",
    path: "/orders/{reference}/match",
    tags: ["Orders"],
    summary: "Match the order's pending lines now (on demand) and return the result",
    security: apiSecurity,
    request: { params },
    responses: orderResponses,
  }),
  async (c) => {
    const { id: accountId } = c.get("account");
    const { reference } = c.req.valid("param");
    await routeNow(c.get("db"), c.get("pipeline"), accountId, reference);
    return c.json(await showOrder(c.get("db"), accountId, reference), 200);
  },
);
