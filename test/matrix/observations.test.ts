/**
 * Observations (issue #32): what a relay did that the text neither demands nor forbids, shown in matrix.md,
 * matrix.html and the site's relay page beside the verdicts, one per behaviour × era, never counted in a cell.
 */
import { describe, expect, it } from "vitest";
import { renderHtml } from "../../src/matrix/html.ts";
import { renderMarkdown } from "../../src/matrix/markdown.ts";
import { renderSite } from "../../src/matrix/site.ts";
import { summarizeObservations } from "../../src/model/observations.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { fixture, loadFixtureRegister } from "./helpers.ts";

const register = loadFixtureRegister();
const SEEN = 'the relay\'s client was given requestState a 40-character string beginning "sgw:"';

/** The passing fixture with the same observation on two cases (of two rows) moved into one era. */
function observed(): Results {
  const results = structuredClone(fixture("pass").results);
  const cells = results.cells.filter((c) => c.cases.length > 0);
  const withCases = [cells[0]!, cells.find((c) => c.row !== cells[0]!.row)!];
  for (const cell of withCases) {
    cell.era = withCases[0]!.era;
    cell.cases[0] = { ...cell.cases[0]!, observations: [{ id: "request-state-substituted", seen: SEEN }] };
  }
  return ResultsSchema.parse(results);
}

describe("observations in the reports", () => {
  it("are summarized once per behaviour and era, with every case they were seen in", () => {
    const results = observed();
    const [one, ...rest] = summarizeObservations(results.cells);
    expect(rest).toEqual([]);
    expect(one).toMatchObject({ id: "request-state-substituted", seen: SEEN });
    expect(one!.cases).toHaveLength(2);
    expect(one!.text).toMatch(/^2026-07-28 basic\/patterns\/mrtr\.mdx, Client Requirements 2/);
  });

  it("are shown in matrix.md, matrix.html and the site's relay page, and only when there are some", () => {
    const results = observed();
    const said =
      /Observations \(not verdicts\)[\s\S]*requestState replaced by the relay.{1,6}s own for its client/;
    expect(renderMarkdown(results, register)).toMatch(said);
    expect(renderMarkdown(results, register)).toContain('beginning "sgw:"');
    expect(renderHtml(results, register, {})).toMatch(said);
    const site = renderSite(
      [{ name: "r", slug: "r", results, previous: { note: "first" }, copied: new Set() }],
      register,
      "t",
    );
    expect(site.relays.r).toMatch(said);
    expect(renderMarkdown(fixture("pass").results, register)).not.toContain("Observations");
  });

  it("list the first three cases a behaviour was seen in, and how many more", () => {
    const results = structuredClone(fixture("pass").results);
    const cases = results.cells.filter((c) => c.cases.length > 0);
    for (const cell of cases) {
      cell.era = cases[0]!.era;
      cell.cases = cell.cases.map((k) => ({
        ...k,
        observations: [{ id: "request-state-minted", seen: "x" }],
      }));
    }
    const n = new Set(cases.flatMap((c) => c.cases.map((k) => `${c.row}/${k.id}`))).size;
    expect(n).toBeGreaterThan(3);
    expect(renderMarkdown(ResultsSchema.parse(results), register)).toContain(` and ${n - 3} more |`);
  });

  it("are refused in results.json under an id the catalogue lacks", () => {
    const results = structuredClone(fixture("pass").results);
    const cell = results.cells.find((c) => c.cases.length > 0)!;
    (cell.cases[0] as Record<string, unknown>).observations = [{ id: "made-up", seen: "x" }];
    expect(ResultsSchema.safeParse(results).success).toBe(false);
  });
});
