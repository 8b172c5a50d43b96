// Two more FTP servers beside vsftpd, for the connector's interoperability tests
// (test/lib/file-transfer/ftp.interop.test.ts): Debian's Pure-FTPd (FTP and explicit FTPS) and
// ProFTPD with mod_tls (FTP and explicit FTPS), each on a free loopback port with a config, a user
// and a root of its own in a temporary folder. Both packages declare `Conflicts: ftp-server`, as
// vsftpd is one, so they are not installed: npm test unpacks them into node_modules/.cache/debian
// (node_modules/.cache/debian/pure-ftpd and …/proftpd: scripts/test.mjs, ensureUnpackedDebianPackages) and they run from there, as root, with their
// files owned by `nobody`. Their users are virtual (Pure-FTPd's puredb, ProFTPD's AuthUserFile):
// nothing of the system is changed. The TLS certificate is vsftpd's (./ftp-certificates.node.ts),
// which the Worker trusts through FTP_TEST_NETWORK only.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { ftpCertificates } from "./ftp-certificates.node";
import { freePort, freePortRange, waitForGreeting } from "./ftp-server.global";

const UNPACKED = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "node_modules", ".cache", "debian");
const PURE_FTPD = join(UNPACKED, "pure-ftpd", "usr", "sbin", "pure-ftpd");
const PURE_PW = join(UNPACKED, "pure-ftpd", "usr", "bin", "pure-pw");
const PROFTPD = join(UNPACKED, "proftpd", "usr", "sbin", "proftpd");
const PROFTPD_MODULES = join(UNPACKED, "proftpd", "usr", "lib", "proftpd");
const USER = "ordertest-ftp2";
const PASSWORD = "ordertest-ftp2-password";

type Running = { process: ChildProcess; exited: () => string | null };

function start(name: string, command: string, args: string[], log: string): Running {
  const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  let exited: string | null = null;
  child.once("exit", (code, signal) => (exited = `${name} exited (${code ?? signal}): ${stderr.trim() || `see ${log}`}`));
  return { process: child, exited: () => exited };
}

