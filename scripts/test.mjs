#!/usr/bin/env node
// `npm test`: from a fresh clone with nothing done before it. Installs what is missing, then
// type-checks and runs the whole suite (extra arguments go to vitest: `npm test -- test/orders`).
import { join } from "node:path";
import { bin, ensureDependencies, root, run } from "./lib/setup.mjs";

ensureDependencies();
run(bin("node"), [join(root, "scripts", "docs-assets.mjs")]);
run(bin("node"), [bin("tsc"), "--noEmit", "-p", "tsconfig.json"]);
run(bin("node"), [bin("tsc"), "--noEmit", "-p", "tsconfig.node.json"]);
run(bin("node"), [bin("vitest"), "run", ...process.argv.slice(2)]);
