// The one outbound engine: the machinery every job that talks to the outside runs on (webhook
// deliveries to the shop, dispatches and cancellation requests to suppliers, write-backs into the
// shop, stock-sync pages). A job keeps its own table and its adapter call; the engine owns the rest:
//   - the claim: one guarded UPDATE takes the row for one attempt (attempts + 1) under a lease, when
//     it waits and is due, or when the attempt holding it died (its lease ran out);
//   - the lease: renewed while the attempt is alive (a heartbeat, and before a call that would not
//     end inside it), so a lease that ran out means a dead attempt, and a crash is taken over after
//     about one lease; every write after the claim is guarded by the lease the attempt holds;
//   - the next step after a failure: one backoff formula (exponential, with jitter, never before a
//     Retry-After, never past the job's cap), or parked after the last attempt;
//   - replay: a parked job back to waiting with a fresh round of attempts;
//   - the attempt log of jobs that keep it in a JSON column.
// The numbers (lease, base, cap, attempts) are the job's settings, in one table: OUTBOUND_JOBS.
import { sql, type SQL } from "drizzle-orm";
import { toStatement, type Db, type Row } from "../db";
import { expectChanges, runGuarded } from "../db/guards";
import type { Bindings } from "../env";
import { sendSettings } from "./outbound";
import { isoMicro } from "./time";

/** Cloudflare Queues delays a message by at most 12 hours: no cap may be longer. */
export const QUEUE_MAX_DELAY_SECONDS = 12 * 60 * 60;

/** The outbound jobs. */
export type OutboundJobName = "webhook_delivery" | "dispatch" | "cancellation" | "return_notice" | "write_back" | "stock_page";

/**
 * A job's numbers. `leaseCalls` x the call time box + `leaseMarginMs` is a lease's length: the
 * calls an attempt may make before it must renew, and the work around them. `capSeconds`: no wait
 * between attempts is longer (the sweepers' staleness follows from it).
 */
export type JobNumbers = { leaseCalls: number; leaseMarginMs: number; capSeconds: number; retryAfterDefaultSeconds: number };

/**
 * The settings of every outbound job (docs/operations.md, "Outbound jobs"). The base of the backoff,
 * the attempts and the call time box are the deployment's (RETRY_BASE_SECONDS, SEND_MAX_ATTEMPTS,
 * OUTBOUND_TIMEOUT_MS), the same for every job.
 */
export const OUTBOUND_JOBS: Record<OutboundJobName, JobNumbers> = {
  // One POST to the shop's endpoint.
  webhook_delivery: { leaseCalls: 1, leaseMarginMs: 60_000, capSeconds: QUEUE_MAX_DELAY_SECONDS, retryAfterDefaultSeconds: 0 },
  // One send on the supplier's channel (a file upload may run past one time box: its margin covers it).
  // A queued dispatch untouched past its cap has lost its message: the sweeper hands it on.
  dispatch: { leaseCalls: 1, leaseMarginMs: 60_000, capSeconds: 60 * 60, retryAfterDefaultSeconds: 0 },
  cancellation: { leaseCalls: 1, leaseMarginMs: 60_000, capSeconds: 60 * 60, retryAfterDefaultSeconds: 0 },
  // A return's notice to its supplier (src/returns/notices.service.ts): one send, as a cancellation.
  return_notice: { leaseCalls: 1, leaseMarginMs: 60_000, capSeconds: 60 * 60, retryAfterDefaultSeconds: 0 },
  // Up to six calls (the lookup, a look after an unclear outcome, the writes), renewed before each.
  write_back: { leaseCalls: 2, leaseMarginMs: 5_000, capSeconds: QUEUE_MAX_DELAY_SECONDS, retryAfterDefaultSeconds: 0 },
  // A page's requests (its listing, the batch write, the look after an unclear one); a 429 without
  // Retry-After waits a minute.
  stock_page: { leaseCalls: 4, leaseMarginMs: 60_000, capSeconds: 60 * 60, retryAfterDefaultSeconds: 60 },
};