export default async function setup(project: TestProject) {
  for (const file of [PURE_FTPD, PROFTPD, join(PROFTPD_MODULES, "mod_tls.so")])
    if (!existsSync(file)) throw new Error(`${file} is missing: npm test unpacks Debian's pure-ftpd, proftpd-core and proftpd-mod-crypto there (scripts/test.mjs)`);
  if (process.getuid?.() !== 0) throw new Error("Pure-FTPd and ProFTPD run as root (they change to the user that logs in)");
  const uid = Number(execFileSync("id", ["-u", "nobody"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "nobody"], { encoding: "utf8" }).trim());
  const group = execFileSync("id", ["-gn", "nobody"], { encoding: "utf8" }).trim();
  const dir = mkdtempSync(join(tmpdir(), "ftp-others-"));
  chmodSync(dir, 0o755);
  const { certFile, keyFile } = ftpCertificates();
  const hash = execFileSync("openssl", ["passwd", "-6", PASSWORD], { encoding: "utf8" }).trim();

  /** A root owned by the user, with `upload/`, `archive/`, and `readonly/` holding one file. */
  const rootFor = (name: string) => {
    const root = join(dir, name, "root");
    for (const sub of ["", "upload", "archive", "readonly"]) {
      mkdirSync(join(root, sub), { recursive: true });
      chownSync(join(root, sub), uid, gid);
    }
    writeFileSync(join(root, "readonly", "existing.txt"), "kept\n");
    chownSync(join(root, "readonly", "existing.txt"), uid, gid);
    chmodSync(join(root, "readonly"), 0o555);
    return root;
  };

  // Pure-FTPd: a virtual user in a puredb, chrooted to its root (the `/./` in its home).
  const pureRoot = rootFor("pure-ftpd");
  const purePasswd = join(dir, "pure-ftpd", "pureftpd.passwd");
  const pureDb = join(dir, "pure-ftpd", "pureftpd.pdb");
  writeFileSync(purePasswd, `${USER}:${hash}:${uid}:${gid}::${pureRoot}/./::::::::::::\n`, { mode: 0o600 });
  execFileSync(PURE_PW, ["mkdb", pureDb, "-f", purePasswd]);
  // Its TLS certificate and key in one file, as it reads them by default.
  const purePem = join(dir, "pure-ftpd", "pure-ftpd.pem");
  execFileSync("sh", ["-c", `cat "$1" "$2" > "$3"`, "sh", keyFile, certFile, purePem]);
  chmodSync(purePem, 0o600);
  const purePort = await freePort();
  const [pureMin, pureMax] = await freePortRange(20);
  const pure = start(
    "pure-ftpd",
    PURE_FTPD,
    [
      `--bind=127.0.0.1,${purePort}`,
      `--login=puredb:${pureDb}`,
      "--noanonymous",
      `--passiveportrange=${pureMin}:${pureMax}`,
      "--forcepassiveip=127.0.0.1",
      // Listings show dot files: the tests see writeAtomic's temporary files (and that none is left).
      "--displaydotfiles",
      "--dontresolve",
      "--chrooteveryone",
      // TLS offered, not required: plain FTP and explicit FTPS on the same port.
      "--tls=1",
      `--certfile=${purePem}`,
      `--pidfile=${join(dir, "pure-ftpd", "pure-ftpd.pid")}`,
      "--maxclientsnumber=50",
      "--maxclientsperip=50",
    ],
    "pure-ftpd's stderr",
  );

  // ProFTPD: a virtual user in an AuthUserFile, chrooted to its home, mod_tls loaded from the
  // unpacked proftpd-mod-crypto, TLS offered and not required; data connections must resume the
  // control connection's TLS session (mod_tls's default, as vsftpd's). TLS 1.2 only: with TLS 1.3,
  // ProFTPD 1.3.8 refuses some of those resumed data connections and not others (docs/file-transfer.md).
  const proftpd = async (name: string, protocols: string) => {
    const proRoot = rootFor(name);
    const proDir = join(dir, name);
    writeFileSync(join(proDir, "passwd"), `${USER}:${hash}:${uid}:${gid}::${proRoot}:/usr/sbin/nologin\n`, { mode: 0o600 });
    writeFileSync(join(proDir, "group"), `${group}:x:${gid}:\n`, { mode: 0o600 });
    const port = await freePort();
    const [min, max] = await freePortRange(20);
    const config = join(proDir, "proftpd.conf");
    writeFileSync(
      config,
      [
        `ModulePath ${PROFTPD_MODULES}`,
        "LoadModule mod_tls.c",
        "ServerType standalone",
        'ServerName "order-intake FTP test"',
        "DefaultAddress 127.0.0.1",
        "SocketBindTight on",
        `Port ${port}`,
        "UseIPv6 off",
        "User nobody",
        `Group ${group}`,
        `PidFile ${join(proDir, "proftpd.pid")}`,
        `ScoreboardFile ${join(proDir, "proftpd.scoreboard")}`,
        "DelayTable none",
        "WtmpLog off",
        "UseReverseDNS off",
        "AuthOrder mod_auth_file.c",
        `AuthUserFile ${join(proDir, "passwd")}`,
        `AuthGroupFile ${join(proDir, "group")}`,
        "RequireValidShell off",
        "DefaultRoot ~",
        `PassivePorts ${min} ${max}`,
        "AllowOverwrite on",
        "MaxInstances 50",
        "TransferLog none",
        `SystemLog ${join(proDir, "system.log")}`,
        // ls -a for LIST: the tests see writeAtomic's temporary files (and that none is left).
        "ListOptions -a",
        "<IfModule mod_tls.c>",
        "  TLSEngine on",
        "  TLSRequired off",
        `  TLSRSACertificateFile ${certFile}`,
        `  TLSRSACertificateKeyFile ${keyFile}`,
        `  TLSProtocol ${protocols}`,
        `  TLSLog ${join(proDir, "tls.log")}`,
        "</IfModule>",
        "",
      ].join("\n"),
      { mode: 0o600 },
    );
    return { port, server: start(name, PROFTPD, ["--nodaemon", "--config", config], join(proDir, "system.log")) };
  };
  const pro = await proftpd("proftpd", "TLSv1.2");

  for (const [server, port] of [
    [pure, purePort],
    [pro.server, pro.port],
  ] as const)
    await waitForGreeting(port, Date.now() + 10_000).catch((error) => {
      throw new Error(server.exited() ?? String(error));
    });

  const login = { host: "127.0.0.1", username: USER, password: PASSWORD };
  project.provide("ftpOthers", { pureftpd: { ...login, port: purePort }, proftpd: { ...login, port: pro.port } });

  return async () => {
    for (const server of [pure, pro.server]) {
      if (server.exited()) continue;
      const gone = new Promise<void>((resolve) => server.process.once("exit", () => resolve()));
      server.process.kill("SIGTERM");
      await gone;
    }
    for (const name of ["pure-ftpd", "proftpd"]) chmodSync(join(dir, name, "root", "readonly"), 0o755);
    rmSync(dir, { recursive: true, force: true });
  };
}
