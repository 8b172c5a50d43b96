// README.md's "Where things are" is a map of the tree, and files move: every path it names must be
// there, and every folder of src/ must be on it. A name is read where the map puts it: from the
// root (`src/lib/queue.ts`, `drizzle/`), from src/ (`orders/cancellations.*`), or within the folder
// of its entry, at any depth (`journey.ts` under `src/routing/`, `ssh-transport.ts` under `src/lib/`).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codeBlocks, read, root } from "./markdown";

/** Every file and folder of the repository (folders with a trailing slash), what a clone holds. */
function tree(dir = "", out: string[] = []): string[] {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (/^(node_modules|\.git|\.wrangler|\.data|test-results)$/.test(entry.name)) continue;
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory()) {
      out.push(`${path}/`);
      tree(`${path}/`, out);
    } else out.push(path);
  }
  return out;
}

const escape = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
/** A named path as a pattern: `<capability>` is one folder, `*` any part of one name. */
const pattern = (name: string) => escape(name).replace(/<[a-z]+>/g, "[^/]+").replace(/\*/g, "[^/]*");

/** What looks like a path in a text: a name with a file extension (or `.*`), or a folder (ending in /). */
function pathsIn(text: string): string[] {
  return [...text.matchAll(/[\w./<>*-]+/g)]
    .map((m) => m[0].replace(/\.+$/, ""))
    .filter((t) => /\.(ts|tsx|sql|mjs|cjs|json|css|md|png|\*)$/.test(t) || (t.endsWith("/") && t.length > 1 && !t.startsWith("/")));
}

/** The map: the code block under the heading, as entries (a line at the margin and the lines indented under it). */
function mapEntries(): { head: string; text: string; line: number }[] {
  const readme = read("README.md");
  const at = readme.indexOf("\n## Where things are\n");
  const block = codeBlocks(readme).find((b) => b.line > readme.slice(0, at).split("\n").length);
  if (at < 0 || !block) return [];
  const entries: { head: string; text: string; line: number }[] = [];
  block.code.split("\n").forEach((l, i) => {
    if (/^\S/.test(l)) entries.push({ head: l.split(/\s{2,}/)[0], text: l, line: block.line + 1 + i });
    else if (entries.length) entries[entries.length - 1].text += `\n${l}`;
  });
  return entries;
}

const files = tree();

/**
 * The folders an entry's names are read within: those its head names from the root (`src/db/index.ts,
 * guards.ts` is in src/db/; `src/<capability>/*.pages.tsx` in src/).
 */
const foldersOf = (head: string) => pathsIn(head).map((p) => p.replace(/<.*$/, "").replace(/[^/]*$/, "")).filter((f) => f !== "");

/** The paths of the tree a name stands for, read from the root, from src/, or within one of `folders`. */
function resolve(name: string, folders: string[]): string[] {
  const within = folders.map((f) => `${escape(f)}(?:.*/)?`);
  const re = new RegExp(`^(?:|src/${within.map((w) => `|${w}`).join("")})${pattern(name)}$`);
  return files.filter((f) => re.test(f));
}

describe("README.md, Where things are: the map matches the tree", () => {
  const entries = mapEntries();

  it("finds the map and its entries", () => {
    expect(entries.map((e) => e.head)).toEqual(expect.arrayContaining(["src/index.ts", "src/pipeline/", "src/catalogue/", "test/"]));
  });

  it("names no path that is not there", () => {
    const missing: string[] = [];
    for (const e of entries) {
      // An entry's folders: those its head names from the root (`src/db/index.ts, guards.ts` is in src/db/).
      for (const name of pathsIn(e.text)) if (resolve(name, foldersOf(e.head)).length === 0) missing.push(`README.md:${e.line} (${e.head}) ${name}`);
    }
    expect(missing).toEqual([]);
  });

  it("puts every folder of src/ (and each folder in them) on the map", () => {
    // A folder is on the map when the map names it or something in it (`src/db/index.ts` puts src/db/ there).
    const named = new Set<string>();
    for (const e of entries) {
      for (const name of pathsIn(e.text)) {
        if (name.includes("<")) continue;
        for (const p of resolve(name, foldersOf(e.head))) for (let f = p.replace(/[^/]*\/?$/, ""); f; f = f.replace(/[^/]*\/$/, "")) named.add(f);
        for (const p of resolve(name, foldersOf(e.head))) if (p.endsWith("/")) named.add(p);
      }
    }
    const folders = files.filter((f) => /^src\/[^/]+\/([^/]+\/)?$/.test(f));
    expect(folders.filter((f) => !named.has(f))).toEqual([]);
  });

  it("every src/… path named anywhere in README.md is there", () => {
    const named = pathsIn(read("README.md")).filter((p) => p.startsWith("src/") && !p.includes("<"));
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((p) => !files.some((f) => new RegExp(`^${pattern(p)}$`).test(f)))).toEqual([]);
  });
});
