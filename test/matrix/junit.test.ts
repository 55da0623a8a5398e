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
      expect(cases).toHaveLength(caseCount(results));
      expect(Number(root.attrs.tests)).toBe(caseCount(results));
      const all = results.cells.flatMap((c) => c.cases);
      expect(descendants(root, "failure")).toHaveLength(all.filter((c) => c.status === "fail").length);
      expect(descendants(root, "error")).toHaveLength(all.filter((c) => c.status === "error").length);
      expect(Number(root.attrs.failures)).toBe(all.filter((c) => c.status === "fail").length);
      expect(Number(root.attrs.errors)).toBe(all.filter((c) => c.status === "error").length);
      for (const suite of suites) {
        const era = suite.attrs.name!.split(" @ ").pop()!;
        const inEra = results.cells.filter((c) => c.era === era).flatMap((c) => c.cases);
        expect(descendants(suite, "testcase")).toHaveLength(inEra.length);
        expect(Number(suite.attrs.tests)).toBe(inEra.length);
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

  it("marks skip as skipped, keeps warn passing with its warning, lists case-less cells, and drops forbidden characters", () => {
    const { results } = fixture("pass");
    const r: Results = structuredClone(results);
    r.cells[0]!.cases[0]!.status = "skip";
    r.cells[0]!.cases[0]!.reason = "skipped \u0000 because\u0007 \ud800 reasons";
    r.cells[1]!.cases[0]!.status = "warn";
    r.cells[1]!.cases[0]!.reason = "a SHOULD was missed";
    r.cells[2]!.status = "not-run";
    r.cells[2]!.note = "no case yet";
    r.cells[2]!.cases = [];
    const xml = renderJunit(r);
    const root = parseXml(xml);
    const skipped = descendants(root, "skipped");
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.attrs.message).toBe("skipped \ufffd because\ufffd \ufffd reasons");
    const warned = descendants(root, "testcase").find((t) =>
      descendants(t, "system-out")[0]?.text.startsWith("warning: "),
    );
    expect(warned).toBeDefined();
    expect(descendants(warned!, "failure")).toHaveLength(0);
    expect(descendants(root, "testcase")).toHaveLength(caseCount(r));
    const suite = descendants(root, "testsuite").find((t) => t.attrs.name!.endsWith(`@ ${r.cells[2]!.era}`))!;
    const suiteOut = suite.children.find((c) => c.name === "system-out");
    expect(suiteOut?.text).toContain(`not-run: ${r.cells[2]!.row} (client): no case yet`);
  });
});
