// The shop's webhook subscriptions, their deliveries with every attempt, and re-sending one.
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { toStatement, type Db } from "../db";
import { events, webhookDeliveries, webhookDeliveryAttempts, webhookSubscriptions, type EventType, type WebhookSubscription } from "../db/schema";
import { ApiError } from "../lib/errors";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { newWebhookSecret } from "../lib/signature";
import { isoMicro } from "../lib/time";
import type { Pipeline } from "../lib/queue";
import { replayStatement } from "../lib/outbound-job";
import { DELIVERY_JOB } from "./delivery.service";

export type WebhookInput = { url?: string; events?: EventType[]; active?: boolean; secret?: string; rotate_secret?: boolean };
export type DeliveryStatus = (typeof webhookDeliveries.$inferSelect)["status"];

const webhookNotFound = (id: number | string) => ApiError.notFound(`Webhook with id '${id}' not found`);
export const deliveryNotFound = (id: number | string) => ApiError.notFound(`Delivery with id '${id}' not found`);

export async function createWebhook(db: Db, accountId: number, input: WebhookInput & { url: string; events: EventType[] }) {
  const now = isoMicro();
  const [row] = await db
    .insert(webhookSubscriptions)
    .values({
      accountId,
      url: input.url,
      events: input.events,
      secret: input.secret ?? newWebhookSecret(),
      active: input.active ?? true,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return row;
}

export async function getWebhook(db: Db, accountId: number, id: number): Promise<WebhookSubscription> {
  const row = await db.query.webhookSubscriptions.findFirst({
    where: and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.accountId, accountId)),
  });
  if (!row) throw webhookNotFound(id);
  return row;
}

export async function listWebhooks(db: Db, accountId: number, page: PageRequest) {
  const where = eq(webhookSubscriptions.accountId, accountId);
  const [countRows, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(webhookSubscriptions).where(where),
    db.select().from(webhookSubscriptions).where(where).orderBy(asc(webhookSubscriptions.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  return { total: countRows[0]?.total ?? 0, rows };
}

/** Only the fields sent. Returns whether the secret changed, so the answer can show the new one once. */
export async function updateWebhook(db: Db, accountId: number, id: number, input: WebhookInput) {
  const secret = input.rotate_secret ? newWebhookSecret() : input.secret;
  const [row] = await db
    .update(webhookSubscriptions)
    .set({
      ...(input.url !== undefined && { url: input.url }),
      ...(input.events !== undefined && { events: input.events }),
      ...(input.active !== undefined && { active: input.active }),
      ...(secret !== undefined && { secret }),
      updatedAt: isoMicro(),
    })
    .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.accountId, accountId)))
    .returning();
  if (!row) throw webhookNotFound(id);
  return { row, secretChanged: secret !== undefined };
}

/** Deletes the subscription with its deliveries and their attempts, in one batch. */
export async function deleteWebhook(db: Db, accountId: number, id: number): Promise<void> {
  const owned = sql`SELECT id FROM webhook_subscriptions WHERE id = ${id} AND account_id = ${accountId}`;
  const results = await db.$client.batch(
    [
      sql`DELETE FROM webhook_delivery_attempts WHERE delivery_id IN
        (SELECT id FROM webhook_deliveries WHERE subscription_id IN (${owned}))`,
      sql`DELETE FROM webhook_deliveries WHERE subscription_id IN (${owned})`,
      sql`DELETE FROM webhook_subscriptions WHERE id = ${id} AND account_id = ${accountId}`,
    ].map((q) => toStatement(db, q)),
  );
  if ((results[2].meta.changes ?? 0) === 0) throw webhookNotFound(id);
}

// ---- Deliveries -------------------------------------------------------------

// Aliased: the delivery has created_at too, and D1's batch maps rows by column name.
const deliveryColumns = {
  delivery: webhookDeliveries,
  event: {
    id: sql<string>`${events.id}`.as("event_id_"),
    type: sql<EventType>`${events.type}`.as("event_type_"),
    data: sql<string>`${events.data}`.as("event_data_"),
    createdAt: sql<string>`${events.createdAt}`.as("event_created_at_"),
  },
};

export type DeliveryRow = { delivery: typeof webhookDeliveries.$inferSelect; event: { id: string; type: EventType; data: string; createdAt: string } };
export type AttemptRow = typeof webhookDeliveryAttempts.$inferSelect;

