// Re-matching an account's waiting lines after its rules or suppliers changed. The request is a
// durable mark on the account (rematch_requested_at), written before its queue message is sent:
// the message that finishes the re-match clears exactly the request it answered, and the sweeper
// re-queues a request whose message was lost.
import { and, asc, eq, gt, isNull, sql } from "drizzle-orm";
import type { Db } from "../db";
import { accounts, orderLines, orders } from "../db/schema";
import type { Bindings } from "../env";
import { isoMicro } from "../lib/time";
import { enqueue, enqueueBestEffort } from "./messages";

const REMATCH_PAGE = 50;

export async function requestRematch(db: Db, env: Bindings, accountId: number): Promise<void> {
  const requestedAt = isoMicro();
  await db.update(accounts).set({ rematchRequestedAt: requestedAt }).where(eq(accounts.id, accountId));
  await enqueueBestEffort(env, [{ type: "rematch_account", accountId, requestedAt }]);
}

/** Routes the next page of the account's waiting orders (each through `route`), then queues the rest. */
export async function rematchAccount(
  db: Db,
  env: Bindings,
  message: { accountId: number; afterOrderId?: number; requestedAt?: string },
  route: (orderId: number) => Promise<void>,
) {
  const rows = await db
    .selectDistinct({ orderId: orderLines.orderId })
    .from(orderLines)
    .innerJoin(orders, eq(orders.id, orderLines.orderId))
    .where(
      and(
        eq(orderLines.accountId, message.accountId),
        eq(orderLines.currentStatus, "pending"),
        gt(orderLines.orderId, message.afterOrderId ?? 0),
        eq(orders.blocked, false),
        isNull(orders.parkedAt),
      ),
    )
    .orderBy(asc(orderLines.orderId))
    .limit(REMATCH_PAGE);
  for (const { orderId } of rows) await route(orderId);
  if (rows.length === REMATCH_PAGE) {
    await enqueue(env, [{ ...message, type: "rematch_account", afterOrderId: rows[rows.length - 1].orderId }]);
  } else if (message.requestedAt) {
    // Done: unless the account asked again meanwhile (its own message will finish that request).
    await db
      .update(accounts)
      .set({ rematchRequestedAt: null })
      .where(and(eq(accounts.id, message.accountId), sql`${accounts.rematchRequestedAt} = ${message.requestedAt}`));
  }
}
