// POST /api/v1/orders/bulk: retry, block or unblock many orders at once, each answered on its own.
import { createRoute } from "@hono/zod-openapi";
import { apiSecurity, createRouter, errorResponses, jsonBody, responses } from "../lib/router";
import { BulkBody, BulkResponse } from "./bulk.schemas";
import { BULK_MAX_ORDERS, bulkAction } from "./bulk.service";

export const bulkRouter = createRouter();

bulkRouter.openapi(
  createRoute({
    method: "post",
    path: "/orders/bulk",
    tags: ["Orders"],
    summary: `Retry failed lines, block or unblock up to ${BULK_MAX_ORDERS} orders at once`,
    description:
      "The orders are given by references, or by filter (the order list's filters: every order they match). Each order goes through " +
      "its own action (POST /orders/{reference}/retry, /block, /unblock) and is answered on its own, in the order given (by filter: " +
      "newest first): retried (with how many lines), no_failed_lines, blocked, already_blocked, unblocked, not_blocked, or not_found " +
      `(a reference of no order of the account). At most ${BULK_MAX_ORDERS} orders: more references, or a filter matching more, is a 422 ` +
      "and nothing is done. Sending the same request again is safe: what was done is answered as already done.",
    security: apiSecurity,
    request: jsonBody(BulkBody),
    responses: { 200: responses.json(BulkResponse, "What happened to each order"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const target = input.references ? { references: input.references } : { filter: input.filter! };
    const results = await bulkAction(c.get("db"), c.get("pipeline"), c.get("account").id, input.action, target, input.reason);
    return c.json({ action: input.action, results }, 200);
  },
);
