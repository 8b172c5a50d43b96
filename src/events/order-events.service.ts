// The events recorded about one order (what the shop's webhooks were sent about it), newest first,
// each with how its deliveries went: one statement, read through events_account_order_idx (whose
// expression the WHERE repeats exactly) and webhook_deliveries_event_idx. The statement stands
// alone too, so that a page reads it in the same round trip as the order (src/orders/order.pages.tsx).
import { sql, type SQL } from "drizzle-orm";
import { toStatement, type Db, type Row } from "../db";
import type { EventType, WebhookDelivery } from "../db/schema";

/** The newest this many are shown; the count says how many there are. */
export const ORDER_EVENTS_SHOWN = 100;

export type OrderEventDelivery = {
  subscriptionId: number;
  status: WebhookDelivery["status"];
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
};

export type OrderEvent = {
  id: string;
  type: EventType;
  data: Record<string, unknown>;
  createdAt: string;
  /** Deliveries are made when the event is published (at once after a write, or by the cron). */
  publishedAt: string | null;
  deliveries: OrderEventDelivery[];
};

type EventRow = { id: string | null; type: EventType; data: string; created_at: string; published_at: string | null; deliveries: string; total: number; active_webhook: number };

/**
 * The statement; its rows become the events with orderEventsOf. Each row also says whether the
 * account has an active webhook (events are recorded only then), and a last row without an event
 * says it when there are no events (activeWebhookOf): the page's text for "no events" depends on it.
 */
export function orderEventsStatement(accountId: number, reference: string): SQL {
  const activeWebhook = sql`EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.account_id = ${accountId} AND s.active = 1)`;
  return sql`SELECT e.id, e.type, e.data, e.created_at, e.published_at, count(*) OVER () AS total,
      (SELECT json_group_array(json_object('subscriptionId', d.subscription_id, 'status', d.status, 'attempts', d.attempts,
          'lastStatusCode', d.last_status_code, 'lastError', d.last_error))
        FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries, ${activeWebhook} AS active_webhook
    FROM events e
    WHERE e.account_id = ${accountId} AND json_extract(e.data, '$.order.reference') = ${reference}
    UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, 0, NULL, ${activeWebhook}
    ORDER BY 4 DESC, 1 DESC LIMIT ${ORDER_EVENTS_SHOWN + 1}`;
}

/** Whether the account has an active webhook, from the rows of orderEventsStatement. */
export const activeWebhookOf = (rows: Row[]): boolean => Boolean((rows as EventRow[])[0]?.active_webhook);

export function orderEventsOf(rows: Row[]): { total: number; events: OrderEvent[] } {
  // The row without an event sorts last (its created_at is null) and is left out, as is the 101st event.
  const results = (rows as EventRow[]).filter((r) => r.id !== null).slice(0, ORDER_EVENTS_SHOWN);
  return {
    total: Number(results[0]?.total ?? 0),
    events: results.map((r) => ({
      id: r.id!,
      type: r.type,
      data: JSON.parse(r.data) as Record<string, unknown>,
      createdAt: r.created_at,
      publishedAt: r.published_at,
      deliveries: JSON.parse(r.deliveries) as OrderEventDelivery[],
    })),
  };
}

export async function listOrderEvents(db: Db, accountId: number, reference: string): Promise<{ total: number; events: OrderEvent[] }> {
  const { results } = await toStatement(db, orderEventsStatement(accountId, reference)).all<Row>();
  return orderEventsOf(results);
}
