// Planning a dispatch, beside the journey that creates them (./journey.ts, the route step): the
// dispatch of an order's lines for one supplier, claimed for the first step of its channel, and the
// one statement that creates any number of them. Plain data: nothing here writes or sends; sending
// is src/forwarding/forwarding.service.ts's.
import { sql, type SQL } from "drizzle-orm";
import type { Dispatch, LineStatus, Order, OrderLine, Supplier } from "../db/schema";
import { channelFor } from "../forwarding/channels";
import { ackDueAtOf } from "../forwarding/deadlines";
import { buildDocument, type DispatchDocument } from "../forwarding/document";
import { dryRunMessage, pickupNote } from "../forwarding/forwarding.service";
import type { LineChange } from "../orders/lifecycle";

/**
 * A dispatch created already claimed for the first step of its channel (planDispatch, for ./journey.ts):
 * `sending` under a lease (push), `awaiting_pickup` (pull), `manual`, or `dry_run` (test orders); with
 * the lines it carries as the caller read them (`from`: pending, matched in the same batch, or ruled
 * without a dispatch yet), and its document (the id is filled in by the database).
 */
export type NewDispatch = {
  dispatch: Dispatch;
  lines: { line: OrderLine; from: LineStatus }[];
  doc: DispatchDocument | null;
  supplier: Supplier | undefined;
  ackDueAt: string | null;
};

/** A line a new dispatch carries, as the caller read it: pending (matched in the same batch, `message` the match's) or ruled without a dispatch yet. */
export type Carried = { line: OrderLine; from: LineStatus; message?: string };

/**
 * Plan a dispatch: the dispatch of `carried` (an order's lines for one supplier), claimed for the
 * first step of its channel, and the line moves and notes that go with it in the same batch. Writes
 * nothing: the caller puts `newDispatchStatement` and the changes in its batch.
 */
export function planDispatch(
  order: Order,
  supplierId: number,
  supplier: Supplier | undefined,
  carried: Carried[],
  at: { now: string; lease: string; started: Date },
): { created: NewDispatch; changes: LineChange[]; closes: boolean } {
  const { now, lease, started } = at;
  const changes: LineChange[] = [];
  let closes = false;
  const key = crypto.randomUUID();
  const channel = supplier?.channel ?? "manual";
  const status: Dispatch["status"] = order.test ? "dry_run" : channelFor(channel).starts;
  const ackDueAt = status === "manual" || status === "awaiting_pickup" ? ackDueAtOf(supplier ?? { ackDeadlineHours: null }, started) : null;
  for (const { line, from, message } of carried) {
    const base = { lineId: line.id, orderId: order.id, version: line.moveToken };
    if (from === "pending") {
      changes.push({ kind: "move", ...base, from: "pending", to: "ruled", message: message!, matchedSupplierId: supplierId, dispatchKey: key, ...(ackDueAt ? { ackDueAt } : {}) });
    }
    if (status === "dry_run") {
      changes.push({ kind: "move", ...base, from: "ruled", to: "completed", message: dryRunMessage(supplier!), ...(from === "ruled" ? { dispatchKey: key } : {}) });
      closes = true;
    } else if (status === "awaiting_pickup") {
      changes.push({ kind: "note", lineId: line.id, orderId: order.id, message: pickupNote(supplier!) });
    }
  }
  const dispatch: Dispatch = {
    id: 0,
    accountId: order.accountId,
    orderId: order.id,
    supplierId,
    channel,
    status,
    idempotencyKey: key,
    attempts: 1,
    leaseUntil: status === "sending" ? lease : null,
    lastError: null,
    payload: null,
    createdAt: now,
    updatedAt: now,
    sentAt: status === "dry_run" ? now : null,
    acknowledgedAt: null,
    attemptLog: null,
  };
  const held = carried.map((c) => c.line);
  const doc = supplier ? buildDocument(dispatch, order, supplier, held) : null;
  return { created: { dispatch, lines: carried.map((c) => ({ line: c.line, from: c.from })), doc, supplier, ackDueAt }, changes, closes };
}

/**
 * Creates the dispatches, returning each one's id and idempotency key. A dispatch is created only
 * when every line it carries is still as read (so the moves that follow in the batch carry exactly
 * them); its id is allocated here, so that the stored document (what was, or would be, sent) names it.
 */
export function newDispatchStatement(created: NewDispatch[], now: string): SQL {
  const json = JSON.stringify(
    created.map(({ dispatch: d, lines, doc }) => ({
      a: d.accountId,
      o: d.orderId,
      s: d.supplierId,
      c: d.channel,
      st: d.status,
      k: d.idempotencyKey,
      n: d.attempts,
      lu: d.leaseUntil,
      p: doc,
      l: lines.map(({ line, from }) => ({ i: line.id, f: from, v: line.moveToken })),
    })),
  );
  // D1 runs one batch at a time: the next ids are minted here as SQLite's AUTOINCREMENT mints them,
  // after the larger of the table's sequence and its largest id. Not the largest id alone: the
  // sequence holds the shard's own id block (scripts/lib/shards.mjs), and a shard whose only
  // dispatches came with a moved-in account would otherwise mint in the block those came from,
  // ids another shard mints too (a later move of that shard's account would then lose rows to
  // ON CONFLICT and never pass its check).
  const id = sql`max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'dispatches'), 0), (SELECT coalesce(max(id), 0) FROM dispatches)) + 1 + j.key`;
  return sql`INSERT INTO dispatches (id, account_id, order_id, supplier_id, channel, status, idempotency_key, attempts, lease_until, payload,
        created_at, updated_at, sent_at)
      SELECT ${id}, j.value ->> '$.a', j.value ->> '$.o', j.value ->> '$.s', j.value ->> '$.c', j.value ->> '$.st', j.value ->> '$.k',
        j.value ->> '$.n', j.value ->> '$.lu', CASE WHEN json_type(j.value, '$.p') = 'object' THEN json_set(j.value -> '$.p', '$.dispatch_id', ${id}) END,
        ${now}, ${now}, CASE WHEN j.value ->> '$.st' = 'dry_run' THEN ${now} END
      FROM json_each(${json}) AS j
      WHERE NOT EXISTS (
        SELECT 1 FROM json_each(j.value, '$.l') AS x
        LEFT JOIN order_lines l ON l.id = x.value ->> '$.i' AND l.order_id = j.value ->> '$.o'
        WHERE l.id IS NULL OR l.current_status IS NOT x.value ->> '$.f' OR l.move_token IS NOT x.value ->> '$.v'
          OR (x.value ->> '$.f' = 'ruled' AND l.dispatch_id IS NOT NULL))
      ORDER BY j.key
      RETURNING id, idempotency_key`;
}
