// HTTP contract of what is written back into the shop for an order: its write-backs with every
// attempt and call, and a replay of a parked one.
import { createRoute, z } from "@hono/zod-openapi";
import { ATTEMPT_OUTCOMES, SHOP_PLATFORMS, WRITE_BACK_KINDS, WRITE_BACK_STATUSES } from "../db/schema";
import { ApiError } from "../lib/errors";
import { parseId } from "../lib/params";
import { apiSecurity, createRouter, errorResponse, errorResponses, responses } from "../lib/router";
import { listOrderWriteBacks, replayWriteBack } from "./write-back.service";
import { presentWriteBack } from "./write-backs.present";

export const writeBacksRouter = createRouter();

const CallJson = z.object({
  method: z.string(),
  path: z.string().openapi({ description: "Relative to the connection's base_url; credentials never appear in it" }),
  sent: z.string().nullable().openapi({ description: "The body sent, its first 500 characters" }),
  status: z.number().int().nullable().openapi({ description: "The shop's HTTP status; null when no answer came, or for a write a dry run recorded instead of sending" }),
  answer: z.string().nullable().openapi({ description: "The shop's answer (first 500 characters), or why there was none" }),
  duration_ms: z.number().int(),
});

const example = {
  id: 12,
  connection: { id: 3, name: "My WooCommerce", platform: "woocommerce" },
  event: { id: "evt_5d1f0c9a2b3e4f5a6b7c8d9e", type: "order_line.shipped" },
  kind: "shipment",
  status: "done",
  dry_run: false,
  shop_ids: ["trk_7f3a"],
  last_error: null,
  next_attempt_at: null,
  created_at: "2026-11-30T10:00:00.000000Z",
  done_at: "2026-11-30T10:00:01.000000Z",
  attempts: [
    {
      at: "2026-11-30T10:00:01.000000Z",
      calls: [
        { method: "GET", path: "/wp-json/wc/v3/orders/1001", sent: null, status: 200, answer: '{"id":1001,"number":"1001","line_items":[…]}', duration_ms: 84 },
        {
          method: "POST",
          path: "/wp-json/wc-shipment-tracking/v3/orders/1001/shipment-trackings",
          sent: '{"tracking_provider":"PostNL","tracking_number":"3SABC123"}',
          status: 201,
          answer: '{"tracking_id":"trk_7f3a","tracking_number":"3SABC123"}',
          duration_ms: 112,
        },
      ],
      error: null,
      duration_ms: 201,
      outcome: "written",
    },
  ],
};

const WriteBackJson = z
  .object({
    id: z.number().int(),
    connection: z.object({ id: z.number().int(), name: z.string(), platform: z.enum(SHOP_PLATFORMS) }),
    event: z.object({ id: z.string(), type: z.string() }).openapi({ description: "The event (GET /webhooks' event types) the write-back comes from" }),
    kind: z.enum(WRITE_BACK_KINDS).openapi({ description: "shipment (with its tracking), note (a private note), hold (the order put on hold: a line waits for a person), release (taken off hold), complete (the order's completed status)" }),
    status: z.enum(WRITE_BACK_STATUSES).openapi({
      description: "pending (waiting, or for a retry), delivering, done, failed (after the last attempt, or refused: replay it), skipped (nothing to write, or the connection was deleted)",
    }),
    dry_run: z.boolean().openapi({ description: "Done in dry-run mode: the attempt's calls show the writes it would have made, none was sent" }),
    shop_ids: z.array(z.string()).openapi({ description: "The shop's ids of what was created (or found there already)" }),
    last_error: z.string().nullable().openapi({ description: "Why it failed, waits for a retry or was skipped, in words" }),
    next_attempt_at: z.string().nullable(),
    created_at: z.string(),
    done_at: z.string().nullable(),
    attempts: z
      .array(
        z.object({
          at: z.string().openapi({ description: "When the attempt's outcome was known (an interrupted one: when the next attempt took over, or its lease ran out)" }),
          calls: z.array(CallJson).openapi({ description: "Each call it made (none known for an interrupted attempt)" }),
          error: z.string().nullable(),
          duration_ms: z.number().int(),
          outcome: z.enum(ATTEMPT_OUTCOMES).openapi({
            description:
              "written (the shop took the write), found (looked in the shop first and found it written already: nothing written again), skipped, failed, " +
              "or interrupted (never reported back: the worker stopped mid-attempt and its lease ran out; the next attempt looked in the shop before writing again)",
          }),
        }),
      )
      .openapi({ description: "Every attempt, oldest first, with each call it made" }),
  })
  .openapi("ShopWriteBack", { example });

const params = z.object({ reference: z.string().openapi({ description: "The order's reference", example: "4812039475610234" }) });
const tags = ["Orders"];

writeBacksRouter.openapi(
  createRoute({
    method: "get",
    path: "/orders/{reference}/shop-sync",
    tags,
    summary: "What was written back into the shop for the order: each write-back with its attempts and calls",
    description:
      "One item per write-back (per shop connection, event and kind), oldest first: the shipments with their tracking, the private notes " +
      "and the order's completion, with their status and every attempt's calls to the shop (credentials never appear). docs/shops.md says what is written when.",
    security: apiSecurity,
    request: { params },
    responses: {
      200: responses.json(z.object({ data: z.array(WriteBackJson) }).openapi({ example: { data: [example] } }), "The order's write-backs"),
      404: responses.notFound,
      ...errorResponses,
    },
  }),
  async (c) => c.json({ data: (await listOrderWriteBacks(c.get("db"), c.get("account").id, c.req.valid("param").reference)).map(presentWriteBack) }, 200),
);

const ReplayParams = params.extend({ id: z.string().openapi({ description: "The write-back's id, as shop-sync lists it", example: "12" }) });

writeBacksRouter.openapi(
  createRoute({
    method: "post",
    path: "/orders/{reference}/shop-sync/{id}/replay",
    tags,
    summary: "Try a failed write-back again (a fresh round of attempts, through the queue)",
    description:
      "Puts a failed write-back back to pending and sends it through the queue with a fresh round of attempts; the write-backs of the " +
      "order that waited for it follow. A write-back that is not failed, or whose connection is paused or deleted, is a 409.",
    security: apiSecurity,
    request: { params: ReplayParams },
    responses: {
      202: responses.json(WriteBackJson, "Queued"),
      404: responses.notFound,
      409: errorResponse(409, "Not failed, or its connection is paused or deleted", {
        message: "Conflict",
        error: "Write-back 12 is done: only a failed write-back can be replayed.",
      }),
      ...errorResponses,
    },
  }),
  async (c) => {
    const { reference, id } = c.req.valid("param");
    const writeBackId = parseId(id);
    if (writeBackId === null) throw ApiError.notFound(`Shop write-back with id '${id}' not found`);
    return c.json(presentWriteBack(await replayWriteBack(c.get("db"), c.get("pipeline"), c.get("account").id, reference, writeBackId)), 202);
  },
);
