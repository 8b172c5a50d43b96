// Shop and operator actions on forwarding: retry failed lines, complete by hand, see what was sent.
import { createRoute, z } from "@hono/zod-openapi";
import { apiSecurity, createRouter, errorResponse, errorResponses, responses } from "../lib/router";
import { field } from "../lib/validation";
import { OrderDetail, referenceParam } from "../orders/orders.schemas";
import { presentOrderDetail } from "../orders/orders.present";
import { getOrder } from "../orders/orders.service";
import { presentDispatch } from "./forwarding.present";
import { completeByHand, listDispatches, retryFailedLines } from "./forwarding.service";

export const forwardingRouter = createRouter();

const params = z.object({ reference: referenceParam });
const CompleteBody = z
  .object({
    line_ids: z
      .array(field.int({ min: 1, max: 1e15 }))
      .min(1)
      .max(500)
      .optional()
      .openapi({ description: "The ids of the lines to complete (1 to 500, each ruled). Leave the body out to complete every ruled line." }),
  })
  .openapi("CompleteRequest", { example: { line_ids: [901] } });
const tags = ["Orders"];

forwardingRouter.openapi(
  createRoute({
    method: "post",
    path: "/orders/{reference}/retry",
    tags,
    summary: "Send the order's failed lines again",
    description:
      "Moves the order's failed lines back to ruled (\"Retry requested: sending again\") and sends them again through the queue. " +
      "A second click finds no failed lines and changes nothing. Answers the order.",
    security: apiSecurity,
    request: { params },
    responses: { 200: responses.json(OrderDetail, "The order"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => {
    const { id: accountId } = c.get("account");
    const { reference } = c.req.valid("param");
    await retryFailedLines(c.get("db"), c.get("pipeline"), accountId, reference);
    return c.json(presentOrderDetail(await getOrder(c.get("db"), accountId, reference)), 200);
  },
);

forwardingRouter.openapi(
  createRoute({
    method: "post",
    path: "/orders/{reference}/complete",
    tags,
    summary: "Mark ruled lines completed by hand (manual channel): all of them, or line_ids",
    description:
      "For suppliers on the manual channel, to which nothing is sent: completes the listed ruled lines, or with no body every ruled " +
      "line of the order. The body is optional: an empty body, with or without Content-Type, is no body. A listed line that is not " +
      "ruled is a 409 and nothing changes. Answers the order.",
    security: apiSecurity,
    request: { params, body: { content: { "application/json": { schema: CompleteBody } }, required: false } },
    responses: {
      200: responses.json(OrderDetail, "The order"),
      404: responses.notFound,
      409: errorResponse(409, "A listed line is not ruled", {
        message: "Conflict",
        error: "Order line 901 is completed; only ruled lines can be completed by hand.",
      }),
      422: responses.invalid,
      ...errorResponses,
    },
  }),
  async (c) => {
    const { id: accountId } = c.get("account");
    const { reference } = c.req.valid("param");
    await completeByHand(c.get("db"), accountId, reference, c.req.valid("json")?.line_ids);
    return c.json(presentOrderDetail(await getOrder(c.get("db"), accountId, reference)), 200);
  },
);

forwardingRouter.openapi(
  createRoute({
    method: "get",
    path: "/orders/{reference}/dispatches",
    tags,
    summary: "What was (or would have been) sent to each supplier, with its status and attempts",
    description:
      "One dispatch per supplier of the order: its channel, status, attempts, last error, the line ids and the document itself " +
      "(for test orders and the manual channel, what would have been sent); attempt_log: its last 20 attempts on a push channel, " +
      "oldest first, each with attempt, at, channel, to, lines, outcome (accepted, http_error, network_error, timeout, email_error, " +
      "not_sent), http_status, response (the supplier's answer, at most 500 characters) and duration_ms.",
    security: apiSecurity,
    request: { params },
    responses: { 200: responses.json(z.object({ data: z.array(z.object({}).passthrough()) }), "The dispatches"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => c.json({ data: (await listDispatches(c.get("db"), c.get("account").id, c.req.valid("param").reference)).map(presentDispatch) }, 200),
);
