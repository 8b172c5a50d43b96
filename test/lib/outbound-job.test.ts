// The outbound engine on the real local D1: claims under a lease, renewal while an attempt lives,
// the takeover of a dead attempt, the one backoff (jitter, Retry-After, cap), parking and replay.
// It runs on a table of its own shaped as every job's table is (status, attempts, lease_until,
// updated_at): the jobs' own tests show each job on it.
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb, toStatement } from "../../src/db";
import {
  afterFailure,
  appendAttempt,
  backoffSeconds,
  claim,
  jobSettings,
  Lease,
  OUTBOUND_JOBS,
  QUEUE_MAX_DELAY_SECONDS,
  replayStatement,
  retryAfterSeconds,
  underLease,
  type JobTable,
} from "../../src/lib/outbound-job";
import { isoMicro } from "../../src/lib/time";
import { exec, rows } from "../helpers/factories";
import { waitFor } from "../helpers/wait";

const JOBS: JobTable = { table: "engine_test_jobs", waiting: "queued", busy: "sending", parked: "failed", dueIn: "lease_until", touches: true };
const db = createDb(env.DB);

beforeAll(async () => {
  await exec(`CREATE TABLE IF NOT EXISTS engine_test_jobs (id INTEGER PRIMARY KEY, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
    lease_until TEXT, updated_at TEXT NOT NULL, attempt_log TEXT)`);
});

let nextId = 1;
async function job(fields: { status?: string; attempts?: number; lease_until?: string | null } = {}) {
  const id = nextId++;
  await exec("INSERT INTO engine_test_jobs (id, status, attempts, lease_until, updated_at) VALUES (?, ?, ?, ?, ?)", id, fields.status ?? "queued", fields.attempts ?? 0, fields.lease_until ?? null, isoMicro());
  return id;
}
const stored = async (id: number) => (await rows<{ status: string; attempts: number; lease_until: string | null; attempt_log: string | null }>("SELECT * FROM engine_test_jobs WHERE id = ?", id))[0];
const secondsFromNow = (s: number) => isoMicro(new Date(Date.now() + s * 1000));

describe("claim and lease", () => {
  it("claims a waiting job for one attempt under its lease, and refuses a second claim while it is held", async () => {
    const id = await job();
    const lease = new Lease(60_000);
    const row = await claim(db, JOBS, id, lease);
    expect(row).toMatchObject({ id, status: "sending", attempts: 1, lease_until: lease.until });
    expect(await claim(db, JOBS, id, new Lease(60_000))).toBeUndefined();
    expect(await stored(id)).toMatchObject({ status: "sending", attempts: 1, lease_until: lease.until });
  });

  it("takes over a job whose attempt died (its lease ran out), and the dead attempt writes nothing after", async () => {
    const id = await job();
    const dead = new Lease(60_000, new Date(Date.now() - 120_000));
    await claim(db, JOBS, id, dead, { now: new Date(Date.now() - 120_000) });
    const next = new Lease(60_000);
    expect(await claim(db, JOBS, id, next)).toMatchObject({ status: "sending", attempts: 2, lease_until: next.until });
    expect(await underLease(db, JOBS, id, dead, sql`status = 'sent', lease_until = NULL`)).toBe(false);
    expect(await underLease(db, JOBS, id, next, sql`status = 'sent', lease_until = NULL`)).toBe(true);
    expect(await stored(id)).toMatchObject({ status: "sent", attempts: 2, lease_until: null });
  });

  it("does not take a waiting job before its retry is due", async () => {
    const id = await job({ status: "queued", attempts: 1, lease_until: secondsFromNow(30) });
    expect(await claim(db, JOBS, id, new Lease(60_000))).toBeUndefined();
    await exec("UPDATE engine_test_jobs SET lease_until = ? WHERE id = ?", secondsFromNow(-1), id);
    expect(await claim(db, JOBS, id, new Lease(60_000))).toMatchObject({ attempts: 2 });
  });

  it("renews a live attempt's lease (heartbeat), so no one takes it over, and its writes use the renewed lease", async () => {
    const id = await job();
    const lease = new Lease(900);
    await claim(db, JOBS, id, lease);
    const first = lease.until;
    lease.on(db, JOBS, id).hold();
    // Past the first lease's end, the row is still held: only the heartbeat kept it.
    await waitFor(async () => Date.now() > Date.parse(first) + 100 && (await stored(id)).lease_until! > isoMicro(), 5_000);
    expect(await claim(db, JOBS, id, new Lease(900))).toBeUndefined();
    expect(await underLease(db, JOBS, id, lease, sql`status = 'sent', lease_until = NULL`)).toBe(true);
    expect(await stored(id)).toMatchObject({ status: "sent", attempts: 1 });
  });

  it("renews before a call that would not end inside the lease, and knows when the lease was lost", async () => {
    const id = await job();
    const lease = new Lease(10_000);
    await claim(db, JOBS, id, lease);
    lease.on(db, JOBS, id);
    const first = lease.until;
    expect(await lease.renewIfShort(1_000)).toBe(true);
    expect(lease.until).toBe(first);
    expect(await lease.renewIfShort(20_000)).toBe(true);
    expect(lease.until > first).toBe(true);
    expect((await stored(id)).lease_until).toBe(lease.until);
    // Another attempt took the row over (as after the lease ran out): the renewal finds it lost.
    await exec("UPDATE engine_test_jobs SET lease_until = ? WHERE id = ?", secondsFromNow(120), id);
    expect(await lease.renew()).toBe(false);
    expect(await lease.release()).toBeNull();
    expect(await underLease(db, JOBS, id, lease, sql`status = 'sent'`)).toBe(false);
    expect(await stored(id)).toMatchObject({ status: "sending" });
  });
});