/** A job's settings as this deployment runs it. */
export type JobSettings = JobNumbers & { job: OutboundJobName; timeoutMs: number; leaseMs: number; baseSeconds: number; maxAttempts: number };

export function jobSettings(env: Bindings, job: OutboundJobName): JobSettings {
  const numbers = OUTBOUND_JOBS[job];
  const { timeoutMs, retryBaseSeconds, maxAttempts } = sendSettings(env);
  return { ...numbers, job, timeoutMs, leaseMs: numbers.leaseCalls * timeoutMs + numbers.leaseMarginMs, baseSeconds: retryBaseSeconds, maxAttempts };
}

// ---- Backoff, cap, park ----------------------------------------------------------------------

/**
 * THE backoff: seconds before the next attempt after `attempts` failed ones. base x 2^(n-1), of
 * which a random half is taken off (jitter: jobs that failed together, say a shop down for a
 * minute, do not come back together); never before the other side's Retry-After; never past the
 * job's cap (nor the queue's 12 hours), Retry-After included.
 */
export function backoffSeconds(
  s: Pick<JobSettings, "baseSeconds" | "capSeconds">,
  attempts: number,
  retryAfterSeconds: number | null = null,
  random = Math.random(),
): number {
  const backoff = s.baseSeconds * 2 ** Math.max(0, attempts - 1);
  const jittered = backoff / 2 + (backoff / 2) * Math.min(1, Math.max(0, random));
  const cap = Math.min(s.capSeconds, QUEUE_MAX_DELAY_SECONDS);
  return Math.min(cap, Math.ceil(Math.max(jittered, retryAfterSeconds ?? 0)));
}

/** A wait the other side asked for (a 429) that counts no attempt: its Retry-After, or the job's default, capped. */
export function retryAfterSeconds(s: Pick<JobSettings, "capSeconds" | "retryAfterDefaultSeconds">, asked: number | null): number {
  return Math.min(s.capSeconds, QUEUE_MAX_DELAY_SECONDS, Math.max(1, asked ?? s.retryAfterDefaultSeconds));
}

/** What follows a failed attempt: another after `delaySeconds`, or parked (the last attempt, or one a retry cannot help). */
export type NextStep = { retry: true; delaySeconds: number } | { retry: false };

export function afterFailure(s: JobSettings, attempts: number, failure: { final?: boolean; retryAfterSeconds?: number | null } = {}): NextStep {
  if (failure.final || attempts >= s.maxAttempts) return { retry: false };
  return { retry: true, delaySeconds: backoffSeconds(s, attempts, failure.retryAfterSeconds ?? null) };
}

/** A Retry-After header in seconds (a number of seconds, or an HTTP date); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Seconds from `from` until a lease or due time ends (a message to look again then), within the queue's limit. */
export const secondsUntil = (until: string, from = Date.now()) => Math.max(0, Math.min(QUEUE_MAX_DELAY_SECONDS, Math.ceil((Date.parse(until) - from) / 1000)));

/** When a retry `delaySeconds` from now is due. */
export const dueAt = (delaySeconds: number, from = Date.now()) => isoMicro(new Date(from + delaySeconds * 1000));

// ---- The job's table -------------------------------------------------------------------------

/**
 * How a job's table keeps the engine's columns: `status`, `attempts`, `lease_until` (and
 * `updated_at` when it has one). `waiting`: the status of a job waiting for an attempt; `busy`: while
 * an attempt holds the lease; `parked`: after the last attempt. A retry's due time is kept in
 * `lease_until` of a waiting row (deliveries, write-backs) or in a column of its own (`dueColumn`).
 */
export type JobTable = {
  table: string;
  waiting: string;
  busy: string;
  parked: string;
  dueIn: "lease_until" | "none" | { column: string };
  touches: boolean;
};

/** A retry message may run this much before its due time (clocks, rounding) and still count. */
export const DUE_TOLERANCE_MS = 1000;

