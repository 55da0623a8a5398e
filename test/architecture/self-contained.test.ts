import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The project stands alone: a user of the package or of a clone has no folder beside it, so no file may point to one
 * (an absolute path into a workspace, or `../shared/…`, or the notes kept there). Cite the public specification
 * (revision URL and section), a public repository at a commit, or a document inside the repository.
 */
const ROOT = resolve(import.meta.dirname, "../..");
const OUTSIDE =
  /\/work\/shared\b|\.\.\/shared\/(?:reference|DESIGN|STYLE)|\/work\/main\b|mcpx-notes|spec-sampling\.md/;
/** Not the project's own text: installed, built, generated or run output, and pictures. */
const SKIP =
  /^(?:node_modules|\.git|dist|\.venv-relays|\.go-relays|\.cargo-relays|\.java-relays|coverage|\.stryker-tmp|reports|mcpx-conform-report|matrix\/targets)(?:\/|$)|\.(?:png|log)$/;
const THIS = "test/architecture/self-contained.test.ts";

function projectFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    const rel = relative(ROOT, path);
    if (SKIP.test(rel)) return [];
    return entry.isDirectory() ? projectFiles(path) : [rel];
  });
}

describe("no file points outside the repository", () => {
  it("holds for every file of the project", () => {
    const found: string[] = [];
    for (const file of projectFiles(ROOT)) {
      if (file === THIS) continue;
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (OUTSIDE.test(line)) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
        });
    }
    expect(found).toEqual([]);
  });
});
