// The webhook-subscription contract: the bodies the API and the console both validate with.
import { z } from "@hono/zod-openapi";
import { EVENT_TYPES } from "../db/schema";
import { checkOutboundUrl } from "../lib/outbound-address";
import { field, isHttpUrl } from "../lib/validation";

export const DELIVERY_STATUSES = ["pending", "delivering", "delivered", "failed"] as const;
export const EventTypeJson = z.enum(EVENT_TYPES);

const URL_MESSAGE = "The :attribute field must be a valid URL.";
// A URL we will POST to must point to a public address (or loopback): src/lib/outbound-address.ts.
const reachable = (v: string | undefined, ctx: z.RefinementCtx) => void (v !== undefined && isHttpUrl(v) && checkOutboundUrl(v, ctx));
const url = field.text(2048).refine(isHttpUrl, URL_MESSAGE).superRefine(reachable);
// Each type once, in the documented order, however the shop listed them.
const eventTypes = z
  .array(EventTypeJson)
  .min(1)
  .max(50)
  .transform((types) => EVENT_TYPES.filter((t) => types.includes(t)));
// A shop-chosen secret must be long enough to be a secret.
const secret = z.preprocess((v) => (typeof v === "string" ? v.trim() || undefined : (v ?? undefined)), z.string().min(16).max(255).optional());

const DESCRIBE = {
  url: "The http(s) URL each event is POSTed to, signed (X-Webhook-Signature) with the subscription's secret.",
  events: `The event types to send, at least one: ${EVENT_TYPES.join(", ")}.`,
  secret: "A signing secret of your own, 16 to 255 characters; without one a whsec_… secret is generated. Shown only in the answer that sets it.",
  active: "false pauses the subscription: no deliveries are made for it until it is active again. true by default.",
};
export const CreateWebhook = z
  .object({
    url: url.openapi({ description: DESCRIBE.url }),
    events: eventTypes.openapi({ description: DESCRIBE.events }),
    secret: secret.openapi({ description: DESCRIBE.secret }),
    active: field.optionalBoolean().openapi({ description: DESCRIBE.active }),
  })
  .openapi("CreateWebhookRequest", {
    example: { url: "https://shop.example.com/hooks/orders", events: ["order.created", "order_line.status_changed"] },
  });
export const UpdateWebhook = z
  .object({
    url: field
      .optionalText(2048)
      .refine((v) => v === undefined || isHttpUrl(v), URL_MESSAGE)
      .superRefine(reachable)
      .openapi({ description: DESCRIBE.url }),
    events: eventTypes.optional().openapi({ description: DESCRIBE.events }),
    secret: secret.openapi({ description: DESCRIBE.secret }),
    rotate_secret: field.optionalBoolean().openapi({ description: "true: replace the secret with a new generated one (shown in the answer)" }),
    active: field.optionalBoolean().openapi({ description: DESCRIBE.active }),
  })
  .superRefine((v, ctx) => {
    if (v.rotate_secret && v.secret !== undefined) {
      ctx.addIssue({ code: "custom", path: ["rotate_secret"], message: "The :attribute field cannot be combined with secret." });
    }
  })
  .openapi("UpdateWebhookRequest", { example: { events: ["order.created", "order.completed"], rotate_secret: true } });

