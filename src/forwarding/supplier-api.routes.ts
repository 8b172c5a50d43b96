// The supplier's side of the API: fetch work (pull channel), acknowledge it, and answer per line.
// Authenticated by a supplier key, or (callbacks) by an HMAC signature with the supplier's secret.
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { suppliers, type CancellationStatus, type DispatchStatus } from "../db/schema";
import type { Db } from "../db";
import type { AppEnv, AuthenticatedSupplier } from "../env";
import { ApiError } from "../lib/errors";
import { resourcePage } from "../lib/pagination";
import { idOrNotFound, PageQuery, pageRequest, parseId } from "../lib/params";
import { createRouter, errorResponse, errorResponses, responses } from "../lib/router";
import { signedCallback } from "./signed-callback.routes";
import { supplierKeyAuth } from "../middleware/supplier-auth";
import { acknowledgeDispatch, listSupplierDispatches } from "./supplier-dispatches.service";
import { answerErrors, applyAnswers } from "./answers.service";
import { type Answer } from "./answers.judge";
import { AnswersBody, readAnswers } from "./answers.schemas";
import { csvRows, presentSupplierDispatch, toCsv } from "./document";
import { presentAnswerResults, presentCancellationAcknowledged, presentDispatchAcknowledged } from "./forwarding.present";
import { buildCancellationDocument, presentSupplierCancellation } from "./cancellation-document";
import { acknowledgeCancellation, listSupplierCancellations, OPEN_CANCELLATION_STATUSES } from "./supplier-cancellations.service";

export const supplierApiRouter = createRouter();

const tags = ["Supplier API"];
const security = [{ SupplierKey: [] }];

const answerConflict = errorResponse(409, "An answer does not fit a line's status (or declined line); nothing was changed", {
  message: "Conflict",
  error: "The decline of order line 901 by supplier Keukenhuis is already recorded; the line cannot be given the answer 'ship'.",
});
const answersInvalid = errorResponse(422, "Validation failed; every failing field is named, a quantity past what the line has left too", {
  message: "Errors",
  errors: {
    "answers.0.quantity": ["The answers.0.quantity field must not be greater than 2, what is left to ship of line 901 (0 of 2 shipped)."],
    "answers.0.tracking_url": ["The answers.0.tracking_url field must be a valid http(s) URL."],
  },
});

/** The answers of a body, or a 422 naming every failing field: the schema's and the lines' (answers.schemas.ts). */
async function answersOf(db: Db, supplier: AuthenticatedSupplier, raw: unknown): Promise<Answer[]> {
  const read = await readAnswers(raw, (answers) => answerErrors(db, supplier, answers));
  if (!read.ok) throw ApiError.validation(read.errors);
  return read.answers;
}

/** A body the route's schema refused: the 422 with its errors and the lines' at once. */
async function refuseAnswers(db: Db, supplier: AuthenticatedSupplier, raw: unknown): Promise<never> {
  await answersOf(db, supplier, raw);
  throw new Error("A body the schema refused was read as valid.");
}
const AnswersResponse = z
  .object({ results: z.array(z.object({ line_id: z.number().int(), current_status: z.string() })) })
  .openapi("SupplierAnswersResult");

supplierApiRouter.use("/supplier/*", supplierKeyAuth);

const STATUS_FILTERS: Record<string, DispatchStatus[]> = {
  awaiting_pickup: ["awaiting_pickup"],
  acknowledged: ["acknowledged"],
  all: ["awaiting_pickup", "acknowledged"],
};

