// vitest globalSetup: a real OpenSSH server (Debian's openssh-server, which `npm test` installs) for
// the SFTP tests, on a free loopback port, in a temporary folder that holds everything it uses:
//   - its own ed25519 host key, generated now (its fingerprint is what the tests pin);
//   - a test user of this run only, `oi-sftp-<6 hex>`, with a password and authorized keys (Ed25519
//     and RSA), all new each run. sshd authenticates system accounts only, so the user is created
//     (useradd, no home, nologin as its shell) and removed at the end (userdel): two runs on one
//     machine (two worktrees) never change each other's user;
//   - `Subsystem sftp internal-sftp`, forced for every session, starting in the folder's root:
//     upload/ (owned by the test user, writable), readonly/ (root's, with one file in it) and full/
//     (the test user's, a 64 KiB tmpfs mounted for the run: a full disk).
// Five more sshd, the same but for their algorithms: an ECDSA host key with ECDH P-256, aes256-ctr
// and hmac-sha2-256; an RSA host key (signing rsa-sha2-512), and one signing rsa-sha2-256 only; one whose only cipher is one we lack (chacha20-poly1305); and
// one that takes passwords by keyboard-interactive only (through PAM, Debian's /etc/pam.d/sshd).
// Also: a loopback server that takes connections and never says anything (a hung server), a way to
// the main sshd that cuts the connection in the middle of an upload, and a small HTTP server that shows the sshd log, so a test can tell what reached sshd.
// The user, the mount and sshd need root, which the test machines are (CI too); as another user the
// setup stops with a one-line message.
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { accountCommand } from "./system-accounts.node";

const SSHD = "/usr/sbin/sshd";
const NOLOGIN = "/usr/sbin/nologin";

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

/**
 * The run's test user: no home, no shell (sshd only checks that the shell exists; the sessions run
 * internal-sftp), with this run's password. Removed at the end of the run.
 */
function createUser(user: string, password: string): { uid: number; gid: number } {
  accountCommand("useradd", ["--no-create-home", "--shell", NOLOGIN, "--comment", "order-intake SFTP tests", user]);
  accountCommand("chpasswd", [], `${user}:${password}\n`);
  return { uid: Number(run("id", ["-u", user]).trim()), gid: Number(run("id", ["-g", user]).trim()) };
}

/** One sshd on a free loopback port with its own host key of `keyType`; `extra` changes `common` (sshd takes a keyword's first value). */
async function startSshd(dir: string, name: string, keyType: "ed25519" | "ecdsa" | "rsa", common: string[], extra: string[], onLog: (text: string) => void, bits?: number) {
  const hostKey = join(dir, `host_${name}`);
  run("ssh-keygen", ["-q", "-t", keyType, ...(bits ? ["-b", String(bits)] : []), "-N", "", "-C", `sftp-tests ${name}`, "-f", hostKey]);
  const fingerprint = run("ssh-keygen", ["-l", "-E", "sha256", "-f", `${hostKey}.pub`]).split(" ")[1];
  const port = await freePort();
  const config = join(dir, `sshd_config_${name}`);
  writeFileSync(config, [`Port ${port}`, `HostKey ${hostKey}`, `PidFile ${join(dir, `sshd_${name}.pid`)}`, ...extra, ...common, ""].join("\n"));
  const sshd = spawn(SSHD, ["-D", "-e", "-f", config], { stdio: ["ignore", "pipe", "pipe"] });
  sshd.stdout.on("data", (chunk: Buffer) => onLog(chunk.toString("utf8")));
  sshd.stderr.on("data", (chunk: Buffer) => onLog(chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => sshd.once("exit", (code) => resolve(code)));
  for (let i = 0; !(await listening(port)); i++) {
    const code = await Promise.race([exited, new Promise<"waiting">((resolve) => setTimeout(() => resolve("waiting"), 100))]);
    if (code !== "waiting" || i > 100) {
      sshd.kill("SIGTERM");
      throw new Error(`sshd (${name}) did not start on port ${port} (exit ${code})`);
    }
  }
  const stop = async () => {
    sshd.kill("SIGTERM");
    const timer = setTimeout(() => sshd.kill("SIGKILL"), 1000);
    await exited;
    clearTimeout(timer);
  };
  return { port, fingerprint, stop };
}

/** Where the server's NEWKEYS packet ends in its unencrypted opening (version line, then packets), or -1 while it has not come. */
function endOfNewKeys(bytes: Buffer): number {
  let at = bytes.indexOf(0x0a) + 1;
  if (at === 0) return -1;
  while (at + 6 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    if (at + 4 + length > bytes.length) return -1;
    if (bytes[at + 5] === 21) return at + 4 + length;
    at += 4 + length;
  }
  return -1;
}

/** Listens on a free loopback port; returns it. */
async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  return typeof address === "object" && address ? address.port : 0;
}

