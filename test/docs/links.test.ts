import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { brokenLinks, linkTargets, slugs } from "./links.ts";

/** README.md and every page under docs/ (and its folders): each relative link and #anchor resolves. */
const ROOT = resolve(import.meta.dirname, "../..");

function committedPages(): Map<string, string> {
  const pages = new Map<string, string>([["README.md", readFileSync(join(ROOT, "README.md"), "utf8")]]);
  // docs/ and its folders one level down (docs/real-relays/: a page per registry).
  const folders = [
    "docs",
    ...readdirSync(join(ROOT, "docs"), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `docs/${e.name}`),
  ];
  for (const folder of folders.sort())
    for (const name of readdirSync(join(ROOT, folder))
      .filter((n) => n.endsWith(".md"))
      .sort())
      pages.set(`${folder}/${name}`, readFileSync(join(ROOT, folder, name), "utf8"));
  return pages;
}

describe("links in README.md and docs/", () => {
  it("every relative link and #anchor resolves", () => {
    const pages = committedPages();
    expect(pages.size).toBeGreaterThan(8);
    expect([...pages.keys()]).toContain("docs/real-relays/sdks.md");
    expect(brokenLinks({ pages, exists: (p) => existsSync(join(ROOT, p)) })).toEqual([]);
  });

  it("fails on a missing file, a missing page and a missing anchor (the check can fail)", () => {
    const pages = new Map([
      [
        "README.md",
        "# Tool\n\n[ok](docs/a.md#the-heading) [gone](docs/missing.md) [bad](docs/a.md#no-such-heading) [self](#tool)\n",
      ],
      ["docs/a.md", "# A\n\n## The heading\n\n[up](../README.md#tool) [here](#nowhere)\n"],
    ]);
    const exists = (p: string) => pages.has(p) || p === "docs";
    expect(brokenLinks({ pages, exists })).toEqual([
      "README.md: docs/missing.md (no such file: docs/missing.md)",
      "README.md: docs/a.md#no-such-heading (no heading #no-such-heading in docs/a.md)",
      "docs/a.md: #nowhere (no heading #nowhere in docs/a.md)",
    ]);
  });

  it("slugs headings as GitHub does", () => {
    const page =
      "# Set-up (fresh clone)\n\n## `--stable`: bytes, not time\n\n## Set-up (fresh clone)\n\n## Bounds × eras — 2 MB\n";
    expect([...slugs(page)]).toEqual([
      "set-up-fresh-clone",
      "--stable-bytes-not-time",
      "set-up-fresh-clone-1",
      "bounds--eras--2-mb",
    ]);
  });

  it("reads no link inside code", () => {
    expect(linkTargets("```md\n[x](nowhere.md)\n```\n`[y](nowhere.md)` [z](there.md)\n")).toEqual([
      "there.md",
    ]);
  });
});
