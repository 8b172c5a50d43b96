// Writing back into the shop: one write-back (a shipment, a note, the order's completion) delivered
// to one shop connection, at least once and never twice. The same machinery as a webhook delivery
// (src/events/delivery.service.ts): a lease taken with a guarded UPDATE, every attempt recorded,
// retries through the queue with backoff (and jitter, and a 429's Retry-After), parked after the
// last attempt and replayable. On top of it: per connection and order the write-backs go in order
// (earlierUnfinished), the shop's order is looked up once and kept, the ids of what was created are
// recorded, and after an unclear outcome the adapter looks before it writes again. An attempt that
// never reported back (its Worker stopped mid-attempt) is the most unclear of all: the attempt that
// takes over once its lease ran out looks first, and records it among the attempts as interrupted.
import { isReturnNote, returnNoteText } from "../returns/return-note";
import { sql, type SQL } from "drizzle-orm";
import { toStatement, type Db, type Row } from "../db";
import type { AttemptOutcome, ShopPlatformName, WriteBackKind, WriteBackStatus } from "../db/schema";
import type { Bindings } from "../env";
import { ApiError } from "../lib/errors";
import { withTimeout } from "../lib/outbound";
import { afterFailure, claimStatement, dueAt, heldBy, jobSettings, Lease, OUTBOUND_JOBS, replayStatement, secondsUntil, takeable, type JobTable } from "../lib/outbound-job";
import type { Pipeline } from "../lib/queue";
import { open, sealingKeys } from "../lib/sealed";
import { isoMicro } from "../lib/time";
import type { ShopFailure } from "./platforms/explain";
import { ShopError, ShopHttp, type ShopCall, type ShopErrorKind } from "./platforms/http";
import { platformFor } from "./platforms/index";
import type { LineRef, OrderRef, ShopConnection, ShopOrder, WriteResult } from "./platforms/platform";
import { DELETED_CONNECTION, earlierUnfinished, writeBackMessages } from "./write-backs";

/**
 * The write-backs' table as the outbound engine (src/lib/outbound-job.ts) sees it: pending (a
 * retry's due time in lease_until), delivering under a lease, parked as failed.
 */
export const WRITE_BACK_JOB: JobTable = { table: "shop_write_backs", waiting: "pending", busy: "delivering", parked: "failed", dueIn: "lease_until", touches: true };
/**
 * The calls one attempt may make (a lookup of the order, a look after an unclear outcome, the
 * writes): the attempt as a whole is time-boxed at this many calls' time boxes, and its lease
 * outlives that.
 */
export const CALLS_PER_ATTEMPT = 6;

/** What a lease holds beyond the calls' time boxes: the D1 work around a call, clocks a little apart (the job's lease margin). */
export const LEASE_SLACK_MS = OUTBOUND_JOBS.write_back.leaseMarginMs;

/**
 * How long a lease runs from its claim or renewal: the call about to go out and the next one. The
 * attempt renews it before any call that would not end inside it (and stops, writing nothing more,
 * when it cannot), so a lease runs out only when its Worker stopped, and the write-back is taken
 * over about one call's time box after that rather than after the whole attempt's.
 */
export const writeBackLeaseMs = (timeoutMs: number) => OUTBOUND_JOBS.write_back.leaseCalls * timeoutMs + LEASE_SLACK_MS;

/** The words for an attempt that never reported back, once the next one took over. */
export const INTERRUPTED_ERROR = "No answer: the worker stopped mid-attempt (its lease ran out); the next attempt looked in the shop before writing again.";
/** The same while no attempt has taken over yet (the lease ran out; the cron hands it on). */
export const INTERRUPTED_WAITING = "No answer: the worker stopped mid-attempt (its lease ran out); the next attempt will look in the shop before writing again.";

/** The bound string a connection's credentials are sealed to (src/lib/sealed.ts). */
export const credentialsBinding = (accountId: number, platform: ShopPlatformName) => `shop_connection:${accountId}:${platform}`;

