import { describe, expect, it } from "vitest";
import { renderGithub } from "../../src/matrix/github.ts";
import { renderHtml } from "../../src/matrix/html.ts";
import { renderJunit } from "../../src/matrix/junit.ts";
import { renderMarkdown } from "../../src/matrix/markdown.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { caseCount, descendants, fixture, loadFixtureRegister, parseXml, XSS_SCRIPT } from "./helpers.ts";

const register = loadFixtureRegister();

function withFuzz(): Results {
  const r: Results = structuredClone(fixture("pass").results);
  r.fuzz = [
    {
      era: "2025-11-25",
      seed: 42,
      runs: 200,
      branches: { valid: 120, "invalid:tool-pairing": 80 },
      durationMs: 5321,
      status: "fail",
      reason: `the relay delivered an invalid result the validator refuses: ${XSS_SCRIPT}`,
      evidence: "fuzz/2025-11-25.json",
      caseFile: "cases/fuzz/found-1.yaml",
    },
    {
      era: "2025-06-18",
      seed: 42,
      runs: 200,
      branches: { valid: 200 },
      durationMs: 4000,
      status: "pass",
      reason: "no disagreement",
    },
  ];
  return ResultsSchema.parse(r);
}

describe("differential fuzzing in the reports", () => {
  it("matrix.md: a section per fuzzed era and a failing verdict", () => {
    const md = renderMarkdown(withFuzz(), register);
    expect(md).toContain("**Verdict: ❌ differential fuzzing failed in 1 era(s)**");
    expect(md).toContain("## Differential fuzzing");
    expect(md).toContain(
      "| 2025-11-25 | 200 (5.3 s) | ❌ fail: the relay delivered an invalid result the validator refuses: &lt;script&gt;",
    );
    expect(md).toContain(
      "| valid 120 · invalid:tool-pairing 80 | [transcript](fuzz/2025-11-25.json) `cases/fuzz/found-1.yaml` |",
    );
    expect(md).not.toContain(XSS_SCRIPT);
  });

  it("junit.xml: one more testsuite with a testcase per fuzzed era", () => {
    const r = withFuzz();
    const root = parseXml(renderJunit(r));
    const suites = descendants(root, "testsuite");
    expect(suites.at(-1)!.attrs.name).toBe("reference-relay fuzz");
    expect(descendants(root, "testcase")).toHaveLength(caseCount(r) + 2);
    expect(descendants(suites.at(-1)!, "failure")[0]!.attrs.message).toContain(XSS_SCRIPT);
    expect(Number(root.attrs.failures)).toBe(1);
  });

  it("GitHub: an error annotation for the failing era", () => {
    const { annotations, summary } = renderGithub(withFuzz());
    expect(annotations).toHaveLength(1);
    expect(annotations[0]).toMatch(/^::error title=differential fuzzing @ 2025-11-25::the relay delivered/);
    expect(annotations[0]).toContain("[evidence: fuzz/2025-11-25.json; saved case: cases/fuzz/found-1.yaml]");
    expect(summary).toContain("| ❌ fail | differential fuzzing | 2025-11-25 |");
  });

  it("matrix.html: an escaped fuzzing table", () => {
    const html = renderHtml(withFuzz(), register, fixture("pass").evidences);
    expect(html).toContain('<section id="fuzz" aria-label="differential fuzzing">');
    expect(html).toContain(
      '<a href="fuzz/2025-11-25.json">fuzz/2025-11-25.json</a> <code>cases/fuzz/found-1.yaml</code>',
    );
    expect(html).not.toContain(XSS_SCRIPT);
    expect(renderHtml(fixture("pass").results, register, {})).not.toContain('id="fuzz"');
  });
});
