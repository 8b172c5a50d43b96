// Which events become which shop write-backs (docs/shops.md, "What is written, and when"), and the
// statements that create them and find the ones whose message was lost. Write-backs are created
// when events are published (src/events/publish.service.ts), from the outbox the change wrote, so a
// request that changes an order (a supplier's answer) writes no statement of its own for them.
import { sql, type SQL } from "drizzle-orm";
import { RETRIED_BY_HAND } from "../events/outbox";
import type { PipelineMessage } from "../lib/queue";
import { restWaits } from "../orders/lifecycle";

/** The queue message that delivers one write-back (src/shops/write-back.service.ts). */
export const writeBackMessages = (ids: number[]): PipelineMessage[] => ids.map((writeBackId) => ({ type: "write_back", writeBackId }));

/**
 * The states in which a person can still act on a line (send it to a supplier, re-route it:
 * src/routing/line-actions.ts ASSIGNABLE): never final, whatever shipped.
 */
const ACTIONABLE = sql`('pending', 'declined', 'failed')`;

/**
 * A line is final for the shop: skipped (cancelled), or shipped in full (what it confirms, else its
 * quantity) and not back in a state a person can act on. A declined or failed line is not final: a
 * person can still send it to another supplier; nor is a partly confirmed one whose rest no supplier
 * has, however much of what was confirmed shipped. `l` is order_lines; `upTo`: shipments up to then.
 */
const lineFinal = (upTo?: SQL) => sql`(l.current_status = 'skipped' OR (l.current_status NOT IN ${ACTIONABLE} AND NOT ${restWaits("l")}
  AND (SELECT coalesce(sum(sh.quantity), 0) FROM shipments sh WHERE sh.order_line_id = l.id ${upTo ? sql`AND sh.created_at <= ${upTo}` : sql``})
    >= coalesce(l.confirmed_quantity, l.quantity)))`;

/**
 * A line given up on that waits for a person: declined or failed, or the rest of a partly confirmed
 * one, and no other supplier took it. `l` is order_lines.
 */
const lineWaiting = sql`(l.current_status IN ('declined', 'failed') OR ${restWaits("l")})`;

/**
 * The connection's last hold or release of the order (`w` the wanted write-back, `c` the
 * connection): 'hold' while the shop's order is (asked to be) on hold.
 */
const lastHold = sql`(SELECT b.kind FROM shop_write_backs b WHERE b.order_id = w.order_id AND b.connection_id = c.id
  AND b.kind IN ('hold', 'release') ORDER BY b.id DESC LIMIT 1)`;

/**
 * The write-backs of a page of events (the ids `page` selects), for every connection of the
 * account that is not deleted (a paused one's wait for it) and serves the order's source. Unique per
 * connection, event and kind (and one completion per connection and order), so publishing a page
 * again creates nothing twice. Created in the order they must go: an order's shipments and notes in
 * the order their events were written (the events' rowid: the ids of one batch's events are random),
 * then its hold or release, its completion last.
 *
 * The order's state in the shop follows its lines (docs/shops.md, "On hold"): while a line given up
 * on waits for a person the order is put on hold, once none waits it is taken off hold, and it is
 * completed only once every line is final. Hold and release are decided from the order's last event
 * of the page against the connection's last hold or release, so each is written once per change.
 */
