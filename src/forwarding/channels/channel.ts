// What forwarding needs of a supplier's channel, whatever it is: one Channel interface, and each
// channel an adapter beside it (webhook.ts, email.ts, file.ts, pull.ts, manual.ts; index.ts lists them). A
// channel sends a document (a dispatch's order, a cancellation request) and says how it went; the
// forwarding services decide what that means for the lines. Each adapter is also its own
// description: its name and label, the supplier settings it needs (with their hints), its batch
// limit, the words for its outcomes and its form; the API, the console and the wording read these,
// and never a channel's name (docs/adapters.md). A new channel is one new file here and one line in index.ts.
import type { z } from "zod";
import type { AttemptRecord, Supplier } from "../../db/schema";
import type { Bindings } from "../../env";
import type { CancellationDocument } from "../cancellation-document";
import type { DispatchDocument } from "../document";
import type { ReturnDocument } from "../return-document";

/**
 * What came back, for the attempt's record: the HTTP status and the answer's body, or how the call
 * failed (the error as `response`); `to`: where it went, when more precise than the channel's
 * address (the file channel: the file's own path on the server).
 */
type Answer = { http?: number; response?: string; failure?: "timeout" | "network" | "email"; to?: string };

/** How a send went. */
export type Attempt = (
  | { outcome: "delivered"; detail: string }
  /** Worth trying again: 408, 429, 5xx, timeouts, network errors. */
  | { outcome: "retryable"; detail: string }
  /** The supplier refused it; trying again will not help. */
  | { outcome: "rejected"; detail: string }
) &
  Answer;

/** A document as an e-mail. */
export type Mail = { subject: string; text: string; headers: Record<string, string>; attachment?: { filename: string; contentType: string; text: string } };

/**
 * What a channel sends: a dispatch's order or a cancellation request (POSTed as JSON, its `id` the
 * idempotency key; written as a file), and the same as an e-mail.
 */
export type Outgoing =
  | { kind: "order"; document: DispatchDocument; mail: Mail }
  | { kind: "cancellation"; document: CancellationDocument; mail: Mail }
  | { kind: "return"; document: ReturnDocument; mail: Mail };

export interface Channel {
  /** The name suppliers and dispatches store (the API's `channel`). */
  readonly name: string;
  /** Its name in the console, and one sentence on how orders reach the supplier (the channel picker). */
  readonly label: string;
  readonly summary: string;
  /**
   * The supplier's fields the channel works with, as the API names them (webhook_url, email,
   * file_transfer), each described (src/lib/described-fields.ts): a required one must be set for the
   * channel to be chosen ("required when channel is …"), and its checks are the channel's own on
   * top of the field's. The console's form shows these fields while the channel is chosen.
   */
  readonly settings: z.ZodObject;
  /** How a sent document went out, in the attempt log's words ("by webhook"), and what a push lacks without an address ("webhook URL"). */
  readonly sentAs: string;
  readonly addressName: string;
  /** Whether the supplier is handed a signing secret (our webhooks to it, its callbacks to us). */
  readonly signs: boolean;
  /** The line's log once its lines were delivered. */
  delivered(supplierName: string): string;
  /** Where the supplier's orders go, for the console's list of suppliers (null: the summary is shown). */
  destination(supplier: Supplier): string | null;
  /** A failed attempt's outcome in the attempt log, where the channel knows better than its HTTP status and failure kind (a file server's refusal). */
  recordOutcome?(attempt: Attempt): AttemptRecord["outcome"] | null;
  /**
   * Where the channel has one, what it reads back from the supplier (the file channel: answer files
   * on its server, read by the cron: src/forwarding/inbound-files.service.ts): which suppliers have
   * it set up.
   */
  readonly inbound?: { readonly kind: "answer_files"; configured(supplier: Supplier): boolean };
  /**
   * What a dispatch on the channel starts as: sent by the pipeline now (`sending`: a push channel),
   * left for the supplier to fetch and acknowledge (`awaiting_pickup`), or for the shop to place by
   * hand (`manual`). Only push channels send a dispatch.
   */
  readonly starts: "sending" | "awaiting_pickup" | "manual";
  /** Where it sends to (the supplier's webhook URL, its e-mail address); null: nowhere (a push is then refused). */
  address(supplier: Supplier): string | null;
  /**
   * Sends the document to the supplier, time-boxed to `timeoutMs` as a whole (below the send's lease).
   * `ledger`: what a send must keep before it goes out (an X12 file's control numbers), kept by the forwarding services.
   */
  send(outgoing: Outgoing, supplier: Supplier, context: { env: Bindings; timeoutMs: number; ledger: SendLedger }): Promise<Attempt>;
  /**
   * A failed send (its last attempt's record) in a shop owner's words, naming the supplier: what
   * it means and what to do (Needs attention groups failed lines by this cause). Push channels only.
   */
  explainFailure?(record: AttemptRecord, supplierName: string): string;
}

/**
 * What a channel keeps about a document before sending it, where its format numbers its files (X12's
 * control numbers, src/forwarding/x12/numbers.ts): the forwarding services run the queries, the channel only asks.
 */
export interface SendLedger {
  /** The document's control number (`key`: "dispatch:77"): the one it was given before (a retry), or the supplier's next. */
  controlNumber(key: string, sets: string, dispatchId: number | null): Promise<number>;
  /** The file the document became, kept for the console. */
  record(key: string, fileName: string, content: string): Promise<void>;
}

/** Every control number a supplier may have is used (ISA13 has nine digits): nothing more can be sent in X12. */
export class ControlNumbersExhausted extends Error {}

/** The common HTTP statuses' names, for a status said in words ("HTTP 404 Not Found"). */
const STATUS_NAMES: Record<number, string> = {
  400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout", 409: "Conflict",
  410: "Gone", 413: "Payload Too Large", 415: "Unsupported Media Type", 422: "Unprocessable Entity", 429: "Too Many Requests",
  500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
};
export const httpStatus = (status: number) => `HTTP ${status}${STATUS_NAMES[status] ? ` ${STATUS_NAMES[status]}` : ""}`;

/** How much of an answer or error is kept. */
const MAX_DETAIL = 500;
export const truncate = (s: string) => (s.length > MAX_DETAIL ? `${s.slice(0, MAX_DETAIL)}…` : s);
export const timedOut = (error: unknown) => error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