/** The rows of `t` an attempt may take now: waiting and due, or busy past a lease that ran out. */
export function takeable(t: JobTable, at: Date): SQL {
  const now = isoMicro(at);
  const dueBy = isoMicro(new Date(at.getTime() + DUE_TOLERANCE_MS));
  const status = sql.raw("status");
  const lease = sql.raw("lease_until");
  const dueWaiting = t.dueIn === "lease_until" ? sql` AND (${lease} IS NULL OR ${lease} <= ${dueBy})` : sql``;
  const dueOwn = typeof t.dueIn === "object" ? sql` AND (${sql.raw(t.dueIn.column)} IS NULL OR ${sql.raw(t.dueIn.column)} <= ${dueBy})` : sql``;
  return sql`(((${status} = ${t.waiting}${dueWaiting}) OR (${status} = ${t.busy} AND (${lease} IS NULL OR ${lease} < ${now})))${dueOwn})`;
}

/**
 * The claim of row `id` for one attempt, as one statement returning the claimed row (none when it
 * is done, not due, or another attempt holds it). `where`: the job's own conditions (a paused
 * connection, an earlier write-back first); `set`: what else the claim records. Placed in a batch,
 * the statements after it see exactly what it claimed.
 */
export function claimStatement(t: JobTable, id: number, lease: Lease, opts: { now?: Date; where?: SQL; set?: SQL; returning?: boolean } = {}): SQL {
  const now = opts.now ?? new Date();
  const at = isoMicro(now);
  return sql`UPDATE ${sql.raw(t.table)} SET ${opts.set ? sql`${opts.set}, ` : sql``}status = ${t.busy}, attempts = attempts + 1, lease_until = ${lease.until}${t.touches ? sql`, updated_at = ${at}` : sql``}
    WHERE id = ${id} AND ${takeable(t, now)}${opts.where ? sql` AND ${opts.where}` : sql``}${opts.returning === false ? sql`` : sql` RETURNING *`}`;
}

/** Claims row `id` for one attempt; its row as stored (snake_case), or undefined. */
export async function claim(db: Db, t: JobTable, id: number, lease: Lease, opts: { now?: Date; where?: SQL; set?: SQL } = {}): Promise<Row | undefined> {
  const { results } = await toStatement(db, claimStatement(t, id, lease, opts)).all<Row>();
  return results[0];
}

/** The guard of every write after the claim: the row is still busy under the lease this attempt holds. */
export function heldBy(t: JobTable, id: number | SQL, lease: string): SQL {
  return sql`(${sql.raw(t.table)}.id = ${id} AND ${sql.raw(t.table)}.status = ${t.busy} AND ${sql.raw(t.table)}.lease_until = ${lease})`;
}

/**
 * Every write after the claim: the row's own UPDATE (`set`), only while this attempt still holds
 * its lease, then whatever goes with it. When the lease is gone (it ran out and another attempt took
 * over), the batch aborts and nothing of it is written: false.
 */
export async function underLease(db: Db, t: JobTable, id: number, lease: Lease | string, set: SQL, then: SQL[] = []): Promise<boolean> {
  const until = typeof lease === "string" ? lease : await lease.release();
  if (until === null) return false;
  return runGuarded(db, [
    sql`UPDATE ${sql.raw(t.table)} SET ${set}${t.touches ? sql`, updated_at = ${isoMicro()}` : sql``} WHERE ${heldBy(t, id, until)}`,
    expectChanges(1),
    ...then,
  ]);
}

/**
 * A parked job (`where` picks it, over the job's table) back to waiting with a fresh round of
 * attempts, as one statement returning its id: of two replays at once, one gets through. `from`:
 * the statuses a replay starts from, when a job may be replayed from more than parked (a webhook
 * delivery is sent again after it was delivered too).
 */
