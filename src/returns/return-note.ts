// The private note a return's outcome becomes in the shop (a write-back of kind note, through each
// platform's note write): the supplier, the RMA, what arrived in what condition, what it credited.
// It never refunds: the note says what the supplier credited, the refund stays the shop owner's.

type ReturnNoteData = {
  return: {
    id: number;
    supplier: { name: string };
    rma: string | null;
    return_address: string | null;
    decline_reason: string | null;
    credit: { amount: number; currency: string } | null;
    close_reason: string | null;
    lines: { name: string; external_id: string; quantity: number; received_quantity: number | null; condition: string | null }[];
  };
};

export const isReturnNote = (data: unknown): data is ReturnNoteData =>
  typeof data === "object" && data !== null && typeof (data as { return?: { id?: unknown } }).return?.id === "number";

const amount = (n: number) => n.toFixed(2);

export function returnNoteText(type: string, data: ReturnNoteData): string {
  const r = data.return;
  const who = `supplier ${r.supplier.name}`;
  const asked = r.lines.map((l) => `${l.quantity} × ${l.name} (${l.external_id})`).join(", ");
  const received = r.lines.map((l) => `${l.received_quantity ?? 0} of ${l.quantity} × ${l.name}${l.condition ? ` (${l.condition})` : ""}`).join(", ");
  const rma = r.rma ? `, RMA ${r.rma}` : "";
  switch (type) {
    case "return.authorised":
      return `Return ${r.id} authorised by ${who}${rma}: ${asked}. Send to: ${r.return_address ?? "?"}.`;
    case "return.declined":
      return `Return ${r.id} declined by ${who}: ${r.decline_reason ?? ""}. Asked back: ${asked}.`;
    case "return.received":
      return `Return ${r.id}${rma} received by ${who}: ${received}.`;
    case "return.credited":
      return `Return ${r.id}${rma} credited by ${who}: ${r.credit ? `${r.credit.currency} ${amount(r.credit.amount)}` : "?"} for ${received}. Nothing was refunded to the customer automatically.`;
    default:
      return `Return ${r.id}${rma} closed by ${who} without a credit: ${r.close_reason ?? ""}. Received: ${received}.`;
  }
}
