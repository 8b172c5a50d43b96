// The webhook channel: the document POSTed to the supplier's URL, signed with its secret (and the
// previous one during a rotation), its id as the idempotency key.
import { z } from "zod";
import { described } from "../../lib/described-fields";
import { withTimeout } from "../../lib/outbound";
import { urlRefusal } from "../../lib/outbound-address";
import { SIGNATURE_HEADER, signatureHeader } from "../../lib/signature";
import type { AttemptRecord } from "../../db/schema";
import { httpStatus, timedOut, truncate, type Attempt, type Channel } from "./channel";

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

/** A webhook send that failed, in words: what the supplier's endpoint did and what to do about it. */
export function explainWebhookFailure(record: AttemptRecord, supplierName: string): string {
  const who = `Supplier ${supplierName}'s webhook`;
  const status = record.http_status;
  if (record.outcome === "not_sent") return `${who} has no address we may send to${record.response ? ` (${record.response})` : ""}: set its webhook URL on the supplier's page.`;
  if (record.outcome === "timeout") return `${who} did not answer in time: its server may be down or overloaded. Ask the supplier, then send the lines again.`;
  if (record.outcome === "network_error" || status === null)
    return `${who} could not be reached${record.to ? ` at ${record.to}` : ""}: is the address right, and its server up? Ask the supplier, then send the lines again.`;
  if (status === 401 || status === 403)
    return `${who} refuses our deliveries (${httpStatus(status)}): it does not accept our signature. Give the supplier the signing secret from its page, then send the lines again.`;
  if (status === 404 || status === 405 || status === 410)
    return `${who} refuses our deliveries (${httpStatus(status)}): nothing takes orders at ${record.to ?? "its URL"}. Check the webhook URL with the supplier.`;
  if (status === 429) return `${who} asks us to slow down (${httpStatus(status)}): we tried again and gave up. Send the lines again later.`;
  if (status >= 500) return `${who} refuses our deliveries (${httpStatus(status)}): its server has an error of its own. Ask the supplier to look at it, then send the lines again.`;
  if (status >= 300 && status < 400) return `${who} answered with a redirect (${httpStatus(status)}), which we do not follow: ask the supplier for its current URL.`;
  return `${who} refuses our deliveries (${httpStatus(status)}): it does not accept the order as we send it. Its answer says why; ask the supplier.`;
}

export const webhook: Channel = {
  name: "webhook",
  label: "Webhook",
  summary: "Each order is POSTed, signed, to the supplier's URL.",
  settings: z.object({
    webhook_url: described(z.string().min(1), { label: "Webhook URL", hint: "Needed for the webhook channel: an http(s) URL", input: "url" }),
  }),
  sentAs: "by webhook",
  addressName: "webhook URL",
  signs: true,
  delivered: () => "Successfully sent to supplier",
  destination: (supplier) => supplier.webhookUrl,
  starts: "sending",
  explainFailure: explainWebhookFailure,
  address: (supplier) => supplier.webhookUrl,
  send: async (outgoing, supplier, { timeoutMs }) => {
    if (!supplier.webhookUrl) return { outcome: "rejected", detail: "the supplier has no webhook URL" };
    const secrets = [supplier.webhookSecret, supplier.webhookSecretPrevious].filter((s): s is string => !!s);
    return postWebhook(supplier.webhookUrl, secrets, outgoing.document, timeoutMs);
  },
};
