// What happened to a line, in a person's words: the API's seven states stay as they are, but
// "completed" is the contract's word for "sent", and it also covers a line the supplier accepted and
// one it shipped. The console says which (src/orders/progress-badge.tsx, LineProgressBadge), from what the pages
// already read: the line, its shipments, and its log or its dispatch's channel.
import type { Channel, LineStatus } from "../db/schema";

export type LineProgress =
  /** Any state that says enough on its own: pending, ruled, failed, declined, skipped. */
  | { kind: "state"; status: LineStatus }
  /** completed: handed to the supplier, no answer from it yet. */
  | { kind: "sent"; status: LineStatus }
  /** completed: the supplier accepted it (or, pulling, acknowledged the order), nothing shipped yet. */
  | { kind: "accepted"; status: LineStatus }
  | { kind: "by_hand"; status: LineStatus }
  | { kind: "dry_run"; status: LineStatus }
  /** partially_completed before any shipment: the supplier confirmed part of the quantity. */
  | { kind: "confirmed"; status: LineStatus; confirmed: number; of: number }
  /** Some or all of the quantity shipped. */
  | { kind: "shipped"; status: LineStatus; shipped: number; of: number };

type Line = { currentStatus: LineStatus; quantity: number; confirmedQuantity: number | null };
type Log = { status: LineStatus; message: string };

// The log entries the supplier's answers write (src/forwarding/answers.service.ts) and the moves of
// src/forwarding/forwarding.service.ts (completeByHand, dryRunMessage).
const ACCEPTED = /^(Accepted|Acknowledged) by supplier /;
const BY_HAND = "Completed by hand";
const DRY_RUN = /^Test order: dry run/;

/**
 * A line's progress. `logs`: the line's log, oldest first (the order page reads it): the entries since
 * it last became completed say whether it was accepted. Without a log, `channel` decides: on the pull
 * and manual channels a line is completed only by the supplier's answer (or by hand), so it was
 * accepted; on the push channels, completed is sent.
 */
export function lineProgress(line: Line, shipped: number, from: { logs: Log[] } | { channel: Channel | null }): LineProgress {
  const status = line.currentStatus;
  if (status !== "completed" && status !== "partially_completed") return { kind: "state", status };
  if (shipped > 0) return { kind: "shipped", status, shipped, of: line.quantity };
  if (status === "partially_completed") return { kind: "confirmed", status, confirmed: line.confirmedQuantity ?? 0, of: line.quantity };
  if ("logs" in from) {
    const lastOther = from.logs.findLastIndex((l) => l.status !== "completed");
    const run = from.logs.slice(lastOther + 1);
    if (run.some((l) => ACCEPTED.test(l.message))) return { kind: "accepted", status };
    if (run.some((l) => l.message === BY_HAND)) return { kind: "by_hand", status };
    if (run.some((l) => DRY_RUN.test(l.message))) return { kind: "dry_run", status };
    return { kind: "sent", status };
  }
  return { kind: from.channel === "pull" || from.channel === "manual" ? "accepted" : "sent", status };
}

export const shippedOf = (shipments: { quantity: number }[]) => shipments.reduce((sum, s) => sum + s.quantity, 0);

/**
 * Whether the pipeline still owes the order work the page would show once done: routing (an order
 * not blocked, not parked, whose routed_at is cleared: since it was created, unblocked, retried or
 * matched by hand) or a send under way (a dispatch queued or sending). The order page polls its lines
 * while this holds (docs/console.md).
 */
export function workPending(order: { blocked: boolean; routedAt: string | null; parkedAt: string | null }, dispatches: { status: string }[]): boolean {
  return (!order.blocked && order.parkedAt === null && order.routedAt === null) || dispatches.some((d) => d.status === "queued" || d.status === "sending");
}
