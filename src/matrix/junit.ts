import type { CaseResult, Cell, Results } from "../model/results.ts";
import { branchSummary, runEras } from "./model.ts";
import { renderTemplate } from "./templates.ts";

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** JUnit's timestamp is an ISO date-time without zone; the run's start, in UTC ("" for none: stable output). */
function junitTimestamp(iso: string | undefined): string {
  if (iso === undefined) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : d.toISOString().slice(0, 19);
}

function testcase(cell: Cell, c: CaseResult) {
  const where = `${c.evidence ? `evidence: ${c.evidence}` : "no evidence file"}${c.evidenceSha256 ? ` (sha256 ${c.evidenceSha256})` : ""}`;
  const detail = `${c.reason}\n${cell.row} @ ${cell.era} (${cell.side}), case ${c.id}\n${where}`;
  return {
    name: `${c.id} @ ${cell.era} (${cell.side})`,
    classname: cell.row,
    time: seconds(c.durationMs ?? 0),
    properties: [
      { name: "era", value: cell.era },
      { name: "side", value: cell.side },
      { name: "status", value: c.status },
      ...(c.evidence ? [{ name: "evidence", value: c.evidence }] : []),
    ],
    status: c.status,
    message: c.reason,
    detail,
    failure: c.status === "fail",
    error: c.status === "error",
    skipped: c.status === "skip",
    out:
      c.status === "warn"
        ? `warning (not a failure): ${c.reason}\n${where}`
        : c.status === "pass"
          ? where
          : "",
  };
}

/** A not-run cell without cases: a skipped testcase named for the cell, its reason as the message. */
function notRunTestcase(cell: Cell) {
  const reason = `not run: ${cell.note ?? "no case exercised this cell"}`;
  return {
    name: `${cell.row} @ ${cell.era} (${cell.side})`,
    classname: cell.row,
    time: seconds(0),
    properties: [
      { name: "era", value: cell.era },
      { name: "side", value: cell.side },
      { name: "status", value: cell.status },
    ],
    status: cell.status,
    message: reason,
    detail: reason,
    failure: false,
    error: false,
    skipped: true,
    out: "",
  };
}

/**
 * junit.xml: one testsuite per era, one testcase per case × era (classname = register row). fail →
 * <failure>, error → <error>, skip → <skipped>; warn is not a failure, but never a silent pass: its testcase
 * has the property status=warn and the warning in <system-out>, and its suite counts warnings in the property
 * `warnings`. A not-run cell without cases is a skipped testcase (`row @ era (side)`) with the reason; other
 * cells without cases (n/a, recorded gaps) are listed in their era's <system-out>. So the testcase count is the
 * case × era count plus the case-less not-run cells, plus one testcase per fuzzed era (in a last "fuzz"
 * testsuite) when the run fuzzed. Everything is XML-escaped; characters XML forbids become U+FFFD.
 */
// Long: one template context for the suites, cases and the fuzz suite, with their counts.
export function renderJunit(results: Results): string {
  const suites = runEras(results).map((era) => {
    const cells = results.cells.filter((c) => c.era === era);
    const empty = cells.filter((c) => c.cases.length === 0);
    const cases = [
      ...cells.flatMap((cell) => cell.cases.map((c) => testcase(cell, c))),
      ...empty.filter((c) => c.status === "not-run").map(notRunTestcase),
    ];
    return {
      name: `${results.target.name} @ ${era}`,
      tests: cases.length,
      failures: cases.filter((c) => c.failure).length,
      errors: cases.filter((c) => c.error).length,
      skipped: cases.filter((c) => c.skipped).length,
      time: seconds(
        cells.reduce((n, cell) => n + cell.cases.reduce((m, c) => m + (c.durationMs ?? 0), 0), 0),
      ),
      properties: [
        { name: "target", value: results.target.name },
        { name: "era", value: era },
        { name: "seed", value: String(results.seed) },
        { name: "tool", value: `${results.tool.name} ${results.tool.version}` },
        { name: "warnings", value: String(cases.filter((c) => c.status === "warn").length) },
      ],
      cases,
      out: empty
        .filter((c) => c.status !== "not-run")
        .map((c) => `${c.status}: ${c.row} (${c.side})${c.note ? `: ${c.note}` : ""}`)
        .join("\n"),
    };
  });
  const fuzz = results.fuzz ?? [];
  if (fuzz.length > 0) {
    const cases = fuzz.map((f) => {
      const where = [
        f.evidence ? `evidence: ${f.evidence}` : "",
        f.caseFile ? `saved case: ${f.caseFile}` : "",
      ]
        .filter(Boolean)
        .join("\n");
      const detail = `${f.reason}\n${f.runs} exchanges, seed ${f.seed}; branches: ${branchSummary(f.branches)}${where ? `\n${where}` : ""}`;
      return {
        name: `differential fuzzing @ ${f.era}`,
        classname: "fuzz",
        time: seconds(f.durationMs ?? 0),
        properties: [
          { name: "era", value: f.era },
          { name: "runs", value: String(f.runs) },
          { name: "seed", value: String(f.seed) },
        ],
        status: f.status,
        message: f.reason,
        detail,
        failure: f.status === "fail",
        error: f.status === "error",
        skipped: false,
        out: f.status === "pass" ? detail : "",
      };
    });
    suites.push({
      name: `${results.target.name} fuzz`,
      tests: cases.length,
      failures: cases.filter((c) => c.failure).length,
      errors: cases.filter((c) => c.error).length,
      skipped: 0,
      time: seconds(fuzz.reduce((n, f) => n + (f.durationMs ?? 0), 0)),
      properties: [
        { name: "target", value: results.target.name },
        { name: "seed", value: String(results.seed) },
        { name: "tool", value: `${results.tool.name} ${results.tool.version}` },
      ],
      cases,
      out: "",
    });
  }
  const sum = (key: "tests" | "failures" | "errors" | "skipped") => suites.reduce((n, s) => n + s[key], 0);
  return renderTemplate("junit.xml", {
    name: `mcpx-conform: ${results.target.name}`,
    tests: sum("tests"),
    failures: sum("failures"),
    errors: sum("errors"),
    skipped: sum("skipped"),
    time: seconds(
      results.cells.reduce((n, cell) => n + cell.cases.reduce((m, c) => m + (c.durationMs ?? 0), 0), 0),
    ),
    timestamp: junitTimestamp(results.startedAt),
    suites,
  });
}
