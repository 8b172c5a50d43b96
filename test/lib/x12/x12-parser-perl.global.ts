// The second independent X12 reader of the suite (docs/edi.md, "Tested against"): Debian's
// X12::Parser (libx12-parser-perl, installed by `npm test` when missing), beside node-x12 from npm.
// Tests run inside workerd and cannot start a process, so this Node side serves it on loopback:
// POST /read?cf=850|997 with an interchange as the body answers what X12::Parser read of it
// (./x12-parser-perl.pl: the separators it took from the ISA, the loops and their segments).
// The 997's configuration is the one the package ships; the 850's is ours (./cf/850.cf).
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

const HERE = dirname(fileURLToPath(import.meta.url));
const MODULE = "/usr/share/perl5/X12/Parser.pm";
const CONFIGS: Record<string, string> = {
  "997": "/usr/share/perl5/X12/Parser/cf/997.cf",
  "850": join(HERE, "cf", "850.cf"),
};
const SCRIPT = join(HERE, "x12-parser-perl.pl");

export default async function setup(project: TestProject) {
  if (!existsSync(MODULE)) throw new Error(`X12::Parser is missing at ${MODULE}: run \`apt-get install -y libx12-parser-perl\` (npm test does it when it can)`);
  const dir = mkdtempSync(join(tmpdir(), "x12-perl-"));
  let files = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const conf = CONFIGS[new URL(req.url ?? "/", "http://x").searchParams.get("cf") ?? ""];
      if (req.method !== "POST" || !conf) {
        res.writeHead(404).end();
        return;
      }
      const file = join(dir, `${++files}.x12`);
      writeFileSync(file, Buffer.concat(chunks));
      execFile("perl", [SCRIPT, file, conf], { timeout: 20_000 }, (error, stdout, stderr) => {
        rmSync(file, { force: true });
        if (error) res.writeHead(422, { "content-type": "text/plain" }).end(stderr || String(error));
        else res.writeHead(200, { "content-type": "application/json" }).end(stdout);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the X12::Parser server has no port");
  project.provide("x12PerlUrl", `http://127.0.0.1:${address.port}`);
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  };
}