type DeliveryRow = {
  id: number;
  account_id: number;
  connection_id: number;
  order_id: number;
  kind: WriteBackKind;
  status: WriteBackStatus;
  attempts: number;
  lease_until: string | null;
  shipped_in_full: number | null;
  shop_order: string | null;
  unclear: number;
  /** JSON: the attempts that never reported back, to record (Interrupted). */
  interrupted: string | null;
  /** JSON: the shop ids the order's other write-backs on this connection recorded (not this one's to find). */
  taken_ids: string | null;
  platform: ShopPlatformName;
  base_url: string;
  credentials_sealed: string;
  settings: string;
  active: number;
  deleted_at: string | null;
  reference: string;
  order_external_id: string;
  event_type: string;
  event_data: string;
  line_id: number | null;
  line_external_id: string | null;
  line_sku: string | null;
  line_name: string | null;
  line_quantity: number | null;
  /** The supplier the line is with now: a retry's follow-up names it (its event names none). */
  line_supplier: string | null;
  /** 1 when the line is the rest of a partly confirmed line, split off it (its cancellation is said so). */
  line_is_rest: number | null;
};

export type WriteBackOutcome = "done" | "retrying" | "failed" | "skipped" | "waiting";

/**
 * Handles a write_back message: five statements in two round trips (the claim with its read, the
 * attempt and the outcome), whatever the shop answers. Throws only when D1 or the queue fail (the
 * message is retried).
 */
