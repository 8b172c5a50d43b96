// What `npm start` and `npm test` both do first on a fresh clone: install the dependencies from
// the lock file when they are missing, and run the project's own Node (the `node` devDependency,
// which wrangler and vitest need) instead of whatever Node the machine has.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const bin = (name) => join(root, "node_modules", ".bin", name);

/** The environment for child processes: node_modules/.bin first, so `node` is the project's Node. */
export const childEnv = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  PATH: `${join(root, "node_modules", ".bin")}:${process.env.PATH}`,
};

/** Runs a command in the project root; exits with its status when it fails. */
export function run(cmd, args, extra = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: childEnv, ...extra });
  if (result.status !== 0) {
    console.error(`\n✗ ${cmd} ${args.join(" ")} failed (exit ${result.status ?? result.signal}).`);
    process.exit(result.status ?? 1);
  }
}

/** Installs the dependencies (exactly the lock file's) unless they are already there. */
export function ensureDependencies(required = ["wrangler", "node", "vitest", "tsc"]) {
  if (required.every((name) => existsSync(bin(name)))) return;
  console.log("→ Installing dependencies from package-lock.json (first run)…");
  run("npm", [existsSync(join(root, "package-lock.json")) ? "ci" : "install", "--no-audit", "--no-fund", "--loglevel=error"]);
}
