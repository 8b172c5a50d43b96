// Every link of README.md and docs/*.md leads somewhere in this repository: a file that exists
// (and, for a page, a heading it has), or a heading of the same page. Nothing points outside the
// repository (a path above its root, a web site): the docs are whole in a clone.
import { existsSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { anchors, docFiles, links, read, root } from "./markdown";

function problems(file: string): string[] {
  const found: string[] = [];
  for (const { target, line } of links(read(file))) {
    const where = `${file}:${line} ${target}`;
    if (/^http:\/\/localhost:8787(\/|$)/.test(target)) continue; // the server npm start runs
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      found.push(`${where}: points outside the repository`);
      continue;
    }
    const [path, anchor] = target.split("#") as [string, string | undefined];
    const file2 = path === "" ? file : normalize(join(dirname(file), decodeURIComponent(path)));
    if (relative(root, join(root, file2)).startsWith("..")) {
      found.push(`${where}: points outside the repository`);
      continue;
    }
    if (!existsSync(join(root, file2))) {
      found.push(`${where}: no such file`);
      continue;
    }
    if (anchor !== undefined) {
      if (!file2.endsWith(".md") || statSync(join(root, file2)).isDirectory()) found.push(`${where}: an anchor into a file that is not a page`);
      else if (!anchors(read(file2)).has(anchor)) found.push(`${where}: ${file2} has no heading #${anchor}`);
    }
  }
  return found;
}

describe("the documentation's links", () => {
  it("reads README.md and at least the reference pages under docs/", () => {
    expect(docFiles()).toContain("README.md");
  });

  for (const file of docFiles()) {
    it(`${file}: every relative link resolves to a file (and heading) of the repository, none points outside`, () => {
      expect(problems(file)).toEqual([]);
    });
  }

  it("names no path outside the repository (the contract is described under docs/, not linked)", () => {
    const outside = docFiles().filter((f) => /\.\.\/shared|shared\/spec/.test(read(f)));
    expect(outside).toEqual([]);
  });
});
