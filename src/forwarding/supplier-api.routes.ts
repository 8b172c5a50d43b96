// The supplier's side of the API: fetch work (pull channel), acknowledge it, and answer per line.
// Authenticated by a supplier key, or (callbacks) by an HMAC signature with the supplier's secret.
import { createRoute, z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { suppliers } from "../db/schema";
import { ApiError } from "../lib/errors";
import { resourcePage } from "../lib/pagination";
import { PageQuery, pageRequest, parseId } from "../lib/params";
import { createRouter, errorResponses, responses } from "../lib/router";
import { verifySignature } from "../lib/signature";
import { field, parseOrThrow } from "../lib/validation";
import { supplierKeyAuth } from "../middleware/supplier-auth";
import { acknowledgeDispatch, applyAnswers, listSupplierDispatches } from "./answers.service";
import { csvRows, presentSupplierDispatch, toCsv } from "./document";

export const supplierApiRouter = createRouter();

const tags = ["Supplier API"];
const security = [{ SupplierKey: [] }];

const AnswerItem = z
  .object({
    line_id: field.int({ min: 1, max: 1e15 }),
    action: z.enum(["accept", "decline", "partial", "ship"]),
    reason: field.optionalText(1000),
    quantity: field.optionalInt({ min: 1, max: 1_000_000 }),
    carrier: field.optionalText(255),
    tracking_number: field.optionalText(255),
    tracking_url: field.optionalText(2048),
    shipment_id: field.optionalText(255),
  })
  .superRefine((a, ctx) => {
    if (a.action === "decline" && !a.reason) ctx.addIssue({ code: "custom", path: ["reason"], message: "The :attribute field is required when action is decline." });
    if (a.action === "partial" && a.quantity === undefined) {
      ctx.addIssue({ code: "custom", path: ["quantity"], message: "The :attribute field is required when action is partial." });
    }
  });
const AnswersBody = z.object({ answers: z.array(AnswerItem).min(1).max(500) }).openapi("SupplierAnswers");
const AnswersResponse = z
  .object({ results: z.array(z.object({ line_id: z.number().int(), current_status: z.string() })) })
  .openapi("SupplierAnswersResult");

supplierApiRouter.use("/supplier/*", supplierKeyAuth);

const STATUS_FILTERS: Record<string, string[]> = {
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
    security,
    request: {
      query: PageQuery.extend({
        status: z.enum(["awaiting_pickup", "acknowledged", "all"]).optional(),
        format: z.enum(["json", "csv"]).optional(),
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
    security,
    request: { params: z.object({ dispatchId: z.string() }) },
    responses: {
      200: responses.json(z.object({ dispatch_id: z.number().int(), status: z.literal("acknowledged"), acknowledged_at: z.string() }), "Acknowledged"),
      404: responses.notFound,
      409: responses.json(z.object({ message: z.string(), error: z.string() }), "Not awaiting pickup"),
      ...errorResponses,
    },
  }),
  async (c) => {
    const raw = c.req.valid("param").dispatchId;
    const id = parseId(raw);
    if (id === null) throw ApiError.notFound(`Order with dispatch id '${raw}' not found`);
    return c.json(await acknowledgeDispatch(c.get("db"), c.get("supplier"), id), 200);
  },
);

supplierApiRouter.openapi(
  createRoute({
    method: "post",
    path: "/supplier/answers",
    tags,
    summary: "Answer per line: accept, decline (with reason), partial (confirmed quantity), ship (carrier, tracking)",
    security,
    request: { body: { content: { "application/json": { schema: AnswersBody } }, required: true } },
    responses: {
      200: responses.json(AnswersResponse, "The lines' statuses after the answers"),
      404: responses.notFound,
      409: responses.json(z.object({ message: z.string(), error: z.string() }), "An answer does not fit a line's status"),
      422: responses.invalid,
      ...errorResponses,
    },
  }),
  async (c) => c.json({ results: await applyAnswers(c.get("db"), c.get("supplier"), c.req.valid("json").answers) }, 200),
);

supplierApiRouter.openapi(
  createRoute({
    method: "post",
    path: "/supplier-callbacks/{supplierId}",
    tags,
    summary: "The same answers, as a webhook call signed with the supplier's secret (X-Webhook-Signature)",
    request: { params: z.object({ supplierId: z.string() }) },
    responses: {
      200: responses.json(AnswersResponse, "The lines' statuses after the answers"),
      401: responses.json(z.object({ message: z.string(), error: z.string() }), "Bad or stale signature"),
      404: responses.notFound,
      409: responses.json(z.object({ message: z.string(), error: z.string() }), "An answer does not fit a line's status"),
      422: responses.invalid,
    },
  }),
  async (c) => {
    const raw = c.req.valid("param").supplierId;
    const id = parseId(raw);
    const supplier = id === null ? undefined : await c.get("db").query.suppliers.findFirst({ where: and(eq(suppliers.id, id), eq(suppliers.active, true)) });
    // An unknown supplier and a bad signature look the same: nothing to probe.
    const body = await c.req.text();
    const secrets = [supplier?.webhookSecret, supplier?.webhookSecretPrevious].filter((s): s is string => !!s);
    const verdict = await verifySignature(c.req.header("x-webhook-signature"), secrets.length ? secrets : ["-"], body);
    if (!supplier || !verdict.ok) throw ApiError.unauthorized(verdict.ok ? "The signature does not match." : verdict.reason);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw ApiError.badRequest("Malformed JSON in request body");
    }
    const { answers } = parseOrThrow(AnswersBody, json);
    const results = await applyAnswers(c.get("db"), { id: supplier.id, accountId: supplier.accountId, name: supplier.name }, answers);
    return c.json({ results }, 200);
  },
);
