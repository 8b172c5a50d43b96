// The file channel's X12 format, outbound: a dispatch as an 850, a cancellation request as an 860
// (or, with `cancellation: "none"`, left to the portal as a manual task), each written atomically
// like the channel's other files, under the file name template with {ext} "x12". docs/edi.md.
import type { X12Config } from "../../../db/schema";
import { ControlNumbersExhausted, type Attempt, type Outgoing, type SendLedger } from "../channel";
import { purchaseOrder, purchaseOrderChange } from "./documents";

/** How the file channel writes a file (atomically, looked for first): its putFile, bound to the supplier. */
export type PutFile = (file: { name: string; bytes: Uint8Array }) => Promise<Attempt>;

/**
 * A document as X12 under `name` (the channel's file name template): a dispatch as an 850, a
 * cancellation request as an 860, or, with cancellation "none", shown in the portal only (as on the
 * manual channel). Its control number is taken (or found, on a retry) and the text recorded before the file is written.
 */
export async function sendX12(ledger: SendLedger, config: X12Config, outgoing: Exclude<Outgoing, { kind: "return" }>, name: string, put: PutFile): Promise<Attempt> {
  if (outgoing.kind === "cancellation" && config.cancellation === "none") {
    return { outcome: "delivered", detail: "not sent: the supplier takes no 860; shown to it in its portal (manual)" };
  }
  const key = outgoing.kind === "order" ? `dispatch:${outgoing.document.dispatch_id}` : `cancellation:${outgoing.document.cancellation_id}`;
  let control: number;
  try {
    control = await ledger.controlNumber(key, outgoing.kind === "order" ? "850" : "860", outgoing.kind === "order" ? outgoing.document.dispatch_id : null);
  } catch (error) {
    if (!(error instanceof ControlNumbersExhausted)) throw error;
    return { outcome: "rejected", detail: error.message, response: error.message };
  }
  const content = outgoing.kind === "order" ? purchaseOrder(outgoing.document, config, control) : purchaseOrderChange(outgoing.document, config, control);
  await ledger.record(key, name, content);
  return put({ name, bytes: new TextEncoder().encode(content) });
}
