// Shop and operator actions on forwarding: retry failed lines, complete by hand, see what was sent.
import { createRoute, z } from "@hono/zod-openapi";
import { apiSecurity, createRouter, errorResponses, responses } from "../lib/router";
import { field } from "../lib/validation";
import { OrderDetail } from "../orders/orders.schemas";
import { showOrder } from "../orders/orders.present";
import { presentDispatch } from "./forwarding.present";
import { completeByHand, listDispatches, retryFailedLines } from "./forwarding.service";

export const forwardingRouter = createRouter();

const params = z.object({ reference: z.string().openapi({ example: "4812039475610234" }) });
const tags = ["Orders"];

forwardingRouter.openapi(
  createRoute({
    method: "post",
    path: "/orders/{reference}/retry",
    tags,
    summary: "Send the order's failed lines again",
    security: apiSecurity,
    request: { params },
    responses: { 200: responses.json(OrderDetail, "The order"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => {
    const { id: accountId } = c.get("account");
    const { reference } = c.req.valid("param");
    await retryFailedLines(c.get("db"), c.get("pipeline"), accountId, reference);
    return c.json(await showOrder(c.get("db"), accountId, reference), 200);
  },
);

forwardingRouter.openapi(
  createRoute({
    method: "post",
    path: "/orders/{reference}/complete",
    tags,
    summary: "Mark ruled lines completed by hand (manual channel): all of them, or line_ids",
    security: apiSecurity,
    request: {
      params,
      body: {
        content: { "application/json": { schema: z.object({ line_ids: z.array(field.int({ min: 1, max: 1e15 })).min(1).max(500).optional() }) } },
        required: false,
      },
    },
    responses: {
      200: responses.json(OrderDetail, "The order"),
      404: responses.notFound,
      409: responses.json(z.object({ message: z.string(), error: z.string() }), "A listed line is not ruled"),
      422: responses.invalid,
      ...errorResponses,
    },
  }),
  async (c) => {
    const { id: accountId } = c.get("account");
    const { reference } = c.req.valid("param");
    await completeByHand(c.get("db"), accountId, reference, c.req.valid("json")?.line_ids);
    return c.json(await showOrder(c.get("db"), accountId, reference), 200);
  },
);

forwardingRouter.openapi(
  createRoute({
    method: "get",
    path: "/orders/{reference}/dispatches",
    tags,
    summary: "What was (or would have been) sent to each supplier, with its status and attempts",
    security: apiSecurity,
    request: { params },
    responses: { 200: responses.json(z.object({ data: z.array(z.object({}).passthrough()) }), "The dispatches"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => c.json({ data: (await listDispatches(c.get("db"), c.get("account").id, c.req.valid("param").reference)).map(presentDispatch) }, 200),
);
