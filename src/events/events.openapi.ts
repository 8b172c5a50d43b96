// Every event type as an OpenAPI 3.1 webhook: what a shop's subscribed URL receives (the envelope
// and each type's `data`), so the document describes the events as it describes the endpoints.
import { z } from "@hono/zod-openapi";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { EVENT_TYPES, LINE_STATUSES, type EventType } from "../db/schema";
import type { AppEnv } from "../env";

const OrderRef = z.object({
  reference: z.string().openapi({ description: "The order's reference", example: "4812039475610234" }),
  external_id: z.string().openapi({ description: "The shop's own order id", example: "WC-1001" }),
});
const LineRef = z.object({
  id: z.number().int().openapi({ description: "The line's id", example: 901 }),
  external_id: z.string().openapi({ description: "The shop's id of the line", example: "sku-1" }),
  quantity: z.number().int().openapi({ description: "The line's quantity now", example: 2 }),
  split_from_line_id: z.number().int().nullable().openapi({ description: "The line this one was split off, if any", example: null }),
});
const SupplierRef = z.object({ id: z.number().int().openapi({ example: 4 }), name: z.string().openapi({ example: "Tuinhout" }) });
const CancellationData = {
  order: OrderRef,
  line: LineRef,
  quantity: z.number().int().openapi({ description: "How much of the line the cancellation is about", example: 2 }),
  reason: z.string().nullable().openapi({ description: "The shop's reason (confirmed) or the supplier's (refused)", example: "The customer changed their mind" }),
  supplier: SupplierRef.nullable().openapi({ description: "null: no supplier had the line; it was cancelled at once" }),
  confirmed_by: z.enum(["supplier", "shop", "shipment"]).nullable().openapi({ description: "Who settled it (shop: on the supplier's behalf); null at once or refused" }),
  purpose: z.enum(["cancel", "withdraw"]).optional().openapi({ description: "withdraw: the line was taken from a silent supplier (re-routed), which answered" }),
};

const ReturnData = z.object({
  order: OrderRef,
  return: z.object({
    id: z.number().int().openapi({ example: 12 }),
    status: z.string().openapi({ description: "As the change left it", example: "authorised" }),
    supplier: SupplierRef,
    rma: z.string().nullable().openapi({ example: "RMA-2231" }),
    return_address: z.string().nullable(),
    label_url: z.string().nullable(),
    decline_reason: z.string().nullable(),
    customer_tracking: z.string().nullable(),
    credit: z.object({ amount: z.number().openapi({ example: 24.95 }), currency: z.string().openapi({ example: "EUR" }) }).nullable(),
    close_reason: z.string().nullable(),
    cancel_reason: z.string().nullable(),
    lines: z.array(
      z.object({
        line_id: z.number().int(),
        external_id: z.string(),
        name: z.string(),
        quantity: z.number().int().openapi({ description: "How much the return asks back" }),
        reason: z.string().nullable(),
        received_quantity: z.number().int().nullable(),
        condition: z.enum(["new", "opened", "damaged"]).nullable(),
      }),
    ),
  }),
});
const returnEventDoc = (summary: string) => ({ summary, data: ReturnData });

