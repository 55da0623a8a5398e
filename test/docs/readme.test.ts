import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/** The README is the first screen: short, with a fresh clone's two set-up commands near its top. */
const ROOT = resolve(import.meta.dirname, "../..");
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const lines = readme.trimEnd().split("\n");

describe("README.md", () => {
  it("is at most 200 lines", () => {
    expect(lines.length).toBeLessThanOrEqual(200);
  });

  it("has the two set-up commands of a fresh clone in its first 40 lines", () => {
    const top = lines.slice(0, 40);
    expect(top).toContain("npm ci && npx mcpx-conform run");
    expect(top).toContain("npm ci && npm run test:setup && npm test");
  });

  it("links every page of docs/", () => {
    const pages = ["cli", "profiles", "how-it-works", "cases", "results", "reliability", "ci", "self-test"];
    for (const page of [...pages, "real-relays", "benchmarks", "architecture"])
      expect(readme, `README.md links docs/${page}.md`).toContain(`](docs/${page}.md`);
  });
});
