// vitest globalSetup: a second SSH implementation for the SFTP tests, ProFTPD's mod_sftp (Debian's
// proftpd-core and proftpd-mod-crypto), beside the OpenSSH of sftp-server.global.ts. Debian's
// ProFTPD packages conflict with its vsftpd (both provide ftp-server), which the FTP tests need, so
// `npm test` unpacks them into node_modules/.cache/debian/proftpd instead of installing them
// (scripts/test.mjs) and this runs the daemon from there, with its modules from there too.
// Everything else is in a temporary folder, removed at the end:
//   - its own Ed25519 host key, generated now (its fingerprint is what the tests pin);
//   - a test user of this run only, `oi-pftp-<6 hex>`, who exists for ProFTPD alone (its own
//     AuthUserFile, with a uid no system account has): a password and an Ed25519 key (mod_sftp reads
//     authorized keys in RFC 4716 form, as `ssh-keygen -e` writes them);
//   - sessions chrooted to the folder's root: upload/ (the test user's) and readonly/ (root's, one file);
//   - a second daemon, the same but offering only weak algorithms (SHA-1 key exchange, CBC ciphers,
//     HMAC-SHA-1), which the client must refuse in words.
// The daemon starts as root (it switches to the user per session), as the test machines run.
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

/** Where scripts/test.mjs unpacks Debian's proftpd-core and proftpd-mod-crypto. */
export const PROFTPD_ROOT = fileURLToPath(new URL("../../../node_modules/.cache/debian/proftpd", import.meta.url));
const PROFTPD = join(PROFTPD_ROOT, "usr/sbin/proftpd");
const MODULES = join(PROFTPD_ROOT, "usr/lib/proftpd");
const USER = `oi-pftp-${crypto.randomUUID().slice(0, 6)}`;
// A uid and gid of no system account: the user exists in ProFTPD's AuthUserFile only.
const UID = 61_000 + Math.floor(Math.random() * 3_000);

const run = (command: string, args: string[], input?: string) => execFileSync(command, args, { encoding: "utf8", input, stdio: ["pipe", "pipe", "pipe"] });

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

/** One ProFTPD with mod_sftp on a free loopback port; `algorithms` narrows what it offers. */
async function startProftpd(dir: string, name: string, algorithms: string[]) {
  const hostKey = join(dir, `host_${name}`);
  run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", `proftpd-tests ${name}`, "-f", hostKey]);
  const fingerprint = run("ssh-keygen", ["-l", "-E", "sha256", "-f", `${hostKey}.pub`]).split(" ")[1];
  const port = await freePort();
  const config = join(dir, `proftpd_${name}.conf`);
  writeFileSync(
    config,
    [
      "ServerType standalone",
      `ServerName "order-intake SFTP tests (${name})"`,
      `Port ${port}`,
      "DefaultAddress 127.0.0.1",
      "SocketBindTight on",
      "UseIPv6 off",
      "UseReverseDNS off",
      "WtmpLog off",
      `PidFile ${join(dir, `proftpd_${name}.pid`)}`,
      `ScoreboardFile ${join(dir, `proftpd_${name}.scoreboard`)}`,
      `DelayTable ${join(dir, `proftpd_${name}.delay`)}`,
      `SystemLog ${join(dir, `proftpd_${name}.log`)}`,
      "User nobody",
      "Group nogroup",
      `ModulePath ${MODULES}`,
      "LoadModule mod_sftp.c",
      "AuthOrder mod_auth_file.c",
      `AuthUserFile ${join(dir, "passwd")}`,
      `AuthGroupFile ${join(dir, "group")}`,
      "RequireValidShell off",
      "DefaultRoot ~",
      // The tests fail authentication on purpose and connect many times.
      "MaxLoginAttempts 20",
      "SFTPEngine on",
      `SFTPLog ${join(dir, `sftp_${name}.log`)}`,
      `SFTPHostKey ${hostKey}`,
      `SFTPAuthorizedUserKeys file:${join(dir, "authorized_keys")}/%u`,
      "SFTPAuthMethods publickey password",
      ...algorithms,
      "",
    ].join("\n"),
  );
  const daemon = spawn(PROFTPD, ["--nodaemon", "-c", config], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  daemon.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  daemon.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => daemon.once("exit", (code) => resolve(code)));
  for (let i = 0; !(await listening(port)); i++) {
    const code = await Promise.race([exited, new Promise<"waiting">((resolve) => setTimeout(() => resolve("waiting"), 100))]);
    if (code !== "waiting" || i > 100) {
      daemon.kill("SIGTERM");
      throw new Error(`proftpd (${name}) did not start on port ${port} (exit ${code}): ${output.trim().split("\n").slice(-3).join(" / ")}`);
    }
  }
  const stop = async () => {
    daemon.kill("SIGTERM");
    const timer = setTimeout(() => daemon.kill("SIGKILL"), 1000);
    await exited;
    clearTimeout(timer);
  };
  return { port, fingerprint, stop };
}

