#!/usr/bin/env node
// Copies Swagger UI's files from node_modules into public/docs, so /docs is served by the Worker's
// own static assets (no CDN). Run by npm start, npm test and npm run deploy.
import { copyFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const from = join(root, "node_modules", "swagger-ui-dist");
if (!existsSync(from)) {
  console.error("swagger-ui-dist is not installed; run npm install first.");
  process.exit(1);
}
for (const file of ["swagger-ui-bundle.js", "swagger-ui.css"]) {
  copyFileSync(join(from, file), join(root, "public", "docs", file));
}
