// One action on many orders (POST /api/v1/orders/bulk, the ticked rows of the console's order list):
// each order goes through the very service of its own action (block, unblock, retry), one after
// the other, and answers what happened to it. Every one of those is safe to repeat, so a request
// cut short leaves each order either done or untouched, and sending it again finishes the rest.
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db";
import { orders } from "../db/schema";
import { retryFailedLines } from "../forwarding/forwarding.service";
import { ApiError } from "../lib/errors";
import type { Pipeline } from "../lib/queue";
import { setBlocked } from "../routing/routing.service";
import type { ListOrdersFilters } from "./orders.schemas";
import { listOrders } from "./orders.service";
import { count } from "../lib/plural";

export const BULK_ACTIONS = ["retry_failed", "unblock", "block"] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/**
 * At most this many orders per request: the order list's largest page, so that "every order on
 * this page" always fits. An order costs at most 9 D1 queries (a retry: its read, its failed
 * lines, a batch of 7) and one queue message, so a full request stays within D1's 1,000 queries
 * per Worker invocation: 902 measured at 100 retries (test/orders/bulk.test.ts holds the bound).
 */
export const BULK_MAX_ORDERS = 100;

export const BULK_OUTCOMES = ["retried", "no_failed_lines", "blocked", "already_blocked", "unblocked", "not_blocked", "not_found"] as const;
export type BulkOutcome = (typeof BULK_OUTCOMES)[number];
export type BulkResult = { reference: string; outcome: BulkOutcome; message: string };

/** The orders to act on: given by reference (the order they are given in), or every order the list's filters match (newest first). */
export type BulkFilter = Omit<ListOrdersFilters, "page" | "per_page">;
export type BulkTarget = { references: string[] } | { filter: BulkFilter };

type Target = { reference: string; blocked: boolean; failed: number };

const lines = (n: number) => count(n, "failed line");

export async function bulkAction(db: Db, pipeline: Pipeline, accountId: number, action: BulkAction, target: BulkTarget, reason?: string): Promise<BulkResult[]> {
  const found = "references" in target ? await byReference(db, accountId, target.references) : await byFilter(db, accountId, target.filter);
  const results: BulkResult[] = [];
  for (const [reference, order] of found) {
    if (!order) {
      results.push({ reference, outcome: "not_found", message: "No order with this reference" });
    } else if (action === "retry_failed") {
      const { retried } = order.failed ? await retryFailedLines(db, pipeline, accountId, reference) : { retried: 0 };
      results.push(retried ? { reference, outcome: "retried", message: `Retried ${lines(retried)}` } : { reference, outcome: "no_failed_lines", message: "No failed lines" });
    } else if ((action === "block") === order.blocked) {
      results.push(order.blocked ? { reference, outcome: "already_blocked", message: "Already blocked" } : { reference, outcome: "not_blocked", message: "Not blocked" });
    } else {
      // Said as written: an action that raced this one may have got there between the read and the write.
      const { changed } = await setBlocked(db, pipeline, accountId, reference, action === "block", reason);
      const done = action === "block";
      if (changed) results.push(done ? { reference, outcome: "blocked", message: "Blocked" } : { reference, outcome: "unblocked", message: "Unblocked" });
      else results.push(done ? { reference, outcome: "already_blocked", message: "Already blocked" } : { reference, outcome: "not_blocked", message: "Not blocked" });
    }
  }
  return results;
}

// Table-qualified by hand: inside a one-table select Drizzle writes its columns bare.
const failedCount = sql<number>`(SELECT count(*) FROM order_lines l WHERE l.order_id = orders.id AND l.current_status = 'failed')`;

/** The account's orders among the references, in one statement (the set travels as one JSON parameter). */
async function byReference(db: Db, accountId: number, references: string[]): Promise<Map<string, Target | null>> {
  const rows = await db
    .select({ reference: orders.reference, blocked: orders.blocked, failed: failedCount })
    .from(orders)
    .where(and(sql`${orders.reference} IN (SELECT value FROM json_each(${JSON.stringify(references)}))`, eq(orders.accountId, accountId)));
  const byRef = new Map(rows.map((r) => [r.reference, r]));
  return new Map(references.map((ref) => [ref, byRef.get(ref) ?? null]));
}

/** Every order the list shows for these filters: the list's own read, one page of the maximum. */
async function byFilter(db: Db, accountId: number, filter: BulkFilter): Promise<Map<string, Target | null>> {
  const result = await listOrders(db, accountId, { ...filter, per_page: BULK_MAX_ORDERS }, { page: 1, perPage: BULK_MAX_ORDERS });
  if (result.total > BULK_MAX_ORDERS) {
    throw ApiError.validation({
      filter: [`The filter matches ${result.total.toLocaleString("en")} orders; a bulk action takes at most ${BULK_MAX_ORDERS}. Narrow the filters.`],
    });
  }
  const failed = new Map<number, number>();
  for (const line of result.lines) if (line.currentStatus === "failed") failed.set(line.orderId, (failed.get(line.orderId) ?? 0) + 1);
  return new Map(result.orders.map((o) => [o.reference, { reference: o.reference, blocked: o.blocked, failed: failed.get(o.id) ?? 0 }]));
}
