// HTTP contract of returns, the shop's side: request a return of shipped lines (one per supplier),
// read an order's and the account's returns, one return with its log, give the customer's tracking,
// cancel one that has not arrived. The supplier's side is ./supplier-returns.routes.ts, a supplier's
// return terms ./settings.routes.ts.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { findArchived, findArchivedReturn } from "../archive/archive.service";
import { presentArchivedReturn } from "../archive/archive.present";
import { RETURN_STATUSES } from "../db/schema";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { resourcePage } from "../lib/pagination";
import { idOrNotFound, PageQuery, pageRequest } from "../lib/params";
import { apiSecurity, createRouter, errorResponse, errorResponses, responses } from "../lib/router";
import { parseIsoFilter } from "../lib/time";
import { field } from "../lib/validation";
import { moveReturn } from "./answers.service";
import { requestReturn } from "./request.service";
import { presentReturn } from "./returns.present";
import { CancelReturnBody, ReturnRequestBody, TrackingBody } from "./returns.schemas";
import { getReturn, listOrderReturns, listReturns } from "./returns.service";

export const returnsRouter = createRouter();

const tags = ["Returns"];
const ReturnJson = z.looseObject({ id: z.number().int(), status: z.enum(RETURN_STATUSES) }).openapi("Return");
const orderParams = z.object({ reference: z.string().openapi({ description: "The order's reference", example: "4812039475610234" }) });
const idParams = z.object({ id: z.string().openapi({ description: "The return's id", example: "12" }) });
const conflict = errorResponse(409, "The return is in a state that does not allow this; nothing was written", {
  message: "Conflict",
  error: "Return 12 is received; it cannot be given the answer 'cancel' (only when requested or authorised or in_transit).",
});
const invalid = errorResponse(422, "Validation failed; every failing field is named", {
  message: "Errors",
  errors: { "lines.0.quantity": ["The lines.0.quantity field must not be greater than 1, what is shipped of line 901 and not returned yet (2 shipped, 1 returned)."] },
});

/** Who did it, for the return's log. */
export const shopActor = (c: Context<AppEnv>) => `shop (API key #${c.get("account").apiKeyId})`;

returnsRouter.openapi(
  createRoute({
    method: "post",
    path: "/orders/{reference}/returns",
    tags,
    summary: "Request a return of shipped lines: one return per supplier that shipped them",
    description:
      "Only shipped quantity can be returned, summed over every return of the line that is not declined or cancelled. " +
      "Past a supplier's return window (days after the line's last shipment) a 422 unless force is true. All or nothing.",
    security: apiSecurity,
    request: { params: orderParams, body: { content: { "application/json": { schema: ReturnRequestBody } }, required: true } },
    responses: { 201: responses.json(z.object({ data: z.array(ReturnJson) }), "The returns created, one per supplier"), 404: responses.notFound, 409: conflict, 422: invalid, ...errorResponses },
  }),
  async (c) => {
    const { id: accountId } = c.get("account");
    const { reference } = c.req.valid("param");
    const { returnIds } = await requestReturn(c.get("db"), c.get("pipeline"), accountId, reference, c.req.valid("json"), shopActor(c));
    const all = await listOrderReturns(c.get("db"), accountId, reference);
    return c.json({ data: all.filter((v) => returnIds.includes(v.ret.id)).map(presentReturn) }, 201);
  },
);

returnsRouter.openapi(
  createRoute({
    method: "get",
    path: "/orders/{reference}/returns",
    tags,
    summary: "The order's returns, oldest first, each with its lines and log",
    description:
      "Every return of the order (one per supplier per request), with its lines (asked back, received, condition), its log and its notices to the supplier. " +
      "An archived order's returns (all ended) answer as they were, each with \"archived\": true added, and the header x-archived: true.",
    security: apiSecurity,
    request: { params: orderParams },
    responses: { 200: responses.json(z.object({ data: z.array(ReturnJson) }), "The order's returns"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => {
    const { reference } = c.req.valid("param");
    try {
      return c.json({ data: (await listOrderReturns(c.get("db"), c.get("account").id, reference)).map(presentReturn) }, 200);
    } catch (error) {
      // The order is archived (a 409 to changes): its returns as they were, each marked, and a header saying so.
      if (!(error instanceof ApiError) || error.status !== 409) throw error;
      const archived = await findArchived(c.get("db"), c.env.ARCHIVE, c.get("account").id, reference);
      if (!archived) throw error;
      c.header("x-archived", "true");
      return c.json({ data: (archived.returns ?? []).map(presentArchivedReturn) } as never, 200);
    }
  },
);

const dateFilter = (name: string, endOfDay: boolean) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return undefined;
      const iso = parseIsoFilter(v, endOfDay);
      if (iso === null) ctx.addIssue({ code: "custom", message: `The :attribute field must be a date (YYYY-MM-DD) or an ISO 8601 date-time.` });
      return iso ?? undefined;
    })
    .openapi({ type: "string", description: name });

const ListQuery = PageQuery.extend({
  status: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (!v) return undefined;
      const list = v.split(",").map((s) => s.trim());
      const bad = list.find((s) => !(RETURN_STATUSES as readonly string[]).includes(s));
      if (bad !== undefined) ctx.addIssue({ code: "custom", message: `The selected :attribute is invalid. Allowed: ${RETURN_STATUSES.join(", ")}.` });
      return list as (typeof RETURN_STATUSES)[number][];
    })
    .openapi({ type: "string", description: "One or more states, comma-separated (requested,in_transit)" }),
  supplier_id: field.optionalInt({ min: 1, max: 1e15 }).openapi({ type: "integer", description: "Only this supplier's returns" }),
  created_from: dateFilter("Created at or after (YYYY-MM-DD or ISO 8601)", false),
  created_to: dateFilter("Created at or before (YYYY-MM-DD: the whole day)", true),
});

