// The statements that tell a supplier of a return on its own channel: a notice row per (return,
// kind), queued for the outbound engine (./notices.service.ts sends it). Only push channels get one:
// a pull supplier reads its open returns from the supplier API, a manual one sees them in the portal.
import { sql, type SQL } from "drizzle-orm";
import type { Channel as ChannelName } from "../db/schema";
import { channelFor } from "../forwarding/channels";
import type { JobTable } from "../lib/outbound-job";
import type { PipelineMessage } from "../lib/queue";

export const RETURN_NOTICE_JOB: JobTable = { table: "return_notices", waiting: "queued", busy: "sending", parked: "failed", dueIn: "none", touches: true };

/** Whether the channel pushes documents to the supplier (it asks the adapter, never its name). */
export const tellsByPush = (channel: ChannelName) => channelFor(channel).starts === "sending";

/**
 * A notice of each return given (its id, or the request keys of the returns one request wrote),
 * queued on its supplier's channel as it is now; returns their ids. Once per return and kind.
 */
export function noticeStatement(returns: number | string[], kind: "requested" | "cancelled", now: string): SQL {
  const where = typeof returns === "number" ? sql`r.id = ${returns}` : sql`r.request_key IN (SELECT value FROM json_each(${JSON.stringify(returns)}))`;
  return sql`INSERT INTO return_notices (account_id, order_id, supplier_id, channel, status, idempotency_key, attempts, created_at, updated_at, return_id, kind)
    SELECT r.account_id, r.order_id, r.supplier_id, s.channel, 'queued', r.request_key || '-' || ${kind}, 0, ${now}, ${now}, r.id, ${kind}
    FROM returns r JOIN suppliers s ON s.id = r.supplier_id WHERE ${where} ORDER BY r.id
    ON CONFLICT DO NOTHING RETURNING id`;
}

export const noticeMessages = (ids: number[]): PipelineMessage[] => ids.map((noticeId) => ({ type: "send_return_notice", noticeId }));
