import type { CaseRun } from "../harness/controller.ts";
import type { Evidence } from "../model/evidence.ts";
import { type Register, type RegisterRow, rowSeverity } from "../model/register.ts";
import type { Era } from "../validator/eras.ts";
import { applyPrerequisite, type CaseVerdict, judgeCase } from "./case.ts";
import { caseSide } from "./cells.ts";

/** The row whose cases prove, per era, that the relay relays sampling at all. */
export const ROUNDTRIP_ROW = "sampling-relay-roundtrip";

export interface JudgedRun {
  run: CaseRun;
  row: RegisterRow;
  verdict: CaseVerdict;
}

/** Judges every run, then withholds credit from every era whose round-trip prerequisite did not pass. */
export function judgeRuns(register: Register, runs: CaseRun[]): JudgedRun[] {
  const rows = new Map(register.rows.map((r) => [r.id, r]));
  const judged: JudgedRun[] = runs.map((run) => {
    const row = rows.get(run.kase.row)!;
    if (run.harnessError) {
      return {
        run,
        row,
        verdict: { status: "error", reason: `Harness failure: ${run.harnessError}`, checks: [] },
      };
    }
    const verdict = judgeCase({
      expect: run.expect,
      era: run.era,
      severity: run.kase.severity ?? rowSeverity(row),
      observation: run.observation,
      canary: run.canary,
    });
    return { run, row, verdict };
  });
  const prerequisite = new Map<Era, { met: boolean; what: string }>();
  for (const era of new Set(runs.map((r) => r.era))) {
    const roundtrips = judged.filter((j) => j.run.era === era && j.row.id === ROUNDTRIP_ROW);
    const failed = roundtrips.find((j) => j.verdict.status !== "pass");
    prerequisite.set(era, {
      met: roundtrips.length > 0 && !failed,
      what:
        roundtrips.length === 0
          ? `no ${ROUNDTRIP_ROW} case ran in ${era}`
          : failed
            ? `the relay did not complete a valid sampling round trip in ${era} (${failed.run.kase.id}: ${failed.verdict.reason})`
            : "",
    });
  }
  return judged.map((j) =>
    j.row.id === ROUNDTRIP_ROW
      ? j
      : { ...j, verdict: applyPrerequisite(j.verdict, prerequisite.get(j.run.era)!) },
  );
}

/** The case as authored, before canary substitution. */
function definitionOf(kase: CaseRun["kase"]): Record<string, unknown> {
  const { file: _file, ...definition } = kase;
  return definition;
}

export function evidenceFor(
  j: JudgedRun,
  meta: { tool: { name: string; version: string }; target: { name: string; profile?: string }; seed: number },
): Evidence {
  const { run, row, verdict } = j;
  return {
    schema: "mcpx-conform/evidence@1",
    tool: meta.tool,
    target: meta.target,
    seed: meta.seed,
    era: run.era,
    case: {
      id: run.kase.id,
      row: run.kase.row,
      title: run.kase.title,
      why: run.kase.why,
      side: caseSide(row, run.kase.side),
      file: run.kase.file,
      definition: definitionOf(run.kase),
    },
    canary: run.canary,
    rule: { quote: row.quote, url: row.url, level: row.level },
    negotiated: run.negotiated,
    startedAt: run.startedAt,
    durationMs: run.durationMs,
    frames: run.frames,
    observation: run.observation,
    verdict: { status: verdict.status, reason: verdict.reason, checks: verdict.checks },
    ...(run.relayLog ? { relayLog: run.relayLog } : {}),
  } as Evidence;
}