const DATA: Record<EventType, { summary: string; data: z.ZodType }> = {
  "return.requested": returnEventDoc("A return was requested of a supplier (one per supplier of the lines sent back)"),
  "return.authorised": returnEventDoc("The supplier authorised a return: its RMA and where the goods go"),
  "return.declined": returnEventDoc("The supplier declined a return, with its reason"),
  "return.in_transit": returnEventDoc("The customer's parcel is on its way back (its tracking)"),
  "return.received": returnEventDoc("The supplier received the goods: per line how much and in what condition"),
  "return.credited": returnEventDoc("The supplier credited the shop for a return (amount and currency)"),
  "return.closed": returnEventDoc("The supplier closed a received return without a credit, with its reason"),
  "return.cancelled": returnEventDoc("The shop withdrew a return before the goods arrived"),
  "order.created": {
    summary: "An order was created (not on an idempotent repeat)",
    data: z.object({
      order: OrderRef.extend({ source: z.string().openapi({ example: "My shop" }), test: z.boolean().openapi({ example: false }), total: z.number().openapi({ example: 59.9 }) }),
    }),
  },
  "order.blocked": { summary: "An order was blocked, by hand or by a block rule", data: z.object({ order: OrderRef, reason: z.string().openapi({ example: "Order blocked by hand" }) }) },
  "order_line.status_changed": {
    summary: "A line moved from one status to another (previous_status null: a line split off another appeared)",
    data: z.object({
      order: OrderRef,
      line: z.object({
        id: z.number().int().openapi({ example: 901 }),
        external_id: z.string().openapi({ example: "sku-1" }),
        status: z.enum(LINE_STATUSES).openapi({ example: "completed" }),
        previous_status: z.enum(LINE_STATUSES).nullable().openapi({ example: "ruled" }),
        split_from_line_id: z.number().int().optional().openapi({ description: "Only on a line split off another", example: 900 }),
      }),
      message: z.string().openapi({ description: "The log entry of the move", example: "Successfully sent to supplier" }),
    }),
  },
  "order_line.shipped": {
    summary: "A supplier reported a shipment",
    data: z.object({
      order: OrderRef,
      line: z.object({ id: z.number().int().openapi({ example: 901 }), external_id: z.string().openapi({ example: "sku-1" }) }),
      shipment: z.object({
        quantity: z.number().int().openapi({ example: 2 }),
        carrier: z.string().nullable().openapi({ example: "PostNL" }),
        tracking_number: z.string().nullable().openapi({ example: "3SABC123" }),
        tracking_url: z.string().nullable().openapi({ example: "https://postnl.nl/tracktrace/3SABC123" }),
      }),
    }),
  },
  "order.completed": {
    summary: "The last open line of an order was settled",
    data: z.object({ order: OrderRef.extend({ completed_at: z.string().openapi({ example: "2026-11-30T10:00:00.000000Z" }) }) }),
  },
  "order.parked": {
    summary: "Routing the order failed too often; an operator must replay it",
    data: z.object({ order: OrderRef, reason: z.string().openapi({ example: "Order parked after 20 failed routing attempts" }) }),
  },
  "order.cancelled": {
    summary: "The shop cancelled the order, or lines or quantities of it",
    data: z.object({
      order: OrderRef,
      scope: z.enum(["order", "lines"]).openapi({ description: "The whole order, or the lines listed", example: "order" }),
      reason: z.string().nullable().openapi({ example: "The customer changed their mind" }),
      lines: z
        .array(
          z.object({
            id: z.number().int().openapi({ example: 901 }),
            external_id: z.string().openapi({ example: "sku-1" }),
            quantity: z.number().int().openapi({ example: 2 }),
            outcome: z.enum(["cancelled", "requested"]).openapi({ description: "cancelled at once (no supplier had it), or requested of its supplier", example: "requested" }),
          }),
        )
        .openapi({ description: "What became of each line the cancellation took" }),
    }),
  },
  "order_line.cancellation_confirmed": { summary: "A line's cancellation took effect: at once, or confirmed by its supplier", data: z.object(CancellationData) },
  "order_line.cancellation_refused": { summary: "A supplier refused a line's cancellation (it shipped); the line keeps its status", data: z.object(CancellationData) },
  "order_line.rerouted": {
    summary: "A line (or the rest of one, split off) went to the next eligible supplier",
    data: z.object({
      order: OrderRef,
      line: LineRef,
      from_supplier: SupplierRef,
      to_supplier: SupplierRef,
      cause: z.enum(["declined", "partial", "failed", "overdue"]).openapi({ description: "Why it left the supplier", example: "declined" }),
      reason: z.string().openapi({ example: "Declined by supplier Tuinhout: out of stock" }),
      attempt: z.number().int().openapi({ description: "Which supplier of the line this is (the first was 1)", example: 2 }),
      max_attempts: z.number().int().openapi({ description: "The account's cap", example: 3 }),
    }),
  },
  "order_line.overdue": {
    summary: "A supplier let a deadline pass: no answer in time after the send, or no shipment in time after accepting",
    data: z.object({
      order: OrderRef,
      line: LineRef,
      deadline: z.enum(["acknowledgement", "shipping"]).openapi({ example: "acknowledgement" }),
      due_at: z.string().openapi({ example: "2026-11-30T10:00:00.000000Z" }),
      supplier: SupplierRef,
      reroute: z.boolean().openapi({ description: "The line is being re-routed because of it", example: false }),
    }),
  },
  "order_line.assigned": {
    summary: "A person sent a line to a supplier of their choosing (POST /api/v1/orders/{reference}/lines/{line_id}/assign, or the console)",
    data: z.object({
      order: OrderRef,
      line: LineRef,
      from_supplier: SupplierRef.nullable().openapi({ description: "The supplier that declined it or could not be sent to; null: it had none" }),
      to_supplier: SupplierRef,
      by: z
        .object({
          channel: z.enum(["api", "console"]).openapi({ example: "api" }),
          api_key_id: z.number().int().openapi({ description: "The API key of the call, or the one the console session was opened with", example: 3 }),
          session_id: z.number().int().nullable().openapi({ description: "The console session (null through the API)", example: null }),
        })
        .openapi({ description: "Who chose the supplier" }),
    }),
  },
};

/** Registers every event type as a webhook of the OpenAPI document. */
export function documentEvents(router: OpenAPIHono<AppEnv>) {
  for (const type of EVENT_TYPES) {
    const { summary, data } = DATA[type];
    router.openAPIRegistry.registerWebhook({
      method: "post",
      path: type,
      tags: ["Events"],
      summary,
      description: "Sent to every active subscription that chose this type, signed (X-Webhook-Signature), at least once; drop duplicates by id.",
      request: {
        headers: z.object({
          "x-webhook-signature": z.string().openapi({ description: "t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\">", example: "t=1795380000,v1=5f0c…" }),
          "x-webhook-id": z.string().openapi({ description: "The event's id", example: "evt_3f2a9c0d1e4b5a6978877665" }),
          "x-webhook-event": z.string().openapi({ description: "The event's type", example: type }),
        }),
        body: {
          content: {
            "application/json": {
              schema: z.object({
                id: z.string().openapi({ description: "Unique per event", example: "evt_3f2a9c0d1e4b5a6978877665" }),
                type: z.literal(type),
                created_at: z.string().openapi({ example: "2026-11-30T10:00:00.123000Z" }),
                data,
              }),
            },
          },
        },
      },
      responses: { 200: { description: "Any 2xx acknowledges the event; anything else is retried" } },
    });
  }
}
