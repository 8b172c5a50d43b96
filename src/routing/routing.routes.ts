// Order actions of the routing engine: block, unblock, match now; and on one stuck line: send it to
// a supplier by hand, re-route it now; of a partly confirmed line's rest: cancel it.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Actor } from "../db/schema";
import type { AppEnv } from "../env";
import { idOrNotFound } from "../lib/params";
import { apiSecurity, createRouter, errorResponse, errorResponses, jsonBody, responses } from "../lib/router";
import { field } from "../lib/validation";
import { OrderDetail, referenceParam } from "../orders/orders.schemas";
import { presentOrderDetail } from "../orders/orders.present";
import { getOrder } from "../orders/orders.service";
import { assignLine, cancelRest, rerouteLine } from "./line-actions";
import { matchNow, setBlocked } from "./routing.service";

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
    return c.json(presentOrderDetail(await getOrder(c.get("db"), accountId, reference)), 200);
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
    return c.json(presentOrderDetail(await getOrder(c.get("db"), accountId, reference)), 200);
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
    await matchNow(c.get("db"), c.get("pipeline"), accountId, reference);
    return c.json(presentOrderDetail(await getOrder(c.get("db"), accountId, reference)), 200);
  },
);

// ---- One stuck line: send it to a supplier by hand, re-route it now ----------------------

const lineParams = z.object({
  reference: referenceParam,
  line_id: z.string().openapi({ example: "901", description: "The line's id (order_lines[].id of the order). A line of another order is not found." }),
});
const AssignBody = z
  .object({ supplier_id: field.int({ min: 1, max: 1e15 }).openapi({ description: "An active supplier of the account.", example: 4 }) })
  .openapi("AssignLineRequest", { example: { supplier_id: 4 } });
const conflict = (example: string) => errorResponse(409, "The line cannot be acted on now (its state, a blocked order, a cancellation waiting); nothing was changed", { message: "Conflict", error: example });
/** Who acts through the API: the request's API key. */
const apiActor = (c: Context<AppEnv>): Actor => ({ channel: "api", api_key_id: c.get("account").apiKeyId, session_id: null });

routingRouter.openapi(
  createRoute({
    method: "post",
    path: "/orders/{reference}/lines/{line_id}/assign",
    tags: ["Orders"],
    summary: "Send a stuck line to a supplier of your choosing",
    description:
      "A pending, failed or declined line goes to the supplier given (any active supplier of the account) and becomes ruled; the pipeline " +
      "then sends it on that supplier's channel. Logged on the line with who did it (\"Sent to supplier Tuinhout by hand (API key #3)\"), " +
      "evented as order_line.assigned, and shown by explain (manual_decision). A supplier the line had goes into its re-route chain. " +
      "Of a partly confirmed line whose rest no supplier took, only the rest goes, split off as a new line. " +
      "422: not a supplier of the account, or an inactive one. 409: a line in another state (ruled, completed, skipped, partially_completed " +
      "with no rest), a blocked order, or a cancellation of the line waiting for its supplier's answer. Nothing is changed on an error. Answers the order.",
    security: apiSecurity,
    request: { params: lineParams, ...jsonBody(AssignBody) },
    responses: {
      200: responses.json(OrderDetail, "The order, the line ruled to the supplier chosen"),
      404: responses.notFound,
      409: conflict("Order line 901 is completed; only pending, failed or declined lines, or the rest of a partly confirmed line, can be sent to a supplier by hand."),
      422: responses.invalid,
      ...errorResponses,
    },
  }),
  async (c) => {
    const { id: accountId } = c.get("account");
    const { reference, line_id } = c.req.valid("param");
    const lineId = idOrNotFound(line_id, "Order line");
    await assignLine(c.get("db"), c.get("pipeline"), accountId, reference, lineId, c.req.valid("json").supplier_id, apiActor(c));
    return c.json(presentOrderDetail(await getOrder(c.get("db"), accountId, reference)), 200);
  },
);

