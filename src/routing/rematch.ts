// Re-matching an account's waiting lines after its rules or suppliers changed. The request is a
// durable mark on the account (rematch_requested_at), written in the same batch as the change and
// before its queue message is sent: the message that finishes the re-match clears exactly the
// request it answered, and the sweeper re-queues a request whose message was lost.
import { and, asc, eq, gt, isNull, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../db";
import { accounts, orderLines, orders } from "../db/schema";
import { isoMicro } from "../lib/time";
import type { Pipeline, PipelineMessage } from "../lib/queue";

const REMATCH_PAGE = 50;

/**
 * Runs a change of the account's rules or suppliers (a query returning the changed rows) and, in
 * the same transaction, the request to re-match its waiting lines, written only when the change
 * changed a row; then hands the request to the pipeline. Returns the change's rows.
 */
export async function changeAndRematch<T>(
  db: Db,
  pipeline: Pipeline,
  accountId: number,
  change: BatchItem<"sqlite"> & PromiseLike<T[]>,
): Promise<T[]> {
  const requestedAt = isoMicro();
  const [rows] = (await db.batch([
    change,
    // changes(): the rows the change just changed (SQLite updates it when a statement completes).
    db.update(accounts).set({ rematchRequestedAt: requestedAt }).where(and(eq(accounts.id, accountId), sql`changes() > 0`)),
  ])) as [T[], unknown];
  if (rows.length > 0) await pipeline.send([{ type: "rematch_account", accountId, requestedAt }]);
  return rows;
}

/**
 * Routes the next page of the account's waiting orders (all of them through one call of `route`: the
 * account's rules, suppliers and catalogue are read once for the page). Returns the follow-up: the
 * message for the next page, while pages come back full.
 */
export async function rematchAccount(
  db: Db,
  message: { accountId: number; afterOrderId?: number; requestedAt?: string },
  route: (orderIds: number[]) => Promise<void>,
): Promise<PipelineMessage[]> {
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
  if (rows.length) await route(rows.map((r) => r.orderId));
  if (rows.length === REMATCH_PAGE) return [{ ...message, type: "rematch_account", afterOrderId: rows[rows.length - 1].orderId }];
  if (message.requestedAt) {
    // Done: unless the account asked again meanwhile (its own message will finish that request).
    await db
      .update(accounts)
      .set({ rematchRequestedAt: null })
      .where(and(eq(accounts.id, message.accountId), sql`${accounts.rematchRequestedAt} = ${message.requestedAt}`));
  }
  return [];
}