export function writeBacksFromEvents(page: SQL, now: string): SQL {
  // None of the order's events waits for a later page (a publish run takes 100 at a time).
  const noneLater = sql`NOT EXISTS (SELECT 1 FROM events e2 WHERE e2.account_id = ev.account_id AND json_extract(e2.data, '$.order.reference') = ev.reference
          AND e2.published_at IS NULL AND e2.id NOT IN (${page}))`;
  const lastOfOrder = sql`ev.id = (SELECT x.id FROM ev x WHERE x.order_id = ev.order_id ORDER BY x.seq DESC LIMIT 1) AND ${noneLater}`;
  return sql`WITH ev AS (
      SELECT e.id, e.rowid AS seq, e.account_id, e.type, e.data, e.created_at, o.id AS order_id, o.reference, o.source
      FROM events e JOIN orders o ON o.reference = e.data ->> '$.order.reference' AND o.account_id = e.account_id
      WHERE e.id IN (${page})
        AND EXISTS (SELECT 1 FROM shop_connections c WHERE c.account_id = e.account_id AND c.deleted_at IS NULL)
    ),
    wanted AS (
      -- A shipment: whether every line of the order was final by then (shipments up to this one's batch).
      SELECT ev.*, 0 AS rank, 'shipment' AS kind, ev.data ->> '$.line.id' AS line_id,
        NOT EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = ev.order_id AND NOT ${lineFinal(sql`ev.created_at`)}) AS shipped_in_full,
        NULL AS told
      FROM ev WHERE ev.type = 'order_line.shipped'
      UNION ALL
      -- A note: a line given up on (declined or failed, and not re-routed since; or confirmed in part,
      -- its rest still with no supplier), a cancellation answered, a return's outcome (src/returns/:
      -- the RMA, what arrived, what was credited; nothing is refunded, that stays the shop owner's
      -- decision). One term with the others: D1 takes at most five in a compound SELECT.
      SELECT ev.*, 0, 'note', ev.data ->> '$.line.id', NULL, NULL
      FROM ev WHERE ev.type IN ('order_line.cancellation_confirmed', 'order_line.cancellation_refused',
          'return.authorised', 'return.declined', 'return.received', 'return.credited', 'return.closed')
        OR (ev.type = 'order_line.status_changed' AND ev.data ->> '$.line.status' IN ('declined', 'failed', 'partially_completed')
          AND EXISTS (SELECT 1 FROM order_lines l WHERE l.id = ev.data ->> '$.line.id' AND l.current_status = ev.data ->> '$.line.status'
            AND (l.current_status <> 'partially_completed' OR ${restWaits("l")})))
      UNION ALL
      -- A follow-up note: a line the shop was told was given up on is with a supplier again (sent by
      -- hand, or re-routed), and still is with that one; or a failed line retried by hand (sent again
      -- to the supplier it has: its event names none), while it has not failed again.
      SELECT ev.*, 0, 'note', ev.data ->> '$.line.id', NULL, 1
      FROM ev WHERE (ev.type IN ('order_line.assigned', 'order_line.rerouted')
        AND EXISTS (SELECT 1 FROM order_lines l WHERE l.id = ev.data ->> '$.line.id' AND l.order_id = ev.order_id
          AND l.matched_supplier_id = ev.data ->> '$.to_supplier.id' AND l.current_status IN ('ruled', 'completed', 'partially_completed')))
        OR (ev.type = 'order_line.status_changed' AND ev.data ->> '$.line.previous_status' = 'failed' AND ev.data ->> '$.line.status' = 'ruled'
          AND ev.data ->> '$.message' = ${RETRIED_BY_HAND}
          AND EXISTS (SELECT 1 FROM order_lines l WHERE l.id = ev.data ->> '$.line.id' AND l.order_id = ev.order_id
            AND l.current_status IN ('ruled', 'completed', 'partially_completed')))
      UNION ALL
      -- On hold while a line given up on waits for a person, off hold once none does: decided when
      -- none of the order's events waits for a later page, and kept with the order's last line
      -- event of the page (what moved it; its last event when none is about a line).
      SELECT ev.*, 1, CASE WHEN EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = ev.order_id AND ${lineWaiting}) THEN 'hold' ELSE 'release' END,
        NULL, NULL, NULL
      FROM ev WHERE ev.id = (SELECT x.id FROM ev x WHERE x.order_id = ev.order_id ORDER BY x.type LIKE 'order_line.%' DESC, x.seq DESC LIMIT 1)
        AND ${noneLater}
      UNION ALL
      -- The completion: from the order's last event of the page, once every line is final, something
      -- shipped, and no event of the order waits for a later page.
      SELECT ev.*, 2, 'complete', NULL, NULL, NULL
      FROM ev WHERE ${lastOfOrder}
        AND EXISTS (SELECT 1 FROM shipments sh WHERE sh.order_id = ev.order_id)
        AND NOT EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = ev.order_id AND NOT ${lineFinal()})
    )
    INSERT INTO shop_write_backs (account_id, connection_id, order_id, event_id, kind, line_id, shipped_in_full, status, attempts, created_at, updated_at)
    SELECT w.account_id, c.id, w.order_id, w.id, w.kind, w.line_id, w.shipped_in_full, 'pending', 0, ${now}, ${now}
    FROM wanted w JOIN shop_connections c ON c.account_id = w.account_id AND c.deleted_at IS NULL
      AND (c.sources IS NULL OR EXISTS (SELECT 1 FROM json_each(c.sources) s WHERE s.value = w.source))
    WHERE CASE w.kind
      WHEN 'hold' THEN coalesce(${lastHold}, 'release') <> 'hold'
      WHEN 'release' THEN ${lastHold} IS 'hold'
      -- A follow-up only where the shop was told the line was given up on, or (a rest sent on, split
      -- off as a line of its own) that the line it came from waited for its rest.
      ELSE w.told IS NULL OR EXISTS (SELECT 1 FROM shop_write_backs b JOIN events be ON be.id = b.event_id
        WHERE b.order_id = w.order_id AND b.connection_id = c.id AND b.kind = 'note' AND be.type = 'order_line.status_changed'
          AND (b.line_id = w.line_id OR (b.line_id = (SELECT r.split_from_line_id FROM order_lines r WHERE r.id = w.line_id)
            AND be.data ->> '$.line.status' = 'partially_completed')))
    END
    ORDER BY w.rank, w.seq, c.id
    ON CONFLICT DO NOTHING`;
}