routingRouter.openapi(
  createRoute({
    method: "post",
    path: "/orders/{reference}/lines/{line_id}/reroute",
    tags: ["Orders"],
    summary: "Re-route a failed or declined line now, to the next eligible supplier",
    description:
      "Decides as an automatic re-route does: the next routing rule that holds, else the cheapest catalogue offer with stock, else the " +
      "supplier named on the line, never a supplier the line already had, within the account's reroute_max_attempts, and not past a rule " +
      "with no_reroute. It applies even while the account's automatic re-routing is off. Logged with who did it, evented as " +
      "order_line.rerouted. Of a partly confirmed line whose rest no supplier took, only the rest goes, split off as a new line. " +
      "409, with nothing changed: no supplier can take the line (the reason is said), a line that is not failed or " +
      "declined (nor partly confirmed with a rest), a blocked order, or a cancellation of the line waiting. No body. Answers the order.",
    security: apiSecurity,
    request: { params: lineParams },
    responses: {
      200: responses.json(OrderDetail, "The order, the line ruled to its next supplier"),
      404: responses.notFound,
      409: conflict("Order line 901 cannot be re-routed: 3 of 3 suppliers tried. Send it to a supplier by hand instead."),
      ...errorResponses,
    },
  }),
  async (c) => {
    const { id: accountId } = c.get("account");
    const { reference, line_id } = c.req.valid("param");
    const lineId = idOrNotFound(line_id, "Order line");
    await rerouteLine(c.get("db"), c.get("pipeline"), accountId, reference, lineId, apiActor(c));
    return c.json(presentOrderDetail(await getOrder(c.get("db"), accountId, reference)), 200);
  },
);

const CancelRestBody = z
  .object({
    reason: field
      .optionalText(500)
      .openapi({ description: "Why, in a few words (up to 500 characters); it ends the line's log entry and the cancellation's reason the shop is told." }),
  })
  .openapi("CancelRestRequest", { example: { reason: "The customer does not want to wait for the third one" } });

routingRouter.openapi(
  createRoute({
    method: "post",
    path: "/orders/{reference}/lines/{line_id}/cancel-rest",
    tags: ["Orders"],
    summary: "Cancel the rest of a partly confirmed line",
    description:
      "A partially_completed line whose supplier confirmed fewer than its quantity, and whose rest no other supplier took, keeps what its " +
      "supplier confirmed; the rest is split off as a new line, skipped (cancelled) at once: no supplier has it, so none is asked. " +
      "Logged on the line with who did it (\"Supplier Keukenhuis confirmed 2 of 3; the other 1 cancelled by hand (API key #3)\", then the " +
      "reason), evented as order_line.status_changed for the new line and order_line.cancellation_confirmed (supplier null). The body is " +
      "optional. 409, with nothing changed: a line with no rest (any other state, or the rest already sent on or cancelled), a blocked " +
      "order, or a cancellation of the line waiting. 422: a reason that is not text or is longer than 500 characters. Answers the order.",
    security: apiSecurity,
    request: { params: lineParams, body: { content: { "application/json": { schema: CancelRestBody } }, required: false } },
    responses: {
      200: responses.json(OrderDetail, "The order, the line at what its supplier confirmed and its rest skipped"),
      404: responses.notFound,
      409: conflict("Order line 901 is partially_completed with no rest left: its supplier confirmed all 2 of it; it cannot be cancelled in part this way."),
      422: responses.invalid,
      ...errorResponses,
    },
  }),
  async (c) => {
    const { id: accountId } = c.get("account");
    const { reference, line_id } = c.req.valid("param");
    const lineId = idOrNotFound(line_id, "Order line");
    await cancelRest(c.get("db"), accountId, reference, lineId, apiActor(c), c.req.valid("json")?.reason ?? null);
    return c.json(presentOrderDetail(await getOrder(c.get("db"), accountId, reference)), 200);
  },
);
