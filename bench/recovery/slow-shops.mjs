// The project's stand-in shops (test/shops/stand-ins, TypeScript: bundled for Node with esbuild)
// behind a slow front: every write (any method but GET) waits `writeMs` and is then applied, even
// when the caller has gone meanwhile (a real shop finishes a request whose client hung up), and
// only then answered. The front records each write: when it came, when it was applied, whether
// the caller was still there to be answered. Lookups (GET) pass at once.
import { build } from "esbuild";
import http from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function startSlowShops(root, { writeMs = 1500 } = {}) {
  const outfile = join(root, "bench", ".data", "crash-stand-ins.mjs");
  await build({
    stdin: {
      contents:
        'export { startStandIns } from "./test/shops/stand-ins/harness.ts";\n' +
        'export { platforms } from "./test/shops/stand-ins/stand-ins.global.ts";',
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "error",
  });
  const mod = await import(pathToFileURL(outfile).href);
  const standIns = await mod.startStandIns(mod.platforms);
  const target = new URL(standIns.url);

  /** Every write through the front: { shop, method, path, at, applied, answered, callerGone }. */
  const writes = [];
  const front = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      const write = req.method !== "GET" && !req.url.startsWith("/__shops") ? { shop: req.url.split("/")[2], method: req.method, path: req.url, at: Date.now(), applied: null, answered: null, callerGone: false } : null;
      if (write) {
        writes.push(write);
        res.on("close", () => {
          if (write.answered === null) write.callerGone = true;
        });
        await sleep(writeMs);
      }
      // The Host header as the caller sent it: the front is the shop's address (WooCommerce's OAuth
      // signature covers it).
      const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
        const parts = [];
        up.on("data", (c) => parts.push(c));
        up.on("end", () => {
          if (write) write.applied = Date.now();
          if (res.destroyed || res.writableEnded) return;
          res.writeHead(up.statusCode, up.headers);
          res.end(Buffer.concat(parts));
          if (write) write.answered = Date.now();
        });
      });
      upstream.on("error", () => {
        if (!res.destroyed) (res.writeHead(502), res.end());
      });
      upstream.end(body);
    });
  });
  await new Promise((r) => front.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${front.address().port}`;

  return {
    url,
    writes,
    /** A shop of the platform (its seed shape: see its stand-in), reached through the slow front. */
    async create(platform, seed) {
      const res = await fetch(`${standIns.url}/__shops`, { method: "POST", body: JSON.stringify({ platform, seed }) });
      if (res.status !== 201) throw new Error(`stand-in ${platform}: ${res.status} ${await res.text()}`);
      const shop = await res.json();
      return { ...shop, base_url: shop.base_url.replace(standIns.url, url) };
    },
    /** What the shop holds and every request it received (applied), oldest first. */
    async read(shopId) {
      return (await fetch(`${standIns.url}/__shops/${shopId}`)).json();
    },
    close: async () => {
      front.closeAllConnections();
      await new Promise((r) => front.close(r));
      await standIns.close();
    },
  };
}
