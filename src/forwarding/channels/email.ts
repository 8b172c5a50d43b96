// The e-mail channel: the document as an e-mail through the send_email binding (an order: its text,
// and its lines as a CSV attachment), time-boxed.
import { EmailMessage } from "cloudflare:email";
import { createMimeMessage } from "mimetext";
import { z } from "zod";
import type { Bindings } from "../../env";
import { described } from "../../lib/described-fields";
import { withTimeout } from "../../lib/outbound";
import { csvRows, emailText, toCsv, type DispatchDocument } from "../document";
import { timedOut, truncate, type Attempt, type Channel, type Mail } from "./channel";

function base64Utf8(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** An e-mail to a supplier through the send_email binding, time-boxed. */
export async function sendMail(env: Bindings, to: string, mail: Mail, timeoutMs: number): Promise<Attempt> {
  try {
    const msg = createMimeMessage();
    msg.setSender({ name: "Order intake", addr: env.EMAIL_FROM });
    msg.setRecipient(to);
    msg.setSubject(mail.subject);
    for (const [name, value] of Object.entries(mail.headers)) msg.setHeader(name, value);
    msg.addMessage({ contentType: "text/plain", data: mail.text });
    if (mail.attachment) {
      msg.addAttachment({ filename: mail.attachment.filename, contentType: mail.attachment.contentType, data: base64Utf8(mail.attachment.text) });
    }
    await withTimeout(env.SUPPLIER_EMAIL.send(new EmailMessage(env.EMAIL_FROM, to, msg.asRaw())), timeoutMs);
    return { outcome: "delivered", detail: `e-mailed to ${to}` };
  } catch (error) {
    if (timedOut(error)) return { outcome: "retryable", detail: "e-mail timed out", failure: "timeout", response: `no answer within ${timeoutMs} ms` };
    const message = truncate(String(error));
    return { outcome: "retryable", detail: `e-mail failed: ${message}`, failure: "email", response: message };
  }
}

/** The order e-mail: the document as text, its lines as a CSV attachment. */
export const orderMail = (doc: DispatchDocument): Mail => ({
  subject: `Order ${doc.order.reference} for ${doc.supplier.name}${doc.test ? " (TEST)" : ""}`,
  headers: { "X-Dispatch-Id": String(doc.dispatch_id) },
  text: emailText(doc),
  attachment: { filename: `order-${doc.order.reference}.csv`, contentType: "text/csv", text: toCsv(csvRows(doc)) },
});

/** The order e-mail, sent. */
export function sendEmail(env: Bindings, to: string, doc: DispatchDocument, timeoutMs: number): Promise<Attempt> {
  return sendMail(env, to, orderMail(doc), timeoutMs);
}

export const email: Channel = {
  name: "email",
  label: "E-mail",
  summary: "Each order is e-mailed to the supplier with a CSV of its lines.",
  settings: z.object({ email: described(z.string().min(1), { label: "E-mail address", hint: "Needed for the e-mail channel", input: "email" }) }),
  sentAs: "by e-mail",
  addressName: "e-mail address",
  signs: true,
  delivered: (supplierName) => `Successfully sent to supplier ${supplierName} by e-mail`,
  destination: (supplier) => supplier.email,
  starts: "sending",
  explainFailure: (record, supplierName) =>
    record.outcome === "not_sent"
      ? `Supplier ${supplierName} has no e-mail address: set one on the supplier's page, then send the lines again.`
      : `The e-mail to supplier ${supplierName}${record.to ? ` (${record.to})` : ""} could not be sent: is the address right? Then send the lines again.`,
  address: (supplier) => supplier.email,
  send: async (outgoing, supplier, { env, timeoutMs }) => {
    if (!supplier.email) return { outcome: "rejected", detail: "the supplier has no e-mail address" };
    return sendMail(env, supplier.email, outgoing.mail, timeoutMs);
  },
};
