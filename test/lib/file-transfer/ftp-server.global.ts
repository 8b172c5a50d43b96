// A real FTP server for the file-transfer tests (test/lib/file-transfer/ftp.test.ts): Debian's
// vsftpd (npm test installs it when missing), started on a free loopback port in a temporary
// folder with a config of its own, for FTP and explicit FTPS (AUTH TLS) with a throwaway
// certificate made with openssl (./ftp-certificates.node.ts; the Worker trusts its CA only through
// the FTP_TEST_NETWORK binding). Besides it, a loopback TCP server that accepts
// and never says a word (a server that hangs).
//
// vsftpd authenticates local users through PAM, so the setup makes (idempotently, as root) the
// system user `ordertest-ftp` with a fixed password, no shell (/usr/sbin/nologin) and / as its home, and a PAM
// service of its own, /etc/pam.d/order-intake-ftp-test (pam_unix only: Debian's vsftpd service
// also demands a shell listed in /etc/shells). The user's files live in the temporary folder
// (local_root), which is removed at teardown; the user and the PAM file stay. Its folder `full` is
// a 64 KiB tmpfs mounted there (root may mount in this sandbox), unmounted at teardown.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync, chownSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { ftpCertificates } from "./ftp-certificates.node";
import { accountCommand } from "./system-accounts.node";

const VSFTPD = "/usr/sbin/vsftpd";
const USER = "ordertest-ftp";
const PASSWORD = "ordertest-ftp-password";
const PAM_SERVICE = "order-intake-ftp-test";

/** A port free on loopback now (the system picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** A run of `count` consecutive loopback ports all free now, for vsftpd's passive data connections. */
export async function freePortRange(count: number): Promise<[number, number]> {
  const isFree = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = 20_000 + Math.floor(Math.random() * 10_000);
    let ok = true;
    for (let port = first; port < first + count && ok; port++) ok = await isFree(port);
    if (ok) return [first, first + count - 1];
  }
  throw new Error(`no ${count} consecutive free loopback ports between 20000 and 30000`);
}

