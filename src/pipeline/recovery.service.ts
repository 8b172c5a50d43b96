// The operator's recovery tools over the pipeline: orders parked after too many failed routing
// attempts, and the dead letters of the queue; each can be replayed. Domain data only: the admin
// API (src/admin/pipeline.routes.ts) and, later, the console present it.
import { and, desc, eq, isNotNull, sql } from "drizzle-orm";
import { runBatch, type Db } from "../db";
import { deadLetters, orders, type DeadLetter, type DeadLetterStatus } from "../db/schema";
import { ApiError } from "../lib/errors";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { isoMicro } from "../lib/time";
import { replayStatements } from "../orders/lifecycle";
import type { Pipeline, PipelineMessage } from "../lib/queue";

export type ParkedOrder = {
  id: number;
  accountId: number;
  reference: string;
  externalId: string;
  routingAttempts: number;
  routingError: string | null;
  parkedAt: string;
  createdAt: string;
};

/** Parked orders of every account, the most recently parked first (through orders_parked_idx). */
export async function listParkedOrders(db: Db, page: PageRequest): Promise<{ total: number; rows: ParkedOrder[] }> {
  const where = isNotNull(orders.parkedAt);
  const [countRows, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(orders).where(where),
    db
      .select({
        id: orders.id,
        accountId: orders.accountId,
        reference: orders.reference,
        externalId: orders.externalId,
        routingAttempts: orders.routingAttempts,
        routingError: orders.routingError,
        parkedAt: orders.parkedAt,
        createdAt: orders.createdAt,
      })
      .from(orders)
      .where(where)
      .orderBy(desc(orders.parkedAt), desc(orders.id))
      .limit(page.perPage)
      .offset(offsetOf(page)),
  ]);
  return { total: countRows[0]?.total ?? 0, rows: rows as ParkedOrder[] };
}

/**
 * Hands a parked order back to the pipeline: attempts start from zero, every line logs the replay,
 * and routed_at is cleared in the same batch (the sweeper routes it should the message be lost).
 */
export async function replayParkedOrder(db: Db, pipeline: Pipeline, reference: string) {
  const order = await db.query.orders.findFirst({ where: eq(orders.reference, reference) });
  if (!order) throw ApiError.notFound(`Order with reference '${reference}' not found`);
  if (!order.parkedAt) throw ApiError.conflict(`Order ${reference} is not parked; only parked orders can be replayed.`);
  const now = isoMicro();
  await runBatch(db, replayStatements(order.id, "Order replayed by an operator", now));
  await pipeline.sendOrFail([{ type: "route_order", orderId: order.id }]);
  return { reference, replayedAt: now };
}

export async function listDeadLetters(db: Db, status: DeadLetterStatus | "all", page: PageRequest) {
  const where = status === "all" ? undefined : eq(deadLetters.status, status);
  const [countRows, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(deadLetters).where(where),
    db.select().from(deadLetters).where(where).orderBy(desc(deadLetters.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  return { total: countRows[0]?.total ?? 0, rows };
}

/**
 * Sends a dead letter's message to the pipeline again. A route_order also resets its order's
 * routing attempts (and un-parks it), or the order would be parked again at once. The message is
 * sent before the letter is marked replayed: a failure leaves it open, to be replayed again
 * (every message is safe to handle twice).
 */
export async function replayDeadLetter(db: Db, pipeline: Pipeline, id: number): Promise<DeadLetter> {
  const letter = await db.query.deadLetters.findFirst({ where: eq(deadLetters.id, id) });
  if (!letter) throw ApiError.notFound(`Dead letter with id '${id}' not found`);
  if (letter.status !== "open") throw ApiError.conflict(`Dead letter ${id} was already replayed at ${letter.replayedAt}.`);
  const body = letter.body as PipelineMessage;
  const now = isoMicro();
  if (body.type === "route_order" && letter.orderId !== null) {
    await runBatch(db, replayStatements(letter.orderId, "Order replayed by an operator (dead letter)", now));
  }
  await pipeline.sendOrFail([body]);
  const [updated] = await db
    .update(deadLetters)
    .set({ status: "replayed", replayedAt: now })
    .where(and(eq(deadLetters.id, id), eq(deadLetters.status, "open")))
    .returning();
  return updated ?? { ...letter, status: "replayed", replayedAt: now };
}
