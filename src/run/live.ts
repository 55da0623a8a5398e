import { relative } from "node:path";
import { caseSide, type JudgedCase } from "../judge/cells.ts";
import { type JudgedRun, type JudgeTarget, judgeRuns, ROUNDTRIP_ROW } from "../judge/judge-runs.ts";
import { type Baseline, entryMatches, isExpired, todayUtc } from "../matrix/baseline.ts";
import type { CaseRun } from "../model/case-run.ts";
import { writeJsonFile } from "../model/output-files.ts";
import type { CellSide, Register } from "../model/register.ts";
import type { Era } from "../protocol/eras.ts";
import type { WorkItem } from "./plan.ts";
import type { RunEvent } from "./progress.ts";
import { type EvidenceMeta, evidencePath, evidenceToWrite } from "./record.ts";

/**
 * Judges cases while the run goes on, so each verdict can be shown (and `--bail` decided) as soon as its case ends.
 * A case's verdict needs its era's round trip (no credit without it), so a case that ends before every round trip of
 * its era has is held until they have; round trips are judged at once. The verdicts are the ones `judgeRuns` gives
 * the whole run: the judge is pure and an era's prerequisite depends on its round trips alone.
 */
export class LiveJudge {
  private readonly roundtripsDue = new Map<Era, number>();
  private readonly roundtrips = new Map<Era, CaseRun[]>();
  private readonly held = new Map<Era, CaseRun[]>();

  constructor(
    private readonly register: Register,
    work: WorkItem[],
    private readonly emit: (judged: JudgedRun) => void,
    private readonly target: JudgeTarget = {},
  ) {
    for (const w of work)
      if (w.kase.row === ROUNDTRIP_ROW)
        this.roundtripsDue.set(w.era, (this.roundtripsDue.get(w.era) ?? 0) + 1);
  }

  private ready(era: Era): boolean {
    return (this.roundtrips.get(era)?.length ?? 0) >= (this.roundtripsDue.get(era) ?? 0);
  }

  private judge(run: CaseRun): void {
    const judged = judgeRuns(this.register, [...(this.roundtrips.get(run.era) ?? []), run], this.target);
    this.emit(judged[judged.length - 1]!);
  }

  /** One finished case (in the order the harness finished them). */
  add(run: CaseRun): void {
    const { era } = run;
    if (run.kase.row !== ROUNDTRIP_ROW) {
      if (this.ready(era)) this.judge(run);
      else this.held.set(era, [...(this.held.get(era) ?? []), run]);
      return;
    }
    this.roundtrips.set(era, [...(this.roundtrips.get(era) ?? []), run]);
    this.emit(judgeRuns(this.register, [run], this.target)[0]!);
    if (!this.ready(era)) return;
    const waiting = this.held.get(era) ?? [];
    this.held.delete(era);
    for (const r of waiting) this.judge(r);
  }

  /** Judges what is still held at the end of a run (an era whose round trip never ran: the judge says so). */
  flush(): void {
    const held = [...this.held.values()].flat();
    this.held.clear();
    for (const r of held) this.judge(r);
  }
}

const keyOf = (kase: { row: string; id: string }, era: string) => `${kase.row}/${kase.id}@${era}`;

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
}

/**
 * The run as it goes: each case judged as it ends (a progress event; a failing case's evidence written at once, so
 * the path printed is there to open), and with --bail, the first failing cell (not baselined) stops the scheduling
 * of further cases. Cases --bail kept from running are recorded as `skip`, so no cell passes on the cases that ran.
 */
export function liveRun(o: LiveOptions) {
  const today = todayUtc();
  const baselined = (cell: { row: string; era: Era; side: CellSide }) =>
    (o.baseline?.expectedFailures ?? []).some((e) => entryMatches(e, cell) && !isExpired(e, today));
  let bailedAt: string | undefined;
  const bailSkipped = new Set<string>();
  const onJudged = (j: JudgedRun) => {
    const { kase, era } = j.run;
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
    if (fails || j.verdict.status === "fail") writeJsonFile(o.outDir, rel, evidenceToWrite(j, o.meta));
    if (fails && o.bail && !bailedAt) bailedAt = keyOf(kase, era);
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
  const judge = new LiveJudge(o.register, o.work, onJudged, o.target);
  return {
    onCase(run: CaseRun): void {
      if (!bailSkipped.has(keyOf(run.kase, run.era))) judge.add(run);
    },
    /** Asked before each case: --bail's reason not to start it, once a cell has failed. */
    skip(item: WorkItem): string | undefined {
      if (!bailedAt) return undefined;
      bailSkipped.add(keyOf(item.kase, item.era));
      return `not run: --bail stopped the run after ${bailedAt} failed`;
    },
    /** At the end: what is still held is judged; returns the runs to judge and the cases --bail kept from running. */
    finish(runs: CaseRun[]): { runs: CaseRun[]; skipped: JudgedCase[]; bailedAt: string | undefined } {
      judge.flush();
      const rows = new Map(o.register.rows.map((r) => [r.id, r]));
      const skipped: JudgedCase[] = [];
      for (const r of runs) {
        if (!bailSkipped.has(keyOf(r.kase, r.era))) continue;
        const side = caseSide(rows.get(r.kase.row)!, r.kase.side);
        const result = { id: r.kase.id, status: "skip" as const, reason: r.notRun ?? "not run (--bail)" };
        skipped.push({ row: r.kase.row, era: r.era, side, result });
      }
      return { runs: runs.filter((r) => !bailSkipped.has(keyOf(r.kase, r.era))), skipped, bailedAt };
    },
  };
}