/**
 * After writeBacksFromEvents, in the same batch: the page's write-backs that can go now, the first
 * of their connection and order. Only these get a message from the publish run; each of the others
 * gets one when the write-back before it is done (deliverWriteBack), so every write-back is handled
 * by one message.
 */
export function writeBacksToSend(page: SQL): SQL {
  return sql`SELECT w.id FROM shop_write_backs w WHERE w.event_id IN (${page}) AND w.status = 'pending' AND w.attempts = 0
    AND NOT EXISTS (${earlierUnfinished(sql`w`)}) ORDER BY w.id`;
}

/**
 * The cron's safety net: write-backs of connections that are live (not paused, not deleted) whose
 * message was lost (pending and overdue by `overdue`) or whose Worker may have died mid-attempt (a
 * lease that ran out, or runs out before `until`, the next cron run: its message is held until
 * then, so a dead Worker's write-back is taken over as its lease ends, not up to a minute later),
 * and that no earlier write-back of their order holds up. This also restarts the write-backs of a
 * connection resumed after a pause. Among the newest `window` write-backs, so its cost stays flat
 * as the table grows (through shop_write_backs_status_idx).
 */
export function stuckWriteBacks(overdue: string, until: string, window: number): SQL {
  return sql`SELECT w.id, CASE WHEN w.status = 'delivering' THEN w.lease_until END AS lease_until
    FROM shop_write_backs w JOIN shop_connections c ON c.id = w.connection_id AND c.active = 1 AND c.deleted_at IS NULL
    WHERE w.id > (SELECT coalesce(max(id), 0) FROM shop_write_backs) - ${window}
      AND ((w.status = 'pending' AND coalesce(w.lease_until, w.updated_at) < ${overdue})
        OR (w.status = 'delivering' AND w.lease_until < ${until}))
      AND NOT EXISTS (${earlierUnfinished(sql`w`)})
    ORDER BY w.id`;
}

/**
 * The write-backs of `w`'s connection and order that must be done before it: the shipments and
 * notes before it (for a completion, all of them) that are not done or skipped. A write-back waits
 * while one exists; a failed one holds the rest until it is replayed.
 */
export function earlierUnfinished(w: SQL): SQL {
  return sql`SELECT 1 FROM shop_write_backs b WHERE b.order_id = ${w}.order_id AND b.connection_id = ${w}.connection_id
    AND b.status IN ('pending', 'delivering', 'failed') AND b.kind <> 'complete' AND (b.id < ${w}.id OR ${w}.kind = 'complete')`;
}

/**
 * A failing write-back (of a query aliasing shop_write_backs as w): parked after its last attempt,
 * or waiting for a retry after a failed one. Needs attention and the operator's failing deliveries
 * count the same.
 */
export const FAILING_WRITE_BACK = sql`(w.status = 'failed' OR (w.status = 'pending' AND w.attempts > 0))`;

export const DELETED_CONNECTION = "The shop connection was deleted.";

/**
 * A deleted connection's waiting (and parked) write-backs are skipped: for the connection's delete
 * batch. Should one be left, or be created meanwhile, the consumer skips it when its message comes.
 */
export function skipWriteBacksOfDeleted(connectionId: number, now: string): SQL {
  return sql`UPDATE shop_write_backs SET status = 'skipped', last_error = ${DELETED_CONNECTION}, lease_until = NULL, updated_at = ${now}
    WHERE connection_id = ${connectionId} AND status IN ('pending', 'failed')`;
}