export default async function setup(project: TestProject) {
  if (!existsSync(PROFTPD) || !existsSync(join(MODULES, "mod_sftp.so"))) {
    throw new Error(`The SFTP tests run ProFTPD's mod_sftp from ${PROFTPD_ROOT}, which is missing: run them with npm test, which unpacks Debian's proftpd-core and proftpd-mod-crypto there.`);
  }
  if (process.getuid?.() !== 0) throw new Error("The SFTP tests start ProFTPD, which switches to its test user per session: run them as root (as CI does).");
  const undo: (() => unknown)[] = [];
  const teardown = async () => {
    for (const step of undo.reverse()) {
      try {
        await Promise.race([step(), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
      } catch {
        // undo the rest
      }
    }
  };
  try {
    const dir = mkdtempSync(join(tmpdir(), "proftpd-sftp-tests-"));
    undo.push(() => rmSync(dir, { recursive: true, force: true }));
    chmodSync(dir, 0o755);

    const root = join(dir, "root");
    mkdirSync(join(root, "upload"), { recursive: true });
    mkdirSync(join(root, "readonly"));
    chmodSync(root, 0o755);
    chownSync(join(root, "upload"), UID, UID);
    chmodSync(join(root, "readonly"), 0o755);
    writeFileSync(join(root, "readonly", "stock.csv"), "sku,stock\nA,1\n", { mode: 0o644 });

    // The user, for ProFTPD only: ftpasswd (shipped with ProFTPD) writes the crypt(3) SHA-512 hash.
    const password = `pw-${crypto.randomUUID()}`;
    run("perl", [join(PROFTPD_ROOT, "usr/sbin/ftpasswd"), "--passwd", `--name=${USER}`, `--uid=${UID}`, `--gid=${UID}`, `--home=${root}`, "--shell=/bin/false", `--file=${join(dir, "passwd")}`, "--stdin", "--sha512"], `${password}\n`);
    writeFileSync(join(dir, "group"), `${USER}:x:${UID}:\n`);
    // ProFTPD refuses a world-readable password file.
    chmodSync(join(dir, "passwd"), 0o600);
    chmodSync(join(dir, "group"), 0o600);

    const keyFile = join(dir, "client_ed25519");
    run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "proftpd-tests client", "-f", keyFile]);
    mkdirSync(join(dir, "authorized_keys"));
    writeFileSync(join(dir, "authorized_keys", USER), run("ssh-keygen", ["-e", "-f", `${keyFile}.pub`]));

    const main = await startProftpd(dir, "main", []);
    undo.push(main.stop);
    const weak = await startProftpd(dir, "weak", [
      "SFTPKeyExchanges diffie-hellman-group14-sha1 diffie-hellman-group1-sha1",
      "SFTPCiphers aes128-cbc aes256-cbc 3des-cbc",
      "SFTPDigests hmac-sha1 hmac-md5",
    ]);
    undo.push(weak.stop);

    project.provide("proftpdSftp", {
      host: "127.0.0.1",
      port: main.port,
      username: USER,
      password,
      privateKey: readFileSync(keyFile, "utf8"),
      hostKeyFingerprint: main.fingerprint,
      weakPort: weak.port,
    });
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}
