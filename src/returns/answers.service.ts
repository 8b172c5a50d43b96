// A return's moves through its states, whoever makes them: the supplier's answers (authorise,
// decline, receive, credit, close: the API, the portal) and the shop's (the customer's tracking,
// cancel). One table says which move each state allows; a move is one guarded batch (UPDATE … WHERE
// status = the state it was judged in, then its lines, its log, its event, its notice), so a move
// that skips a state, or loses a race to another, is a 409 naming the state, with nothing written.
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db";
import { expectChanges } from "../db/guards";
import { returnLines, returns, supplierReturnSettings, suppliers, type Return, type ReturnLine, type ReturnStatus, type Channel } from "../db/schema";
import { returnEvent } from "../events/outbox";
import { ApiError, type ValidationErrors } from "../lib/errors";
import { numberToUnits } from "../lib/money";
import { carryOut, type Plan } from "../lib/plan";
import type { Pipeline } from "../lib/queue";
import { isoMicro } from "../lib/time";
import { noticeMessages, noticeStatement, tellsByPush } from "./notices";
import { returnNotFound, WAITING_ON_SUPPLIER } from "./returns.service";
import type { ReturnAction, ReturnAnswer } from "./returns.schemas";

export type ReturnMove =
  | ReturnAnswer
  | { action: "tracking"; tracking_number: string; carrier?: string }
  | { action: "cancel"; reason?: string };

/** Which states each move is taken in, and where it leaves the return. */
export const MOVES: Record<ReturnMove["action"], { from: readonly ReturnStatus[]; to: ReturnStatus }> = {
  authorise: { from: ["requested"], to: "authorised" },
  decline: { from: ["requested"], to: "declined" },
  // The customer's tracking is optional: goods that arrive without it are received all the same.
  tracking: { from: ["authorised", "in_transit"], to: "in_transit" },
  receive: { from: ["authorised", "in_transit"], to: "received" },
  credit: { from: ["received"], to: "credited" },
  close: { from: ["received"], to: "closed" },
  cancel: { from: ["requested", "authorised", "in_transit"], to: "cancelled" },
};

/** The answers the supplier can give a return in this state (the portal's offer, the API's judgement alike). */
export const offeredReturnAnswers = (status: ReturnStatus): ReturnAction[] =>
  (["authorise", "decline", "receive", "credit", "close"] as const).filter((a) => MOVES[a].from.includes(status));

/** Who moves it: the shop (its account), or a supplier (only its own returns). `who` goes into the log. */
export type Mover = { accountId: number; supplierId?: number; who: string };

const VERB: Record<ReturnMove["action"], string> = {
  authorise: "authorised",
  decline: "declined",
  tracking: "given the customer's tracking",
  receive: "received",
  credit: "credited",
  close: "closed",
  cancel: "cancelled",
};


async function readReturn(db: Db, mover: Mover, id: number) {
  const scope = and(eq(returns.id, id), eq(returns.accountId, mover.accountId), mover.supplierId !== undefined ? eq(returns.supplierId, mover.supplierId) : undefined);
  const [rows, lines] = await db.batch([
    db
      // The settings' address under a name of its own: D1 keys a row's columns by name, and returns has return_address too.
      .select({ ret: returns, supplierName: sql<string>`${suppliers.name}`.as("supplier_name"), channel: sql<Channel>`${suppliers.channel}`.as("supplier_channel"), address: sql<string | null>`${supplierReturnSettings.returnAddress}`.as("settings_address") })
      .from(returns)
      .innerJoin(suppliers, eq(suppliers.id, returns.supplierId))
      .leftJoin(supplierReturnSettings, eq(supplierReturnSettings.supplierId, returns.supplierId))
      .where(scope),
    db.select().from(returnLines).where(sql`${returnLines.returnId} = (SELECT id FROM returns WHERE ${scope})`).orderBy(returnLines.id),
  ]);
  if (rows.length === 0) throw returnNotFound(id);
  return { ...rows[0], lines };
}

const money = (n: number) => (Math.round(n * 100) / 100).toFixed(2);

