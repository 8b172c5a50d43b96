// Order actions of the routing engine: block, unblock, match now.
import { createRoute, z } from "@hono/zod-openapi";
import { apiSecurity, createRouter, errorResponses, responses } from "../lib/router";
import { field } from "../lib/validation";
import { OrderDetail, referenceParam } from "../orders/orders.schemas";
import { showOrder } from "../orders/orders.present";
import { routeNow, setBlocked } from "./routing.service";

export const routingRouter = createRouter();

const params = z.object({ reference: referenceParam });
const ReasonBody = z
  .object({
    reason: field
      .optionalText(500)
      .openapi({ description: "Why, in a few words (up to 500 characters); it ends the log entry written on every line of the order." }),
  })
  .openapi("BlockRequest", { example: { reason: "Waiting for the payment to clear" } });
const optionalBody = { body: { content: { "application/json": { schema: ReasonBody } }, required: false } };
const orderResponses = { 200: responses.json(OrderDetail, "The order"), 404: responses.notFound, 422: responses.invalid, ...errorResponses };


routingRouter.openapi(
  createRoute({
    method: "post",
    path: "/orders/{reference}/block",
    tags: ["Orders"],
    summary: "Block an order: no line of it is matched or forwarded until it is unblocked",
    description:
      "Sets the order's blocked flag and logs \"Order blocked by hand\" (with the reason) on every line; a send already queued is held " +
      "back. The body is optional: an empty body, with or without Content-Type, is no body. Answers the order.",
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
    description:
      "Clears the blocked flag, logs it on every line and queues the order for matching again. A manual unblock stands: the order's " +
      "block rules are passed over from then on. The body is optional. Answers the order.",
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
    description:
      "Runs matching on the order's pending lines at once (rules, then the catalogue, then the line's supplier field) and answers the " +
      "order with each line's new status and log; lines that became ruled go on to their suppliers through the queue.",
    security: apiSecurity,
    request: { params },
    responses: { 200: orderResponses[200], 404: orderResponses[404], ...errorResponses },
  }),
  async (c) => {
    const { id: accountId } = c.get("account");
    const { reference } = c.req.valid("param");
    await routeNow(c.get("db"), c.get("pipeline"), accountId, reference);
    return c.json(await showOrder(c.get("db"), accountId, reference), 200);
  },
);
