import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  expectedText,
  GENERATED,
  REGENERATE,
  renderCliReference,
  renderProfileFields,
  replaceBlock,
} from "../../scripts/docs-reference.ts";

const ROOT = resolve(import.meta.dirname, "../..");

/**
 * The reference in docs/ is written from the code (scripts/gen-docs.ts): a committed page that differs from what the
 * script writes now is a reference that drifted.
 */
describe("the generated reference in docs/", () => {
  for (const entry of GENERATED) {
    it(`${entry.file} is what scripts/gen-docs.ts writes`, () => {
      const committed = readFileSync(join(ROOT, entry.file), "utf8");
      const fresh = expectedText(committed, entry);
      expect(
        committed === fresh,
        `${entry.file} differs from the code it is generated from: run \`${REGENERATE}\` and commit ${entry.file}` +
          firstDifference(committed, fresh),
      ).toBe(true);
    });
  }

  it("fails on a page whose option description is not the code's (the check can fail)", () => {
    const entry = GENERATED.find((e) => e.file === "docs/cli.md")!;
    const committed = readFileSync(join(ROOT, entry.file), "utf8");
    const drifted = committed.replace("print only the summary line", "print only the final line");
    expect(drifted).not.toBe(committed);
    expect(expectedText(drifted, entry)).not.toBe(drifted);
  });

  it("keeps the hand-written text around a block, and refuses a page without its markers", () => {
    const page = `# Page\n\nbefore\n\n${blockOf("x", "old")}\n\nafter\n`;
    const fresh = replaceBlock(page, "x", "new", "page.md");
    expect(fresh).toContain("before");
    expect(fresh).toContain("after");
    expect(fresh).toContain("\nnew\n");
    expect(fresh).not.toContain("old");
    expect(() => replaceBlock("# no markers\n", "x", "new", "page.md")).toThrow(
      /page\.md: expected the marker/,
    );
  });

  it("asks for a description of a profile field that has none, naming the field", () => {
    const schema = z.object({
      name: z.string().describe("the target's name"),
      package: z.object({ npm: z.string() }).describe("where the relay comes from"),
    });
    expect(() => renderProfileFields(schema)).toThrow(/describe.*none on package\.npm$/);
    expect(renderProfileFields(z.object({ name: z.string().describe("the target's name") }))).toContain(
      "| `name` | string | yes |  | the target's name |",
    );
  });

  it("gives every command an example, shown last", () => {
    const reference = renderCliReference();
    for (const section of reference.split(/\n### /).slice(1))
      expect(section.trimEnd(), section.split("\n")[0]).toMatch(/Example:\n\n```sh\nmcpx-conform .+\n```$/);
  });
});

/** Where two texts first differ, as a line of each. */
function firstDifference(committed: string, fresh: string): string {
  const a = committed.split("\n");
  const b = fresh.split("\n");
  const at = a.findIndex((line, i) => line !== b[i]);
  const line = at < 0 ? a.length : at;
  return ` (first difference, line ${line + 1}:\n  committed: ${a[line] ?? "(end)"}\n  generated: ${b[line] ?? "(end)"})`;
}

function blockOf(block: string, content: string): string {
  const page = replaceBlock(
    `<!-- BEGIN GENERATED ${block}: written by scripts/gen-docs.ts (${REGENERATE}); edit the code, not this block -->\n<!-- END GENERATED ${block} -->`,
    block,
    content,
    "page.md",
  );
  return page;
}
