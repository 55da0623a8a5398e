import { ROUNDTRIP_ROW } from "../model/case-key.ts";
import type { CaseRun } from "../model/case-run.ts";
import type { Check, Evidence } from "../model/evidence.ts";
import {
  type CellSide,
  type Register,
  type RegisterRow,
  rowSeverity,
  type Severity,
} from "../model/register.ts";
import { type Era, isModernEra } from "../protocol/eras.ts";
import type { SamplingCapabilities } from "../validator/types.ts";
import { rowForRule } from "./attribution.ts";
import { brokerPremise, declaredPremise } from "./broker-premise.ts";
import { applyPrerequisite, type CaseVerdict, judgeCase } from "./case.ts";
import { caseSide } from "./cells.ts";
import { CREDITED_CHECKS } from "./checks/index.ts";
import { unmetPrerequisite } from "./checks/prerequisite.ts";
import type { SequenceInput } from "./checks/sequence.ts";
import { COVERAGE_ROW, type Coverage, violationCoverage } from "./coverage.ts";

/** The row of a relay between a downstream and an upstream of different eras. */
const ADAPTS_ROW = "sampling-relay-adapts-to-downstream-era";

/** The row whose cases prove, per era, that the relay relays sampling at all. */
export { ROUNDTRIP_ROW };

export interface JudgedRun {
  run: CaseRun;
  row: RegisterRow;
  verdict: CaseVerdict;
  /**
   * Checks of this case that count toward another row's cell: failed ones (a validator finding on a delivered
   * message, what a review question failed to show) and credited ones that held (what it showed: a pass there).
   */
  attributed: Array<{
    row: string;
    side: CellSide;
    status: "fail" | "warn" | "pass";
    reason: string;
    /** The credited checks (CREDITED_CHECKS) behind the entry, each with whether it held. */
    checks?: Record<string, boolean>;
  }>;
  /** The credited checks (CREDITED_CHECKS) of this case that count toward its own cell, each with whether it held. */
  credited?: Record<string, boolean>;
  /** Where a validation case's violations sit (the #256 validate row is credited only on full coverage). */
  covers?: Coverage;
}

/**
 * A relay that negotiated an older protocol than the cell's era was not exercised in that era: the harness could
 * not drive the cell (an `error` naming the negotiated version), which is no verdict on the relay.
 */
function olderEraThanCell(run: CaseRun): string | undefined {
  if (isModernEra(run.era)) return undefined;
  const wanted = { downstream: run.kase.downstreamEra ?? run.era, upstream: run.era };
  for (const hop of ["downstream", "upstream"] as const) {
    const got = run.negotiated[hop];
    if (got && /^\d{4}-\d{2}-\d{2}$/.test(got) && got < wanted[hop])
      return `the relay negotiated protocol ${got} at its ${hop} hop, older than this cell's ${wanted[hop]}, so the harness could not exercise ${wanted[hop]}`;
  }
  return undefined;
}

/**
 * A case that pins its downstream to another era than its upstream's (a relay bridging eras) against a relay that
 * made its client speak an older era than the case asked for (a pipe passing the upstream's protocol version on):
 * nothing crossed between eras, so the case does not apply to this relay (n/a), as for a pairing it refuses.
 */
function unbridged(run: CaseRun): string | undefined {
  const down = run.kase.downstreamEra;
  const got = run.negotiated.downstream;
  if (!down || down === run.era || isModernEra(down) || isModernEra(run.era)) return undefined;
  if (!got || !/^\d{4}-\d{2}-\d{2}$/.test(got) || got >= down) return undefined;
  return `the relay does not bridge a ${down} client to a ${run.era} upstream: it negotiated ${got} with the client${got === run.negotiated.upstream ? " (the upstream's version, passed through)" : ""}, so nothing crossed between eras`;
}

/** The harness could not drive the case: an error with the real cause and the relay's last words. */
function harnessVerdict(cause: string, relayLog: string | undefined): CaseVerdict {
  const tail = relayLog ? ` (relay stderr: ${relayLog.trim().split("\n").slice(-3).join(" | ")})` : "";
  return { status: "error", reason: `Harness could not drive the case: ${cause}${tail}`, checks: [] };
}

/** Where a validation case's violations sit, for the #256 row's coverage rule. */
function coverageOf(run: CaseRun, side: CellSide): Coverage {
  const answer = run.kase.answer.action === "accept" ? run.kase.answer.result : undefined;
  return violationCoverage(
    side,
    run.era,
    run.observation.sent,
    answer,
    run.capabilities as SamplingCapabilities,
  );
}

