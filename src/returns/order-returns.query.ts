// An order's returns as the console's order page shows them, in ONE statement read in the same
// round trip as the order (src/orders/order.pages.tsx passes it to getOrder's `alongside`): each
// return with its supplier, lines, log and notices, and the return window of every supplier the
// order's lines are with (the "Return items…" form says when a line is past it).
import { sql, type SQL } from "drizzle-orm";
import type { Row } from "../db";
import { DEFAULT_RETURN_WINDOW_DAYS, type ReturnCondition, type ReturnNoticeStatus, type ReturnStatus } from "../db/schema";
import { unitsToNumber } from "../lib/money";

export type OrderReturnLine = { id: number; orderLineId: number; name: string; quantity: number; reason: string | null; receivedQuantity: number | null; condition: ReturnCondition | null };
export type OrderReturnLog = { id: number; orderLineId: number | null; status: ReturnStatus; message: string; actor: string; createdAt: string };
export type OrderReturn = {
  id: number;
  supplierId: number;
  supplierName: string;
  status: ReturnStatus;
  note: string | null;
  forced: boolean;
  rma: string | null;
  returnAddress: string | null;
  labelUrl: string | null;
  declineReason: string | null;
  customerTracking: string | null;
  customerCarrier: string | null;
  credit: { amount: number; currency: string } | null;
  closeReason: string | null;
  cancelReason: string | null;
  createdAt: string;
  lines: OrderReturnLine[];
  logs: OrderReturnLog[];
  notices: { kind: "requested" | "cancelled"; status: ReturnNoticeStatus; lastError: string | null }[];
};
export type OrderReturns = { returns: OrderReturn[]; windowDays: Map<number, number> };

/** The statement (bound to this account and reference: another account's order reads nothing). */
export function orderReturnsStatement(accountId: number, reference: string): SQL {
  const orderId = sql`(SELECT id FROM orders WHERE account_id = ${accountId} AND reference = ${reference})`;
  return sql`SELECT
    (SELECT json_group_array(json(x.r)) FROM (SELECT json_object(
        'id', r.id, 'supplierId', r.supplier_id, 'supplierName', s.name, 'status', r.status, 'note', r.note, 'forced', r.forced,
        'rma', r.rma, 'returnAddress', r.return_address, 'labelUrl', r.label_url, 'declineReason', r.decline_reason,
        'customerTracking', r.customer_tracking, 'customerCarrier', r.customer_carrier, 'creditUnits', r.credit_amount, 'creditCurrency', r.credit_currency,
        'closeReason', r.close_reason, 'cancelReason', r.cancel_reason, 'createdAt', r.created_at,
        'lines', (SELECT json_group_array(json(y.l)) FROM (SELECT json_object('id', rl.id, 'orderLineId', rl.order_line_id, 'name', ol.name, 'quantity', rl.quantity,
            'reason', rl.reason, 'receivedQuantity', rl.received_quantity, 'condition', rl.condition) AS l
          FROM return_lines rl JOIN order_lines ol ON ol.id = rl.order_line_id WHERE rl.return_id = r.id ORDER BY rl.id) y),
        'logs', (SELECT json_group_array(json(z.g)) FROM (SELECT json_object('id', g.id, 'orderLineId', (SELECT order_line_id FROM return_lines WHERE id = g.return_line_id),
            'status', g.status, 'message', g.message, 'actor', g.actor, 'createdAt', g.created_at) AS g
          FROM return_logs g WHERE g.return_id = r.id ORDER BY g.id) z),
        'notices', (SELECT json_group_array(json_object('kind', n.kind, 'status', n.status, 'lastError', n.last_error)) FROM return_notices n WHERE n.return_id = r.id)
      ) AS r
      FROM returns r JOIN suppliers s ON s.id = r.supplier_id WHERE r.order_id = ${orderId} ORDER BY r.id) x) AS returns_json,
    (SELECT json_group_array(json_object('supplierId', rs.supplier_id, 'windowDays', rs.window_days)) FROM supplier_return_settings rs
      WHERE rs.supplier_id IN (SELECT matched_supplier_id FROM order_lines WHERE order_id = ${orderId})) AS windows_json`;
}

type ReturnJson = Omit<OrderReturn, "credit" | "forced"> & { forced: number; creditUnits: number | null; creditCurrency: string | null };

/** The statement's one row as the order's returns and its suppliers' return windows. */
export function orderReturnsOf(rows: Row[]): OrderReturns {
  const row = rows[0];
  const returns = (JSON.parse(String(row?.returns_json ?? "[]")) as ReturnJson[]).map(({ creditUnits, creditCurrency, forced, ...r }) => ({
    ...r,
    forced: Boolean(forced),
    credit: creditUnits === null ? null : { amount: unitsToNumber(creditUnits), currency: creditCurrency ?? "" },
  }));
  const windows = JSON.parse(String(row?.windows_json ?? "[]")) as { supplierId: number; windowDays: number }[];
  return { returns, windowDays: new Map(windows.map((w) => [w.supplierId, w.windowDays])) };
}

/** A supplier's return window, in days after a line's last shipment. */
export const windowOf = (r: OrderReturns, supplierId: number | null) => (supplierId === null ? DEFAULT_RETURN_WINDOW_DAYS : (r.windowDays.get(supplierId) ?? DEFAULT_RETURN_WINDOW_DAYS));

/** What of an order line the live returns (not declined or cancelled) ask back already. */
export function returnedOfLine(r: OrderReturns, orderLineId: number): number {
  let n = 0;
  for (const ret of r.returns) {
    if (ret.status === "declined" || ret.status === "cancelled") continue;
    for (const l of ret.lines) if (l.orderLineId === orderLineId) n += l.quantity;
  }
  return n;
}