export async function deliverWriteBack(db: Db, env: Bindings, pipeline: Pipeline, writeBackId: number): Promise<WriteBackOutcome> {
  const settings = jobSettings(env, "write_back");
  const started = new Date();
  const now = isoMicro(started);
  const attemptBox = settings.timeoutMs * CALLS_PER_ATTEMPT;
  // The lease covers the first calls; the attempt renews it as it goes (renewLease), so it runs out
  // only when this Worker stopped.
  const lease = Lease.for(settings, started);
  const live = sql`EXISTS (SELECT 1 FROM shop_connections c WHERE c.id = shop_write_backs.connection_id AND c.active = 1 AND c.deleted_at IS NULL)`;
  const [claim, , read] = await db.$client.batch<DeliveryRow>(
    [
      // Taking over from an attempt that never reported back (still delivering, its lease ran out):
      // that attempt may have written, so this one looks first (unclear), and records it (interrupted).
      claimStatement(WRITE_BACK_JOB, writeBackId, lease, {
        now: started,
        set: sql`unclear = CASE WHEN status = 'delivering' THEN 1 ELSE unclear END,
          interrupted = CASE WHEN status = 'delivering'
            THEN json_insert(coalesce(interrupted, '[]'), '$[#]', json_object('started_at', coalesce(attempt_started_at, updated_at), 'given_up_at', ${now}))
            ELSE interrupted END,
          attempt_started_at = ${now}`,
        where: sql`${live} AND NOT EXISTS (${earlierUnfinished(sql`shop_write_backs`)})`,
        returning: false,
      }),
      // A deleted connection writes nothing more: what waited for it is skipped.
      sql`UPDATE shop_write_backs SET status = 'skipped', last_error = ${DELETED_CONNECTION}, lease_until = NULL, updated_at = ${now}
        WHERE id = ${writeBackId} AND ${takeable(WRITE_BACK_JOB, started)}
          AND EXISTS (SELECT 1 FROM shop_connections c WHERE c.id = shop_write_backs.connection_id AND c.deleted_at IS NOT NULL)`,
      sql`SELECT w.id, w.account_id, w.connection_id, w.order_id, w.kind, w.status, w.attempts, w.lease_until, w.shipped_in_full, w.shop_order, w.unclear,
          w.interrupted,
          (SELECT json_group_array(j.value) FROM shop_write_backs b, json_each(b.shop_ids) j
            WHERE b.order_id = w.order_id AND b.connection_id = w.connection_id AND b.id <> w.id AND b.shop_ids IS NOT NULL) AS taken_ids,
          c.platform, c.base_url, c.credentials_sealed, c.settings, c.active, c.deleted_at,
          o.reference, o.external_id AS order_external_id, e.type AS event_type, e.data AS event_data,
          l.id AS line_id, l.external_id AS line_external_id, l.reference AS line_sku, l.name AS line_name, l.quantity AS line_quantity,
          (SELECT s.name FROM suppliers s WHERE s.id = l.matched_supplier_id) AS line_supplier,
          (SELECT p.current_status = 'partially_completed' AND p.matched_supplier_id IS l.matched_supplier_id FROM order_lines p
            WHERE p.id = l.split_from_line_id AND p.order_id = l.order_id) AS line_is_rest
        FROM shop_write_backs w
        JOIN shop_connections c ON c.id = w.connection_id
        JOIN orders o ON o.id = w.order_id
        JOIN events e ON e.id = w.event_id
        LEFT JOIN order_lines l ON l.id = w.line_id
        WHERE w.id = ${writeBackId}`,
    ].map((q) => toStatement(db, q)),
  );
  const row = read.results[0];
  if (!row) return "skipped";
  if (row.status === "skipped") return "skipped";
  // Whether our UPDATE changed the row, not whether the lease looks like ours (two consumers in one
  // isolate compute the same lease_until).
  if (claim.meta.changes !== 1) {
    // Not ours. A retry that came early, or an attempt under someone else's lease: look again when
    // it is due or the lease ends. Waiting for an earlier write-back of its order (which kicks it
    // when done), for a paused connection (the cron kicks it once resumed), done or failed: nothing.
    const inFuture = row.lease_until !== null && row.lease_until > now;
    if (row.active && !row.deleted_at && inFuture && (row.status === "pending" || row.status === "delivering")) {
      await pipeline.send(writeBackMessages([writeBackId]), secondsUntil(row.lease_until!, started.getTime()));
      return "skipped";
    }
    return "waiting";
  }

  const dryRun = parseSettings(row.settings).mode === "dry_run";
  // Before a call that would not end inside the lease: renewed, guarded by the lease this attempt
  // holds. When that fails (another attempt took over), this one stops before its next call.
  lease.on(db, WRITE_BACK_JOB, writeBackId);
  const renewLease = async () => {
    if (await lease.renewIfShort(settings.timeoutMs + LEASE_SLACK_MS)) return;
    throw new ShopError("unexpected", "This attempt's lease ran out and could not be renewed (another attempt took over): it stopped before its next call to the shop.");
  };
  const attempt = await attemptWrite(env, row, settings.timeoutMs, attemptBox, dryRun, renewLease);
  // Lost (another attempt took over): the guards below write nothing, as the old lease no longer matches.
  const held = (await lease.release()) ?? lease.until;
  const finished = isoMicro();
  const error = attempt.error;
  let outcome: WriteBackOutcome;
  let delay = 0;
  if (!error) outcome = attempt.result!.outcome === "skipped" ? "skipped" : "done";
  else {
    const shopError = error instanceof ShopError ? error : null;
    const next = afterFailure(settings, row.attempts, { final: shopError ? !shopError.retryable : false, retryAfterSeconds: shopError?.retryAfterSeconds });
    outcome = next.retry ? "retrying" : "failed";
    if (next.retry) delay = next.delaySeconds;
  }
  const unclear = error ? Boolean(row.unclear) || isUnclear(error) : false;
  const message = error ? errorText(error) : attempt.result!.outcome === "skipped" ? attempt.result!.reason : null;
  const failure = error ? failureFacts(error, attempt.calls) : null;
  const shopIds = attempt.result && attempt.result.outcome !== "skipped" ? JSON.stringify(attempt.result.shopIds) : null;
  const status: WriteBackStatus = outcome === "retrying" ? "pending" : outcome === "done" ? "done" : outcome === "skipped" ? "skipped" : "failed";
  const settled = outcome === "done" || outcome === "skipped";
  const attemptOutcome: AttemptOutcome = error ? "failed" : attempt.result!.outcome;
  // The attempts that never reported back first (only while this attempt still holds the lease:
  // should another have taken over, that one records them), then this one.
  const stillOurs = sql`EXISTS (SELECT 1 FROM shop_write_backs WHERE ${heldBy(WRITE_BACK_JOB, writeBackId, held)})`;
  const interruptedRows = interruptedOf(row.interrupted).map(
    (i) => sql`SELECT ${writeBackId}, '[]', 0, ${INTERRUPTED_ERROR}, ${Math.max(0, Date.parse(i.given_up_at) - Date.parse(i.started_at))}, 'interrupted', ${i.given_up_at} WHERE ${stillOurs} UNION ALL `,
  );
  const [, updated] = await db.$client.batch<{ id: number; next_id: number | null }>(
    [
      sql`INSERT INTO shop_write_back_attempts (write_back_id, calls, dry_run, error, duration_ms, outcome, created_at)
        ${sql.join(interruptedRows)}SELECT ${writeBackId}, ${JSON.stringify(attempt.calls)}, ${dryRun ? 1 : 0}, ${message && error ? message : null}, ${attempt.durationMs}, ${attemptOutcome}, ${finished}`,
      // Guarded by our lease: should it have run out and another Worker taken over, that one owns the row.
      sql`UPDATE shop_write_backs SET
          status = ${status},
          lease_until = ${outcome === "retrying" ? dueAt(delay) : null},
          shop_ids = coalesce(${shopIds}, shop_ids),
          shop_order = coalesce(${attempt.shopOrder ? JSON.stringify(attempt.shopOrder) : null}, shop_order),
          unclear = ${unclear ? 1 : 0},
          interrupted = NULL,
          attempt_started_at = NULL,
          dry_run = ${settled && dryRun ? 1 : 0},
          last_error = ${message},
          last_failure = ${failure ? JSON.stringify(failure) : null},
          done_at = ${settled ? finished : null},
          updated_at = ${finished}
        WHERE ${heldBy(WRITE_BACK_JOB, writeBackId, held)}
        RETURNING id, CASE WHEN status IN ('done', 'skipped') THEN (
          SELECT b.id FROM shop_write_backs b WHERE b.order_id = ${row.order_id} AND b.connection_id = ${row.connection_id}
            AND b.status = 'pending' AND b.id <> ${writeBackId}
          ORDER BY b.kind = 'complete', b.id LIMIT 1) END AS next_id`,
    ].map((q) => toStatement(db, q)),
  );
  const mine = updated.results[0];
  if (mine && outcome === "retrying") await pipeline.send(writeBackMessages([writeBackId]), delay);
  // The next write-back of the order waited for this one.
  if (mine?.next_id) await pipeline.send(writeBackMessages([mine.next_id]));
  return outcome;
}