function ensureUser(): { uid: number; gid: number } {
  if (process.getuid?.() !== 0) throw new Error("the FTP tests make a local user for vsftpd, which needs root");
  try {
    execFileSync("id", ["-u", USER], { stdio: "ignore" });
  } catch {
    accountCommand("useradd", ["--no-create-home", "--home-dir", "/", "--shell", "/usr/sbin/nologin", USER]);
  }
  // vsftpd enters the home folder before local_root: one that always exists.
  accountCommand("usermod", ["--home", "/", USER]);
  accountCommand("chpasswd", [], `${USER}:${PASSWORD}\n`);
  const pam = "/etc/pam.d/" + PAM_SERVICE;
  const wanted = "# The FTP tests' vsftpd (order-intake, test/lib/file-transfer/ftp-server.global.ts)\nauth required pam_unix.so nodelay\naccount required pam_unix.so\n";
  if (!existsSync(pam) || readFileSync(pam, "utf8") !== wanted) writeFileSync(pam, wanted);
  const uid = Number(execFileSync("id", ["-u", USER], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", USER], { encoding: "utf8" }).trim());
  return { uid, gid };
}

export async function waitForGreeting(port: number, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const greeted = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.setTimeout(1000, () => (socket.destroy(), resolve(false)));
      socket.once("data", (data) => (socket.destroy(), resolve(data.toString().startsWith("220"))));
      socket.once("error", () => resolve(false));
    });
    if (greeted) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the FTP server did not greet on 127.0.0.1:${port}`);
}

export default async function setup(project: TestProject) {
  if (!existsSync(VSFTPD)) throw new Error(`vsftpd is missing at ${VSFTPD}: run \`apt-get install -y vsftpd\` (npm test does it when it can)`);
  const { uid, gid } = ensureUser();
  const dir = mkdtempSync(join(tmpdir(), "ftp-test-"));
  chmodSync(dir, 0o755);
  // The FTP root: owned by the user, with an upload folder and a read-only one.
  const root = join(dir, "root");
  for (const sub of ["", "upload", "readonly"]) {
    mkdirSync(join(root, sub), { recursive: true });
    chownSync(join(root, sub), uid, gid);
  }
  writeFileSync(join(root, "readonly", "existing.txt"), "kept\n");
  chownSync(join(root, "readonly", "existing.txt"), uid, gid);
  chmodSync(join(root, "readonly"), 0o555);
  // A folder on a 64 KiB file system of its own: an upload larger than that fills the disk.
  const full = join(root, "full");
  mkdirSync(full);
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=64k,uid=${uid},gid=${gid},mode=0755`, "tmpfs", full]);
  const empty = join(dir, "empty");
  mkdirSync(empty);

  const { certFile: cert, keyFile: key } = ftpCertificates();

  /** One vsftpd over that root; `requireSslReuse` as vsftpd's own default has it (YES), or off; `extra` lines for its config. */
  async function startVsftpd(name: string, requireSslReuse: boolean, extra: string[] = []): Promise<{ port: number; process: ChildProcess; exited: () => string | null }> {
    const port = await freePort();
    const [pasvMin, pasvMax] = await freePortRange(20);
    const config = join(dir, `${name}.conf`);
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
        `local_root=${root}`,
        `pam_service_name=${PAM_SERVICE}`,
        `secure_chroot_dir=${empty}`,
        "connect_from_port_20=NO",
        "pasv_enable=YES",
        "pasv_address=127.0.0.1",
        `pasv_min_port=${pasvMin}`,
        `pasv_max_port=${pasvMax}`,
        // A container without the privileges vsftpd's sandboxes ask for (new network namespaces, seccomp).
        "isolate=NO",
        "isolate_network=NO",
        "seccomp_sandbox=NO",
        "ssl_enable=YES",
        `rsa_cert_file=${cert}`,
        `rsa_private_key_file=${key}`,
        "allow_anon_ssl=NO",
        // Plain FTP stays allowed on the same server; FTPS clients ask for TLS themselves.
        "force_local_logins_ssl=NO",
        "force_local_data_ssl=NO",
        `require_ssl_reuse=${requireSslReuse ? "YES" : "NO"}`,
        "ssl_ciphers=HIGH",
        "max_per_ip=0",
        // A wrong password is answered at once (PAM's nodelay above, too): the test of it stays quick.
        "delay_failed_login=0",
        "max_clients=0",
        // LIST shows dot files too: the tests see writeAtomic's temporary files (and that none is left).
        "force_dot_files=YES",
        "xferlog_enable=YES",
        `vsftpd_log_file=${join(dir, `${name}.log`)}`,
        ...extra,
        "",
      ].join("\n"),
    );
    chmodSync(config, 0o600);
    const child = spawn(VSFTPD, [config], { stdio: ["ignore", "inherit", "inherit"] });
    let exited: string | null = null;
    child.once("exit", (code, signal) => (exited = `vsftpd exited (${code ?? signal})`));
    await waitForGreeting(port, Date.now() + 10_000).catch((error) => {
      throw new Error(exited ?? String(error));
    });
    return { port, process: child, exited: () => exited };
  }
  const vsftpd = await startVsftpd("vsftpd", false);
  // vsftpd as it ships: TLS data connections must resume the control connection's TLS session.
  const reuse = await startVsftpd("vsftpd-ssl-reuse", true);
  // One that takes uploads at 2 MB/s: an upload lasts long enough for a reader to look at the
  // folder many times while it runs, however fast or loaded the machine is (the atomic upload's test).
  const slow = await startVsftpd("vsftpd-slow", false, ["local_max_rate=2000000"]);

  // A server that accepts and says nothing, and one that greets and then answers nothing (the
  // client's time box must end the session; in the second, a command went out unanswered).
  const sockets = new Set<net.Socket>();
  const hanging = (greeting: string) =>
    net.createServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {});
      if (greeting) socket.write(greeting);
    });
  const silent = hanging("");
  const mute = hanging("220 Welcome\r\n");
  // And one that greets, then closes the connection on the first command.
  const drop = net.createServer((socket) => {
    socket.on("error", () => {});
    socket.write("220 Welcome\r\n");
    socket.once("data", () => socket.destroy());
  });
  // vsftpd with two quirks of other servers, through a relay on the control connection (data
  // connections go to vsftpd itself): no EPSV (the client falls back to PASV), and a rename onto an
  // existing file refused, as servers that never overwrite do.
  const quirky = net.createServer((client) => {
    sockets.add(client);
    const upstream = net.connect(vsftpd.port, "127.0.0.1");
    sockets.add(upstream);
    for (const socket of [client, upstream]) {
      socket.on("error", () => {});
      socket.on("close", () => (sockets.delete(socket), client.destroy(), upstream.destroy()));
    }
    upstream.pipe(client);
    let pending = "";
    client.on("data", (chunk: Buffer) => {
      pending += chunk.toString("utf8");
      for (let end = pending.indexOf("\r\n"); end >= 0; end = pending.indexOf("\r\n")) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 2);
        const [verb, ...rest] = line.split(" ");
        const argument = rest.join(" ");
        if (verb.toUpperCase() === "EPSV") client.write("500 Unknown command.\r\n");
        else if (verb.toUpperCase() === "RNTO" && existsSync(argument.startsWith("/") ? argument : join(root, argument)))
          client.write("553 Rename refused: the target exists.\r\n");
        else upstream.write(`${line}\r\n`);
      }
    });
  });
  const portOf = async (server: net.Server) => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const address = server.address();
    return typeof address === "object" && address ? address.port : 0;
  };
  const silentPort = await portOf(silent);
  const mutePort = await portOf(mute);
  const dropPort = await portOf(drop);
  const quirkyPort = await portOf(quirky);

  project.provide("ftpServer", {
    host: "127.0.0.1",
    port: vsftpd.port,
    sslReusePort: reuse.port,
    slowPort: slow.port,
    username: USER,
    password: PASSWORD,
    silentPort,
    mutePort,
    dropPort,
    quirkyPort,
  });

  return async () => {
    for (const socket of sockets) socket.destroy();
    for (const server of [silent, mute, drop, quirky]) await new Promise<void>((resolve) => server.close(() => resolve()));
    for (const server of [vsftpd, reuse, slow]) {
      if (server.exited()) continue;
      const gone = new Promise<void>((resolve) => server.process.once("exit", () => resolve()));
      server.process.kill("SIGTERM");
      await gone;
    }
    chmodSync(join(root, "readonly"), 0o755);
    execFileSync("umount", [full]);
    rmSync(dir, { recursive: true, force: true });
  };
}