returnsRouter.openapi(
  createRoute({
    method: "get",
    path: "/returns",
    tags,
    summary: "The account's returns, newest first, filtered by status, supplier and date, paginated like the orders list",
    description: "One count, one page and one batch for the page's lines, logs and notices; filters combine (AND).",
    security: apiSecurity,
    request: { query: ListQuery },
    responses: { 200: responses.json(z.looseObject({ data: z.array(ReturnJson) }), "A page of returns"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const page = pageRequest(q);
    const { total, data } = await listReturns(c.get("db"), c.get("account").id, { status: q.status, supplierId: q.supplier_id, createdFrom: q.created_from, createdTo: q.created_to }, page);
    return c.json(resourcePage(c.req.url, page, total, data.map(presentReturn)), 200);
  },
);

returnsRouter.openapi(
  createRoute({
    method: "get",
    path: "/returns/{id}",
    tags,
    summary: "One return, with its lines, its log (who did what, when) and its notices to the supplier",
    description:
      "Another account's return is not found, exactly like an unknown id. A return of an archived order (docs/archive.md) answers its JSON " +
      "exactly as before the archive with \"archived\": true added, and the header x-archived: true.",
    security: apiSecurity,
    request: { params: idParams },
    responses: { 200: responses.json(ReturnJson, "The return"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => {
    const id = idOrNotFound(c.req.valid("param").id, "Return");
    try {
      return c.json(presentReturn(await getReturn(c.get("db"), c.get("account").id, id)), 200);
    } catch (error) {
      // Not live: perhaps its order was archived, with the return in its object.
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      const archived = await findArchivedReturn(c.get("db"), c.env.ARCHIVE, c.get("account").id, id);
      if (!archived) throw error;
      c.header("x-archived", "true");
      return c.json(presentArchivedReturn(archived) as never, 200);
    }
  },
);

returnsRouter.openapi(
  createRoute({
    method: "post",
    path: "/returns/{id}/tracking",
    tags,
    summary: "The customer's parcel tracking: an authorised return goes in transit",
    description: "Taken while the return is authorised (it moves to in_transit) or in transit (the tracking is replaced); otherwise a 409 naming its state.",
    security: apiSecurity,
    request: { params: idParams, body: { content: { "application/json": { schema: TrackingBody } }, required: true } },
    responses: { 200: responses.json(ReturnJson, "The return"), 404: responses.notFound, 409: conflict, 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const id = idOrNotFound(c.req.valid("param").id, "Return");
    const { id: accountId } = c.get("account");
    await moveReturn(c.get("db"), c.get("pipeline"), { accountId, who: shopActor(c) }, id, { action: "tracking", ...c.req.valid("json") });
    return c.json(presentReturn(await getReturn(c.get("db"), accountId, id)), 200);
  },
);

returnsRouter.openapi(
  createRoute({
    method: "post",
    path: "/returns/{id}/cancel",
    tags,
    summary: "Withdraw a return that has not arrived (requested, authorised or in transit); the supplier is told",
    description: "A supplier told of the return on a push channel is told it was withdrawn the same way; what it asked back can be returned again.",
    security: apiSecurity,
    request: { params: idParams, body: { content: { "application/json": { schema: CancelReturnBody } }, required: false } },
    responses: { 200: responses.json(ReturnJson, "The return"), 404: responses.notFound, 409: conflict, 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const id = idOrNotFound(c.req.valid("param").id, "Return");
    const { id: accountId } = c.get("account");
    await moveReturn(c.get("db"), c.get("pipeline"), { accountId, who: shopActor(c) }, id, { action: "cancel", reason: c.req.valid("json")?.reason });
    return c.json(presentReturn(await getReturn(c.get("db"), accountId, id)), 200);
  },
);