/** What a case names for its wire checks: the checks its rule rests on, and the id its request goes under. */
function wireChecksOf(kase: CaseRun["kase"]): { reliesOn?: readonly string[]; requestId?: string | number } {
  return {
    ...(kase.checks ? { reliesOn: kase.checks } : {}),
    ...(kase.requestId !== undefined ? { requestId: kase.requestId } : {}),
  };
}

/** What a case that sends several sampling requests sends (the judge compares them, src/judge/checks/sequence.ts). */
function sequenceOf(kase: CaseRun["kase"]): { sequence?: SequenceInput } {
  const q = kase.sequence;
  if (kase.mrtr?.keys) return { sequence: { kind: "keys", n: kase.mrtr.keys.length } };
  if (q?.after) return { sequence: { kind: "after", n: q.after.length + 1 } };
  if (q?.burst) return { sequence: { kind: "burst", n: q.burst } };
  if (q?.loop) return { sequence: { kind: "loop", n: q.loop } };
  return {};
}

/** What the judge needs to know of the target beyond each run: who answers sampling behind the relay. */
export interface JudgeTarget {
  /** The profile's answerer kind (`broker`: a case about what the answerer declared is judged by the relay's own declaration). */
  answerer?: "client" | "review" | "broker";
}

/** The register's rows by id, as judgeOne reads them. */
export type RowIndex = Map<string, RegisterRow>;

export const rowIndexOf = (register: Register): RowIndex => new Map(register.rows.map((r) => [r.id, r]));

/**
 * One run judged on its own, from its full observation and frames: its verdict before its era's prerequisite
 * (withEraPrerequisite applies that), what it counts toward other cells, what it credits. Pure.
 */
export function judgeOne(rows: RowIndex, run: CaseRun, target: JudgeTarget = {}): JudgedRun {
  const row = rows.get(run.kase.row)!;
  // Not run (its era's prerequisite failed): judgeRuns gives it that prerequisite's verdict.
  if (run.notRun)
    return { run, row, verdict: { status: "skip", reason: run.notRun, checks: [] }, attributed: [] };
  // The case needs a kind of client this relay does not serve (a 2026-07-28 client refused): n/a, nothing else.
  if (run.notApplicable)
    return {
      run,
      row,
      verdict: { status: "skip", reason: run.notApplicable, checks: [], na: true },
      attributed: [],
    };
  const passedThrough = run.harnessError ? undefined : unbridged(run);
  if (passedThrough)
    return {
      run,
      row,
      verdict: { status: "skip", reason: passedThrough, checks: [], na: true },
      attributed: [],
    };
  const harnessError = run.harnessError ?? olderEraThanCell(run);
  if (harnessError) return { run, row, verdict: harnessVerdict(harnessError, run.relayLog), attributed: [] };
  // A broker is asked instead of the downstream client: the case's premise is what the relay declared for it.
  const premise = (target.answerer === "broker" ? brokerPremise(run) : undefined) ?? declaredPremise(run);
  if (premise)
    return { run, row, verdict: { status: "skip", reason: premise, checks: [], na: true }, attributed: [] };
  const hasCell = (id: string) => rows.get(id)?.eras.includes(run.era) ?? false;
  const bridging = run.kase.downstreamEra !== undefined && run.kase.downstreamEra !== run.era;
  const cell = { row: row.id, side: caseSide(row, run.kase.side) };
  const verdict = judgeCase({
    expect: run.expect,
    era: run.era,
    severity: run.kase.severity ?? rowSeverity(row),
    observation: run.observation,
    canary: run.canary,
    cell,
    ...(run.kase.downstreamEra ? { downstreamEra: run.kase.downstreamEra } : {}),
    capabilities: run.capabilities as SamplingCapabilities,
    answerTimeoutMs: run.answerTimeoutMs,
    frames: run.frames,
    ...wireChecksOf(run.kase),
    ...sequenceOf(run.kase),
    attribute: (rule, channel) =>
      // Between eras, a message the other end cannot take is the bridge's failure to adapt, whatever the rule.
      bridging && hasCell(ADAPTS_ROW)
        ? { row: ADAPTS_ROW, side: "intermediary" }
        : rowForRule(rule, channel, hasCell),
  });
  const covers = row.id === COVERAGE_ROW ? coverageOf(run, cell.side) : undefined;
  const credited = ownCredited(verdict.checks, cell);
  return {
    run,
    row,
    verdict,
    attributed: attributedResults(rows, verdict.checks, cell, run.kase.id),
    ...(credited ? { credited } : {}),
    ...(covers ? { covers } : {}),
  };
}

