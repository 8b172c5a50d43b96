// The docs cannot rot: every shell example of README.md and docs/*.md that talks to the server runs,
// as printed, against a real Worker over HTTP (test/docs/docs.global.ts: the Worker with the demo
// account npm start creates), in one bash session per page, in the order of the page, as a reader
// pastes them into one terminal. Only what the README tells the reader to set differs: the block
// marked `<!-- docs-test: environment -->` runs as printed in a folder holding this Worker's
// .demo-credentials.json and .dev.vars, with its base URL (http://localhost:8787) replaced by this
// Worker's. Each step's documented output (`# -> …`, `…` standing for what differs from run to run)
// must be what it printed, and every HTTP answer must be a success unless the step documents an
// error body.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { codeBlocks, docFiles, isCurlExample, matchesOutput, read, type Step, steps } from "./markdown";

const LOCAL = "http://localhost:8787";
const url = inject("docsUrl");
const credentials = inject("docsCredentials");
const folder = mkdtempSync(join(tmpdir(), "order-intake-docs-"));
writeFileSync(join(folder, ".demo-credentials.json"), JSON.stringify(credentials, null, 2) + "\n");
writeFileSync(join(folder, ".dev.vars"), `ADMIN_TOKEN=${inject("docsAdminToken")}\n`);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const environment = codeBlocks(read("README.md")).filter((b) => b.marker === "environment");

/** Every curl call reports its status on stderr (unless the example asks for its own --write-out, which then wins). */
const PRELUDE = `set -eo pipefail
curl() { command curl -w '%{stderr}@@HTTP %{http_code} %{method} %{url_effective}\\n' "$@"; }
`;

type Failure = string;

function runPage(file: string): { failures: Failure[]; ran: Step[] } {
  const blocks = codeBlocks(read(file));
  const own = blocks.filter((b) => b.marker === "environment");
  const examples = blocks.filter((b) => isCurlExample(b) || b.marker === "environment");
  const ran: Step[] = [];
  const script: string[] = [PRELUDE];
  // A page other than the README starts where the README's environment left the reader.
  if (own.length === 0) for (const b of environment) script.push(b.code.replaceAll(LOCAL, url));
  const failures: Failure[] = [];
  for (const block of examples) {
    if (block.marker !== "environment" && block.code.includes("localhost:8787"))
      failures.push(`${file}:${block.line}: an example names http://localhost:8787 itself; use $BASE from the README's environment`);
    for (const step of steps(block)) {
      const i = ran.push(step) - 1;
      script.push(`printf '\\n@@STEP ${i}@@\\n'; printf '\\n@@STEP ${i}@@\\n' >&2`);
      script.push(block.marker === "environment" ? step.code.replaceAll(LOCAL, url) : step.code);
    }
  }
  script.push(`printf '\\n@@STEP ${ran.length}@@\\n'`);
  const result = spawnSync("bash", ["--noprofile", "--norc", "-c", script.join("\n")], {
    cwd: folder,
    env: { PATH: `${dirname(process.execPath)}:${process.env.PATH}`, HOME: folder, LANG: "C.UTF-8" },
    encoding: "utf8",
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const sections = (text: string) => {
    const parts = text.split(/\n@@STEP (\d+)@@\n/);
    const byStep = new Map<number, string>();
    for (let k = 1; k < parts.length; k += 2) byStep.set(Number(parts[k]), parts[k + 1] ?? "");
    return byStep;
  };
  const out = sections(result.stdout);
  const err = sections(result.stderr);
  ran.forEach((step, i) => {
    const where = `${file}:${step.line} (${step.code.trim().split("\n").find((l) => !l.startsWith("#"))?.slice(0, 80)})`;
    if (!out.has(i + 1)) {
      if (out.has(i)) failures.push(`${where}: the step failed (exit ${result.status ?? result.signal}): ${(err.get(i) ?? result.stderr).replace(/@@HTTP.*\n/g, "").trim().slice(-800)}`);
      return;
    }
    const stdout = out.get(i) ?? "";
    const answers = [...(err.get(i) ?? "").matchAll(/@@HTTP (\d{3}) (\S+) (\S+)/g)];
    const errorShown = step.expected !== null && /"errors?":/.test(step.expected);
    for (const [, status, method, target] of answers) {
      if (status === "000" || (Number(status) >= 400 && !errorShown)) failures.push(`${where}: ${method} ${target} answered ${status}: ${stdout.trim().slice(0, 400)}`);
    }
    if (step.expected !== null && !matchesOutput(step.expected, stdout.trim()))
      failures.push(`${where}: documented output\n    ${step.expected}\n  but it printed\n    ${stdout.trim().slice(0, 1500)}`);
  });
  return { failures, ran };
}

describe("the documentation's curl examples, run against a real Worker", () => {
  it("the README tells the reader what to set, in one block marked as the environment", () => {
    expect(environment.length).toBe(1);
    expect(environment[0].code).toContain(`export BASE=${LOCAL}`);
  });

  for (const file of docFiles()) {
    if (!codeBlocks(read(file)).some(isCurlExample)) continue;
    it(`${file}: every example runs as printed and prints what it documents`, () => {
      const { failures, ran } = runPage(file);
      expect(failures).toEqual([]);
      expect(ran.length).toBeGreaterThan(0);
    }, 150_000);
  }

  it("the README's tour goes from a created order to a matched one and the supplier's answer, each output shown", () => {
    const shown = codeBlocks(read("README.md"))
      .filter(isCurlExample)
      .flatMap(steps)
      .map((s) => s.expected ?? "");
    expect(shown.some((e) => e.includes('"message":"Order created"'))).toBe(true);
    expect(shown.some((e) => e.includes("Matched to supplier"))).toBe(true);
    expect(shown.some((e) => e.includes('"results":[{"line_id":'))).toBe(true);
  });
});
