// The order page's "Sent to suppliers" section: each dispatch (its channel, status, attempts counted
// across retries by hand, last answer) and, for a push dispatch, the kept log of its attempts.
import { channelFor } from "../forwarding/channels";
import { ATTEMPT_LOG_KEPT, type AttemptRecord } from "../db/schema";
import { groupBy } from "../lib/group";
import { AttemptOutcomeBadge, DispatchStatusBadge } from "../ui/badge";
import { orDash } from "../ui/format";
import { DataTable } from "../ui/table";
import { LocalTime } from "../ui/time";
import { type OrderDetail } from "./orders.service";
import { count } from "../lib/plural";

export function DispatchesSection({ detail, oob }: { detail: OrderDetail; oob?: boolean }) {
  return (
    <section aria-labelledby="dispatches-heading" id="order-dispatches" {...(oob ? { "hx-swap-oob": "true" } : {})}>
      <h2 id="dispatches-heading">Sent to suppliers</h2>
      <Dispatches detail={detail} />
    </section>
  );
}
function Dispatches({ detail }: { detail: OrderDetail }) {
  if (detail.dispatches.length === 0) {
    return (
      <p class="muted">
        Nothing has been sent yet: lines are sent once they are matched to a supplier{detail.order.blocked ? " and the order is unblocked" : ""}.
      </p>
    );
  }
  const linesOf = groupBy(detail.lines, (l) => l.dispatchId);
  type D = OrderDetail["dispatches"][number];
  return (
    <>
      <DataTable<D>
        caption="Dispatches to suppliers, oldest first"
        rows={detail.dispatches}
        columns={[
          { header: "Supplier", cell: (d) => d.supplierName },
          { header: "Channel", cell: (d) => d.channel },
          { header: "Status", cell: (d) => <DispatchStatusBadge status={d.status} /> },
          { header: "Attempts", numeric: true, cell: (d) => attemptsText(d) },
          { header: "Lines", cell: (d) => orDash((linesOf.get(d.id) ?? []).map((l) => l.externalId).join(", ")) },
          { header: "Last answer", cell: (d) => (d.lastError ? <span class="response">{d.lastError}</span> : d.status === "sent" || d.status === "acknowledged" ? "Accepted" : "—") },
          { header: "Created", cell: (d) => <LocalTime iso={d.createdAt} /> },
          { header: "Sent", cell: (d) => <LocalTime iso={d.sentAt} /> },
          { header: "Acknowledged", cell: (d) => <LocalTime iso={d.acknowledgedAt} /> },
        ]}
      />
      {detail.dispatches.map((d) => (d.attemptLog?.length ? <AttemptLog dispatch={d} /> : null))}
    </>
  );
}

/**
 * How many attempts were made. The dispatch's count starts again at a retry by hand; its kept log
 * (each run numbered from 1) says how many came before: the last number of each earlier run.
 */
function attemptsText(d: OrderDetail["dispatches"][number]): string {
  const log = d.attemptLog ?? [];
  const runs: number[] = [];
  log.forEach((a, i) => (i > 0 && a.attempt > log[i - 1].attempt ? (runs[runs.length - 1] = a.attempt) : runs.push(a.attempt)));
  // The last run is the current one unless the count has started again since (a retry not yet tried).
  const current = runs.length && d.attempts > 0 && d.attempts >= runs[runs.length - 1] ? runs.pop()! : 0;
  const before = runs.reduce((sum, n) => sum + n, 0);
  const total = before + Math.max(current, d.attempts);
  return before > 0 ? `${total} (${d.attempts} since the retry by hand)` : String(total);
}

/**
 * Every kept attempt of a push dispatch, oldest first: when, what was sent where, the outcome, the
 * supplier's answer and how long it took. A dispatch without a log (sent before the log existed,
 * or on the pull or manual channel) is said by the table above: its attempt count and last answer.
 */
function AttemptLog({ dispatch: d }: { dispatch: OrderDetail["dispatches"][number] }) {
  const log = d.attemptLog ?? [];
  type A = AttemptRecord & { restarted: boolean };
  const rows: A[] = log.map((a, i) => ({ ...a, restarted: i > 0 && a.attempt <= log[i - 1].attempt }));
  const caption = `Attempts at sending to ${d.supplierName} (dispatch #${d.id}), oldest first`;
  return (
    <section class="attempt-log" aria-label={caption}>
      <h3>
        Attempts at sending to {d.supplierName} <small class="muted">dispatch #{d.id}</small>
      </h3>
      {log[0].attempt > 1 ? (
        <p class="muted">
          Earlier attempts are not kept: a dispatch keeps its last {ATTEMPT_LOG_KEPT}, its attempt count says how many there were.
        </p>
      ) : null}
      <DataTable<A>
        caption={caption}
        rows={rows}
        columns={[
          { header: "Attempt", numeric: true, cell: (a) => (a.restarted ? `${a.attempt} (retried by hand)` : String(a.attempt)) },
          { header: "When", cell: (a) => <LocalTime iso={a.at} /> },
          {
            header: "Sent",
            cell: (a) =>
              `${count(a.lines, "line")} ${channelFor(a.channel).sentAs}${a.to ? ` to ${a.to}` : `: no ${channelFor(a.channel).addressName}`}`,
          },
          { header: "Outcome", cell: (a) => <AttemptOutcomeBadge outcome={a.outcome} httpStatus={a.http_status} /> },
          { header: "Supplier's response", cell: (a) => (a.response ? <span class="response">{a.response}</span> : "—") },
          { header: "Took", numeric: true, cell: (a) => `${a.duration_ms} ms` },
        ]}
      />
    </section>
  );
}
