// The crash of answer files being applied (issue 30): a supplier on the file channel (vsftpd,
// ./file-server.mjs) with an inbound and an archive folder; `orders` orders of `lines` lines
// (quantity 2) sent to it through the public API; then `files` answer files dropped in its inbound
// folder, two rows per line: a shipment of 1 with a tracking number, and a shipment of 1 with
// neither tracking number nor shipment id (recorded under the file's and row's own id). The cron
// reads them (src/forwarding/inbound-files.service.ts); the server's whole process group is killed
// (SIGKILL) while a file is being applied, started again with the cron fired as `npm start` fires
// it, and left to finish. Then counted from D1 and the FTP server's folders: each line shipped
// exactly 2 (two shipments: none lost, none twice), each file archived once, none left behind.
//
// Alone: node bench/recovery/answer-files.mjs [--orders 10] [--lines 40] [--files 4] [--kills 1]
import { chownSync, mkdirSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { startFileServer } from "./file-server.mjs";
import { createOrders, dispatchesSettled, fileSupplierAccount } from "./file-uploads.mjs";
import { accountShardFile, benchVars, freshState, query, startWorker } from "./worker.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

async function fireCron(base) {
  try {
    await (await fetch(`${base}/cdn-cgi/local/scheduled?cron=${encodeURIComponent("* * * * *")}`)).body?.cancel();
  } catch {}
}

export async function measureAnswerFileCrash({ orders = 10, lines = 40, files = 4, kills = 1, log = console.log } = {}) {
  const dataDir = join(root, "bench", ".data");
  mkdirSync(dataDir, { recursive: true });
  const dir = join(dataDir, "crash-answer-files");
  log("  (a fresh local D1 with every migration…)");
  freshState(root, dir);
  const vars = benchVars();
  const start = () => startWorker(root, dir, vars, join(dataDir, "crash-wrangler.log"));
  const ftp = await startFileServer(root);
  let worker = await start();
  const inbound = join(ftp.home, "inbound");
  const archive = join(ftp.home, "archive");
  try {
    const { headers } = await fileSupplierAccount(worker, vars, ftp, { inbound: true });
    await createOrders(worker.base, headers, orders, lines, "ans");
    const file = accountShardFile(dir);
    worker.cron();
    if (!(await dispatchesSettled(file, orders, 300_000))) throw new Error("the orders did not reach the supplier");
    const lineRows = query(file, "SELECT id FROM order_lines ORDER BY id");
    log(`  ${lineRows.length} lines at the supplier; ${files} answer files of ${(2 * lineRows.length) / files} rows`);

    // The answer files, written under a dot-name and renamed, as a supplier's upload does.
    const per = Math.ceil(lineRows.length / files);
    const names = [];
    for (let k = 0; k < files; k++) {
      const mine = lineRows.slice(k * per, (k + 1) * per);
      const rows = mine.flatMap((l) => [`${l.id},ship,1,PostNL,3SANS${l.id}`, `${l.id},ship,1,,`]);
      const name = `answers-${k}.csv`;
      const tmp = join(inbound, `.${name}.part`);
      writeFileSync(tmp, `line_id,action,quantity,carrier,tracking_number\n${rows.join("\n")}\n`);
      chownSync(tmp, ftp.uid, ftp.gid);
      renameSync(tmp, join(inbound, name));
      names.push(name);
    }
    const shipments = () => query(file, "SELECT count(*) AS n FROM shipments")[0].n;
    const started = Date.now();
    const before = shipments();
    // Not awaited: the local scheduled endpoint answers only when the cron run has ended.
    void fireCron(worker.base);

    const rounds = [];
    for (let k = 0; k < kills; k++) {
      // While a file is being applied: claimed ('processing') and some of its rows' shipments in.
      const roundStart = Date.now();
      for (let i = 0; i < 6000; i++) {
        const [p] = query(file, "SELECT count(*) AS n FROM inbound_files WHERE status = 'processing'");
        if ((p.n > 0 && shipments() > before) || Date.now() - roundStart > 180_000) break;
        await sleep(20);
      }
      await worker.kill();
      const killedAt = Date.now();
      const processing = query(file, "SELECT name FROM inbound_files WHERE status = 'processing'").map((r) => r.name);
      const atKill = shipments();
      worker = await start();
      const restartedAt = Date.now();
      worker.cron();
      let firstWrite = null;
      for (let i = 0; i < 1800 && firstWrite === null; i++) {
        if (shipments() > atKill) firstWrite = Date.now();
        else await sleep(500);
      }
      rounds.push({ processing, shipmentsAtKill: atKill, downSeconds: (restartedAt - killedAt) / 1000, restartToFirstWrite: firstWrite === null ? null : (firstWrite - restartedAt) / 1000 });
      log(`    kill ${k + 1}: ${processing.length} file(s) being applied (${processing.join(", ")}), ${atKill} of ${2 * lineRows.length} shipments in; first shipment ${firstWrite === null ? "never (15 min)" : `${((firstWrite - restartedAt) / 1000).toFixed(1)} s`} after the restart`);
    }
    // To the end: every file recorded and none left in the inbound folder (at most 15 minutes).
    let done = false;
    for (let i = 0; i < 900 && !done; i++) {
      const [open] = query(file, "SELECT count(*) AS n FROM inbound_files WHERE status = 'processing'");
      done = open.n === 0 && readdirSync(inbound).filter((f) => !f.startsWith(".")).length === 0;
      if (!done) await sleep(1000);
    }
    const seconds = (Date.now() - started) / 1000;

    const perLine = query(file, "SELECT l.id, count(s.id) AS n, coalesce(sum(s.quantity), 0) AS q FROM order_lines l LEFT JOIN shipments s ON s.order_line_id = l.id GROUP BY l.id");
    const records = query(file, "SELECT name, status, rows_applied, rows_refused FROM inbound_files ORDER BY id");
    const archived = readdirSync(archive);
    return {
      orders,
      lines: perLine.length,
      files,
      rounds,
      done,
      seconds,
      once: perLine.filter((l) => l.n === 2 && l.q === 2).length,
      twice: perLine.filter((l) => l.n > 2 || l.q > 2).length,
      lost: perLine.filter((l) => l.n < 2 || l.q < 2).length,
      archivedOnce: names.filter((n) => archived.filter((a) => a === n).length === 1).length,
      leftInInbound: readdirSync(inbound).length,
      records: records.map((r) => `${r.name}: ${r.status}, ${r.rows_applied ?? 0} applied, ${r.rows_refused ?? 0} refused`),
    };
  } finally {
    await worker.stop();
    await ftp.close();
  }
}

export function answerFileCrashReport(r) {
  return [
    `Answer files killed while being applied (bench/recovery/answer-files.mjs): ${r.orders} orders of ${r.lines / r.orders} lines (quantity 2) at a file supplier on vsftpd; ${r.files} answer files, two shipment rows of 1 per line (one with a tracking number, one with neither it nor a shipment id).`,
    "",
    "| kill | files being applied | shipments in at the kill | seconds down | restart to the first shipment recorded (s) |",
    "|---:|---|---:|---:|---:|",
    ...r.rounds.map((x, i) => `| ${i + 1} | ${x.processing.join(", ") || "–"} | ${x.shipmentsAtKill} of ${2 * r.lines} | ${x.downSeconds.toFixed(1)} | ${x.restartToFirstWrite === null ? "–" : x.restartToFirstWrite.toFixed(1)} |`),
    "",
    "| lines | shipped exactly 2 (once) | more (twice) | less (lost) | files archived once | left in the inbound folder | seconds |",
    "|---:|---:|---:|---:|---:|---:|---:|",
    `| ${r.lines} | ${r.once} | ${r.twice} | ${r.lost} | ${r.archivedOnce} of ${r.files} | ${r.leftInInbound} | ${r.seconds.toFixed(0)}${r.done ? "" : " (NOT done in 15 min)"} |`,
    "",
    `The files as recorded: ${r.records.join("; ")}.`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { orders: { type: "string", default: "10" }, lines: { type: "string", default: "40" }, files: { type: "string", default: "4" }, kills: { type: "string", default: "1" } } });
  const r = await measureAnswerFileCrash({ orders: Number(values.orders), lines: Number(values.lines), files: Number(values.files), kills: Number(values.kills) });
  console.log(`\n${answerFileCrashReport(r)}`);
  console.log(`\n(${new Date().toISOString()}, load average ${(await import("node:os")).loadavg().map((l) => l.toFixed(1)).join(" ")})`);
}