type Attempt = { calls: ShopCall[]; durationMs: number; shopOrder: ShopOrder | null; result: WriteResult | null; error: unknown };

/** One attempt: the credentials opened, the shop's order found (or the kept one), the write; never throws. */
async function attemptWrite(env: Bindings, row: DeliveryRow, callTimeoutMs: number, attemptBox: number, dryRun: boolean, beforeCall: () => Promise<void>): Promise<Attempt> {
  const startedMs = Date.now();
  let http: ShopHttp | null = null;
  let shopOrder: ShopOrder | null = row.shop_order ? (JSON.parse(row.shop_order) as ShopOrder) : null;
  let found: ShopOrder | null = null;
  try {
    const credentials = JSON.parse(await open(sealingKeys(env), row.credentials_sealed, credentialsBinding(row.account_id, row.platform))) as Record<string, string>;
    const conn: ShopConnection = { id: row.connection_id, platform: row.platform, baseUrl: row.base_url, credentials, settings: parseSettings(row.settings) };
    const shopHttp = new ShopHttp({ baseUrl: row.base_url, timeoutMs: callTimeoutMs, dryRun, secrets: Object.values(credentials), beforeCall });
    http = shopHttp;
    const platform = platformFor(row.platform);
    const order: OrderRef = { externalId: row.order_external_id, reference: row.reference };
    const options = { look: Boolean(row.unclear), taken: row.taken_ids ? (JSON.parse(row.taken_ids) as unknown[]).map(String) : [] };
    const result = await withTimeout(
      (async (): Promise<WriteResult> => {
        if (!shopOrder) {
          shopOrder = await platform.findOrder(conn, shopHttp, order);
          found = shopOrder;
        }
        if (row.kind === "complete") return platform.complete(conn, shopHttp, shopOrder, order, options);
        if (row.kind === "hold") return platform.hold(conn, shopHttp, shopOrder, order, options);
        if (row.kind === "release") return platform.release(conn, shopHttp, shopOrder, order, options);
        const line = lineOf(row);
        if (row.kind === "shipment") {
          const shipment = (JSON.parse(row.event_data) as { shipment: { quantity: number; carrier: string | null; tracking_number: string | null; tracking_url: string | null } }).shipment;
          return platform.writeShipment(
            conn,
            shopHttp,
            shopOrder,
            {
              order,
              lines: [{ line, quantity: shipment.quantity }],
              trackings: shipment.tracking_number ? [{ carrier: shipment.carrier, number: shipment.tracking_number, url: shipment.tracking_url }] : [],
              orderShippedInFull: Boolean(row.shipped_in_full),
            },
            options,
          );
        }
        return platform.writeNote(conn, shopHttp, shopOrder, { order, text: noteText(row.event_type, JSON.parse(row.event_data), line, row.line_supplier, Boolean(row.line_is_rest)) }, options);
      })(),
      attemptBox,
    ).finally(() => shopHttp.close());
    return { calls: shopHttp.calls, durationMs: Date.now() - startedMs, shopOrder: found, result, error: null };
  } catch (error) {
    if (!(error instanceof ShopError)) console.error(JSON.stringify({ level: "warn", event: "write_back_failed", writeBackId: row.id, error: String(error) }));
    return { calls: http?.calls ?? [], durationMs: Date.now() - startedMs, shopOrder: found, result: null, error };
  }
}