describe("backoff, park and replay", () => {
  const s = { ...jobSettings(env, "dispatch"), baseSeconds: 30, maxAttempts: 6 };

  it("backs off exponentially with jitter: between half and all of base x 2^(n-1)", () => {
    expect(backoffSeconds(s, 1, null, 0)).toBe(15);
    expect(backoffSeconds(s, 1, null, 1)).toBe(30);
    expect(backoffSeconds(s, 3, null, 0)).toBe(60);
    expect(backoffSeconds(s, 3, null, 1)).toBe(120);
    for (let i = 0; i < 50; i++) {
      const d = backoffSeconds(s, 4);
      expect(d).toBeGreaterThanOrEqual(120);
      expect(d).toBeLessThanOrEqual(240);
    }
  });

  it("never goes past the job's cap, and no cap past the queue's 12 hours", () => {
    expect(OUTBOUND_JOBS.dispatch.capSeconds).toBe(3600);
    expect(backoffSeconds(s, 8, null, 1)).toBe(3600);
    expect(backoffSeconds(s, 9, null, 0)).toBe(3600);
    expect(backoffSeconds(s, 7, null, 0)).toBe(960);
    expect(backoffSeconds({ baseSeconds: 30, capSeconds: 10 ** 9 }, 30, null, 0)).toBe(QUEUE_MAX_DELAY_SECONDS);
  });

  it("honours Retry-After, capped at the job's cap", () => {
    expect(backoffSeconds(s, 1, 90, 1)).toBe(90);
    expect(backoffSeconds(s, 1, 5, 1)).toBe(30);
    expect(backoffSeconds(s, 1, 3600, 0)).toBe(3600);
    expect(backoffSeconds(s, 1, 3601, 0)).toBe(3600);
    expect(retryAfterSeconds(jobSettings(env, "stock_page"), null)).toBe(60);
    expect(retryAfterSeconds(jobSettings(env, "stock_page"), 7200)).toBe(3600);
  });

  it("retries until the last attempt, then parks; a failure a retry cannot help parks at once", () => {
    expect(afterFailure(s, 5, {})).toMatchObject({ retry: true });
    expect(afterFailure(s, 6, {})).toEqual({ retry: false });
    expect(afterFailure(s, 7, {})).toEqual({ retry: false });
    expect(afterFailure(s, 1, { final: true })).toEqual({ retry: false });
    expect(afterFailure(s, 1, { retryAfterSeconds: 120 })).toEqual({ retry: true, delaySeconds: 120 });
  });

  it("replays a parked job once with a fresh round of attempts; a job that is not parked is not replayed", async () => {
    const id = await job({ status: "failed", attempts: 6 });
    const run = async () => (await toStatement(db, replayStatement(JOBS, sql`id = ${id}`)).all()).results;
    const [first, second] = await Promise.all([run(), run()]);
    expect([first.length, second.length].sort()).toEqual([0, 1]);
    expect(await stored(id)).toMatchObject({ status: "queued", attempts: 0, lease_until: null });
    expect(await claim(db, JOBS, id, new Lease(60_000))).toMatchObject({ attempts: 1 });
  });

  it("keeps the last attempts of a log kept in the row", async () => {
    const id = await job();
    for (let n = 1; n <= 4; n++) {
      await toStatement(db, sql`UPDATE engine_test_jobs SET ${appendAttempt("attempt_log", sql`${JSON.stringify({ attempt: n })}`, 3)} WHERE id = ${id}`).run();
    }
    expect(JSON.parse((await stored(id)).attempt_log!)).toEqual([{ attempt: 2 }, { attempt: 3 }, { attempt: 4 }]);
  });
});
