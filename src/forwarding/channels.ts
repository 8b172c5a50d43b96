// The push channels: a signed webhook POST and an e-mail (an order, a cancellation request). Each returns how the attempt went;
// the dispatch service decides what that means for the lines. Each attempt as a whole (the answer's
// body included) is time-boxed to `timeoutMs`, below the dispatch's lease.
import { EmailMessage } from "cloudflare:email";
import { createMimeMessage } from "mimetext";
import type { Bindings } from "../env";
import { withTimeout } from "../lib/outbound";
import { SIGNATURE_HEADER, signatureHeader } from "../lib/signature";
import { csvRows, emailText, toCsv, type DispatchDocument } from "./document";

/** What came back, for the attempt's record: the HTTP status and the answer's body, or how the call failed (the error as `response`). */
type Answer = { http?: number; response?: string; failure?: "timeout" | "network" | "email" };

export type Attempt = (
  | { outcome: "delivered"; detail: string }
  /** Worth trying again: 408, 429, 5xx, timeouts, network errors. */
  | { outcome: "retryable"; detail: string }
  /** The supplier refused it; trying again will not help. */
  | { outcome: "rejected"; detail: string }
) &
  Answer;

const MAX_DETAIL = 500;

function base64Utf8(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
const truncate = (s: string) => (s.length > MAX_DETAIL ? `${s.slice(0, MAX_DETAIL)}…` : s);

const timedOut = (error: unknown) => error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");

/** POSTs a signed document (an order dispatch, a cancellation request); `doc.id` is its idempotency key. */
export async function postWebhook(url: string, secrets: string[], doc: { id: string }, timeoutMs: number): Promise<Attempt> {
  const body = JSON.stringify(doc);
  const attempt = async (): Promise<Attempt> => {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "OrderIntake/1.0",
        "idempotency-key": doc.id,
        [SIGNATURE_HEADER]: await signatureHeader(secrets, body),
      },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const answer = truncate(await res.text().catch(() => ""));
    const got = { http: res.status, response: answer };
    if (res.ok) return { outcome: "delivered", detail: `HTTP ${res.status}`, ...got };
    if (res.status === 408 || res.status === 429 || res.status >= 500) {
      return { outcome: "retryable", detail: `HTTP ${res.status}${answer ? `: ${answer}` : ""}`, ...got };
    }
    return { outcome: "rejected", detail: `HTTP ${res.status}${answer ? `: ${answer}` : ""}`, ...got };
  };
  try {
    return await withTimeout(attempt(), timeoutMs);
  } catch (error) {
    if (timedOut(error)) return { outcome: "retryable", detail: "timed out", failure: "timeout", response: `no answer within ${timeoutMs} ms` };
    const message = truncate(String(error));
    return { outcome: "retryable", detail: `network error: ${message}`, failure: "network", response: message };
  }
}

export type Mail = { subject: string; text: string; headers: Record<string, string>; attachment?: { filename: string; contentType: string; text: string } };

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
export function sendEmail(env: Bindings, to: string, doc: DispatchDocument, timeoutMs: number): Promise<Attempt> {
  return sendMail(
    env,
    to,
    {
      subject: `Order ${doc.order.reference} for ${doc.supplier.name}${doc.test ? " (TEST)" : ""}`,
      headers: { "X-Dispatch-Id": String(doc.dispatch_id) },
      text: emailText(doc),
      attachment: { filename: `order-${doc.order.reference}.csv`, contentType: "text/csv", text: toCsv(csvRows(doc)) },
    },
    timeoutMs,
  );
}
