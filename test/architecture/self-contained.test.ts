import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The project stands alone: a user of the package or of a clone has no folder beside it, so no file may point to one
 * (an absolute path into a workspace, or `../shared/…`). Cite the public specification (revision URL and section), a
 * public repository at a commit, or a document inside the repository.
 */
const ROOT = resolve(import.meta.dirname, "../..");
const OUTSIDE =
  /\/work\/shared\b|\.\.\/shared\/(?:reference|DESIGN|STYLE)|\/work\/main\b|mcpx-notes|spec-sampling\.md/;

describe("no file points outside the repository", () => {
  it("holds for every tracked file", () => {
    const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], {
      cwd: ROOT,
      encoding: "utf8",
    })
      .split("\n")
      .filter((f) => f && !f.endsWith(".png") && !f.startsWith("matrix/targets/"));
    const found: string[] = [];
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(join(ROOT, file), "utf8");
      } catch {
        continue; // listed but gone (deleted in the work tree)
      }
      text.split("\n").forEach((line, i) => {
        if (OUTSIDE.test(line) && file !== "test/architecture/self-contained.test.ts")
          found.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(found).toEqual([]);
  });
});
