import { DEFAULT_MAX_FRAME_BYTES } from "../harness/frames.ts";
import type { JudgedCase } from "../judge/cells.ts";
import type { Case } from "../model/case.ts";
import type { Evidence } from "../model/evidence.ts";
import { EVIDENCE_FILE_MAX_BYTES, fitEvidence } from "../model/evidence-budget.ts";
import { writeTextFile, writeYamlFile } from "../model/output-files.ts";
import { type CellSide, type Register, rowSeverity } from "../model/register.ts";
import type { Results } from "../model/results.ts";
import { stableEvidence } from "../model/stable.ts";
import type { FuzzCounterexample, FuzzEraReport } from "./differential.ts";
import { FUZZ_CAPABILITIES } from "./differential.ts";

/** One era's fuzzing in results.json; `caseFile` is ready to be copied into cases/<row>/ as a regression case. */
export type FuzzSummary = NonNullable<Results["fuzz"]>[number];

type Cell = { row: string; side: CellSide };

/**
 * The cells a counterexample fails. First the row the disagreement breaks (`cx.row`: the oracle's row for a
 * wrong accept/refuse decision; sampling-relay-content-unchanged when a legal exchange was delivered changed,
 * see `differential` in src/fuzz/differential.ts); then every row a failing judge check counts toward (an illegal
 * message the relay delivered breaks the row of the rule the validator names, src/judge/attribution.ts), so
 * the same disagreement weighs where a scripted case breaking that rule would.
 */
export function counterexampleCells(cx: FuzzCounterexample): Cell[] {
  const cells: Cell[] = [{ row: cx.row, side: cx.side }];
  for (const c of cx.verdict.checks) {
    if (c.ok || (c.level ?? "must") !== "must" || !c.countsFor) continue;
    if (!cells.some((x) => x.row === c.countsFor!.row && x.side === c.countsFor!.side))
      cells.push({ row: c.countsFor.row, side: c.countsFor.side });
  }
  return cells;
}

/**
 * Turns differential-fuzzing reports into results: a disagreement becomes a failing case in the cell of the
 * row it breaks (with a transcript and a ready-to-commit case file); agreement adds no credit to any cell.
 */
// Long: one pass over the reports that writes each counterexample's transcript, case file and summary together.
export function foldFuzz(
  reports: FuzzEraReport[],
  register: Register,
  outDir: string,
  meta: {
    tool: { name: string; version: string };
    target: { name: string; profile?: string };
    seed: number;
    stable?: boolean;
  },
  /** The run's frame cap (a counterexample's transcript is within EVIDENCE_FILE_MAX_BYTES like any other). */
  maxFrameBytes: number = DEFAULT_MAX_FRAME_BYTES,
): { summaries: FuzzSummary[]; judged: JudgedCase[] } {
  const rows = new Map(register.rows.map((r) => [r.id, r]));
  const summaries: FuzzSummary[] = [];
  const judged: JudgedCase[] = [];
  for (const report of reports) {
    const base = {
      era: report.era,
      seed: report.seed,
      runs: report.runs,
      branches: report.branches,
      durationMs: report.durationMs,
    };
    const cx = report.counterexample;
    if (!cx) {
      summaries.push(
        report.error
          ? { ...base, status: "error", reason: `fuzzing could not run: ${report.error}` }
          : {
              ...base,
              status: "pass",
              reason: `${report.runs} generated exchanges: the relay agreed with the reference validator on every one`,
            },
      );
      continue;
    }
    const id = `fuzz-${report.era}-seed-${report.seed}`;
    const row = rows.get(cx.row);
    const definition: Case = {
      id,
      row: cx.row,
      title: `Differential fuzzing counterexample (${report.era}, seed ${report.seed})`,
      why: `Found by differential fuzzing: ${cx.says}.`,
      ...(cx.side !== "intermediary" ? { side: cx.side } : {}),
      eras: [report.era],
      capabilities: FUZZ_CAPABILITIES as Record<string, unknown>,
      request: cx.exchange.params,
      answer: { action: "accept", result: cx.exchange.result },
      expect: cx.expect,
    };
    const reason = `Differential fuzzing (seed ${report.seed}) shrank a disagreement: ${cx.says}; ${cx.verdict.reason}`;
    // A disagreement on a SHOULD row (a relay not refusing what it should) warns there, as the row's cases do.
    const status = row && rowSeverity(row) === "warning" ? ("warn" as const) : ("fail" as const);
    const evidence: Evidence = {
      schema: "mcpx-conform/evidence@1",
      tool: meta.tool,
      target: meta.target,
      seed: report.seed,
      era: report.era,
      case: { id, row: cx.row, title: definition.title, why: definition.why, side: cx.side, definition },
      ...(row ? { rule: { quote: row.quote, url: row.url, level: row.level } } : {}),
      negotiated: cx.negotiated,
      startedAt: new Date().toISOString(),
      durationMs: report.durationMs,
      frames: cx.frames,
      observation: cx.observation,
      verdict: { status, reason, checks: cx.verdict.checks },
    };
    const rel = `evidence/fuzz/${id}.json`;
    const written = meta.stable ? stableEvidence(evidence) : evidence;
    const sha = writeTextFile(outDir, rel, fitEvidence(written, EVIDENCE_FILE_MAX_BYTES, maxFrameBytes).text);
    const caseFile = `fuzz/counterexamples/${cx.row}/${id}.yaml`;
    writeYamlFile(
      outDir,
      caseFile,
      definition,
      [
        `# Copy into cases/${cx.row}/ to keep this counterexample as a regression case.`,
        // Cases send under the harness's own ids: the one this exchange went under is kept here, for the reader.
        ...(cx.exchange.id !== undefined
          ? [`# The fuzzer sent the request under JSON-RPC id ${JSON.stringify(cx.exchange.id)}.`]
          : []),
      ].join("\n"),
    );
    summaries.push({ ...base, status, reason, evidence: rel, caseFile });
    for (const cell of counterexampleCells(cx)) {
      const target = rows.get(cell.row);
      judged.push({
        ...cell,
        era: report.era,
        result: {
          id,
          status: target && rowSeverity(target) === "warning" ? "warn" : "fail",
          reason,
          evidence: rel,
          evidenceSha256: sha,
          durationMs: report.durationMs,
        },
      });
    }
  }
  return { summaries, judged };
}
