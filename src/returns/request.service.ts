// A shop's return request: the shipped lines the customer sends back, one return per supplier that
// shipped them. Only what shipped and is not asked back already can be returned: judged against the
// lines as read, and guarded again in the batch that writes it (summed over every live return of
// each line), so two racing requests can never together ask back more than shipped: the loser is
// judged again and refused with the 422 naming the quantity. All or nothing.
import { sql, type SQL } from "drizzle-orm";
import { rawBatch, type Db, type Row } from "../db";
import { expectCount } from "../db/guards";
import { DEFAULT_RETURN_WINDOW_DAYS, type Channel } from "../db/schema";
import { returnEvent } from "../events/outbox";
import { ApiError, type ValidationErrors } from "../lib/errors";
import { carryOut, type Plan } from "../lib/plan";
import type { Pipeline, PipelineMessage } from "../lib/queue";
import { isoMicro } from "../lib/time";
import { findOrder } from "../orders/orders.service";
import { noticeStatement, noticeMessages, tellsByPush } from "./notices";
import type { ReturnRequest } from "./returns.schemas";

/** Returns that no longer hold goods back from what may be returned (nothing comes back with them). */
export const DEAD_RETURN_STATUSES = ["declined", "cancelled"] as const;

/** What a line asks back already, over every return of it that is alive (`l`: order_lines). */
export const returnedOf = (l: string) =>
  sql.raw(`(SELECT coalesce(sum(rl.quantity), 0) FROM return_lines rl JOIN returns r ON r.id = rl.return_id WHERE rl.order_line_id = ${l}.id AND r.status NOT IN ('declined', 'cancelled'))`);
const shippedOf = (l: string) => sql.raw(`(SELECT coalesce(sum(sh.quantity), 0) FROM shipments sh WHERE sh.order_line_id = ${l}.id)`);

type ReturnableLine = {
  id: number;
  orderId: number;
  name: string;
  supplierId: number | null;
  supplierName: string | null;
  channel: Channel | null;
  shipped: number;
  returned: number;
  lastShippedAt: string | null;
  autoAuthorise: boolean;
  returnAddress: string | null;
  windowDays: number;
};

/** The order's id (null: none of the account by that reference) and the lines asked for, in one round trip. */
async function readLines(db: Db, accountId: number, reference: string, ids: number[]): Promise<{ orderId: number | null; lines: ReturnableLine[] }> {
  const [orderRows, rows] = await rawBatch(db, [
    sql`SELECT id FROM orders WHERE account_id = ${accountId} AND reference = ${reference}`,
    sql`SELECT l.id, l.order_id, l.name, l.matched_supplier_id AS supplier_id, s.name AS supplier_name, s.channel,
          ${shippedOf("l")} AS shipped, ${returnedOf("l")} AS returned,
          (SELECT max(sh.created_at) FROM shipments sh WHERE sh.order_line_id = l.id) AS last_shipped_at,
          coalesce(rs.auto_authorise, 0) AS auto_authorise, rs.return_address, coalesce(rs.window_days, ${DEFAULT_RETURN_WINDOW_DAYS}) AS window_days
        -- CROSS JOIN: the lines asked for by id; a plain JOIN let the planner walk every line of the account (bench, issue 35).
        FROM json_each(${JSON.stringify(ids)}) AS j CROSS JOIN order_lines l ON l.id = j.value AND l.account_id = ${accountId}
        LEFT JOIN suppliers s ON s.id = l.matched_supplier_id LEFT JOIN supplier_return_settings rs ON rs.supplier_id = l.matched_supplier_id`,
  ]);
  const lines = rows.map((r: Row) => ({
    id: Number(r.id),
    orderId: Number(r.order_id),
    name: String(r.name),
    supplierId: r.supplier_id === null ? null : Number(r.supplier_id),
    supplierName: (r.supplier_name as string | null) ?? null,
    channel: (r.channel as Channel | null) ?? null,
    shipped: Number(r.shipped),
    returned: Number(r.returned),
    lastShippedAt: (r.last_shipped_at as string | null) ?? null,
    autoAuthorise: Boolean(r.auto_authorise),
    returnAddress: (r.return_address as string | null) ?? null,
    windowDays: Number(r.window_days),
  }));
  return { orderId: orderRows.length ? Number((orderRows[0] as Row).id) : null, lines };
}

