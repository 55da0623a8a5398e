import { describe, expect, it } from "vitest";
import { compareView, renderCompareHtml, renderCompareMarkdown } from "../../src/matrix/compare.ts";
import type { Results } from "../../src/model/results.ts";
import {
  FAIL_RESULTS,
  loadFixtureRegister,
  loadFixtureResults,
  PASS_RESULTS,
  XSS_IMG,
  XSS_SCRIPT,
} from "./helpers.ts";

const pass = loadFixtureResults(PASS_RESULTS);
const fail = loadFixtureResults(FAIL_RESULTS);
const register = loadFixtureRegister();

function targets(extra: Partial<Results["target"]> = {}) {
  return [
    { name: "good", results: pass, matrixHref: "good/matrix.html" },
    {
      name: extra.name ?? "bad",
      results: { ...fail, target: { ...fail.target, ...extra } },
      matrixHref: "bad/matrix.md",
    },
  ];
}

describe("compare: several targets side by side, rows × targets per era", () => {
  it("gives one cell per target for every row a target has in an era, with the worst side's status", () => {
    const view = compareView(targets(), register, "t");
    for (const { era, rows } of view.eras)
      for (const row of rows) {
        expect(row.cells).toHaveLength(2);
        row.cells.forEach((cell, i) => {
          const results = i === 0 ? pass : fail;
          const cells = results.cells.filter((c) => c.row === row.id && c.era === era);
          if (cells.length === 0) expect(cell.label).toBe("—");
          else expect(cells.map((c) => c.status)).toContain(cell.status);
        });
      }
    const failing = fail.cells.find((c) => c.status === "fail")!;
    const row = view.eras.find((e) => e.era === failing.era)!.rows.find((r) => r.id === failing.row)!;
    expect(row.cells[1]!.status).toBe("fail");
  });

  it("links a cell into a matrix.html at that cell, and a matrix.md only from the target's name", () => {
    const view = compareView(targets(), register, "t");
    const cells = view.eras.flatMap((e) => e.rows.flatMap((r) => r.cells));
    expect(
      cells
        .filter((c, i) => i % 2 === 0 && c.label !== "—")
        .every((c) => c.href?.startsWith("good/matrix.html#")),
    ).toBe(true);
    expect(cells.filter((_, i) => i % 2 === 1).every((c) => c.href === undefined)).toBe(true);
    const md = renderCompareMarkdown(view);
    expect(md).toContain("[bad](bad/matrix.md)");
    expect(md).toMatch(/\| `[a-z-]+` \| [A-Z ]* \| .* \| .* \|/);
  });

  it("escapes what a relay controls (its target name) in both pages", () => {
    const view = compareView(targets({ name: `${XSS_SCRIPT}${XSS_IMG}` }), register, "t");
    const html = renderCompareHtml(view);
    expect(html).not.toContain("<script>window");
    expect(html).not.toContain("<img src=x");
    expect(renderCompareMarkdown(view)).not.toContain("<script>");
  });

  it("shows status as a word on its own colour in the page (no emoji needed)", () => {
    const html = renderCompareHtml(compareView(targets(), register, "t"));
    expect(html).toMatch(/<span class="badge s-fail">fail<\/span>/);
    expect(html).toMatch(/<span class="badge s-pass">pass<\/span>/);
  });
});
