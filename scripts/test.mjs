#!/usr/bin/env node
// `npm test`: from a fresh clone with nothing done before it. Installs what is missing (the
// dependencies; Debian's Chromium for the browser tests, vsftpd for the FTP tests and openssh-server for the SFTP tests, where it can,
// Debian's X12::Parser as the X12 tests' second independent reader, and Pure-FTPd and ProFTPD unpacked beside them
// for the FTP and SFTP tests' second servers), then checks the layering
// (dependency-cruiser, the rules in .dependency-cruiser.cjs), type-checks and runs
// the three test projects, the Workers suite, the browser suite and the docs suite (extra arguments go to vitest:
// `npm test -- test/orders`, `npm test -- --project workers`).
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bin, childEnv, ensureDependencies, root, run } from "./lib/setup.mjs";

const CHROMIUM = "/usr/bin/chromium";
const args = process.argv.slice(2);

/** Whether this run includes the browser project (everything, unless the arguments leave it out). */
function runsBrowserTests() {
  const project = args.indexOf("--project");
  if (project >= 0) return args[project + 1] === "browser";
  const files = args.filter((a) => !a.startsWith("-"));
  return files.length === 0 || files.some((f) => !/\.test\.ts$/.test(f) || /\.browser\.test\.ts$/.test(f));
}

/** Whether this run includes the workers project (everything, unless the arguments leave it out). */
function runsWorkersTests() {
  const project = args.indexOf("--project");
  if (project >= 0) return args[project + 1] === "workers";
  const files = args.filter((a) => !a.startsWith("-"));
  return files.length === 0 || files.some((f) => !/\.browser\.test\.ts$/.test(f) && !f.startsWith("test/docs"));
}

/** A Debian package the tests need (`path` shows it is there): installed when we can, else one line on how; never skipped. */
function ensureDebianPackage(path, pkg, why) {
  if (existsSync(path)) return;
  const isRoot = process.getuid?.() === 0;
  const hasApt = spawnSync("sh", ["-c", "command -v apt-get"], { stdio: "ignore" }).status === 0;
  if (!isRoot || !hasApt) {
    console.error(`✗ ${why} need Debian's ${pkg} at ${path}: run \`sudo apt-get install -y ${pkg}\`, then npm test again.`);
    process.exit(1);
  }
  console.log(`→ Installing Debian's ${pkg} for ${why.toLowerCase()} (apt-get)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  run("apt-get", ["update"], { env });
  run("apt-get", ["install", "-y", "--no-install-recommends", pkg], { env });
  if (!existsSync(path)) {
    console.error(`✗ apt-get installed ${pkg}, but ${path} is still missing.`);
    process.exit(1);
  }
}

/**
 * Debian packages the tests run from a folder of their own rather than install: Pure-FTPd and
 * ProFTPD each declare `Conflicts: ftp-server`, as vsftpd is one, so apt-get installs at most one of
 * the three. The libraries they need are installed (they conflict with nothing), the packages
 * themselves fetched with `apt-get download` and unpacked with `dpkg-deb -x` into
 * node_modules/.cache/debian/<name> (test/lib/file-transfer/ftp-servers.global.ts runs them from
 * there). `files` (paths inside that folder) show they are there; never skipped.
 */
function ensureUnpackedDebianPackages(name, packages, files, why, libraries = []) {
  const dest = join(root, "node_modules", ".cache", "debian", name);
  const missing = () => files.filter((file) => !existsSync(join(dest, file)));
  if (missing().length === 0) return;
  const isRoot = process.getuid?.() === 0;
  const hasApt = spawnSync("sh", ["-c", "command -v apt-get && command -v dpkg-deb"], { stdio: "ignore" }).status === 0;
  if (!isRoot || !hasApt) {
    console.error(`✗ ${why} need Debian's ${packages.join(" and ")} unpacked in ${dest}: as root, run \`apt-get install -y ${libraries.join(" ")}\`, then \`apt-get download ${packages.join(" ")}\` and \`dpkg-deb -x <each .deb> ${dest}\`, then npm test again.`);
    process.exit(1);
  }
  console.log(`→ Unpacking Debian's ${packages.join(", ")} for ${why.toLowerCase()} into ${dest} (apt-get download, dpkg-deb -x)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  run("apt-get", ["update"], { env });
  if (libraries.length) run("apt-get", ["install", "-y", "--no-install-recommends", ...libraries], { env });
  const debs = mkdtempSync(join(tmpdir(), `debian-${name}-`));
  // apt-get download writes as its sandbox user (_apt).
  chmodSync(debs, 0o777);
  try {
    run("apt-get", ["download", ...packages], { env, cwd: debs });
    mkdirSync(dest, { recursive: true });
    for (const deb of readdirSync(debs).filter((f) => f.endsWith(".deb"))) run("dpkg-deb", ["-x", join(debs, deb), dest]);
  } finally {
    rmSync(debs, { recursive: true, force: true });
  }
  if (missing().length > 0) {
    console.error(`✗ apt-get downloaded ${packages.join(" ")}, but ${missing().join(", ")} is still missing in ${dest}.`);
    process.exit(1);
  }
}

/** The browser tests drive Debian's Chromium: install it when we can, or say how; never skip them. */
function ensureChromium() {
  if (existsSync(CHROMIUM)) return;
  const isRoot = process.getuid?.() === 0;
  const hasApt = spawnSync("sh", ["-c", "command -v apt-get"], { stdio: "ignore" }).status === 0;
  if (!isRoot || !hasApt) {
    console.error(`✗ The browser tests need Debian's Chromium at ${CHROMIUM}: run \`sudo apt-get install -y chromium\`, then npm test again.`);
    process.exit(1);
  }
  console.log("→ Installing Debian's chromium for the browser tests (apt-get)…");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  run("apt-get", ["update"], { env });
  run("apt-get", ["install", "-y", "--no-install-recommends", "chromium"], { env });
  if (!existsSync(CHROMIUM)) {
    console.error(`✗ apt-get installed chromium, but ${CHROMIUM} is still missing.`);
    process.exit(1);
  }
}