type Interrupted = { started_at: string; given_up_at: string };

/** The attempts that never reported back, as the claim recorded them (the last ten: one D1 statement's parameters). */
function interruptedOf(raw: string | null): Interrupted[] {
  if (!raw) return [];
  const list = JSON.parse(raw) as unknown;
  return Array.isArray(list) ? (list as Interrupted[]).filter((i) => typeof i?.started_at === "string" && typeof i?.given_up_at === "string").slice(-10) : [];
}

const parseSettings = (raw: string) => JSON.parse(raw) as Record<string, unknown> & { mode?: string };

function lineOf(row: DeliveryRow): LineRef {
  return { lineId: row.line_id ?? 0, productId: row.line_external_id ?? "", sku: row.line_sku, name: row.line_name ?? "", quantity: row.line_quantity ?? 0 };
}

/** An attempt that ended without an answer, or with one that does not say the write did not happen: look before writing again. */
function isUnclear(error: unknown): boolean {
  if (error instanceof ShopError) return error.unclear;
  return error instanceof Error && error.name === "TimeoutError";
}

/**
 * What the platform's adapter needs to explain a failure in words (explainFailure): its kind, the
 * refusal's status, and the last call made with the shop's answer to it, as recorded.
 */
export function failureFacts(error: unknown, calls: ShopCall[]): Omit<ShopFailure, "message"> {
  const last = calls.filter((c) => !c.dryRun).at(-1);
  const kind: ShopErrorKind = error instanceof ShopError ? error.kind : isUnclear(error) ? "timeout" : "unexpected";
  return { kind, status: error instanceof ShopError ? error.status : null, call: last ? `${last.method} ${last.path}` : null, answer: last?.answer ?? null };
}

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 1000);
}

