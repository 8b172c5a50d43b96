// HTTP contract of returns, the supplier's side (a supplier key): its open returns (the pull
// channel's way to hear of them; the others are also told on their channel), one of them, and its
// answer: authorise, decline, receive, credit, close. Another supplier's return is a 404. The same
// answer may come as a callback signed with the supplier's secret, as dispatch answers' callbacks are.
import { createRoute, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import type { ReturnStatus } from "../db/schema";
import type { AppEnv } from "../env";
import { resourcePage } from "../lib/pagination";
import { idOrNotFound, PageQuery, pageRequest } from "../lib/params";
import { createRouter, errorResponse, errorResponses, responses } from "../lib/router";
import { signedCallback } from "../forwarding/signed-callback.routes";
import { parseOrThrow } from "../lib/validation";
import { supplierKeyAuth } from "../middleware/supplier-auth";
import { moveReturn } from "./answers.service";
import { presentSupplierReturn } from "./returns.present";
import { ReturnAnswerBody } from "./returns.schemas";
import { getSupplierReturn, listSupplierReturns, OPEN_RETURN_STATUSES } from "./returns.service";

export const supplierReturnsRouter = createRouter();

const tags = ["Supplier API"];
const security = [{ SupplierKey: [] }];

// The supplier API's own router authenticates /supplier/* already when it runs first; never twice.
const authenticated = createMiddleware<AppEnv>((c, next) => (c.get("supplier") ? next() : supplierKeyAuth(c, next)));
supplierReturnsRouter.use("/supplier/returns", authenticated);
supplierReturnsRouter.use("/supplier/returns/*", authenticated);

const SupplierReturnJson = z.looseObject({ id: z.number().int(), status: z.string() }).openapi("SupplierReturn");
const idParams = z.object({ id: z.string().openapi({ description: "The return's id", example: "12" }) });

const answerConflict = errorResponse(409, "The return is in a state that does not take this answer; nothing was written", {
  message: "Conflict",
  error: "Return 12 is authorised; it cannot be given the answer 'credit' (only when received).",
});

const FILTERS: Record<string, ReturnStatus[]> = { open: OPEN_RETURN_STATUSES, all: ["requested", "authorised", "declined", "in_transit", "received", "credited", "closed", "cancelled"] };

supplierReturnsRouter.openapi(
  createRoute({
    method: "get",
    path: "/supplier/returns",
    tags,
    summary: "This supplier's returns: open ones (default) or all, oldest first, paginated",
    description: "Each with its order, lines (what comes back, why) and state; answer with POST /api/v1/supplier/returns/{id}/answer.",
    security,
    request: { query: PageQuery.extend({ status: z.enum(["open", "all"]).optional().openapi({ description: "open (default) or all" }) }) },
    responses: { 200: responses.json(z.looseObject({ data: z.array(SupplierReturnJson) }), "A page of returns"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const page = pageRequest(q);
    const { total, data } = await listSupplierReturns(c.get("db"), c.get("supplier"), FILTERS[q.status ?? "open"], page);
    return c.json(resourcePage(c.req.url, page, total, data.map(presentSupplierReturn)), 200);
  },
);

supplierReturnsRouter.openapi(
  createRoute({
    method: "get",
    path: "/supplier/returns/{id}",
    tags,
    summary: "One of this supplier's returns",
    description: "Another supplier's return is not found, exactly like an unknown id.",
    security,
    request: { params: idParams },
    responses: { 200: responses.json(SupplierReturnJson, "The return"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => c.json(presentSupplierReturn(await getSupplierReturn(c.get("db"), c.get("supplier"), idOrNotFound(c.req.valid("param").id, "Return"))), 200),
);

supplierReturnsRouter.openapi(
  createRoute({
    method: "post",
    path: "/supplier/returns/{id}/answer",
    tags,
    summary: "Answer a return: authorise (rma, return_address, label_url) | decline (reason) | receive (lines) | credit (amount, currency) | close (reason)",
    description:
      "authorise and decline a requested return; receive one authorised or in transit (per line at most what it asks back, condition new, opened or damaged); " +
      "credit or close (no credit) a received one. An answer that skips a state, or comes after another answer moved the return on, is a 409 naming its state; nothing is written.",
    security,
    request: { params: idParams, body: { content: { "application/json": { schema: ReturnAnswerBody } }, required: true } },
    responses: {
      200: responses.json(SupplierReturnJson, "The return as the answer left it"),
      404: responses.notFound,
      409: answerConflict,
      422: responses.invalid,
      ...errorResponses,
    },
  }),
  async (c) => {
    const supplier = c.get("supplier");
    const id = idOrNotFound(c.req.valid("param").id, "Return");
    await moveReturn(c.get("db"), c.get("pipeline"), { accountId: supplier.accountId, supplierId: supplier.id, who: `supplier ${supplier.name} (API)` }, id, c.req.valid("json"));
    return c.json(presentSupplierReturn(await getSupplierReturn(c.get("db"), supplier, id)), 200);
  },
);

supplierReturnsRouter.openapi(
  createRoute({
    method: "post",
    path: "/supplier-callbacks/{supplierId}/returns/{id}/answer",
    tags,
    summary: "The same answer to a return, as a call signed with the supplier's secret (X-Webhook-Signature)",
    description:
      "The body of POST /api/v1/supplier/returns/{id}/answer, signed instead of authenticated by a key, as dispatch answers' callbacks are: " +
      "X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\" with the supplier's secret>, at most 5 minutes old; the previous " +
      "secret is accepted until the next rotation. An unknown supplier and a bad signature answer the same 401. A replayed call finds the return moved " +
      "on by the first: a 409 naming its state, nothing written.",
    request: { params: z.object({ supplierId: z.string().openapi({ description: "The supplier's id (its webhook_secret signs the call)." }), id: idParams.shape.id }) },
    responses: {
      200: responses.json(SupplierReturnJson, "The return as the answer left it"),
      401: errorResponse(401, "Bad or stale signature, or an unknown supplier"),
      404: responses.notFound,
      409: answerConflict,
      422: responses.invalid,
    },
  }),
  async (c) => {
    const params = c.req.valid("param");
    const { supplier, body } = await signedCallback(c, params.supplierId);
    const answer = parseOrThrow(ReturnAnswerBody, body);
    const id = idOrNotFound(params.id, "Return");
    const who = { id: supplier.id, accountId: supplier.accountId };
    await moveReturn(c.get("db"), c.get("pipeline"), { ...who, supplierId: supplier.id, who: `supplier ${supplier.name} (callback)` }, id, answer);
    return c.json(presentSupplierReturn(await getSupplierReturn(c.get("db"), who, id)), 200);
  },
);
