#!/usr/bin/env node
// `npm run openapi [-- out.json]`: writes the OpenAPI document the Worker serves at /openapi.json
// to a file (default openapi.json). It boots the real Worker locally, so the file is exactly what
// clients get: the document is generated from the same zod schemas that validate requests.
import { writeFileSync } from "node:fs";
import { unstable_startWorker } from "wrangler";

const out = process.argv[2] ?? "openapi.json";
const worker = await unstable_startWorker({
  config: "wrangler.toml",
  dev: { server: { hostname: "127.0.0.1", port: 0 }, inspector: false, logLevel: "error" },
});
try {
  const res = await worker.fetch("http://localhost/openapi.json");
  if (!res.ok) throw new Error(`GET /openapi.json answered ${res.status}`);
  const doc = await res.json();
  writeFileSync(out, JSON.stringify(doc, null, 2) + "\n");
  console.log(`Wrote ${out}: OpenAPI ${doc.openapi}, ${Object.keys(doc.paths).length} paths.`);
} finally {
  await worker.dispose();
}
