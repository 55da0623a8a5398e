import { relative } from "node:path";
import { caseSide, type JudgedCase } from "../judge/cells.ts";
import {
  eraPrerequisite,
  type JudgedRun,
  type JudgeTarget,
  judgeOne,
  ROUNDTRIP_ROW,
  type RoundTripVerdict,
  type RowIndex,
  roundTripVerdict,
  roundTripVerdictsFailed,
  rowIndexOf,
  withEraPrerequisite,
} from "../judge/judge-runs.ts";
import { type Baseline, entryMatches, isExpired, todayUtc } from "../matrix/baseline.ts";
import { caseKey } from "../model/case-key.ts";
import type { CaseRun } from "../model/case-run.ts";
import { compactValue } from "../model/compact.ts";
import type { CellSide, Register } from "../model/register.ts";
import type { Era } from "../protocol/eras.ts";
import type { WorkItem } from "./plan.ts";
import type { RunEvent } from "./progress.ts";
import {
  caseResultsOf,
  DEFAULT_EVIDENCE_LIMITS,
  type EvidenceLimits,
  type EvidenceMeta,
  evidencePath,
  writeEvidence,
} from "./record.ts";

/** Round-trip verdicts as they come, read in plan order (whatever order their cases ended in). */
class PlannedVerdicts {
  private readonly byIndex: Array<{ index: number; verdict: RoundTripVerdict }> = [];

  add(index: number, verdict: RoundTripVerdict): void {
    this.byIndex.push({ index, verdict });
  }

  get size(): number {
    return this.byIndex.length;
  }

  inOrder(): RoundTripVerdict[] {
    return [...this.byIndex].sort((a, b) => a.index - b.index).map((x) => x.verdict);
  }
}

/**
 * Judges cases while the run goes on, each exactly once, so each verdict can be shown (and `--bail` decided) as soon as
 * its case ends and its evidence written at once. A case's verdict needs its era's round trip (no credit without it):
 * a case is judged on its own as it ends (judgeOne, from its full observation and frames), and emitted with its era's
 * prerequisite once every round trip of its era has run (held until then); round trips are emitted at once. The
 * verdicts are the ones `judgeRuns` gives the whole run: the judge is pure and an era's prerequisite rests on its round
 * trips' verdicts alone, which is all that is kept of them. A held case keeps the copy `compact` makes of its run
 * (default: the run itself), never its full observation.
 */
export class LiveJudge {
  private readonly rows: RowIndex;
  private readonly roundtripsDue = new Map<Era, number>();
  /** Each era's round-trip verdicts so far, in plan order (the prerequisite names the first that failed). */
  private readonly roundtrips = new Map<Era, PlannedVerdicts>();
  private readonly held = new Map<Era, JudgedRun[]>();
  private readonly planIndex: Map<string, number>;

  constructor(
    register: Register,
    work: WorkItem[],
    private readonly emit: (judged: JudgedRun) => void,
    private readonly target: JudgeTarget = {},
    private readonly compact: (run: CaseRun) => CaseRun = (run) => run,
  ) {
    this.rows = rowIndexOf(register);
    this.planIndex = new Map(work.map((w, i) => [caseKey(w.kase, w.era), i]));
    for (const w of work)
      if (w.kase.row === ROUNDTRIP_ROW)
        this.roundtripsDue.set(w.era, (this.roundtripsDue.get(w.era) ?? 0) + 1);
  }

  private ready(era: Era): boolean {
    return (this.roundtrips.get(era)?.size ?? 0) >= (this.roundtripsDue.get(era) ?? 0);
  }

  private emitWithPrerequisite(j: JudgedRun): void {
    const era = j.run.era;
    this.emit(withEraPrerequisite(j, eraPrerequisite(this.roundtrips.get(era)?.inOrder() ?? [], era)));
  }

  /** One finished case (in the order the harness finished them); returns it judged on its own (judgeOne). */
  add(run: CaseRun): JudgedRun {
    const { era } = run;
    const judged = judgeOne(this.rows, run, this.target);
    const j = { ...judged, run: this.compact(run) };
    if (run.kase.row !== ROUNDTRIP_ROW) {
      if (this.ready(era)) this.emitWithPrerequisite(j);
      else this.held.set(era, [...(this.held.get(era) ?? []), j]);
      return j;
    }
    const verdicts = this.roundtrips.get(era) ?? new PlannedVerdicts();
    verdicts.add(this.planIndex.get(caseKey(run.kase, era)) ?? Number.MAX_SAFE_INTEGER, roundTripVerdict(j));
    this.roundtrips.set(era, verdicts);
    this.emit(j);
    if (!this.ready(era)) return j;
    const waiting = this.held.get(era) ?? [];
    this.held.delete(era);
    for (const h of waiting) this.emitWithPrerequisite(h);
    return j;
  }

  /** Judges what is still held at the end of a run (an era whose round trip never ran: the judge says so). */
  flush(): void {
    const held = [...this.held.values()].flat();
    this.held.clear();
    for (const h of held) this.emitWithPrerequisite(h);
  }
}

export interface LiveOptions {
  register: Register;
  work: WorkItem[];
  outDir: string;
  meta: EvidenceMeta;
  selectedRows: Set<string> | undefined;
  baseline: Baseline | undefined;
  /** --bail: once a cell fails, no further case is started. */
  bail: boolean;
  onEvent: ((event: RunEvent) => void) | undefined;
  /** Evidence paths in progress events are relative to this folder (default: the process's). */
  cwd?: string;
  /** Who answers behind the relay (the judge needs it: see JudgeTarget). */
  target?: JudgeTarget;
  /** Each case's evidence budget and the run's frame cap (default: the file bound, the default cap). */
  limits?: (run: CaseRun) => EvidenceLimits;
  /**
   * Runs judged only as their era's prerequisite (a shard runs every round trip of the eras it has work in and
   * reports those assigned to it): not recorded; their evidence is written only when they fail.
   */
  prerequisiteOnly?: ReadonlySet<string>;
}