type NoteEvent = {
  message?: string;
  line?: { status?: string };
  quantity?: number;
  reason?: string | null;
  supplier?: { name: string } | null;
  to_supplier?: { name: string };
};

/**
 * The private note an event becomes (docs/shops.md, "What is written, and when"). `ofRest`: the line
 * is the rest of a partly confirmed one (its supplier had it and did not confirm it; the reason says so).
 */
export function noteText(type: string, data: NoteEvent, line: LineRef, supplierNow: string | null = null, ofRest = false): string {
  if (isReturnNote(data)) return returnNoteText(type, data);
  const label = `${line.name} (${line.productId}${line.sku ? `, SKU ${line.sku}` : ""}) × ${line.quantity}`;
  const reason = data.reason ? `: ${data.reason}` : "";
  switch (type) {
    case "order_line.cancellation_confirmed":
      if (data.supplier) return `Cancellation of ${data.quantity} of ${label} confirmed by supplier ${data.supplier.name}${reason}.`;
      return ofRest ? `${data.quantity} of ${label} cancelled${reason}.` : `${data.quantity} of ${label} cancelled before any supplier had it${reason}.`;
    case "order_line.cancellation_refused":
      return `Cancellation of ${data.quantity} of ${label} refused by supplier ${data.supplier?.name ?? "?"}${reason}.`;
    // Follow-ups of a line given up on: written only while the line is still with that supplier.
    case "order_line.assigned":
      return `${label} is now with supplier ${data.to_supplier?.name ?? "?"}, sent there by hand.`;
    case "order_line.rerouted":
      return `${label} is now with supplier ${data.to_supplier?.name ?? "?"}, re-routed.`;
    default:
      // A failed line retried by hand: back with its supplier (the only status_changed kept that is neither failed nor declined).
      if (data.line?.status === "ruled") return `${label} is now with supplier ${supplierNow ?? "?"} again, sent again by hand.`;
      // Its supplier confirmed part; the message says how much, and why the rest stayed.
      if (data.line?.status === "partially_completed") return `${label} was confirmed in part, and no other supplier takes the rest. ${data.message ?? ""}`.trim();
      return data.line?.status === "failed"
        ? `${label} could not be sent to a supplier, and no other supplier takes it. ${data.message ?? ""}`.trim()
        : `${label} was declined, and no other supplier takes it. ${data.message ?? ""}`.trim();
  }
}

// ---- Reading and replaying -------------------------------------------------------------------

/**
 * `at`: when its outcome was known (for an interrupted attempt, when the next one took over, or the
 * lease ran out); `durationMs`: from its start until then.
 */
export type WriteBackAttempt = { at: string; calls: ShopCall[]; dryRun: boolean; error: string | null; durationMs: number; outcome: AttemptOutcome };

export type WriteBack = {
  id: number;
  connection: { id: number; name: string; platform: ShopPlatformName };
  order: { reference: string };
  event: { id: string; type: string };
  kind: WriteBackKind;
  status: WriteBackStatus;
  dryRun: boolean;
  shopIds: string[];
  attemptsCount: number;
  /** Why it failed or was skipped, in words; null otherwise. */
  lastError: string | null;
  /** While pending after a failed attempt: when the next one is due. */
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
  doneAt: string | null;
  attempts: WriteBackAttempt[];
};

/**
 * Write-backs with their attempts (oldest first, as JSON) and what they are about, matching `where`
 * (over w, shop_write_backs), in `order`: one statement, so a page reads it beside its own.
 */
