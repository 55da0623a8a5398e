import type { Results } from "../model/results.ts";
import { ghData, ghProperty, mdText } from "./escape.ts";
import { mdCode, verdictLine } from "./markdown.ts";
import { compareCells, displayTime, fuzzProblems, runEras } from "./model.ts";
import { ATTENTION_STATUSES, CELL_STATUS_ORDER, caseLabel, cellLabel } from "./status.ts";
import { renderTemplate } from "./templates.ts";

/** How many problems the step summary lists before pointing at the full matrix. */
export const GITHUB_SUMMARY_LIMIT = 100;

/**
 * The most annotation lines written: GitHub shows about 10 per step, so past this the worst problems are kept
 * and the last line is a notice counting the rest.
 */
export const GITHUB_ANNOTATION_LIMIT = 10;

export interface GithubReport {
  /** Markdown for $GITHUB_STEP_SUMMARY. */
  summary: string;
  /**
   * Workflow command lines (`::error title=…::…`), one per problem, worst first, at most
   * `GITHUB_ANNOTATION_LIMIT`: when there are more, the last is a `::notice` saying how many were left out.
   */
  annotations: string[];
}

type Level = "error" | "warning" | "notice";

function command(level: Level, title: string, message: string): string {
  return `::${level} title=${ghProperty(title)}::${ghData(message)}`;
}

/**
 * GitHub Actions output: a step summary and workflow-command annotations. A failing or erroring case is an
 * `::error`, a warning case a `::warning`; cells without cases are annotated by their status (fail/error →
 * error, gap/partial/warn → warning). Not-run cells are counted in the summary, not annotated (a partial run
 * would otherwise drown the real problems). Messages escape %, CR and LF; titles also `:` and `,`.
 */
// Long: builds the step summary and the annotations from one walk over the cells.
export function renderGithub(results: Results, options: { annotationLimit?: number } = {}): GithubReport {
  const cells = [...results.cells].sort(
    (a, b) => CELL_STATUS_ORDER.indexOf(a.status) - CELL_STATUS_ORDER.indexOf(b.status) || compareCells(a, b),
  );
  const annotations: string[] = [];
  const items: Array<{
    label: string;
    row: string;
    era: string;
    side: string;
    caseRef: string;
    reason: string;
  }> = [];
  for (const cell of cells) {
    const where = `${cell.row} @ ${cell.era} (${cell.side})`;
    const misses = cell.cases.filter(
      (c) => c.status === "fail" || c.status === "error" || c.status === "warn",
    );
    for (const c of misses) {
      const evidence = c.evidence ? ` [evidence: ${c.evidence}]` : "";
      annotations.push(
        command(c.status === "warn" ? "warning" : "error", `${where} · ${c.id}`, `${c.reason}${evidence}`),
      );
      items.push({
        label: caseLabel(c.status),
        row: cell.row,
        era: cell.era,
        side: cell.side,
        caseRef: c.evidence ? `${mdText(c.id)}<br>${mdCode(c.evidence, true)}` : mdText(c.id),
        reason: c.reason,
      });
    }
    if (misses.length === 0 && ATTENTION_STATUSES.has(cell.status)) {
      const level: Level = cell.status === "fail" || cell.status === "error" ? "error" : "warning";
      const note = cell.note ?? `cell is ${cell.status}`;
      annotations.push(command(level, where, `${cell.status}: ${note}`));
      items.push({
        label: cellLabel(cell.status),
        row: cell.row,
        era: cell.era,
        side: cell.side,
        caseRef: "—",
        reason: note,
      });
    }
  }

  for (const f of fuzzProblems(results)) {
    const where = [
      f.evidence ? `evidence: ${f.evidence}` : "",
      f.caseFile ? `saved case: ${f.caseFile}` : "",
    ].filter(Boolean);
    annotations.push(
      command(
        "error",
        `differential fuzzing @ ${f.era}`,
        `${f.reason}${where.length ? ` [${where.join("; ")}]` : ""}`,
      ),
    );
    items.push({
      label: caseLabel(f.status),
      row: "differential fuzzing",
      era: f.era,
      side: "—",
      caseRef: f.evidence ? mdCode(f.evidence, true) : "—",
      reason: f.reason,
    });
  }

  const present = CELL_STATUS_ORDER.filter((s) => results.cells.some((c) => c.status === s));
  const summary = renderTemplate("github-summary.md", {
    target: results.target.name,
    toolName: results.tool.name,
    toolVersion: results.tool.version,
    seed: results.seed,
    started: displayTime(results.startedAt),
    verdict: verdictLine(results),
    statusColumns: present.map((s) => ({ label: cellLabel(s) })),
    eraTotals: runEras(results).map((era) => {
      const inEra = results.cells.filter((c) => c.era === era);
      return {
        era,
        counts: present.map((s) => inEra.filter((c) => c.status === s).length),
        total: inEra.length,
      };
    }),
    items: items.slice(0, GITHUB_SUMMARY_LIMIT),
    more: Math.max(0, items.length - GITHUB_SUMMARY_LIMIT),
    notRun: results.cells.filter((c) => c.status === "not-run").length,
    notRunLabel: cellLabel("not-run"),
  });
  return { summary, annotations: capAnnotations(annotations, options.annotationLimit) };
}

/** Keeps the first (worst) annotations and ends with a notice counting the ones left out. */
export function capAnnotations(lines: readonly string[], limit = GITHUB_ANNOTATION_LIMIT): string[] {
  if (lines.length <= limit) return [...lines];
  const kept = lines.slice(0, limit - 1);
  const rest = lines.slice(limit - 1);
  const errors = rest.filter((l) => l.startsWith("::error ")).length;
  const warnings = rest.length - errors;
  const counts = [errors ? `${errors} error(s)` : "", warnings ? `${warnings} warning(s)` : ""]
    .filter(Boolean)
    .join(" and ");
  return [
    ...kept,
    command(
      "notice",
      "mcpx-conform: more problems",
      `…and ${rest.length} more (${counts}) not annotated: the step summary, matrix.md and matrix.html list them all`,
    ),
  ];
}