/** Plans one move: the 404, 422 or 409 it is refused with, or its batch. Writes nothing. */
export async function planReturnMove(db: Db, mover: Mover, id: number, move: ReturnMove, now = isoMicro()): Promise<Plan<{ status: ReturnStatus }>> {
  const { ret, lines, supplierName, channel, address } = await readReturn(db, mover, id);
  const rule = MOVES[move.action];
  if (!rule.from.includes(ret.status)) {
    throw ApiError.conflict(`Return ${ret.id} is ${ret.status}; it cannot be given the answer '${move.action}' (only when ${rule.from.join(" or ")}).`);
  }
  const errors: ValidationErrors = {};
  const set: SQL[] = [];
  const lineLogs: { lineId: number; message: string }[] = [];
  let message = `Return ${VERB[move.action]}`;
  let lineUpdate: SQL | null = null;
  switch (move.action) {
    case "authorise": {
      const to = move.return_address ?? address;
      if (!to) errors.return_address = [`The return_address field is required when action is authorise: supplier ${supplierName} has no return address set.`];
      set.push(sql`rma = ${move.rma!}`, sql`return_address = ${to}`, sql`label_url = ${move.label_url ?? null}`);
      message += ` by supplier ${supplierName}: RMA ${move.rma}, to be sent to ${to}${move.label_url ? `, label ${move.label_url}` : ""}`;
      break;
    }
    case "decline":
      set.push(sql`decline_reason = ${move.reason!}`);
      message += ` by supplier ${supplierName}: ${move.reason}`;
      break;
    case "tracking":
      set.push(sql`customer_tracking = ${move.tracking_number}`, sql`customer_carrier = ${move.carrier ?? null}`);
      message = `The customer's parcel is on its way${move.carrier ? ` with ${move.carrier}` : ""}, tracking ${move.tracking_number}`;
      break;
    case "receive": {
      const byLine = new Map(lines.map((l) => [l.orderLineId, l]));
      move.lines!.forEach((got, i) => {
        const line = byLine.get(got.line_id);
        if (!line) errors[`lines.${i}.line_id`] = [`The selected lines.${i}.line_id is invalid: return ${ret.id} has no line ${got.line_id}.`];
        else if (got.quantity > line.quantity)
          errors[`lines.${i}.quantity`] = [`The lines.${i}.quantity field must not be greater than ${line.quantity}, what return ${ret.id} asks back of line ${got.line_id}.`];
      });
      const received = lines.map((l) => {
        const got = move.lines!.find((g) => g.line_id === l.orderLineId);
        return { i: l.id, q: got?.quantity ?? 0, c: got?.condition ?? null };
      });
      lineUpdate = sql`UPDATE return_lines SET received_quantity = j.value ->> '$.q', condition = j.value ->> '$.c'
        FROM json_each(${JSON.stringify(received)}) AS j WHERE return_lines.id = j.value ->> '$.i' AND return_lines.return_id = ${ret.id}`;
      for (const r of received) {
        const line = lines.find((l) => l.id === r.i)!;
        lineLogs.push({ lineId: r.i, message: `Received ${r.q} of ${line.quantity}${r.c ? `, ${r.c}` : ""}` });
      }
      const total = received.reduce((n, r) => n + r.q, 0);
      message += ` by supplier ${supplierName}: ${total} of ${lines.reduce((n, l) => n + l.quantity, 0)} arrived`;
      break;
    }
    case "credit":
      set.push(sql`credit_amount = ${numberToUnits(move.amount!)}`, sql`credit_currency = ${move.currency!}`);
      message += ` by supplier ${supplierName}: ${move.currency} ${money(move.amount!)}`;
      break;
    case "close":
      set.push(sql`close_reason = ${move.reason!}`);
      message += ` by supplier ${supplierName} without a credit: ${move.reason}`;
      break;
    case "cancel":
      set.push(sql`cancel_reason = ${move.reason ?? null}`);
      message += ` by the shop${move.reason ? `: ${move.reason}` : ""}`;
      break;
  }
  if (Object.keys(errors).length) throw ApiError.validation(errors);

  const to = rule.to;
  const waiting = WAITING_ON_SUPPLIER.includes(to) ? sql`coalesce(CASE WHEN status = ${to} THEN waiting_since END, ${now})` : sql`NULL`;
  const statements: SQL[] = [
    sql`UPDATE returns SET status = ${to}, ${sql.join(set.length ? [...set, sql``] : [sql``], sql`, `)}updated_at = ${now}, waiting_since = ${waiting}
        WHERE id = ${ret.id} AND status = ${ret.status}`,
    expectChanges(1),
    ...(lineUpdate ? [lineUpdate] : []),
    sql`INSERT INTO return_logs (return_id, return_line_id, status, message, actor, created_at)
        SELECT ${ret.id}, NULL, ${to}, ${message}, ${mover.who}, ${now}
        UNION ALL SELECT ${ret.id}, j.value ->> '$.i', ${to}, j.value ->> '$.m', ${mover.who}, ${now}
        FROM json_each(${JSON.stringify(lineLogs.map((l) => ({ i: l.lineId, m: l.message })))}) AS j`,
    returnEvent(`return.${to}` as `return.${ReturnStatus}`, sql`${ret.id}`, now),
  ];
  // A supplier told of the return by push is told it was withdrawn the same way.
  const notify = move.action === "cancel" && tellsByPush(channel);
  if (notify) statements.push(noticeStatement(ret.id, "cancelled", now));
  const noticeAt = statements.length - 1;
  return {
    statements,
    settle: (results) => ({
      result: { status: to },
      followUps: notify ? noticeMessages((results[noticeAt].results as { id: number }[]).map((r) => r.id)) : [],
    }),
  };
}

/** A move carried out: judged again against what won should it lose a race (then a 409 naming the state). */
export function moveReturn(db: Db, pipeline: Pipeline, mover: Mover, id: number, move: ReturnMove): Promise<{ status: ReturnStatus }> {
  return carryOut(db, pipeline, () => planReturnMove(db, mover, id, move));
}
