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

/**
 * Why the harness cannot drive an era over this target's transports, if it cannot (an error, not a verdict). The
 * harness speaks 2026-07-28 over stdio and Streamable HTTP at both ends; that era has no legacy SSE transport (its
 * server-to-client requests travel inside results, and the HTTP+SSE pair was retired before it).
 */
export function harnessCannotDrive(profile: TargetProfile, era: Era): string | undefined {
  if (!isModernEra(era)) return undefined;
  const sse = [
    profile.upstream.transport === "sse" ? "upstream sse" : "",
    profile.downstream.transport === "sse" ? "downstream sse" : "",
  ].filter(Boolean);
  return sse.length
    ? `the harness drives ${era} over stdio and Streamable HTTP only (${era} has no legacy SSE transport); this target uses ${sse.join(" and ")}, so the cell was not exercised`
    : undefined;
}

/** Why a case does not apply to this target at all (its cell is n/a), if it does not. */
export function notApplicableHere(kase: LoadedCase, profile: TargetProfile): string | undefined {
  if (kase.stream && profile.upstream.transport !== "streamable-http")
    return `n/a on a ${profile.upstream.transport} upstream: only Streamable HTTP has a standalone GET stream beside each request's own response stream, so a request is related or unrelated to a call only there`;
  return undefined;
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
      const na = notApplicableHere(kase, input.profile);
      const skipped = na ?? cannotRunHere(kase, input.profile);
      if (undrivable || skipped) {
        const result = {
          id: kase.id,
          status: undrivable ? "error" : "skip",
          reason: undrivable ?? skipped!,
          ...(na && !undrivable ? { na: true } : {}),
        } as const;
        unrun.push({ row: kase.row, era, side: caseSide(row, kase.side), result });
        continue;
      }
      work.push({ kase, era });
    }
  }
  return { work, unrun };
}
