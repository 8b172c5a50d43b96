// The one place that decides how a status looks: each line state and each dispatch state has one
// label and one colour, the same on every page (the colours are the tone-* classes of console.css).
import type { Child } from "hono/jsx";
import type { AttemptRecord, DispatchStatus, LineStatus, ReturnStatus } from "../db/schema";

export type Tone = "amber" | "blue" | "teal" | "green" | "orange" | "red" | "purple" | "grey";

// "completed" is the contract's word for "sent" (a shipped line is completed too): said as "Sent",
// and where a page knows more, LineProgressBadge (src/orders/progress-badge.tsx) says accepted or shipped. The API keeps its words;
// the badge's title gives them.
const LINE_STATES: Record<LineStatus, { label: string; tone: Tone }> = {
  pending: { label: "Pending", tone: "amber" },
  ruled: { label: "Ruled", tone: "blue" },
  completed: { label: "Sent", tone: "blue" },
  partially_completed: { label: "Partly confirmed", tone: "orange" },
  failed: { label: "Failed", tone: "red" },
  declined: { label: "Declined", tone: "purple" },
  skipped: { label: "Skipped", tone: "grey" },
};

const DISPATCH_STATES: Record<DispatchStatus, { label: string; tone: Tone }> = {
  queued: { label: "Queued", tone: "blue" },
  sending: { label: "Sending", tone: "blue" },
  sent: { label: "Sent", tone: "green" },
  awaiting_pickup: { label: "Awaiting pickup", tone: "amber" },
  acknowledged: { label: "Acknowledged", tone: "green" },
  manual: { label: "Manual", tone: "amber" },
  dry_run: { label: "Dry run", tone: "grey" },
  failed: { label: "Failed", tone: "red" },
};

const RETURN_STATES: Record<ReturnStatus, { label: string; tone: Tone }> = {
  requested: { label: "Requested", tone: "amber" },
  authorised: { label: "Authorised", tone: "blue" },
  declined: { label: "Declined", tone: "purple" },
  in_transit: { label: "In transit", tone: "teal" },
  received: { label: "Received", tone: "orange" },
  credited: { label: "Credited", tone: "green" },
  closed: { label: "Closed, no credit", tone: "grey" },
  cancelled: { label: "Cancelled", tone: "grey" },
};

export const returnStatusLabel = (status: ReturnStatus) => RETURN_STATES[status].label;

/** A return's state (src/returns/), the API's word in its title. */
export function ReturnStatusBadge({ status }: { status: ReturnStatus }) {
  const { label, tone } = RETURN_STATES[status];
  return (
    <span class={`badge tone-${tone}`} data-status={status} title={`API status: ${status}`}>
      {label}
    </span>
  );
}

export const lineStatusLabel = (status: LineStatus) => LINE_STATES[status].label;
/** A line state's label and colour, for a badge that says more than the state (LineProgressBadge). */
export const lineStatusLook = (status: LineStatus) => LINE_STATES[status];

export function Badge({ tone, children, title }: { tone: Tone; children: Child; title?: string }) {
  return (
    <span class={`badge tone-${tone}`} title={title}>
      {children}
    </span>
  );
}

/** A line's status; `count` prefixes how many lines are in it (the orders list). */
export function LineStatusBadge({ status, count }: { status: LineStatus; count?: number }) {
  const { label, tone } = LINE_STATES[status];
  return (
    <span class={`badge tone-${tone}`} data-status={status} title={`API status: ${status}`}>
      {count !== undefined ? `${count} × ${label}` : label}
    </span>
  );
}

export function DispatchStatusBadge({ status }: { status: DispatchStatus }) {
  const { label, tone } = DISPATCH_STATES[status];
  return (
    <span class={`badge tone-${tone}`} data-status={status}>
      {label}
    </span>
  );
}

const ATTEMPT_OUTCOMES: Record<AttemptRecord["outcome"], { label: string; tone: Tone }> = {
  accepted: { label: "Accepted", tone: "green" },
  http_error: { label: "HTTP error", tone: "red" },
  network_error: { label: "Network error", tone: "red" },
  timeout: { label: "Timed out", tone: "red" },
  email_error: { label: "E-mail failed", tone: "red" },
  file_error: { label: "File transfer failed", tone: "red" },
  not_sent: { label: "Not sent", tone: "grey" },
};

/** How one attempt at sending a dispatch went; an HTTP status is said with it. */
export function AttemptOutcomeBadge({ outcome, httpStatus }: { outcome: AttemptRecord["outcome"]; httpStatus: number | null }) {
  const { label, tone } = ATTEMPT_OUTCOMES[outcome];
  const text = outcome === "http_error" && httpStatus !== null ? `HTTP ${httpStatus}` : httpStatus !== null ? `${label} (HTTP ${httpStatus})` : label;
  return (
    <span class={`badge tone-${tone}`} data-outcome={outcome}>
      {text}
    </span>
  );
}
