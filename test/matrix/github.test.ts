import { describe, expect, it } from "vitest";
import { ghData, ghProperty } from "../../src/matrix/escape.ts";
import { capAnnotations, GITHUB_ANNOTATION_LIMIT, renderGithub } from "../../src/matrix/github.ts";
import type { Results } from "../../src/model/results.ts";
import { fixture, XSS_SCRIPT } from "./helpers.ts";

/** Every annotation, before the cap. */
function uncapped(results: Results): string[] {
  return renderGithub(results, { annotationLimit: Number.POSITIVE_INFINITY }).annotations;
}

describe("renderGithub", () => {
  it("matches the committed snapshot", async () => {
    const { summary, annotations } = renderGithub(fixture("fail").results);
    await expect(`${summary}\n---annotations---\n${annotations.join("\n")}\n`).toMatchFileSnapshot(
      "./__snapshots__/github.fail.txt",
    );
  });

  it("annotates every failing, erroring or warning case once, and case-less cells that need attention", () => {
    const { results } = fixture("fail");
    const annotations = uncapped(results);
    const cases = results.cells.flatMap((c) => c.cases);
    const errors = cases.filter((c) => c.status === "fail" || c.status === "error").length;
    const warnings = cases.filter((c) => c.status === "warn").length;
    const gaps = results.cells.filter((c) => c.status === "gap" && c.cases.length === 0).length;
    expect(annotations.filter((a) => a.startsWith("::error title="))).toHaveLength(errors);
    expect(annotations.filter((a) => a.startsWith("::warning title="))).toHaveLength(warnings + gaps);
    expect(annotations).toHaveLength(errors + warnings + gaps);
    for (const a of annotations) {
      expect(a).not.toMatch(/[\r\n]/);
      expect(a).toMatch(/^::(error|warning) title=[^:,]*::.+/);
    }
    expect(annotations.some((a) => a.includes(XSS_SCRIPT))).toBe(true); // plain text in a log line, not markup
  });

  it("writes at most 10 annotations, worst first, the last a notice counting the rest", () => {
    const { results } = fixture("fail");
    const all = uncapped(results);
    expect(all.length).toBeGreaterThan(GITHUB_ANNOTATION_LIMIT);
    const { annotations } = renderGithub(results);
    expect(GITHUB_ANNOTATION_LIMIT).toBe(10);
    expect(annotations).toHaveLength(10);
    expect(annotations.slice(0, 9)).toEqual(all.slice(0, 9));
    const rest = all.slice(9);
    const errors = rest.filter((a) => a.startsWith("::error ")).length;
    expect(annotations[9]).toBe(
      `::notice title=mcpx-conform%3A more problems::…and ${rest.length} more (${errors} error(s) and ${rest.length - errors} warning(s)) not annotated: the step summary, matrix.md and matrix.html list them all`,
    );
    // errors come before warnings
    const firstWarning = all.findIndex((a) => a.startsWith("::warning "));
    expect(all.slice(firstWarning).some((a) => a.startsWith("::error "))).toBe(false);
    // ten or fewer are written as they are
    expect(capAnnotations(all.slice(0, 10))).toEqual(all.slice(0, 10));
    expect(capAnnotations(all.slice(0, 11))).toHaveLength(10);
  });

  it("a passing run has no annotations and a passing summary", () => {
    const { summary, annotations } = renderGithub(fixture("pass").results);
    expect(annotations).toEqual([]);
    expect(summary).toContain("✅ every run cell passed or does not apply");
    expect(summary).not.toContain("| status | row |");
  });

  it("escapes %, CR and LF in messages, and also : and , in titles", () => {
    expect(ghData("100% done\r\nnext\n::error::x")).toBe("100%25 done%0D%0Anext%0A::error::x");
    expect(ghProperty("a: b, c%\n")).toBe("a%3A b%2C c%25%0A");
    const r: Results = structuredClone(fixture("pass").results);
    r.cells[0]!.status = "fail";
    r.cells[0]!.cases[0]!.status = "fail";
    r.cells[0]!.cases[0]!.id = "id,with:odd";
    r.cells[0]!.cases[0]!.reason = "line one\nline two 50%\r\n::warning::forged";
    const [line] = renderGithub(r).annotations;
    expect(line).toBe(
      `::error title=${r.cells[0]!.row} @ ${r.cells[0]!.era} (client) · id%2Cwith%3Aodd::line one%0Aline two 50%25%0D%0A::warning::forged [evidence: ${r.cells[0]!.cases[0]!.evidence}]`,
    );
    expect(line!.split("\n")).toHaveLength(1);
  });

  it("escapes relay text in the step summary", () => {
    const { summary } = renderGithub(fixture("fail").results);
    expect(summary).not.toMatch(/<script|<img|<b>/);
  });
});