const DAY_MS = 86_400_000;

/** The return ids the request created, by supplier, in the order of the lines' suppliers. */
export type RequestedReturns = { returnIds: number[] };

/**
 * Plans the request: every failing field at once (422), else one batch that writes a return per
 * supplier (its lines, its log, its event, its notice to the supplier), guarded on the quantities.
 */
export async function planReturnRequest(db: Db, accountId: number, reference: string, input: ReturnRequest, actor: string, now = isoMicro()): Promise<Plan<RequestedReturns>> {
  const read = await readLines(db, accountId, reference, input.lines.map((l) => l.line_id));
  // No such order: findOrder says why (not found, or archived and so finished).
  const order = { id: read.orderId ?? (await findOrder(db, accountId, reference)).id };
  const lines = read.lines;
  const byId = new Map(lines.map((l) => [l.id, l]));
  const errors: ValidationErrors = {};
  input.lines.forEach((asked, i) => {
    const line = byId.get(asked.line_id);
    if (!line || line.orderId !== order.id) {
      errors[`lines.${i}.line_id`] = [`The selected lines.${i}.line_id is invalid: order ${reference} has no line ${asked.line_id}.`];
      return;
    }
    if (line.shipped === 0 || line.supplierId === null) {
      errors[`lines.${i}.line_id`] = [`Order line ${line.id} has not shipped; only shipped quantity can be returned.`];
      return;
    }
    const left = line.shipped - line.returned;
    if (asked.quantity > left) {
      errors[`lines.${i}.quantity`] = [
        `The lines.${i}.quantity field must not be greater than ${left}, what is shipped of line ${line.id} and not returned yet (${line.shipped} shipped, ${line.returned} returned).`,
      ];
      return;
    }
    const windowEnds = Date.parse(line.lastShippedAt!) + line.windowDays * DAY_MS;
    if (!input.force && Date.parse(now) > windowEnds) {
      errors[`lines.${i}.line_id`] = [
        `Order line ${line.id} shipped on ${line.lastShippedAt!.slice(0, 10)}, past supplier ${line.supplierName}'s return window of ${line.windowDays} days; send force: true to request it all the same.`,
      ];
    }
  });
  if (Object.keys(errors).length) throw ApiError.validation(errors);

  // One return per supplier, in the order its first line was asked for.
  const groups = new Map<number, { line: ReturnableLine; asked: ReturnRequest["lines"][number] }[]>();
  for (const asked of input.lines) {
    const line = byId.get(asked.line_id)!;
    const group = groups.get(line.supplierId!) ?? [];
    group.push({ line, asked });
    groups.set(line.supplierId!, group);
  }
  const planned = [...groups].map(([supplierId, group]) => {
    const first = group[0].line;
    const auto = first.autoAuthorise && first.returnAddress !== null;
    return { key: `ret_${crypto.randomUUID().replaceAll("-", "")}`, supplierId, group, first, auto };
  });
  // One statement per table for every supplier's return (each AUTOINCREMENT insert also scans
  // sqlite_sequence, so a statement per return would cost a scan more per supplier).
  const keys = planned.map((p) => p.key);
  const ofRequest = sql`SELECT id FROM returns WHERE request_key IN (SELECT value FROM json_each(${JSON.stringify(keys)}))`;
  const returnsJson = planned.map((p) => ({
    k: p.key,
    s: p.supplierId,
    st: p.auto ? "authorised" : "requested",
    a: p.auto ? p.first.returnAddress : null,
    w: p.auto ? null : now,
    m: `Return requested of ${p.group.length === 1 ? "1 line" : `${p.group.length} lines`} from supplier ${p.first.supplierName}${input.force ? ", past its return window (forced)" : ""}${input.note ? `: ${input.note}` : ""}`,
    am: p.auto ? `Authorised at once: supplier ${p.first.supplierName} authorises its returns in advance` : null,
  }));
  const linesJson = planned.flatMap((p) => p.group.map((g) => ({ k: p.key, i: g.line.id, q: g.asked.quantity, r: g.asked.reason ?? null })));
  const statements: SQL[] = [
    sql`INSERT INTO returns (account_id, order_id, supplier_id, status, request_key, note, forced, customer_tracking, return_address, created_at, updated_at, waiting_since)
        SELECT ${accountId}, ${order.id}, j.value ->> '$.s', j.value ->> '$.st', j.value ->> '$.k', ${input.note ?? null}, ${input.force ? 1 : 0},
          ${input.customer_tracking ?? null}, j.value ->> '$.a', ${now}, ${now}, j.value ->> '$.w'
        FROM json_each(${JSON.stringify(returnsJson)}) AS j ORDER BY j.key RETURNING id, request_key`,
    sql`INSERT INTO return_lines (return_id, account_id, order_id, order_line_id, quantity, reason, created_at)
        SELECT r.id, ${accountId}, ${order.id}, j.value ->> '$.i', j.value ->> '$.q', j.value ->> '$.r', ${now}
        FROM json_each(${JSON.stringify(linesJson)}) AS j CROSS JOIN returns r ON r.request_key = j.value ->> '$.k' ORDER BY j.key`,
    // Per return: what was asked (then, for a supplier that authorises in advance, that it did), and per line.
    sql`INSERT INTO return_logs (return_id, return_line_id, status, message, actor, created_at)
        SELECT return_id, line_id, status, message, actor, ${now} FROM (
          SELECT r.id AS return_id, NULL AS line_id, 'requested' AS status, j.value ->> '$.m' AS message, ${actor} AS actor, 0 AS o
          FROM json_each(${JSON.stringify(returnsJson)}) AS j CROSS JOIN returns r ON r.request_key = j.value ->> '$.k'
          UNION ALL
          SELECT rl.return_id, rl.id, 'requested', 'Return requested of ' || rl.quantity || coalesce(': ' || rl.reason, ''), ${actor}, 1
          FROM return_lines rl WHERE rl.return_id IN (${ofRequest})
          UNION ALL
          SELECT r.id, NULL, 'authorised', j.value ->> '$.am', 'automatic', 2
          FROM json_each(${JSON.stringify(returnsJson)}) AS j CROSS JOIN returns r ON r.request_key = j.value ->> '$.k' WHERE j.value ->> '$.am' IS NOT NULL
        ) ORDER BY return_id, o, line_id`,
    returnEvent("return.requested", ofRequest, now),
  ];
  const autoKeys = planned.filter((p) => p.auto).map((p) => p.key);
  if (autoKeys.length) {
    const ofAuto = sql`SELECT id FROM returns WHERE request_key IN (SELECT value FROM json_each(${JSON.stringify(autoKeys)}))`;
    statements.push(
      // Its RMA is ours, by the return's id: the supplier authorises every return in advance.
      sql`UPDATE returns SET rma = 'RMA-' || id WHERE id IN (${ofAuto})`,
      returnEvent("return.authorised", ofAuto, now),
    );
  }
  const pushKeys = planned.filter((p) => p.first.channel && tellsByPush(p.first.channel)).map((p) => p.key);
  const noticeAt = pushKeys.length ? statements.push(noticeStatement(pushKeys, "requested", now)) - 1 : -1;
  // Written, no line asks back more than shipped over all its live returns (a racing request's too).
  const ids = JSON.stringify(input.lines.map((l) => l.line_id));
  statements.push(
    expectCount(
      sql`SELECT count(*) FROM json_each(${ids}) AS j JOIN order_lines l ON l.id = j.value WHERE ${returnedOf("l")} <= ${shippedOf("l")}`,
      input.lines.length,
    ),
  );
  return {
    statements,
    settle: (results) => {
      const followUps: PipelineMessage[] = noticeAt < 0 ? [] : noticeMessages((results[noticeAt].results as { id: number }[]).map((r) => r.id));
      const idOf = new Map((results[0].results as { id: number; request_key: string }[]).map((r) => [r.request_key, r.id]));
      return { result: { returnIds: keys.map((k) => idOf.get(k)!) }, followUps };
    },
  };
}

/** A return request carried out: its batch, judged again should it lose a race, then its notices queued. */
export function requestReturn(db: Db, pipeline: Pipeline, accountId: number, reference: string, input: ReturnRequest, actor: string): Promise<RequestedReturns> {
  return carryOut(db, pipeline, () => planReturnRequest(db, accountId, reference, input, actor));
}