/** Credited checks (what a review question showed): kept with the case result that carries them. */
const CREDITED: ReadonlySet<string> = new Set(CREDITED_CHECKS);

/** The credited checks of a case that count toward its own cell, by id (undefined when none). */
function ownCredited(
  checks: Check[],
  cell: { row: string; side: CellSide },
): Record<string, boolean> | undefined {
  const own = checks.filter(
    (c) =>
      CREDITED.has(c.id) &&
      (!c.countsFor || (c.countsFor.row === cell.row && c.countsFor.side === cell.side)),
  );
  return own.length > 0 ? Object.fromEntries(own.map((c) => [c.id, c.ok])) : undefined;
}

/**
 * What one case counts toward other cells: its findings that belong to another row (with that row's severity), and
 * its credited checks that held there (a pass). One entry per other cell, however many checks count toward it.
 */
function attributedResults(
  rows: Map<string, RegisterRow>,
  checks: Check[],
  cell: { row: string; side: CellSide },
  caseId: string,
): JudgedRun["attributed"] {
  type Entry = {
    row: string;
    side: CellSide;
    failed: string[];
    held: string[];
    credited: Record<string, boolean>;
  };
  const byCell = new Map<string, Entry>();
  for (const c of checks) {
    if (!c.countsFor) continue;
    const failed = !c.ok && c.level === "info";
    const credited = CREDITED.has(c.id) && (c.ok || failed);
    if (!failed && !credited) continue;
    const { row, side } = c.countsFor;
    if (row === cell.row && side === cell.side) continue;
    const key = `${row} ${side}`;
    const entry = byCell.get(key) ?? { row, side, failed: [], held: [], credited: {} };
    const detail = c.detail.replace(/ \(counted under [^)]*\)$/, "");
    (failed ? entry.failed : entry.held).push(detail);
    if (credited) entry.credited[c.id] = c.ok;
    byCell.set(key, entry);
  }
  return [...byCell.values()].map(({ row, side, failed, held, credited }) => {
    const target = rows.get(row);
    const reason = `${(failed.length > 0 ? failed : held).join("; ")} (seen in case ${cell.row}/${caseId})`;
    const status =
      failed.length === 0
        ? ("pass" as const)
        : target && rowSeverity(target) === "warning"
          ? ("warn" as const)
          : ("fail" as const);
    return {
      row,
      side,
      status,
      reason: reason.charAt(0).toUpperCase() + reason.slice(1),
      ...(Object.keys(credited).length > 0 ? { checks: credited } : {}),
    };
  });
}

/** Whether an era's round trip passed; when not, what went wrong and whether the harness (not the relay) failed. */
export interface EraPrerequisite {
  met: boolean;
  what: string;
  harness?: boolean;
  /** The round trip does not apply to this target (it needs a kind of client the relay does not serve). */
  na?: boolean;
}

/** What an era's prerequisite rests on: each of its round-trip cases, by id, with its own verdict. */
export interface RoundTripVerdict {
  id: string;
  verdict: CaseVerdict;
}

/** A judged round trip as its era's prerequisite reads it. */
export const roundTripVerdict = (j: JudgedRun): RoundTripVerdict => ({
  id: j.run.kase.id,
  verdict: j.verdict,
});

/** The round-trip prerequisite of one era, from the verdicts of its round-trip cases (decided here only). Pure. */
export function eraPrerequisite(roundtrips: RoundTripVerdict[], era: Era): EraPrerequisite {
  if (roundtrips.length > 0 && roundtrips.every((j) => j.verdict.na))
    return {
      met: false,
      na: true,
      what: `this era's round trip does not apply to this target (${roundtrips[0]!.verdict.reason})`,
    };
  const failed = roundtrips.find((j) => j.verdict.status !== "pass");
  return {
    met: roundtrips.length > 0 && !failed,
    // A round trip the harness could not drive leaves the era un-judged (error), not failed by the relay.
    harness: failed?.verdict.status === "error",
    what:
      roundtrips.length === 0
        ? `no ${ROUNDTRIP_ROW} case ran in ${era}`
        : failed
          ? `the relay did not complete a valid sampling round trip in ${era} (${failed.id}: ${failed.verdict.reason})`
          : "",
  };
}

