#!/usr/bin/env node
// Copies the third-party files the Worker serves as static assets from node_modules into public/,
// so /docs and the console need no CDN: Swagger UI into public/docs, Pico CSS and htmx into
// public/console (beside the console's own console.css and console.js, which are committed).
// Run by npm start, npm test and npm run deploy; the copies are gitignored.
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const copies = [
  { from: "swagger-ui-dist/swagger-ui-bundle.js", to: "docs/swagger-ui-bundle.js" },
  { from: "swagger-ui-dist/swagger-ui.css", to: "docs/swagger-ui.css" },
  { from: "@picocss/pico/css/pico.min.css", to: "console/pico.min.css" },
  { from: "htmx.org/dist/htmx.min.js", to: "console/htmx.min.js" },
];
for (const { from, to } of copies) {
  const source = join(root, "node_modules", from);
  if (!existsSync(source)) {
    console.error(`${from} is not installed; run npm install first.`);
    process.exit(1);
  }
  mkdirSync(dirname(join(root, "public", to)), { recursive: true });
  copyFileSync(source, join(root, "public", to));
}
