/**
 * One defect, not forty: when an era's round trip fails, the cells of that era whose cases did not run (or prove
 * nothing) because of it are counted as one root cause in matrix.md, matrix.html, the PR comment and the site. They
 * stay failures: a missing prerequisite is not a pass.
 */
import { describe, expect, it } from "vitest";
import { renderHtml } from "../../src/matrix/html.ts";
import { renderMarkdown, renderPrComment, rootCauses, verdictLine } from "../../src/matrix/markdown.ts";
import { renderSite } from "../../src/matrix/site.ts";
import type { Cell, Results } from "../../src/model/results.ts";
import { fixture, loadFixtureRegister } from "./helpers.ts";

const register = loadFixtureRegister();
const ROOT = "sampling-relay-roundtrip";

/** The failing fixture with one era rewritten: its round trip fails, `n` other cells only through it, the rest pass. */
function withRootCause(n: number, ownFailure = false): { results: Results; era: string } {
  const results = structuredClone(fixture("fail").results);
  // The fixture has no round-trip row: the cells name it as their root cause all the same.
  const era = results.cells[0]!.era;
  const others = results.cells.filter((c) => c.era === era && c.row !== ROOT && c.cases.length > 0);
  results.cells = results.cells.map((cell): Cell => {
    if (cell.era !== era) return cell;
    if (cell.row === ROOT)
      return {
        ...cell,
        status: "fail",
        cases: cell.cases.map((k) => ({ ...k, status: "fail", reason: "no answer" })),
      };
    const i = others.indexOf(cell);
    if (i >= n) return { ...cell, status: "pass", cases: cell.cases.map((k) => ({ ...k, status: "pass" })) };
    // With ownFailure, the last of them fails on a check of its own as well: not the root cause's alone.
    const own = ownFailure && i === n - 1;
    return {
      ...cell,
      status: "warn",
      cases: cell.cases.map((k, j) => ({
        ...k,
        status: "warn",
        reason: "Prerequisite not met",
        ...(own && j === 0 ? {} : { rootCause: ROOT }),
      })),
    };
  });
  return { results, era };
}

describe("root causes", () => {
  it("counts the cells of an era that fail only through its failed round trip", () => {
    const { results, era } = withRootCause(5);
    const failing = results.cells.filter(
      (c) => c.era === era && (c.status === "fail" || c.status === "warn"),
    );
    expect(rootCauses(results)).toEqual([{ era, row: ROOT, cells: 5, failing: failing.length }]);
  });

  it("leaves out a cell with a failure of its own, and says nothing for a single cell or none", () => {
    expect(rootCauses(withRootCause(5, true).results)[0]?.cells).toBe(4);
    expect(rootCauses(withRootCause(1).results)).toEqual([]);
    expect(rootCauses(fixture("fail").results)).toEqual([]);
    expect(verdictLine(fixture("fail").results)).not.toContain("root cause");
  });

  it("is said in matrix.md, matrix.html, the PR comment and the site's relay page", () => {
    const { results, era } = withRootCause(5);
    const said = new RegExp(
      `5 of the \\d+ cells that fail or warn in ${era} follow from one root cause: sampling-relay-roundtrip failed there`,
    );
    expect(renderMarkdown(results, register)).toMatch(said);
    expect(renderPrComment(results, register)).toMatch(said);
    expect(renderHtml(results, register, {})).toMatch(said);
    const site = renderSite(
      [{ name: "r", slug: "r", results, previous: { note: "first" }, copied: new Set() }],
      register,
      "t",
    );
    expect(site.relays.r).toMatch(said);
  });
});