export default async function setup(project: TestProject) {
  if (process.getuid?.() !== 0) {
    throw new Error("The SFTP tests start their own sshd with a test user of their own: run them as root (as CI does).");
  }
  // What was set up, undone in reverse at the end, or at once when a later step fails.
  const undo: (() => unknown)[] = [];
  const teardown = async () => {
    for (const step of undo.reverse()) {
      try {
        // A step that hangs (a server still waiting on a connection) must not keep the rest from running.
        await Promise.race([step(), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
      } catch {
        // undo the rest
      }
    }
  };
  try {
    await start(project, undo);
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}

async function start(project: TestProject, undo: (() => unknown)[]) {
  const dir = mkdtempSync(join(tmpdir(), "sftp-tests-"));
  undo.push(() => rmSync(dir, { recursive: true, force: true }));
  // sshd reads the authorized keys as the test user: it must be able to walk into the folder.
  chmodSync(dir, 0o755);
  const password = `pw-${crypto.randomUUID()}`;
  // One per setup (the workers and the browser projects each start this sshd): never the same user twice.
  const user = `oi-sftp-${crypto.randomUUID().slice(0, 6)}`;
  const { uid, gid } = createUser(user, password);
  // After everything else is undone (undo runs last first): no process of the user is left then.
  undo.unshift(() => accountCommand("userdel", [user]));
  // The user's keys: Ed25519 and RSA in OpenSSH's format, RSA as PKCS#1 PEM, and one with a passphrase.
  const clientKey = (file: string, args: string[]) => {
    run("ssh-keygen", ["-q", "-C", `sftp-tests ${file}`, "-f", join(dir, file), ...args]);
    return { privateKey: readFileSync(join(dir, file), "utf8"), publicKey: readFileSync(join(dir, `${file}.pub`), "utf8") };
  };
  const keys = {
    ed25519: clientKey("client_ed25519", ["-t", "ed25519", "-N", ""]),
    rsa: clientKey("client_rsa", ["-t", "rsa", "-b", "2048", "-N", ""]),
    rsaPem: clientKey("client_rsa_pem", ["-t", "rsa", "-b", "2048", "-N", "", "-m", "PEM"]),
    withPassphrase: clientKey("client_passphrase", ["-t", "ed25519", "-N", "a passphrase"]),
  };
  writeFileSync(join(dir, "authorized_keys"), Object.values(keys).map((k) => k.publicKey).join(""), { mode: 0o644 });

  const root = join(dir, "root");
  mkdirSync(join(root, "upload"), { recursive: true });
  mkdirSync(join(root, "readonly"));
  chmodSync(root, 0o755);
  chownSync(join(root, "upload"), uid, gid);
  chmodSync(join(root, "upload"), 0o755);
  chmodSync(join(root, "readonly"), 0o755);
  writeFileSync(join(root, "readonly", "stock.csv"), "sku,stock\nA,1\n", { mode: 0o644 });
  // A full disk: a 64 KiB file system of its own, the test user's.
  const full = join(root, "full");
  mkdirSync(full);
  try {
    run("mount", ["-t", "tmpfs", "-o", `size=64k,mode=0755,uid=${uid},gid=${gid}`, "sftp-tests-full", full]);
  } catch (error) {
    throw new Error(`The SFTP tests mount a 64 KiB tmpfs at ${full} for a full disk, and mount refused (${String(error).split("\n")[0]}): run them as root where mount is allowed.`);
  }
  undo.push(() => run("umount", [full]));

  const common = [
    "ListenAddress 127.0.0.1",
    `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
    // The temporary folder sits under /tmp (world-writable), which StrictModes refuses.
    "StrictModes no",
    "UsePAM no",
    "PasswordAuthentication yes",
    "KbdInteractiveAuthentication no",
    "PubkeyAuthentication yes",
    "PermitRootLogin no",
    `AllowUsers ${user}`,
    // The tests fail authentication on purpose, and connect many times in a run.
    "MaxAuthTries 20",
    "MaxStartups 100",
    "LogLevel VERBOSE",
    "Subsystem sftp internal-sftp",
    `ForceCommand internal-sftp -d ${root}`,
  ];
  // sshd's privilege separation needs this folder (Debian's service creates it at boot).
  mkdirSync("/run/sshd", { recursive: true });

  let log = "";
  const onLog = (text: string) => (log += text);
  // The main server as OpenSSH comes (it picks curve25519, aes128-ctr, hmac-sha2-256-etm with us),
  // and others that make our client take its other algorithms, or find none in common.
  const sshd = async (name: string, keyType: "ed25519" | "ecdsa" | "rsa", extra: string[], bits?: number) => {
    const server = await startSshd(dir, name, keyType, common, extra, onLog, bits);
    undo.push(server.stop);
    return server;
  };
  const main = await sshd("ed25519", "ed25519", []);
  const ecdsa = await sshd("ecdsa", "ecdsa", ["KexAlgorithms ecdh-sha2-nistp256", "Ciphers aes256-ctr", "MACs hmac-sha2-256"]);
  const rsa = await sshd("rsa", "rsa", []);
  const rsa256 = await sshd("rsa256", "rsa", ["HostKeyAlgorithms rsa-sha2-256"]);
  const chacha = await sshd("chacha", "ed25519", ["Ciphers chacha20-poly1305@openssh.com"]);
  // Passwords through PAM, by keyboard-interactive only, as many servers are set up.
  const keyboard = await sshd("keyboard", "ed25519", ["UsePAM yes", "PasswordAuthentication no", "KbdInteractiveAuthentication yes"]);
  // Servers offering only weak algorithms, one kind each (OpenSSH 9.2 still has them all, off by
  // default): the client must refuse each in words. And a 1024-bit RSA host key, which sshd loads.
  const weak = {
    kex: await sshd("weak-kex", "ed25519", ["KexAlgorithms diffie-hellman-group14-sha1,diffie-hellman-group1-sha1"]),
    hostKey: await sshd("weak-hostkey", "rsa", ["HostKeyAlgorithms ssh-rsa"]),
    cipher: await sshd("weak-cipher", "ed25519", ["Ciphers aes128-cbc,aes256-cbc,3des-cbc"]),
    mac: await sshd("weak-mac", "ed25519", ["MACs hmac-sha1,hmac-sha1-etm@openssh.com,hmac-md5"]),
    shortRsa: await sshd("short-rsa", "rsa", [], 1024),
  };

  // A server that accepts connections and never answers: an SSH client waits for its greeting.
  const held: net.Socket[] = [];
  const hang = net.createServer((socket) => {
    held.push(socket);
    socket.on("error", () => undefined);
  });
  const hangPort = await listen(hang);
  undo.push(() => new Promise<void>((resolve) => hang.close(() => resolve())));

  // A way to the main sshd that cuts both connections once the client has sent 512 KiB: a
  // connection lost in the middle of an upload.
  const cut = net.createServer((client) => {
    const upstream = net.connect(main.port, "127.0.0.1");
    let sent = 0;
    client.on("data", (chunk: Buffer) => {
      sent += chunk.length;
      if (sent > 512 * 1024) return void (client.destroy(), upstream.destroy());
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    for (const socket of [client, upstream]) socket.on("error", () => undefined).on("close", () => (client.destroy(), upstream.destroy()));
    held.push(client, upstream);
  });
  const cutPort = await listen(cut);
  undo.push(() => new Promise<void>((resolve) => cut.close(() => resolve())));

  // A way to the main sshd that flips one bit in the server's first encrypted packet (8 bytes
  // after its NEWKEYS): a connection tampered with after the key exchange, which the MAC must catch.
  const tamper = net.createServer((client) => {
    const upstream = net.connect(main.port, "127.0.0.1");
    let plain = Buffer.alloc(0);
    let served = 0;
    let target = -1;
    upstream.on("data", (chunk: Buffer) => {
      if (target < 0) {
        plain = Buffer.concat([plain, chunk]);
        const end = endOfNewKeys(plain);
        if (end >= 0) target = end + 8;
      }
      const out = Buffer.from(chunk);
      if (target >= served && target < served + out.length) out[target - served] ^= 0x01;
      served += out.length;
      client.write(out);
    });
    client.on("data", (chunk: Buffer) => upstream.write(chunk));
    for (const socket of [client, upstream]) socket.on("error", () => undefined).on("close", () => (client.destroy(), upstream.destroy()));
    held.push(client, upstream);
  });
  const tamperPort = await listen(tamper);
  undo.push(() => new Promise<void>((resolve) => tamper.close(() => resolve())));
  // Undone first: a server's close waits for its connections.
  undo.push(() => held.forEach((socket) => socket.destroy()));

  const logServer = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    res.end(log);
  });
  const logPort = await listen(logServer);
  undo.push(() => new Promise<void>((resolve) => (logServer.closeAllConnections(), logServer.close(() => resolve()))));

  project.provide("sftp", {
    host: "127.0.0.1",
    port: main.port,
    username: user,
    password,
    privateKey: keys.ed25519.privateKey,
    rsaPrivateKey: keys.rsa.privateKey,
    rsaPemPrivateKey: keys.rsaPem.privateKey,
    passphraseProtectedKey: keys.withPassphrase.privateKey,
    hostKeyFingerprint: main.fingerprint,
    variants: {
      ecdsa: { port: ecdsa.port, hostKeyFingerprint: ecdsa.fingerprint },
      rsa: { port: rsa.port, hostKeyFingerprint: rsa.fingerprint },
      rsa256: { port: rsa256.port, hostKeyFingerprint: rsa256.fingerprint },
      chacha: { port: chacha.port, hostKeyFingerprint: chacha.fingerprint },
      keyboard: { port: keyboard.port, hostKeyFingerprint: keyboard.fingerprint },
    },
    root,
    hangPort,
    cutPort,
    tamperPort,
    logUrl: `http://127.0.0.1:${logPort}`,
    weak: Object.fromEntries(Object.entries(weak).map(([kind, { port, fingerprint }]) => [kind, { port, hostKeyFingerprint: fingerprint }])) as Record<keyof typeof weak, { port: number; hostKeyFingerprint: string }>,
  });
}
