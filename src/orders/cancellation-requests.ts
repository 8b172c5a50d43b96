// A cancellation request to a supplier, written set-based: one row per (order, supplier) and one per
// line with the quantity to cancel. Webhook and e-mail suppliers get it sent (queued, like a
// dispatch); pull and manual suppliers see it at once (the supplier API, the portal, the shop's
// attention list). Shared by the shop's cancellations (./cancellations.service.ts) and the
// withdrawal of a line re-routed away from a silent supplier (src/routing/reroute.ts).
import { sql, type SQL } from "drizzle-orm";
import type { CancellationPurpose, Channel } from "../db/schema";
import { channelsStarting } from "../forwarding/channels";

export type CancellationRequest = {
  accountId: number;
  orderId: number;
  supplierId: number;
  channel: Channel;
  purpose: CancellationPurpose;
  reason: string | null;
  lines: { lineId: number; quantity: number }[];
};

/** Channels on which a request is sent (and so starts queued); the others show it where the supplier looks. */
export const sentChannels = (): readonly Channel[] => channelsStarting("sending");

/**
 * The requests and their lines in two statements. A line that already has an open cancellation
 * (purpose `cancel`) gets no second one: the line insert skips it, so a caller that must not be
 * half-done follows with expectChanges(number of lines).
 */
export function cancellationRequestStatements(requests: CancellationRequest[], now: string): SQL[] {
  if (requests.length === 0) return [];
  const json = JSON.stringify(
    requests.map((r) => ({
      a: r.accountId,
      o: r.orderId,
      s: r.supplierId,
      c: r.channel,
      p: r.purpose,
      r: r.reason,
      k: crypto.randomUUID(),
      l: r.lines.map((l) => ({ i: l.lineId, q: l.quantity })),
    })),
  );
  const sent = sql.join(sentChannels().map((c) => sql`${c}`), sql`, `);
  return [
    sql`INSERT INTO cancellations (account_id, order_id, supplier_id, channel, purpose, reason, status, idempotency_key, attempts, created_at, updated_at, sent_at)
        SELECT j.value ->> '$.a', j.value ->> '$.o', j.value ->> '$.s', j.value ->> '$.c', j.value ->> '$.p', j.value ->> '$.r',
          CASE WHEN j.value ->> '$.c' IN (${sent}) THEN 'queued' ELSE 'requested' END, j.value ->> '$.k', 0, ${now}, ${now},
          CASE WHEN j.value ->> '$.c' IN (${sent}) THEN NULL ELSE ${now} END
        FROM json_each(${json}) AS j ORDER BY j.key`,
    sql`INSERT INTO cancellation_lines (cancellation_id, account_id, order_id, order_line_id, supplier_id, purpose, quantity, status, created_at)
        SELECT c.id, c.account_id, c.order_id, l.value ->> '$.i', c.supplier_id, c.purpose, l.value ->> '$.q', 'requested', ${now}
        FROM json_each(${json}) AS j JOIN cancellations c ON c.idempotency_key = j.value ->> '$.k', json_each(j.value, '$.l') AS l
        WHERE true ORDER BY j.key, l.key
        ON CONFLICT (order_line_id) WHERE status = 'requested' AND purpose = 'cancel' DO NOTHING`,
  ];
}
