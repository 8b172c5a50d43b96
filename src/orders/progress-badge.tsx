// A line's progress as a badge (what src/orders/progress.ts says happened to it), in the UI kit's
// colours: the orders and supplier pages show it where they know more than the line's state.
import { orderProgressWords, type LineProgress, type OrderProgress } from "./progress";
import { lineStatusLook, type Tone } from "../ui/badge";

/** What happened to one line (src/orders/progress.ts): sent, accepted, shipped with its quantities, or its state. */
export function LineProgressBadge({ progress }: { progress: LineProgress }) {
  const { label, tone } = progressLook(progress);
  return (
    <span class={`badge tone-${tone}`} data-status={progress.status} title={`API status: ${progress.status}`}>
      {label}
    </span>
  );
}

function progressLook(p: LineProgress): { label: string; tone: Tone } {
  switch (p.kind) {
    case "state":
      return lineStatusLook(p.status);
    case "sent":
      return { label: "Sent", tone: "blue" };
    case "accepted":
      return { label: "Accepted", tone: "teal" };
    case "by_hand":
      return { label: "Completed by hand", tone: "green" };
    case "dry_run":
      return { label: "Dry run", tone: "grey" };
    case "confirmed":
      return { label: `Confirmed ${p.confirmed} of ${p.of}`, tone: "orange" };
    case "shipped":
      return { label: `Shipped ${p.shipped} of ${p.of}`, tone: p.shipped >= p.of ? "green" : "teal" };
  }
}

const ORDER_TONES: Record<OrderProgress["kind"], Tone> = {
  no_lines: "grey",
  cancelled: "grey",
  waiting: "amber",
  sent: "blue",
  accepted: "teal",
  shipped: "teal",
};

/** How far an order has got (src/orders/progress.ts, orderProgress), in words; shipped in full is green, needing a person red. */
export function OrderProgressBadge({ progress }: { progress: OrderProgress }) {
  const full = progress.kind === "shipped" && progress.shipped >= progress.of;
  const tone = progress.kind === "waiting" && progress.attention > 0 ? "red" : full ? "green" : ORDER_TONES[progress.kind];
  return (
    <span class={`badge tone-${tone}`} data-order-state={progress.kind}>
      {orderProgressWords(progress)}
    </span>
  );
}