supplierApiRouter.openapi(
  createRoute({
    method: "get",
    path: "/supplier/orders",
    tags,
    summary: "Orders waiting for this supplier (pull channel), as JSON or CSV (format=csv or Accept: text/csv)",
    description:
      "The supplier's dispatches, each the order document (order, shipping address, lines with purchase prices) plus its status, " +
      "oldest first and paginated. Fetch, then acknowledge each one (POST …/ack) and answer per line (POST /api/v1/supplier/answers).",
    security,
    request: {
      query: PageQuery.extend({
        status: z
          .enum(["awaiting_pickup", "acknowledged", "all"])
          .optional()
          .openapi({ description: "awaiting_pickup (the default): not acknowledged yet; acknowledged; or all." }),
        format: z
          .enum(["json", "csv"])
          .optional()
          .openapi({ description: "csv: one row per line instead of JSON (as Accept: text/csv does); json by default." }),
      }),
    },
    responses: {
      200: {
        description: "A page of orders",
        content: { "application/json": { schema: z.object({ data: z.array(z.object({}).passthrough()) }).passthrough() }, "text/csv": { schema: z.string() } },
      },
      422: responses.invalid,
      ...errorResponses,
    },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const page = pageRequest(q);
    const supplier = c.get("supplier");
    const { total, dispatches } = await listSupplierDispatches(c.get("db"), supplier, STATUS_FILTERS[q.status ?? "awaiting_pickup"], page);
    const documents = dispatches.map((d) => presentSupplierDispatch(d, supplier));
    const wantsCsv = q.format === "csv" || (q.format === undefined && /text\/csv/i.test(c.req.header("accept") ?? ""));
    if (wantsCsv) {
      return c.body(toCsv(documents.flatMap(csvRows)), 200, { "content-type": "text/csv; charset=utf-8" });
    }
    return c.json(resourcePage(c.req.url, page, total, documents), 200);
  },
);

supplierApiRouter.openapi(
  createRoute({
    method: "post",
    path: "/supplier/orders/{dispatchId}/ack",
    tags,
    summary: "Acknowledge a fetched order: its lines become completed",
    description: "Says the supplier took the order: its lines become completed. Repeating it changes nothing.",
    security,
    request: { params: z.object({ dispatchId: z.string().openapi({ description: "The dispatch_id of an order this supplier fetched." }) }) },
    responses: {
      200: responses.json(z.object({ dispatch_id: z.number().int(), status: z.literal("acknowledged"), acknowledged_at: z.string() }), "Acknowledged"),
      404: responses.notFound,
      409: errorResponse(409, "Not awaiting pickup", {
        message: "Conflict",
        error: "Dispatch 77 is failed; only orders awaiting pickup can be acknowledged.",
      }),
      ...errorResponses,
    },
  }),
  async (c) => {
    const raw = c.req.valid("param").dispatchId;
    const id = parseId(raw);
    if (id === null) throw ApiError.notFound(`Order with dispatch id '${raw}' not found`);
    return c.json(presentDispatchAcknowledged(await acknowledgeDispatch(c.get("db"), c.get("supplier"), id)), 200);
  },
);

/** The dispatch.cancellation_requested document (./cancellation-document.ts): the webhook's body, and each item of the pull list. */
const CancellationDocumentJson = z.object({
  id: z.string().openapi({ description: "The request's idempotency key, the same on every retry (also the Idempotency-Key header)", example: "9b2c6f0e-5d1a-4c3e-9f7a-2b8d6e4c1a05" }),
  type: z.literal("dispatch.cancellation_requested"),
  cancellation_id: z.number().int().openapi({ description: "Acknowledge it with POST /api/v1/supplier/cancellations/{cancellation_id}/ack", example: 12 }),
  purpose: z.enum(["cancel", "withdraw"]).openapi({ description: "cancel: the shop cancels; withdraw: the line went to another supplier after you did not answer in time", example: "cancel" }),
  created_at: z.string().openapi({ example: "2026-11-22T10:15:02.120000Z" }),
  test: z.boolean().openapi({ description: "A test order (nothing is really sent for one)", example: false }),
  supplier: z.object({ id: z.number().int().openapi({ example: 4 }), name: z.string().openapi({ example: "Keukenhuis" }) }),
  order: z.object({ reference: z.string().openapi({ example: "4812039475610234" }), external_id: z.string().openapi({ example: "WC-1001" }) }),
  reason: z.string().nullable().openapi({ description: "The shop's reason (or why the line was withdrawn)", example: "The customer changed their mind" }),
  lines: z.array(
    z.object({
      id: z.number().int().openapi({ description: "The line's id: answer with confirm_cancellation or refuse_cancellation for it", example: 901 }),
      external_id: z.string().openapi({ example: "sku-1" }),
      name: z.string().openapi({ example: "Blue mug" }),
      ean13: z.string().nullable().openapi({ example: null }),
      reference: z.string().nullable().openapi({ example: "MUG-1" }),
      quantity: z.number().int().openapi({ description: "How much to cancel", example: 2 }),
      line_quantity: z.number().int().openapi({ description: "How much the line has", example: 5 }),
      status: z.enum(["requested", "confirmed", "refused"]).openapi({ description: "This line's answer so far", example: "requested" }),
    }),
  ),
});
const SupplierCancellationJson = CancellationDocumentJson.extend({
  status: z.enum(["queued", "sending", "requested", "answered", "failed"]).openapi({ description: "The request's status (answered: every line has its answer)", example: "requested" }),
  acknowledged_at: z.string().nullable().openapi({ description: "When you acknowledged it (POST …/ack), or null", example: null }),
}).openapi("SupplierCancellation");

/**
 * What a webhook supplier receives when a shop cancels (or a line is withdrawn): registered as an
 * OpenAPI webhook of the app's document, as the shop's events are (src/events/events.openapi.ts).
 */
export function documentSupplierMessages(router: OpenAPIHono<AppEnv>) {
  router.openAPIRegistry.registerWebhook({
    method: "post",
    path: "dispatch.cancellation_requested",
    tags,
    summary: "To a webhook supplier: cancel (or withdraw) lines it was sent; answer per line in POST /api/v1/supplier/answers or the signed callback",
    description:
      "Posted to the supplier's webhook_url, signed like an order dispatch; retried with backoff under the same Idempotency-Key (the document's id) " +
      "until a 2xx, as a dispatch is. Pull suppliers read the same document in GET /api/v1/supplier/cancellations; e-mail suppliers get it as a mail.",
    request: {
      headers: z.object({
        "x-webhook-signature": z.string().openapi({ description: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the supplier\'s webhook_secret>', example: "t=1795380000,v1=5f0c…" }),
        "idempotency-key": z.string().openapi({ description: "The document's id, the same on every retry", example: "9b2c6f0e-5d1a-4c3e-9f7a-2b8d6e4c1a05" }),
      }),
      body: { content: { "application/json": { schema: CancellationDocumentJson } } },
    },
    responses: { 200: { description: "Any 2xx takes it; 408, 429 and 5xx are retried; another 4xx fails it (the shop sees it)" } },
  });
}

const CancellationStatusFilter = z.enum(["open", "answered", "all"]);
const CANCELLATION_FILTERS: Record<z.infer<typeof CancellationStatusFilter>, CancellationStatus[]> = {
  open: OPEN_CANCELLATION_STATUSES,
  answered: ["answered"],
  all: [...OPEN_CANCELLATION_STATUSES, "answered"],
};

supplierApiRouter.openapi(
  createRoute({
    method: "get",
    path: "/supplier/cancellations",
    tags,
    summary: "Cancellation requests (and withdrawals) for this supplier: open ones wait for confirm_cancellation or refuse_cancellation per line",
    description:
      "Each is the dispatch.cancellation_requested document the webhook channel posts, with its status and acknowledged_at. Answer per line " +
      "in POST /api/v1/supplier/answers; purpose withdraw: the line went to another supplier after you did not answer in time.",
    security,
    request: {
      query: PageQuery.extend({
        status: CancellationStatusFilter.optional().openapi({ description: "open (default): waiting for an answer; answered; all" }),
      }),
    },
    responses: {
      200: responses.json(z.object({ data: z.array(SupplierCancellationJson) }).passthrough(), "A page of cancellation requests, oldest first"),
      422: responses.invalid,
      ...errorResponses,
    },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const page = pageRequest(q);
    const supplier = c.get("supplier");
    const { total, cancellations } = await listSupplierCancellations(c.get("db"), supplier, CANCELLATION_FILTERS[q.status ?? "open"], page);
    const documents = cancellations.map((x) => presentSupplierCancellation(buildCancellationDocument(x.cancellation, x.order, supplier, x.lines), x.cancellation));
    return c.json(resourcePage(c.req.url, page, total, documents), 200);
  },
);

supplierApiRouter.openapi(
  createRoute({
    method: "post",
    path: "/supplier/cancellations/{cancellationId}/ack",
    tags,
    summary: "Acknowledge a cancellation request: seen (its lines still wait for confirm_cancellation or refuse_cancellation)",
    description: "Sets acknowledged_at once; repeating it keeps the first time. It answers nothing for the lines.",
    security,
    request: { params: z.object({ cancellationId: z.string().openapi({ description: "The request's cancellation_id", example: "12" }) }) },
    responses: {
      200: responses.json(
        z.object({ cancellation_id: z.number().int(), status: z.string(), acknowledged_at: z.string() }).openapi("CancellationAcknowledged"),
        "Acknowledged (repeating it keeps the first time)",
      ),
      404: responses.notFound,
      ...errorResponses,
    },
  }),
  async (c) => {
    const id = idOrNotFound(c.req.valid("param").cancellationId, "Cancellation");
    return c.json(presentCancellationAcknowledged(await acknowledgeCancellation(c.get("db"), c.get("supplier"), id)), 200);
  },
);

supplierApiRouter.openapi(
  createRoute({
    method: "post",
    path: "/supplier/answers",
    tags,
    summary: "Answer per line: accept, decline (with reason), partial (confirmed quantity), ship (carrier, tracking)",
    description:
      "Answers for lines sent to this supplier, applied all or nothing. Every failing field is named at once (422), a quantity past " +
      "what the line has left to ship or confirm too; a line of another supplier or account is not found (404); an answer that does " +
      "not fit the line's status is a 409, and any answer to a line you declined says that your decline is already recorded. " +
      "Answers each line's status afterwards.",
    security,
    request: { body: { content: { "application/json": { schema: AnswersBody } }, required: true } },
    responses: {
      200: responses.json(AnswersResponse, "The lines' statuses after the answers"),
      404: responses.notFound,
      409: answerConflict,
      422: answersInvalid,
      ...errorResponses,
    },
  }),
  async (c) => c.json(presentAnswerResults(await applyAnswers(c.get("db"), c.get("pipeline"), c.get("supplier"), c.req.valid("json").answers)), 200),
  // A body the schema refuses: its errors and the lines' at once.
  (result, c) => (result.success ? undefined : refuseAnswers(c.get("db"), c.get("supplier"), (result as { data?: unknown }).data)),
);

supplierApiRouter.openapi(
  createRoute({
    method: "post",
    path: "/supplier-callbacks/{supplierId}",
    tags,
    summary: "The same answers, as a webhook call signed with the supplier's secret (X-Webhook-Signature)",
    description:
      "For webhook suppliers: the body of POST /api/v1/supplier/answers, signed instead of authenticated by a key. " +
      "X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\" with the supplier's secret>, at most 5 minutes " +
      "old; the previous secret is accepted until the next rotation. An unknown supplier and a bad signature answer the same 401.",
    request: { params: z.object({ supplierId: z.string().openapi({ description: "The supplier's id (its webhook_secret signs the call)." }) }) },
    responses: {
      200: responses.json(AnswersResponse, "The lines' statuses after the answers"),
      401: errorResponse(401, "Bad or stale signature, or an unknown supplier"),
      404: responses.notFound,
      409: answerConflict,
      422: answersInvalid,
    },
  }),
  async (c) => {
    const { supplier, body } = await signedCallback(c, c.req.valid("param").supplierId);
    const answers = await answersOf(c.get("db"), { id: supplier.id, accountId: supplier.accountId, name: supplier.name }, body);
    const results = await applyAnswers(c.get("db"), c.get("pipeline"), { id: supplier.id, accountId: supplier.accountId, name: supplier.name }, answers);
    return c.json(presentAnswerResults(results), 200);
  },
);