/** Newest first, each with all its attempts: one count, one page, one query for the page's attempts. */
export async function listDeliveries(db: Db, accountId: number, webhookId: number, page: PageRequest, status?: DeliveryStatus) {
  // Every query is scoped through the account's own subscription, so another account's id finds nothing.
  const where = and(
    eq(webhookDeliveries.subscriptionId, webhookId),
    eq(webhookDeliveries.accountId, accountId),
    status ? eq(webhookDeliveries.status, status) : undefined,
  );
  const pageIds = db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(where)
    .orderBy(desc(webhookDeliveries.id))
    .limit(page.perPage)
    .offset(offsetOf(page));
  const [owner, countRows, rows, attempts] = await db.batch([
    db
      .select({ id: webhookSubscriptions.id })
      .from(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.id, webhookId), eq(webhookSubscriptions.accountId, accountId))),
    db.select({ total: sql<number>`count(*)` }).from(webhookDeliveries).where(where),
    db
      .select(deliveryColumns)
      .from(webhookDeliveries)
      .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
      .where(where)
      .orderBy(desc(webhookDeliveries.id))
      .limit(page.perPage)
      .offset(offsetOf(page)),
    db
      .select()
      .from(webhookDeliveryAttempts)
      .where(inArray(webhookDeliveryAttempts.deliveryId, pageIds))
      .orderBy(asc(webhookDeliveryAttempts.deliveryId), asc(webhookDeliveryAttempts.id)),
  ]);
  if (owner.length === 0) throw webhookNotFound(webhookId);
  return { total: countRows[0]?.total ?? 0, rows, attempts };
}

export async function getDelivery(db: Db, accountId: number, webhookId: number, deliveryId: number) {
  const where = and(
    eq(webhookDeliveries.id, deliveryId),
    eq(webhookDeliveries.subscriptionId, webhookId),
    eq(webhookDeliveries.accountId, accountId),
  );
  const [rows, attempts] = await db.batch([
    db.select(deliveryColumns).from(webhookDeliveries).innerJoin(events, eq(events.id, webhookDeliveries.eventId)).where(where),
    db
      .select()
      .from(webhookDeliveryAttempts)
      .where(inArray(webhookDeliveryAttempts.deliveryId, db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(where)))
      .orderBy(asc(webhookDeliveryAttempts.id)),
  ]);
  if (rows.length === 0) throw deliveryNotFound(deliveryId);
  return { row: rows[0], attempts };
}

/**
 * Re-sends a delivered or failed delivery: back to pending with a fresh round of attempts, and a
 * queue message. The guarded UPDATE lets only one of two simultaneous clicks through; the other
 * gets 409, and the lease keeps even duplicate messages from sending twice at once.
 */
export async function redeliver(db: Db, pipeline: Pipeline, accountId: number, webhookId: number, deliveryId: number) {
  const now = isoMicro();
  const [before, updated] = await db.$client.batch<{ status: DeliveryStatus; attempts: number; active: number }>(
    [
      sql`SELECT d.status, d.attempts, s.active FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.id = ${deliveryId} AND d.subscription_id = ${webhookId} AND s.account_id = ${accountId}`,
      replayStatement(
        DELIVERY_JOB,
        sql`id = ${deliveryId} AND subscription_id = ${webhookId} AND account_id = ${accountId}
          AND EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.id = ${webhookId} AND s.active = 1)`,
        { from: ["delivered", "failed"], at: now },
      ),
    ].map((q) => toStatement(db, q)),
  );
  const prior = before.results[0];
  if (!prior) throw deliveryNotFound(deliveryId);
  if (updated.results.length === 0) {
    if (!prior.active) throw ApiError.conflict(`Webhook ${webhookId} is not active; activate it before re-sending.`);
    throw ApiError.conflict(`Delivery ${deliveryId} is already waiting to be sent or being sent.`);
  }
  try {
    await pipeline.sendOrFail([{ type: "deliver_webhook", deliveryId }]);
  } catch (error) {
    // Put it back as it was, so the shop can simply click again instead of meeting a 409.
    await db.$client
      .prepare(
        `UPDATE webhook_deliveries SET status = ?1, attempts = ?2 WHERE id = ?3 AND status = 'pending' AND attempts = 0 AND updated_at = ?4`,
      )
      .bind(prior.status, prior.attempts, deliveryId, now)
      .run();
    throw error;
  }
  return getDelivery(db, accountId, webhookId, deliveryId);
}