ensureDependencies(["wrangler", "node", "vitest", "tsc", "depcruise"]);
if (runsBrowserTests()) ensureChromium();
// The workers project's setup starts a real vsftpd and a real sshd (test/lib/file-transfer/*-server.global.ts).
if (runsWorkersTests()) ensureDebianPackage("/usr/sbin/vsftpd", "vsftpd", "The FTP tests");
if (runsWorkersTests()) ensureDebianPackage("/usr/sbin/sshd", "openssh-server", "The SFTP tests");
// Our X12 files are read again by a second independent reader, Debian's X12::Parser (test/lib/x12/x12-parser-perl.global.ts).
if (runsWorkersTests()) ensureDebianPackage("/usr/share/perl5/X12/Parser.pm", "libx12-parser-perl", "The X12 tests");
// Two more FTP servers beside vsftpd (docs/file-transfer.md): Pure-FTPd, and ProFTPD with mod_tls; ProFTPD's mod_sftp is the
// SFTP tests' second SSH implementation (test/lib/file-transfer/proftpd-sftp.global.ts). Both modules are in proftpd-mod-crypto.
if (runsWorkersTests()) {
  const why = "The FTP and SFTP interoperability tests";
  ensureUnpackedDebianPackages("pure-ftpd", ["pure-ftpd"], ["usr/sbin/pure-ftpd", "usr/bin/pure-pw"], why, ["libcap2", "libcrypt1", "libpam0g", "libsodium23", "libssl3"]);
  ensureUnpackedDebianPackages("proftpd", ["proftpd-core", "proftpd-mod-crypto"], ["usr/sbin/proftpd", "usr/lib/proftpd/mod_tls.so", "usr/lib/proftpd/mod_sftp.so"], why, [
    "libacl1", "libcap2", "libcrypt1", "libhiredis0.14", "libidn2-0", "libmemcached11", "libmemcachedutil2", "libncursesw6", "libpam0g", "libpcre2-8-0", "libpcre2-posix3", "libsodium23", "libssl3", "libtinfo6", "zlib1g",
  ]);
}
run(bin("node"), [join(root, "scripts", "docs-assets.mjs")]);
run(bin("node"), [bin("depcruise"), "src", "--config", ".dependency-cruiser.cjs"]);
// No code outside the adapters decides by a channel's or a platform's name (docs/adapters.md).
run(bin("node"), [join(root, "scripts", "check-adapter-names.mjs")]);
run(bin("node"), [bin("tsc"), "--noEmit", "-p", "tsconfig.json"]);
run(bin("node"), [bin("tsc"), "--noEmit", "-p", "tsconfig.node.json"]);
if (args.length > 0) run(bin("node"), [bin("vitest"), "run", ...args]);
else process.exit(await wholeSuite());

/**
 * The whole suite, as CI runs it: the workers project and the browser project side by side, each in
 * a Vitest process of its own, then the docs project once the workers project is done (beside the
 * browser project's last files). One Vitest process would run them one after another: every project
 * runs its files one at a time (one workerd with one local D1; one Worker and one Chromium), and
 * Vitest puts projects that do into one queue with one slot (or, for the browser project, a group
 * of its own after the others), so the Workers suite and the browser suite would never overlap.
 * Side by side they share the machine's cores: the browser suite mostly waits on pages and queues.
 * The browser project's lines are prefixed `browser │`; each process prints its own summary.
 */
async function wholeSuite() {
  const vitest = (project, prefix) =>
    new Promise((resolve) => {
      const child = spawn(bin("node"), [bin("vitest"), "run", "--project", project], { cwd: root, env: childEnv, stdio: prefix ? ["ignore", "pipe", "pipe"] : "inherit" });
      if (prefix) {
        for (const [from, to] of [[child.stdout, process.stdout], [child.stderr, process.stderr]]) {
          createInterface({ input: from }).on("line", (line) => to.write(`${prefix}${line}\n`));
        }
      }
      child.on("error", (error) => (console.error(`✗ vitest --project ${project}: ${error.message}`), resolve(1)));
      child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  const [workersAndDocs, browser] = await Promise.all([
    vitest("workers").then(async (workers) => ({ workers, docs: await vitest("docs") })),
    vitest("browser", "browser │ "),
  ]);
  const failed = Object.entries({ ...workersAndDocs, browser }).filter(([, code]) => code !== 0);
  if (failed.length === 0) return 0;
  console.error(`\n✗ vitest failed in the ${failed.map(([name]) => name).join(", ")} project${failed.length > 1 ? "s" : ""}.`);
  return 1;
}