export function replayStatement(t: JobTable, where: SQL, opts: { set?: SQL; from?: string[]; at?: string } = {}): SQL {
  const due = typeof t.dueIn === "object" ? sql`, ${sql.raw(t.dueIn.column)} = NULL` : sql``;
  const from = opts.from ?? [t.parked];
  return sql`UPDATE ${sql.raw(t.table)} SET ${opts.set ? sql`${opts.set}, ` : sql``}status = ${t.waiting}, attempts = 0, lease_until = NULL${due}${t.touches ? sql`, updated_at = ${opts.at ?? isoMicro()}` : sql``}
    WHERE ${where} AND ${sql.raw(t.table)}.status IN (${sql.join(from.map((f) => sql`${f}`), sql`, `)}) RETURNING id`;
}

/**
 * `column` with `entry` (JSON text) appended, keeping the last `kept`: the attempt log of a job that
 * keeps it in its row, as part of the UPDATE that records the attempt's outcome.
 */
export function appendAttempt(column: string, entry: SQL, kept: number): SQL {
  const c = sql.raw(column);
  return sql`${c} = json_insert(CASE WHEN json_array_length(coalesce(${c}, '[]')) >= ${kept} THEN json_remove(${c}, '$[0]')
      ELSE coalesce(${c}, '[]') END, '$[#]', json(${entry}))`;
}

// ---- The lease -------------------------------------------------------------------------------

/**
 * The lease one attempt holds on one row. `until` is what the row says while it is held; it moves on
 * each renewal. A heartbeat (hold) renews it while the attempt lives, every third of its length, so
 * it runs out only when the Worker stopped; `renewIfShort` renews it before a call that would not end
 * inside it. Once a renewal finds the row no longer held (another attempt took over), the lease is
 * lost: `until` is null and every guarded write refuses.
 */
export class Lease {
  until: string;
  lost = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private pending: Promise<void> = Promise.resolve();
  private db: Db | undefined;
  private id = 0;
  private t: JobTable | undefined;

  constructor(
    readonly ms: number,
    startedAt = new Date(),
    until?: string,
  ) {
    this.until = until ?? isoMicro(new Date(startedAt.getTime() + ms));
  }

  static for(s: Pick<JobSettings, "leaseMs">, startedAt = new Date()): Lease {
    return new Lease(s.leaseMs, startedAt);
  }

  /** The row this lease is on, once claimed: renewals guard on it. */
  on(db: Db, t: JobTable, id: number): this {
    this.db = db;
    this.t = t;
    this.id = id;
    return this;
  }

  /** Starts the heartbeat; `release` stops it. */
  hold(): this {
    if (!this.timer && this.db) this.timer = setInterval(() => void this.renew().catch(() => undefined), Math.max(250, Math.floor(this.ms / 3)));
    return this;
  }

  /** Renews now (after any renewal under way): true while held. */
  renew(): Promise<boolean> {
    this.pending = this.pending.then(() => this.renewNow());
    return this.pending.then(() => !this.lost);
  }

  /** Renews when less than `neededMs` is left of the lease: true while held. */
  async renewIfShort(neededMs: number): Promise<boolean> {
    await this.pending;
    if (this.lost) return false;
    if (Date.parse(this.until) - Date.now() >= neededMs) return true;
    return this.renew();
  }

  /** Stops the heartbeat, waits for a renewal under way: the lease to guard the attempt's last writes with, or null when it was lost. */
  async release(): Promise<string | null> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.pending;
    return this.lost ? null : this.until;
  }

  private async renewNow(): Promise<void> {
    if (this.lost || !this.db || !this.t) return;
    const next = isoMicro(new Date(Date.now() + this.ms));
    if (next <= this.until) return;
    const { results } = await toStatement(
      this.db,
      sql`UPDATE ${sql.raw(this.t.table)} SET lease_until = ${next} WHERE ${heldBy(this.t, this.id, this.until)} RETURNING id`,
    ).all<{ id: number }>();
    if (results.length === 0) this.lost = true;
    else this.until = next;
  }
}