/**
 * Asked while a run goes on, once the era's round-trip cases have run: the reason the era's other cases need not
 * run (no case of the era can earn credit without the round trip), or undefined when they must run.
 */
export function roundTripFailed(register: Register, roundtripRuns: CaseRun[], era: Era): string | undefined {
  const rows = rowIndexOf(register);
  const ran = roundtripRuns.filter((r) => r.era === era && r.kase.row === ROUNDTRIP_ROW);
  return roundTripVerdictsFailed(
    ran.map((run) => roundTripVerdict(judgeOne(rows, run))),
    era,
  );
}

/** roundTripFailed from the verdicts of the era's round trips run so far (judged without a JudgeTarget). */
export function roundTripVerdictsFailed(roundtrips: RoundTripVerdict[], era: Era): string | undefined {
  if (roundtrips.length === 0) return undefined;
  const pre = eraPrerequisite(roundtrips, era);
  return pre.met ? undefined : pre.what;
}

/** The severity a case is judged at: its own, else its row's (SHOULD rows: warning). */
const caseSeverity = (j: JudgedRun) => j.run.kase.severity ?? rowSeverity(j.row);

/**
 * A case not run because its era's round trip failed: that failure (or harness error) is its verdict, at the case's
 * own severity (a SHOULD row warns: the relay broke no MUST of this row by not relaying).
 */
function notRunVerdict(pre: EraPrerequisite, why: string, severity: Severity): CaseVerdict {
  const check = unmetPrerequisite(pre.what || why);
  if (pre.na) return naPrerequisiteVerdict(pre, [check]);
  return pre.harness
    ? {
        status: "error",
        reason: `Not judged: the harness could not drive the round trip (${pre.what || why}), so this case was not run`,
        checks: [check],
      }
    : {
        status: severity === "failure" ? "fail" : "warn",
        reason: `Prerequisite not met: ${pre.what || why}, so this case was not run (it could earn no credit)`,
        checks: [check],
      };
}

/**
 * The era's round trip does not apply to this target: a case of another kind of client earns no credit without it
 * (a skip, so its cell is never `pass`), and nothing of it is the relay's failure.
 */
function naPrerequisiteVerdict(pre: EraPrerequisite, checks: Check[]): CaseVerdict {
  return {
    status: "skip",
    reason: `Not judged: ${pre.what}, and without a round trip no case of the era can earn credit`,
    checks,
  };
}

/**
 * A judged run with its era's prerequisite applied: a round trip, and a case that does not apply to this target, as
 * they are; otherwise, without a passed round trip nothing else of the era counts (findings attributed to other rows
 * and what its checks would credit included). Pure: the verdict judgeRuns gives the run within its whole run.
 */
export function withEraPrerequisite(j: JudgedRun, pre: EraPrerequisite): JudgedRun {
  // Whether a case applies to this target does not depend on the round trip.
  if (j.row.id === ROUNDTRIP_ROW || j.run.notApplicable || j.verdict.na) return j;
  if (pre.met && !j.run.notRun) return j;
  const { credited: _credited, ...uncredited } = j;
  const none = { ...uncredited, attributed: [] };
  if (j.run.notRun) return { ...none, verdict: notRunVerdict(pre, j.run.notRun, caseSeverity(j)) };
  if (pre.na && j.verdict.status !== "error") {
    const check = unmetPrerequisite(pre.what);
    return { ...none, verdict: naPrerequisiteVerdict(pre, [...j.verdict.checks, check]) };
  }
  return { ...none, verdict: applyPrerequisite(j.verdict, pre, caseSeverity(j)) };
}

/** Judges every run, then withholds credit from every era whose round-trip prerequisite did not pass. */
export function judgeRuns(register: Register, runs: CaseRun[], target: JudgeTarget = {}): JudgedRun[] {
  const rows = rowIndexOf(register);
  const judged: JudgedRun[] = runs.map((run) => judgeOne(rows, run, target));
  const prerequisite = new Map<Era, EraPrerequisite>();
  for (const era of new Set(runs.map((r) => r.era)))
    prerequisite.set(
      era,
      eraPrerequisite(
        judged.filter((j) => j.run.era === era && j.row.id === ROUNDTRIP_ROW).map(roundTripVerdict),
        era,
      ),
    );
  return judged.map((j) => withEraPrerequisite(j, prerequisite.get(j.run.era)!));
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
    ...(run.relayLog !== undefined ? { relayLog: run.relayLog } : {}),
  } as Evidence;
}
