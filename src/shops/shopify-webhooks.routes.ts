// POST /shopify/webhooks/{connection_id}?account={account_id}: where Shopify delivers a Shopify
// connection's order webhooks (docs/shops/shopify.md). Public: no API key; the signature made
// with the connection's API secret is the credential. The account in the query only says which
// shard to read (docs: "Where Shopify calls us"); a wrong one finds no connection.
import { createRoute, z } from "@hono/zod-openapi";
import { CreateOrderBody } from "../orders/orders.schemas";
import { ApiError } from "../lib/errors";
import { parseId } from "../lib/params";
import { parseOrThrow } from "../lib/validation";
import { createRouter, errorResponse, responses } from "../lib/router";
import { toAccountShard } from "../shards/accounts";
import { cancelFromShopify, orderRequestFor, takeInOrder, verifyDelivery } from "./platforms/shopify/webhooks.service";

export const shopifyWebhooksRouter = createRouter();

const Accepted = z
  .object({
    message: z.string(),
    reference: z.number().int().optional(),
    cancelled: z.number().int().optional(),
    requested: z.number().int().optional(),
  })
  .openapi("ShopifyWebhookAnswer");

shopifyWebhooksRouter.openapi(
  createRoute({
    method: "post",
    path: "/shopify/webhooks/{connectionId}",
    tags: ["Shop connections"],
    summary: "Shopify's order webhooks for a shopify connection (registered by the connection itself)",
    description:
      "Shopify's orders/create and orders/cancelled deliveries, as Shopify sends them: the REST order JSON, X-Shopify-Topic, and " +
      "X-Shopify-Hmac-Sha256, the base64 HMAC-SHA256 of the raw body with the app's API secret key. A valid delivery of orders/create " +
      "is taken in as an order (once, by the Shopify order's id), orders/cancelled cancels what can still be cancelled. The address, " +
      "with its ?account=, is the one the connection subscribed; nothing else calls it.",
    request: {
      params: z.object({ connectionId: z.string().openapi({ description: "The shop connection's id." }) }),
      query: z.object({ account: z.string().openapi({ description: "The connection's account (it says where the connection is kept)." }) }),
    },
    responses: {
      200: responses.json(Accepted, "Taken in (or already taken in, or nothing to do)"),
      400: errorResponse(400, "The body is not JSON"),
      401: errorResponse(401, "The signature does not match"),
      404: responses.notFound,
      409: errorResponse(409, "The connection is paused, or its intake is off: Shopify tries again later", {
        message: "Conflict",
        error: "Shop connection 12 is paused: nothing is taken in until it is resumed.",
      }),
      413: responses.tooLarge,
      422: errorResponse(422, "The Shopify order cannot be taken in as an order (every failing field named); nothing is stored", {
        message: "Errors",
        errors: { "shipping.country": ["The shipping.country field is required."] },
      }),
    },
  }),
  async (c) => {
    const connectionId = parseId(c.req.param("connectionId"));
    const accountId = parseId(c.req.query("account") ?? "");
    if (connectionId === null || accountId === null) throw ApiError.notFound(`Shop connection with id '${c.req.param("connectionId")}' not found.`);
    await toAccountShard(c, accountId);
    const body = new Uint8Array(await c.req.arrayBuffer());
    const delivery = await verifyDelivery(c.get("db"), c.env, { connectionId, accountId, topic: c.req.header("x-shopify-topic"), hmac: c.req.header("x-shopify-hmac-sha256"), body });
    if (delivery.topic === "orders/create") {
      const input = parseOrThrow(CreateOrderBody, orderRequestFor(delivery));
      const r = await takeInOrder(c.get("db"), c.get("pipeline"), accountId, input, c.get("shard"));
      return c.json({ message: r.created ? "Order created" : "Order already exists", reference: Number(r.reference) }, 200);
    }
    if (delivery.topic === "orders/cancelled") {
      const r = await cancelFromShopify(c.get("db"), c.get("pipeline"), delivery);
      return c.json({ message: r.ignored ?? "Cancellation requested", ...(r.reference ? { reference: Number(r.reference) } : {}), ...(r.cancelled !== undefined ? { cancelled: r.cancelled, requested: r.requested } : {}) }, 200);
    }
    // A topic the connection did not subscribe: answered, so that Shopify does not keep trying.
    return c.json({ message: `Topic ${delivery.topic || "(none)"} is not one this connection takes in: ignored.` }, 200);
  },
);
