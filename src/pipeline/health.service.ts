// The pipeline's health as its durable marks in D1 show it (every piece of work the pipeline owes
// is a row: sweeper.ts): how much waits at each stage and since when, what was given up on, and the
// failing webhook deliveries and writes into shops of every account. Domain data for the operator's pipeline page.
import { sql, type SQL } from "drizzle-orm";
import { toStatement, type Db } from "../db";
import { FAILING_DELIVERY } from "../events/delivery.service";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { FAILING_WRITE_BACK } from "../shops/write-backs";

/** How many wait at one stage, and since when the oldest of them waits (null when none). */
export type Stage = { count: number; oldest: string | null };

export type Backlog = {
  /** Orders the pipeline owes routing (routed_at null: new, or handed back by an unblock, retry, match, replay). */
  routing: Stage;
  /** Sends waiting for an attempt, and sends under way (an attempt holds the lease). */
  sendsQueued: Stage;
  sendsInProgress: Stage;
  /** Events recorded and not yet turned into webhook deliveries. */
  eventsUnpublished: Stage;
  /** Webhook deliveries waiting for an attempt (new, or a retry after a failed one). */
  deliveriesPending: Stage;
  /** Accounts whose waiting lines must be matched again after a rule or supplier change. */
  rematches: Stage;
  parkedOrders: number;
  openDeadLetters: number;
  failingDeliveries: number;
  /** Write-backs into shops parked after their last attempt, or waiting for a retry. */
  failingWriteBacks: number;
};

type StageRow = { count: number; oldest: string | null };

/** Several shards' backlogs as one: counts added, the oldest of the oldest. */
export function addBacklogs(backlogs: Backlog[]): Backlog {
  const stage = (pick: (b: Backlog) => Stage): Stage => ({
    count: backlogs.reduce((n, b) => n + pick(b).count, 0),
    oldest: backlogs.map((b) => pick(b).oldest).filter((o): o is string => o !== null).sort()[0] ?? null,
  });
  const sum = (pick: (b: Backlog) => number) => backlogs.reduce((n, b) => n + pick(b), 0);
  return {
    routing: stage((b) => b.routing),
    sendsQueued: stage((b) => b.sendsQueued),
    sendsInProgress: stage((b) => b.sendsInProgress),
    eventsUnpublished: stage((b) => b.eventsUnpublished),
    deliveriesPending: stage((b) => b.deliveriesPending),
    rematches: stage((b) => b.rematches),
    parkedOrders: sum((b) => b.parkedOrders),
    openDeadLetters: sum((b) => b.openDeadLetters),
    failingDeliveries: sum((b) => b.failingDeliveries),
    failingWriteBacks: sum((b) => b.failingWriteBacks),
  };
}

/**
 * One round trip of ten statements, each answered from an index (most from the index alone):
 * orders_unrouted_idx, dispatches_status_updated_idx, events_unpublished_idx,
 * webhook_deliveries_status_idx, accounts_rematch_idx, orders_parked_idx, dead_letters_status_idx,
 * shop_write_backs_status_idx.
 */
export async function pipelineBacklog(db: Db): Promise<Backlog> {
  const statements = [
    sql`SELECT count(*) AS count, min(route_requested_at) AS oldest FROM orders WHERE routed_at IS NULL`,
    sql`SELECT count(*) AS count, min(updated_at) AS oldest FROM dispatches WHERE status = 'queued'`,
    sql`SELECT count(*) AS count, min(updated_at) AS oldest FROM dispatches WHERE status = 'sending'`,
    sql`SELECT count(*) AS count, min(created_at) AS oldest FROM events WHERE published_at IS NULL`,
    sql`SELECT count(*) AS count,
          (SELECT created_at FROM webhook_deliveries WHERE id = (SELECT min(id) FROM webhook_deliveries WHERE status = 'pending')) AS oldest
        FROM webhook_deliveries WHERE status = 'pending'`,
    sql`SELECT count(*) AS count, min(rematch_requested_at) AS oldest FROM accounts WHERE rematch_requested_at IS NOT NULL`,
    sql`SELECT count(*) AS count, NULL AS oldest FROM orders WHERE parked_at IS NOT NULL`,
    sql`SELECT count(*) AS count, NULL AS oldest FROM dead_letters WHERE status = 'open'`,
    sql`SELECT count(*) AS count, NULL AS oldest FROM webhook_deliveries d WHERE ${FAILING_DELIVERY}`,
    sql`SELECT count(*) AS count, NULL AS oldest FROM shop_write_backs w WHERE ${FAILING_WRITE_BACK}`,
  ];
  const results = await db.$client.batch<StageRow>(statements.map((s) => toStatement(db, s)));
  const [routing, sendsQueued, sendsInProgress, eventsUnpublished, deliveriesPending, rematches, parked, dead, failing, failingBacks] = results.map(
    (r) => r.results[0] ?? { count: 0, oldest: null },
  );
  return {
    routing,
    sendsQueued,
    sendsInProgress,
    eventsUnpublished,
    deliveriesPending,
    rematches,
    parkedOrders: parked.count,
    openDeadLetters: dead.count,
    failingDeliveries: failing.count,
    failingWriteBacks: failingBacks.count,
  };
}

