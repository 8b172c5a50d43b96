// The webhook channel: the document POSTed to the supplier's URL, signed with its secret (and the
// previous one during a rotation), its id as the idempotency key.
import { withTimeout } from "../../lib/outbound";
import { urlRefusal } from "../../lib/outbound-address";
import { SIGNATURE_HEADER, signatureHeader } from "../../lib/signature";
import { timedOut, truncate, type Attempt, type Channel } from "./channel";

/** POSTs a signed document (an order dispatch, a cancellation request); `doc.id` is its idempotency key. The whole attempt, the answer's body included, is time-boxed. */
export async function postWebhook(url: string, secrets: string[], doc: { id: string }, timeoutMs: number): Promise<Attempt> {
  const body = JSON.stringify(doc);
  // A webhook_url stored before the address policy, pointing where we never connect: refused unsent, not retried.
  const refusal = URL.canParse(url) ? urlRefusal(new URL(url)) : null;
  if (refusal) {
    const words = `not sent: the webhook_url ${refusal}`;
    return { outcome: "rejected", detail: words, failure: "network", response: words };
  }
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
      // A redirect is the supplier's answer, not a success: following it could post the order somewhere never checked.
      redirect: "manual",
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

export const webhook: Channel = {
  starts: "sending",
  address: (supplier) => supplier.webhookUrl,
  send: async (outgoing, supplier, { timeoutMs }) => {
    if (!supplier.webhookUrl) return { outcome: "rejected", detail: "the supplier has no webhook URL" };
    const secrets = [supplier.webhookSecret, supplier.webhookSecretPrevious].filter((s): s is string => !!s);
    return postWebhook(supplier.webhookUrl, secrets, outgoing.document, timeoutMs);
  },
};