function writeBacksStatement(where: SQL, order: SQL, limit?: number): SQL {
  return sql`SELECT w.id, w.kind, w.status, w.dry_run, w.shop_ids, w.attempts AS attempts_count, w.last_error, w.lease_until,
      w.interrupted, w.attempt_started_at, w.created_at, w.updated_at, w.done_at, w.event_id, e.type AS event_type, o.reference,
      c.id AS connection_id, c.name AS connection_name, c.platform,
      (SELECT json_group_array(json_object('at', a.created_at, 'calls', json(a.calls), 'dryRun', json(CASE WHEN a.dry_run THEN 'true' ELSE 'false' END),
          'error', a.error, 'durationMs', a.duration_ms, 'outcome', a.outcome))
        FROM (SELECT * FROM shop_write_back_attempts WHERE write_back_id = w.id ORDER BY id) a) AS attempts_json
    FROM shop_write_backs w JOIN shop_connections c ON c.id = w.connection_id JOIN events e ON e.id = w.event_id JOIN orders o ON o.id = w.order_id
    WHERE ${where} ORDER BY ${order}${limit === undefined ? sql`` : sql` LIMIT ${limit}`}`;
}

/**
 * Every write-back of the order, oldest first, with their attempts (an order has a few per line and
 * connection, none left out): for the order page's own round trip too (writeBacksOf reads its rows).
 */
export function orderWriteBacksStatement(accountId: number, reference: string): SQL {
  return writeBacksStatement(sql`w.order_id = (SELECT id FROM orders WHERE reference = ${reference} AND account_id = ${accountId})`, sql`w.id`);
}

/**
 * The attempts not yet among the recorded ones: those that never reported back and that the attempt
 * now running took over from, and the one whose lease ran out with no attempt taking over yet.
 */
function unrecordedAttempts(r: Row, nowMs: number): WriteBackAttempt[] {
  const out: WriteBackAttempt[] = interruptedOf((r.interrupted as string | null) ?? null).map((i) => ({
    at: i.given_up_at,
    calls: [],
    dryRun: false,
    error: INTERRUPTED_ERROR,
    durationMs: Math.max(0, Date.parse(i.given_up_at) - Date.parse(i.started_at)),
    outcome: "interrupted",
  }));
  const lease = r.lease_until as string | null;
  if (r.status === "delivering" && lease && Date.parse(lease) < nowMs) {
    const started = (r.attempt_started_at as string | null) ?? String(r.updated_at);
    out.push({ at: lease, calls: [], dryRun: false, error: INTERRUPTED_WAITING, durationMs: Math.max(0, Date.parse(lease) - Date.parse(started)), outcome: "interrupted" });
  }
  return out;
}

export function writeBacksOf(rows: Row[], nowMs = Date.now()): WriteBack[] {
  return rows.map((r) => ({
    id: Number(r.id),
    connection: { id: Number(r.connection_id), name: String(r.connection_name), platform: r.platform as ShopPlatformName },
    order: { reference: String(r.reference) },
    event: { id: String(r.event_id), type: String(r.event_type) },
    kind: r.kind as WriteBackKind,
    status: r.status as WriteBackStatus,
    dryRun: Boolean(r.dry_run),
    shopIds: r.shop_ids ? (JSON.parse(String(r.shop_ids)) as string[]) : [],
    attemptsCount: Number(r.attempts_count),
    lastError: (r.last_error as string | null) ?? null,
    nextAttemptAt: r.status === "pending" ? ((r.lease_until as string | null) ?? null) : null,
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
    doneAt: (r.done_at as string | null) ?? null,
    attempts: [...(JSON.parse(String(r.attempts_json ?? "[]")) as WriteBackAttempt[]), ...unrecordedAttempts(r, nowMs)],
  }));
}

const orderNotFound = (reference: string) => ApiError.notFound(`Order with reference '${reference}' not found`);

/** The order's write-backs, oldest first, each with all its attempts: two statements in one round trip. */
export async function listOrderWriteBacks(db: Db, accountId: number, reference: string): Promise<WriteBack[]> {
  const [found, list] = await db.$client.batch<Row>(
    [sql`SELECT id FROM orders WHERE reference = ${reference} AND account_id = ${accountId}`, orderWriteBacksStatement(accountId, reference)].map((q) =>
      toStatement(db, q),
    ),
  );
  if (found.results.length === 0) throw orderNotFound(reference);
  return writeBacksOf(list.results);
}

