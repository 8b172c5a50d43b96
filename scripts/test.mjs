#!/usr/bin/env node
// `npm test`: from a fresh clone with nothing done before it. Installs what is missing (the
// dependencies; Debian's Chromium for the browser tests and vsftpd for the FTP tests, where it can), then checks the layering
// (dependency-cruiser, the rules in .dependency-cruiser.cjs), type-checks and runs
// the three test projects, the Workers suite, the browser suite and the docs suite (extra arguments go to vitest:
// `npm test -- test/orders`, `npm test -- --project workers`).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { bin, ensureDependencies, root, run } from "./lib/setup.mjs";

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
// The workers project's setup starts a real vsftpd (test/lib/file-transfer/ftp-server.global.ts).
if (runsWorkersTests()) ensureDebianPackage("/usr/sbin/vsftpd", "vsftpd", "The FTP tests");
run(bin("node"), [join(root, "scripts", "docs-assets.mjs")]);
run(bin("node"), [bin("depcruise"), "src", "--config", ".dependency-cruiser.cjs"]);
run(bin("node"), [bin("tsc"), "--noEmit", "-p", "tsconfig.json"]);
run(bin("node"), [bin("tsc"), "--noEmit", "-p", "tsconfig.node.json"]);
run(bin("node"), [bin("vitest"), "run", ...args]);
