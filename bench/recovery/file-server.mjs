// A supplier's FTP server for the crash phases of the file channel: Debian's vsftpd, as the tests
// run it (test/lib/file-transfer/ftp-server.global.ts: its system user, PAM service and config),
// on a free loopback port over a folder of its own, optionally throttled (vsftpd's
// `local_max_rate`, bytes per second per transfer: a slow server, so a kill lands mid-upload).
// Every FTP command is logged (log_ftp_protocol), so a phase can count the renames that put files
// in place.
import { build } from "esbuild";
import { spawn } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export async function startFileServer(root, { maxRate = 0, folders = ["orders", "inbound", "archive"] } = {}) {
  const outfile = join(root, "bench", ".data", "crash-ftp-server.mjs");
  await build({ entryPoints: [join(root, "test", "lib", "file-transfer", "ftp-server.global.ts")], bundle: true, platform: "node", format: "esm", outfile, logLevel: "error", packages: "external" });
  const tests = await import(pathToFileURL(outfile).href);
  // The tests' set-up makes the user and the PAM service (idempotent); its servers are stopped at once.
  const teardown = await tests.default({ provide: () => {} });
  await teardown();
  const { execFileSync } = await import("node:child_process");
  const uid = Number(execFileSync("id", ["-u", "ordertest-ftp"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "ordertest-ftp"], { encoding: "utf8" }).trim());
  const dir = mkdtempSync(join(tmpdir(), "crash-ftp-"));
  chmodSync(dir, 0o755);
  const home = join(dir, "root");
  for (const sub of ["", ...folders]) {
    mkdirSync(join(home, sub), { recursive: true });
    chownSync(join(home, sub), uid, gid);
  }
  const empty = join(dir, "empty");
  mkdirSync(empty);
  const port = await tests.freePort();
  const [pasvMin, pasvMax] = await tests.freePortRange(40);
  const log = join(dir, "vsftpd.log");
  const config = join(dir, "vsftpd.conf");
  writeFileSync(
    config,
    [
      "listen=YES",
      "listen_ipv6=NO",
      "listen_address=127.0.0.1",
      `listen_port=${port}`,
      "background=NO",
      "anonymous_enable=NO",
      "local_enable=YES",
      "write_enable=YES",
      "local_umask=022",
      `local_root=${home}`,
      "pam_service_name=order-intake-ftp-test",
      `secure_chroot_dir=${empty}`,
      "connect_from_port_20=NO",
      "pasv_enable=YES",
      "pasv_address=127.0.0.1",
      `pasv_min_port=${pasvMin}`,
      `pasv_max_port=${pasvMax}`,
      "isolate=NO",
      "isolate_network=NO",
      "seccomp_sandbox=NO",
      "max_per_ip=0",
      "max_clients=0",
      "delay_failed_login=0",
      "force_dot_files=YES",
      ...(maxRate ? [`local_max_rate=${maxRate}`] : []),
      "log_ftp_protocol=YES",
      "xferlog_enable=YES",
      "xferlog_std_format=NO",
      `vsftpd_log_file=${log}`,
      "",
    ].join("\n"),
  );
  chmodSync(config, 0o600);
  const child = spawn("/usr/sbin/vsftpd", [config], { stdio: "ignore" });
  await tests.waitForGreeting(port, Date.now() + 10_000);
  return {
    host: "127.0.0.1",
    port,
    username: "ordertest-ftp",
    password: "ordertest-ftp-password",
    /** The server's folder on this machine (its FTP root). */
    home,
    uid,
    gid,
    /** Each successful rename's target, as the server logged it (an RNTO answered 250). */
    renames() {
      let text = "";
      try {
        text = readFileSync(log, "utf8");
      } catch {}
      const pendingByPid = new Map();
      const out = [];
      for (const line of text.split("\n")) {
        const pid = line.match(/\[pid (\d+)\]/)?.[1];
        const cmd = line.match(/FTP command: Client "[^"]*", "RNTO (.*)"$/);
        if (cmd) pendingByPid.set(pid, cmd[1]);
        const ok = line.match(/FTP response: Client "[^"]*", "250 /);
        if (ok && pendingByPid.has(pid)) {
          out.push(pendingByPid.get(pid));
          pendingByPid.delete(pid);
        } else if (line.includes("FTP response") && pendingByPid.has(pid) && !line.includes('"350 ')) pendingByPid.delete(pid);
      }
      return out;
    },
    async close() {
      const gone = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await gone;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