/** A connection's most recent write-backs, newest first, with their attempts (the connections page): one statement. */
export async function recentWriteBacks(db: Db, accountId: number, connectionId: number, limit = 20): Promise<WriteBack[]> {
  const { results } = await toStatement(
    db,
    writeBacksStatement(sql`w.connection_id = ${connectionId} AND w.account_id = ${accountId}`, sql`w.id DESC`, limit),
  ).all<Row>();
  return writeBacksOf(results);
}

/**
 * Tries a parked (failed) write-back again: back to pending with a fresh round of attempts, and a
 * queue message. The guarded UPDATE lets one of two simultaneous clicks through; the other gets a
 * 409. A paused or deleted connection's write-back is a 409 too (resume the connection first).
 */
export async function replayWriteBack(db: Db, pipeline: Pipeline, accountId: number, reference: string, writeBackId: number): Promise<WriteBack> {
  const now = isoMicro();
  const mine = sql`w.id = ${writeBackId} AND w.account_id = ${accountId} AND w.order_id = (SELECT id FROM orders WHERE reference = ${reference} AND account_id = ${accountId})`;
  const [before, updated] = await db.$client.batch<{ status: WriteBackStatus; active: number; deleted_at: string | null }>(
    [
      sql`SELECT w.status, c.active, c.deleted_at FROM shop_write_backs w JOIN shop_connections c ON c.id = w.connection_id WHERE ${mine}`,
      replayStatement(
        WRITE_BACK_JOB,
        sql`shop_write_backs.id = ${writeBackId} AND shop_write_backs.account_id = ${accountId}
          AND shop_write_backs.order_id = (SELECT id FROM orders WHERE reference = ${reference} AND account_id = ${accountId})
          AND EXISTS (SELECT 1 FROM shop_connections c WHERE c.id = shop_write_backs.connection_id AND c.active = 1 AND c.deleted_at IS NULL)`,
        { set: sql`last_error = NULL`, at: now },
      ),
    ].map((q) => toStatement(db, q)),
  );
  const prior = before.results[0];
  if (!prior) {
    await listOrderWriteBacks(db, accountId, reference); // 404 for the order first
    throw ApiError.notFound(`Shop write-back with id '${writeBackId}' not found`);
  }
  if (updated.results.length === 0) {
    if (prior.deleted_at) throw ApiError.conflict(`Write-back ${writeBackId}'s shop connection was deleted; nothing is written to it.`);
    if (!prior.active) throw ApiError.conflict(`Write-back ${writeBackId}'s shop connection is paused; resume it before replaying.`);
    throw ApiError.conflict(`Write-back ${writeBackId} is ${prior.status}: only a failed write-back can be replayed.`);
  }
  await pipeline.send(writeBackMessages([writeBackId]));
  const list = await listOrderWriteBacks(db, accountId, reference);
  return list.find((w) => w.id === writeBackId)!;
}

/**
 * After a connection is resumed: a message for each of its waiting write-backs that nothing holds
 * up (the others follow them). The cron's safety net does the same within a few minutes should
 * this not run. Returns the ids it kicked.
 */
export async function kickWriteBacks(db: Db, pipeline: Pipeline, connectionId: number): Promise<number[]> {
  const [waiting] = await db.$client.batch<{ id: number }>(
    [
      sql`SELECT w.id FROM shop_write_backs w WHERE w.connection_id = ${connectionId} AND w.status = 'pending'
        AND NOT EXISTS (${earlierUnfinished(sql`w`)}) ORDER BY w.id`,
    ].map((q) => toStatement(db, q)),
  );
  const ids = waiting.results.map((r) => r.id);
  await pipeline.send(writeBackMessages(ids));
  return ids;
}