/**
 * The run as it goes: each case judged once as it ends (a progress event), its evidence written at once and its case
 * results kept, nothing else of it (its observation and frames are let go); with --bail, the first failing cell (not
 * baselined) stops the scheduling of further cases. Cases --bail kept from running are recorded as `skip`, so no cell
 * passes on the cases that ran. At the end, the case results in plan order, as judging the whole run would give them.
 */
// Long: the judged case's three consumers (progress and --bail, its evidence, its case results) in one closure.
export function liveRun(o: LiveOptions) {
  const today = todayUtc();
  const baselined = (cell: { row: string; era: Era; side: CellSide }) =>
    (o.baseline?.expectedFailures ?? []).some((e) => entryMatches(e, cell) && !isExpired(e, today));
  const limits = o.limits ?? (() => DEFAULT_EVIDENCE_LIMITS);
  const planIndex = new Map(o.work.map((w, i) => [caseKey(w.kase, w.era), i]));
  const recorded: Array<{ index: number; cases: JudgedCase[] }> = [];
  const bailSkips: Array<{ index: number; cases: JudgedCase[] }> = [];
  /** Round-trip verdicts as the skip hook reads them: judged without the target, bail-skipped ones included. */
  const plainRoundtrips = new Map<Era, PlannedVerdicts>();
  const rows = rowIndexOf(o.register);
  let bailedAt: string | undefined;
  const bailSkipped = new Set<string>();
  const onJudged = (j: JudgedRun) => {
    const { kase, era } = j.run;
    const key = caseKey(kase, era);
    const side = caseSide(j.row, kase.side);
    const fails =
      (j.verdict.status === "fail" && !baselined({ row: kase.row, era, side })) ||
      j.attributed.some(
        (a) =>
          a.status === "fail" &&
          (!o.selectedRows || o.selectedRows.has(a.row)) &&
          !baselined({ row: a.row, era, side: a.side }),
      );
    const rel = evidencePath(kase.row, kase.id, era);
    if (!o.prerequisiteOnly?.has(key)) {
      const evidence = writeEvidence(j, o.outDir, o.meta, limits(j.run));
      recorded.push({ index: planIndex.get(key) ?? -1, cases: caseResultsOf(j, evidence, o.selectedRows) });
    } else if (fails || j.verdict.status === "fail") writeEvidence(j, o.outDir, o.meta, limits(j.run));
    if (fails && o.bail && !bailedAt) bailedAt = key;
    o.onEvent?.({
      kind: "case",
      row: kase.row,
      id: kase.id,
      era,
      status: j.verdict.status,
      reason: j.verdict.reason,
      evidence: relative(o.cwd ?? process.cwd(), `${o.outDir}/${rel}`),
      failsCell: fails,
    });
  };
  const compact = (run: CaseRun): CaseRun => ({
    ...run,
    observation: compactValue(run.observation, limits(run).maxFrameBytes) as CaseRun["observation"],
  });
  const judge = new LiveJudge(o.register, o.work, onJudged, o.target, compact);
  return {
    onCase(run: CaseRun): void {
      const key = caseKey(run.kase, run.era);
      const skipped = bailSkipped.has(key);
      const own = skipped ? undefined : judge.add(run);
      if (run.kase.row === ROUNDTRIP_ROW) {
        // Only a broker target judges a case differently from no target (its premise): then it is judged again.
        const plain = own && o.target?.answerer !== "broker" ? own : judgeOne(rows, run);
        const verdicts = plainRoundtrips.get(run.era) ?? new PlannedVerdicts();
        verdicts.add(planIndex.get(key) ?? Number.MAX_SAFE_INTEGER, roundTripVerdict(plain));
        plainRoundtrips.set(run.era, verdicts);
      }
      if (!skipped || o.prerequisiteOnly?.has(key)) return;
      const side = caseSide(rows.get(run.kase.row)!, run.kase.side);
      const result = { id: run.kase.id, status: "skip" as const, reason: run.notRun ?? "not run (--bail)" };
      bailSkips.push({
        index: planIndex.get(key) ?? -1,
        cases: [{ row: run.kase.row, era: run.era, side, result }],
      });
    },
    /** Asked before each case: --bail's reason not to start it, once a cell has failed. */
    skip(item: WorkItem): string | undefined {
      if (!bailedAt) return undefined;
      bailSkipped.add(caseKey(item.kase, item.era));
      return `not run: --bail stopped the run after ${bailedAt} failed`;
    },
    /** Asked before each case of an era: why it need not run (the era's round trip failed), or undefined. */
    roundTripFailed(era: Era): string | undefined {
      return roundTripVerdictsFailed(plainRoundtrips.get(era)?.inOrder() ?? [], era);
    },
    /**
     * At the end: what is still held is judged; returns the case results (in plan order, each case's own result then
     * those it counts toward elsewhere) and the cases --bail kept from running.
     */
    finish(): { judgedCases: JudgedCase[]; skipped: JudgedCase[]; bailedAt: string | undefined } {
      judge.flush();
      const inPlanOrder = (xs: Array<{ index: number; cases: JudgedCase[] }>) =>
        xs.sort((a, b) => a.index - b.index).flatMap((x) => x.cases);
      return { judgedCases: inPlanOrder(recorded), skipped: inPlanOrder(bailSkips), bailedAt };
    },
  };
}
