// npm start's demo shop: a stand-in WooCommerce shop on a local port, which the demo account's
// dry-run connection points at (test/shops/stand-ins/demo.ts does the work, with the stand-ins the
// tests use). The stand-ins are TypeScript: esbuild (wrangler's own bundler) makes one file of them
// for this Node, in .wrangler/.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { root } from "./setup.mjs";

/** Starts the stand-in shops and points the demo's connection at a fresh demo shop; resolves to {shopUrl, connectionId, close}. */
export async function startDemoShop(demo) {
  const { build } = await import("esbuild");
  const outfile = join(root, ".wrangler", "demo-shop.mjs");
  await build({ entryPoints: [join(root, "test", "shops", "stand-ins", "demo.ts")], bundle: true, platform: "node", format: "esm", outfile, logLevel: "silent" });
  const { startDemoShop: start } = await import(`${pathToFileURL(outfile).href}?t=${Date.now()}`);
  return start(demo);
}
