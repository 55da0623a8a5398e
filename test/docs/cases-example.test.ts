import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

/** The annotated case of docs/cases.md is the committed case file, comments aside: the example cannot drift. */
const ROOT = resolve(import.meta.dirname, "../..");
const FILE = "cases/sampling-client-errors-user-rejected-and-tool-shape/tool-result-missing-32602.yaml";

function annotatedExample(page: string): string | undefined {
  return /## One case, annotated[\s\S]*?```yaml\n([\s\S]*?)```/.exec(page)?.[1];
}

describe("the annotated case in docs/cases.md", () => {
  it(`is ${FILE}`, () => {
    const example = annotatedExample(readFileSync(join(ROOT, "docs/cases.md"), "utf8"));
    expect(example, "docs/cases.md has a yaml block under 'One case, annotated'").toBeDefined();
    expect(parse(example!)).toEqual(parse(readFileSync(join(ROOT, FILE), "utf8")));
  });

  it("differs when the example does (the check can fail)", () => {
    const page = "## One case, annotated\n\n```yaml\nid: x\nrow: y # a comment\n```\n";
    expect(parse(annotatedExample(page)!)).toEqual({ id: "x", row: "y" });
    expect(parse(annotatedExample(page.replace("y #", "z #"))!)).not.toEqual({ id: "x", row: "y" });
  });
});
