// HTTP contract of the shop's cancellations: cancel an order, lines or quantities; see the requests
// sent to suppliers; record a supplier's answer given outside the service (manual channel, a call).
import { createRoute, z } from "@hono/zod-openapi";
import { apiSecurity, createRouter, errorResponse, errorResponses, responses } from "../lib/router";
import { field } from "../lib/validation";
import { CancelBody, distinct, lineId } from "./cancellations.schemas";
import { presentCancellation } from "./cancellations.present";
import { cancelOrder, listCancellations, recordCancellationAnswers } from "./cancellations.service";
import { presentOrderDetail } from "./orders.present";
import { getOrder } from "./orders.service";
import { OrderDetail } from "./orders.schemas";

export const cancellationsRouter = createRouter();

const params = z.object({ reference: z.string().openapi({ description: "The order's reference", example: "4812039475610234" }) });
const tags = ["Orders"];
const conflict = (description: string, error: string) => errorResponse(409, description, { message: "Conflict", error });

cancellationsRouter.openapi(
  createRoute({
    method: "post",
    path: "/orders/{reference}/cancel",
    tags,
    summary: "Cancel the whole order, some lines (line_ids) or quantities of lines (lines)",
    description:
      "Lines no supplier has been sent yet end skipped at once (a quantity is split off as a new skipped line); a supplier that has a line " +
      "gets a cancellation request on its own channel and confirms or refuses it. All or nothing: a listed line that is skipped, declined, " +
      "shipped in full or already being cancelled is a 409 and nothing is written. Answers the order.",
    security: apiSecurity,
    request: { params, body: { content: { "application/json": { schema: CancelBody } }, required: false } },
    responses: {
      200: responses.json(OrderDetail, "The order, with each line as the cancellation left it"),
      404: responses.notFound,
      409: conflict(
        "A listed line cannot be cancelled (skipped, declined, shipped in full, or already being cancelled), or nothing of the order can; nothing was written",
        "Order line 901 already has a cancellation waiting for supplier Keukenhuis's answer.",
      ),
      422: responses.invalid,
      ...errorResponses,
    },
  }),
  async (c) => {
    const { id: accountId } = c.get("account");
    const { reference } = c.req.valid("param");
    await cancelOrder(c.get("db"), c.get("pipeline"), accountId, reference, c.req.valid("json") ?? {});
    return c.json(presentOrderDetail(await getOrder(c.get("db"), accountId, reference)), 200);
  },
);

const CancellationLineJson = z.object({
  line_id: z.number().int(),
  quantity: z.number().int().openapi({ description: "How much of the line is to be cancelled" }),
  status: z.enum(["requested", "confirmed", "refused"]),
  answered_by: z.enum(["supplier", "shop", "shipment"]).nullable().openapi({ description: "shipment: a shipment reported meanwhile refused it" }),
  answer_reason: z.string().nullable(),
  answered_at: z.string().nullable(),
});

const CancellationJson = z
  .object({
    id: z.number().int(),
    supplier: z.object({ id: z.number().int(), name: z.string() }),
    channel: z.string(),
    purpose: z.enum(["cancel", "withdraw"]).openapi({ description: "cancel: the shop's; withdraw: a line taken from a supplier that did not answer in time" }),
    reason: z.string().nullable(),
    status: z.enum(["queued", "sending", "requested", "answered", "failed"]),
    idempotency_key: z.string(),
    attempts: z.number().int(),
    last_error: z.string().nullable(),
    lines: z.array(CancellationLineJson),
    created_at: z.string(),
    sent_at: z.string().nullable(),
    acknowledged_at: z.string().nullable(),
  })
  .openapi("Cancellation");

cancellationsRouter.openapi(
  createRoute({
    method: "get",
    path: "/orders/{reference}/cancellations",
    tags,
    summary: "The order's cancellation requests to suppliers, oldest first, with each line's answer",
    description:
      "One request per supplier that had lines when they were cancelled (or, purpose withdraw, a silent supplier whose line was re-routed): " +
      "how it was sent (status, attempts, last_error) and what the supplier answered per line.",
    security: apiSecurity,
    request: { params },
    responses: { 200: responses.json(z.object({ data: z.array(CancellationJson) }), "The cancellation requests"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => c.json({ data: (await listCancellations(c.get("db"), c.get("account").id, c.req.valid("param").reference)).map(presentCancellation) }, 200),
);

const ShopAnswers = z
  .object({
    answers: z
      .array(
        z
          .object({
            line_id: lineId().openapi({ description: "A line with a cancellation waiting for an answer", example: 901 }),
            action: z.enum(["confirm", "refuse"]).openapi({ description: "What the supplier answered", example: "confirm" }),
            reason: field.optionalText(1000).openapi({ description: "Required with refuse: what the supplier said", example: "Already shipped" }),
          })
          .openapi({ description: "The supplier's answer for one line" })
          .superRefine((a, ctx) => {
            if (a.action === "refuse" && !a.reason) ctx.addIssue({ code: "custom", path: ["reason"], message: "The :attribute field is required when action is refuse." });
          }),
      )
      .min(1)
      .max(500)
      .openapi({ description: "One answer per line, up to 500" }),
  })
  .superRefine((body, ctx) => distinct(body.answers.map((a) => a.line_id), (i) => ["answers", i, "line_id"], ctx))
  .openapi("CancellationAnswersRequest", { example: { answers: [{ line_id: 901, action: "confirm" }] } });

cancellationsRouter.openapi(
  createRoute({
    method: "post",
    path: "/orders/{reference}/cancellations/answers",
    tags,
    summary: "Record what a supplier answered to a cancellation outside the service (a manual supplier, a phone call)",
    description:
      "confirm skips the line (or splits the cancelled quantity off as a skipped line); refuse leaves it as it is and logs why. " +
      "All or nothing: a line without a cancellation waiting for an answer is a 409.",
    security: apiSecurity,
    request: { params, body: { content: { "application/json": { schema: ShopAnswers } }, required: true } },
    responses: {
      200: responses.json(OrderDetail, "The order"),
      404: responses.notFound,
      409: conflict("A line has no cancellation waiting for an answer; nothing was written", "Order line 901 has no cancellation waiting for an answer."),
      422: responses.invalid,
      ...errorResponses,
    },
  }),
  async (c) => {
    const { id: accountId } = c.get("account");
    const { reference } = c.req.valid("param");
    await recordCancellationAnswers(c.get("db"), accountId, reference, c.req.valid("json").answers);
    return c.json(presentOrderDetail(await getOrder(c.get("db"), accountId, reference)), 200);
  },
);
