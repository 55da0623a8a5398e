import { describe, expect, it } from "vitest";
import { renderJunit } from "../../src/matrix/junit.ts";
import type { Results } from "../../src/model/results.ts";
import { caseCount, descendants, fixture, parseXml, XSS_IMG, XSS_SCRIPT } from "./helpers.ts";

describe("renderJunit (junit.xml)", () => {
  it("matches the committed snapshot", async () => {
    await expect(renderJunit(fixture("fail").results)).toMatchFileSnapshot("./__snapshots__/junit.fail.xml");
  });

  it("parses back: one testsuite per era, one testcase per case × era, with matching counts", () => {
    for (const which of ["pass", "fail"] as const) {
      const { results } = fixture(which);
      const root = parseXml(renderJunit(results));
      expect(root.name).toBe("testsuites");
      const suites = descendants(root, "testsuite");
      expect(suites.map((s) => s.attrs.name)).toEqual(
        results.eras!.map((e) => `${results.target.name} @ ${e}`),
      );
      const cases = descendants(root, "testcase");
      const notRun = results.cells.filter((c) => c.status === "not-run" && c.cases.length === 0);
      expect(cases).toHaveLength(caseCount(results) + notRun.length);
      expect(Number(root.attrs.tests)).toBe(caseCount(results) + notRun.length);
      const all = results.cells.flatMap((c) => c.cases);
      expect(descendants(root, "failure")).toHaveLength(all.filter((c) => c.status === "fail").length);
      expect(descendants(root, "error")).toHaveLength(all.filter((c) => c.status === "error").length);
      expect(Number(root.attrs.failures)).toBe(all.filter((c) => c.status === "fail").length);
      expect(Number(root.attrs.errors)).toBe(all.filter((c) => c.status === "error").length);
      for (const suite of suites) {
        const era = suite.attrs.name!.split(" @ ").pop()!;
        const inEra = results.cells.filter((c) => c.era === era).flatMap((c) => c.cases);
        const notRunInEra = notRun.filter((c) => c.era === era).length;
        expect(descendants(suite, "testcase")).toHaveLength(inEra.length + notRunInEra);
        expect(Number(suite.attrs.tests)).toBe(inEra.length + notRunInEra);
      }
    }
  });

  it("escapes relay text so it round-trips exactly through an XML parser", () => {
    const { results } = fixture("fail");
    const root = parseXml(renderJunit(results));
    const hostile = results.cells.flatMap((c) => c.cases).find((c) => c.reason.includes(XSS_SCRIPT))!;
    const failure = descendants(root, "failure").find((f) => f.attrs.message === hostile.reason);
    expect(failure).toBeDefined();
    expect(failure!.text).toContain(XSS_IMG);
    expect(renderJunit(results)).not.toContain(XSS_SCRIPT);
    expect(descendants(root, "testsuite")[0]!.attrs.name).toBe("mcpx-like <b>relay</b> @ 2025-06-18");
  });

  it("marks skip as skipped, warn as a property and a warning (never a silent pass), not-run cells as skipped testcases with the reason, and drops forbidden characters", () => {
    const { results } = fixture("pass");
    const r: Results = structuredClone(results);
    r.cells[0]!.cases[0]!.status = "skip";
    r.cells[0]!.cases[0]!.reason = "skipped \u0000 because\u0007 \ud800 reasons";
    r.cells[1]!.cases[0]!.status = "warn";
    r.cells[1]!.cases[0]!.reason = "a SHOULD was missed";
    r.cells[2]!.status = "not-run";
    r.cells[2]!.note = "no case yet";
    r.cells[2]!.cases = [];
    const root = parseXml(renderJunit(r));
    const skipped = descendants(root, "skipped");
    expect(skipped.map((s) => s.attrs.message)).toEqual([
      "skipped \ufffd because\ufffd \ufffd reasons",
      "not run: no case yet",
    ]);
    expect(Number(root.attrs.skipped)).toBe(2);
    const notRun = descendants(root, "testcase").find(
      (t) => t.attrs.name === `${r.cells[2]!.row} @ ${r.cells[2]!.era} (client)`,
    )!;
    expect(descendants(notRun, "skipped")).toHaveLength(1);
    expect(descendants(notRun, "property").find((p) => p.attrs.name === "status")!.attrs.value).toBe(
      "not-run",
    );
    // warn: not a failure, but marked on the testcase and counted on its suite
    const warned = descendants(root, "testcase").find((t) =>
      descendants(t, "property").some((p) => p.attrs.name === "status" && p.attrs.value === "warn"),
    )!;
    expect(warned).toBeDefined();
    expect(descendants(warned, "failure")).toHaveLength(0);
    expect(descendants(warned, "system-out")[0]!.text).toMatch(
      /^warning \(not a failure\): a SHOULD was missed/,
    );
    const warnSuite = descendants(root, "testsuite").find((t) =>
      t.attrs.name!.endsWith(`@ ${r.cells[1]!.era}`),
    )!;
    const warnings = (t: typeof warnSuite) =>
      descendants(t, "property").find((p) => p.attrs.name === "warnings")?.attrs.value;
    expect(warnings(warnSuite)).toBe(
      String(
        r.cells
          .filter((c) => c.era === r.cells[1]!.era)
          .flatMap((c) => c.cases)
          .filter((c) => c.status === "warn").length,
      ),
    );
    expect(descendants(root, "testcase")).toHaveLength(caseCount(r) + 1);
    // the not-run cell is no longer only a line in the suite's output
    const suite = descendants(root, "testsuite").find((t) => t.attrs.name!.endsWith(`@ ${r.cells[2]!.era}`))!;
    const suiteOut = suite.children.find((c) => c.name === "system-out");
    expect(suiteOut?.text ?? "").not.toContain(`not-run: ${r.cells[2]!.row}`);
  });
});
