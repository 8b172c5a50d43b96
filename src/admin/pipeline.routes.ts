// The operator's view of what the pipeline gave up on (/admin/v1): parked orders and dead letters,
// each replayable. Thin: the domain is src/pipeline/recovery.service.ts.
import { createRoute, z } from "@hono/zod-openapi";
import { DEAD_LETTER_STATUSES } from "../db/schema";
import { resourcePage } from "../lib/pagination";
import { idOrNotFound, PageQuery, pageRequest, resourcePageOf } from "../lib/params";
import { createRouter, errorResponse, responses } from "../lib/router";
import { adminErrors, adminSecurity } from "./admin.routes";
import { presentDeadLetter, presentParkedOrder } from "../pipeline/recovery.present";
import { listDeadLetters, listParkedOrders, replayDeadLetter, replayParkedOrder } from "../pipeline/recovery.service";
import { byIdDescending, byParkedAt } from "../pipeline/recovery.present";
import { onShardHolding, pageEverywhere } from "../shards/accounts";

export const pipelineAdminRouter = createRouter();

const tags = ["Admin"];
const security = adminSecurity;
const conflict = (error: string) => errorResponse(409, "Not in a state that can be replayed", { message: "Conflict", error });

const ParkedOrder = z
  .object({
    id: z.number().int(),
    account_id: z.number().int(),
    reference: z.string(),
    external_id: z.string(),
    routing_attempts: z.number().int(),
    routing_error: z.string().nullable(),
    parked_at: z.string(),
    created_at: z.string(),
    shard: z.number().int().openapi({ description: "The shard the order's account lives on." }),
  })
  .openapi("ParkedOrder");

const DeadLetter = z
  .object({
    id: z.number().int(),
    queue: z.string(),
    type: z.string(),
    body: z.record(z.string(), z.unknown()),
    account_id: z.number().int().nullable(),
    order_id: z.number().int().nullable(),
    dispatch_id: z.number().int().nullable(),
    status: z.enum(DEAD_LETTER_STATUSES),
    received_at: z.string(),
    replayed_at: z.string().nullable(),
    shard: z.number().int().openapi({ description: "The shard the message belongs to (where it is recorded)." }),
  })
  .openapi("DeadLetter");

pipelineAdminRouter.openapi(
  createRoute({
    method: "get",
    path: "/parked-orders",
    tags,
    summary: "Orders parked after too many failed routing attempts, most recent first",
    description:
      "Every account's orders whose routing failed ROUTING_MAX_ATTEMPTS times in a row: each with its attempts and last error. " +
      "Fix the cause, then replay them.",
    security,
    request: { query: PageQuery },
    responses: { 200: responses.json(resourcePageOf(ParkedOrder, "ParkedOrderPage"), "A page of parked orders"), ...adminErrors },
  }),
  async (c) => {
    const page = pageRequest(c.req.valid("query"));
    const { total, rows } = await pageEverywhere(c.env, page, listParkedOrders, byParkedAt);
    return c.json(resourcePage(c.req.url, page, total, rows.map((o) => presentParkedOrder(o, o.shard))), 200);
  },
);

pipelineAdminRouter.openapi(
  createRoute({
    method: "post",
    path: "/parked-orders/{reference}/replay",
    tags,
    summary: "Hand a parked order back to the pipeline, its attempts counted from zero",
    description: "Unparks the order and queues it for routing again; an order that is not parked is a 409.",
    security,
    request: {
      params: z.object({ reference: z.string().openapi({ example: "4812039475610234", description: "The parked order's reference." }) }),
    },
    responses: {
      200: responses.json(z.object({ reference: z.string(), replayed_at: z.string() }), "Replayed"),
      401: adminErrors[401],
      404: responses.notFound,
      409: conflict("Order 4812039475610234 is not parked; only parked orders can be replayed."),
    },
  }),
  async (c) => {
    const { reference } = c.req.valid("param");
    const result = await onShardHolding(c, () => replayParkedOrder(c.get("db"), c.get("pipeline"), reference), { table: "orders", column: "reference", value: reference });
    return c.json({ reference: result.reference, replayed_at: result.replayedAt }, 200);
  },
);

pipelineAdminRouter.openapi(
  createRoute({
    method: "get",
    path: "/dead-letters",
    tags,
    summary: "Messages the pipeline gave up on (status=open by default, replayed, all), newest first",
    description: "Queue messages that failed every delivery and went to the dead-letter queue, with their body and ids; replay each when its cause is fixed.",
    security,
    request: {
      query: PageQuery.extend({
        status: z
          .enum([...DEAD_LETTER_STATUSES, "all"])
          .optional()
          .openapi({ description: `${[...DEAD_LETTER_STATUSES, "all"].join(", ")}; open (not replayed yet) by default.` }),
      }),
    },
    responses: { 200: responses.json(resourcePageOf(DeadLetter, "DeadLetterPage"), "A page of dead letters"), ...adminErrors },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const page = pageRequest(query);
    const { total, rows } = await pageEverywhere(c.env, page, (db, p) => listDeadLetters(db, query.status ?? "open", p), byIdDescending);
    return c.json(resourcePage(c.req.url, page, total, rows.map((d) => presentDeadLetter(d, d.shard))), 200);
  },
);

pipelineAdminRouter.openapi(
  createRoute({
    method: "post",
    path: "/dead-letters/{id}/replay",
    tags,
    summary: "Send a dead letter's message to the pipeline again",
    description: "Queues the message again and marks the dead letter replayed; one already replayed is a 409.",
    security,
    request: { params: z.object({ id: z.string().openapi({ example: "1", description: "The dead letter's id." }) }) },
    responses: {
      200: responses.json(DeadLetter, "The dead letter, replayed"),
      401: adminErrors[401],
      404: responses.notFound,
      409: conflict("Dead letter 5 was already replayed at 2026-11-22T09:00:00.000000Z."),
    },
  }),
  async (c) => {
    const id = idOrNotFound(c.req.valid("param").id, "Dead letter");
    const letter = await onShardHolding(c, () => replayDeadLetter(c.get("db"), c.get("pipeline"), id), { table: "dead_letters", column: "id", value: id });
    return c.json(presentDeadLetter(letter, c.get("shard")), 200);
  },
);
