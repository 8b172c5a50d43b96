// Smaller rooms (issue 32): no source file over 400 lines, and each source file over 150 lines has a
// test named after it (src/orders/order.pages.tsx -> test/**/order.pages*.test.ts). The files that do
// not hold yet are written in allow-lists beside this test, so that the lists can only shrink: a new
// file breaking a rule fails here, and so does a listed file that now keeps it (take it off the list).
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "./markdown";

function files(dir: string, match: RegExp): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(`${dir}/${e.name}`, match) : match.test(e.name) ? [`${dir}/${e.name}`] : [],
  );
}
const lineCount = (path: string) => readFileSync(join(root, path), "utf8").split("\n").length - 1;
const listed = (name: string) =>
  readFileSync(join(root, "test/docs", name), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));

const sources = files("src", /\.tsx?$/).filter((p) => !p.endsWith(".d.ts"));
const tests = files("test", /\.test\.ts$/).map((p) => basename(p));

describe("smaller rooms", () => {
  it("no source file is over 400 lines, but those left on test/docs/over-400-lines.txt", () => {
    const over = sources.filter((p) => lineCount(p) > 400).sort();
    expect(over).toEqual(listed("over-400-lines.txt").sort());
  });

  it("each source file over 150 lines has a test named after it, but those left on test/docs/untested-names.txt", () => {
    const stem = (p: string) => basename(p).replace(/\.tsx?$/, "");
    const unnamed = sources.filter((p) => lineCount(p) > 150 && !tests.some((t) => t.startsWith(`${stem(p)}.`))).sort();
    expect(unnamed).toEqual(listed("untested-names.txt").sort());
  });
});
