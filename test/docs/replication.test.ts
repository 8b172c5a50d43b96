// `npm run db:replication` (scripts/replication.mjs) against a stand-in for Cloudflare's REST API at
// the network edge: it switches read replication of every database wrangler.toml declares (each
// shard and the directory), shows the modes, and says what failed in Cloudflare's words.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "./markdown";

const ACCOUNT = "0123456789abcdef0123456789abcdef";
const TOKEN = "test-token";
const IDS = { DB: "11111111-2222-3333-4444-555555555555", SHARD_1: "66666666-7777-8888-9999-aaaaaaaaaaaa", DIRECTORY: "bbbbbbbb-cccc-dddd-eeee-ffffffffffff" };
// Cloudflare answers this database with an error (set per test).
let refused: string | null = null;
const modes = new Map<string, string>();
const seen: { method: string; url: string; auth: string | undefined; body: unknown }[] = [];
let server: Server;
let base: string;

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    req.on("data", (d) => (text += d));
    req.on("end", () => resolve(text));
  });
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const text = await body(req);
    seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, body: text ? JSON.parse(text) : null });
    const id = /^\/client\/v4\/accounts\/[0-9a-f]+\/d1\/database\/([0-9a-f-]+)$/.exec(req.url!)?.[1];
    res.setHeader("content-type", "application/json");
    if (!id || req.headers.authorization !== `Bearer ${TOKEN}`) return res.writeHead(404).end(JSON.stringify({ success: false, errors: [{ code: 7003, message: "Could not route" }], result: null }));
    if (id === refused) return res.writeHead(403).end(JSON.stringify({ success: false, errors: [{ code: 10000, message: "Authentication error" }], result: null }));
    if (req.method === "PUT") modes.set(id, (JSON.parse(text) as { read_replication: { mode: string } }).read_replication.mode);
    res.writeHead(200).end(JSON.stringify({ success: true, errors: [], result: { uuid: id, read_replication: { mode: modes.get(id) ?? "disabled" } } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/client/v4`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** wrangler.toml with real-looking database ids (as after `wrangler d1 create`). */
function deployedConfig() {
  let toml = readFileSync(join(root, "wrangler.toml"), "utf8");
  for (const [binding, id] of Object.entries(IDS)) {
    toml = toml.replace(new RegExp(`(binding = "${binding}"\\n(?:.*\\n)*?database_id = )"[^"]*"`), `$1"${id}"`);
  }
  const file = join(mkdtempSync(join(tmpdir(), "replication-")), "wrangler.toml");
  writeFileSync(file, toml);
  return file;
}

function replication(args: string[], env: Record<string, string | undefined> = {}): Promise<{ exit: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, "scripts", "replication.mjs"), ...args], {
      cwd: root,
      env: { ...process.env, CLOUDFLARE_ACCOUNT_ID: ACCOUNT, CLOUDFLARE_API_TOKEN: TOKEN, CLOUDFLARE_API_BASE_URL: base, ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (exit) => resolve({ exit, stdout, stderr }));
  });
}

describe("npm run db:replication", () => {
  it("turns read replication on for every shard and the directory, one PUT each, then shows it", async () => {
    seen.length = 0;
    const config = deployedConfig();
    const on = await replication(["--config", config]);
    expect(on).toEqual({
      exit: 0,
      stdout:
        "→ DB (order-intake): read replication auto\n" +
        "→ SHARD_1 (order-intake-shard-1): read replication auto\n" +
        "→ DIRECTORY (order-intake-directory): read replication auto\n",
      stderr: "",
    });
    expect(seen).toEqual(
      Object.values(IDS).map((id) => ({ method: "PUT", url: `/client/v4/accounts/${ACCOUNT}/d1/database/${id}`, auth: `Bearer ${TOKEN}`, body: { read_replication: { mode: "auto" } } })),
    );

    seen.length = 0;
    const shown = await replication(["--config", config, "--show"]);
    expect(shown.exit).toBe(0);
    expect(shown.stdout).toContain("→ SHARD_1 (order-intake-shard-1): read replication auto\n");
    expect(seen.map((s) => s.method)).toEqual(["GET", "GET", "GET"]);

    const off = await replication(["--config", config, "--mode", "disabled"]);
    expect(off.exit).toBe(0);
    expect(off.stdout).toContain("→ DIRECTORY (order-intake-directory): read replication disabled\n");
  });

  it("says which database Cloudflare refused, in its words, does the others and exits non-zero", async () => {
    refused = IDS.SHARD_1;
    try {
      const run = await replication(["--config", deployedConfig()]);
      expect(run.exit).toBe(1);
      expect(run.stdout).toBe("→ DB (order-intake): read replication auto\n→ DIRECTORY (order-intake-directory): read replication auto\n");
      expect(run.stderr).toBe(
        "✗ SHARD_1 (order-intake-shard-1): HTTP 403: Authentication error (code 10000)\n\n✗ 1 of 3 database(s) not done; the others are. Running the command again is safe.\n",
      );
    } finally {
      refused = null;
    }
  });

  it("refuses the repository's placeholder ids before calling anything", async () => {
    seen.length = 0;
    const run = await replication([]);
    expect(run.exit).toBe(1);
    expect(run.stderr).toContain("✗ DB, SHARD_1, DIRECTORY still have a placeholder database_id in");
    expect(seen).toEqual([]);
  });

  it("refuses to run without the account and token, and a mode it does not know", async () => {
    const noToken = await replication(["--config", deployedConfig()], { CLOUDFLARE_API_TOKEN: "" });
    expect(noToken.exit).toBe(2);
    expect(noToken.stderr).toMatch(/^✗ Set CLOUDFLARE_ACCOUNT_ID and CLOUDFLARE_API_TOKEN/);
    const mode = await replication(["--mode", "on"]);
    expect(mode.exit).toBe(2);
    expect(mode.stderr).toMatch(/^✗ --mode must be auto or disabled, not "on"\./);
  });
});
