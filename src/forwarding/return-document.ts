// What a supplier receives of a return on its channel: one document per notice, as JSON (the signed
// webhook `return.requested` / `return.cancelled`, a file, the pull API, the portal) and as plain text
// (e-mail). The return's life is src/returns/'s; this is only its shape on the wire.

export type ReturnDocumentLine = { id: number; external_id: string; name: string; reference: string | null; ean13: string | null; quantity: number; reason: string | null };

export type ReturnDocument = {
  /** The notice's idempotency key: the same on every retry (also sent as Idempotency-Key). */
  id: string;
  type: "return.requested" | "return.cancelled";
  return_id: number;
  status: string;
  created_at: string;
  test: boolean;
  supplier: { id: number; name: string };
  order: { reference: string; external_id: string };
  note: string | null;
  customer_tracking: string | null;
  /** Set when the return was authorised in advance (the supplier's auto_authorise). */
  rma: string | null;
  return_address: string | null;
  cancel_reason: string | null;
  lines: ReturnDocumentLine[];
};

export function returnMailSubject(doc: ReturnDocument): string {
  const what = doc.type === "return.cancelled" ? "Return withdrawn" : "Return request";
  return `${what} ${doc.return_id}: order ${doc.order.reference} for ${doc.supplier.name}${doc.test ? " (TEST)" : ""}`;
}

export function returnMailText(doc: ReturnDocument): string {
  const lines = doc.lines.map((l) => `  ${l.quantity} x ${l.name}  (line ${l.id}, SKU ${l.reference ?? "-"}, EAN ${l.ean13 ?? "-"})${l.reason ? `: ${l.reason}` : ""}`);
  if (doc.type === "return.cancelled")
    return [`The shop withdraws return ${doc.return_id} of order ${doc.order.reference}: nothing will be sent back.`, ...(doc.cancel_reason ? ["", `Reason: ${doc.cancel_reason}`] : [])].join("\n");
  return [
    `The customer of order ${doc.order.reference} (shop order ${doc.order.external_id}) wants to send back to ${doc.supplier.name}:`,
    "",
    ...lines,
    ...(doc.note ? ["", `Note: ${doc.note}`] : []),
    ...(doc.rma ? ["", `Authorised in advance as ${doc.rma}; it goes to ${doc.return_address}.`] : []),
    "",
    "Answer in the supplier portal, or with POST /api/v1/supplier/returns/" + doc.return_id + "/answer:",
    '{"action": "authorise", "rma": "<your RMA>", "return_address": "<where to send it>"} or {"action": "decline", "reason": "<why>"};',
    'once it arrives {"action": "receive", "lines": [{"line_id": <line>, "quantity": <n>, "condition": "new|opened|damaged"}]},',
    'then {"action": "credit", "amount": <amount>, "currency": "EUR"} or {"action": "close", "reason": "<why no credit>"}.',
    "",
    `Reference for your answer: return ${doc.return_id} (${doc.id}).`,
  ].join("\n");
}
