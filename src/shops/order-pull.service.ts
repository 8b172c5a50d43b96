// The reconciliation pull of the platforms that push their orders to us (docs/shops/shopify.md,
// "Webhooks can be missed"): from the cron, each active connection whose platform has a pull reads
// the orders its shop changed since the connection's cursor and takes in what its webhooks missed.
// Idempotent with the webhooks: an order is one per (account, external_id), so one the webhooks
// brought is found, not made again; a cancelled one cancels what can still be cancelled, once.
//
// Bounded per tick: at most PULL_CONNECTIONS connections (those that waited longest first) and
// PULL_PAGES pages of each; a connection with more waiting goes on at the next tick (a minute later).
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { notMoving } from "../db/moving";
import type { Db } from "../db";
import { orders, shopConnections, type ShopConnectionRow } from "../db/schema";
import type { Bindings } from "../env";
import { ApiError, isAccountMoving } from "../lib/errors";
import { sendSettings } from "../lib/outbound";
import type { Pipeline } from "../lib/queue";
import { isoMicro } from "../lib/time";
import { parseOrThrow } from "../lib/validation";
import { cancelOrder } from "../orders/cancellations.service";
import { createOrder } from "../orders/orders.service";
import { CreateOrderBody } from "../orders/orders.schemas";
import { connectionKeys, openConnection } from "./connections.service";
import { ShopError, ShopHttp } from "./platforms/http";
import { platformFor, platforms } from "./platforms/index";
import type { PulledOrder } from "./platforms/platform";

export const PULL_CONNECTIONS = 10;
export const PULL_PAGES = 2;

/** `unexpected`: the error was not the shop's answer (a fault of ours: credentials that cannot be opened, D1). */
export type PullOutcome = { connectionId: number; created: number; cancelled: number; error?: string; unexpected?: boolean };

/** One tick's pull on one shard: what each connection took in. */
export async function pullMissedOrders(env: Bindings, db: Db, pipeline: Pipeline, shard: number, now: Date): Promise<PullOutcome[]> {
  const pulling = platforms().filter((p) => p.pullOrders && p.pulledOrder).map((p) => p.name);
  if (pulling.length === 0) return [];
  const due = await db
    .select()
    .from(shopConnections)
    // A moving (or deleted) account's connections wait: their rows refuse writes (src/db/moving.ts).
    .where(and(inArray(shopConnections.platform, pulling), eq(shopConnections.active, true), isNull(shopConnections.deletedAt), notMoving(sql`${shopConnections.accountId}`)))
    .orderBy(sql`${shopConnections.pulledAt} IS NOT NULL`, asc(shopConnections.pulledAt), asc(shopConnections.id))
    .limit(PULL_CONNECTIONS);
  const outcomes: PullOutcome[] = [];
  // One at a time: each is a handful of calls, and a tick must not open many shops' connections at once.
  for (const row of due) outcomes.push(await pullConnection(env, db, pipeline, shard, row, now));
  return outcomes;
}

async function pullConnection(env: Bindings, db: Db, pipeline: Pipeline, shard: number, row: ShopConnectionRow, now: Date): Promise<PullOutcome> {
  const outcome: PullOutcome = { connectionId: row.id, created: 0, cancelled: 0 };
  const adapter = platformFor(row.platform);
  let cursor = row.pullCursor ?? null;
  try {
    const conn = await openConnection(connectionKeys(env), row);
    const http = new ShopHttp({ baseUrl: row.baseUrl, timeoutMs: sendSettings(env).timeoutMs, dryRun: false, secrets: Object.values(conn.credentials) });
    for (let page = 0; page < PULL_PAGES; page++) {
      const got = await adapter.pullOrders!(conn, http, cursor, row.createdAt);
      const fetch = (externalId: string) => adapter.pulledOrder!(conn, http, externalId, row.name);
      for (const order of got.orders) await takeIn(db, pipeline, shard, row, order, fetch, outcome);
      // The cursor moves only past orders taken in: a failure above leaves it, and the next tick reads them again.
      cursor = got.cursor;
      await db.update(shopConnections).set({ pullCursor: cursor, pulledAt: isoMicro(now) }).where(eq(shopConnections.id, row.id));
      if (!got.more) break;
    }
  } catch (error) {
    // Tried: it goes to the back of the queue, so one unreachable shop never starves the others, nor
    // does a fault of ours with one connection (the cron's run records it: src/pipeline/cron.ts).
    // Frozen since the connection was picked (a move began): its turn comes again where it lands.
    if (isAccountMoving(error)) return outcome;
    const ours = !(error instanceof ShopError) && !(error instanceof ApiError);
    outcome.error = error instanceof Error ? error.message : String(error);
    if (ours) outcome.unexpected = true;
    console.error(JSON.stringify({ level: ours ? "error" : "warn", event: "order_pull_failed", connection: row.id, error: outcome.error }));
    try {
      await db.update(shopConnections).set({ pulledAt: isoMicro(now) }).where(eq(shopConnections.id, row.id));
    } catch (bump) {
      console.error(JSON.stringify({ level: "error", event: "order_pull_requeue_failed", connection: row.id, error: String(bump) }));
    }
  }
  return outcome;
}

async function takeIn(db: Db, pipeline: Pipeline, shard: number, row: ShopConnectionRow, order: PulledOrder, fetch: (externalId: string) => Promise<Record<string, unknown> | null>, outcome: PullOutcome) {
  const found = await db.select({ reference: orders.reference }).from(orders).where(and(eq(orders.accountId, row.accountId), eq(orders.externalId, order.externalId))).get();
  if (order.cancelled) {
    // Cancelled before it ever came in: there is nothing of ours to cancel, and nothing to route.
    if (!found) return;
    try {
      await cancelOrder(db, pipeline, row.accountId, found.reference, { reason: "Cancelled in the shop" });
      outcome.cancelled++;
    } catch (error) {
      // Cancelled already (its webhook, or an earlier pull), or nothing left that can be: done.
      if (!(error instanceof ApiError && error.status === 409)) throw error;
    }
    return;
  }
  if (found) return;
  // Read whole only now: most changed orders are ours already.
  const request = await fetch(order.externalId);
  if (!request) return;
  let input;
  try {
    input = parseOrThrow(CreateOrderBody, request);
  } catch (error) {
    // What our orders refuse (no shipping address, no lines) is refused here as its webhook is: logged, never half taken in.
    if (!(error instanceof ApiError)) throw error;
    console.error(JSON.stringify({ level: "warn", event: "order_pull_refused", connection: row.id, external_id: order.externalId, errors: error.body }));
    return;
  }
  const result = await createOrder(db, pipeline, row.accountId, input, shard);
  if (result.created) outcome.created++;
}
