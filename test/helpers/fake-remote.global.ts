// A fake remote party (a supplier's endpoint, a shop's webhook receiver) as a real HTTP server on
// loopback: the Worker under test reaches it with a real fetch, so nothing about our own
// platform is mocked. The first path segment picks the behaviour:
//   /ok/...          200 {"received": true}
//   /status-NNN/...  answers NNN with {"error": "status NNN"}   (e.g. /status-422/..., /status-503/...)
//   /flaky-N/...     500 for the first N requests to this exact path, then 200
//   /slow/...        never answers in time (the caller's timeout fires)
//   /reset/...       resets the connection without answering
//   /not-http/...    answers with bytes that are not HTTP (an SSH server's greeting: a wrong port)
//   /truncated/...   200 text/csv announcing 4 KiB, then drops the connection after the first line
//   /html/...        200 text/html: a sign-in page where a file was expected
//   /json/...        200 application/json {"data": []}
//   /csv/...         200 text/csv with two products (sku,name,purchase_price,stock_quantity)
// A port nothing listens on is provided as closedPortUrl (a connection there is refused).
// GET /__log/<prefix> returns every recorded request whose path starts with /<prefix>.
import http from "node:http";
import net from "node:net";
import type { TestProject } from "vitest/node";

/** The first of a few low ports where a connection on loopback is refused now. */
async function refusedLowPort(): Promise<number> {
  for (const port of [9, 47, 1, 99, 199]) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(false)));
      socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
    });
    if (refused) return port;
  }
  throw new Error("no low port on 127.0.0.1 refuses connections (9, 47, 1, 99, 199 all answer)");
}

type Recorded = { method: string; path: string; headers: Record<string, string>; body: string; at: number };

export default async function setup(project: TestProject) {
  const log: Recorded[] = [];
  const seen = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      if (req.method === "GET" && path.startsWith("/__log/")) {
        const prefix = decodeURIComponent(path.slice("/__log".length));
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(log.filter((r) => r.path.startsWith(prefix))));
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : String(v);
      log.push({ method: req.method ?? "GET", path, headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      const scenario = path.split("/")[1] ?? "";
      const count = (seen.get(path) ?? 0) + 1;
      seen.set(path, count);
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (scenario === "ok") return reply(200, { received: true });
      // /redirect/<id>?to=<url>: a 302 to wherever `to` says (a server sending a client elsewhere).
      if (scenario === "redirect") {
        res.writeHead(302, { location: new URL(path, "http://remote").searchParams.get("to") ?? "/" });
        return void res.end();
      }
      if (scenario === "reset") return void req.socket.resetAndDestroy();
      if (scenario === "not-http") return void req.socket.end("SSH-2.0-OpenSSH_9.6\r\n");
      if (scenario === "truncated") {
        res.writeHead(200, { "content-type": "text/csv", "content-length": "4096" });
        res.write("sku,name\nA,Alpha\n");
        return void setTimeout(() => req.socket.resetAndDestroy(), 50).unref();
      }
      const file = (type: string, body: string) => {
        res.writeHead(200, { "content-type": type });
        res.end(body);
      };
      if (scenario === "html") return file("text/html; charset=utf-8", "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Please sign in</body></html>");
      if (scenario === "json") return file("application/json", JSON.stringify({ data: [] }));
      if (scenario === "csv") return file("text/csv", "sku,name,purchase_price,stock_quantity\nA,Alpha,1.50,10\nB,Beta,2.50,20\n");
      if (scenario === "slow") return void setTimeout(() => reply(200, { received: "late" }), 30_000).unref();
      const status = /^status-(\d{3})$/.exec(scenario);
      if (status) return reply(Number(status[1]), { error: `status ${status[1]}` });
      // /retry-after-N/...: a 429 asking the client to wait N seconds (Retry-After, RFC 9110).
      const slowDown = /^retry-after-(\d+)$/.exec(scenario);
      if (slowDown) {
        res.writeHead(429, { "content-type": "application/json", "retry-after": slowDown[1] });
        return void res.end(JSON.stringify({ error: "slow down" }));
      }
      const flaky = /^flaky-(\d+)$/.exec(scenario);
      if (flaky) return count <= Number(flaky[1]) ? reply(500, { error: "flaky" }) : reply(200, { received: true });
      reply(404, { error: "unknown scenario" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  project.provide("fakeRemoteUrl", `http://127.0.0.1:${port}`);
  // A port nothing listens on, for the whole run: one below the ephemeral range, so that no server
  // started meanwhile (another suite's Worker, a browser) can be given it by the system, as a port
  // that was merely free at setup could be (it was, and answered 404 minutes later).
  project.provide("closedPortUrl", `http://127.0.0.1:${await refusedLowPort()}`);
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}
