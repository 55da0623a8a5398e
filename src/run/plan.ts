import { multiSessionNotRun } from "../harness/isolation.ts";
import { caseSide, type JudgedCase } from "../judge/cells.ts";
import { ROUNDTRIP_ROW } from "../judge/judge-runs.ts";
import type { LoadedCase } from "../model/load.ts";
import type { Register } from "../model/register.ts";
import type { TargetProfile } from "../model/target.ts";
import { type Era, isModernEra } from "../protocol/eras.ts";

/** Review cases against a target whose answerer is a plain client: the review itself is the downstream's. */
export const REVIEW_DELEGATED =
  "delegated to the downstream client; no review surface exercised (the case needs a person at the relay's review surface: a target with answerer.kind: review)";

export interface WorkItem {
  kase: LoadedCase;
  era: Era;
}

export interface RunPlan {
  /** What the harness runs, round-trip cases first in every era (every other verdict of the era depends on them). */
  work: WorkItem[];
  /** Cases this target cannot run, already recorded: a cell that had them is partial or not-run, never pass. */
  unrun: JudgedCase[];
}

/** Why the harness cannot drive an era over this target's transports, if it cannot (an error, not a verdict). */
export function harnessCannotDrive(profile: TargetProfile, era: Era): string | undefined {
  if (!isModernEra(era)) return undefined;
  const http = [
    profile.upstream.transport !== "stdio" ? `upstream ${profile.upstream.transport}` : "",
    profile.downstream.transport !== "stdio" ? `downstream ${profile.downstream.transport}` : "",
  ].filter(Boolean);
  return http.length
    ? `the harness drives ${era} over stdio only; this target uses ${http.join(" and ")}, so the cell was not exercised`
    : undefined;
}

/** Why this target cannot run a case at all, if it cannot. */
function cannotRunHere(kase: LoadedCase, profile: TargetProfile): string | undefined {
  if (kase.review && profile.answerer.kind !== "review") return REVIEW_DELEGATED;
  if (kase.sessions) return multiSessionNotRun(profile);
  return undefined;
}

/**
 * Plans a run: every case of the selected rows in every selected era it applies to (plus the round trip, which
 * every era needs), in the order the judge needs, and what this target cannot run with the reason why.
 */
export function planRun(input: {
  register: Register;
  cases: LoadedCase[];
  profile: TargetProfile;
  eras: Era[];
  selectedRows?: Set<string> | undefined;
  /** --case: only these cases run; the other cases of their rows are `skip` (their cells cannot pass on a part). */
  selectedCases?: ((kase: LoadedCase) => boolean) | undefined;
}): RunPlan {
  const rows = new Map(input.register.rows.map((r) => [r.id, r]));
  const work: WorkItem[] = [];
  const unrun: JudgedCase[] = [];
  const ordered = [...input.cases].sort(
    (a, b) => Number(b.row === ROUNDTRIP_ROW) - Number(a.row === ROUNDTRIP_ROW),
  );
  for (const era of input.eras) {
    const undrivable = harnessCannotDrive(input.profile, era);
    for (const kase of ordered) {
      const row = rows.get(kase.row)!;
      if (!(kase.eras ?? row.eras).includes(era)) continue;
      if (input.selectedRows && !input.selectedRows.has(kase.row) && kase.row !== ROUNDTRIP_ROW) continue;
      const skipped =
        input.selectedCases && kase.row !== ROUNDTRIP_ROW && !input.selectedCases(kase)
          ? "not selected (run --case)"
          : cannotRunHere(kase, input.profile);
      if (undrivable || skipped) {
        const result = {
          id: kase.id,
          status: undrivable ? "error" : "skip",
          reason: undrivable ?? skipped!,
        } as const;
        unrun.push({ row: kase.row, era, side: caseSide(row, kase.side), result });
        continue;
      }
      work.push({ kase, era });
    }
  }
  return { work, unrun };
}
