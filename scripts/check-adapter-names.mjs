#!/usr/bin/env node
// `npm test` runs this beside the layering check: no code outside an adapter folder decides by a
// supplier channel's or a shop platform's name. Channels live in src/forwarding/channels/ and
// platforms in src/shops/platforms/; everything else asks their registries what an adapter says
// of itself (docs/adapters.md). What counts as deciding by name, in src/ outside those folders:
//   - comparing something named *channel* or *platform* with a name: `x.channel === "file"`, `"pull" !== platform`;
//   - a `switch` on something named *channel* or *platform*;
//   - SQL or Drizzle comparing a channel or platform column with a name: `channel = 'manual'`, `eq(suppliers.channel, "file")`,
//     `channel IN ('webhook', …)`;
//   - an object keyed by two or more of the names on one line (`{ webhook: …, email: … }`), or any table typed as
//     keyed by them (`Record<Channel, …>`, `Record<ShopPlatformName, …>`).
// The names are read from the adapters themselves (each adapter's `name: "…"`), so a new adapter is covered at once.
// Exits 1 with each offending line; `--list` prints the names it knows.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(fileURLToPath(import.meta.url), "..", "..");
const ADAPTER_FOLDERS = ["src/forwarding/channels", "src/shops/platforms"];

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

/** The names the adapters give themselves. */
export function adapterNames() {
  const names = new Set();
  for (const folder of ADAPTER_FOLDERS) {
    for (const file of files(join(root, folder))) {
      for (const m of readFileSync(file, "utf8").matchAll(/^\s{2}name: "([a-z0-9_-]+)",$/gm)) names.add(m[1]);
    }
  }
  return [...names];
}

/** The offending lines of one file's text: [line number, text, why]. */
export function nameSwitches(text, names) {
  const n = names.map((s) => s.replace(/[-]/g, "\\-")).join("|");
  const q = `["'\`](?:${n})["'\`]`;
  const subject = String.raw`(?:[\w?]+\.)*\w*(?:channel|platform)\w*`;
  const rules = [
    [new RegExp(String.raw`\b${subject}\s*[!=]==?\s*${q}`, "i"), "compares a channel or platform with a name"],
    [new RegExp(String.raw`${q}\s*[!=]==?\s*${subject}\b`, "i"), "compares a channel or platform with a name"],
    [new RegExp(String.raw`\bswitch\s*\(\s*${subject}\s*\)`, "i"), "switches on a channel or platform"],
    [new RegExp(String.raw`\b\w*(?:channel|platform)\w*\s*(?:=|<>|!=|\bIN\s*\()\s*'(?:${n})'`, "i"), "compares a channel or platform column with a name in SQL"],
    [new RegExp(String.raw`\b(?:eq|ne)\(\s*[\w.]*(?:channel|platform)\w*\s*,\s*${q}`, "i"), "compares a channel or platform column with a name"],
    [new RegExp(String.raw`\{[^{}]*\b(?:${n})\s*:[^{}]*\b(?:${n})\s*:`), "is a table keyed by adapter names"],
    [/\bRecord<\s*(?:Channel|ChannelName|ShopPlatformName|Supplier\["channel"\])\s*,/, "is a table keyed by adapter names"],
  ];
  const out = [];
  text.split("\n").forEach((line, i) => {
    if (/^\s*(\/\/|\*|\/\*)/.test(line)) return; // comments may name adapters
    for (const [re, why] of rules) if (re.test(line)) out.push([i + 1, line.trim(), why]);
  });
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = adapterNames();
  if (process.argv.includes("--list")) {
    console.log(names.join(" "));
    process.exit(0);
  }
  const inAdapter = (path) => ADAPTER_FOLDERS.some((f) => relative(root, path).startsWith(f + "/"));
  const found = [];
  for (const file of files(join(root, "src")).filter((f) => !inAdapter(f))) {
    for (const [line, text, why] of nameSwitches(readFileSync(file, "utf8"), names)) found.push(`${relative(root, file)}:${line}: ${why}: ${text}`);
  }
  if (found.length) {
    console.error(`✗ Code outside the adapters decides by an adapter's name (docs/adapters.md: ask the registry what the adapter says instead):\n${found.join("\n")}`);
    process.exit(1);
  }
  console.log(`✔ no adapter name switches outside the adapters (${names.length} names: ${names.join(", ")})`);
}
