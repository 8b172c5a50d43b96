// Shopify's webhooks, taken in (docs/shops/shopify.md, "Orders in"): a delivery for a connection is
// trusted only with a valid signature made with the connection's sealed API secret; then
// orders/create becomes an order through the same create path as the API's orders, and
// orders/cancelled cancels what can still be cancelled through the same cancellation flow. Both are
// idempotent by the order's Shopify id (the order's external_id): a delivery Shopify repeats (the
// same X-Shopify-Webhook-Id, after a timeout on its side) or a replayed one makes one order and one
// cancellation. Nothing waits on routing: the order is stored and queued, and Shopify gets its answer
// well within its 5 seconds.
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../../../db";
import { orders, shopConnections, type ShopConnectionRow } from "../../../db/schema";
import type { Bindings } from "../../../env";
import { ApiError } from "../../../lib/errors";
import type { Pipeline } from "../../../lib/queue";
import { cancelOrder } from "../../../orders/cancellations.service";
import { createOrder, type CreateOrderResult } from "../../../orders/orders.service";
import type { CreateOrderInput } from "../../../orders/orders.schemas";
import { connectionKeys, openConnection } from "../../connections.service";
import { orderRequestOf, shopifyOrderId, type ShopifyOrderJson } from "./intake";
import { verifyShopifyHmac } from "./verify";

export type ShopifyDelivery = { connectionId: number; accountId: number; topic: string | undefined; hmac: string | undefined; body: Uint8Array };

/** A signed delivery, its connection found and its signature checked; what it says is not read yet. */
export type VerifiedDelivery = { connection: ShopConnectionRow; topic: string; order: ShopifyOrderJson };

const unknownConnection = (id: number) => ApiError.notFound(`Shop connection with id '${id}' not found: it was deleted, or the address is not one this service gave Shopify.`);

/**
 * The connection (a Shopify one of that account, not deleted), and the signature checked with its
 * secret over the raw bytes: 404 for no such connection, 401 for a signature that does not match,
 * 409 for a paused connection or one with intake off (Shopify tries again later; the reconciliation
 * pull catches up once it is resumed).
 */
export async function verifyDelivery(db: Db, env: Bindings, d: ShopifyDelivery): Promise<VerifiedDelivery> {
  const row = await db
    .select()
    .from(shopConnections)
    .where(and(eq(shopConnections.id, d.connectionId), eq(shopConnections.accountId, d.accountId), eq(shopConnections.platform, "shopify"), isNull(shopConnections.deletedAt)))
    .get();
  if (!row) throw unknownConnection(d.connectionId);
  let secret: string;
  try {
    secret = (await openConnection(connectionKeys(env), row)).credentials.api_secret ?? "";
  } catch (error) {
    if (error instanceof ApiError) throw error;
    // Sealed under a key this service no longer holds: nothing can be verified until they are entered again; Shopify retries meanwhile.
    throw ApiError.conflict(`Shop connection ${row.id}'s credentials cannot be opened: enter them again (edit the connection).`);
  }
  if (!(await verifyShopifyHmac(secret, d.body, d.hmac))) {
    throw ApiError.unauthorized("The X-Shopify-Hmac-Sha256 signature does not match the body: it must be the base64 HMAC-SHA256 of the raw body with the app's API secret key.");
  }
  if (!row.active) throw ApiError.conflict(`Shop connection ${row.id} is paused: nothing is taken in until it is resumed.`);
  if (row.settings.intake === false) throw ApiError.conflict(`Shop connection ${row.id} does not take orders in (settings.intake is false).`);
  let order: ShopifyOrderJson;
  try {
    order = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(d.body)) as ShopifyOrderJson;
  } catch {
    throw ApiError.badRequest("The body is not JSON: Shopify's order webhooks send the order as JSON.");
  }
  if (order === null || typeof order !== "object" || Array.isArray(order)) throw ApiError.badRequest("The body is not a JSON object: Shopify's order webhooks send the order as one.");
  return { connection: row, topic: d.topic ?? "", order };
}

/** What the webhook's order asks of us as a create-order request, unchecked (the face checks it with the API's schema). */
export const orderRequestFor = (v: VerifiedDelivery) => orderRequestOf(v.order, { id: v.connection.id, name: v.connection.name });

export type IntakeResult = { topic: string; created?: boolean; reference?: string; cancelled?: number; requested?: number; ignored?: string };

/** orders/create: the order, once (idempotent by its Shopify id). */
export async function takeInOrder(db: Db, pipeline: Pipeline, accountId: number, input: CreateOrderInput, shard: number): Promise<IntakeResult> {
  const result: CreateOrderResult = await createOrder(db, pipeline, accountId, input, shard);
  return { topic: "orders/create", created: result.created, reference: result.reference };
}

/** orders/cancelled: what can still be cancelled, through the cancellation flow (it reaches the supplier). */
export async function cancelFromShopify(db: Db, pipeline: Pipeline, v: VerifiedDelivery): Promise<IntakeResult> {
  const id = shopifyOrderId(v.order);
  if (!id) throw ApiError.validation({ id: ["The id field is required: the Shopify order's numeric id."] });
  const found = await db.select({ reference: orders.reference }).from(orders).where(and(eq(orders.accountId, v.connection.accountId), eq(orders.externalId, id))).get();
  if (!found) return { topic: "orders/cancelled", ignored: `No order ${id} came in from Shopify: nothing to cancel.` };
  try {
    const r = await cancelOrder(db, pipeline, v.connection.accountId, found.reference, { reason: "Cancelled in Shopify" });
    return { topic: "orders/cancelled", reference: found.reference, cancelled: r.cancelled, requested: r.requested };
  } catch (error) {
    // Cancelled before (a repeated delivery), or nothing left that can be: done, Shopify need not try again.
    if (error instanceof ApiError && error.status === 409) return { topic: "orders/cancelled", reference: found.reference, ignored: String((error.body as { error?: string }).error ?? "Nothing left to cancel.") };
    throw error;
  }
}
