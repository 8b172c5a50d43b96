// Reading the documentation as the docs suite checks it: README.md and docs/*.md, their links,
// headings (as GitHub turns them into anchors) and their shell examples, split into steps with the
// output each step documents (`# -> …` lines under the command).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "../browser/worker";

export { root };

/** The documentation: the README and every page under docs/, as paths relative to the root. */
export function docFiles(): string[] {
  // Pages in sub-folders too (docs/shops/woocommerce.md), as "shops/woocommerce.md".
  const pages = readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  return ["README.md", ...pages];
}

export const read = (file: string) => readFileSync(join(root, file), "utf8");

export type CodeBlock = { lang: string; code: string; line: number; marker: string | null };

/** Fenced code blocks, each with the `<!-- docs-test: … -->` marker on the line before it, if any. */
export function codeBlocks(text: string): CodeBlock[] {
  const lines = text.split("\n");
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i].startsWith(open[1]); i++) body.push(lines[i]);
    const marker = /^<!-- docs-test: (.+?) -->$/.exec(lines[start - 1] ?? "")?.[1] ?? null;
    blocks.push({ lang: open[2], code: body.join("\n"), line: start + 1, marker });
  }
  return blocks;
}

/** The text outside fenced code blocks and inline code (where links and headings live). */
export function prose(text: string): string {
  return text.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, "").replace(/`[^`\n]*`/g, (m) => (m.includes("](") ? "" : m));
}

/** Every markdown link and image target of the prose, with its line. */
export function links(text: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  const withoutCode = text.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, (m) => m.replace(/[^\n]/g, "")).replace(/`[^`\n]*`/g, "");
  withoutCode.split("\n").forEach((line, i) => {
    for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ target: m[1], line: i + 1 });
  });
  return found;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors a page's headings make (a repeated heading gets -1, -2…, as on GitHub). */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const withoutCode = text.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, "");
  for (const m of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

export type Step = { code: string; expected: string | null; line: number };

/**
 * A shell example split into steps: the commands up to a documented output (`# -> …`, continued on
 * lines `#    …`) form one step with that output; what follows the last output is a step without.
 */
export function steps(block: CodeBlock): Step[] {
  const result: Step[] = [];
  let code: string[] = [];
  let startLine = block.line + 1;
  const lines = block.code.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const out = /^# -> ?(.*)$/.exec(lines[i]);
    if (!out) {
      if (code.length === 0) startLine = block.line + 1 + i;
      code.push(lines[i]);
      continue;
    }
    const expected = [out[1]];
    while (i + 1 < lines.length && /^# {2,}\S/.test(lines[i + 1])) expected.push(lines[++i].slice(1));
    result.push({ code: code.join("\n"), expected: expected.join("\n"), line: startLine });
    code = [];
  }
  if (code.some((l) => l.trim() && !l.trim().startsWith("#"))) result.push({ code: code.join("\n"), expected: null, line: startLine });
  return result;
}

/** Whether a step's output is the documented one: `…` stands for anything; line breaks and the indentation of wrapped lines do not count. */
export function matchesOutput(expected: string, actual: string): boolean {
  const flat = (s: string) =>
    s
      .split("\n")
      .map((l) => l.trim())
      .join("");
  const pattern = flat(expected)
    .split("…")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[\\s\\S]*?");
  return new RegExp(`^${pattern}$`).test(flat(actual));
}

/** The shell examples that talk to the server: ```bash blocks with a curl command in them. */
export const isCurlExample = (block: CodeBlock) => (block.lang === "bash" || block.lang === "sh") && /(^|[\s(|$])curl\s/m.test(block.code);
