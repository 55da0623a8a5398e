import type { Expectation } from "../../model/case.ts";
import type { Check } from "../../model/evidence.ts";
import type { RowRef } from "../attribution.ts";
import { APPROVAL } from "./approval.ts";
import { CAPABILITIES } from "./capabilities.ts";
import type { CheckCounts, CheckFamily, JudgeInput } from "./check.ts";
import { countedFrom } from "./check.ts";
import { DELIVERED } from "./delivered.ts";
import { FUZZ } from "./fuzz.ts";
import { ISOLATION } from "./isolation.ts";
import { PREREQUISITES } from "./prerequisite.ts";
import { REFUSED } from "./refused.ts";
import { RELIED } from "./relied.ts";
import { RESPONSE_ID } from "./response-id.ts";
import { RETRY } from "./retry.ts";
import { REVIEW } from "./review.ts";
import { SEQUENCE } from "./sequence.ts";
import { TIMING } from "./timing.ts";
import { VALIDITY } from "./validity.ts";

/**
 * The check table: every check a report can show, each declared once in its family module beside the function that
 * computes it, with a literal id (grep an id from a report and land on its line). judgeCase runs the families in
 * this order for each expected outcome of a case, and records their checks in it; the catalogue the reports show
 * (`proves`, `rule`, `counts`) is derived from the same entries. A new family is a module and a line here.
 */
export const CHECK_FAMILIES = [
  DELIVERED,
  REFUSED,
  REVIEW,
  APPROVAL,
  CAPABILITIES,
  TIMING,
  ISOLATION,
  VALIDITY,
  RETRY,
  RESPONSE_ID,
  SEQUENCE,
  // Last of the judged: it reads every check recorded before it.
  RELIED,
  // Recorded outside judgeCase, by the function beside each entry.
  PREREQUISITES,
  FUZZ,
] as const;

type IdOf<F> = F extends CheckFamily<infer Id> ? Id : never;
export type CheckId = IdOf<(typeof CHECK_FAMILIES)[number]>;

const ENTRIES = CHECK_FAMILIES.flatMap((f) => f.checks as CheckFamily<CheckId>["checks"]);

/** What each check proves, the rule it rests on and the rows it counts toward, by id (matrix.html shows it). */
export const CHECK_CATALOGUE: Readonly<
  Record<CheckId, { proves: string; rule: string; counts?: CheckCounts }>
> = Object.fromEntries(
  ENTRIES.map(({ id, proves, rule, counts }) => [id, { proves, rule, ...(counts ? { counts } : {}) }]),
) as Record<CheckId, { proves: string; rule: string; counts?: CheckCounts }>;

export const isCheckId = (id: string): id is CheckId => Object.hasOwn(CHECK_CATALOGUE, id);

/** The fixed rows a check counts toward (CheckCounts), or undefined: the case's own row. */
export function countsOf(id: CheckId): CheckCounts | undefined {
  return CHECK_CATALOGUE[id].counts;
}

/**
 * Checks credited toward their row from whichever case they were judged in, held or not (what a review question
 * showed, src/judge/checks/review.ts): results.json keeps their outcome with the case result that carries them
 * (`checks`), so a tracking bullet can rest on them (`checks:` in matrix/tracking/).
 */
export const CREDITED_CHECKS: readonly CheckId[] = ENTRIES.filter((e) => e.counts?.credited === true).map(
  (e) => e.id,
);

/** Where a check with fixed rows counts from a case of `cell` (undefined: the case's own cell), see countedFrom. */
export function countedElsewhere(id: CheckId, cell: RowRef | undefined): RowRef | undefined {
  return countedFrom(countsOf(id), cell);
}

/** A check the judge records: its id is one of the table's. */
export type JudgeCheck = Check & { id: CheckId };

/**
 * The checks of `families` (default: the whole table) on one exchange for one expected outcome, in table order
 * (a family with subjects: subject by subject).
 */
export function judgeChecks(
  input: JudgeInput,
  e: Expectation,
  families: readonly CheckFamily[] = CHECK_FAMILIES,
): JudgeCheck[] {
  const recorded: JudgeCheck[] = [];
  const base = { ...input, o: input.observation, e };
  for (const f of families) {
    const subjects: readonly (string | undefined)[] = f.subjects
      ? f.subjects({ ...base, earlier: recorded })
      : [undefined];
    for (const subject of subjects)
      for (const entry of f.checks) {
        if (!entry.judge) continue;
        for (const outcome of entry.judge({
          ...base,
          earlier: recorded,
          ...(subject !== undefined ? { subject } : {}),
        }))
          recorded.push({ id: entry.id as CheckId, ...outcome });
      }
  }
  return recorded;
}