export type FailingDelivery = {
  id: number;
  accountId: number;
  accountName: string;
  subscriptionId: number;
  url: string;
  eventType: string;
  status: "pending" | "failed";
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  updatedAt: string;
};

/**
 * Webhook deliveries of every account that are failing (given up, or waiting for a retry after a
 * failed attempt; the shop's "Needs attention" counts the same), newest first: one round trip.
 */
export async function listFailingDeliveries(db: Db, page: PageRequest): Promise<{ total: number; rows: FailingDelivery[] }> {
  return countedPage<FailingDelivery>(
    db,
    sql`SELECT count(*) AS total FROM webhook_deliveries d WHERE ${FAILING_DELIVERY}`,
    sql`SELECT d.id, d.account_id AS accountId, a.name AS accountName, d.subscription_id AS subscriptionId, w.url, e.type AS eventType,
        d.status, d.attempts, d.last_status_code AS lastStatusCode, d.last_error AS lastError, d.updated_at AS updatedAt
      FROM webhook_deliveries d
      JOIN accounts a ON a.id = d.account_id
      JOIN webhook_subscriptions w ON w.id = d.subscription_id
      JOIN events e ON e.id = d.event_id
      WHERE ${FAILING_DELIVERY}
      ORDER BY d.id DESC LIMIT ${page.perPage} OFFSET ${offsetOf(page)}`,
  );
}

/** A count and a page of rows (aliased to their fields), in one round trip. */
async function countedPage<T>(db: Db, count: SQL, list: SQL): Promise<{ total: number; rows: T[] }> {
  const [counted, listed] = await db.$client.batch<Record<string, unknown>>([count, list].map((s) => toStatement(db, s)));
  return { total: Number(counted.results[0]?.total ?? 0), rows: listed.results as T[] };
}

export type FailingWriteBack = {
  id: number;
  accountId: number;
  accountName: string;
  reference: string;
  connectionName: string;
  platform: string;
  kind: string;
  status: "pending" | "failed";
  attempts: number;
  lastError: string | null;
  updatedAt: string;
};

/**
 * Write-backs into shops of every account that are failing (parked, or waiting for a retry after a
 * failed attempt; the shop's "Needs attention" counts the same), newest first: one round trip.
 */
export async function listFailingWriteBacks(db: Db, page: PageRequest): Promise<{ total: number; rows: FailingWriteBack[] }> {
  return countedPage<FailingWriteBack>(
    db,
    sql`SELECT count(*) AS total FROM shop_write_backs w WHERE ${FAILING_WRITE_BACK}`,
    sql`SELECT w.id, w.account_id AS accountId, a.name AS accountName, o.reference, c.name AS connectionName, c.platform, w.kind,
        w.status, w.attempts, w.last_error AS lastError, w.updated_at AS updatedAt
      FROM shop_write_backs w
      JOIN accounts a ON a.id = w.account_id
      JOIN shop_connections c ON c.id = w.connection_id
      JOIN orders o ON o.id = w.order_id
      WHERE ${FAILING_WRITE_BACK}
      ORDER BY w.id DESC LIMIT ${page.perPage} OFFSET ${offsetOf(page)}`,
  );
}
