import type { Expectation } from "../../model/case.ts";
import type { Check, Frame, Observation } from "../../model/evidence.ts";
import type { Severity } from "../../model/register.ts";
import type { Era } from "../../protocol/eras.ts";
import type { SamplingCapabilities } from "../../validator/types.ts";
import type { DeliveredChannel, RowRef } from "../attribution.ts";
import type { SequenceInput } from "./sequence.ts";

/**
 * The shape of the check table: one entry per check, its literal id beside what it proves, the rule it rests on, the
 * rows it counts toward and the function that computes it. A family module (src/judge/checks/*.ts) exports one
 * `CheckFamily`; src/judge/checks/index.ts lists the families in the order their checks are recorded.
 */

/**
 * The rows a check counts toward whatever case it was judged in (the first is where it is counted when the case's
 * own row is none of them), and whether it is credited there when it holds (`credited`: results.json keeps its
 * outcome with the case result that carries it, so a tracking bullet can rest on it; otherwise only a failure is
 * recorded there). A check without `counts` counts toward the case's own row; validator findings count toward the
 * row of the rule they break (src/judge/attribution.ts).
 */
export interface CheckCounts {
  rows: readonly [string, ...string[]];
  side: "client" | "server";
  credited?: true;
}

export interface JudgeInput {
  expect: Expectation[];
  era: Era;
  severity: Severity;
  observation: Observation;
  /** The case × era canary; requests the answerer saw must carry it when the sent request did. */
  canary: string;
  /** The case's own cell: checks that count toward another row are recorded here but judged there. */
  cell?: RowRef;
  /** The era the answerer spoke, when it differs from the upstream's. */
  downstreamEra?: Era;
  /** The capabilities the answerer declared (requests it received are validated against them). */
  capabilities?: SamplingCapabilities;
  /** The target's declared answer deadline: an expiry reported later than this plus slack fails. */
  answerTimeoutMs?: number;
  /** The wire frames of the case (for timing). */
  frames?: Frame[];
  /** Which row a validator finding counts toward (default: the rule's own row, see attribution.ts). */
  attribute?: (rule: string, channel: DeliveredChannel) => RowRef;
  /** Checks the case names as its rule's evidence: each must have been evaluated (and hold). */
  reliesOn?: readonly string[];
  /** A case that sends several sampling requests: what they are (src/judge/checks/sequence.ts). */
  sequence?: SequenceInput;
  /** The JSON-RPC id the case has the upstream send its sampling request under (src/judge/checks/response-id.ts). */
  requestId?: string | number;
}

/** What a check's `judge` sees: the case's input, one of its expected outcomes, and the checks recorded before. */
export interface CheckContext extends JudgeInput {
  /** The observation (input.observation). */
  o: Observation;
  /** The expected outcome being judged (a case may accept several; each is judged on its own). */
  e: Expectation;
  /** The checks recorded before this one for the same expected outcome, in table order. */
  earlier: readonly Check[];
  /** The family's subject being judged, when the family judges several (CheckFamily.subjects). */
  subject?: string;
}

/** One recorded outcome of a check, without its id (the entry gives it). */
export type Outcome = Omit<Check, "id">;

export interface CheckEntry<Id extends string = string> {
  readonly id: Id;
  /** What the check proves when it holds, as a report shows it. */
  readonly proves: string;
  /** The rule (register row) it rests on. */
  readonly rule: string;
  /** Fixed rows it counts toward whatever case it was judged in (CheckCounts); unset: the case's own row. */
  readonly counts?: CheckCounts;
  /**
   * Its outcomes on one exchange for one expected outcome: none when the check does not apply, one per thing it
   * judges otherwise. Unset only for a check recorded outside judgeCase, by the function beside its entry.
   */
  readonly judge?: (ctx: CheckContext) => readonly Outcome[];
}

export interface CheckFamily<Id extends string = string> {
  readonly checks: readonly CheckEntry<Id>[];
  /**
   * What the family judges several of in one case (the stages a case reviews), in order: its checks are run once
   * per subject (`ctx.subject`) and recorded subject by subject. Unset: once.
   */
  readonly subjects?: (ctx: CheckContext) => readonly string[];
}

/** A check entry, its id kept as a literal type. */
export const check = <const Id extends string>(entry: CheckEntry<Id>): CheckEntry<Id> => entry;

/** A family of checks, their ids kept as a literal union. */
export const family = <const Id extends string>(f: CheckFamily<Id>): CheckFamily<Id> => f;

/** The check `entry` with one outcome: for a check recorded outside judgeCase. */
export const recorded = <Id extends string>(entry: CheckEntry<Id>, outcome: Outcome): Check & { id: Id } => ({
  id: entry.id,
  ...outcome,
});

/**
 * Where a check with fixed rows (`counts`) counts from a case of `cell`: undefined when it counts toward the case's
 * own cell (it has no fixed rows, the case's row is one of them, or no cell is given), else the first of its rows.
 */
export function countedFrom(counts: CheckCounts | undefined, cell: RowRef | undefined): RowRef | undefined {
  if (!counts || !cell || counts.rows.includes(cell.row)) return undefined;
  return { row: counts.rows[0], side: counts.side };
}
