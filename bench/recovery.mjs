// The pipeline's pace and its recovery after a crash (issue 21), on a `wrangler dev` with the queue
// consumer attached:
// - pace: creates at the bench's concurrency for a while, the orders still owed routing (routed_at
//   null) sampled from the shard's D1 file every half second: does the consumer keep up?
// - crash: creates again, then the dev server killed at once (SIGKILL: the queue's in-memory
//   messages are lost with it, as a crash loses what it had not sent), started again, the cron fired
//   at once and then every minute as `npm start` does; how long until every order created before
//   the crash is routed, from the restart.
// The orders counted are this measurement's own (created_at from its start on), read with node:sqlite
// from the file workerd writes (read-only; a busy read is tried again).
import autocannon from "autocannon";
import { DatabaseSync } from "node:sqlite";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Orders created since `since` (ISO) and still owed routing, on the shard's file. */
function unrouted(file, since) {
  for (let i = 0; ; i++) {
    try {
      const db = new DatabaseSync(file, { readOnly: true });
      try {
        return Number(db.prepare("SELECT count(*) AS n FROM orders WHERE routed_at IS NULL AND created_at >= ?").get(since).n);
      } finally {
        db.close();
      }
    } catch (error) {
      if (i >= 20) throw error;
    }
  }
}

function creates(base, headers, createW, seconds, connections, onInstance = () => {}) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: base,
        connections,
        duration: seconds,
        requests: [{ setupRequest: (req) => ({ ...req, ...createW.request(), headers: headers() }) }],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    onInstance(instance);
  });
}

/** While `promise` runs: the backlog every half second. */
async function sampled(file, since, promise) {
  const samples = [];
  let done = false;
  promise.finally(() => (done = true));
  while (!done) {
    samples.push(unrouted(file, since));
    await sleep(500);
  }
  return { result: await promise, samples };
}

/**
 * `start()` starts the dev server (consumer attached) and answers { base, stop, kill }; `file` is
 * the benchmarked account's shard file in the run copy.
 */
export async function measureRecovery({ start, file, headers, createW, seconds, connections, log = console.log }) {
  const out = {};
  let worker = await start();
  try {
    // Pace.
    const since = new Date().toISOString();
    const { result, samples } = await sampled(file, since, creates(worker.base, headers, createW, seconds, connections));
    const created = result["2xx"];
    const atEnd = unrouted(file, since);
    const drainStart = Date.now();
    while (unrouted(file, since) > 0 && Date.now() - drainStart < 180_000) await sleep(500);
    out.pace = {
      seconds,
      created,
      createRate: created / seconds,
      routedRate: (created - atEnd) / seconds,
      maxBacklog: Math.max(0, ...samples),
      backlogAtEnd: atEnd,
      drainSeconds: (Date.now() - drainStart) / 1000,
    };
    log(`  pace: ${created} orders created in ${seconds} s; owed routing at most ${out.pace.maxBacklog}, ${atEnd} at the end, drained ${out.pace.drainSeconds.toFixed(1)} s later`);

    // Crash.
    const crashSince = new Date().toISOString();
    let instance = null;
    const load = creates(worker.base, headers, createW, 60, connections, (i) => (instance = i));
    await sleep(Math.min(3, seconds) * 1000);
    const beforeKill = unrouted(file, crashSince);
    await worker.kill();
    instance?.stop();
    const crashed = await load.catch(() => null);
    const lost = unrouted(file, crashSince);
    log(`  (crash load: ${crashed?.["2xx"] ?? "?"} orders answered 200; ${beforeKill} owed routing just before the kill)`);
    worker = await start();
    const restart = Date.now();
    const tick = async () => fetch(`${worker.base}/cdn-cgi/local/scheduled?cron=${encodeURIComponent("* * * * *")}`).catch(() => null);
    await tick();
    let nextTick = restart + 60_000;
    let left = lost;
    while (left > 0 && Date.now() - restart < 300_000) {
      await sleep(500);
      if (Date.now() >= nextTick) {
        await tick();
        nextTick += 60_000;
      }
      left = unrouted(file, crashSince);
    }
    out.crash = { ownedAtCrash: lost, routedSecondsAfterRestart: left === 0 ? (Date.now() - restart) / 1000 : null, left };
    log(
      `  crash: ${lost} orders owed routing when the dev server was killed; ` +
        (left === 0 ? `all routed ${out.crash.routedSecondsAfterRestart.toFixed(1)} s after the restart` : `${left} still owed 300 s after the restart`),
    );
  } finally {
    await worker.stop();
  }
  return out;
}

/** The measurement as a few lines of the report. */
export function recoveryReport(r) {
  if (!r) return "";
  const { pace, crash } = r;
  const fmt = (n) => (n === null || n === undefined ? "–" : Number(n).toFixed(1));
  return [
    "The pipeline's pace and its recovery after a crash (bench/recovery.mjs; docs/operations.md, \"After a crash\"):",
    "",
    "| measure | value | bound | |",
    "|---|---:|---|---|",
    `| creates per second (queue consumer attached) | ${fmt(pace.createRate)} | | |`,
    `| orders routed per second meanwhile | ${fmt(pace.routedRate)} | keeps pace | ${pace.backlogAtEnd <= Math.max(50, pace.createRate * 5) ? "ok" : "MISSED"} |`,
    `| orders owed routing: most at once / at the end of the load | ${pace.maxBacklog} / ${pace.backlogAtEnd} | | |`,
    `| seconds to drain after the load | ${fmt(pace.drainSeconds)} | | |`,
    `| orders owed routing when the dev server was killed | ${crash.ownedAtCrash} | | |`,
    `| seconds from the restart until all of them were routed | ${fmt(crash.routedSecondsAfterRestart)} | ≤ 90 | ${crash.routedSecondsAfterRestart !== null && crash.routedSecondsAfterRestart <= 90 ? "ok" : "MISSED"} |`,
  ].join("\n");
}
