// HTTP contract of /api/v1/webhooks: the shop's subscriptions to events, their deliveries, re-sending.
import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../lib/errors";
import { resourcePage } from "../lib/pagination";
import { IdParam, idOrNotFound, PageQuery, pageRequest, parseId } from "../lib/params";
import { apiSecurity, createRouter, errorResponse, errorResponses, jsonBody, responses } from "../lib/router";
import { CreateWebhook, DELIVERY_STATUSES, EventTypeJson, UpdateWebhook } from "./webhooks.schemas";
import { presentDeliveries, presentDelivery, presentWebhook } from "./webhooks.present";
import {
  createWebhook,
  deleteWebhook,
  deliveryNotFound,
  getDelivery,
  getWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  updateWebhook,
} from "./webhooks.service";

export const webhooksRouter = createRouter();


const WebhookJson = z
  .object({
    id: z.number().int(),
    url: z.string(),
    events: z.array(EventTypeJson),
    active: z.boolean(),
    secret: z.string().optional().openapi({ description: "Only in the answer of the request that set it (create, or a PATCH with secret or rotate_secret)" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Webhook");

const AttemptJson = z
  .object({
    status_code: z.number().int().nullable().openapi({ description: "null when no answer came (timeout, network error)" }),
    error: z.string().nullable(),
    duration_ms: z.number().int(),
    created_at: z.string(),
  })
  .openapi("WebhookDeliveryAttempt");

const DeliveryJson = z
  .object({
    id: z.number().int(),
    webhook_id: z.number().int(),
    event: z.object({ id: z.string(), type: EventTypeJson, created_at: z.string(), data: z.record(z.string(), z.unknown()) }),
    status: z.enum(DELIVERY_STATUSES),
    next_attempt_at: z.string().nullable().openapi({ description: "When pending after a failed attempt: the time of the next one" }),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    delivered_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    attempts: z.array(AttemptJson).openapi({ description: "Every attempt, oldest first" }),
  })
  .openapi("WebhookDelivery");
const DeliveryParams = z.object({
  id: z.string().openapi({ example: "1", description: "The subscription's id." }),
  deliveryId: z.string().openapi({ example: "1", description: "The delivery's id, as the subscription's delivery list shows it." }),
});
const DeliveriesQuery = PageQuery.extend({
  status: z
    .enum(DELIVERY_STATUSES)
    .optional()
    .openapi({ description: `Only deliveries in this status: ${DELIVERY_STATUSES.join(", ")}.` }),
});

const tags = ["Webhooks"];
const idOf = (raw: string) => idOrNotFound(raw, "Webhook");
const deliveryIdOf = (raw: string) => {
  const id = parseId(raw);
  if (id === null) throw deliveryNotFound(raw);
  return id;
};

webhooksRouter.openapi(
  createRoute({
    method: "post",
    path: "/webhooks",
    tags,
    summary: "Subscribe a URL to events (the answer shows the signing secret)",
    description:
      "From now on every chosen event of the account's orders is POSTed to url, signed, retried with backoff when it fails, at " +
      "least once (drop duplicates by the event id). The answer shows the secret; later reads never do.",
    security: apiSecurity,
    request: jsonBody(CreateWebhook),
    responses: { 201: responses.json(WebhookJson, "The subscription, with its secret"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const row = await createWebhook(c.get("db"), c.get("account").id, c.req.valid("json"));
    return c.json(presentWebhook(row, { withSecret: true }), 201);
  },
);

webhooksRouter.openapi(
  createRoute({
    method: "get",
    path: "/webhooks",
    tags,
    summary: "List webhook subscriptions (oldest first)",
    description: "The account's subscriptions without their secrets; paginated like the order list.",
    security: apiSecurity,
    request: { query: PageQuery },
    responses: { 200: responses.json(z.object({ data: z.array(WebhookJson) }).passthrough(), "A page of subscriptions"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const page = pageRequest(c.req.valid("query"));
    const { total, rows } = await listWebhooks(c.get("db"), c.get("account").id, page);
    return c.json(resourcePage(c.req.url, page, total, rows.map((r) => presentWebhook(r))), 200);
  },
);

webhooksRouter.openapi(
  createRoute({
    method: "get",
    path: "/webhooks/{id}",
    tags,
    summary: "Fetch a webhook subscription",
    description: "One subscription of the account, without its secret; another account's is not found.",
    security: apiSecurity,
    request: { params: IdParam },
    responses: { 200: responses.json(WebhookJson, "The subscription"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => c.json(presentWebhook(await getWebhook(c.get("db"), c.get("account").id, idOf(c.req.valid("param").id))), 200),
);

webhooksRouter.openapi(
  createRoute({
    method: "patch",
    path: "/webhooks/{id}",
    tags,
    summary: "Update a subscription (only the fields sent); rotate its secret; pause it with active=false",
    description:
      "Changes only the fields sent. rotate_secret=true (or a new secret) replaces the secret, shown in this answer only; " +
      "active=false pauses deliveries and true resumes the waiting ones.",
    security: apiSecurity,
    request: { params: IdParam, ...jsonBody(UpdateWebhook) },
    responses: { 200: responses.json(WebhookJson, "The subscription"), 404: responses.notFound, 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const { row, secretChanged } = await updateWebhook(c.get("db"), c.get("account").id, idOf(c.req.valid("param").id), c.req.valid("json"));
    return c.json(presentWebhook(row, { withSecret: secretChanged }), 200);
  },
);

webhooksRouter.openapi(
  createRoute({
    method: "delete",
    path: "/webhooks/{id}",
    tags,
    summary: "Delete a subscription with its delivery history",
    description: "Deletes the subscription with its deliveries and their attempts; nothing more is sent to its url.",
    security: apiSecurity,
    request: { params: IdParam },
    responses: { 204: { description: "Deleted" }, 404: responses.notFound, ...errorResponses },
  }),
  async (c) => {
    await deleteWebhook(c.get("db"), c.get("account").id, idOf(c.req.valid("param").id));
    return c.body(null, 204);
  },
);

webhooksRouter.openapi(
  createRoute({
    method: "get",
    path: "/webhooks/{id}/deliveries",
    tags,
    summary: "List a subscription's deliveries, newest first, each with every attempt",
    description:
      "Each delivery is one event for this subscription: its status, next attempt, last status code and error, and every attempt " +
      "(oldest first); paginated like the order list.",
    security: apiSecurity,
    request: { params: IdParam, query: DeliveriesQuery },
    responses: {
      200: responses.json(z.object({ data: z.array(DeliveryJson) }).passthrough(), "A page of deliveries"),
      404: responses.notFound,
      422: responses.invalid,
      ...errorResponses,
    },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const page = pageRequest(query);
    const { total, rows, attempts } = await listDeliveries(c.get("db"), c.get("account").id, idOf(c.req.valid("param").id), page, query.status);
    return c.json(resourcePage(c.req.url, page, total, presentDeliveries(rows, attempts)), 200);
  },
);

webhooksRouter.openapi(
  createRoute({
    method: "get",
    path: "/webhooks/{id}/deliveries/{deliveryId}",
    tags,
    summary: "Fetch one delivery with every attempt",
    description: "One delivery of the subscription: the event sent, its status and every attempt.",
    security: apiSecurity,
    request: { params: DeliveryParams },
    responses: { 200: responses.json(DeliveryJson, "The delivery"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => {
    const { id, deliveryId } = c.req.valid("param");
    const { row, attempts } = await getDelivery(c.get("db"), c.get("account").id, idOf(id), deliveryIdOf(deliveryId));
    return c.json(presentDelivery(row, attempts), 200);
  },
);

webhooksRouter.openapi(
  createRoute({
    method: "post",
    path: "/webhooks/{id}/deliveries/{deliveryId}/redeliver",
    tags,
    summary: "Re-send a delivered or failed delivery (a fresh round of attempts, through the queue)",
    description:
      "Puts a delivered or failed delivery back to pending and sends it through the queue with a fresh round of attempts. While it " +
      "is already waiting or being sent (a double click), or while the subscription is paused, the answer is a 409.",
    security: apiSecurity,
    request: { params: DeliveryParams },
    responses: {
      202: responses.json(DeliveryJson, "Queued for sending"),
      404: responses.notFound,
      409: errorResponse(409, "Already waiting or being sent, or the subscription is paused", {
        message: "Conflict",
        error: "Delivery 41 is already waiting to be sent or being sent.",
      }),
      ...errorResponses,
    },
  }),
  async (c) => {
    const { id, deliveryId } = c.req.valid("param");
    const { row, attempts } = await redeliver(c.get("db"), c.get("pipeline"), c.get("account").id, idOf(id), deliveryIdOf(deliveryId));
    return c.json(presentDelivery(row, attempts), 202);
  },
);
